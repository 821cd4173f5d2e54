// app.js drives the calculator page: it compiles bernamp.wasm once, runs it
// in a Web Worker (worker.js), shows each field's error as the CLI words
// it, and draws the rows as they arrive: the interval of the selected row,
// a panel per (d, k, c, alpha) against eps as bernamp plot draws it, and
// the table; below, a pasted accountant's curve amplified order by order,
// and a composition over T steps (bernamp compose). Everything is fetched
// from the page's own directory.
'use strict';

const $ = (id) => document.getElementById(id);
const FIELDS = ['d', 'k', 'c', 'alpha', 'eps', 'timeout'];
// The fields of the pasted curve's form; ids as the engine's FieldError.field.
const CURVE_FIELDS = ['curve', 'curve-d', 'curve-k', 'curve-c', 'curve-delta', 'curve-timeout'];
// The fields of the compose panel; ids as the engine's FieldError.field.
const COMPOSE_FIELDS = ['compose-mechanism', 'compose-sigma', 'compose-b', 'compose-p-true', 'compose-q', 'compose-sensitivity',
  'compose-d', 'compose-k', 'compose-c', 'compose-steps', 'compose-delta', 'compose-discretization', 'compose-rdp'];
// Where a group's error without a field goes.
const OTHER_ERR = { grid: 'err-grid', curve: 'err-grid', compose: 'err-compose' };
const SVGNS = 'http://www.w3.org/2000/svg';

let module = null;   // the compiled WebAssembly.Module, shared by every worker
let worker = null;
let engineReady = false;
let run = null;      // {n, rows, t0, ms, state}
let parseId = 0;
let selected = 0;    // index of the row shown in the summary
let drawTimer = 0;
let active = 'grid'; // the panel of the last run started: grid, curve or compose

function setState(s) { document.body.dataset.state = s; }

function setProgress(text) {
  $('progress').textContent = text;
  if (active === 'compose') $('compose-progress').textContent = text;
}

function form() {
  const f = {};
  for (const name of FIELDS) f[name] = $(name).value;
  return f;
}

function curveForm() {
  const f = {};
  for (const name of CURVE_FIELDS) f[name === 'curve' ? 'curve' : name.slice(6)] = $(name).value;
  return f;
}

// composeForm reads the compose panel; the engine reads only the
// parameters of the chosen mechanism.
function composeForm() {
  const f = {};
  for (const name of COMPOSE_FIELDS) f[name.slice(8)] = $(name).value;
  f.rdp = $('compose-rdp').checked;
  return f;
}

// showMechanism shows the parameter fields of the chosen mechanism only.
function showMechanism() {
  const m = $('compose-mechanism').value;
  for (const div of document.querySelectorAll('#compose-form [data-mech]')) {
    div.hidden = !div.dataset.mech.split(' ').includes(m);
  }
}

function clearErrors(fields = FIELDS) {
  for (const name of fields) {
    $('err-' + name).textContent = '';
    $(name).classList.remove('bad');
  }
  if (fields === FIELDS) $('err-grid').textContent = '';
  if (fields === COMPOSE_FIELDS) $('err-compose').textContent = '';
}

// showErrors shows each error next to its field (the engine names every
// bad field of a form), and an error without a field in other.
function showErrors(errs, fields = FIELDS, other = 'err-grid') {
  clearErrors(fields);
  const rest = [];
  for (const err of errs || []) {
    if (fields.includes(err.field)) {
      $('err-' + err.field).textContent = err.message;
      $(err.field).classList.add('bad');
    } else {
      rest.push(err.message);
    }
  }
  if (rest.length) $(other).textContent = rest.join('; ');
}

function showError(err, fields = FIELDS, other = 'err-grid') {
  showErrors(err ? [err] : [], fields, other);
}

async function boot() {
  boot.t0 = performance.now();
  try {
    const resp = await fetch('bernamp.wasm');
    if (!resp.ok) throw new Error('bernamp.wasm: HTTP ' + resp.status + ' (build it with go generate ./web)');
    module = await WebAssembly.compile(await resp.arrayBuffer());
  } catch (err) {
    setState('fatal');
    setProgress('The engine did not load: ' + err.message);
    return;
  }
  newWorker();
}

