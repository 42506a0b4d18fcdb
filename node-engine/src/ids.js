'use strict';
// Order ids (docs/contract-details.md): max(last id + 1, now in microseconds), and at
// start at least the largest id in SALES + 1. They increase in the order of
// acceptance, are not reused after a restart, and stay below 2^53.
const { performance } = require('node:perf_hooks');

class IdSource {
  constructor(floor = 0) {
    this.last = floor - 1;
    this.arrival = 0;
  }

  raiseFloor(floor) {
    this.last = Math.max(this.last, floor - 1);
  }

  // The next id; `arrival` is then the order's arrival time (ms).
  next() {
    this.arrival = Date.now();
    const now = Math.floor((performance.timeOrigin + performance.now()) * 1000);
    this.last = Math.max(this.last + 1, now);
    return this.last;
  }
}

// The same rule for several HTTP threads (LISTENERS): one id sequence in shared memory, [0] the
// last id, [1] the first this process issued (0 until then), taken with compare-and-swap, so ids
// grow in the order of acceptance across the threads. The arrival time (ms) is read in the same
// attempt as the id, after the last id was read: an order with a higher id never has an earlier
// arrival (the wall clock does not step back), so an engine that joins its orders in id order
// joins them in arrival order too (its time-outs look at the oldest first).
class SharedIdSource {
  static create(floor = 0) {
    const ids = new SharedIdSource(new SharedArrayBuffer(16));
    ids.raiseFloor(floor);
    return ids;
  }

  constructor(buffer) {
    this.buffer = buffer;
    this.cells = new BigInt64Array(buffer);
    this.arrival = 0;
    this.firstTaken = false;
  }

  raiseFloor(floor) {
    for (;;) {
      const last = Atomics.load(this.cells, 0);
      const wanted = BigInt(floor - 1);
      if (last >= wanted || Atomics.compareExchange(this.cells, 0, last, wanted) === last) return;
    }
  }

  next() {
    for (;;) {
      const last = Atomics.load(this.cells, 0);
      const arrival = Date.now();
      const now = BigInt(Math.floor((performance.timeOrigin + performance.now()) * 1000));
      const id = last + 1n > now ? last + 1n : now;
      if (Atomics.compareExchange(this.cells, 0, last, id) !== last) continue; // another thread took one
      if (!this.firstTaken) {
        this.firstTaken = true;
        this.lowerFirst(id);
      }
      this.arrival = arrival;
      return Number(id);
    }
  }

  // Each thread's first id: the lowest of them is the process's first (another thread's first may
  // be recorded before it, though issued after it).
  lowerFirst(id) {
    for (;;) {
      const first = Atomics.load(this.cells, 1);
      if (first !== 0n && first <= id) return;
      if (Atomics.compareExchange(this.cells, 1, first, id) === first) return;
    }
  }

  // Did this process issue it (an id in its range)?
  issued(id) {
    const first = Atomics.load(this.cells, 1);
    return first !== 0n && id >= Number(first) && id <= Number(Atomics.load(this.cells, 0));
  }
}

module.exports = { IdSource, SharedIdSource };
