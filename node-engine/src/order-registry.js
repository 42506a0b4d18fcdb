'use strict';
// What the parent remembers of the orders it accepted, for GET /orders/{id}:
// every open order, and the most recent 200,000 closed ones (docs/contract-details.md).
// Remaining quantities follow the sales the engines report, which they report
// only once stored, so "filled" means the last sale is in SALES.

const CLOSED_KEPT = 200000;

class OrderRegistry {
  constructor({ closedKept = CLOSED_KEPT } = {}) {
    this.closedKept = closedKept;
    this.orders = new Map();
    this.closed = [];        // ids of closed orders, oldest first
    this.closedHead = 0;
    this.firstId = null;     // the range of ids this process issued
    this.lastId = null;
  }

  add(order, engine) {
    this.orders.set(order.id, {
      id: order.id, side: order.side, userId: order.userId, productId: order.productId,
      quantity: order.quantity, priceCents: order.priceCents, remaining: order.quantity, status: 'open', engine,
    });
    if (this.firstId === null) this.firstId = order.id;
    this.lastId = order.id;
  }

  get(id) { return this.orders.get(id); }

  issued(id) {
    return this.firstId !== null && id >= this.firstId && id <= this.lastId;
  }

  // flat [poId, soId, quantity, ...] as the engines send them
  applySales(flat) {
    for (let i = 0; i < flat.length; i += 3) {
      this.reduce(flat[i], flat[i + 2]);
      this.reduce(flat[i + 1], flat[i + 2]);
    }
  }

  reduce(id, quantity) {
    const o = this.orders.get(id);
    if (!o || o.status !== 'open') return;
    o.remaining -= quantity;
    if (o.remaining <= 0) this.close(o, 'filled');
  }

  applyTimedOut(ids) {
    for (const id of ids) {
      const o = this.orders.get(id);
      if (o && o.status === 'open') this.close(o, 'timed_out');
    }
  }

  // A dead engine took its open orders with it: forget them, so that they
  // answer "unknown" with their stored fills.
  forgetEngine(engine) {
    let n = 0;
    for (const [id, o] of this.orders) {
      if (o.status === 'open' && o.engine === engine) { this.orders.delete(id); n++; }
    }
    return n;
  }

  close(o, status) {
    o.status = status;
    this.closed.push(o.id);
    if (this.closed.length - this.closedHead > this.closedKept) {
      this.orders.delete(this.closed[this.closedHead]);
      this.closedHead++;
      if (this.closedHead > 65536) { this.closed = this.closed.slice(this.closedHead); this.closedHead = 0; }
    }
  }
}

module.exports = { OrderRegistry };