function newWorker() {
  engineReady = false;
  $('solve').disabled = true;
  $('amplify').disabled = true;
  $('compose').disabled = true;
  worker = new Worker('worker.js');
  worker.onmessage = onMessage;
  worker.onerror = (e) => { setState('fatal'); setProgress('The engine failed: ' + e.message); };
  worker.postMessage({ type: 'init', module });
}

function onMessage(e) {
  if (e.target !== worker) return; // a cancelled worker's last words
  const m = e.data;
  switch (m.type) {
    case 'ready':
      engineReady = true;
      $('solve').disabled = false;
      $('amplify').disabled = false;
      $('compose').disabled = false;
      if (document.body.dataset.state === 'loading') {
        setState('idle');
        setProgress('Ready: the engine runs in this page.');
      }
      document.body.dataset.engine = 'ready';
      if (window.bernampLoadMs === undefined) window.bernampLoadMs = performance.now() - boot.t0;
      break;
    case 'parsed': {
      const fields = { curve: CURVE_FIELDS, compose: COMPOSE_FIELDS }[m.group] || FIELDS;
      if (m.answer.error) {
        const errs = m.answer.errors || [m.answer.error];
        showErrors(errs, fields, OTHER_ERR[m.group]);
        if (m.id === undefined) {
          setState('invalid');
          setProgress(errs.length === 1 ? 'Not run: fix the field marked in red.' : `Not run: fix the ${errs.length} fields marked in red.`);
          setCancel(false);
        }
      } else if (m.id === parseId) {
        clearErrors(fields);
      }
      break;
    }
    case 'cstart':
      clearErrors(CURVE_FIELDS);
      run = { n: m.n, rows: [], t0: performance.now(), ms: 0, state: 'running', kind: 'curve', summary: null };
      window.bernampCurveRun = run;
      $('curve-rows').tBodies[0].replaceChildren();
      $('curve-summary').replaceChildren();
      $('curve-warnings').replaceChildren();
      for (const w of m.warnings) $('curve-warnings').appendChild(el('div', { class: 'warning' }, 'warning: ' + w));
      $('curve-answer').hidden = false;
      setState('running');
      runTick(run);
      break;
    case 'corder':
      run.at = { i: m.i, unit: 'order', what: `α = ${m.order.alpha}, ε = ${m.order.eps === null ? 'inf' : m.order.eps}` };
      showRunProgress();
      break;
    case 'crow':
      run.rows.push(m.row);
      addCurveRow(m.row, m.i);
      break;
    case 'csummary':
      run.summary = m.summary;
      showCurveSummary(m.summary, m.delta);
      break;
    case 'kstart':
      clearErrors(COMPOSE_FIELDS);
      run = { n: 1, rows: [], t0: performance.now(), ms: 0, state: 'running', kind: 'compose', plan: m.plan };
      window.bernampComposeRun = run;
      setState('running');
      composeTick();
      break;
    case 'krow':
      run.rows.push(m.row);
      addComposeRow(m.row);
      showComposeSummary(m.row);
      $('compose-answer').hidden = false;
      break;
    case 'start':
      clearErrors();
      run = { n: m.n, rows: [], t0: performance.now(), ms: 0, state: 'running' };
      window.bernampRun = run;
      selected = 0;
      $('rows').tBodies[0].replaceChildren();
      $('plot').replaceChildren();
      $('summary').replaceChildren();
      $('answer').hidden = false;
      setState('running');
      runTick(run);
      break;
    case 'point': {
      const p = m.point;
      run.at = { i: m.i, unit: 'point', what: `d = ${p.d}, k = ${p.k}, c = ${p.c}, α = ${p.alpha}, ε = ${p.eps}` };
      showRunProgress();
      break;
    }
    case 'row':
      run.rows.push(m.row);
      addRow(m.row, m.i);
      if (m.i === selected) showSummary(m.row);
      scheduleDraw();
      break;
    case 'done': {
      run.ms = performance.now() - run.t0;
      run.state = 'done';
      finish();
      if (run.kind === 'compose') {
        setProgress(`done: composed in ${secs(run.ms)} s in this page`);
      } else {
        const unit = run.kind === 'curve' ? 'order' : 'point';
        setProgress(`done: ${run.n} ${unit}${run.n === 1 ? '' : 's'} in ${secs(run.ms)} s · ${counts(run.rows)}`);
      }
      setState('done');
      break;
    }
    case 'error':
      if (run) run.state = 'error';
      finish();
      setState('error');
      setProgress('Error: ' + m.message);
      if (run && run.kind === 'compose') {
        run.state = 'error';
        showError({ field: m.field, message: m.message }, COMPOSE_FIELDS, 'err-compose');
      }
      break;
    case 'fatal':
      if (run && run.kind === 'compose' && run.state === 'running') {
        // Go stopped during a composition (out of memory, say): a fresh
        // worker answers the next one.
        run.state = 'error';
        finish();
        setState('error');
        setProgress('Error: the engine stopped during the composition (' + m.message + '); try a coarser grid step or fewer steps');
        newWorker();
        break;
      }
      setState('fatal');
      setProgress('The engine did not start: ' + m.message);
      break;
  }
}

