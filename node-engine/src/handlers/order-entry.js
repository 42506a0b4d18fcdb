'use strict';
// POST|GET /buy and /sell: validate, route to the engine that owns the
// product, answer 202 at once (the trade happens in a later cycle). The same
// handler serves Express's routes (a form body) and the fast path of
// src/front.js (no body): it writes its answers with answers.js only.
const { paramsOf, parseOrder } = require('../validation');
const { answerAccepted, answerJson, answerRefused } = require('./answers');

// counts: this HTTP thread's order counters (accepted, rejected, overloaded).
function orderEntry(side, { config, engines, registry, ids, counts, state }) {
  let lastArrival = 0;
  const workNs = BigInt(config.testWorkUs || 0) * 1000n;
  return function acceptOrder(req, res) {
    if (state.shuttingDown) {
      counts.overloaded++;
      return answerRefused(res, 'shutting down');
    }
    let parsed;
    try {
      parsed = parseOrder(paramsOf(req), side, config.products);
    } catch (err) {
      if (err.status !== 400) throw err;
      counts.rejected++;
      return answerJson(res, 400, { error: err.message });
    }
    const engine = engines.engineOf(parsed.productId);
    const verdict = engines.check(engine);
    if (verdict !== 'ok') {
      counts.overloaded++;
      return answerRefused(res, verdict === 'overloaded' ? 'overloaded' : 'engine unavailable');
    }
    // Arrival never goes back in time (a clock step must not reorder the
    // engine's time-out FIFO), and orders reach each engine in id order.
    const id = ids.next();
    if (ids.arrival > lastArrival) lastArrival = ids.arrival;
    const order = {
      id, side, userId: parsed.userId, productId: String(parsed.productId),
      quantity: parsed.quantity, priceCents: parsed.priceCents, arrival: lastArrival,
    };
    registry.add(order, engine.index);
    engines.send(engine, order);
    counts.accepted++;
    if (workNs) spin(workNs);
    return answerAccepted(res, order.id, side);
  };
}

// The TEST_WORK_US knob: busy for that long on this thread.
function spin(ns) {
  const until = process.hrtime.bigint() + ns;
  while (process.hrtime.bigint() < until) { /* the work the knob adds */ }
}

module.exports = { orderEntry };
