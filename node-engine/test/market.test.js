'use strict';
// The fast market against the rules and against the plainly written reference.
const test = require('node:test');
const assert = require('node:assert/strict');
const _ = require('underscore');
const { Market } = require('../src/market');
const { ReferenceMarket } = require('../src/reference-market');

const sell = (id, userId, productId, quantity, priceCents, arrival = 0) =>
  ({ id, side: 'sell', userId, productId, quantity, priceCents, arrival });
const buy = (id, userId, productId, quantity, priceCents = null, arrival = 0) =>
  ({ id, side: 'buy', userId, productId, quantity, priceCents, arrival });

test('orders wait in the inbox until a cycle joins them', () => {
  const m = new Market({ timeoutMs: 1000 });
  m.submit(sell(1, 's', '1', 5, 100));
  m.submit(buy(2, 'b', '1', 2));
  assert.equal(m.pendingCount, 2);
  assert.equal(m.openCount, 0);
  const r = m.cycle(10);
  assert.equal(r.joined, 2);
  assert.equal(m.pendingCount, 0);
  assert.deepEqual(r.sales, [{ productId: '1', buyer: 'b', seller: 's', priceCents: 100, quantity: 2, poId: 2, soId: 1 }]);
  assert.deepEqual(r.filled, [2]);
  assert.deepEqual(m.openOrders(), [{ id: 1, remaining: 3 }]);
});

test('a buyer meets one seller per cycle and the next cheapest in the next cycle', () => {
  const m = new Market({ timeoutMs: 1000 });
  m.submit(sell(1, 's1', '4', 3, 200));
  m.submit(sell(2, 's2', '4', 3, 100));
  m.submit(buy(3, 'b', '4', 10));
  assert.deepEqual(_.pluck(m.cycle(1).sales, 'soId'), [2]);
  // Nothing joined or timed out: the sale of the last cycle is what makes this product trade again.
  assert.deepEqual(_.pluck(m.cycle(2).sales, 'soId'), [1]);
  assert.deepEqual(m.cycle(3).sales, []);
  assert.deepEqual(m.openOrders(), [{ id: 3, remaining: 4 }]);
});

test('a timed-out cheaper seller leaves the book; the buyer meets the next one', () => {
  const m = new Market({ timeoutMs: 100 });
  m.submit(sell(1, 's1', '0', 1, 100, 0));
  m.submit(sell(2, 's2', '0', 1, 200, 80));
  m.cycle(90);
  m.submit(buy(3, 'b', '0', 1, null, 120));
  const r = m.cycle(120); // SO 1 is 120 ms old: it goes before the trade
  assert.deepEqual(r.timedOut, [1]);
  assert.deepEqual(_.pluck(r.sales, 'soId'), [2]);
  assert.deepEqual(m.openOrders(), []);
});

test('an order times out strictly after TIMEOUT_MS, counted from its arrival', () => {
  const m = new Market({ timeoutMs: 100 });
  m.submit(buy(1, 'b', '0', 1, null, 0));
  assert.deepEqual(m.cycle(100).timedOut, []);
  assert.deepEqual(m.cycle(101).timedOut, [1]);
  assert.equal(m.openCount, 0);
});