function finish() {
  setCancel(false);
  draw();
}

// setCancel enables or disables both Cancel buttons: either stops the run.
function setCancel(on) {
  $('cancel').disabled = !on;
  $('compose-cancel').disabled = !on;
}

function secs(ms) { return (ms / 1000).toFixed(2); }

// progressText is how far a run of n points (or orders) is after done of
// them in ms milliseconds: the percent done and the time left, estimated
// as the time so far per point done times the points left ("37% — about
// 12 s left"). Before the first point is done there is no estimate
// ("0% — starting"); it never shows NaN or Infinity, whatever it is given.
function progressText(done, n, ms) {
  if (!(n > 0 && n < Infinity) || !(done >= 0)) return 'starting';
  done = Math.min(done, n);
  const pct = `${Math.floor(100 * done / n)}%`;
  if (done === n) return pct;
  if (done === 0 || !(ms > 0 && ms < Infinity)) return `${pct} — starting`;
  const left = ms * (n - done) / done / 1000;
  if (!(left < Infinity)) return `${pct} — starting`;
  return `${pct} — about ${aboutTime(left)} left`;
}

// aboutTime writes a time left of s seconds to two figures at most: 12 s,
// 4 min, 1.5 h.
function aboutTime(s) {
  if (s < 59.5) return `${Math.max(1, Math.round(s))} s`;
  if (s < 59.5 * 60) return `${Math.round(s / 60)} min`;
  const h = s / 3600;
  return h < 9.95 ? `${h.toFixed(1)} h` : `${Math.round(h)} h`;
}

// showRunProgress writes the progress line of a grid or curve run: the
// point (or order) being solved, the percent done with the time left, the
// time so far.
function showRunProgress() {
  const at = run.at;
  const ms = performance.now() - run.t0;
  const head = at ? `${at.unit} ${at.i + 1} of ${run.n} (${progressText(run.rows.length, run.n, ms)})` : progressText(0, run.n, ms);
  setProgress(head + (at ? `: ${at.what}` : '') + ` · ${secs(ms)} s`);
}

// runTick refreshes the progress line of run every 0.25 s while it runs,
// so that the time left follows a point that takes long.
function runTick(r) {
  if (run !== r || r.state !== 'running' || document.body.dataset.state !== 'running') return;
  showRunProgress();
  setTimeout(() => runTick(r), 250);
}

function counts(rows) {
  const c = {};
  for (const r of rows) c[r.status] = (c[r.status] || 0) + 1;
  return Object.entries(c).map(([s, n]) => `${n} ${s}`).join(', ');
}

function solve(ev) {
  ev.preventDefault();
  if (!engineReady || document.body.dataset.state === 'running') return;
  clearErrors();
  run = null;
  active = 'grid';
  setState('checking');
  setCancel(true);
  setProgress('checking the input…');
  worker.postMessage({ type: 'run', form: form() });
}

