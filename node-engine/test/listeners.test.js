'use strict';
// LISTENERS: several threads answering HTTP on one port (WORKERS=threads). Every request here goes
// on a connection of its own, so the kernel spreads them over the threads as it spreads a load's
// connections; what the contract promises must hold whichever thread answers: ids that grow over
// all of them, /orders/{id} and /stats from any of them, one inbox limit per engine, a drain that
// stops them all, a crashed engine's orders unknown everywhere. These run with threads whatever
// WORKERS says.
const test = require('node:test');
const assert = require('node:assert/strict');
const http = require('node:http');
const os = require('node:os');
const { loadConfig, ConfigError } = require('../src/config');
const { createService } = require('../src/server');
const { testDb, testConfig, waitFor } = require('../test-support/helpers');

const db = testDb();
const skip = db ? false : 'DB_HOST/DB_PORT/DB_USER/DB_PASSWORD not set (TB_REQUIRE_DB=1 makes this a failure)';

// One request on a connection of its own: {status, json}.
function fresh(base, method, pathAndQuery) {
  return new Promise((resolve, reject) => {
    const r = http.request(`${base}${pathAndQuery}`, { method, agent: false }, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (d) => { text += d; });
      res.on('end', () => resolve({ status: res.statusCode, json: text ? JSON.parse(text) : undefined }));
    });
    r.on('error', reject);
    r.end();
  });
}

// A service with `listeners` HTTP threads on an ephemeral port, drained afterwards; body gets
// (url, service), and may drain it itself (the exit line is then what it returned).
async function withThreads(overrides, body) {
  const config = testConfig({ workers: 'threads', engines: 2, workerThreads: 2, listeners: 2, ...overrides });
  const service = await createService(config, { silent: true, log: () => {} });
  const server = await service.listen(0, '127.0.0.1');
  let drained = null;
  const drain = () => { drained = drained || service.drain(); return drained; };
  try {
    await body(`http://127.0.0.1:${server.address().port}`, service, drain);
  } finally {
    server.closeAllConnections();
    server.close();
    await drain();
  }
}

// How many orders the main thread accepted, and how many the others did.
function acceptedByThread(service) {
  const main = service.counts.accepted;
  return { main, others: service.stats.accepted - main };
}

test('LISTENERS: 1 unless set, `cores` one per core, 1..64, and more than one only with WORKERS=threads', () => {
  assert.equal(loadConfig({}).listeners, 1);
  assert.equal(loadConfig({ WORKERS: 'threads', LISTENERS: '3' }).listeners, 3);
  assert.equal(loadConfig({ WORKERS: 'threads', LISTENERS: 'cores' }).listeners, Math.min(64, os.availableParallelism()));
  assert.equal(loadConfig({ LISTENERS: '1' }).listeners, 1);
  for (const bad of ['0', '65', 'two', '-1']) assert.throws(() => loadConfig({ WORKERS: 'threads', LISTENERS: bad }), ConfigError, bad);
  assert.throws(() => loadConfig({ LISTENERS: '2' }), /needs WORKERS=threads/);
});

test('orders over both HTTP threads: ids grow over all of them, each order shown by either thread, /stats counts all',
  { skip }, () => withThreads({}, async (url, service) => {
    const ids = [];
    for (let i = 0; i < 30; i++) {
      const side = i % 2 === 0 ? 'sell' : 'buy';
      const r = await fresh(url, 'POST', `/${side}?userId=${side[0]}${i}&productId=${Math.floor(i / 2) % 4}&quantity=1${side === 'sell' ? '&price=1' : ''}`);
      assert.equal(r.status, 202);
      ids.push(r.json.id);
    }
    for (let i = 1; i < ids.length; i++) assert.ok(ids[i] > ids[i - 1], `ids in the order of acceptance: ${ids}`);
    const { main, others } = acceptedByThread(service);
    assert.ok(main > 0 && others > 0, `both threads accepted orders (main ${main}, others ${others})`);
    // every sell meets the buy placed after it for the same product: 15 sales, each order filled
    await waitFor(() => service.stats.salesPersisted === 15, { what: '15 sales stored' });
    const seen = { filled: 0 };
    for (const id of ids) {
      // asked twice on fresh connections: the thread that did not accept it asks the one that did
      for (let k = 0; k < 2; k++) {
        const r = await fresh(url, 'GET', `/orders/${id}`);
        assert.equal(r.status, 200);
        assert.equal(r.json.status, 'filled', JSON.stringify(r.json));
        assert.equal(r.json.fills.length, 1);
        seen.filled++;
      }
    }
    assert.equal(seen.filled, 60);
    assert.equal((await fresh(url, 'GET', `/orders/${ids[ids.length - 1] + 1000}`)).status, 404);
    for (let k = 0; k < 4; k++) {
      const stats = (await fresh(url, 'GET', '/stats')).json;
      assert.equal(stats.accepted, 30);
      assert.equal(stats.salesPersisted, 15);
      assert.deepEqual(stats.engines.map((e) => e.accepted), [16, 14]); // products 0 and 2 on engine 0
    }
  }));

