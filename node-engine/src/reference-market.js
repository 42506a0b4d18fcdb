'use strict';
// The market of contract section 1 written as plainly as the text reads, with no
// attention to speed. The fast Market must produce exactly what this one
// produces (test/market.test.js compares them on random order streams), and
// `replay.js --reference` runs it on a scenario. Same interface as Market.
const _ = require('underscore');

class ReferenceMarket {
  constructor({ timeoutMs }) {
    this.timeoutMs = timeoutMs;
    this.inbox = [];
    this.orders = []; // open orders in arrival order
    this.seq = 0;
  }

  submit(order) { this.inbox.push(order); }
  get pendingCount() { return this.inbox.length; }
  get openCount() { return this.orders.length; }

  openOrders() {
    return this.orders.map((o) => ({ id: o.id, remaining: o.remaining }))
      .concat(this.inbox.map((o) => ({ id: o.id, remaining: o.quantity })));
  }

  cycle(now) {
    // 1. Join, in arrival order.
    const joined = this.inbox.length;
    for (const order of this.inbox) {
      this.orders.push(_.extend(_.pick(order, 'id', 'side', 'userId', 'productId', 'arrival'), {
        priceCents: order.priceCents == null ? null : order.priceCents,
        remaining: order.quantity,
        seq: ++this.seq,
      }));
    }
    this.inbox = [];

    // 2. Time out.
    const [expired, alive] = _.partition(this.orders, (o) => now - o.arrival > this.timeoutMs);
    this.orders = alive;
    const timedOut = _.pluck(expired, 'id');

    // 3. Trade each product with at least one open SO.
    const sales = [];
    const filled = [];
    const products = _.uniq(_.pluck(_.where(this.orders, { side: 'sell' }), 'productId'));
    for (const productId of products) {
      // The buyer queue: distinct buyers by the arrival of their earliest open PO.
      const queue = _.uniq(_.pluck(_.where(this.orders, { side: 'buy', productId }), 'userId'));
      for (const userId of queue) {
        const sos = _.filter(this.orders, (o) => o.side === 'sell' && o.productId === productId && o.remaining > 0);
        if (sos.length === 0) break; // sold out
        const best = _.sortBy(_.sortBy(sos, 'seq'), 'priceCents')[0]; // stable: price, then arrival
        const relevant = _.filter(this.orders, (o) => o.side === 'buy' && o.productId === productId &&
          o.userId === userId && o.remaining > 0 && (o.priceCents === null || o.priceCents >= best.priceCents));
        for (const po of relevant) {
          if (best.remaining === 0) break;
          const q = Math.min(best.remaining, po.remaining);
          sales.push({ productId, buyer: po.userId, seller: best.userId, priceCents: best.priceCents,
            quantity: q, poId: po.id, soId: best.id });
          best.remaining -= q;
          po.remaining -= q;
        }
        // Filled orders leave the market.
        const done = _.filter(this.orders, (o) => o.remaining === 0);
        filled.push(..._.pluck(done, 'id'));
        this.orders = _.difference(this.orders, done);
      }
    }
    return { joined, sales, timedOut, filled };
  }
}

module.exports = { ReferenceMarket };
