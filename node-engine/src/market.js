'use strict';
// The market of contract section 1, fast version. Pure: no clock, no I/O. The
// caller submits orders (they wait in the inbox) and runs cycle(now); the
// engine child, the replay and the tests all drive this same class.
//
// Why it is fast (a cycle never costs buyers x sellers):
// - per product, a min-heap of sales orders by (priceCents, seq); orders
//   that time out stay in it and are dropped when they reach the top;
// - per product, a min-heap of buyers keyed by the seq of their earliest
//   open purchase order. A buyer's key only grows (its earliest PO closes),
//   so a stale key is fixed when it surfaces;
// - one FIFO of the orders in join order: time-outs only look at its head.
//   Orders that closed behind its head (filled while an older one waits)
//   are dropped from it once they outnumber the open ones, so it holds
//   about the open orders, not every order of the last TIMEOUT_MS;
// - only "dirty" products trade: those where an order joined or timed out
//   in this cycle, or a sale happened in the previous one. A product whose
//   book did not change since a cycle that made no sale cannot trade.
const { MinHeap } = require('./heap');

const soFirst = (a, b) => a.priceCents < b.priceCents || (a.priceCents === b.priceCents && a.seq < b.seq);
const buyerFirst = (a, b) => a.key < b.key;
// Closed orders the time-out FIFO may hold beyond twice the open ones before it drops them.
const FIFO_SLACK = 1024;

class Market {
  // fifoSlack: closed orders the time-out FIFO may hold beyond twice the open ones (tests lower it).
  constructor({ timeoutMs, fifoSlack = FIFO_SLACK }) {
    this.timeoutMs = timeoutMs;
    this.fifoSlack = fifoSlack;
    this.inbox = [];
    this.open = new Map();     // id -> open order in the market
    this.books = new Map();    // productId -> book
    this.fifo = [];            // orders in join order (closed ones skipped, then dropped: compactFifo)
    this.fifoHead = 0;
    this.seq = 0;              // join counter: the arrival rank inside the market
    this.dirty = new Set();    // products to trade in the next cycle
  }

  // order: {id, side: 'buy'|'sell', userId, productId (string), quantity,
  //         priceCents (a PO's maxPrice; null = no limit), arrival (ms)}
  submit(order) {
    this.inbox.push(order);
  }

  get pendingCount() { return this.inbox.length; }
  get openCount() { return this.open.size; }
  // Orders the time-out FIFO still holds, open or not (what the market keeps alive).
  get fifoCount() { return this.fifo.length - this.fifoHead; }

  // Orders still open, in the market or waiting in the inbox: [{id, remaining}].
  openOrders() {
    const list = [];
    for (const o of this.open.values()) list.push({ id: o.id, remaining: o.remaining });
    for (const o of this.inbox) list.push({ id: o.id, remaining: o.quantity });
    return list;
  }

  // One trading cycle at time `now`. Returns what happened:
  // {joined, sales: [{productId, buyer, seller, priceCents, quantity, poId, soId}],
  //  timedOut: [id], filled: [id]}.
  cycle(now) {
    const joined = this.inbox.length;
    const inbox = this.inbox;
    this.inbox = [];
    for (const order of inbox) this.join(order);

    const timedOut = this.timeOut(now);

    const sales = [];
    const filled = [];
    const nextDirty = new Set();
    for (const productId of this.dirty) {
      const before = sales.length;
      this.trade(this.books.get(productId), sales, filled);
      if (sales.length > before) nextDirty.add(productId);
    }
    this.dirty = nextDirty;
    return { joined, sales, timedOut, filled };
  }

  bookOf(productId) {
    let book = this.books.get(productId);
    if (!book) {
      book = { productId, sos: new MinHeap(soFirst), openSOs: 0, buyers: new Map(), buyerQueue: new MinHeap(buyerFirst) };
      this.books.set(productId, book);
    }
    return book;
  }

  join(order) {
    const o = {
      id: order.id, side: order.side, userId: order.userId, productId: order.productId,
      priceCents: order.priceCents == null ? null : order.priceCents,
      remaining: order.quantity, arrival: order.arrival, seq: ++this.seq, open: true,
    };
    this.open.set(o.id, o);
    this.fifo.push(o);
    const book = this.bookOf(o.productId);
    if (o.side === 'sell') {
      book.sos.push(o);
      book.openSOs++;
    } else {
      let buyer = book.buyers.get(o.userId);
      if (!buyer) {
        buyer = { userId: o.userId, pos: [], inQueue: false };
        book.buyers.set(o.userId, buyer);
      }
      buyer.pos.push(o);
      // A buyer already queued keeps its (earlier or stale) key: keys only grow.
      if (!buyer.inQueue) {
        book.buyerQueue.push({ key: o.seq, buyer });
        buyer.inQueue = true;
      }
    }
    this.dirty.add(o.productId);
  }

