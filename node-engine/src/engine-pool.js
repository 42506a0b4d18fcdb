'use strict';
// The parent's side of the engines: starts one engine per ENGINES (a child
// process, or a worker thread with WORKERS=threads: engine-hosts.js), routes
// each order to the engine that owns its product, counts each engine's pending
// orders (sent but not yet joined) against INBOX_LIMIT, notices an engine that
// dies and starts a replacement, and drains them all on shutdown. "child"
// below is either kind of host.
//
// Events: 'sales' (flat [poId, soId, quantity, ...], engine), 'timedOut'
// (ids, engine), 'lost' (engine): a child died with its market.
const path = require('node:path');
const { startEngineHost } = require('./engine-hosts');
const { OrderRing } = require('./order-ring');
const EventEmitter = require('node:events');

const CHILD = path.join(__dirname, 'engine-child.js');
const RESPAWN_DELAY_MS = 100;
// A child that dies soon after its start (a broken setup, not a one-off
// crash) is respawned with a growing pause, not in a tight loop.
const RESPAWN_DELAY_MAX_MS = 5000;
const SHORT_LIFE_MS = 2000;

class EnginePool extends EventEmitter {
  constructor(config, { silent = false } = {}) {
    super();
    this.config = config;
    this.silent = silent; // tests keep the children's stderr to themselves
    this.draining = false;
    this.engines = [];
    for (let i = 0; i < config.engines; i++) {
      this.engines.push({
        index: i, child: null, ready: false, queue: [], queued: 0, sent: 0, joined: 0, ring: null, drainAsked: false,
        accepted: 0, open: 0, cycles: 0, cyclesBefore: 0, failures: 0, failuresBefore: 0, salesPersisted: 0, restarts: 0,
        spawnedAt: 0, youngDeaths: 0, respawnDelay: RESPAWN_DELAY_MS,
      });
    }
    this.flushScheduled = false;
  }

  // Resolves once every child said it is ready.
  start() {
    return Promise.all(this.engines.map((e) => this.spawn(e)));
  }

  engineOf(productId) {
    return this.engines[productId % this.engines.length];
  }

  spawn(e) {
    // A worker thread finds its orders in a ring of shared memory (order-ring.js); a child
    // process gets them over IPC, one flat array per event-loop turn (flush).
    e.ring = this.config.workers === 'threads' ? OrderRing.create(this.config.inboxLimit) : null;
    const settings = {
      engine: e.index, delayMs: this.config.delayMs, timeoutMs: this.config.timeoutMs,
      persist: this.config.persist, db: this.config.db, orders: e.ring ? e.ring.buffer : null,
    };
    const child = startEngineHost(this.config.workers, CHILD, settings, { silent: this.silent });
    e.child = child;
    e.spawnedAt = Date.now();
    e.ready = false;
    e.drainAsked = false;
    e.queue = [];
    e.queued = 0;
    e.sent = 0;
    e.joined = 0;
    e.open = 0;
    return new Promise((resolve) => {
      child.on('message', (msg) => this.onMessage(e, child, msg, resolve));
      child.on('exit', (code, signal) => this.onExit(e, child, code, signal, resolve));
    });
  }

  onMessage(e, child, msg, resolveReady) {
    if (e.child !== child) return;
    switch (msg.t) {
      case 'ready':
        e.ready = true;
        resolveReady();
        break;
      case 'report':
        e.joined += msg.joined;
        e.open = msg.open;
        e.cycles = e.cyclesBefore + msg.cycles;
        e.failures = e.failuresBefore + msg.failures;
        if (msg.sales.length) {
          e.salesPersisted += msg.sales.length / 3;
          this.emit('sales', msg.sales, e.index);
        }
        if (msg.timedOut.length) this.emit('timedOut', msg.timedOut, e.index);
        // The worker's cycle emptied its ring: room for what did not fit.
        if (e.queued > 0 && e.ring) this.refillRing(e);
        break;
      case 'failure':
        e.failures = e.failuresBefore + msg.failures;
        e.joined += msg.joined;
        e.open = msg.open;
        if (e.queued > 0 && e.ring) this.refillRing(e);
        break;
      case 'drained':
        e.open = msg.open;
        break;
      default:
        break;
    }
  }