function cancel() {
  const st = document.body.dataset.state;
  if (st !== 'running' && st !== 'checking') return;
  worker.terminate();
  setCancel(false);
  const done = run ? run.rows.length : 0;
  const n = run ? run.n : 0;
  const unit = run && run.kind === 'curve' ? 'orders' : 'points';
  if (run) { run.state = 'cancelled'; run.ms = performance.now() - run.t0; }
  setState('cancelled');
  if (active === 'compose') {
    setProgress(`cancelled after ${run ? secs(run.ms) : '0.00'} s; nothing was composed.`);
  } else {
    setProgress(`cancelled after ${done} of ${n} ${unit} (${run ? secs(run.ms) : '0.00'} s); the rows shown are complete.`);
  }
  draw();
  newWorker();
}

function amplify(ev) {
  ev.preventDefault();
  if (!engineReady || document.body.dataset.state === 'running') return;
  clearErrors(CURVE_FIELDS);
  run = null;
  active = 'curve';
  setState('checking');
  setCancel(true);
  setProgress('checking the curve…');
  worker.postMessage({ type: 'runcurve', form: curveForm() });
}

function compose(ev) {
  ev.preventDefault();
  if (!engineReady || document.body.dataset.state === 'running') return;
  clearErrors(COMPOSE_FIELDS);
  run = null;
  active = 'compose';
  setState('checking');
  setCancel(true);
  setProgress('checking the input…');
  worker.postMessage({ type: 'runcompose', form: composeForm() });
}

// composeTick shows the time spent while the worker composes: Go answers
// in one call, so the page's clock is the only progress there is.
function composeTick() {
  if (!run || run.kind !== 'compose' || run.state !== 'running') return;
  const p = run.plan;
  setProgress(`composing ${describe(p)} over T = ${p.steps} steps` +
    (p.rdp ? ', with the RDP route' : '') + ` · ${secs(performance.now() - run.t0)} s`);
  setTimeout(composeTick, 100);
}

function validateComposeSoon() {
  clearTimeout(validateComposeSoon.t);
  validateComposeSoon.t = setTimeout(() => {
    const st = document.body.dataset.state;
    if (!engineReady || st === 'running' || st === 'checking') return;
    worker.postMessage({ type: 'parsecompose', id: ++parseId, form: composeForm() });
  }, 250);
}

function validateCurveSoon() {
  clearTimeout(validateCurveSoon.t);
  validateCurveSoon.t = setTimeout(() => {
    const st = document.body.dataset.state;
    if (!engineReady || st === 'running' || st === 'checking') return;
    worker.postMessage({ type: 'parsecurve', id: ++parseId, form: curveForm() });
  }, 250);
}

// Live validation while typing, when the engine is idle.
function validateSoon() {
  clearTimeout(validateSoon.t);
  validateSoon.t = setTimeout(() => {
    const st = document.body.dataset.state;
    if (!engineReady || st === 'running' || st === 'checking') return;
    worker.postMessage({ type: 'parse', id: ++parseId, form: form() });
  }, 250);
}

// ---- the pasted curve's rows and summary

const CURVE_COLS = ['alpha', 'eps', 'lb', 'post', 'post_upper', 'status', 'seconds'];

function addCurveRow(r, i) {
  const tr = document.createElement('tr');
  tr.dataset.i = i;
  for (const col of CURVE_COLS) {
    const td = document.createElement('td');
    td.dataset.col = col;
    td.textContent = r[col] === null ? 'inf' : String(r[col]);
    tr.appendChild(td);
  }
  $('curve-rows').tBodies[0].appendChild(tr);
}

