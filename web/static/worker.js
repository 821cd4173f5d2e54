// worker.js runs the engine (bernamp.wasm, built from web/wasm) off the
// page's thread. Messages in: {type: 'init', module} with the compiled
// WebAssembly.Module, {type: 'parse', id, form} and {type: 'run', form}.
// Messages out: 'ready', 'parsed' {id, answer}, 'start' {n}, 'point' {i,
// point}, 'row' {i, row}, 'done', 'error' {message}, 'fatal' {message}.
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
    postMessage({ type: 'parsed', id: m.id, answer: parse(m.form) });
    return;
  }
  if (m.type !== 'run') return;
  const a = parse(m.form);
  if (a.error) {
    postMessage({ type: 'parsed', id: m.id, answer: a });
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
