'use strict';
// Configuration from the environment, contract section 5 names. A bad value is a
// ConfigError naming the variable; server.js prints it and exits non-zero.
const os = require('node:os');
const { KINDS } = require('./engine-hosts');

class ConfigError extends Error {}

const DEFAULTS = {
  PORT: '3000', ENGINES: '4', DELAY_MS: '3', TIMEOUT_MS: '60000', PRODUCTS: '100',
  INBOX_LIMIT: '10000', PERSIST: 'per-sale', DB_HOST: '127.0.0.1', DB_PORT: '3306',
  DB_NAME: 'TRADER', DB_USER: 'trader', DB_PASSWORD: 'trader', DB_POOL: '8',
};

function integer(env, name, min, max) {
  const text = String(env[name] ?? DEFAULTS[name]).trim();
  if (!/^[0-9]+$/.test(text) || Number(text) < min || Number(text) > max) {
    throw new ConfigError(`${name} must be an integer in ${min}..${max} (got ${JSON.stringify(env[name])})`);
  }
  return Number(text);
}

function text(env, name, { allowEmpty = false } = {}) {
  const value = env[name] ?? DEFAULTS[name];
  if (!allowEmpty && value === '') throw new ConfigError(`${name} must not be empty`);
  return value;
}

function loadConfig(env = process.env) {
  const persist = text(env, 'PERSIST');
  if (persist !== 'per-sale' && persist !== 'batch') {
    throw new ConfigError(`PERSIST must be per-sale or batch (got ${JSON.stringify(persist)})`);
  }
  const workers = workersOf(env);
  const listeners = listenersOf(env);
  if (listeners > 1 && workers !== 'threads') {
    throw new ConfigError(`LISTENERS above 1 needs WORKERS=threads: the HTTP threads hand orders to engine threads through shared memory (got LISTENERS=${listeners}, WORKERS=${workers})`);
  }
  if (listeners > 1 && process.platform !== 'linux') {
    throw new ConfigError('LISTENERS above 1 needs Linux: the HTTP threads share the port with SO_REUSEPORT');
  }
  const dbName = text(env, 'DB_NAME');
  if (!/^[A-Za-z0-9_]+$/.test(dbName)) throw new ConfigError(`DB_NAME must be letters, digits and _ (got ${JSON.stringify(dbName)})`);
  return {
    port: integer(env, 'PORT', 0, 65535),
    engines: integer(env, 'ENGINES', 1, 256),
    delayMs: integer(env, 'DELAY_MS', 0, 60000),
    timeoutMs: integer(env, 'TIMEOUT_MS', 1, 86400000),
    products: integer(env, 'PRODUCTS', 1, 1000000),
    inboxLimit: integer(env, 'INBOX_LIMIT', 1, 100000000),
    persist,
    workers,
    workerThreads: workerThreadsOf(env),
    listeners,
    // Test knob (docs/contract-running.md, section 5): CPU microseconds spent on every accepted order, on the thread that
    // answers it; 0 (the default) spends none. Makes the variant slower on purpose, for the harness's
    // check that a regression is detected.
    testWorkUs: testWorkUsOf(env),
    // Test-only fault injection (docs/contract-details.md): POST /faults/crash-engine.
    faults: String(env.FAULTS ?? 'off').toLowerCase() === 'on',
    db: {
      host: text(env, 'DB_HOST'),
      port: integer(env, 'DB_PORT', 1, 65535),
      database: dbName,
      user: text(env, 'DB_USER'),
      password: text(env, 'DB_PASSWORD', { allowEmpty: true }),
      poolSize: integer(env, 'DB_POOL', 1, 1000),
    },
    read: readPathOf(env),
  };
}

// The order view's read path (docs/contract-details.md, section 8): its own server (by default the writers'),
// its own pool, its limit and its time-out. Blank means the default, as in the Java variants
// (engine-model ReadPath).
const READ_DEFAULTS = { READ_POOL: '16', READ_TIMEOUT_MS: '2000', VIEW_LIMIT: '64' };