test('one inbox limit per engine over all HTTP threads: 503 overloaded past INBOX_LIMIT whichever thread answers; the drain stops every thread',
  { skip }, () => withThreads({ inboxLimit: 5, delayMs: 60000 }, async (url, service, drain) => {
    // after its first cycle each engine sleeps a minute: orders stay in the inbox
    await waitFor(() => service.engines.stats().every((e) => e.cycles >= 1), { what: 'the first cycles' });
    const answers = [];
    for (let i = 0; i < 12; i++) answers.push(await fresh(url, 'POST', `/sell?userId=s${i}&productId=1&quantity=1&price=1`));
    assert.deepEqual(answers.map((r) => r.status), [202, 202, 202, 202, 202, 503, 503, 503, 503, 503, 503, 503]);
    assert.deepEqual(answers[5].json, { error: 'overloaded' });
    assert.equal((await fresh(url, 'POST', '/sell?userId=s&productId=0&quantity=1&price=1')).status, 202);
    assert.equal(service.engines.stats()[1].pendingOrders, 5);
    const { main, others } = acceptedByThread(service);
    assert.ok(main + others === 6 && service.stats.overloaded === 7);
    const exitLine = await drain();
    assert.equal(exitLine, 'exit variant=node-engine accepted=6 sales=0');
    // every accepted order joined its engine before it stopped, from whichever thread it came
    assert.deepEqual(service.engines.stats().map((e) => [e.pendingOrders, e.openOrders]), [[0, 1], [0, 5]]);
  }));

test('a crashed engine\'s orders answer unknown on every HTTP thread; the other engine keeps its own; the replacement takes orders from all',
  { skip }, () => withThreads({ products: 8 }, async (url, service) => {
    const lost = [];
    const kept = [];
    for (let i = 0; i < 8; i++) {
      const r = await fresh(url, 'POST', `/sell?userId=s${i}&productId=${i % 2}&quantity=1&price=1`);
      (i % 2 === 0 ? lost : kept).push(r.json.id);
    }
    await waitFor(() => service.engines.stats().every((e) => e.openOrders === 4), { what: 'each engine to hold its 4 orders' });
    service.engines.kill(0);
    await waitFor(() => service.engines.engines[0].restarts === 1, { what: 'engine 0 noticed dead' });
    await waitFor(async () => {
      for (const id of lost) if ((await fresh(url, 'GET', `/orders/${id}`)).json.status !== 'unknown') return false;
      return true;
    }, { what: 'engine 0\'s orders unknown on every thread' });
    for (const id of kept) assert.equal((await fresh(url, 'GET', `/orders/${id}`)).json.status, 'open');
    // replaced: product 0 is taken again, by every thread (the other thread hears of it a moment after the main one)
    await waitFor(async () => (await fresh(url, 'POST', '/sell?userId=s&productId=0&quantity=1&price=1')).status === 202,
      { what: 'engine 0 replaced' });
    const before = acceptedByThread(service).others;
    await waitFor(async () => {
      await fresh(url, 'POST', '/sell?userId=s&productId=0&quantity=1&price=9');
      return acceptedByThread(service).others > before;
    }, { what: 'the other thread to take engine 0\'s orders again' });
    const statuses = [];
    for (let i = 0; i < 10; i++) statuses.push((await fresh(url, 'POST', '/buy?userId=b&productId=0&quantity=1')).status);
    assert.deepEqual(statuses, Array(10).fill(202));
    await waitFor(() => service.engines.stats()[0].salesPersisted >= 2, { what: 'the replacement to trade' });
  }));
