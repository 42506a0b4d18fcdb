'use strict';
// Order ids (docs/contract.md): max(last id + 1, now in microseconds), and at
// start at least the largest id in SALES + 1. They increase in the order of
// acceptance, are not reused after a restart, and stay below 2^53.
const { performance } = require('node:perf_hooks');

class IdSource {
  constructor(floor = 0) {
    this.last = floor - 1;
  }

  raiseFloor(floor) {
    this.last = Math.max(this.last, floor - 1);
  }

  next() {
    const now = Math.floor((performance.timeOrigin + performance.now()) * 1000);
    this.last = Math.max(this.last + 1, now);
    return this.last;
  }
}

module.exports = { IdSource };
