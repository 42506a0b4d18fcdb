'use strict';
// Shared by the tests (kept out of test/, where node --test would run it as a test): where things are, the test database, HTTP without a fixed port.
const path = require('node:path');
const fs = require('node:fs');
const net = require('node:net');

const engineRoot = path.join(__dirname, '..'); // node-engine/
const repoRoot = path.join(engineRoot, '..');
const conformanceDir = path.join(repoRoot, 'docs', 'conformance');

// The conformance vectors; a missing folder is a failure, never a silent pass.
function conformanceVectors() {
  if (!fs.existsSync(conformanceDir)) {
    throw new Error(`conformance vectors not found: ${conformanceDir} (docs/conformance in the repository)`);
  }
  const names = fs.readdirSync(conformanceDir).filter((f) => f.endsWith('.scenario.json')).sort();
  if (names.length === 0) throw new Error(`no *.scenario.json in ${conformanceDir}`);
  return names.map((f) => ({
    name: f.replace(/\.scenario\.json$/, ''),
    scenarioFile: path.join(conformanceDir, f),
    resultFile: path.join(conformanceDir, f.replace(/\.scenario\.json$/, '.result.json')),
  }));
}

const TEST_DB = 'TRADER_TEST_NODE_ENGINE';

// The test database from the environment; null (skip) unless TB_REQUIRE_DB=1,
// where a missing database is an error.
function testDb() {
  const env = process.env;
  const missing = ['DB_HOST', 'DB_PORT', 'DB_USER', 'DB_PASSWORD'].filter((k) => env[k] === undefined);
  if (missing.length > 0) {
    if (env.TB_REQUIRE_DB === '1') throw new Error(`TB_REQUIRE_DB=1 but ${missing.join(', ')} not set`);
    return null;
  }
  return { host: env.DB_HOST, port: Number(env.DB_PORT), database: TEST_DB, user: env.DB_USER, password: env.DB_PASSWORD, poolSize: 4 };
}

// A configuration for services under test (no database needed unless sales happen). The order
// view reads from the writers' server unless `read` says otherwise.
function testConfig(overrides = {}) {
  const db = { ...(testDb() || { host: '127.0.0.1', port: 1, database: TEST_DB, user: 'nobody', password: '', poolSize: 2 }), ...(overrides.db || {}) };
  const read = { host: db.host, port: db.port, poolSize: 4, timeoutMs: 2000, viewLimit: 64, ...(overrides.read || {}) };
  return {
    port: 0, engines: 2, delayMs: 3, timeoutMs: 60000, products: 10, inboxLimit: 10000, persist: 'per-sale',
    // the whole suite runs once per engine host (harness/tradebench_harness/suites/testrun.py): WORKERS=processes, then threads
    workers: process.env.WORKERS || 'processes',
    // workerThreads: the default (the cores but one) unless a test says; one that kills an engine and
    // expects the others to trade on sets it to engines, since a worker takes all its engines with it
    ...overrides, db, read,
  };
}

// Serves the app on an ephemeral loopback port; returns {url, close}.
function serve(app) {
  return new Promise((resolve) => {
    const server = app.listen(0, '127.0.0.1', () => {
      const url = `http://127.0.0.1:${server.address().port}`;
      resolve({ url, close: () => new Promise((r) => { server.closeAllConnections(); server.close(() => r()); }) });
    });
  });
}

async function call(base, method, pathAndQuery, { body, headers } = {}) {
  const res = await fetch(base + pathAndQuery, { method, body, headers });
  const text = await res.text();
  let json;
  try { json = JSON.parse(text); } catch { json = undefined; }
  return { status: res.status, headers: res.headers, text, json };
}

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

async function waitFor(predicate, { timeoutMs = 5000, stepMs = 20, what = 'condition' } = {}) {
  const end = Date.now() + timeoutMs;
  for (;;) {
    if (await predicate()) return;
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await sleep(stepMs);
  }
}

