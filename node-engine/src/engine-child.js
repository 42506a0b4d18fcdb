'use strict';
// The engines of one host: a child process forked by the parent (one engine,
// the 2014 design), or a worker thread of it (WORKERS=threads: the engines
// e with e mod WORKER_THREADS = the worker's index; engine-hosts.js). Engine i
// owns the market of the products p with p mod ENGINES = i, receives their
// orders from the parent (over IPC, or a ring in shared memory per engine),
// and runs a cycle every DELAY_MS. A host runs the cycles of all its engines
// in one tick (each engine's market on its own), stores the sales of them all,
// and only then tells the parent what happened and pauses: no engine starts
// a cycle before its previous cycle's sales are stored (contract section 1,
// step 4).
//
// Storing a tick's sales: batch, one multi-row INSERT of every engine's sales
// (one round trip for the worker, not one per engine); per-sale, each engine
// its own connection, its inserts one after another on it, the engines side
// by side: behind a slow database a worker keeps one INSERT in flight per
// engine, as the children do.
//
// Orders: a worker thread takes them from its engines' rings (order-ring.js)
// as each tick starts; a child process gets them in messages. With several
// HTTP threads (LISTENERS) an engine has a ring per HTTP thread: it takes them
// all, merged by id (ids are one sequence over the threads, so the market
// joins the orders in the order they were accepted), lowers the engine's
// shared count of pending orders by what it took, and reports each HTTP
// thread the sales and time-outs of the orders it accepted, on that thread's
// port: the HTTP thread of the main event loop in the report to the parent,
// the others in a message of their own.
// Messages from the parent: {t: 'orders', list: flat orders (submitAll)} (a
//                            child's one engine), {t: 'drain', engine?} (that
//                            engine, or all of them).
// Messages to the parent:   {t: 'ready'}, {t: 'report', reports: [per engine]},
//                            {t: 'failure', reports: [per engine]},
//                            {t: 'drained', reports: [per engine]}.
const { isMainThread, parentPort, workerData } = require('node:worker_threads');
const { Market } = require('./market');
const { createPool } = require('./db');
const { storeSales } = require('./sales-store');
const { OrderRing } = require('./order-ring');

// Heartbeat for /stats (open orders, cycles) when nothing else is reported.
const IDLE_REPORT_MS = 250;

// The parent's flat order list (engine-pool.js send): 7 values per order,
// id, side (1 sell, 0 buy), userId, productId, quantity, priceCents, arrival.
function submitAll(market, list) {
  for (let i = 0; i < list.length; i += 7) {
    market.submit({
      id: list[i], side: list[i + 1] === 1 ? 'sell' : 'buy', userId: list[i + 2], productId: list[i + 3],
      quantity: list[i + 4], priceCents: list[i + 5], arrival: list[i + 6],
    });
  }
}

// The parent, as a child process sees it: IPC. It decides when an engine stops
// (it drains us on SIGTERM/SIGINT): a Ctrl-C sent to the whole process group
// must not kill us mid-cycle; and if the parent is gone (killed), we store
// what we have and leave.
function processParent() {
  return {
    onMessage: (fn) => process.on('message', fn),
    onGone: (fn) => process.on('disconnect', fn),
    send: (msg, done) => {
      if (process.connected) process.send(msg, done);
      else if (done) done();
    },
    ignoreSignals: () => { process.on('SIGINT', () => {}); process.on('SIGTERM', () => {}); },
    exit: () => process.exit(0),
  };
}

// The parent, as a worker thread sees it: its MessagePort. Signals reach the
// process, not its threads; a worker ends with the process, so there is no
// parent to lose; process.exit() in a worker ends the worker only.
function threadParent() {
  return {
    onMessage: (fn) => parentPort.on('message', fn),
    onGone: () => {},
    send: (msg, done) => { parentPort.postMessage(msg); if (done) done(); },
    ignoreSignals: () => {},
    exit: () => process.exit(0),
  };
}

