'use strict';
// The parent's counters, GET /stats and the stats line (docs/contract-details.md).
const _ = require('underscore');

const WINDOW_S = 60;
const PER_THREAD = ['accepted', 'rejected', 'overloaded'];

// The order counters of one HTTP thread among several (LISTENERS), in shared memory so that the
// main thread's /stats, stats line and exit line count every thread's orders: per thread
// accepted, rejected, overloaded, then its orders accepted per engine. Each cell has one
// writer, its thread; a reader may see a count a moment old, never a mixed one (V8 writes an
// aligned float64 with one store on the 64-bit machines it runs on).
class Tally {
  static buffer(listeners, engines) {
    return new SharedArrayBuffer(listeners * (PER_THREAD.length + engines) * 8);
  }

  constructor(buffer, listener, engines) {
    this.cells = new Float64Array(buffer);
    this.width = PER_THREAD.length + engines;
    this.base = listener * this.width;
    this.listeners = this.cells.length / this.width;
  }

  get accepted() { return this.cells[this.base]; }
  set accepted(v) { this.cells[this.base] = v; }
  get rejected() { return this.cells[this.base + 1]; }
  set rejected(v) { this.cells[this.base + 1] = v; }
  get overloaded() { return this.cells[this.base + 2]; }
  set overloaded(v) { this.cells[this.base + 2] = v; }

  acceptedBy(engine) { this.cells[this.base + PER_THREAD.length + engine]++; }

  // Over every thread but `except`: a counter's sum, or an engine's accepted orders.
  sum(counter, except = -1) {
    const at = PER_THREAD.indexOf(counter);
    let total = 0;
    for (let k = 0; k < this.listeners; k++) if (k !== except) total += this.cells[k * this.width + at];
    return total;
  }

  engineSum(engine, except = -1) {
    let total = 0;
    for (let k = 0; k < this.listeners; k++) {
      if (k !== except) total += this.cells[k * this.width + PER_THREAD.length + engine];
    }
    return total;
  }
}

class Stats {
  // tally: with several HTTP threads, their counters (this object's own then stay at 0).
  constructor(variant = 'node-engine', tally = null) {
    this.variant = variant;
    this.started = Date.now();
    this.tally = tally;
    this.own = { accepted: 0, rejected: 0, overloaded: 0 };
    this.salesPersisted = 0;
    // sales stored per second over the last minute: a ring of 60 buckets
    this.buckets = new Array(WINDOW_S).fill(0);
    this.bucketSecond = new Array(WINDOW_S).fill(0);
  }

  addSales(count, now = Date.now()) {
    this.salesPersisted += count;
    const second = Math.floor(now / 1000);
    const i = second % WINDOW_S;
    if (this.bucketSecond[i] !== second) { this.bucketSecond[i] = second; this.buckets[i] = 0; }
    this.buckets[i] += count;
  }

  salesLastMinute(now = Date.now()) {
    const second = Math.floor(now / 1000);
    let sum = 0;
    for (let i = 0; i < WINDOW_S; i++) {
      if (second - this.bucketSecond[i] < WINDOW_S) sum += this.buckets[i];
    }
    return sum;
  }

  snapshot(engines) {
    const sum = (key) => _.reduce(engines, (total, e) => total + e[key], 0);
    return {
      variant: this.variant,
      uptimeMs: Date.now() - this.started,
      accepted: this.accepted,
      rejected: this.rejected,
      overloaded: this.overloaded,
      salesPersisted: this.salesPersisted,
      salesLastMinute: this.salesLastMinute(),
      persistenceFailures: sum('persistenceFailures'),
      openOrders: sum('openOrders'),
      pendingOrders: sum('pendingOrders'),
      engines,
    };
  }

  line(engines) {
    const s = this.snapshot(engines);
    return `stats variant=${s.variant} accepted=${s.accepted} rejected=${s.rejected} overloaded=${s.overloaded} ` +
      `sales=${s.salesPersisted} salesLastMinute=${s.salesLastMinute} open=${s.openOrders} ` +
      `pending=${s.pendingOrders} failures=${s.persistenceFailures}`;
  }
}

for (const counter of PER_THREAD) {
  Object.defineProperty(Stats.prototype, counter, {
    get() { return this.own[counter] + (this.tally ? this.tally.sum(counter) : 0); },
    set(v) { this.own[counter] = v - (this.tally ? this.tally.sum(counter) : 0); },
  });
}

module.exports = { Stats, Tally };