  onExit(e, child, code, signal, resolveReady) {
    if (e.child !== child) return;
    e.child = null;
    e.ready = false;
    // Counters of a replaced child carry on from where the dead one stopped.
    e.failuresBefore = e.failures;
    e.cyclesBefore = e.cycles;
    if (this.draining) {
      this.emit('exited', e.index, code);
      return;
    }
    // A child died: its market (orders not yet stored as sales) is gone. Its
    // products answer 503 until the replacement says it is ready.
    e.youngDeaths = Date.now() - e.spawnedAt < SHORT_LIFE_MS ? e.youngDeaths + 1 : 0;
    e.respawnDelay = Math.min(RESPAWN_DELAY_MS * 2 ** Math.max(0, e.youngDeaths - 1), RESPAWN_DELAY_MAX_MS);
    process.stderr.write(`engine ${e.index} died (${signal || `exit code ${code}`}); a new one starts in ${e.respawnDelay} ms\n`);
    e.restarts++;
    e.queue = [];
    e.queued = 0;
    e.sent = 0;
    e.joined = 0;
    e.open = 0;
    e.ring = null;
    this.emit('lost', e.index);
    resolveReady(); // start() must not wait for a child that is gone
    setTimeout(() => { if (!this.draining) this.spawn(e); }, e.respawnDelay);
  }

  // May engine e take one more order? 'ok' | 'unavailable' (no ready child) | 'overloaded' (INBOX_LIMIT).
  check(e) {
    if (!e.ready) return 'unavailable';
    if (this.pendingOf(e) >= this.config.inboxLimit) return 'overloaded';
    return 'ok';
  }

  // Hands the order to its engine. A worker's ring takes it at once (what does
  // not fit waits in e.queue, in order, until the worker's next report). A
  // child's orders are queued and flushed once per event-loop turn, so a burst
  // of requests costs one IPC message per engine; an order travels as 7 values
  // of one flat array (engine-child.js submitAll reads them back): no key
  // names to write and parse per order.
  send(e, order) {
    e.accepted++;
    if (e.ring) {
      if (e.queued === 0 && e.ring.push(order)) e.sent++;
      else { e.queue.push(order); e.queued++; }
      return;
    }
    e.queue.push(order.id, order.side === 'sell' ? 1 : 0, order.userId, order.productId,
      order.quantity, order.priceCents, order.arrival);
    e.queued++;
    if (!this.flushScheduled) {
      this.flushScheduled = true;
      setImmediate(() => this.flush());
    }
  }

  refillRing(e) {
    let i = 0;
    while (i < e.queue.length && e.ring.push(e.queue[i])) i++;
    e.queue = i === e.queue.length ? [] : e.queue.slice(i);
    e.queued -= i;
    e.sent += i;
    if (e.queued === 0 && e.drainAsked) e.child.send({ t: 'drain' });
  }

  flush() {
    this.flushScheduled = false;
    for (const e of this.engines) {
      if (e.queued === 0 || !e.child || e.ring) continue;
      e.sent += e.queued;
      e.child.send({ t: 'orders', list: e.queue });
      e.queue = [];
      e.queued = 0;
    }
  }

  pendingOf(e) {
    return e.queued + e.sent - e.joined;
  }

  kill(index, signal = 'SIGKILL') {
    const e = this.engines[index];
    if (e.child) e.child.kill(signal);
  }

  // Stop: every child joins what it was sent, stores its sales, and exits.
  drain() {
    this.draining = true;
    this.flush();
    // Done with a child when it says 'drained' (sent after its last report,
    // so every report is in) or, should it crash meanwhile, when it exits.
    const waits = this.engines.map((e) => new Promise((resolve) => {
      const child = e.child;
      if (!child) return resolve();
      child.on('message', (msg) => { if (msg.t === 'drained') resolve(); });
      child.once('exit', () => setTimeout(resolve, 50));
      // A worker stops once its ring is empty: told only when every order is in it.
      if (e.queued > 0) e.drainAsked = true;
      else child.send({ t: 'drain' });
    }));
    return Promise.all(waits);
  }

  stats() {
    return this.engines.map((e) => ({
      engine: e.index, accepted: e.accepted, openOrders: e.open, pendingOrders: this.pendingOf(e),
      salesPersisted: e.salesPersisted, cycles: e.cycles, persistenceFailures: e.failures,
    }));
  }
}

module.exports = { EnginePool };
