'use strict';
// The parent's bookkeeping: ids, the order registry, the counters and the stats line.
const test = require('node:test');
const assert = require('node:assert/strict');
const { IdSource, SharedIdSource } = require('../src/ids');
const { OrderRegistry } = require('../src/order-registry');
const { Stats } = require('../src/stats');
const { parsePriceText, priceOfCents } = require('../src/prices');

test('HTTP threads share one id sequence: ids grow over all of them, arrivals never go back, the issued range covers them', () => {
  const shared = SharedIdSource.create();
  const far = Date.now() * 1000 + 10_000_000_000;
  shared.raiseFloor(far);
  shared.raiseFloor(5); // a floor only rises
  const threads = [shared, new SharedIdSource(shared.buffer), new SharedIdSource(shared.buffer)];
  assert.equal(shared.issued(far), false);
  const taken = [];
  for (let i = 0; i < 300; i++) {
    const t = threads[(i * 7) % 3];
    taken.push([t.next(), t.arrival]);
  }
  assert.equal(taken[0][0], far);
  for (let i = 1; i < taken.length; i++) {
    assert.ok(taken[i][0] > taken[i - 1][0] && taken[i][1] >= taken[i - 1][1], `${taken[i - 1]} then ${taken[i]}`);
  }
  for (const t of threads) {
    assert.ok(t.issued(far) && t.issued(taken[299][0]));
    assert.ok(!t.issued(far - 1) && !t.issued(taken[299][0] + 1));
  }
});

test('ids increase, follow the clock in microseconds, and respect the stored floor', () => {
  const ids = new IdSource();
  const before = Date.now() * 1000;
  const a = ids.next();
  const b = ids.next();
  assert.ok(a >= before && b > a);
  assert.ok(Number.isSafeInteger(b));
  const far = Date.now() * 1000 + 10_000_000_000; // an id stored by a run whose clock was ahead
  ids.raiseFloor(far + 1);
  assert.equal(ids.next(), far + 1);
  assert.equal(ids.next(), far + 2);
});

test('the registry follows sales and time-outs, and forgets the oldest closed orders', () => {
  const reg = new OrderRegistry({ closedKept: 2 });
  const order = (id, side, quantity) => ({ id, side, userId: 'u', productId: '1', quantity, priceCents: null });
  reg.add(order(10, 'sell', 5), 0);
  reg.add(order(11, 'buy', 3), 0);
  reg.add(order(12, 'buy', 4), 1);
  reg.applySales([11, 10, 3, 12, 10, 2]);
  assert.equal(reg.get(10).status, 'filled');
  assert.equal(reg.get(11).status, 'filled');
  assert.equal(reg.get(12).remaining, 2);
  reg.applyTimedOut([12]);
  assert.equal(reg.get(12).status, 'timed_out');
  // three closed, two kept: the first closed is forgotten but still "issued"
  assert.equal(reg.get(11), undefined);
  assert.ok(reg.issued(11));
  assert.ok(!reg.issued(13) && !reg.issued(9));
  reg.add(order(13, 'buy', 1), 1);
  assert.equal(reg.forgetEngine(1), 1); // only open orders of that engine
  assert.equal(reg.get(13), undefined);
  assert.equal(reg.get(12).status, 'timed_out');
});

test('the stats line and the last minute of sales', () => {
  const stats = new Stats('node-engine');
  stats.accepted = 7;
  stats.rejected = 2;
  stats.overloaded = 1;
  const t0 = 1_000_000_000_000;
  stats.addSales(3, t0);
  stats.addSales(4, t0 + 30_000);
  assert.equal(stats.salesLastMinute(t0 + 59_000), 7);
  assert.equal(stats.salesLastMinute(t0 + 61_000), 4);
  assert.equal(stats.salesLastMinute(t0 + 200_000), 0);
  const engines = [
    { engine: 0, accepted: 4, openOrders: 2, pendingOrders: 1, salesPersisted: 3, cycles: 9, persistenceFailures: 0 },
    { engine: 1, accepted: 3, openOrders: 1, pendingOrders: 0, salesPersisted: 4, cycles: 8, persistenceFailures: 5 },
  ];
  assert.match(stats.line(engines),
    /^stats variant=node-engine accepted=7 rejected=2 overloaded=1 sales=7 salesLastMinute=\d+ open=3 pending=1 failures=5$/);
  assert.deepEqual(Object.keys(stats.snapshot(engines)), ['variant', 'uptimeMs', 'accepted', 'rejected', 'overloaded',
    'salesPersisted', 'salesLastMinute', 'persistenceFailures', 'openOrders', 'pendingOrders', 'engines']);
});

test('prices are exact integer cents', () => {
  assert.equal(parsePriceText('12'), 1200);
  assert.equal(parsePriceText('12.5'), 1250);
  assert.equal(parsePriceText('0.29'), 29); // 0.29 * 100 is 28.999999999999996 in floating point
  assert.equal(parsePriceText('1000000000.00'), 100000000000);
  for (const bad of ['', '.5', '12.', '1e3', '-1', '1.234', ' 1', '1,5']) assert.equal(parsePriceText(bad), null, bad);
  // at most 10 digits before the point, leading zeros included (the Java variants' rule)
  assert.equal(parsePriceText('0000000012.5'), 1250);
  assert.equal(parsePriceText('00000000012'), null);
  assert.equal(parsePriceText('000000000001.5'), null);
  assert.equal(priceOfCents(1050), 10.5);
  assert.equal(priceOfCents(29), 0.29);
});