// A seeded generator (mulberry32) so a failure can be replayed.
function rng(seed) {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6D2B79F5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

// A random stream that goes after the corners: few products and users (ties,
// self-trades, several POs per buyer), a few prices (equal prices), POs with
// and without a limit, bursts of trades, and time-outs.
function randomStream(seed, length) {
  const r = rng(seed);
  const pick = (n) => Math.floor(r() * n);
  const products = 1 + pick(6);
  const users = 2 + pick(8);
  const prices = [100, 150, 150, 200, 275, 300];
  const events = [];
  let t = 0;
  let id = 1000;
  for (let i = 0; i < length; i++) {
    t += pick(4) === 0 ? pick(40) : 0;
    const x = r();
    if (x < 0.2) {
      events.push({ type: 'trade', t });
    } else {
      const side = x < 0.6 ? 'sell' : 'buy';
      id += 1 + pick(3);
      const priceCents = side === 'sell' ? prices[pick(prices.length)] : (pick(3) === 0 ? null : prices[pick(prices.length)]);
      events.push({ type: 'order', order: { id, side, userId: `u${pick(users)}`, productId: String(pick(products)),
        quantity: 1 + pick(pick(5) === 0 ? 200 : 8), priceCents, arrival: t } });
    }
  }
  return { timeoutMs: 30 + pick(200), events };
}

function run(MarketClass, stream, options = {}) {
  const m = new MarketClass({ timeoutMs: stream.timeoutMs, ...options });
  const cycles = [];
  for (const e of stream.events) {
    if (e.type === 'order') { m.submit({ ...e.order }); continue; }
    const r = m.cycle(e.t);
    cycles.push({
      joined: r.joined,
      sales: _.sortBy(_.sortBy(r.sales, 'soId'), 'poId'),
      timedOut: [...r.timedOut].sort((a, b) => a - b),
      filled: [...r.filled].sort((a, b) => a - b),
      open: m.openCount,
    });
  }
  return { cycles, open: _.sortBy(m.openOrders(), 'id') };
}

test('the fast market and the reference market agree on 300 random streams', () => {
  let sales = 0;
  for (let seed = 1; seed <= 300; seed++) {
    const stream = randomStream(seed, 400);
    const fast = run(Market, stream);
    const reference = run(ReferenceMarket, stream);
    assert.deepEqual(fast, reference, `seed ${seed}`);
    sales += _.reduce(fast.cycles, (n, c) => n + c.sales.length, 0);
  }
  assert.ok(sales > 5000, `the streams must actually trade (${sales} sales)`);
});

test('the fast market agrees with the reference when its time-out FIFO drops closed orders every cycle', () => {
  for (let seed = 301; seed <= 350; seed++) {
    const stream = randomStream(seed, 400);
    assert.deepEqual(run(Market, stream, { fifoSlack: 0 }), run(ReferenceMarket, stream), `seed ${seed}`);
  }
});

test('the time-out FIFO holds about the open orders, not every order joined since the oldest open one', () => {
  // One buyer on a product nobody sells waits out its TIMEOUT_MS; meanwhile 100,000 orders on another
  // product fill each other in the cycle they join. A FIFO that only skips closed orders from its head
  // keeps all of them behind the waiting one: a minute of the load held in the heap.
  const m = new Market({ timeoutMs: 60000 });
  m.submit(buy(1, 'patient', '9', 1, null, 0));
  m.cycle(0);
  let id = 1;
  for (let t = 1; t <= 1000; t++) {
    for (let k = 0; k < 50; k++) {
      m.submit(sell(++id, `s${k}`, '0', 1, 100, t));
      m.submit(buy(++id, `b${k}`, '0', 1, null, t));
    }
    assert.equal(m.cycle(t).sales.length, 50);
  }
  assert.equal(m.openCount, 1);
  assert.ok(m.fifoCount <= 2 * m.openCount + 1024 + 100, `the FIFO holds ${m.fifoCount} orders for ${m.openCount} open`);
  // The waiting buyer still times out when it is due, and the FIFO is then empty.
  assert.deepEqual(m.cycle(60000).timedOut, []);
  assert.deepEqual(m.cycle(60001).timedOut, [1]);
  assert.equal(m.fifoCount, 0);
});

test('a cycle does not cost buyers x sellers', () => {
  // 4000 buyers whose limit is below 4000 sellers' prices on one product: no
  // trade is possible. A book that compared every buyer with every seller
  // would do 16 million comparisons per cycle. (Bounds are loose on purpose:
  // the machine is shared; a quadratic book misses them by orders of magnitude.)
  const m = new Market({ timeoutMs: 1e9 });
  let id = 0;
  for (let i = 0; i < 4000; i++) m.submit(sell(++id, `s${i}`, '0', 1, 1000 + i));
  for (let i = 0; i < 4000; i++) m.submit(buy(++id, `b${i}`, '0', 1, 500));
  const first = Date.now();
  m.cycle(1); // every buyer steps aside once
  const firstMs = Date.now() - first;
  const start = Date.now();
  for (let c = 0; c < 1000; c++) m.cycle(2 + c); // nothing changed: nothing to trade
  const idleMs = Date.now() - start;
  assert.ok(firstMs < 5000, `first cycle took ${firstMs} ms`);
  assert.ok(idleMs < 1000, `1000 idle cycles took ${idleMs} ms`);
  // One cheap seller: one trade, then the product settles again.
  m.submit(sell(id + 1, 'cheap', '0', 1, 400));
  assert.equal(m.cycle(2000).sales.length, 1);
  assert.equal(m.openCount, 8000 - 1);
});

test('a busy book trades 100,000 orders quickly', () => {
  const r = rng(7);
  const m = new Market({ timeoutMs: 500 });
  let id = 0;
  let sales = 0;
  const start = Date.now();
  for (let t = 0; t < 1000; t++) {
    for (let k = 0; k < 100; k++) {
      const isSell = r() < 0.5;
      m.submit(isSell
        ? sell(++id, `s${Math.floor(r() * 1000)}`, String(Math.floor(r() * 100)), 1 + Math.floor(r() * 10), 1000 + Math.floor(r() * 19000), t)
        : buy(++id, `b${Math.floor(r() * 1000)}`, String(Math.floor(r() * 100)), 1 + Math.floor(r() * 10), null, t));
    }
    sales += m.cycle(t).sales.length;
  }
  const ms = Date.now() - start;
  assert.ok(sales > 20000, `${sales} sales`);
  assert.ok(ms < 30000, `100,000 orders took ${ms} ms`);
});