  // Orders join in arrival order, so the FIFO head is always the oldest.
  timeOut(now) {
    const out = [];
    const fifo = this.fifo;
    while (this.fifoHead < fifo.length) {
      const o = fifo[this.fifoHead];
      if (o.open) {
        if (now - o.arrival <= this.timeoutMs) break;
        this.close(o);
        if (o.side === 'sell') this.books.get(o.productId).openSOs--;
        this.dirty.add(o.productId);
        out.push(o.id);
      }
      this.fifoHead++;
    }
    if (this.fifoCount > 2 * this.open.size + this.fifoSlack) this.compactFifo();
    else if (this.fifoHead > 1024 && this.fifoHead * 2 > fifo.length) {
      this.fifo = fifo.slice(this.fifoHead);
      this.fifoHead = 0;
    }
    return out;
  }

  // Only the open orders, still in join order. The head stops at the oldest
  // open order, so without this every order joined after it (most of them
  // filled at once) stays in the FIFO until it times out: TIMEOUT_MS of the
  // whole load (60 s at 10,000 orders/s: 600,000 orders) held in the heap.
  // Run when the closed ones are over half of it, so each order is copied
  // at most a few times over its life.
  compactFifo() {
    const fifo = this.fifo;
    let kept = 0;
    for (let i = this.fifoHead; i < fifo.length; i++) {
      if (fifo[i].open) fifo[kept++] = fifo[i];
    }
    fifo.length = kept;
    this.fifoHead = 0;
  }

  close(o) {
    o.open = false;
    this.open.delete(o.id);
  }

  // The cheapest open SO of the book (timed-out ones are dropped on the way).
  best(book) {
    const sos = book.sos;
    while (sos.size > 0 && !sos.peek().open) sos.pop();
    return sos.peek();
  }

  // contract section 1, step 3 for one product.
  trade(book, sales, filled) {
    if (!book || book.openSOs === 0) return;
    const queue = book.buyerQueue;
    const visited = [];
    while (queue.size > 0) {
      const best = this.best(book);
      if (!best) break; // sold out
      const entry = queue.pop();
      const buyer = entry.buyer;
      const key = firstOpenSeq(buyer);
      if (key === undefined) { // no open PO left: the buyer leaves the book
        buyer.inQueue = false;
        book.buyers.delete(buyer.userId);
        continue;
      }
      if (key !== entry.key) { // stale key: put it back where it belongs now
        queue.push({ key, buyer });
        continue;
      }
      visited.push(buyer);
      this.tradeBuyer(book, buyer, best, sales, filled);
    }
    // Each buyer goes through the queue once per cycle; back in with its new key.
    for (const buyer of visited) {
      const key = firstOpenSeq(buyer);
      if (key === undefined) {
        buyer.inQueue = false;
        book.buyers.delete(buyer.userId);
      } else {
        queue.push({ key, buyer });
      }
    }
  }

  // One buyer against the best SO: its relevant POs in arrival order.
  tradeBuyer(book, buyer, best, sales, filled) {
    let closedAny = false;
    for (const po of buyer.pos) {
      if (best.remaining === 0) break;
      if (!po.open) { closedAny = true; continue; }
      if (po.priceCents !== null && po.priceCents < best.priceCents) continue; // not relevant
      const q = Math.min(best.remaining, po.remaining);
      sales.push({
        productId: book.productId, buyer: po.userId, seller: best.userId,
        priceCents: best.priceCents, quantity: q, poId: po.id, soId: best.id,
      });
      best.remaining -= q;
      po.remaining -= q;
      if (po.remaining === 0) {
        this.close(po);
        filled.push(po.id);
        closedAny = true;
      }
    }
    if (best.remaining === 0) {
      this.close(best);
      book.sos.pop(); // best is the top of the heap
      book.openSOs--;
      filled.push(best.id);
    }
    if (closedAny) buyer.pos = buyer.pos.filter((po) => po.open);
  }
}

// The seq of the buyer's earliest open PO (closed ones at the front are dropped).
function firstOpenSeq(buyer) {
  const pos = buyer.pos;
  let i = 0;
  while (i < pos.length && !pos[i].open) i++;
  if (i > 0) buyer.pos = pos.slice(i);
  return i < pos.length ? pos[i].seq : undefined;
}

module.exports = { Market };
