'use strict';
// The Express app without a fixed port: answers, validation, overload,
// shutdown, a killed child. No sale happens here, so no database is needed.
const test = require('node:test');
const assert = require('node:assert/strict');
const path = require('node:path');
const { spawnSync } = require('node:child_process');
const { createService } = require('../src/server');
const { testConfig, serve, call, waitFor, withService, engineRoot } = require('../test-support/helpers');

const quiet = () => {};

test('valid orders are accepted with increasing ids', () => withService({}, async (url, service) => {
  const a = await call(url, 'POST', '/sell?userId=s1&productId=3&quantity=5&price=10.50');
  const b = await call(url, 'GET', '/buy?userId=b.1_x-y&productId=0&quantity=1000000');
  const c = await call(url, 'POST', '/buy?userId=b1&productId=9&quantity=1&price=1000000000');
  const d = await call(url, 'POST', '/sell', { body: 'userId=s1&productId=4&quantity=2&price=0.01',
    headers: { 'content-type': 'application/x-www-form-urlencoded' } });
  for (const r of [a, b, c, d]) {
    assert.equal(r.status, 202, r.text);
    assert.match(r.headers.get('content-type'), /^application\/json/);
    assert.deepEqual(Object.keys(r.json).sort(), ['id', 'side', 'status']);
    assert.equal(r.json.status, 'accepted');
    assert.ok(Number.isSafeInteger(r.json.id));
  }
  assert.equal(a.json.side, 'sell');
  assert.equal(b.json.side, 'buy');
  assert.ok(a.json.id < b.json.id && b.json.id < c.json.id && c.json.id < d.json.id);
  const stats = (await call(url, 'GET', '/stats')).json;
  assert.equal(stats.accepted, 4);
  assert.equal(stats.rejected, 0);
  assert.equal(stats.variant, 'node-engine');
  assert.equal(stats.engines.length, 2);
  // product i goes to engine i mod ENGINES: products 0, 4 -> engine 0; 3, 9 -> engine 1
  assert.deepEqual(stats.engines.map((e) => e.accepted), [2, 2]);
  assert.equal(service.registry.get(a.json.id).status, 'open');
}));

const BAD = [
  ['/buy?productId=1&quantity=1', 'userId is missing'],
  ['/buy?userId=&productId=1&quantity=1', 'userId must be 1..64 characters of A-Z a-z 0-9 _ . -'],
  [`/buy?userId=${'a'.repeat(65)}&productId=1&quantity=1`, 'userId must be 1..64 characters of A-Z a-z 0-9 _ . -'],
  ['/buy?userId=a%20b&productId=1&quantity=1', 'userId must be 1..64 characters of A-Z a-z 0-9 _ . -'],
  ['/buy?userId=b&userId=c&productId=1&quantity=1', 'parameter userId given more than once'],
  ['/buy?userId=b&quantity=1', 'productId is missing'],
  ['/buy?userId=b&productId=10&quantity=1', 'productId must be an integer in 0..9 (unknown product)'],
  ['/buy?userId=b&productId=01&quantity=1', 'productId must be an integer in 0..9 (unknown product)'],
  ['/buy?userId=b&productId=-1&quantity=1', 'productId must be an integer in 0..9 (unknown product)'],
  ['/buy?userId=b&productId=1', 'quantity is missing'],
  ['/buy?userId=b&productId=1&quantity=0', 'quantity must be an integer in 1..1000000'],
  ['/buy?userId=b&productId=1&quantity=1000001', 'quantity must be an integer in 1..1000000'],
  ['/buy?userId=b&productId=1&quantity=1.0', 'quantity must be an integer in 1..1000000'],
  ['/buy?userId=b&productId=1&quantity=+1', 'quantity must be an integer in 1..1000000'],
  ['/buy?userId=b&productId=1&quantity=1&price=', 'price must be a number in (0, 1000000000] with at most 2 decimals'],
  ['/sell?userId=s&productId=1&quantity=1', 'price is missing'],
  ...['0', '0.00', '-1', '.5', '12.', '1e3', 'NaN', '1.234', '1000000000.01', 'abc'].map((p) =>
    [`/sell?userId=s&productId=1&quantity=1&price=${p}`, 'price must be a number in (0, 1000000000] with at most 2 decimals']),
  ['/sell?userId=s&productId=1&quantity=1&price=1&price=2', 'parameter price given more than once'],
  // the first failure in the contract's order is the one answered
  ['/sell?userId=&productId=x&quantity=0', 'userId must be 1..64 characters of A-Z a-z 0-9 _ . -'],
  ['/sell?userId=s&productId=x&quantity=0', 'productId must be an integer in 0..9 (unknown product)'],
  ['/buy?userId=b%ZZ&productId=1&quantity=1', 'malformed URL encoding in the parameters'],
];

