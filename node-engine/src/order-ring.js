'use strict';
// The orders of one engine worker (WORKERS=threads), from the HTTP thread to
// the worker, in a SharedArrayBuffer: one writer (the HTTP thread), one reader
// (the worker, at the start of each cycle).
//
// Why not a message: a MessagePort message is a structured clone on each
// side, a wake-up of the worker's event loop (which was pausing DELAY_MS) and
// a message callback, for the few orders of one event-loop turn. The worker
// only needs the orders when its cycle starts, so the HTTP thread writes them
// where the cycle will find them and nothing wakes the worker early.
//
// A slot is 128 bytes: seven float64 (id, side, productId, quantity,
// priceCents or NaN for none, arrival, the userId's length) and the userId's
// bytes (validation.js allows 1..64 of A-Z a-z 0-9 _ . -, one byte each).
// Two int32 indexes, each written by one side only: `write`, the next slot the
// writer fills, and `read`, the next slot the reader takes. The ring keeps one
// slot free, so write === read means empty. Slot contents are plain stores,
// published by the Atomics.store of `write` (and handed back by the one of
// `read`): an Atomics.load that sees the index sees what was written before it.
const SLOT_BYTES = 128;
const SLOT_F64 = SLOT_BYTES / 8;
const NUMBERS = 7;
const USER_OFFSET = NUMBERS * 8;
const USER_MAX = SLOT_BYTES - USER_OFFSET; // 72 >= the 64 characters validation allows
const WRITE = 0;
const READ = 1;
const HEADER_BYTES = 8;
// Enough for many cycles of orders at saturation; a writer that finds the ring
// full keeps the rest until the worker has read some (engine-pool.js).
const MAX_SLOTS = 4096;

function slotsFor(inboxLimit) {
  return Math.min(inboxLimit, MAX_SLOTS) + 1;
}

// Both sides share one buffer: OrderRing.create(inboxLimit) on the writer's
// side, new OrderRing(ring.buffer) on the reader's.
class OrderRing {
  static create(inboxLimit) {
    return new OrderRing(new SharedArrayBuffer(HEADER_BYTES + slotsFor(inboxLimit) * SLOT_BYTES));
  }

  constructor(buffer) {
    this.buffer = buffer;
    this.slots = (buffer.byteLength - HEADER_BYTES) / SLOT_BYTES;
    this.index = new Int32Array(buffer, 0, 2);
    this.numbers = new Float64Array(buffer, HEADER_BYTES);
    this.bytes = Buffer.from(buffer, HEADER_BYTES);
  }

  // Writer: the order in the next slot; false (nothing written) when full.
  push(order) {
    const w = this.index[WRITE];
    const next = w + 1 === this.slots ? 0 : w + 1;
    if (next === Atomics.load(this.index, READ)) return false;
    const user = order.userId;
    if (user.length > USER_MAX) throw new Error(`userId longer than ${USER_MAX} characters`);
    const f = w * SLOT_F64;
    const n = this.numbers;
    n[f] = order.id;
    n[f + 1] = order.side === 'sell' ? 1 : 0;
    n[f + 2] = Number(order.productId);
    n[f + 3] = order.quantity;
    n[f + 4] = order.priceCents === null ? NaN : order.priceCents;
    n[f + 5] = order.arrival;
    n[f + 6] = user.length;
    this.bytes.write(user, w * SLOT_BYTES + USER_OFFSET, 'latin1');
    Atomics.store(this.index, WRITE, next);
    return true;
  }

  // Reader: hands every order written so far to fn, oldest first; their count.
  takeAll(fn) {
    const w = Atomics.load(this.index, WRITE);
    let r = this.index[READ];
    let count = 0;
    const n = this.numbers;
    while (r !== w) {
      const f = r * SLOT_F64;
      const start = r * SLOT_BYTES + USER_OFFSET;
      const price = n[f + 4];
      fn({
        id: n[f], side: n[f + 1] === 1 ? 'sell' : 'buy', userId: this.bytes.toString('latin1', start, start + n[f + 6]),
        productId: String(n[f + 2]), quantity: n[f + 3], priceCents: Number.isNaN(price) ? null : price, arrival: n[f + 5],
      });
      count++;
      r = r + 1 === this.slots ? 0 : r + 1;
    }
    Atomics.store(this.index, READ, r);
    return count;
  }

  isEmpty() {
    return Atomics.load(this.index, WRITE) === Atomics.load(this.index, READ);
  }
}

module.exports = { OrderRing };
