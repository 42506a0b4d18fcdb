'use strict';
// WORKERS=threads with fewer workers than engines (WORKER_THREADS): engine e runs on worker
// e mod WORKER_THREADS, each engine keeps its own market, a worker stores the sales of all its
// engines' cycles before any of them cycles again (batch: in one INSERT), and a worker that dies
// takes its engines with it, not the others'. These run with threads whatever WORKERS says.
const test = require('node:test');
const assert = require('node:assert/strict');
const os = require('node:os');
const { loadConfig, ConfigError, defaultWorkerThreads } = require('../src/config');
const { createPool } = require('../src/db');
const { runEngines } = require('../src/engine-child');
const { OrderRing } = require('../src/order-ring');
const { testDb, call, waitFor, withService, breakableProxy } = require('../test-support/helpers');

const db = testDb();
const skip = db ? false : 'DB_HOST/DB_PORT/DB_USER/DB_PASSWORD not set (TB_REQUIRE_DB=1 makes this a failure)';

test('WORKER_THREADS: by default the cores but the HTTP thread\'s, at least one, at most ENGINES; bad values refused', () => {
  const cores = os.availableParallelism();
  assert.equal(loadConfig({ ENGINES: '64' }).workerThreads, Math.max(1, Math.min(64, cores - 1)));
  assert.equal(loadConfig({ ENGINES: '1' }).workerThreads, 1);
  assert.deepEqual([1, 2, 3, 8].map((c) => defaultWorkerThreads(6, c)), [1, 1, 2, 6]);
  assert.equal(defaultWorkerThreads(2, 16), 2);
  assert.equal(loadConfig({ ENGINES: '6', WORKER_THREADS: '3' }).workerThreads, 3);
  assert.equal(loadConfig({ ENGINES: '2', WORKER_THREADS: '5' }).workerThreads, 2);
  for (const bad of ['0', '-1', 'two', '1.5']) assert.throws(() => loadConfig({ WORKER_THREADS: bad }), ConfigError, bad);
});

test('engine e runs on worker e mod WORKER_THREADS; each engine keeps its own market', () =>
  withService({ workers: 'threads', engines: 4, workerThreads: 2, products: 8 }, async (url, service) => {
    const hosts = service.engines.engines.map((e) => e.child);
    assert.equal(new Set(hosts).size, 2);
    assert.equal(hosts[0], hosts[2]);
    assert.equal(hosts[1], hosts[3]);
    assert.notEqual(hosts[0], hosts[1]);
    assert.ok(hosts.every((h) => h.kind === 'thread'));
    // products 0 and 2 belong to engines 0 and 2, on the same worker: neither sees the other's order
    assert.equal((await call(url, 'POST', '/sell?userId=s&productId=0&quantity=1&price=1')).status, 202);
    assert.equal((await call(url, 'POST', '/buy?userId=b&productId=2&quantity=1')).status, 202);
    assert.equal((await call(url, 'POST', '/buy?userId=b&productId=6&quantity=1')).status, 202);
    await waitFor(() => {
      const open = service.engines.stats().map((e) => e.openOrders);
      return open[0] === 1 && open[2] === 2;
    }, { what: 'engine 0 to hold the sell, engine 2 the buys' });
    const open = service.engines.stats().map((e) => e.openOrders);
    assert.deepEqual(open, [1, 0, 2, 0]);
    assert.equal(service.engines.stats()[0].salesPersisted + service.engines.stats()[2].salesPersisted, 0);
  }));

// Two engines on one host, their orders in their rings before the first tick: what the host did.
async function oneHost(persist, proxy, orders) {
  const rings = [OrderRing.create(100), OrderRing.create(100)];
  const messages = [];
  const parent = {
    onGone: () => {}, ignoreSignals: () => {}, exit: () => {},
    send: (msg, done) => { messages.push({ at: Date.now(), msg }); if (done) done(); },
  };
  const started = Date.now();
  let drain = null;
  parent.onMessage = (fn) => { drain = () => fn({ t: 'drain' }); };
  runEngines({
    engines: [{ engine: 0, orders: rings[0].buffer }, { engine: 2, orders: rings[1].buffer }],
    delayMs: 1, timeoutMs: 60000, persist, db: { ...db, port: proxy.port },
  }, parent);
  orders.forEach((o) => rings[o.engine === 0 ? 0 : 1].push(o.order));
  await waitFor(() => messages.some((m) => m.msg.t === 'report'), { what: 'the first report' });
  drain();
  await waitFor(() => messages.some((m) => m.msg.t === 'drained'), { what: 'the host to drain' });
  return { started, messages };
}

