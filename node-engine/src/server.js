'use strict';
// node-engine entry: the main thread. It wires settings, middleware and
// routes (createApp: the Express app behind the orders' fast path of
// src/front.js, listened to like an Express app; every HTTP thread builds one),
// starts the engine hosts and the database pool (createService; with LISTENERS
// the further HTTP threads when it listens), and listens only when run
// directly, so tests use the app without a fixed port.
const express = require('express');
const { createFront } = require('./front');
const { loadConfig, ConfigError } = require('./config');
const { createPool, largestStoredOrderId } = require('./db');
const { EnginePool } = require('./engine-pool');
const { OrderRegistry } = require('./order-registry');
const { IdSource, SharedIdSource } = require('./ids');
const { Stats, Tally } = require('./stats');
const { Peers } = require('./peers');
const { HttpThreads } = require('./http-threads');
const { ReadPath } = require('./read-path');
const { orderEntry } = require('./handlers/order-entry');
const { orderStatus } = require('./handlers/order-status');
const { statsReport } = require('./handlers/stats');
const { health } = require('./handlers/health');
const { methodNotAllowed, notFound, errorHandler, clientError } = require('./handlers/errors');
const faults = require('./handlers/faults');

const VARIANT = 'node-engine';
const STATS_EVERY_MS = 5000;

// deps: {config, engines, registry, ids, stats, pool, readPath, state: {shuttingDown}}, and where several
// HTTP threads share the service: counts (this thread's order counters), lookup(id) (an order's
// record from any thread), issued(id), snapshot() (the /stats body). One thread: all from its own.
function createApp(given) {
  const deps = {
    counts: given.stats,
    lookup: async (id) => given.registry.get(id),
    issued: (id) => given.registry.issued(id),
    snapshot: () => given.stats.snapshot(given.engines.stats()),
    ...given,
  };
  const app = express();
  app.disable('x-powered-by');
  app.set('etag', false);          // counters and statuses change: no 304s
  app.set('query parser', false);  // validation.js reads the raw query string
  // Paths match exactly, as in the Java variants: /BUY and /buy/ are 404s.
  app.set('case sensitive routing', true);
  app.set('strict routing', true);

  // A form POST may carry the parameters in its body; kept as text and parsed
  // with the query string's parser (repeats and bad encoding are 400s). Only
  // the order routes' POSTs read a body: no other request pays for the parser.
  const formBody = express.text({ type: 'application/x-www-form-urlencoded', limit: '16kb' });

  // HEAD is refused explicitly: Express would otherwise run the GET handler,
  // and a HEAD must not place an order.
  const orderMethods = methodNotAllowed('GET, POST');
  const buy = orderEntry('buy', deps);
  const sell = orderEntry('sell', deps);
  app.route('/buy').head(orderMethods).get(buy).post(formBody, buy).all(orderMethods);
  app.route('/sell').head(orderMethods).get(sell).post(formBody, sell).all(orderMethods);
  app.route('/orders/:id').get(orderStatus(deps)).all(methodNotAllowed('GET'));
  app.route('/stats').get(statsReport(deps)).all(methodNotAllowed('GET'));
  app.route('/health').get(health(deps)).all(methodNotAllowed('GET'));
  // Test-only (FAULTS=on): the reliability suite's crash of one engine. Unrouted otherwise: 404.
  if (deps.config.faults) app.route(faults.PATH).post(faults.crashEngine(deps)).all(methodNotAllowed('POST'));

  app.use(notFound);
  app.use(errorHandler);
  // The orders without a body skip Express (src/front.js); the same handlers.
  return createFront(app, buy, sell);
}

