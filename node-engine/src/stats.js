'use strict';
// The parent's counters, GET /stats and the stats line (docs/contract.md).
const _ = require('underscore');

const WINDOW_S = 60;

class Stats {
  constructor(variant = 'node-engine') {
    this.variant = variant;
    this.started = Date.now();
    this.accepted = 0;
    this.rejected = 0;
    this.overloaded = 0;
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

module.exports = { Stats };