function readPathOf(env) {
  const given = (name, dflt) => (env[name] === undefined || String(env[name]).trim() === '' ? dflt : String(env[name]).trim());
  const withDefaults = {
    READ_DB_PORT: given('READ_DB_PORT', String(env.DB_PORT ?? DEFAULTS.DB_PORT)),
    READ_POOL: given('READ_POOL', READ_DEFAULTS.READ_POOL),
    READ_TIMEOUT_MS: given('READ_TIMEOUT_MS', READ_DEFAULTS.READ_TIMEOUT_MS),
    VIEW_LIMIT: given('VIEW_LIMIT', READ_DEFAULTS.VIEW_LIMIT),
  };
  return {
    host: given('READ_DB_HOST', text(env, 'DB_HOST')),
    port: integer(withDefaults, 'READ_DB_PORT', 1, 65535),
    poolSize: integer(withDefaults, 'READ_POOL', 1, 10000),
    timeoutMs: integer(withDefaults, 'READ_TIMEOUT_MS', 1, 600000),
    viewLimit: integer(withDefaults, 'VIEW_LIMIT', 0, 1000000),
  };
}

function testWorkUsOf(env) {
  const raw = String(env.TEST_WORK_US ?? '0').trim() || '0';
  const n = Number(raw);
  if (!Number.isInteger(n) || n < 0 || n > 100000) {
    throw new ConfigError(`TEST_WORK_US must be a whole number of microseconds from 0 to 100000 (got ${JSON.stringify(env.TEST_WORK_US)})`);
  }
  return n;
}

// WORKERS: where the engines run. processes (the 2014 design: a child process each) or threads
// (worker_threads of the HTTP process).
function workersOf(env) {
  const w = String(env.WORKERS ?? 'processes').trim().toLowerCase() || 'processes';
  if (!KINDS.includes(w)) throw new ConfigError(`WORKERS must be processes or threads (got ${JSON.stringify(env.WORKERS)})`);
  return w;
}

// WORKER_THREADS (WORKERS=threads only): how many worker threads run the engines, engine e on
// worker e mod WORKER_THREADS. By default one per core but one, at least one and no more than there
// are engines. The HTTP thread is what bounds this mode at saturation, and it needs a core of its
// own: the workers share the others. A worker for several engines wakes once for all of them, where
// a worker per engine would wake once per engine and cycle, and more workers than the cores left
// only take turns on them, and on the HTTP thread's. A worker that dies takes its engines with it:
// WORKER_THREADS=ENGINES keeps every engine apart, at that cost.
function defaultWorkerThreads(engines, cores = os.availableParallelism()) {
  return Math.max(1, Math.min(engines, cores - 1));
}

function workerThreadsOf(env) {
  const engines = integer(env, 'ENGINES', 1, 256);
  if (env.WORKER_THREADS === undefined || String(env.WORKER_THREADS).trim() === '') return defaultWorkerThreads(engines);
  return Math.min(engines, integer(env, 'WORKER_THREADS', 1, 256));
}

// LISTENERS (WORKERS=threads only): how many threads answer HTTP on PORT, the main one and
// LISTENERS - 1 worker threads beside it, each with a listening socket of its own on the port
// (SO_REUSEPORT: the kernel spreads the connections over them). `cores`: one per core. One HTTP
// thread bounds the threads mode at saturation; each further one takes the parsing, validation
// and answers of its connections off it.
function listenersOf(env, cores = os.availableParallelism()) {
  const value = String(env.LISTENERS ?? '').trim().toLowerCase();
  if (value === '') return 1;
  if (value === 'cores') return Math.min(64, cores);
  return integer(env, 'LISTENERS', 1, 64);
}

module.exports = { loadConfig, ConfigError, defaultWorkerThreads };