test('bad orders get 400 with the error that names the problem, and reach no engine', () => withService({}, async (url) => {
  for (const [path, error] of BAD) {
    for (const method of ['GET', 'POST']) {
      const r = await call(url, method, path);
      assert.equal(r.status, 400, `${method} ${path}: ${r.text}`);
      assert.deepEqual(r.json, { error }, `${method} ${path}`);
    }
  }
  const stats = (await call(url, 'GET', '/stats')).json;
  assert.equal(stats.rejected, BAD.length * 2);
  assert.equal(stats.accepted, 0);
  assert.deepEqual(stats.engines.map((e) => e.accepted), [0, 0]);
}));

test('a parameter repeated between query and form body is a 400', () => withService({}, async (url) => {
  const r = await call(url, 'POST', '/buy?userId=b&productId=1', { body: 'quantity=1&productId=2',
    headers: { 'content-type': 'application/x-www-form-urlencoded' } });
  assert.equal(r.status, 400);
  assert.deepEqual(r.json, { error: 'parameter productId given more than once' });
  const bad = await call(url, 'POST', '/buy', { body: 'userId=%E0%A4%A&productId=1&quantity=1',
    headers: { 'content-type': 'application/x-www-form-urlencoded' } });
  assert.equal(bad.status, 400);
  assert.ok(bad.json.error);
}));

test('unknown paths, wrong methods and bad ids answer JSON', () => withService({}, async (url) => {
  const notFound = await call(url, 'GET', '/nothing/here?x=1');
  assert.equal(notFound.status, 404);
  assert.deepEqual(notFound.json, { error: 'not found: /nothing/here' });
  for (const p of ['/BUY', '/buy/', '/orders/', '/stats/x']) {
    assert.equal((await call(url, 'GET', p)).status, 404, p);
  }

  const cases = [['PUT', '/buy', 'GET, POST'], ['DELETE', '/sell', 'GET, POST'], ['POST', '/stats', 'GET'],
    ['POST', '/health', 'GET'], ['DELETE', '/orders/12', 'GET']];
  for (const [method, p, allow] of cases) {
    const r = await call(url, method, p);
    assert.equal(r.status, 405, `${method} ${p}`);
    assert.equal(r.headers.get('allow'), allow);
    assert.deepEqual(r.json, { error: `method not allowed: ${method} ${p}` });
  }

  const head = await call(url, 'HEAD', '/buy?userId=b&productId=1&quantity=1');
  assert.equal(head.status, 405);
  assert.equal(head.headers.get('allow'), 'GET, POST');
  assert.equal((await call(url, 'GET', '/stats')).json.accepted, 0, 'a HEAD placed no order');

  for (const p of ['/orders/abc', '/orders/0', '/orders/000', '/orders/-5', '/orders/1.5', '/orders/1234567890123456789']) {
    const r = await call(url, 'GET', p);
    assert.equal(r.status, 400, p);
    assert.deepEqual(r.json, { error: 'order id must be a positive integer' });
  }
  const badEncoding = await call(url, 'GET', '/orders/%ZZ');
  assert.equal(badEncoding.status, 400);
  assert.deepEqual(badEncoding.json, { error: 'malformed URL encoding' });
  assert.match(badEncoding.headers.get('content-type'), /^application\/json/);
}));

test('a full inbox answers 503 overloaded with Retry-After; other engines go on', () =>
  withService({ inboxLimit: 3, delayMs: 60000 }, async (url, service) => {
    // After its first cycle each engine sleeps for a minute: orders stay pending.
    await waitFor(() => service.engines.stats().every((e) => e.cycles >= 1), { what: 'first cycles' });
    for (let i = 0; i < 3; i++) {
      assert.equal((await call(url, 'POST', `/buy?userId=b&productId=2&quantity=1`)).status, 202);
    }
    const full = await call(url, 'POST', '/buy?userId=b&productId=4&quantity=1'); // engine 0 again
    assert.equal(full.status, 503);
    assert.equal(full.headers.get('retry-after'), '1');
    assert.deepEqual(full.json, { error: 'overloaded' });
    assert.equal((await call(url, 'POST', '/sell?userId=s&productId=1&quantity=1&price=2')).status, 202); // engine 1
    const stats = (await call(url, 'GET', '/stats')).json;
    assert.equal(stats.overloaded, 1);
    assert.equal(stats.accepted, 4);
    assert.equal(stats.pendingOrders, 4);
    assert.deepEqual(stats.engines.map((e) => e.pendingOrders), [3, 1]);
  }));