// Everything the app needs, started: the pool, the order view's read path (src/read-path.js: a pool of
// its own, opened on demand), the id floor, the engines; with several HTTP threads
// (LISTENERS) what they share: one id sequence, their counters, their lookups of each other's orders.
// listen(port, host) serves it: on the main thread, and on the further HTTP threads beside it.
// eslint-disable-next-line complexity -- the app's wiring, read in the order it starts; its branches are one HTTP thread or several (LISTENERS with WORKERS=threads)
async function createService(config, { silent = false, log = (line) => process.stdout.write(`${line}\n`) } = {}) {
  const pool = createPool(config.db);
  const readPath = ReadPath.open(config);
  const threads = config.workers === 'threads' ? config.listeners || 1 : 1;
  const ids = threads > 1 ? SharedIdSource.create() : new IdSource();
  try {
    ids.raiseFloor((await largestStoredOrderId(pool)) + 1);
  } catch (err) {
    // The clock alone keeps ids above earlier runs' unless it went backwards.
    log(`warning: could not read the largest stored order id (${err.code || err.message}); ids start from the clock`);
  }
  const registry = new OrderRegistry();
  const tallyBuffer = threads > 1 ? Tally.buffer(threads, config.engines) : null;
  const tally = tallyBuffer ? new Tally(tallyBuffer, 0, config.engines) : null;
  const stats = new Stats(VARIANT, tally);
  const engines = new EnginePool(config, { silent });
  engines.on('sales', (flat, engine, sold) => { registry.applySales(flat); stats.addSales(sold); });
  engines.on('timedOut', (list) => registry.applyTimedOut(list));
  engines.on('lost', (engine) => {
    const n = registry.forgetEngine(engine);
    log(`engine ${engine}: ${n} open orders lost with the child; they now answer status unknown`);
  });
  const engineStats = () => engines.stats(tally ? (e) => tally.engineSum(e, 0) : undefined);
  const snapshot = () => stats.snapshot(engineStats());
  const http = threads > 1 ? new HttpThreads({ config, engines, ids, tallyBuffer, snapshot, silent }) : null;
  const peers = new Peers(registry, http ? http.mainPeerPorts : []);
  await engines.start();
  const state = { shuttingDown: false };
  const deps = {
    config, engines, registry, ids, stats, pool, readPath, state, counts: tally || stats, snapshot,
    lookup: (id) => peers.lookup(id), issued: (id) => (http ? ids.issued(id) : registry.issued(id)),
  };
  const app = createApp(deps);

  // The main thread first (on PORT=0 it picks the port), then the others on the same port.
  async function listen(port, host) {
    if (!http) {
      return new Promise((resolve, reject) => {
        const server = app.listen(port, host, () => resolve(server));
        server.once('error', reject);
      });
    }
    const server = await new Promise((resolve, reject) => {
      const s = app.listen({ port, host, reusePort: true }, () => resolve(s));
      s.once('error', reject);
    });
    await http.start(server.address().port, host);
    return server;
  }

  // SIGTERM: stop accepting on every HTTP thread, let every engine join its
  // inbox and store its sales, then close the pool. Resolves with the exit line.
  async function drain() {
    state.shuttingDown = true;
    if (http) await http.stop();
    await engines.drain();
    if (http) await http.close();
    await pool.end().catch(() => {});
    await readPath.close();
    return `exit variant=${VARIANT} accepted=${stats.accepted} sales=${stats.salesPersisted}`;
  }
  return { app, listen, drain, engineStats, ...deps };
}

async function main() {
  let config;
  try {
    config = loadConfig();
  } catch (err) {
    if (!(err instanceof ConfigError)) throw err;
    process.stderr.write(`node-engine: configuration error: ${err.message}\n`);
    process.exit(2);
  }
  const service = await createService(config);
  let server;
  try {
    server = await service.listen(config.port);
  } catch (err) {
    process.stderr.write(`node-engine: cannot listen on port ${config.port}: ${err.message}\n`);
    await service.drain();
    process.exit(1);
  }
  server.on('clientError', clientError);
  {
    const threads = config.workers === 'threads'
      ? `threads: ${Math.min(config.engines, config.workerThreads)} workers, ${config.listeners} HTTP threads` : 'processes';
    process.stdout.write(`node-engine listening on port ${server.address().port}: ${config.engines} engines (${threads}), ` +
      `PERSIST=${config.persist}, DELAY_MS=${config.delayMs}, TIMEOUT_MS=${config.timeoutMs}, ` +
      `PRODUCTS=${config.products}, INBOX_LIMIT=${config.inboxLimit}, database ${config.db.host}:${config.db.port}/${config.db.database}, ` +
      `order views from ${config.read.host}:${config.read.port} (READ_POOL=${config.read.poolSize} per HTTP thread, ` +
      `READ_TIMEOUT_MS=${config.read.timeoutMs}, VIEW_LIMIT=${config.read.viewLimit})\n`);
  }
  const statsTimer = setInterval(() => {
    process.stdout.write(`${service.stats.line(service.engineStats())}\n`);
  }, STATS_EVERY_MS);

  let stopping = false;
  const stop = async (signal) => {
    if (stopping) return;
    stopping = true;
    process.stdout.write(`node-engine: ${signal}: draining the engines\n`);
    server.close();
    server.closeIdleConnections();
    const exitLine = await service.drain();
    clearInterval(statsTimer);
    server.closeAllConnections();
    process.stdout.write(`${service.stats.line(service.engineStats())}\n${exitLine}\n`);
    process.exit(0);
  };
  process.on('SIGTERM', () => stop('SIGTERM'));
  process.on('SIGINT', () => stop('SIGINT'));
}

if (require.main === module) {
  main().catch((err) => {
    process.stderr.write(`node-engine: failed to start: ${err.stack || err}\n`);
    process.exit(1);
  });
}

module.exports = { createApp, createService };
