'use strict';
// GET /orders/{id}: the order as this process knows it, with its fills read
// from SALES (the stored truth, not the engine's memory) through the view's
// read path (src/read-path.js: its own pool, limit and deadline). lookup(id): the
// order's record (from whichever HTTP thread accepted it, peers.js), issued(id):
// is it in the range of ids this process issued.
const { parseOrderId } = require('../validation');
const { fillsOf } = require('../db');
const { priceOfCents } = require('../prices');
const { ViewRefused, ReadTimedOut } = require('../read-path');
const { answerJson } = require('./answers');

function orderStatus({ lookup, issued, readPath }) {
  // The fills of an order; null once the view has been answered 503 (the limit) or 504 (the deadline).
  // Any other failure (a read server that refuses) goes to the error handler: 503 database unreachable.
  async function fillsFor(res, id, side) {
    try {
      return await readPath.read((connection) => fillsOf(connection, id, side, { timeoutMs: 0 }));
    } catch (err) {
      if (!(err instanceof ViewRefused || err instanceof ReadTimedOut)) throw err;
      answerJson(res, err.status, { error: err.message }, err.headers);
      return null;
    }
  }

  return async function showOrder(req, res) {
    // A bad id is answered here, before the read path: it takes none of its places.
    const id = parseOrderId(req.params.id);
    if (id === null) return res.status(404).json({ error: `no such order: ${req.params.id}` });
    const known = await lookup(id);
    if (known) {
      // The rule of the Java variants (engine-wire OrderViews). The status is
      // read before the fills: an engine reports a sale only once it is
      // stored, so a status read first is never ahead of the fills read after
      // it. Remaining is the quantity less the stored fills; an order still
      // open whose stored fills cover its quantity is shown filled (its
      // engine's report is on its way).
      const statusBefore = known.status;
      const fills = await fillsFor(res, id, known.side);
      if (fills === null) return undefined;
      const stored = fills.reduce((sum, f) => sum + f.quantity, 0);
      const remaining = known.quantity - stored;
      const status = statusBefore === 'open' && remaining <= 0 ? 'filled' : statusBefore;
      // Keys in the Java variants' order; `price` (the SO's price, the PO's
      // maxPrice) only where the order has one, as they do.
      const body = { id, side: known.side, userId: known.userId, productId: known.productId, quantity: known.quantity };
      if (known.priceCents !== null) body.price = priceOfCents(known.priceCents);
      return res.json({ ...body, remaining, status, fills });
    }
    const fills = await fillsFor(res, id, null);
    if (fills === null) return undefined;
    if (fills.length > 0 || issued(id)) return res.json({ id, status: 'unknown', fills });
    return res.status(404).json({ error: `no such order: ${id}` });
  };
}

module.exports = { orderStatus };