test('shutting down refuses new orders with 503 and drains the engines', async () => {
  const service = await createService(testConfig({ delayMs: 60000 }), { silent: true, log: quiet });
  const http = await serve(service.app);
  try {
    assert.equal((await call(http.url, 'POST', '/buy?userId=b&productId=1&quantity=1')).status, 202);
    const draining = service.drain();
    const r = await call(http.url, 'POST', '/buy?userId=b&productId=1&quantity=1');
    assert.equal(r.status, 503);
    assert.equal(r.headers.get('retry-after'), '1');
    assert.deepEqual(r.json, { error: 'shutting down' });
    // DELAY_MS is a minute, yet the drain does not wait for it.
    const started = Date.now();
    assert.equal(await draining, 'exit variant=node-engine accepted=1 sales=0');
    assert.ok(Date.now() - started < 5000);
    // The order joined its engine's market before the engine stopped.
    assert.equal(service.engines.stats()[1].pendingOrders, 0);
    assert.equal(service.engines.stats()[1].openOrders, 1);
  } finally {
    await http.close();
  }
});

test('a killed child answers 503 engine unavailable until its replacement is ready', () =>
  withService({ engines: 2, workerThreads: 2 }, async (url, service) => {
    const before = await call(url, 'POST', '/buy?userId=b&productId=0&quantity=1');
    assert.equal(before.status, 202);
    service.engines.kill(0, 'SIGKILL');
    let unavailable = null;
    await waitFor(async () => {
      const r = await call(url, 'POST', '/buy?userId=b&productId=2&quantity=1');
      if (r.status === 503) unavailable = r;
      return unavailable !== null;
    }, { stepMs: 2, what: 'engine 0 to be noticed dead' });
    assert.deepEqual(unavailable.json, { error: 'engine unavailable' });
    assert.equal(unavailable.headers.get('retry-after'), '1');
    // The other engine keeps trading meanwhile.
    assert.equal((await call(url, 'POST', '/buy?userId=b&productId=1&quantity=1')).status, 202);
    await waitFor(async () => (await call(url, 'POST', '/buy?userId=b&productId=2&quantity=1')).status === 202,
      { what: 'engine 0 to be replaced' });
    // The order the dead child held is forgotten, not reported as open.
    assert.equal(service.registry.get(before.json.id), undefined);
    assert.ok(service.registry.issued(before.json.id));
    await waitFor(() => service.engines.stats()[0].openOrders === 1, { what: 'the new child to trade' });
  }));

test('/health and /orders answer 503 while the database cannot be reached', () =>
  withService({ db: { host: '127.0.0.1', port: 1 } }, async (url) => {
    const r = await call(url, 'GET', '/health');
    assert.equal(r.status, 503);
    assert.deepEqual(r.json, { status: 'down', error: 'database unreachable' });
    // /orders/{id} reads its fills from SALES: 503, not a hang or an HTML page.
    const placed = (await call(url, 'POST', '/buy?userId=b&productId=1&quantity=1')).json.id;
    for (const id of [placed, 12345]) {
      const o = await call(url, 'GET', `/orders/${id}`);
      assert.equal(o.status, 503);
      assert.equal(o.headers.get('retry-after'), '1');
      assert.deepEqual(o.json, { error: 'database unreachable' });
    }
  }));

test('bad configuration stops the server with a clear message', () => {
  const server = path.join(engineRoot, 'src', 'server.js');
  for (const [name, value, message] of [['ENGINES', 'four', /ENGINES must be an integer/],
    ['PERSIST', 'sometimes', /PERSIST must be per-sale or batch/], ['PORT', '70000', /PORT must be an integer in 0..65535/],
    ['DELAY_MS', '-1', /DELAY_MS must be an integer/], ['DB_NAME', 'x;y', /DB_NAME/],
    ['VIEW_LIMIT', '-1', /VIEW_LIMIT must be an integer in 0\.\.1000000/], ['READ_TIMEOUT_MS', '0', /READ_TIMEOUT_MS must be an integer/]]) {
    const r = spawnSync(process.execPath, [server], { env: { ...process.env, [name]: value }, encoding: 'utf8', timeout: 10000 });
    assert.equal(r.status, 2, `${name}=${value}: ${r.stderr}`);
    assert.match(r.stderr, message);
  }
});
