'use strict';
// Test-only fault injection (docs/contract-details.md, "Fault injection"): with
// FAULTS=on, POST /faults/crash-engine?engine=N kills child N; it is replaced
// and its products trade again. Without FAULTS=on the path is a 404.
const test = require('node:test');
const assert = require('node:assert/strict');
const { loadConfig } = require('../src/config');
const { call, waitFor, withService } = require('../test-support/helpers');

test('FAULTS is off unless the environment says on', () => {
  assert.equal(loadConfig({}).faults, false);
  assert.equal(loadConfig({ FAULTS: 'off' }).faults, false);
  assert.equal(loadConfig({ FAULTS: 'on' }).faults, true);
  assert.equal(loadConfig({ FAULTS: 'ON' }).faults, true);
});

test('without FAULTS=on the crash path is unknown: 404', () => withService({}, async (url, service) => {
  const pid = service.engines.engines[0].child.pid;
  const r = await call(url, 'POST', '/faults/crash-engine?engine=0');
  assert.equal(r.status, 404);
  assert.deepEqual(r.json, { error: 'not found: /faults/crash-engine' });
  assert.equal(service.engines.engines[0].child.pid, pid);
}));

test('bad engine numbers and wrong methods are refused, nothing is killed', () =>
  withService({ faults: true, engines: 2 }, async (url, service) => {
    const pids = service.engines.engines.map((e) => e.child.pid);
    for (const q of ['', '?engine=', '?engine=2', '?engine=-1', '?engine=abc', '?engine=0&engine=1', '?engine=%zz']) {
      const r = await call(url, 'POST', `/faults/crash-engine${q}`);
      assert.equal(r.status, 400, q);
      assert.deepEqual(r.json, { error: 'engine must be an integer in 0..1' });
    }
    const g = await call(url, 'GET', '/faults/crash-engine?engine=0');
    assert.equal(g.status, 405);
    assert.equal(g.headers.get('allow'), 'POST');
    assert.deepEqual(service.engines.engines.map((e) => e.child.pid), pids);
  }));

test('with FAULTS=on the crash kills that child; it is replaced and trades again, the other keeps going', () =>
  withService({ faults: true, engines: 2, workerThreads: 2 }, async (url, service) => {
    const oldPid = service.engines.engines[1].child.pid;
    const otherPid = service.engines.engines[0].child.pid;
    const r = await call(url, 'POST', '/faults/crash-engine?engine=1');
    assert.equal(r.status, 202);
    assert.deepEqual(r.json, { engine: 1, status: 'crashing' });
    await waitFor(() => service.engines.engines[1].restarts === 1, { what: 'engine 1 to be noticed dead' });
    // product 0 belongs to engine 0: it never stopped
    assert.equal((await call(url, 'POST', '/buy?userId=b&productId=0&quantity=1')).status, 202);
    await waitFor(async () => (await call(url, 'POST', '/buy?userId=b&productId=1&quantity=1')).status === 202,
      { what: 'engine 1 to be replaced' });
    assert.notEqual(service.engines.engines[1].child.pid, oldPid);
    assert.equal(service.engines.engines[0].child.pid, otherPid);
    await waitFor(() => service.engines.stats()[1].openOrders === 1, { what: 'the new child to take orders' });
  }));
