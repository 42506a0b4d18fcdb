'use strict';
// Test-only fault injection (docs/contract-details.md, "Fault injection"): with
// FAULTS=on, POST /faults/crash-engine?engine=N kills child N with SIGKILL,
// the way a Node engine fails. The pool notices the exit, answers 503 for its
// products and forks a replacement. Without FAULTS=on the path is not routed
// (404 like any unknown path).
const { paramsOf } = require('../validation');

const PATH = '/faults/crash-engine';

function crashEngine({ config, engines }) {
  return function crash(req, res) {
    let values;
    try {
      values = paramsOf(req).get('engine');
    } catch {
      values = undefined; // malformed encoding: a bad engine number like any other
    }
    const text = values && values.length === 1 ? values[0] : null;
    if (text === null || !/^[0-9]{1,4}$/.test(text) || Number(text) >= config.engines) {
      res.status(400).json({ error: `engine must be an integer in 0..${config.engines - 1}` });
      return;
    }
    const engine = Number(text);
    engines.kill(engine, 'SIGKILL');
    res.status(202).json({ engine, status: 'crashing' });
  };
}

module.exports = { crashEngine, PATH };
