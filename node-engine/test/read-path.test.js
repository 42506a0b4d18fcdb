'use strict';
// The order view's read path (docs/contract-details.md, section 8): its settings; a read server that accepts
// and never answers (a black hole) gets a 504 within READ_TIMEOUT_MS while orders are still
// answered; views beyond VIEW_LIMIT are refused at once with 503 and Retry-After; bad ids take no
// place; a read server that refuses is 503 "database unreachable" while the writers go on; the
// connection a timed-out view was reading on is closed, not kept for its late answer; with
// LISTENERS each HTTP thread keeps the same deadline. The black-hole tests need no database; the
// others use the test database.
const test = require('node:test');
const assert = require('node:assert/strict');
const http = require('node:http');
const { loadConfig, ConfigError } = require('../src/config');
const { createService } = require('../src/server');
const { createPool } = require('../src/db');
const { storeSales } = require('../src/sales-store');
const { testDb, testConfig, call, waitFor, withService, blackHole, breakableProxy } = require('../test-support/helpers');

const db = testDb();
const skip = db ? false : 'DB_HOST/DB_PORT/DB_USER/DB_PASSWORD not set (TB_REQUIRE_DB=1 makes this a failure)';

// What a crowded 2-core machine may add to a view's deadline before its 504 is on the wire.
const MARGIN_MS = 5000;
// Long enough for every request of a test to reach the service while the first views still hang.
const HANGING_MS = 3000;

const timedOut = (ms) => ({ error: `the order's fills were not read within ${ms} ms` });

// A request that is not awaited yet: its answer, and whether it has come.
function pending(url, path) {
  const started = Date.now();
  const view = { done: false };
  view.answer = call(url, 'GET', path).then((r) => { view.done = true; view.tookMs = Date.now() - started; return r; });
  return view;
}

async function withHole(read, body) {
  const hole = await blackHole();
  try {
    await withService({ read: { host: '127.0.0.1', port: hole.port, ...read } }, (url, service) => body(url, service, hole));
  } finally {
    await hole.close();
  }
}

test('the read path settings: defaults from the writers\' server, their bounds, blank as unset', () => {
  const base = { DB_HOST: 'writer', DB_PORT: '3310' };
  assert.deepEqual(loadConfig(base).read, { host: 'writer', port: 3310, poolSize: 16, timeoutMs: 2000, viewLimit: 64 });
  assert.deepEqual(loadConfig({}).read, { host: '127.0.0.1', port: 3306, poolSize: 16, timeoutMs: 2000, viewLimit: 64 });
  const given = loadConfig({ ...base, READ_DB_HOST: 'replica', READ_DB_PORT: '3320', READ_POOL: '3', READ_TIMEOUT_MS: '250', VIEW_LIMIT: '0' });
  assert.deepEqual(given.read, { host: 'replica', port: 3320, poolSize: 3, timeoutMs: 250, viewLimit: 0 });
  assert.equal(given.db.port, 3310, 'the writers keep their server');
  assert.deepEqual(loadConfig({ ...base, READ_DB_HOST: ' ', READ_POOL: '' }).read.host, 'writer');
  for (const [name, value] of [['READ_POOL', '0'], ['READ_POOL', 'x'], ['READ_TIMEOUT_MS', '0'], ['READ_TIMEOUT_MS', '600001'],
    ['VIEW_LIMIT', '-1'], ['VIEW_LIMIT', '1.5'], ['READ_DB_PORT', '70000']]) {
    assert.throws(() => loadConfig({ [name]: value }), (err) => err instanceof ConfigError && err.message.startsWith(`${name} must be`),
      `${name}=${value}`);
  }
});

test('a view whose read server never answers is answered 504 within READ_TIMEOUT_MS', () =>
  withHole({ timeoutMs: 500 }, async (url, service, hole) => {
    const started = Date.now();
    const view = await call(url, 'GET', '/orders/1');
    const tookMs = Date.now() - started;
    assert.equal(view.status, 504, view.text);
    assert.deepEqual(view.json, timedOut(500));
    assert.match(view.headers.get('content-type'), /^application\/json/);
    assert.ok(tookMs >= 450 && tookMs < 500 + MARGIN_MS, `answered in ${tookMs} ms`);
    assert.ok(hole.accepted >= 1, 'the view read from READ_DB_PORT');
    assert.equal((await call(url, 'GET', '/orders/2')).status, 504, 'the next view too: the read server is still away');
    assert.equal(service.readPath.views, 0, 'no view left in the read path once answered');
  }));

