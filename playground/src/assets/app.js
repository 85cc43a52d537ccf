// spv2retro playground: the page served by `spv2retro serve`.
// Plain ES2020, no libraries, no build step. All text that comes from the server or the editor
// is put into the page with textContent, never innerHTML (listings and messages contain `<`).
'use strict';

(() => {
  const $ = (id) => document.getElementById(id);
  const el = {
    language: $('language'), target: $('target'), stage: $('stage'), profile: $('profile'),
    profileField: $('profile-field'), mesh: $('mesh'), status: $('status'),
    source: $('source'), gutter: $('gutter'), gutterInner: $('gutter-inner'),
    backdrop: $('backdrop'), backdropInner: $('backdrop-inner'), caretPos: $('caret-pos'),
    diagnostics: $('diagnostics'), diagnosticsCount: $('diagnostics-count'),
    listing: $('listing'), programSize: $('program-size'), download: $('download'),
    reflection: $('reflection'), preview: $('preview'), previewNote: $('preview-note'),
    inputs: $('inputs'), outputs: $('outputs'), runNote: $('run-note'), uniforms: $('uniforms'),
  };

  const COMPILE_DELAY_MS = 250;  // debounce after an edit in the editor
  const RUN_DELAY_MS = 150;      // debounce after an edit in the inputs or uniforms
  const PREVIEW_SIZE = '256x256';
  const TAB = '    ';

  // ---------------------------------------------------------------- default shaders

  const GLSL_VERTEX = `#version 450
// Transform the position by one matrix and pass the colour through.
layout(location = 0) in vec4 position;
layout(location = 1) in vec4 color;

layout(location = 0) out vec4 vColor;

layout(std140, binding = 0) uniform U {
    mat4 mvp;
};

void main() {
    gl_Position = mvp * position;
    vColor = color;
}
`;

  const GLSL_FRAGMENT = `#version 450
// Stage3D fragment program: darken the interpolated colour a little.
layout(location = 0) in vec4 vColor;

layout(location = 0) out vec4 fragColor;

void main() {
    fragColor = vec4(vColor.rgb * 0.8, vColor.a);
}
`;

  const WGSL_VERTEX = `struct U {
    mvp: mat4x4<f32>,
};
@group(0) @binding(0) var<uniform> u: U;

struct VertexOut {
    @builtin(position) position: vec4<f32>,
    @location(0) color: vec4<f32>,
};

@vertex
fn main(@location(0) position: vec4<f32>, @location(1) color: vec4<f32>) -> VertexOut {
    var out: VertexOut;
    out.position = u.mvp * position;
    out.color = color;
    return out;
}
`;

  const WGSL_FRAGMENT = `@fragment
fn main(@location(0) color: vec4<f32>) -> @location(0) vec4<f32> {
    return vec4<f32>(color.rgb * 0.8, color.a);
}
`;

  const GLSL_PICA_FRAGMENT = `#version 450
// PICA200 fragment shader: it becomes the texture combiners' configuration.
// The texture (unit 0, at texcoord0) times the interpolated vertex colour.
layout(location = 0) in vec4 vColor;
layout(location = 1) in vec2 vUv;

layout(binding = 0) uniform sampler2D tex;

layout(location = 0) out vec4 fragColor;

void main() {
    fragColor = texture(tex, vUv) * vColor;
}
`;

  const PICA_VERTEX = `; picasso vertex shader: transform by a 4x4 matrix, pass the colour through.
.fvec mvp[4]

.in inpos v0
.in inclr v1

.out outpos position
.out outclr color

.proc main
    dp4 outpos.x, mvp[0], inpos
    dp4 outpos.y, mvp[1], inpos
    dp4 outpos.z, mvp[2], inpos
    dp4 outpos.w, mvp[3], inpos
    mov outclr, inclr
    end
.end
`;

  const AGAL_VERTEX = `// AGAL vertex program: clip position = va0 * matrix in vc0..vc3; colour to v0.
m44 op, va0, vc0
mov v0, va1
`;

  const AGAL_FRAGMENT = `// AGAL fragment program: the interpolated colour, halved.
mul oc, v0, fc0
`;

  // Keyed "language/target/stage"; "*" matches any target.
  const DEFAULTS = {
    'glsl/*/vertex': GLSL_VERTEX,
    'glsl/agal/fragment': GLSL_FRAGMENT,
    'glsl/pica/fragment': GLSL_PICA_FRAGMENT,
    'wgsl/*/vertex': WGSL_VERTEX,
    'wgsl/*/fragment': WGSL_FRAGMENT,
    'pica/pica/vertex': PICA_VERTEX,
    'agal/agal/vertex': AGAL_VERTEX,
    'agal/agal/fragment': AGAL_FRAGMENT,
  };

  function defaultFor(language, target, stage) {
    return DEFAULTS[`${language}/${target}/${stage}`] ?? DEFAULTS[`${language}/*/${stage}`] ?? null;
  }

  // Which stages each target has (a PICA200 fragment shader is the texture combiners'
  // configuration), which stages an assembly language has, and which target it belongs to.
  const STAGES = { pica: ['vertex', 'geometry', 'fragment'], agal: ['vertex', 'fragment'] };
  const ASM_STAGES = { pica: ['vertex', 'geometry'] };
  const ASM_TARGET = { pica: 'pica', agal: 'agal' };

  // ---------------------------------------------------------------- state

  const state = {
    seq: 0,                      // every request cycle takes the next number
    lastCompileIssued: 0,
    applied: { compile: 0, run: 0, preview: 0 },  // newest sequence number shown, per panel
    compileOk: false,            // the newest compile shown succeeded
    hasGood: false,              // a good listing has been shown at least once
    compileTimer: 0,
    runTimer: 0,
    diagnostics: [],             // normalised, of the newest compile shown
    listingBySource: new Map(),  // source line -> listing rows
    hoverLine: null,             // source line under the mouse in the listing / gutter
    caretLine: 1,
    caretCol: 1,
    lineCount: 0,
    loadedDefault: '',           // the default text put in the editor, to tell if it is untouched
    inputsKey: '',               // names and registers of the inputs table's rows
    knownInputs: null,           // Set of input names of the current program, when known
    edited: new Map(),           // input name -> [x, y, z, w] the user typed
    uniforms: {},
    downloadUrl: null,
    escapeTab: false,
  };

  // ---------------------------------------------------------------- helpers

  function make(tag, className, text) {
    const node = document.createElement(tag);
    if (className) node.className = className;
    if (text !== undefined && text !== null) node.textContent = String(text);
    return node;
  }

  function plural(n, word) {
    return `${n} ${word}${n === 1 ? '' : 's'}`;
  }

  function formatNumber(v) {
    if (typeof v !== 'number') return v === null || v === undefined ? '–' : String(v);
    if (!Number.isFinite(v)) return String(v);
    if (Object.is(v, -0)) return '-0';
    if (Number.isInteger(v) && Math.abs(v) < 1e15) return String(v);
    return String(Number.parseFloat(v.toPrecision(6)));
  }

  function setStatus(kind, text) {
    el.status.textContent = text;
    el.status.className = `status ${kind}`;
  }

  function options() {
    return {
      source: el.source.value,
      language: el.language.value,
      target: el.target.value,
      stage: el.stage.value,
      profile: el.profile.value,
    };
  }

  class HttpError extends Error {}

  async function post(path, body) {
    let response;
    try {
      response = await fetch(path, {
        method: 'POST',
        headers: { 'Content-Type': 'application/json' },
        body: JSON.stringify(body),
        cache: 'no-store',
      });
    } catch (err) {
      throw new HttpError('server unreachable — is `spv2retro serve` still running?');
    }
    const text = await response.text();
    let data = null;
    try { data = JSON.parse(text); } catch (_) { data = null; }
    if (!response.ok) {
      let why = '';
      if (response.status === 413) why = 'source too large (the limit is 256 KiB)';
      else if (data && typeof data === 'object') why = data.error || data.message || '';
      if (!why) why = response.statusText;
      throw new HttpError(`HTTP ${response.status}${why ? `: ${why}` : ''}`);
    }
    if (!data || typeof data !== 'object') throw new HttpError(`${path}: the server's answer is not JSON`);
    return data;
  }

  function normaliseDiagnostics(list) {
    if (!Array.isArray(list)) return [];
    return list.filter((d) => d && typeof d === 'object').map((d) => ({
      severity: d.severity === 'warning' ? 'warning' : d.severity === 'error' ? 'error' : String(d.severity || 'error'),
      rule: d.rule ? String(d.rule) : '',
      message: d.message === undefined || d.message === null ? '' : String(d.message),
      line: Number.isInteger(d.line) && d.line > 0 ? d.line : null,
      column: Number.isInteger(d.column) && d.column > 0 ? d.column : null,
    }));
  }

  function firstMessage(list, fallback) {
    const d = normaliseDiagnostics(list)[0];
    if (!d) return fallback;
    return `${d.rule ? `${d.rule}: ` : ''}${d.message}`;
  }

  // ---------------------------------------------------------------- editor

  function metrics() {
    const cs = getComputedStyle(el.source);
    return {
      lineHeight: parseFloat(cs.lineHeight) || 20,
      padTop: parseFloat(cs.paddingTop) || 0,
      padLeft: parseFloat(cs.paddingLeft) || 0,
    };
  }

  function sourceLines() {
    return el.source.value.split('\n');
  }

  // Width of a line in character cells, with tabs expanded to the textarea's tab stops.
  function visualWidth(text, upTo = text.length) {
    let col = 0;
    for (let i = 0; i < upTo && i < text.length; i++) {
      col = text[i] === '\t' ? (Math.floor(col / TAB.length) + 1) * TAB.length : col + 1;
    }
    return col;
  }

  function renderGutter() {
    const count = sourceLines().length;
    if (count === state.lineCount) return;
    const frag = document.createDocumentFragment();
    for (let n = 1; n <= count; n++) {
      const row = make('div', 'gutter-line');
      row.dataset.line = String(n);
      row.append(make('span', 'num', n));
      frag.append(row);
    }
    el.gutterInner.replaceChildren(frag);
    state.lineCount = count;
    el.gutter.style.setProperty('--digits', String(Math.max(2, String(count).length)));
  }

  function clampLine(line) {
    return Math.min(Math.max(1, line), Math.max(1, state.lineCount));
  }

  // Diagnostics grouped by (clamped) source line, errors first.
  function diagnosticsByLine() {
    const byLine = new Map();
    for (const d of state.diagnostics) {
      if (d.line === null) continue;
      const line = clampLine(d.line);
      if (!byLine.has(line)) byLine.set(line, []);
      byLine.get(line).push(d);
    }
    for (const list of byLine.values()) {
      list.sort((a, b) => (a.severity === 'error' ? 0 : 1) - (b.severity === 'error' ? 0 : 1));
    }
    return byLine;
  }

  // Markers, highlighted line numbers, and the bands / inline messages behind the text.
  function decorate() {
    const byLine = diagnosticsByLine();
    const rows = el.gutterInner.children;
    for (let i = 0; i < rows.length; i++) {
      const row = rows[i];
      const n = i + 1;
      const list = byLine.get(n);
      const severity = list ? (list[0].severity === 'error' ? 'error' : 'warning') : null;
      row.classList.toggle('has-error', severity === 'error');
      row.classList.toggle('has-warning', severity === 'warning');
      row.classList.toggle('hl', state.hoverLine === n);
      row.classList.toggle('caret', state.caretLine === n);
      const old = row.querySelector('.marker');
      if (old) old.remove();
      if (severity) {
        const marker = make('span', `marker ${severity}`);
        marker.dataset.line = String(n);
        marker.title = list.map((d) => `${d.severity}${d.rule ? `[${d.rule}]` : ''}: ${d.message}`).join('\n');
        row.prepend(marker);
      }
    }

    const { lineHeight, padTop, padLeft } = metrics();
    const lines = sourceLines();
    const frag = document.createDocumentFragment();
    const band = (line, cls) => {
      const b = make('div', `band ${cls}`);
      b.style.top = `${padTop + (line - 1) * lineHeight}px`;
      b.style.height = `${lineHeight}px`;
      frag.append(b);
    };
    if (state.caretLine) band(state.caretLine, 'caret');
    for (const [line, list] of byLine) {
      const severity = list[0].severity === 'error' ? 'error' : 'warning';
      band(line, severity);
      const text = lines[line - 1] ?? '';
      const top = `${padTop + (line - 1) * lineHeight}px`;
      const d = list.find((x) => x.column !== null);
      if (d && d.line === line) {
        const start = Math.min(d.column - 1, text.length);
        const word = /^[A-Za-z0-9_.]+/.exec(text.slice(start));
        const from = visualWidth(text, start);
        const to = visualWidth(text, start + (word ? word[0].length : 1));
        const squiggle = make('div', `squiggle ${severity}`);
        squiggle.style.top = top;
        squiggle.style.height = `${lineHeight}px`;
        squiggle.style.left = `calc(${padLeft}px + ${from}ch)`;
        squiggle.style.width = `${Math.max(1, to - from)}ch`;
        frag.append(squiggle);
      }
      const msg = make('div', `inline-diag ${severity}`, list[0].message + (list.length > 1 ? ` (+${list.length - 1} more)` : ''));
      msg.style.top = top;
      msg.style.lineHeight = `${lineHeight}px`;
      msg.style.left = `calc(${padLeft}px + ${visualWidth(text) + 3}ch)`;
      frag.append(msg);
    }
    if (state.hoverLine) band(clampLine(state.hoverLine), 'hl');
    el.backdropInner.replaceChildren(frag);
  }

  function syncScroll() {
    const { scrollTop, scrollLeft } = el.source;
    el.gutterInner.style.transform = `translateY(${-scrollTop}px)`;
    el.backdropInner.style.transform = `translate(${-scrollLeft}px, ${-scrollTop}px)`;
  }

  function updateCaret(force = false) {
    const pos = el.source.selectionStart ?? 0;
    const before = el.source.value.slice(0, pos);
    const line = before.split('\n').length;
    const col = pos - before.lastIndexOf('\n');
    if (!force && line === state.caretLine && col === state.caretCol) return;
    const lineChanged = line !== state.caretLine;
    state.caretLine = line;
    state.caretCol = col;
    el.caretPos.textContent = `${line}:${col}`;
    if (lineChanged || force) {
      decorate();
      markCurrentListing(true);
    }
  }

  function scrollEditorTo(line) {
    const { lineHeight, padTop } = metrics();
    const top = padTop + (line - 1) * lineHeight;
    const ta = el.source;
    if (top < ta.scrollTop || top + lineHeight > ta.scrollTop + ta.clientHeight) {
      ta.scrollTop = Math.max(0, top - ta.clientHeight / 3);
    }
  }

  function jumpTo(line, column) {
    const lines = sourceLines();
    const n = clampLine(line);
    let offset = 0;
    for (let i = 0; i < n - 1; i++) offset += lines[i].length + 1;
    offset += Math.min(Math.max(0, (column || 1) - 1), (lines[n - 1] ?? '').length);
    el.source.focus({ preventScroll: true });
    el.source.setSelectionRange(offset, offset);
    scrollEditorTo(n);
    syncScroll();
    updateCaret(true);
  }

  function setSource(text) {
    el.source.value = text;
    el.source.scrollTop = 0;
    el.source.scrollLeft = 0;
    el.source.setSelectionRange(0, 0);
    onSourceChanged(0);
  }

  function onSourceChanged(delay = COMPILE_DELAY_MS) {
    renderGutter();
    updateCaret(true);
    syncScroll();
    scheduleCompile(delay);
  }

  function insertText(text) {
    // execCommand keeps the browser's undo stack; setRangeText is the fallback.
    if (!document.execCommand || !document.execCommand('insertText', false, text)) {
      el.source.setRangeText(text, el.source.selectionStart, el.source.selectionEnd, 'end');
      el.source.dispatchEvent(new Event('input', { bubbles: true }));
    }
  }

  // ---------------------------------------------------------------- listing

  // Colours an assembly line: label / directive / opcode, numbers, comment.
  function listingCode(text) {
    const code = make('span', 'code');
    let body = text;
    let comment = '';
    const cut = [body.indexOf(';'), body.indexOf('//')].filter((i) => i >= 0);
    if (cut.length) {
      const at = Math.min(...cut);
      comment = body.slice(at);
      body = body.slice(0, at);
    }
    const m = /^(\s*)(\S+)([\s\S]*)$/.exec(body);
    if (m) {
      code.append(m[1]);
      const word = m[2];
      const cls = word.endsWith(':') ? 'tok-label' : word.startsWith('.') ? 'tok-directive' : 'tok-op';
      code.append(make('span', cls, word));
      for (const part of m[3].split(/(-?\b\d+(?:\.\d+)?(?:[eE][-+]?\d+)?\b)/)) {
        if (!part) continue;
        if (/^-?\d/.test(part)) code.append(make('span', 'tok-num', part));
        else code.append(part);
      }
    } else {
      code.append(body);
    }
    if (comment) code.append(make('span', 'tok-comment', comment));
    return code;
  }

  function renderListing(listing, lines) {
    const texts = String(listing ?? '').split('\n');
    if (texts.length && texts[texts.length - 1] === '') texts.pop();
    const map = new Map();
    const frag = document.createDocumentFragment();
    texts.forEach((text, i) => {
      const row = make('div', 'listing-line');
      row.setAttribute('role', 'listitem');
      const src = Array.isArray(lines) ? lines[i] : null;
      row.append(make('span', 'lno', i + 1));
      if (Number.isInteger(src) && src > 0) {
        row.dataset.sourceLine = String(src);
        row.append(make('span', 'src', `L${src}`));
        if (!map.has(src)) map.set(src, []);
        map.get(src).push(row);
      } else {
        row.append(make('span', 'src', ''));
      }
      row.append(listingCode(text));
      frag.append(row);
    });
    if (!texts.length) frag.append(make('div', 'placeholder', '(empty listing)'));
    el.listing.replaceChildren(frag);
    state.listingBySource = map;
    markCurrentListing(false);
    markLinkedListing();
  }

  function markCurrentListing(scroll) {
    for (const row of el.listing.querySelectorAll('.listing-line.current')) row.classList.remove('current');
    const rows = state.listingBySource.get(state.caretLine) || [];
    for (const row of rows) row.classList.add('current');
    if (scroll && rows.length) {
      const box = el.listing;
      const first = rows[0];
      const last = rows[rows.length - 1];
      const top = first.offsetTop;
      const bottom = last.offsetTop + last.offsetHeight;
      if (top < box.scrollTop || bottom > box.scrollTop + box.clientHeight) {
        box.scrollTop = Math.max(0, top - box.clientHeight / 3);
      }
    }
  }

  function markLinkedListing() {
    for (const row of el.listing.querySelectorAll('.listing-line.linked')) row.classList.remove('linked');
    for (const row of state.listingBySource.get(state.hoverLine) || []) row.classList.add('linked');
  }

  function setHoverLine(line) {
    if (line === state.hoverLine) return;
    state.hoverLine = line;
    decorate();
    markLinkedListing();
  }

  // ---------------------------------------------------------------- diagnostics panel

  function renderDiagnostics() {
    const frag = document.createDocumentFragment();
    let errors = 0;
    let warnings = 0;
    for (const d of state.diagnostics) {
      if (d.severity === 'error') errors++; else warnings++;
      const li = make('li', `diag ${d.severity}`);
      if (d.line !== null) {
        li.dataset.line = String(d.line);
        li.tabIndex = 0;
        li.title = 'Go to this line';
      }
      li.append(make('span', 'sev', d.severity));
      li.append(make('span', 'rule', d.rule || '—'));
      const loc = d.line === null ? '—' : d.column === null ? `${d.line}` : `${d.line}:${d.column}`;
      li.append(make('span', 'loc', loc));
      li.append(make('span', 'msg', d.message));
      frag.append(li);
    }
    if (!state.diagnostics.length) frag.append(make('li', 'diag none', 'No problems.'));
    el.diagnostics.replaceChildren(frag);
    const parts = [];
    if (errors) parts.push(plural(errors, 'error'));
    if (warnings) parts.push(plural(warnings, 'warning'));
    el.diagnosticsCount.textContent = parts.join(' · ');
    return { errors, warnings };
  }

  // ---------------------------------------------------------------- compile / run / preview

  function scheduleCompile(delay = COMPILE_DELAY_MS) {
    clearTimeout(state.compileTimer);
    clearTimeout(state.runTimer);
    setStatus('busy', 'compiling…');
    state.compileTimer = setTimeout(compileNow, delay);
  }

  function instructionCount(data, listingText) {
    const n = data.reflection && data.reflection.stats && data.reflection.stats.instructions;
    if (typeof n === 'number') return n;
    // No count in the reflection: count listing lines that are not directives, labels or comments.
    return String(listingText || '').split('\n').filter((l) => {
      const t = l.trim();
      return t && !t.startsWith('.') && !t.startsWith(';') && !t.startsWith('//') && !/^[^\s]+:$/.test(t);
    }).length;
  }

  function hexToBytes(hex) {
    const clean = String(hex || '').replace(/[^0-9a-fA-F]/g, '');
    const out = new Uint8Array(Math.floor(clean.length / 2));
    for (let i = 0; i < out.length; i++) out[i] = parseInt(clean.substr(i * 2, 2), 16);
    return out;
  }

  function showProgram(data, opts) {
    if (state.downloadUrl) URL.revokeObjectURL(state.downloadUrl);
    state.downloadUrl = null;
    const bytes = hexToBytes(data.bytes);
    const size = typeof data.size === 'number' ? data.size : bytes.length;
    el.programSize.textContent = size ? `${size} bytes` : '';
    if (bytes.length) {
      state.downloadUrl = URL.createObjectURL(new Blob([bytes], { type: 'application/octet-stream' }));
      el.download.href = state.downloadUrl;
      // A PICA200 fragment shader's bytes are the GPU command list (.tev).
      el.download.download = opts.target === 'pica'
        ? (opts.stage === 'fragment' ? 'shader.tev' : 'shader.shbin')
        : (opts.stage === 'fragment' ? 'shader_fs.agal' : 'shader_vs.agal');
      el.download.hidden = false;
    } else {
      el.download.hidden = true;
      el.download.removeAttribute('href');
    }
  }

  // Names of the program's inputs from the reflection, if it has them in a recognisable shape.
  function reflectionInputNames(reflection) {
    const inputs = reflection && reflection.inputs;
    if (Array.isArray(inputs)) {
      const names = inputs.map((i) => (i && typeof i === 'object' ? i.name : null)).filter((n) => typeof n === 'string');
      return names.length === inputs.length ? new Set(names) : null;
    }
    if (inputs && typeof inputs === 'object') return new Set(Object.keys(inputs));
    return null;
  }

  function applyCompile(data, opts) {
    state.diagnostics = normaliseDiagnostics(data.diagnostics);
    const { errors, warnings } = renderDiagnostics();
    decorate();
    const ok = data.ok === true;
    state.compileOk = ok;
    if (ok) {
      state.hasGood = true;
      renderListing(data.listing, data.lines);
      el.listing.dataset.target = opts.target;
      el.listing.dataset.stage = opts.stage;
      el.reflection.textContent = data.reflection === null || data.reflection === undefined
        ? '(no reflection)'
        : JSON.stringify(data.reflection, null, 2);
      showProgram(data, opts);
      const names = reflectionInputNames(data.reflection);
      if (names) state.knownInputs = names;
      el.listing.classList.remove('stale');
      el.reflection.classList.remove('stale');
      const n = instructionCount(data, data.listing);
      setStatus(warnings ? 'warn' : 'ok', `ok · ${plural(n, 'instruction')}${warnings ? ` · ${plural(warnings, 'warning')}` : ''}`);
    } else {
      if (!state.hasGood) {
        el.listing.replaceChildren(make('div', 'placeholder', 'No listing yet: the source has errors.'));
        state.listingBySource = new Map();
      }
      for (const node of [el.listing, el.reflection, el.preview, el.outputs]) node.classList.add('stale');
      const text = errors ? plural(errors, 'error') : 'compile failed';
      setStatus('error', warnings ? `${text} · ${plural(warnings, 'warning')}` : text);
    }
  }

  async function compileNow() {
    clearTimeout(state.compileTimer);
    const seq = ++state.seq;
    state.lastCompileIssued = seq;
    const opts = options();
    setStatus('busy', 'compiling…');
    let data;
    try {
      data = await post('/api/compile', opts);
    } catch (err) {
      if (seq === state.lastCompileIssued) setStatus('error', err.message);
      return;
    }
    if (seq < state.applied.compile) return;  // an older answer arriving after a newer one
    state.applied.compile = seq;
    applyCompile(data, opts);
    if (state.compileOk && seq === state.lastCompileIssued) {
      runNow(seq, opts);
      previewNow(seq, opts);
    }
  }

  function runBody(opts) {
    const inputs = {};
    for (const [name, value] of state.edited) {
      if (!state.knownInputs || state.knownInputs.has(name)) inputs[name] = value;
    }
    return { ...opts, inputs, uniforms: state.uniforms };
  }

  // A run or preview answer is shown only if it is the newest of its kind and belongs to the
  // source of the newest compile shown (or to an input edit made after it).
  function current(kind, seq) {
    if (seq < state.applied[kind] || seq < state.applied.compile) return false;
    state.applied[kind] = seq;
    return true;
  }

  async function runNow(seq, opts) {
    let data;
    try {
      data = await post('/api/run', runBody(opts));
    } catch (err) {
      if (current('run', seq)) {
        el.outputs.classList.add('stale');
        el.runNote.textContent = err.message;
      }
      return;
    }
    if (!current('run', seq)) return;
    const inputs = Array.isArray(data.inputs) ? data.inputs : [];
    if (data.ok === true || inputs.length) syncInputs(inputs);
    if (data.ok === true) {
      renderOutputs(Array.isArray(data.outputs) ? data.outputs : []);
      el.outputs.classList.remove('stale');
      el.runNote.textContent = '';
      el.runNote.title = '';
    } else {
      el.outputs.classList.add('stale');
      el.runNote.textContent = firstMessage(data.diagnostics, 'run failed');
      el.runNote.title = normaliseDiagnostics(data.diagnostics).map((d) => d.message).join('\n');
    }
  }

  async function previewNow(seq, opts) {
    let data;
    const body = { ...runBody(opts), mesh: el.mesh.value, size: PREVIEW_SIZE };
    try {
      data = await post('/api/preview', body);
    } catch (err) {
      if (current('preview', seq)) {
        el.preview.classList.add('stale');
        el.previewNote.textContent = err.message;
      }
      return;
    }
    if (!current('preview', seq)) return;
    if (data.ok === true && typeof data.png === 'string' && data.png) {
      el.preview.src = data.png.startsWith('data:') ? data.png : `data:image/png;base64,${data.png}`;
      el.preview.classList.remove('stale');
      el.preview.alt = `Preview: ${body.mesh}, ${body.target} ${body.stage} program`;
      el.previewNote.textContent = `${body.mesh} · ${body.size}`;
      el.previewNote.title = '';
    } else {
      el.preview.classList.add('stale');
      el.previewNote.textContent = firstMessage(data.diagnostics, 'no preview');
      el.previewNote.title = normaliseDiagnostics(data.diagnostics).map((d) => d.message).join('\n');
    }
  }

  // After an edit of the inputs, uniforms or mesh: run and/or preview the current source again.
  function scheduleRun(what = { run: true, preview: true }, delay = RUN_DELAY_MS) {
    clearTimeout(state.runTimer);
    state.runTimer = setTimeout(() => {
      if (!state.compileOk) return;
      const seq = ++state.seq;
      const opts = options();
      if (what.run) runNow(seq, opts);
      if (what.preview) previewNow(seq, opts);
    }, delay);
  }

  // ---------------------------------------------------------------- run panel

  function syncInputs(list) {
    const rows = list.filter((i) => i && typeof i === 'object').map((i) => ({
      name: String(i.name ?? ''),
      register: String(i.register ?? ''),
      value: Array.isArray(i.value) ? i.value : [0, 0, 0, 0],
    }));
    state.knownInputs = new Set(rows.map((r) => r.name));
    const key = rows.map((r) => `${r.name}@${r.register}`).join('|');
    const tbody = el.inputs.tBodies[0];
    if (key !== state.inputsKey) {
      state.inputsKey = key;
      const frag = document.createDocumentFragment();
      for (const r of rows) {
        const tr = make('tr');
        tr.dataset.name = r.name;
        tr.append(make('td', 'name', r.name), make('td', 'reg', r.register));
        ['x', 'y', 'z', 'w'].forEach((c) => {
          const td = make('td', `num ${c}`);
          const input = make('input');
          input.type = 'number';
          input.step = 'any';
          input.dataset.component = c;
          input.setAttribute('aria-label', `${r.name}.${c}`);
          td.append(input);
          tr.append(td);
        });
        frag.append(tr);
      }
      if (!rows.length) {
        const tr = make('tr', 'empty');
        const td = make('td', 'placeholder', 'no inputs');
        td.colSpan = 6;
        tr.append(td);
        frag.append(tr);
      }
      tbody.replaceChildren(frag);
    }
    // Fill in the values: the user's own for inputs they edited, otherwise the ones the server used.
    for (const r of rows) {
      const tr = [...tbody.rows].find((row) => row.dataset.name === r.name);
      if (!tr) continue;
      const mine = state.edited.get(r.name);
      tr.querySelectorAll('input').forEach((input, i) => {
        if (input === document.activeElement) return;
        const v = mine ? mine[i] : r.value[i];
        input.value = typeof v === 'number' ? formatNumber(v) : '0';
      });
    }
  }

  function renderOutputs(list) {
    const frag = document.createDocumentFragment();
    for (const o of list) {
      if (!o || typeof o !== 'object') continue;
      const tr = make('tr');
      tr.dataset.name = String(o.name ?? '');
      tr.append(make('td', 'name', o.name ?? ''), make('td', 'reg', o.register ?? ''));
      const value = Array.isArray(o.value) ? o.value : [];
      ['x', 'y', 'z', 'w'].forEach((c, i) => {
        const td = make('td', `num ${c}`, formatNumber(value[i]));
        td.dataset.component = c;
        tr.append(td);
      });
      frag.append(tr);
    }
    if (!frag.childNodes.length) {
      const tr = make('tr', 'empty');
      const td = make('td', 'placeholder', 'no outputs');
      td.colSpan = 6;
      tr.append(td);
      frag.append(tr);
    }
    el.outputs.tBodies[0].replaceChildren(frag);
  }

  function onInputEdited(event) {
    const input = event.target;
    if (!(input instanceof HTMLInputElement)) return;
    const tr = input.closest('tr');
    if (!tr || !tr.dataset.name) return;
    const fields = [...tr.querySelectorAll('input')];
    const value = fields.map((f) => (f.value.trim() === '' ? 0 : Number(f.value)));
    const bad = value.some((v) => !Number.isFinite(v)) || fields.some((f) => f.validity && f.validity.badInput);
    input.classList.toggle('invalid', bad);
    if (bad) return;
    state.edited.set(tr.dataset.name, value);
    scheduleRun();
  }

  function onUniformsEdited() {
    const text = el.uniforms.value.trim();
    let parsed = null;
    try { parsed = text === '' ? {} : JSON.parse(text); } catch (_) { parsed = null; }
    const ok = parsed !== null && typeof parsed === 'object' && !Array.isArray(parsed)
      && Object.values(parsed).every((v) => Array.isArray(v) && v.every((x) => typeof x === 'number'));
    el.uniforms.classList.toggle('invalid', !ok);
    if (!ok) return;
    state.uniforms = parsed;
    scheduleRun();
  }

  // ---------------------------------------------------------------- toolbar

  function fixStages() {
    const targetStages = STAGES[el.target.value] || ['vertex', 'fragment', 'geometry'];
    const languageStages = ASM_STAGES[el.language.value];
    const allowed = languageStages ? targetStages.filter((s) => languageStages.includes(s)) : targetStages;
    for (const opt of el.stage.options) opt.disabled = !allowed.includes(opt.value);
    if (!allowed.includes(el.stage.value)) el.stage.value = allowed[0];
    el.profileField.hidden = el.target.value !== 'agal';
    for (const opt of el.language.options) {
      opt.disabled = ASM_TARGET[opt.value] !== undefined && ASM_TARGET[opt.value] !== el.target.value;
    }
  }

  // The editor still holds the default it was given (or nothing): swap in the new default.
  function maybeLoadDefault() {
    const untouched = el.source.value === state.loadedDefault || el.source.value.trim() === '';
    if (!untouched) return false;
    const text = defaultFor(el.language.value, el.target.value, el.stage.value);
    if (text === null || text === el.source.value) return false;
    state.loadedDefault = text;
    setSource(text);
    return true;
  }

  function onOptionsChanged(event) {
    if (event && event.target === el.language && ASM_TARGET[el.language.value]) {
      el.target.value = ASM_TARGET[el.language.value];
    }
    if (event && event.target === el.target && ASM_TARGET[el.language.value]
        && ASM_TARGET[el.language.value] !== el.target.value) {
      el.language.value = 'glsl';
    }
    fixStages();
    if (!maybeLoadDefault()) scheduleCompile(0);
  }

  // ---------------------------------------------------------------- events

  el.source.addEventListener('input', () => onSourceChanged());
  el.source.addEventListener('scroll', syncScroll);
  for (const type of ['keyup', 'mouseup', 'focus', 'select']) el.source.addEventListener(type, () => updateCaret());
  document.addEventListener('selectionchange', () => {
    if (document.activeElement === el.source) updateCaret();
  });
  el.source.addEventListener('keydown', (e) => {
    if (e.key === 'Escape') { state.escapeTab = true; return; }
    if (e.key === 'Tab' && !e.shiftKey && !e.ctrlKey && !e.altKey && !e.metaKey && !state.escapeTab) {
      e.preventDefault();
      insertText(TAB);
    } else if (e.key === 'Enter' && (e.ctrlKey || e.metaKey)) {
      e.preventDefault();
      compileNow();
    }
    state.escapeTab = false;
  });

  el.listing.addEventListener('mouseover', (e) => {
    const row = e.target.closest('.listing-line');
    setHoverLine(row && row.dataset.sourceLine ? Number(row.dataset.sourceLine) : null);
  });
  el.listing.addEventListener('mouseleave', () => setHoverLine(null));
  el.listing.addEventListener('click', (e) => {
    const row = e.target.closest('.listing-line');
    if (row && row.dataset.sourceLine) jumpTo(Number(row.dataset.sourceLine), 1);
  });

  el.gutter.addEventListener('mouseover', (e) => {
    const row = e.target.closest('.gutter-line');
    setHoverLine(row ? Number(row.dataset.line) : null);
  });
  el.gutter.addEventListener('mouseleave', () => setHoverLine(null));
  el.gutter.addEventListener('click', (e) => {
    const row = e.target.closest('.gutter-line');
    if (row) jumpTo(Number(row.dataset.line), 1);
  });

  const diagnosticJump = (e) => {
    const li = e.target.closest('li.diag[data-line]');
    if (!li) return;
    if (e.type === 'keydown' && e.key !== 'Enter' && e.key !== ' ') return;
    e.preventDefault();
    const d = state.diagnostics[[...el.diagnostics.children].indexOf(li)];
    jumpTo(Number(li.dataset.line), d ? d.column : 1);
  };
  el.diagnostics.addEventListener('click', diagnosticJump);
  el.diagnostics.addEventListener('keydown', diagnosticJump);

  for (const select of [el.language, el.target, el.stage, el.profile]) {
    select.addEventListener('change', onOptionsChanged);
  }
  el.mesh.addEventListener('change', () => scheduleRun({ run: false, preview: true }, 0));
  el.inputs.addEventListener('input', onInputEdited);
  el.uniforms.addEventListener('input', onUniformsEdited);
  window.addEventListener('resize', () => { decorate(); syncScroll(); });

  // ---------------------------------------------------------------- start

  renderDiagnostics();
  renderOutputs([]);
  state.inputsKey = '\u0000';
  syncInputs([]);
  state.knownInputs = null;  // not known until the first compile or run answers
  fixStages();
  state.loadedDefault = defaultFor(el.language.value, el.target.value, el.stage.value) || '';
  setSource(state.loadedDefault);
  el.source.focus({ preventScroll: true });
})();
