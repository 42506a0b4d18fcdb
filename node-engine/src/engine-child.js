'use strict';
// One engine: a child process forked by the parent, or a worker thread of it
// (WORKERS, engine-hosts.js). It owns the market of the products i with
// i mod ENGINES = its index, receives their orders from the parent (over IPC,
// or the worker's MessagePort), runs a cycle every DELAY_MS and stores each
// cycle's sales before it starts the next. What happened goes back to the
// parent only after the sales are stored (contract section 1, step 4).
//
// Orders: a worker thread takes them from its ring (order-ring.js) as each cycle
// starts; a child process gets them in messages.
// Messages from the parent: {t: 'orders', list: flat orders (submitAll)}, {t: 'drain'}.
// Messages to the parent:   {t: 'ready'}, {t: 'report', ...}, {t: 'failure', ...},
//                            {t: 'drained'}.
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

function runEngine(settings, parent = processParent()) {
  const { engine, delayMs, timeoutMs, persist, db, orders } = settings;
  const market = new Market({ timeoutMs });
  const ring = orders ? new OrderRing(orders) : null;
  const submit = (order) => market.submit(order);
  // Cycles run one after the other, so one connection is all a cycle uses;
  // the second one serves a retry while a broken one is being closed.
  const pool = createPool(db, { connectionLimit: Math.min(db.poolSize, 2) });
  let cycles = 0;
  let failures = 0;
  let draining = false;
  let lastReport = 0;

  let timer = null; // the pause between two cycles (null while a cycle runs)
  const drainNow = () => {
    draining = true;
    // Shutting down must not wait out a long DELAY_MS: next cycle now.
    if (timer) { clearTimeout(timer); timer = null; loop(); }
  };
  parent.onMessage((msg) => {
    if (msg.t === 'orders') submitAll(market, msg.list);
    else if (msg.t === 'drain') drainNow();
  });
  parent.ignoreSignals();
  parent.onGone(drainNow);

  const send = (msg) => parent.send(msg);

  async function loop() {
    timer = null;
    if (ring) ring.takeAll(submit);
    const r = market.cycle(Date.now());
    cycles++;
    let joinedUntold = r.joined;
    if (r.sales.length > 0) {
      await storeSales(pool, persist, r.sales, {
        onFailure: (err, count) => {
          failures++;
          // Told at once, with the orders this cycle joined: while the cycle
          // waits out an outage, /stats and the inbox limit must see it.
          send({ t: 'failure', failures, joined: joinedUntold, open: market.openCount });
          joinedUntold = 0;
          // One line per failed attempt: retries back off, so this stays readable.
          process.stderr.write(`engine ${engine}: storing ${count} sales failed (${err && err.code ? err.code : err && err.message}); retrying\n`);
        },
      });
    }
    const now = Date.now();
    if (joinedUntold || r.sales.length || r.timedOut.length || now - lastReport >= IDLE_REPORT_MS) {
      lastReport = now;
      const sales = new Array(r.sales.length * 3);
      r.sales.forEach((s, i) => { sales[3 * i] = s.poId; sales[3 * i + 1] = s.soId; sales[3 * i + 2] = s.quantity; });
      send({ t: 'report', joined: joinedUntold, sales, timedOut: r.timedOut, open: market.openCount, cycles, failures });
    }
    if (draining && market.pendingCount === 0 && (!ring || ring.isEmpty())) return finish();
    timer = setTimeout(loop, delayMs);
  }

  async function finish() {
    await pool.end().catch(() => {});
    parent.send({ t: 'drained', open: market.openCount }, () => parent.exit());
  }

  send({ t: 'ready' });
  timer = setTimeout(loop, 0);
}

if (!isMainThread && workerData && workerData.engine !== undefined) {
  runEngine(workerData, threadParent());
} else if (require.main === module) {
  runEngine(JSON.parse(process.argv[2]));
}

module.exports = { runEngine };