test('orders are answered while views hang on their read', { skip }, () =>
  withHole({ timeoutMs: HANGING_MS, viewLimit: 8 }, async (url, service) => {
    const views = Array.from({ length: 8 }, (_, i) => pending(url, `/orders/${i + 1}`));
    await waitFor(() => service.readPath.views === 8, { what: 'the 8 views in the read path' });
    for (let i = 0; i < 10; i++) {
      const r = await call(url, 'POST', `/buy?userId=b${i}&productId=${i}&quantity=1`);
      assert.equal(r.status, 202, r.text);
    }
    assert.equal((await call(url, 'GET', '/health')).status, 200, 'the writers\' server is up');
    assert.ok(views.some((v) => !v.done), 'the orders were answered while views waited for their reads');
    // 8 views, 4 read connections: half of them waited for one, and that wait counts toward the
    // deadline (counted from the connection, theirs would come a whole READ_TIMEOUT_MS later).
    for (const v of views) {
      assert.equal((await v.answer).status, 504);
      assert.ok(v.tookMs < 2 * HANGING_MS, `answered after ${v.tookMs} ms`);
    }
  }));

test('views beyond VIEW_LIMIT are refused at once with 503 and Retry-After', () =>
  withHole({ timeoutMs: HANGING_MS, viewLimit: 4 }, async (url) => {
    const flood = Array.from({ length: 20 }, (_, i) => pending(url, `/orders/${i + 1}`));
    const answers = await Promise.all(flood.map((v) => v.answer));
    const refused = answers.filter((r) => r.status === 503);
    const waited = answers.filter((r) => r.status === 504);
    assert.equal(waited.length, 4, 'as many views waited for their reads as the limit lets in');
    assert.equal(refused.length, 16, answers.map((r) => r.status).join(' '));
    for (const r of refused) {
      assert.equal(r.headers.get('retry-after'), '1', 'a 503 says when to retry');
      assert.equal(r.text, '{"error":"too many order views waiting for the database (VIEW_LIMIT=4)"}');
    }
    for (const v of flood.filter((f, i) => answers[i].status === 503)) {
      assert.ok(v.tookMs < HANGING_MS, `refused after ${v.tookMs} ms, not at once`);
    }
  }));

test('bad ids are answered without a place in the read path', () =>
  withHole({ timeoutMs: 2000, viewLimit: 1 }, async (url, service) => {
    const holder = pending(url, '/orders/1');
    await waitFor(() => service.readPath.views === 1, { what: 'the view to hold the only place' });
    const refused = await call(url, 'GET', '/orders/2');
    assert.equal(refused.status, 503, refused.text);
    for (const bad of ['abc', '0', '-1', '1.5', '1234567890123456789']) {
      const r = await call(url, 'GET', `/orders/${bad}`);
      assert.equal(r.status, 400, `/orders/${bad}: ${r.text}`);
      assert.deepEqual(r.json, { error: 'order id must be a positive integer' });
    }
    assert.equal((await call(url, 'GET', '/orders/99999999999999999')).status, 404, 'beyond any id of ours: 404 unread');
    assert.equal((await call(url, 'POST', '/orders/1')).status, 405);
    assert.equal(holder.done, false, 'the place was still held while the bad ids were answered');
    assert.equal((await holder.answer).status, 504);
    const again = await call(url, 'GET', '/orders/3');
    assert.equal(again.status, 504, `a view is let in again: ${again.text}`);
  }));