function crossingOrders(firstId) {
  // engine 0 trades product 0, engine 2 product 2: one sale each
  const at = Date.now();
  const order = (id, side, userId, productId) => ({ id, side, userId, productId: String(productId), quantity: 1, priceCents: side === 'sell' ? 100 : null, arrival: at });
  return [
    { engine: 0, order: order(firstId, 'sell', 's0', 0) }, { engine: 0, order: order(firstId + 1, 'buy', 'b0', 0) },
    { engine: 2, order: order(firstId + 2, 'sell', 's2', 2) }, { engine: 2, order: order(firstId + 3, 'buy', 'b2', 2) },
  ];
}

for (const persist of ['batch', 'per-sale']) {
  test(`${persist}: a worker stores both engines' sales once, before either engine cycles again or the parent hears of them`,
    { skip, timeout: 20000 }, async () => {
      const check = createPool(db);
      const proxy = await breakableProxy(db);
      try {
        const firstId = 9_000_000_000 + (persist === 'batch' ? 0 : 100);
        await check.query('DELETE FROM SALES WHERE PO_ID IN (?)', [[firstId + 1, firstId + 3]]);
        proxy.delayMs = 150; // a slow database: the store takes a while
        const { started, messages } = await oneHost(persist, proxy, crossingOrders(firstId));
        const first = messages.find((m) => m.msg.t === 'report');
        // one report for both engines, sent after the store, each engine at its first cycle still
        assert.ok(first.at - started >= 150, `the report came ${first.at - started} ms after the start`);
        const byEngine = Object.fromEntries(first.msg.reports.map((r) => [r.engine, r]));
        assert.deepEqual(byEngine[0].sales, [firstId + 1, firstId, 1]);
        assert.deepEqual(byEngine[2].sales, [firstId + 3, firstId + 2, 1]);
        assert.equal(byEngine[0].cycles, 1);
        assert.equal(byEngine[2].cycles, 1);
        const [rows] = await check.query('SELECT PO_ID, SO_ID, PRODUCT_ID, CREATED FROM SALES WHERE PO_ID IN (?) ORDER BY PO_ID',
          [[firstId + 1, firstId + 3]]);
        assert.deepEqual(rows.map((r) => [r.PO_ID, r.SO_ID, r.PRODUCT_ID]), [[firstId + 1, firstId, '0'], [firstId + 3, firstId + 2, '2']]);
        // batch: one INSERT for the two engines; per-sale: each engine on a connection of its own
        // (each prepares the INSERT there), the two side by side: two in flight at once
        assert.equal(proxy.inserts, persist === 'batch' ? 1 : 2);
        assert.equal(proxy.mostAwaiting, persist === 'batch' ? 1 : 2);
      } finally {
        await proxy.close();
        await check.end();
      }
    });
}

test('a worker that dies takes its engines with it: they answer 503 and come back together; the other worker\'s engines trade on',
  () => withService({ workers: 'threads', engines: 4, workerThreads: 2, products: 8, faults: true }, async (url, service) => {
    const engines = service.engines.engines;
    const before = engines.map((e) => e.child);
    const kept = (await call(url, 'POST', '/sell?userId=s&productId=1&quantity=1&price=1')).json.id;
    const lost = (await call(url, 'POST', '/sell?userId=s&productId=2&quantity=1&price=1')).json.id;
    await waitFor(() => service.engines.stats()[1].openOrders === 1 && service.engines.stats()[2].openOrders === 1,
      { what: 'engines 1 and 2 to hold their orders' });
    const r = await call(url, 'POST', '/faults/crash-engine?engine=0');
    assert.equal(r.status, 202);
    await waitFor(() => engines[0].restarts === 1 && engines[2].restarts === 1, { what: 'engines 0 and 2 to be noticed dead' });
    assert.deepEqual(engines.map((e) => e.restarts), [1, 0, 1, 0]);
    // until their worker is replaced, engines 0 and 2 answer 503; engines 1 and 3 take orders throughout
    const down = await call(url, 'POST', '/sell?userId=s&productId=2&quantity=1&price=1');
    assert.equal(down.status, 503);
    assert.deepEqual(down.json, { error: 'engine unavailable' });
    assert.equal((await call(url, 'POST', '/buy?userId=b&productId=3&quantity=1')).status, 202);
    assert.equal((await call(url, 'GET', `/orders/${lost}`)).json.status, 'unknown');
    assert.equal((await call(url, 'GET', `/orders/${kept}`)).json.status, 'open');
    await waitFor(async () => (await call(url, 'POST', '/sell?userId=s&productId=0&quantity=1&price=1')).status === 202,
      { what: 'engine 0 replaced' });
    assert.equal(engines[0].child, engines[2].child);
    assert.notEqual(engines[0].child, before[0]);
    assert.equal(engines[1].child, before[1]);
    assert.equal(engines[3].child, before[3]);
    assert.equal(service.engines.stats()[1].openOrders, 1);
  }));