function showCurveSummary(s, delta) {
  const box = $('curve-summary');
  box.replaceChildren();
  const line = (id, name, a) => {
    const div = el('div');
    div.append(`${name}: (`);
    div.appendChild(el('span', { id }, a.eps === null ? 'none' : String(a.eps)));
    div.append(`, ${delta})-DP` + (a.order === null ? ' (no finite order)' : ` at α = ${a.order}`) + (a.warning ? ` (${a.warning})` : ''));
    box.appendChild(div);
  };
  line('curve-sum-bernamp', 'amplified (claim this)', s.bernamp);
  line('curve-sum-mechanism', 'the curve alone', s.mechanism);
}

// ---- the compose panel's rows and summary

// describe names a plan's (or a row's plan's) mechanism with its parameters.
function describe(p) {
  const sens = p.sensitivity === 1 ? '' : `, sensitivity ${p.sensitivity}`;
  switch (p.mechanism) {
    case 'gaussian': return `Gaussian (σ = ${p.sigma}${sens})`;
    case 'laplace': return `Laplace (b = ${p.b}${sens})`;
    case 'rr': return `randomized response (p = ${p.p_true})`;
    case 'subsampled-gaussian': return `subsampled Gaussian (σ = ${p.sigma}, q = ${p.q}${sens})`;
  }
  return p.mechanism;
}

const COMPOSE_COLS = ['mechanism', 'd', 'k', 'c', 'steps', 'delta', 'discretization', 'eps_lower', 'eps_upper', 'eps_rdp', 'eps_unamplified', 'check', 'seconds'];

// What the independent checker said of eps_upper's profile certificate
// (bernamp compose's check column).
const CHECK_MEANING = {
  verified: 'the independent checker re-proved ε_upper from its profile certificate (bernamp verify).',
  rejected: 'the independent checker did not accept ε_upper’s certificate: ε_upper is not certified',
  none: 'ε_upper has no certificate the checker covers: not checked.',
};

// composeValue writes a value of a compose row: null is never shown as
// NaN or Infinity but says why there is no number.
function composeValue(r, col) {
  const v = r[col];
  if (v !== null && v !== undefined) return String(v);
  if ((r.infinite || []).includes(col)) return 'none';
  return col === 'eps_rdp' && r.rdp_route === 'none' ? 'n/a' : '—';
}

function addComposeRow(r) {
  const tr = document.createElement('tr');
  for (const col of COMPOSE_COLS) {
    const td = document.createElement('td');
    td.dataset.col = col;
    td.textContent = col === 'mechanism' ? describe(run.plan) : composeValue(r, col);
    tr.appendChild(td);
  }
  $('compose-rows').tBodies[0].appendChild(tr);
}

function showComposeSummary(r) {
  const box = $('compose-summary');
  box.replaceChildren();
  const num = (id, col) => el('span', { id, class: 'num' }, composeValue(r, col));
  box.appendChild(el('div', {}, `${describe(run.plan)}; d = ${r.d}, k = ${r.k}, c = ${r.c}; T = ${r.steps} steps; δ = ${r.delta}; grid step ${r.discretization}:`));
  const iv = el('div', { class: 'interval' });
  iv.append('ε ∈ [');
  iv.appendChild(num('compose-eps-lower', 'eps_lower'));
  iv.append(', ');
  iv.appendChild(num('compose-eps-upper', 'eps_upper'));
  iv.append(']');
  box.appendChild(iv);
  const inf = (col) => (r.infinite || []).includes(col);
  box.appendChild(el('div', {}, r.eps_upper === null
    ? (inf('eps_upper') ? `No finite ε at δ = ${r.delta}: the composed PLD puts more than δ at infinity (its tails are cut at 10⁻¹⁵ per composition); ask for a larger δ.` : '')
    : `${r.check === 'verified' ? 'Claim' : 'Not certified:'} (${r.eps_upper}, ${r.delta})-DP for the ${r.steps} releases (the exact amplified profile composed, pessimistic PLD); ` +
      (r.eps_lower === null ? 'no lower bound (the mechanism has no known dominating pair).' : 'the exact ε is at least ε_lower (one real mechanism composed).')));
  const chk = el('div', {});
  chk.append('check: ');
  chk.appendChild(el('span', { id: 'compose-check', class: 'status ' + r.check }, r.check));
  chk.append(' — ' + (CHECK_MEANING[r.check] || '') + (r.check_failure ? ` (${r.check_failure})` : ''));
  box.appendChild(chk);
  const rdp = el('div', {});
  rdp.append('RDP route (the RDP curve amplified order by order, composed, converted by Balle et al. 2020): ');
  rdp.appendChild(num('compose-eps-rdp', 'eps_rdp'));
  if (r.rdp_route === 'off') rdp.append(' (not computed: tick “also the RDP route”)');
  if (r.rdp_route === 'none') rdp.append(' (not available: bernamp compose has no RDP curve for the subsampled Gaussian)');
  if (inf('eps_rdp')) rdp.append(' (no finite ε at this δ)');
  box.appendChild(rdp);
  const own = el('div', {});
  own.append('Without amplification (the mechanism’s own PLD composed, as if θ itself were released): ');
  own.appendChild(num('compose-eps-unamplified', 'eps_unamplified'));
  if (inf('eps_unamplified')) own.append(' (no finite ε at this δ)');
  box.appendChild(own);
  box.appendChild(el('div', {}, `ε_lower and ε_upper took ${r.seconds} s, the whole answer ${r.total_seconds} s in this page's engine.`));
}