// An engine of several HTTP threads: its orders from every ring, merged by id, each one's HTTP thread
// remembered until it closes; the shared pending count lowered by what joined.
function takeFromListeners(e) {
  const { orders, owner } = takeMerged(e.rings);
  if (orders.length === 0) return;
  for (let i = 0; i < orders.length; i++) {
    e.owners.set(orders[i].id, owner[i]);
    e.market.submit(orders[i]);
  }
  Atomics.sub(e.pending, 0, orders.length);
}

// Each sale [poId, soId, quantity] to the HTTP thread of its PO and to that of its SO (once when
// they are the same), each time-out to its order's: the first thread's in what is returned (the
// parent's report), the others' into forListeners[thread - 1]. Closed orders are forgotten.
function splitByListener(e, sales, timedOut, filled, forListeners) {
  const mine = { sales: [], timedOut: [] };
  const box = (k) => (k === 0 ? mine : forListeners[k - 1]);
  for (let i = 0; i < sales.length; i += 3) {
    const po = e.owners.get(sales[i]);
    const so = e.owners.get(sales[i + 1]);
    box(po).sales.push(sales[i], sales[i + 1], sales[i + 2]);
    if (so !== po) box(so).sales.push(sales[i], sales[i + 1], sales[i + 2]);
  }
  for (const id of timedOut) {
    box(e.owners.get(id)).timedOut.push(id);
    e.owners.delete(id);
  }
  for (const id of filled) e.owners.delete(id);
  return mine;
}

function ringsEmpty(e) {
  if (e.ring) return e.ring.isEmpty();
  return !e.rings || e.rings.every((ring) => ring.isEmpty());
}

// The sales of a cycle as the parent wants them: flat [poId, soId, quantity, ...].
function flatSales(sales) {
  const flat = new Array(sales.length * 3);
  for (let i = 0; i < sales.length; i++) {
    const s = sales[i];
    flat[3 * i] = s.poId; flat[3 * i + 1] = s.soId; flat[3 * i + 2] = s.quantity;
  }
  return flat;
}

// The orders of several rings (one per HTTP thread, each in id order) merged by id; owner[i] is
// the ring (the HTTP thread) order i came from.
function takeMerged(rings) {
  const lists = rings.map((ring) => {
    const list = [];
    ring.takeAll((o) => list.push(o));
    return list;
  });
  const orders = [];
  const owner = [];
  const at = lists.map(() => 0);
  for (;;) {
    let best = -1;
    for (let k = 0; k < lists.length; k++) {
      if (at[k] < lists[k].length && (best < 0 || lists[k][at[k]].id < lists[best][at[best]].id)) best = k;
    }
    if (best < 0) return { orders, owner };
    orders.push(lists[best][at[best]++]);
    owner.push(best);
  }
}

