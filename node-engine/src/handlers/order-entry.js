'use strict';
// POST|GET /buy and /sell: validate, route to the engine that owns the
// product, answer 202 at once (the trade happens in a later cycle).
const { paramsOf, parseOrder } = require('../validation');
const { answerAccepted } = require('./accepted');

function orderEntry(side, { config, engines, registry, ids, stats, state }) {
  let lastArrival = 0;
  return function acceptOrder(req, res) {
    if (state.shuttingDown) {
      stats.overloaded++;
      return res.status(503).set('Retry-After', '1').json({ error: 'shutting down' });
    }
    let parsed;
    try {
      parsed = parseOrder(paramsOf(req), side, config.products);
    } catch (err) {
      if (err.status !== 400) throw err;
      stats.rejected++;
      return res.status(400).json({ error: err.message });
    }
    const engine = engines.engineOf(parsed.productId);
    const verdict = engines.check(engine);
    if (verdict !== 'ok') {
      stats.overloaded++;
      const error = verdict === 'overloaded' ? 'overloaded' : 'engine unavailable';
      return res.status(503).set('Retry-After', '1').json({ error });
    }
    // Arrival never goes back in time (a clock step must not reorder the
    // engine's time-out FIFO), and orders reach each engine in id order.
    lastArrival = Math.max(lastArrival, Date.now());
    const order = {
      id: ids.next(), side, userId: parsed.userId, productId: String(parsed.productId),
      quantity: parsed.quantity, priceCents: parsed.priceCents, arrival: lastArrival,
    };
    registry.add(order, engine.index);
    engines.send(engine, order);
    stats.accepted++;
    return answerAccepted(res, order.id, side);
  };
}

module.exports = { orderEntry };
