// worker.js runs the engine (bernamp.wasm, built from web/wasm) off the
// page's thread. Messages in: {type: 'init', module} with the compiled
// WebAssembly.Module, {type: 'parse', id, form}, {type: 'run', form},
// {type: 'parsecurve', id, form} and {type: 'runcurve', form} (a pasted
// accountant curve, amplified order by order as bernamp curve --in does),
// {type: 'parsecompose', id, form} and {type: 'runcompose', form} (eps after
// T steps, as bernamp compose answers it).
// Messages out: 'ready', 'parsed' {id, group, answer}, 'start' {n}, 'point'
// {i, point}, 'row' {i, row}, 'cstart' {n, warnings}, 'corder' {i, order},
// 'crow' {i, row}, 'csummary' {summary}, 'kstart' {plan}, 'krow' {row},
// 'done', 'error' {message, field}, 'fatal' {message}.
//
// A run solves its points one after the other. Go on WebAssembly does not
// return to the event loop during a solve, so the page cancels a run by
// terminating this worker; the time limit per point is enforced in Go.
'use strict';
importScripts('wasm_exec.js');

let engine = null; // resolves once Go has registered bernampParse and bernampSolve

function start(module) {
  return new Promise((resolve, reject) => {
    self.bernampReady = resolve;
    const go = new Go();
    WebAssembly.instantiate(module, go.importObject)
      .then((instance) => go.run(instance))
      .then(() => {
        // Go returned: before it was ready, or after a panic (printed on
        // the console); either way this worker answers no more.
        reject(new Error('the engine exited'));
        postMessage({ type: 'fatal', message: 'the engine exited (see the console); reload the page' });
      }, reject);
  });
}

function parse(form) {
  return JSON.parse(self.bernampParse(JSON.stringify(form)));
}

function parseCurve(form) {
  return JSON.parse(self.bernampParseCurve(JSON.stringify(form)));
}

function parseCompose(form) {
  return JSON.parse(self.bernampParseCompose(JSON.stringify(form)));
}

// runCompose answers one composition in a single call of the engine
// (accountant.ComposeClaim): no progress can come from Go meanwhile.
async function runCompose(form) {
  const a = parseCompose(form);
  if (a.error) {
    postMessage({ type: 'parsed', group: 'compose', answer: a });
    return;
  }
  postMessage({ type: 'kstart', plan: a.plan });
  const s = JSON.parse(await self.bernampCompose(JSON.stringify(a.plan)));
  if (s.error) {
    postMessage({ type: 'error', message: s.error, field: s.field });
    return;
  }
  postMessage({ type: 'krow', row: s.row });
  postMessage({ type: 'done' });
}

// runCurve amplifies each order of a pasted curve, then converts the
// pasted and the amplified curves to (eps, delta) (the summary of bernamp
// curve: rows mechanism and bernamp).
async function runCurve(form) {
  const a = parseCurve(form);
  if (a.error) {
    postMessage({ type: 'parsed', group: 'curve', answer: a });
    return;
  }
  const p = a.plan;
  postMessage({ type: 'cstart', n: p.orders.length, warnings: p.warnings || [] });
  const upper = [];
  for (let i = 0; i < p.orders.length; i++) {
    postMessage({ type: 'corder', i, order: p.orders[i] });
    const req = JSON.stringify({ d: p.d, k: p.k, c: p.c, order: p.orders[i], timeout_ns: p.timeout_ns });
    const s = JSON.parse(await self.bernampSolveOrder(req));
    if (s.error) {
      postMessage({ type: 'error', message: s.error });
      return;
    }
    upper.push(s.row.post_upper);
    postMessage({ type: 'crow', i, row: s.row });
  }
  const s = JSON.parse(self.bernampSummarize(JSON.stringify({ orders: p.orders, post_upper: upper, delta: p.delta })));
  if (s.error) {
    postMessage({ type: 'error', message: s.error });
    return;
  }
  postMessage({ type: 'csummary', summary: s.summary, delta: p.delta });
  postMessage({ type: 'done' });
}

self.onmessage = async (e) => {
  const m = e.data;
  if (m.type === 'init') {
    engine = start(m.module);
    try {
      await engine;
      postMessage({ type: 'ready' });
    } catch (err) {
      postMessage({ type: 'fatal', message: String(err) });
    }
    return;
  }
  await engine;
  if (m.type === 'parse') {
    postMessage({ type: 'parsed', id: m.id, group: 'grid', answer: parse(m.form) });
    return;
  }
  if (m.type === 'parsecurve') {
    postMessage({ type: 'parsed', id: m.id, group: 'curve', answer: parseCurve(m.form) });
    return;
  }
  if (m.type === 'runcurve') {
    runCurve(m.form);
    return;
  }
  if (m.type === 'parsecompose') {
    postMessage({ type: 'parsed', id: m.id, group: 'compose', answer: parseCompose(m.form) });
    return;
  }
  if (m.type === 'runcompose') {
    runCompose(m.form);
    return;
  }
  if (m.type !== 'run') return;
  const a = parse(m.form);
  if (a.error) {
    postMessage({ type: 'parsed', id: m.id, group: 'grid', answer: a });
    return;
  }
  postMessage({ type: 'start', n: a.points.length });
  for (let i = 0; i < a.points.length; i++) {
    postMessage({ type: 'point', i, point: a.points[i] });
    const req = JSON.stringify({ point: a.points[i], timeout_ns: a.timeout_ns });
    const s = JSON.parse(await self.bernampSolve(req));
    if (s.error) {
      postMessage({ type: 'error', message: s.error });
      return;
    }
    postMessage({ type: 'row', i, row: s.row });
  }
  postMessage({ type: 'done' });
};