// A TCP proxy to the database that a test can break: `cutNext` forwards the
// next client packet and then cuts both sides (the statement runs, its answer
// is lost); `refuse` closes every new connection at once; down() also cuts the open ones.
// `inserts` counts the client packets carrying an INSERT INTO SALES (a multi-row INSERT, or the
// statement a connection prepares for its per-sale inserts); `mostAwaiting`, the most of them
// sent on different connections and not yet answered at one time.
function breakableProxy(target) {
  const sockets = new Set();
  const proxy = { cutNext: false, refuse: false, cuts: 0, delayMs: 0, inserts: 0, awaiting: 0, mostAwaiting: 0, closedByClient: 0 };
  const server = net.createServer((client) => {
    if (proxy.refuse) { client.destroy(); return; }
    // `closedByClient`: connections the client closed (ended or reset) while the proxy kept them open.
    let closing = false;
    const byClient = () => { if (!closing) { closing = true; proxy.closedByClient++; } };
    client.on('end', byClient);
    client.on('error', byClient);
    const upstream = net.connect(target.port, target.host);
    sockets.add(client); sockets.add(upstream);
    const cut = () => { closing = true; client.destroy(); upstream.destroy(); };
    let dropAnswer = false;
    let awaiting = false;
    client.on('data', (chunk) => {
      upstream.write(chunk);
      if (chunk.includes('INSERT INTO SALES')) {
        proxy.inserts++;
        if (!awaiting) { awaiting = true; proxy.awaiting++; proxy.mostAwaiting = Math.max(proxy.mostAwaiting, proxy.awaiting); }
      }
      if (proxy.cutNext) {
        proxy.cutNext = false;
        dropAnswer = true;
      }
    });
    upstream.on('data', (chunk) => {
      const deliver = () => {
        if (awaiting) { awaiting = false; proxy.awaiting--; }
        client.write(chunk);
      };
      // a slow database: every answer arrives delayMs later (in order: equal delays fire in order)
      if (!dropAnswer && proxy.delayMs) return setTimeout(deliver, proxy.delayMs);
      if (!dropAnswer) return deliver();
      // The server answered (the statement ran and committed): the client
      // never hears it, its connection is cut instead.
      proxy.cuts++;
      return cut();
    });
    client.on('error', cut); upstream.on('error', cut);
    client.on('close', cut); upstream.on('close', cut);
  });
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => {
    proxy.port = server.address().port;
    // The database "goes away": open connections are cut, new ones refused.
    proxy.down = () => { proxy.refuse = true; for (const sock of sockets) sock.destroy(); sockets.clear(); };
    proxy.up = () => { proxy.refuse = false; };
    proxy.close = () => new Promise((r) => { for (const s of sockets) s.destroy(); server.close(() => r()); });
    resolve(proxy);
  }));
}

// A database server that is there and never answers: it accepts connections and writes nothing, so
// a client waits for the server's greeting for ever. `accepted` counts the connections, `open` those
// still open; close() ends them all.
function blackHole() {
  const sockets = new Set();
  const hole = { accepted: 0, get open() { return sockets.size; } };
  const server = net.createServer((socket) => {
    hole.accepted++;
    sockets.add(socket);
    socket.on('error', () => {});
    socket.on('close', () => sockets.delete(socket));
  });
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => {
    hole.port = server.address().port;
    hole.close = () => new Promise((r) => { for (const s of sockets) s.destroy(); server.close(() => r()); });
    resolve(hole);
  }));
}

// One service per test: its engines, its port, stopped (drained) afterwards.
// Required lazily: the helpers are also used by tests that never start one.
async function withService(overrides, body) {
  const { createService } = require('../src/server');
  const service = await createService(testConfig(overrides), { silent: true, log: () => {} });
  const http = await serve(service.app);
  try {
    await body(http.url, service);
  } finally {
    await http.close();
    await service.drain();
  }
}

module.exports = {
  engineRoot, repoRoot, conformanceDir, conformanceVectors, testDb, testConfig, serve, call, sleep, waitFor,
  breakableProxy, blackHole, withService, TEST_DB,
};