test('views read through READ_DB_PORT alone: a refusing read server is 503, orders and health go on', { skip }, async () => {
  const reads = await breakableProxy(db);
  try {
    await withService({ engines: 1, delayMs: 1, read: { port: reads.port } }, async (url) => {
      assert.equal((await call(url, 'POST', '/sell?userId=s1&productId=3&quantity=2&price=10')).status, 202);
      const buy = await call(url, 'POST', '/buy?userId=b1&productId=3&quantity=2');
      const view = `/orders/${buy.json.id}`;
      await waitFor(async () => (await call(url, 'GET', view)).json?.status === 'filled', { what: 'the buy shown filled' });
      const filled = await call(url, 'GET', view);
      assert.equal(filled.status, 200);
      assert.equal(filled.json.fills.length, 1);

      reads.down();
      const unreachable = await call(url, 'GET', view);
      assert.equal(unreachable.status, 503, unreachable.text);
      assert.deepEqual(unreachable.json, { error: 'database unreachable' });
      assert.equal(unreachable.headers.get('retry-after'), '1');
      assert.equal((await call(url, 'POST', '/buy?userId=b2&productId=0&quantity=1')).status, 202, 'orders do not read through it');
      assert.equal((await call(url, 'GET', '/health')).status, 200, 'the writers\' server is up');

      reads.up();
      await waitFor(async () => (await call(url, 'GET', view)).status === 200, { what: 'views read again once the read server is back' });
    });
  } finally {
    await reads.close();
  }
});

test('the connection a timed-out view was reading on is closed, not kept for its late answer', { skip }, async () => {
  const po = 930001;
  const other = 930011;
  const writer = createPool(db);
  const reads = await breakableProxy(db);
  try {
    await writer.query('DELETE FROM SALES WHERE PO_ID IN (?, ?)', [po, other]);
    await storeSales(writer, 'batch', [
      { productId: '1', buyer: 'b1', seller: 's1', priceCents: 100, quantity: 1, poId: po, soId: po + 1 },
      { productId: '2', buyer: 'b2', seller: 's2', priceCents: 200, quantity: 2, poId: other, soId: other + 1 },
    ]);
    await withService({ read: { port: reads.port, poolSize: 1, timeoutMs: 500 } }, async (url, service) => {
      const first = await call(url, 'GET', `/orders/${po}`);
      assert.equal(first.status, 200, first.text);
      assert.deepEqual(first.json.fills.map((f) => f.poId), [po]);
      const closedBefore = reads.closedByClient;

      reads.delayMs = 1500; // the pooled connection's next answer comes after the deadline
      const late = await call(url, 'GET', `/orders/${po}`);
      assert.equal(late.status, 504, late.text);
      assert.deepEqual(late.json, timedOut(500));
      await waitFor(() => reads.closedByClient > closedBefore, { what: 'the reading connection to be closed', timeoutMs: 1000 });

      reads.delayMs = 0;
      const next = await call(url, 'GET', `/orders/${other}`);
      assert.equal(next.status, 200, next.text);
      assert.deepEqual(next.json.fills.map((f) => [f.poId, f.quantity]), [[other, 2]], 'its own fills, not the late answer');
      assert.equal(service.readPath.taken, 0, 'the connection is back in the pool');
    });
  } finally {
    await reads.close();
    await writer.query('DELETE FROM SALES WHERE PO_ID IN (?, ?)', [po, other]).catch(() => {});
    await writer.end();
  }
});

// One request on a connection of its own, so that the kernel spreads them over the HTTP threads.
function fresh(base, path) {
  return new Promise((resolve, reject) => {
    const r = http.request(`${base}${path}`, { agent: false }, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (d) => { text += d; });
      res.on('end', () => resolve({ status: res.statusCode, text }));
    });
    r.on('error', reject);
    r.end();
  });
}

test('LISTENERS: each HTTP thread reads with a pool of its own and the same deadline', async () => {
  const hole = await blackHole();
  // One read connection per thread: both open at once only if both threads read.
  const read = { host: '127.0.0.1', port: hole.port, poolSize: 1, timeoutMs: HANGING_MS };
  const config = testConfig({ workers: 'threads', engines: 2, workerThreads: 2, listeners: 2, read });
  const service = await createService(config, { silent: true, log: () => {} });
  const server = await service.listen(0, '127.0.0.1');
  try {
    const base = `http://127.0.0.1:${server.address().port}`;
    // 16 connections: that the kernel puts them all on one thread is a chance of 1 in 32,768.
    const views = Array.from({ length: 16 }, (_, i) => fresh(base, `/orders/${i + 1}`));
    await waitFor(() => hole.open === 2, { what: 'a read connection from each HTTP thread', timeoutMs: HANGING_MS - 500 });
    for (const v of await Promise.all(views)) {
      assert.equal(v.status, 504, v.text);
      assert.equal(v.text, JSON.stringify(timedOut(HANGING_MS)));
    }
  } finally {
    server.closeAllConnections();
    server.close();
    await service.drain();
    await hole.close();
  }
});
