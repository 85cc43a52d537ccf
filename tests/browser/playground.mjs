// Headless-Chromium test of the `spv2retro serve` playground page.
//
//   PLAYGROUND_URL=http://127.0.0.1:40123/ SCREENSHOT_DIR=/tmp/shots node playground.mjs
//
// Needs a running server at PLAYGROUND_URL and a Chromium binary (env CHROMIUM, default
// /usr/bin/chromium). Prints one line per step and, last, "N passed, N failed[, N skipped]";
// exits 0 only if every step passed.

import { chromium } from 'playwright-core';
import { mkdir, mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';

const STEP_TIMEOUT_MS = 10_000;
const TOTAL_TIMEOUT_MS = 85_000;

const url = process.env.PLAYGROUND_URL;
const executablePath = process.env.CHROMIUM || '/usr/bin/chromium';
const steps = [];
let passed = 0;
let failed = 0;
let skipped = 0;

function finish(code) {
  console.log(`${passed} passed, ${failed} failed${skipped ? `, ${skipped} skipped` : ''}`);
  process.exit(code);
}

if (!url) {
  console.error('FAIL setup: set PLAYGROUND_URL to the page of a running `spv2retro serve` (e.g. http://127.0.0.1:40123/)');
  failed = 1;
  finish(1);
}

// A hard stop for the whole script, whatever hangs.
const watchdog = setTimeout(() => {
  console.error(`FAIL: the whole test took longer than ${TOTAL_TIMEOUT_MS / 1000} s; giving up`);
  failed += 1;
  finish(1);
}, TOTAL_TIMEOUT_MS);
watchdog.unref();

const screenshotDir = process.env.SCREENSHOT_DIR || await mkdtemp(path.join(tmpdir(), 'playground-shots-'));
await mkdir(screenshotDir, { recursive: true });

function step(name, fn) {
  steps.push({ name, fn });
}

class StepError extends Error {}

// Runs fn, turning a timeout into a message that says what was awaited and what the page showed.
async function expect(page, what, fn) {
  try {
    return await fn();
  } catch (err) {
    const seen = await pageState(page);
    const why = err instanceof StepError ? err.message : (err && err.message ? err.message.split('\n')[0] : String(err));
    throw new StepError(`${what}\n      cause: ${why}\n      page:  ${seen}`);
  }
}

async function pageState(page) {
  try {
    return await page.evaluate(() => {
      const text = (sel) => (document.querySelector(sel)?.textContent ?? '(missing)').replace(/\s+/g, ' ').trim().slice(0, 300);
      return `status=${JSON.stringify(text('#status'))} diagnostics=${JSON.stringify(text('#diagnostics'))} `
        + `listing=${JSON.stringify(text('#listing').slice(0, 120))} outputs=${JSON.stringify(text('#outputs tbody'))} `
        + `inputs=${JSON.stringify([...document.querySelectorAll('#inputs tbody tr')].map((r) => r.dataset.name))}`;
    });
  } catch (err) {
    return `(could not read the page: ${err.message.split('\n')[0]})`;
  }
}

async function screenshot(page, name) {
  const file = path.join(screenshotDir, name);
  await page.screenshot({ path: file, timeout: STEP_TIMEOUT_MS });
  console.log(`      screenshot ${file}`);
}

// The listing shows an instruction matching re, from a successful compile for target (if given).
async function waitForListing(page, re, target) {
  await page.waitForFunction(({ source, flags, target }) => {
    const listing = document.querySelector('#listing');
    if (!listing || listing.classList.contains('stale')) return false;
    if (target && listing.dataset.target !== target) return false;
    const re = new RegExp(source, flags);
    // Match the instruction text only (.code), not the line-number columns glued before it.
    return [...listing.querySelectorAll('.listing-line')].some((l) => re.test((l.querySelector('.code') ?? l).textContent));
  }, { source: re.source, flags: re.flags, target }, { timeout: STEP_TIMEOUT_MS });
}

const GLSL_ERROR = '#version 450\nvoid main() {\n  gl_Position = undefined_thing;\n}\n';
const GLSL_FRAGMENT = '#version 450\nlayout(location=0) in vec4 c;\nlayout(location=0) out vec4 o;\nvoid main(){ o = c * 0.5; }\n';

step('pica vertex shader compiles, runs and renders on load', async (page) => {
  await expect(page, `open ${url}`, () => page.goto(url, { waitUntil: 'load', timeout: STEP_TIMEOUT_MS }));
  await expect(page, 'the default pica shader\'s listing (#listing .listing-line) shows dp4, mul or mad',
    () => waitForListing(page, /\b(dp4|mul|mad)\b/, 'pica'));
  await expect(page, '#preview shows a PNG (src data:image/png;base64,… with naturalWidth > 0)',
    () => page.waitForFunction(() => {
      const img = document.querySelector('#preview');
      return img && img.getAttribute('src')?.startsWith('data:image/png;base64,') && img.complete && img.naturalWidth > 0;
    }, null, { timeout: STEP_TIMEOUT_MS }));
  await expect(page, '#outputs has a row naming gl_Position',
    () => page.waitForFunction(() => [...document.querySelectorAll('#outputs tbody tr')]
      .some((tr) => tr.textContent.includes('gl_Position')), null, { timeout: STEP_TIMEOUT_MS }));
  await screenshot(page, 'playground-pica.png');
});

step('an error on line 3 is marked in the gutter and listed', async (page) => {
  await expect(page, 'clear the editor and type a shader with an error on line 3', async () => {
    await page.click('#source', { timeout: STEP_TIMEOUT_MS });
    await page.keyboard.press('ControlOrMeta+A');
    await page.keyboard.press('Delete');
    await page.keyboard.type(GLSL_ERROR);
    const value = await page.inputValue('#source');
    if (value !== GLSL_ERROR) throw new StepError(`the editor holds ${JSON.stringify(value)}, not what was typed`);
  });
  await expect(page, 'an error marker .marker.error[data-line="3"] in the gutter',
    () => page.waitForSelector('.marker.error[data-line="3"]', { state: 'attached', timeout: STEP_TIMEOUT_MS }));
  await expect(page, '#diagnostics mentions undefined_thing or error',
    () => page.waitForFunction(() => /undefined_thing|error/i.test(document.querySelector('#diagnostics')?.textContent ?? ''),
      null, { timeout: STEP_TIMEOUT_MS }));
  await screenshot(page, 'playground-error.png');
});

step('agal fragment shader compiles and runs with an edited input', async (page) => {
  await expect(page, 'select target agal and stage fragment', async () => {
    await page.selectOption('#target', 'agal', { timeout: STEP_TIMEOUT_MS });
    await page.selectOption('#stage', 'fragment', { timeout: STEP_TIMEOUT_MS });
  });
  await expect(page, 'fill the editor with a fragment shader', () => page.fill('#source', GLSL_FRAGMENT, { timeout: STEP_TIMEOUT_MS }));
  await expect(page, 'the agal listing shows mul', () => waitForListing(page, /\bmul\b/, 'agal'));
  const field = '#inputs tbody tr:first-child input[data-component="x"]';
  await expect(page, 'the first row of #inputs is the input c, with a field for x',
    () => page.waitForFunction(() => {
      const tr = document.querySelector('#inputs tbody tr:first-child');
      return tr && tr.dataset.name === 'c' && tr.querySelector('input[data-component="x"]');
    }, null, { timeout: STEP_TIMEOUT_MS }));
  await expect(page, 'set c.x to 1', () => page.fill(field, '1', { timeout: STEP_TIMEOUT_MS }));
  await expect(page, '#outputs shows 0.5 in x (c * 0.5 with c.x = 1)',
    () => page.waitForFunction(() => !document.querySelector('#outputs').classList.contains('stale')
      && [...document.querySelectorAll('#outputs tbody tr')].some((tr) => {
        const x = tr.querySelector('td.x, td[data-component="x"]');
        return x && Math.abs(Number.parseFloat(x.textContent) - 0.5) < 1e-6;
      }), null, { timeout: STEP_TIMEOUT_MS }));
  await screenshot(page, 'playground-agal.png');
});

step('pica fragment shader compiles to the combiners, runs and renders', async (page) => {
  await expect(page, 'select target pica (the stage stays fragment)', async () => {
    await page.selectOption('#target', 'pica', { timeout: STEP_TIMEOUT_MS });
    const stage = await page.inputValue('#stage');
    if (stage !== 'fragment') throw new StepError(`the stage is ${stage}, not fragment`);
  });
  await expect(page, 'fill the editor with a fragment shader', () => page.fill('#source', GLSL_FRAGMENT, { timeout: STEP_TIMEOUT_MS }));
  await expect(page, 'the pica listing shows a combiner stage that modulates',
    () => waitForListing(page, /stage 0: .*modulate/, 'pica'));
  const field = '#inputs tbody tr:first-child input[data-component="x"]';
  await expect(page, 'the first row of #inputs is the varying c',
    () => page.waitForFunction(() => {
      const tr = document.querySelector('#inputs tbody tr:first-child');
      return tr && tr.dataset.name === 'c' && tr.querySelector('input[data-component="x"]');
    }, null, { timeout: STEP_TIMEOUT_MS }));
  await expect(page, 'set c.x to 1', () => page.fill(field, '1', { timeout: STEP_TIMEOUT_MS }));
  await expect(page, '#outputs shows 128/255 in x (c * 0.5 on bytes: 0.5 is the byte 128)',
    () => page.waitForFunction(() => !document.querySelector('#outputs').classList.contains('stale')
      && [...document.querySelectorAll('#outputs tbody tr')].some((tr) => {
        const x = tr.querySelector('td.x, td[data-component="x"]');
        return x && Math.abs(Number.parseFloat(x.textContent) - 128 / 255) < 1e-5;
      }), null, { timeout: STEP_TIMEOUT_MS }));
  await expect(page, '#preview shows a PNG of the full-screen quad',
    () => page.waitForFunction(() => {
      const img = document.querySelector('#preview');
      return img && !img.classList.contains('stale') && /pica fragment/.test(img.alt) && img.complete && img.naturalWidth > 0;
    }, null, { timeout: STEP_TIMEOUT_MS }));
  await screenshot(page, 'playground-pica-fragment.png');
});

let browser;
let exitCode = 1;
try {
  try {
    browser = await chromium.launch({
      executablePath,
      headless: true,
      timeout: STEP_TIMEOUT_MS,
      args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run',
        '--disable-background-networking', '--disable-component-update', '--disable-sync'],
    });
  } catch (err) {
    console.error(`FAIL setup: could not start Chromium at ${executablePath} (set CHROMIUM): ${err.message.split('\n')[0]}`);
    failed = 1;
    skipped = steps.length;
    finish(1);
  }
  // A new context is a fresh, temporary profile: no cookies, storage or cache from earlier runs.
  const context = await browser.newContext({ viewport: { width: 1400, height: 900 } });
  const page = await context.newPage();
  page.setDefaultTimeout(STEP_TIMEOUT_MS);
  const pageErrors = [];
  const consoleErrors = [];
  page.on('pageerror', (err) => pageErrors.push(err.message));
  page.on('console', (msg) => { if (msg.type() === 'error') consoleErrors.push(msg.text()); });

  let stop = false;
  for (const [i, { name, fn }] of steps.entries()) {
    const label = `${i + 1}/${steps.length} ${name}`;
    if (stop) {
      console.log(`SKIP ${label}`);
      skipped += 1;
      continue;
    }
    const errorsBefore = pageErrors.length;
    const started = Date.now();
    try {
      await fn(page);
      if (pageErrors.length > errorsBefore) {
        throw new StepError(`JavaScript errors on the page: ${pageErrors.slice(errorsBefore).join(' | ')}`);
      }
      passed += 1;
      console.log(`ok   ${label} (${Date.now() - started} ms)`);
    } catch (err) {
      failed += 1;
      stop = true;  // later steps build on this one's page state
      console.log(`FAIL ${label} (${Date.now() - started} ms)\n      ${err.message}`);
      if (consoleErrors.length) console.log(`      console errors: ${consoleErrors.slice(-5).join(' | ')}`);
      try { await screenshot(page, `failed-step-${i + 1}.png`); } catch (_) { /* the page may be gone */ }
    }
  }
  exitCode = failed === 0 ? 0 : 1;
} finally {
  if (browser) await browser.close().catch(() => {});
}
finish(exitCode);
