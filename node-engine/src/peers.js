'use strict';
// GET /orders/{id} on any of several HTTP threads (LISTENERS): each thread remembers the orders it
// accepted (its order registry); an id it does not know is asked of the others, over a
// MessagePort per pair of threads. Only a lookup crosses threads, never an order: the load's
// requests stay on the thread that accepted them.
const ANSWER_WAIT_MS = 2000; // a thread that does not answer (it is stopping) counts as not knowing

class Peers {
  constructor(registry, ports) {
    this.registry = registry;
    this.ports = ports;
    this.asked = new Map();
    this.seq = 0;
    for (const port of ports) {
      port.on('message', (msg) => this.onMessage(port, msg));
      port.unref(); // a lookup port alone keeps no thread alive
    }
  }

  onMessage(port, msg) {
    if (msg.t === 'lookup') {
      const o = this.registry.get(msg.id);
      // A copy of the record as it is now: its status is read before the fills (order-status.js).
      port.postMessage({ t: 'found', q: msg.q, order: o ? { ...o } : null });
      return;
    }
    const wait = this.asked.get(msg.q);
    if (!wait) return;
    if (msg.order && !wait.found) wait.found = msg.order;
    if (--wait.left === 0) this.settle(msg.q, wait);
  }

  settle(q, wait) {
    this.asked.delete(q);
    clearTimeout(wait.timer);
    wait.resolve(wait.found);
  }

  // The order's record from whichever thread accepted it, or null.
  lookup(id) {
    const o = this.registry.get(id);
    if (o || this.ports.length === 0) return Promise.resolve(o || null);
    return new Promise((resolve) => {
      const q = ++this.seq;
      const wait = { left: this.ports.length, found: null, resolve, timer: null };
      wait.timer = setTimeout(() => this.settle(q, wait), ANSWER_WAIT_MS);
      this.asked.set(q, wait);
      for (const port of this.ports) port.postMessage({ t: 'lookup', q, id });
    });
  }
}

module.exports = { Peers };
