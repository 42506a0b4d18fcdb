'use strict';
// The parent's side of the engines: starts their hosts (a child process per
// engine, or with WORKERS=threads WORKER_THREADS worker threads, engine e on
// worker e mod WORKER_THREADS: engine-hosts.js, engine-child.js), routes each
// order to the engine that owns its product, counts each engine's pending
// orders (sent but not yet joined) against INBOX_LIMIT, notices a host that
// dies and starts a replacement for it and its engines, and drains them all on
// shutdown. "child" below is either kind of host.
//
// With several HTTP threads (LISTENERS, threads only) each engine has a ring
// per HTTP thread and one pending count in shared memory, which every HTTP
// thread raises as it accepts an order and the engine lowers as it takes
// them: the inbox limit holds over all of them at once. The pool is the first
// HTTP thread's side; the others get their rings and a port to the host from
// the 'hostReady' event (http-threads.js).
//
// Events: 'sales' (flat [poId, soId, quantity, ...] of this thread's orders,
// engine, sales stored), 'timedOut' (ids, engine), 'lost' (engine): a host
// died with the engine's market; 'hostReady' (host index, [{engine, rings,
// pending}], ports: one per further HTTP thread).
const path = require('node:path');
const { MessageChannel } = require('node:worker_threads');
const { startEngineHost } = require('./engine-hosts');
const { OrderRing } = require('./order-ring');
const { defaultWorkerThreads } = require('./config');
const EventEmitter = require('node:events');

const CHILD = path.join(__dirname, 'engine-child.js');
const RESPAWN_DELAY_MS = 100;
// A child that dies soon after its start (a broken setup, not a one-off
// crash) is respawned with a growing pause, not in a tight loop.
const RESPAWN_DELAY_MAX_MS = 5000;
const SHORT_LIFE_MS = 2000;

// How many hosts, and which engines each runs: a child per engine, or the engines spread over the workers.
function hostCount(config) {
  if (config.workers !== 'threads') return config.engines;
  return Math.min(config.engines, config.workerThreads ?? defaultWorkerThreads(config.engines));
}

class EnginePool extends EventEmitter {
  constructor(config, { silent = false } = {}) {
    super();
    this.config = config;
    this.listeners = config.workers === 'threads' ? config.listeners || 1 : 1;
    this.silent = silent; // tests keep the children's stderr to themselves
    this.draining = false;
    this.engines = [];
    this.hosts = [];
    for (let h = 0; h < hostCount(config); h++) {
      this.hosts.push({ index: h, child: null, engines: [], spawnedAt: 0, youngDeaths: 0, respawnDelay: RESPAWN_DELAY_MS });
    }
    for (let i = 0; i < config.engines; i++) {
      const host = this.hosts[i % this.hosts.length];
      const e = {
        index: i, host, child: null, ready: false, queue: [], queued: 0, sent: 0, joined: 0, ring: null, drainAsked: false,
        more: [], pending: null,
        accepted: 0, open: 0, cycles: 0, cyclesBefore: 0, failures: 0, failuresBefore: 0, salesPersisted: 0, restarts: 0,
      };
      host.engines.push(e);
      this.engines.push(e);
    }
    this.flushScheduled = false;
  }

  // Resolves once every host said it is ready.
  start() {
    return Promise.all(this.hosts.map((h) => this.spawn(h)));
  }

  engineOf(productId) {
    return this.engines[productId % this.engines.length];
  }

  spawn(host) {
    // A worker thread finds each engine's orders in a ring of shared memory (order-ring.js); a child
    // process gets them over IPC, one flat array per event-loop turn (flush).
    const threads = this.config.workers === 'threads';
    const shared = this.listeners > 1;
    for (const e of host.engines) {
      e.ring = threads ? OrderRing.create(this.config.inboxLimit) : null;
      e.more = shared ? Array.from({ length: this.listeners - 1 }, () => OrderRing.create(this.config.inboxLimit)) : [];
      e.pending = shared ? new Int32Array(new SharedArrayBuffer(4)) : null;
      e.ready = false;
      e.drainAsked = false;
      e.queue = [];
      e.queued = 0;
      e.sent = 0;
      e.joined = 0;
      e.open = 0;
    }
    // A port per further HTTP thread: the host reports the sales of that thread's orders on it.
    const channels = shared ? Array.from({ length: this.listeners - 1 }, () => new MessageChannel()) : [];
    const settings = {
      engines: host.engines.map((e) => ({
        engine: e.index, orders: e.ring ? e.ring.buffer : null,
        ...(shared ? { more: e.more.map((r) => r.buffer), pending: e.pending.buffer } : {}),
      })),
      listeners: channels.map((c) => c.port1),
      delayMs: this.config.delayMs, timeoutMs: this.config.timeoutMs, persist: this.config.persist, db: this.config.db,
    };
    const child = startEngineHost(this.config.workers, CHILD, settings,
      { silent: this.silent, transferList: channels.map((c) => c.port1) });
    host.ports = channels.map((c) => c.port2);
    host.child = child;
    host.spawnedAt = Date.now();
    for (const e of host.engines) e.child = child;
    return new Promise((resolve) => {
      child.on('message', (msg) => this.onMessage(host, child, msg, resolve));
      child.on('exit', (code, signal) => this.onExit(host, child, code, signal, resolve));
    });
  }

