'use strict';
// One HTTP thread beyond the main one (LISTENERS, WORKERS=threads): a worker thread that listens on
// the service's port beside the others (reusePort: the kernel spreads the connections over them)
// and does for its connections what the main thread does for its own: parsing, validation, the
// id, its order registry, the 202. An order goes straight into its engine's ring for this thread
// (no message); the engines report the sales and time-outs of this thread's orders on a port of
// its own, once per tick. What is the whole service's goes through the main thread
// (http-threads.js): /stats, the engines' hosts, the fault injection's crash, SIGTERM.
const { workerData, parentPort } = require('node:worker_threads');
const { OrderRing } = require('./order-ring');
const { OrderRegistry } = require('./order-registry');
const { SharedIdSource } = require('./ids');
const { Tally } = require('./stats');
const { Peers } = require('./peers');
const { createPool } = require('./db');
const { ReadPath } = require('./read-path');
const { reserve } = require('./engine-pool');
const { clientError } = require('./handlers/errors');
const { createApp } = require('./server');

// The engines as this thread sees them: for each, its ring for this thread and the shared pending
// count (engine-pool.js, 'hostReady'). An order that does not fit the ring waits here, in order,
// and is written as soon as the engine has read some (tried again every millisecond).
class RingEngines {
  constructor(config, thread, tally, toMain) {
    this.config = config;
    this.thread = thread;
    this.tally = tally;
    this.toMain = toMain;
    this.engines = Array.from({ length: config.engines }, (_, index) => ({ index, ready: false, ring: null, pending: null, queue: [] }));
    this.retry = null;
  }

  attach({ engine, rings, pending }) {
    const e = this.engines[engine];
    e.ring = new OrderRing(rings[this.thread - 1]);
    e.pending = new Int32Array(pending);
    e.queue = [];
    e.ready = true;
  }

  // The engine's host died: its orders are gone, and so are the ones waiting here for it.
  detach(engine) {
    const e = this.engines[engine];
    e.ready = false;
    e.ring = null;
    e.pending = null;
    e.queue = [];
  }

  engineOf(productId) {
    return this.engines[productId % this.engines.length];
  }

  check(e) {
    if (!e.ready) return 'unavailable';
    return reserve(e.pending, this.config.inboxLimit);
  }

  send(e, order) {
    this.tally.acceptedBy(e.index);
    if (e.queue.length === 0 && e.ring.push(order)) return;
    e.queue.push(order);
    this.scheduleRetry();
  }

  scheduleRetry() {
    if (this.retry) return;
    this.retry = setTimeout(() => {
      this.retry = null;
      for (const e of this.engines) {
        let i = 0;
        while (i < e.queue.length && e.ring.push(e.queue[i])) i++;
        if (i > 0) e.queue = e.queue.slice(i);
      }
      if (this.waiting() > 0) this.scheduleRetry();
    }, 1);
  }

  waiting() {
    return this.engines.reduce((n, e) => n + e.queue.length, 0);
  }

  kill(index) {
    this.toMain({ t: 'kill', engine: index });
  }
}

function run() {
  const { thread, config, ids: idsBuffer, tally: tallyBuffer, peers: peerPorts, port, host } = workerData;
  const registry = new OrderRegistry();
  const ids = new SharedIdSource(idsBuffer);
  const tally = new Tally(tallyBuffer, thread, config.engines);
  const toMain = (msg) => parentPort.postMessage(msg);
  const engines = new RingEngines(config, thread, tally, toMain);
  const peers = new Peers(registry, peerPorts);
  const pool = createPool(config.db);
  const readPath = ReadPath.open(config);
  const state = { shuttingDown: false };
  const snapshots = new Map();
  let asked = 0;
  const snapshot = () => new Promise((resolve) => {
    const q = ++asked;
    snapshots.set(q, resolve);
    toMain({ t: 'stats', q });
  });
  const app = createApp({
    config, engines, registry, ids, counts: tally, state, pool, readPath, snapshot,
    lookup: (id) => peers.lookup(id), issued: (id) => ids.issued(id),
  });
  const server = app.listen({ port, host, reusePort: true });
  server.on('clientError', clientError);
  server.on('listening', () => toMain({ t: 'listening' }));
  server.on('error', (err) => toMain({ t: 'error', message: err.message }));

  // Once stopped, the main thread drains the engines: what waits here must be in the rings first.
  const stopped = () => {
    if (engines.waiting() > 0) return setTimeout(stopped, 1);
    return toMain({ t: 'stopped' });
  };
  parentPort.on('message', (msg) => {
    switch (msg.t) {
      case 'host':
        for (const e of msg.engines) engines.attach(e);
        msg.port.on('message', (r) => {
          if (r.sales.length) registry.applySales(r.sales);
          if (r.timedOut.length) registry.applyTimedOut(r.timedOut);
        });
        break;
      case 'lost':
        engines.detach(msg.engine);
        registry.forgetEngine(msg.engine);
        break;
      case 'stats':
        snapshots.get(msg.q)(msg.snapshot);
        snapshots.delete(msg.q);
        break;
      case 'stop':
        state.shuttingDown = true;
        server.close();
        server.closeIdleConnections();
        stopped();
        break;
      case 'close':
        server.closeAllConnections();
        Promise.all([pool.end().catch(() => {}), readPath.close()]).finally(() => toMain({ t: 'closed' }));
        break;
      default:
        break;
    }
  });
}

run();
