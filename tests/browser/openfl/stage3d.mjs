// Draws AGAL program pairs with OpenFL's Stage3D (the `openfl` package, pinned in
// ../package.json) in headless Chromium, and writes back the pixels.
//
//   node stage3d.mjs CASES.json RESULTS.json
//
// CASES.json (written by tools/tests/openfl.rs):
//   { "width": 64, "height": 64, "cases": [ {
//       "name": "...",
//       "vertex": HEX, "fragment": HEX,            // the AGAL bytes for Program3D.upload
//       "floatsPerVertex": N, "vertices": [...],   // one triangle per three vertices
//       "attributes": [ { "register": 0, "offset": 0 } ],   // float4 each, offsets in floats
//       "vertexConstants": [...], "fragmentConstants": [...],  // 4 floats per register, from 0
//       "textures": [ { "sampler": 0, "width": 64, "height": 64, "rgba": HEX } ],
//       "background": [r, g, b],
//       "second": null | { "vertexConstants": [...], "fragmentConstants": [...] } } ] }
//   (`second`: draw again with these constants, the program still set, and read that frame)
// RESULTS.json: { "renderer": {...}, "results": [ { name, ok, error, rgba (HEX, rows from
// the top), vertexGlsl, fragmentGlsl, log } ] }
//
// Setup, as the test does it (nothing in node_modules is changed):
// - OpenFL's bundle is loaded into the page from node_modules/openfl/dist/openfl.js with one
//   patch: Lime asks WebGL for a context with `failIfMajorPerformanceCaveat: true`, which a
//   software renderer (SwiftShader, what headless Chromium has) refuses, and OpenFL then falls
//   back to its canvas renderer, where Stage3D has no context. The patch asks with `false`.
// - Chromium runs WebGL on SwiftShader: --use-angle=swiftshader --enable-unsafe-swiftshader.
//
// Prints one line per case (`drawn` or `refused` with OpenFL's message) and exits 0 when every
// case ran (drawn or refused); 1 when the browser or OpenFL could not be set up at all.

import { chromium } from 'playwright-core';
import { readFile, writeFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const TOTAL_TIMEOUT_MS = 120_000;
const here = path.dirname(fileURLToPath(import.meta.url));
const require = createRequire(path.join(here, '..', 'package.json'));

const [casesPath, resultsPath] = process.argv.slice(2);
if (!casesPath || !resultsPath) {
  console.error('usage: node stage3d.mjs CASES.json RESULTS.json');
  process.exit(2);
}
const executablePath = process.env.CHROMIUM || '/usr/bin/chromium';

const watchdog = setTimeout(() => {
  console.error(`FAIL: the whole run took longer than ${TOTAL_TIMEOUT_MS / 1000} s; giving up`);
  process.exit(1);
}, TOTAL_TIMEOUT_MS);
watchdog.unref();

const PATCH_FROM = 'failIfMajorPerformanceCaveat : true';
const PATCH_TO = 'failIfMajorPerformanceCaveat : false';

async function openflBundle() {
  const file = require.resolve('openfl/dist/openfl.js');
  const text = await readFile(file, 'utf8');
  const count = text.split(PATCH_FROM).length - 1;
  if (count !== 1) {
    throw new Error(`${file}: expected "${PATCH_FROM}" once (OpenFL 8.9.6's Lime), found it ${count} times`);
  }
  return text.replace(PATCH_FROM, PATCH_TO);
}

const input = JSON.parse(await readFile(casesPath, 'utf8'));
let browser;
let code = 1;
try {
  const scripts = [
    await readFile(require.resolve('pako/dist/pako.min.js'), 'utf8'),
    await openflBundle(),
    await readFile(path.join(here, 'page.js'), 'utf8'),
  ];
  browser = await chromium.launch({
    executablePath,
    headless: true,
    timeout: 20_000,
    args: ['--headless', '--no-sandbox', '--use-angle=swiftshader', '--enable-unsafe-swiftshader',
      '--ignore-gpu-blocklist', '--disable-quic', '--no-first-run', '--disable-background-networking',
      '--disable-component-update', '--disable-sync'],
  });
  const page = await browser.newPage({ viewport: { width: 256, height: 256 } });
  const pageErrors = [];
  page.on('pageerror', (err) => pageErrors.push(err.message));
  await page.setContent('<!doctype html><html><body style="margin:0"></body></html>');
  for (const content of scripts) await page.addScriptTag({ content });
  const renderer = await page.evaluate(({ w, h }) => window.spvStage3D.init(w, h),
    { w: input.width, h: input.height });
  console.log(`Stage3D context: ${renderer.driverInfo} (${renderer.version}; ${renderer.renderer})`);
  const results = [];
  for (const c of input.cases) {
    const started = Date.now();
    const r = await page.evaluate((c) => window.spvStage3D.draw(c), c);
    results.push(r);
    const ms = Date.now() - started;
    if (r.ok) console.log(`drawn   ${c.name} (${ms} ms)`);
    else console.log(`refused ${c.name} (${ms} ms): ${r.error.split('\n')[0]}`);
  }
  await writeFile(resultsPath, JSON.stringify({ renderer, results, pageErrors }));
  console.log(`${results.filter((r) => r.ok).length} drawn, ${results.filter((r) => !r.ok).length} refused`);
  code = 0;
} catch (err) {
  console.error(`FAIL setup: ${err && err.message ? err.message.split('\n')[0] : err}`);
} finally {
  if (browser) await browser.close().catch(() => {});
}
process.exit(code);