  // eslint-disable-next-line complexity -- one case per message a child sends (the protocol's), each a line or two
  onMessage(host, child, msg, resolveReady) {
    if (host.child !== child) return;
    switch (msg.t) {
      case 'ready':
        for (const e of host.engines) e.ready = true;
        if (this.listeners > 1) {
          this.emit('hostReady', host.index, host.engines.map((e) => ({ engine: e.index, rings: e.more.map((r) => r.buffer), pending: e.pending.buffer })),
            host.ports);
        }
        resolveReady();
        break;
      case 'report':
        for (const r of msg.reports) this.onReport(this.engines[r.engine], r);
        break;
      case 'failure':
        for (const r of msg.reports) {
          const e = this.engines[r.engine];
          e.failures = e.failuresBefore + r.failures;
          e.joined += r.joined;
          e.open = r.open;
          if (e.queued > 0 && e.ring) this.refillRing(e);
        }
        break;
      case 'drained':
        for (const r of msg.reports) this.engines[r.engine].open = r.open;
        break;
      default:
        break;
    }
  }

  onReport(e, r) {
    e.joined += r.joined;
    e.open = r.open;
    e.cycles = e.cyclesBefore + r.cycles;
    e.failures = e.failuresBefore + r.failures;
    if (r.sold) {
      e.salesPersisted += r.sold;
      this.emit('sales', r.sales, e.index, r.sold);
    }
    if (r.timedOut.length) this.emit('timedOut', r.timedOut, e.index);
    // The worker's cycle emptied the ring: room for what did not fit.
    if (e.queued > 0 && e.ring) this.refillRing(e);
  }

  onExit(host, child, code, signal, resolveReady) {
    if (host.child !== child) return;
    host.child = null;
    for (const e of host.engines) {
      e.child = null;
      e.ready = false;
      // Counters of a replaced host carry on from where the dead one stopped.
      e.failuresBefore = e.failures;
      e.cyclesBefore = e.cycles;
    }
    if (this.draining) {
      for (const e of host.engines) this.emit('exited', e.index, code);
      return;
    }
    // A host died: its engines' markets (orders not yet stored as sales) are
    // gone. Their products answer 503 until the replacement says it is ready.
    host.youngDeaths = Date.now() - host.spawnedAt < SHORT_LIFE_MS ? host.youngDeaths + 1 : 0;
    host.respawnDelay = Math.min(RESPAWN_DELAY_MS * 2 ** Math.max(0, host.youngDeaths - 1), RESPAWN_DELAY_MAX_MS);
    const which = host.engines.map((e) => e.index).join(',');
    process.stderr.write(`engine ${which} died (${signal || `exit code ${code}`}); a new host starts in ${host.respawnDelay} ms\n`);
    for (const e of host.engines) {
      e.restarts++;
      e.queue = [];
      e.queued = 0;
      e.sent = 0;
      e.joined = 0;
      e.open = 0;
      e.ring = null;
      e.more = [];
      e.pending = null;
      this.emit('lost', e.index);
    }
    resolveReady(); // start() must not wait for a host that is gone
    setTimeout(() => { if (!this.draining) this.spawn(host); }, host.respawnDelay);
  }

  // May engine e take one more order? 'ok' | 'unavailable' (no ready child) | 'overloaded' (INBOX_LIMIT).
  // With several HTTP threads the pending count is shared: 'ok' takes its place in the inbox
  // at once (raised, then checked), so two threads cannot both take the last one.
  check(e) {
    if (!e.ready) return 'unavailable';
    if (e.pending) return reserve(e.pending, this.config.inboxLimit);
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
    if (e.queued === 0 && e.drainAsked) e.child.send({ t: 'drain', engine: e.index });
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
    if (e.pending) return Atomics.load(e.pending, 0);
    return e.queued + e.sent - e.joined;
  }

  // Kills the host of engine `index` (a worker takes the engines it runs with it).
  kill(index, signal = 'SIGKILL') {
    const e = this.engines[index];
    if (e.child) e.child.kill(signal);
  }

  // Stop: every engine joins what it was sent and stores its sales, and its host exits.
  drain() {
    this.draining = true;
    this.flush();
    // Done with a host when it says 'drained' (sent after its last report,
    // so every report is in) or, should it crash meanwhile, when it exits.
    const waits = this.hosts.map((host) => new Promise((resolve) => {
      const child = host.child;
      if (!child) return resolve();
      child.on('message', (msg) => { if (msg.t === 'drained') resolve(); });
      child.once('exit', () => setTimeout(resolve, 50));
      for (const e of host.engines) {
        // A worker stops an engine once its ring is empty: told only when every order is in it.
        if (e.queued > 0) e.drainAsked = true;
        else child.send({ t: 'drain', engine: e.index });
      }
    }));
    return Promise.all(waits);
  }

  // acceptedElsewhere(index): the engine's orders accepted by the other HTTP threads (LISTENERS).
  stats(acceptedElsewhere = () => 0) {
    return this.engines.map((e) => ({
      engine: e.index, accepted: e.accepted + acceptedElsewhere(e.index), openOrders: e.open, pendingOrders: this.pendingOf(e),
      salesPersisted: e.salesPersisted, cycles: e.cycles, persistenceFailures: e.failures,
    }));
  }
}

// One place in an engine's inbox, shared by several HTTP threads: 'ok' (taken) or 'overloaded'.
function reserve(pending, limit) {
  if (Atomics.add(pending, 0, 1) < limit) return 'ok';
  Atomics.sub(pending, 0, 1);
  return 'overloaded';
}

module.exports = { EnginePool, reserve };
