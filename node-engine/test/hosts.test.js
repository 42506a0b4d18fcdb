'use strict';
// WORKERS: where the engines run. The rest of the suite runs once per kind
// (harness/tradebench_harness/suites/testrun.py); this file checks that each kind is what it says.
const test = require('node:test');
const assert = require('node:assert/strict');
const { loadConfig, ConfigError } = require('../src/config');
const { call, waitFor, withService } = require('../test-support/helpers');

test('WORKERS is processes unless it says threads; anything else is refused', () => {
  assert.equal(loadConfig({}).workers, 'processes');
  assert.equal(loadConfig({ WORKERS: 'threads' }).workers, 'threads');
  assert.equal(loadConfig({ WORKERS: ' Threads ' }).workers, 'threads');
  assert.throws(() => loadConfig({ WORKERS: 'fibers' }), ConfigError);
});

for (const [workers, kind] of [['processes', 'process'], ['threads', 'thread']]) {
  test(`WORKERS=${workers}: every engine is a ${kind}, and orders reach it`, () =>
    withService({ workers, engines: 2 }, async (url, service) => {
      const hosts = service.engines.engines.map((e) => e.child);
      assert.deepEqual(hosts.map((h) => h.kind), [kind, kind]);
      for (const h of hosts) {
        if (kind === 'process') {
          assert.notEqual(h.pid, process.pid);
          process.kill(h.pid, 0); // a live process of its own: throws if there is none
        } else {
          assert.ok(Number.isInteger(h.id) && h.id > 0, `a worker's threadId, not a pid (${h.id})`);
        }
      }
      for (const p of [0, 1]) assert.equal((await call(url, 'POST', `/sell?userId=s&productId=${p}&quantity=1&price=1`)).status, 202);
      await waitFor(() => service.engines.stats().every((e) => e.openOrders === 1), { what: 'each engine to hold its order' });
    }));
}