// settings.engines: [{engine: index, orders: its ring's SharedArrayBuffer or null, more: the rings of
// the other HTTP threads (LISTENERS), pending: the engine's shared pending count (with `more`)}];
// settings.listeners: a MessagePort per HTTP thread beyond the first (with `more`).
// eslint-disable-next-line max-lines-per-function -- a closure over the engines' state: most of its lines are its nested functions (tick, store), each within the rules on its own
function runEngines(settings, parent = processParent()) {
  const { delayMs, timeoutMs, persist, db } = settings;
  const listenerPorts = settings.listeners || [];
  const engines = settings.engines.map(({ engine, orders, more, pending }) => {
    const market = new Market({ timeoutMs });
    const rings = orders ? [orders, ...(more || [])].map((b) => new OrderRing(b)) : [];
    return {
      index: engine, market, ring: rings.length === 1 ? rings[0] : null, rings: rings.length > 1 ? rings : null,
      pending: pending ? new Int32Array(pending) : null, owners: new Map(),
      submit: (order) => market.submit(order), cycles: 0, failures: 0, draining: false, untold: 0, cycle: null,
    };
  });
  // An engine's cycles run one after the other, so one connection is all it
  // uses at a time; the second one serves a retry while a broken one is being closed.
  const pool = createPool(db, { connectionLimit: engines.length * Math.min(db.poolSize, 2) });
  let lastReport = 0;

  let timer = null; // the pause between two ticks (null while a tick runs)
  const drainNow = (index) => {
    for (const e of engines) if (index === undefined || e.index === index) e.draining = true;
    // Shutting down must not wait out a long DELAY_MS: next tick now.
    if (timer) { clearTimeout(timer); timer = null; tick(); }
  };
  parent.onMessage((msg) => {
    if (msg.t === 'orders') submitAll(engines[0].market, msg.list);
    else if (msg.t === 'drain') drainNow(msg.engine);
  });
  parent.ignoreSignals();
  parent.onGone(() => drainNow());

  const send = (msg) => parent.send(msg);

  // Told at once, with the orders the failing engines' cycles joined: while
  // the tick waits out an outage, /stats and the inbox limit must see it.
  const failed = (stuck) => (err, count) => {
    const reports = stuck.map((e) => {
      e.failures++;
      const r = { engine: e.index, failures: e.failures, joined: e.untold, open: e.market.openCount };
      e.untold = 0;
      return r;
    });
    send({ t: 'failure', reports });
    // One line per failed attempt: retries back off, so this stays readable.
    process.stderr.write(`engine ${stuck.map((e) => e.index).join(',')}: storing ${count} sales failed ` +
      `(${err && err.code ? err.code : err && err.message}); retrying\n`);
  };

  function store(selling) {
    if (selling.length === 0) return null;
    if (persist === 'batch') {
      const sales = selling.length === 1 ? selling[0].cycle.sales : [].concat(...selling.map((e) => e.cycle.sales));
      return storeSales(pool, persist, sales, { onFailure: failed(selling) });
    }
    if (selling.length === 1) return storeSales(pool, persist, selling[0].cycle.sales, { onFailure: failed(selling) });
    return Promise.all(selling.map((e) => storeSales(pool, persist, e.cycle.sales, { onFailure: failed([e]) })));
  }

  // eslint-disable-next-line complexity -- the engine cycle of contract section 1 in one reading, the hot path: the steps' order is the contract's
  async function tick() {
    timer = null;
    const selling = [];
    for (const e of engines) {
      if (e.ring) e.ring.takeAll(e.submit);
      else if (e.rings) takeFromListeners(e);
      e.cycle = e.market.cycle(Date.now());
      e.cycles++;
      e.untold = e.cycle.joined;
      if (e.cycle.sales.length > 0) selling.push(e);
    }
    const storing = store(selling);
    if (storing) await storing;
    const now = Date.now();
    const heartbeat = now - lastReport >= IDLE_REPORT_MS;
    const reports = [];
    const forListeners = listenerPorts.map(() => ({ sales: [], timedOut: [] }));
    for (const e of engines) {
      const r = e.cycle;
      let sales = r.sales.length ? flatSales(r.sales) : [];
      let timedOut = r.timedOut;
      if (e.rings) ({ sales, timedOut } = splitByListener(e, sales, timedOut, r.filled, forListeners));
      if (e.untold || r.sales.length || r.timedOut.length || heartbeat) {
        reports.push({
          engine: e.index, joined: e.untold, sold: r.sales.length, sales, timedOut,
          open: e.market.openCount, cycles: e.cycles, failures: e.failures,
        });
      }
      e.untold = 0;
      e.cycle = null;
    }
    if (reports.length) {
      lastReport = now;
      send({ t: 'report', reports });
    }
    forListeners.forEach((m, k) => { if (m.sales.length || m.timedOut.length) listenerPorts[k].postMessage(m); });
    if (engines.every((e) => e.draining && e.market.pendingCount === 0 && ringsEmpty(e))) return finish();
    timer = setTimeout(tick, delayMs);
  }

  async function finish() {
    for (const port of listenerPorts) port.close();
    await pool.end().catch(() => {});
    const reports = engines.map((e) => ({ engine: e.index, open: e.market.openCount }));
    parent.send({ t: 'drained', reports }, () => parent.exit());
  }

  send({ t: 'ready' });
  timer = setTimeout(tick, 0);
}

if (!isMainThread && workerData && Array.isArray(workerData.engines)) {
  runEngines(workerData, threadParent());
} else if (require.main === module) {
  runEngines(JSON.parse(process.argv[2]));
}

module.exports = { runEngines };