// ---- rows and summary

const COLS = ['d', 'k', 'c', 'alpha', 'eps', 'lb', 'post', 'post_upper', 'ub', 'status', 'conjecture', 'seconds'];

function addRow(r, i) {
  const tr = document.createElement('tr');
  tr.dataset.i = i;
  for (const col of COLS) {
    const td = document.createElement('td');
    td.dataset.col = col;
    td.textContent = String(r[col]);
    tr.appendChild(td);
  }
  tr.addEventListener('click', () => { selected = i; showSummary(r); });
  $('rows').tBodies[0].appendChild(tr);
}

const MEANING = {
  certified: 'post_upper − post ≤ 10⁻⁹ nats is proved over the whole box [c, 1−c]^d: Post is known within that tolerance.',
  witness: 'post is the value of a verified pair (a lower bound on Post); post_upper is proved but the proof did not close to 10⁻⁹ nats (time or box limit).',
  bounds: 'only the closed forms ran: lb ≤ Post ≤ ub.',
};
const CONJECTURE = {
  proved: 'The paper’s conjecture Post = LB is proved at this point (post_upper − lb ≤ 10⁻⁹).',
  open: 'The paper’s conjecture Post = LB is neither proved nor refuted at this point.',
  refuted: 'A verified pair beats LB: this point refutes the paper’s conjecture Post = LB.',
};

function el(tag, attrs, text) {
  const e = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs || {})) e.setAttribute(k, v);
  if (text !== undefined) e.textContent = text;
  return e;
}

function showSummary(r) {
  const s = $('summary');
  s.replaceChildren();
  s.appendChild(el('div', {}, `d = ${r.d}, k = ${r.k}, c = ${r.c}, α = ${r.alpha}, ε = ${r.eps} nats:`));
  const iv = el('div', { class: 'interval' });
  iv.append('Post ∈ [');
  iv.appendChild(el('span', { id: 'sum-post' }, String(r.post)));
  iv.append(', ');
  iv.appendChild(el('span', { id: 'sum-post-upper' }, String(r.post_upper)));
  iv.append(']  ');
  iv.appendChild(el('span', { id: 'sum-status', class: 'status ' + r.status }, r.status));
  s.appendChild(iv);
  s.appendChild(el('div', {}, `lb = ${r.lb} (Theorem 4); ub = ${r.ub}; ` + MEANING[r.status] +
    ` Claim (α, ${r.post_upper})-RDP for the samples.`));
  s.appendChild(el('div', {}, (CONJECTURE[r.conjecture] || '') + ` Upper bound by: ${r.method}; ${r.seconds} s.`));
}

// ---- the plot: one panel per (d, k, c, alpha), values against eps

function scheduleDraw() {
  if (drawTimer) return;
  drawTimer = setTimeout(() => { drawTimer = 0; draw(); }, 300);
}

function draw() {
  if (run && run.kind) return; // after a curve or a composition the grid's panels stay as they were
  const box = $('plot');
  box.replaceChildren();
  if (!run || run.rows.length === 0) return;
  const groups = new Map();
  for (const r of run.rows) {
    const key = [r.d, r.k, r.c, r.alpha].join('|');
    if (!groups.has(key)) groups.set(key, []);
    groups.get(key).push(r);
  }
  box.appendChild(legend());
  for (const rows of groups.values()) box.appendChild(panel(rows));
}

const STYLE = {
  eps: { stroke: '#787878', 'stroke-width': 1, 'stroke-dasharray': '4 3', fill: 'none' },
  asym: { stroke: '#2ca02c', 'stroke-width': 1, 'stroke-dasharray': '6 2', fill: 'none' },
  lb: { stroke: '#9ecae1', 'stroke-width': 4, fill: 'none' },
  post: { stroke: '#000', 'stroke-width': 0.75, fill: 'none' },
  upper: { stroke: '#d62728', 'stroke-width': 1.2, fill: 'none' },
};

function svg(tag, attrs) {
  const e = document.createElementNS(SVGNS, tag);
  for (const [k, v] of Object.entries(attrs || {})) e.setAttribute(k, v);
  return e;
}

function legend() {
  const div = el('div', { class: 'legend' });
  const item = (draw, text) => {
    const span = el('span');
    const s = svg('svg', { width: 26, height: 12 });
    draw(s);
    span.appendChild(s);
    span.append(' ' + text);
    div.appendChild(span);
  };
  item((s) => s.appendChild(svg('line', { x1: 1, y1: 6, x2: 25, y2: 6, ...STYLE.eps })), 'ε: post-processing upper bound');
  item((s) => s.appendChild(svg('line', { x1: 1, y1: 6, x2: 25, y2: 6, ...STYLE.asym })), 'd k r_α(c): asymptote upper bound');
  item((s) => s.appendChild(svg('line', { x1: 1, y1: 6, x2: 25, y2: 6, ...STYLE.lb })), 'LB: lower bound of Theorem 4');
  item((s) => s.appendChild(svg('circle', { cx: 13, cy: 6, r: 2.5, fill: '#000' })), 'post, certified: exact within tol');
  item((s) => s.appendChild(svg('circle', { cx: 13, cy: 6, r: 2.5, fill: '#fff', stroke: '#000' })), 'post, not certified: lower bound only');
  item((s) => { s.appendChild(svg('line', { x1: 13, y1: 2, x2: 13, y2: 11, ...STYLE.upper })); s.appendChild(svg('line', { x1: 9, y1: 2, x2: 17, y2: 2, ...STYLE.upper })); }, 'post_upper: proved upper bound (not certified)');
  return div;
}

function niceTicks(max) {
  const raw = max / 5;
  const p = Math.pow(10, Math.floor(Math.log10(raw)));
  const step = [1, 2, 2.5, 5, 10].map((m) => m * p).find((s) => s >= raw);
  const ticks = [];
  for (let v = 0; v <= max + step * 1e-9; v += step) ticks.push(+v.toPrecision(12));
  return ticks;
}

function fmt4(v) { return Number(v.toPrecision(4)).toString(); }

function panel(rows) {
  const W = 330, H = 240, L = 46, R = 10, T = 24, B = 34;
  const xmax = Math.max(...rows.map((r) => r.eps)) || 1;
  const ymax = xmax;
  const X = (x) => L + (W - L - R) * x / xmax;
  const Y = (y) => H - B - (H - T - B) * Math.min(y, ymax) / ymax;
  const s = svg('svg', { width: W, height: H, viewBox: `0 0 ${W} ${H}` });
  const r0 = rows[0];
  const title = svg('text', { x: L, y: 14 });
  title.textContent = `d = ${r0.d}, k = ${r0.k}, c = ${r0.c}, α = ${r0.alpha}; d k r_α(c) = ${fmt4(r0.ub_asymptote)}`;
  s.appendChild(title);
  for (const t of niceTicks(xmax)) {
    s.appendChild(svg('line', { x1: X(t), y1: H - B, x2: X(t), y2: H - B + 4, stroke: '#444' }));
    const tx = svg('text', { x: X(t), y: H - B + 15, 'text-anchor': 'middle' });
    tx.textContent = String(t);
    s.appendChild(tx);
    s.appendChild(svg('line', { x1: L - 4, y1: Y(t), x2: L, y2: Y(t), stroke: '#444' }));
    const ty = svg('text', { x: L - 6, y: Y(t) + 4, 'text-anchor': 'end' });
    ty.textContent = String(t);
    s.appendChild(ty);
  }
  s.appendChild(svg('rect', { x: L, y: T, width: W - L - R, height: H - T - B, fill: 'none', stroke: '#444' }));
  const xl = svg('text', { x: (L + W - R) / 2, y: H - 4, 'text-anchor': 'middle' });
  xl.textContent = 'ε (nats)';
  s.appendChild(xl);
  const yl = svg('text', { x: 12, y: (T + H - B) / 2, 'text-anchor': 'middle', transform: `rotate(-90 12 ${(T + H - B) / 2})` });
  yl.textContent = 'Post (nats)';
  s.appendChild(yl);
  s.appendChild(svg('line', { x1: X(0), y1: Y(0), x2: X(xmax), y2: Y(xmax), ...STYLE.eps }));
  if (r0.ub_asymptote <= ymax) {
    s.appendChild(svg('line', { x1: X(0), y1: Y(r0.ub_asymptote), x2: X(xmax), y2: Y(r0.ub_asymptote), ...STYLE.asym }));
  }
  const line = (key, style) => {
    const pts = rows.map((r) => `${X(r.eps).toFixed(2)},${Y(r[key]).toFixed(2)}`).join(' ');
    s.appendChild(svg('polyline', { points: pts, ...style }));
  };
  line('lb', STYLE.lb);
  const solved = rows.filter((r) => r.status !== 'bounds');
  if (solved.length) line('post', STYLE.post);
  for (const r of solved) {
    if (r.status !== 'certified') {
      s.appendChild(svg('line', { x1: X(r.eps), y1: Y(r.post), x2: X(r.eps), y2: Y(r.post_upper), ...STYLE.upper }));
      s.appendChild(svg('line', { x1: X(r.eps) - 3, y1: Y(r.post_upper), x2: X(r.eps) + 3, y2: Y(r.post_upper), ...STYLE.upper }));
    }
    const filled = r.status === 'certified';
    s.appendChild(svg('circle', { cx: X(r.eps), cy: Y(r.post), r: 2.5, fill: filled ? '#000' : '#fff', stroke: '#000' }));
  }
  return s;
}

// ---- presets (presets.json: the grids of testdata/grids)

async function loadPresets() {
  let presets = [];
  try {
    presets = await (await fetch('presets.json')).json();
  } catch (err) {
    return;
  }
  const sel = $('preset');
  for (const p of presets) sel.appendChild(el('option', { value: p.name }, p.title));
  const single = { d: '2', k: '1', c: '0.1', alpha: '5', eps: '1', timeout: '' };
  sel.addEventListener('change', () => {
    const p = presets.find((q) => q.name === sel.value) || single;
    for (const name of FIELDS) $(name).value = p[name] || '';
    validateSoon();
  });
}

$('form').addEventListener('submit', solve);
$('cancel').addEventListener('click', cancel);
$('curve-form').addEventListener('submit', amplify);
$('compose-form').addEventListener('submit', compose);
$('compose-cancel').addEventListener('click', cancel);
$('compose-mechanism').addEventListener('change', () => { showMechanism(); validateComposeSoon(); });
for (const name of COMPOSE_FIELDS) $(name).addEventListener('input', validateComposeSoon);
showMechanism();
for (const name of CURVE_FIELDS) $(name).addEventListener('input', validateCurveSoon);
for (const name of FIELDS) $(name).addEventListener('input', validateSoon);
loadPresets();
boot();
