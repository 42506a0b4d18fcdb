'use strict';
// The orders' ring of a worker thread (src/order-ring.js): what is written is
// read back whole and in order, across the end of the buffer, and a full ring
// refuses rather than overwrites.
const test = require('node:test');
const assert = require('node:assert/strict');
const { OrderRing } = require('../src/order-ring');

function order(i) {
  return {
    id: 1_700_000_000_000_000 + i, side: i % 2 ? 'sell' : 'buy', userId: `${i % 2 ? 's' : 'b'}${i}${'x'.repeat(i % 60)}`,
    productId: String(i % 100), quantity: 1 + (i % 7), priceCents: i % 3 === 0 ? null : 100 + i, arrival: 1_700_000_000_000 + i,
  };
}

function takeAll(ring) {
  const got = [];
  ring.takeAll((o) => got.push(o));
  return got;
}

test('orders come back whole and in order, across the end of the ring, as the reader sees them', () => {
  const writer = OrderRing.create(5); // 5 orders fit
  const reader = new OrderRing(writer.buffer);
  assert.ok(reader.isEmpty());
  let next = 0;
  for (let round = 0; round < 7; round++) { // wraps around several times
    const sent = [];
    for (let k = 0; k < 1 + (round % 5); k++) { const o = order(next++); assert.equal(writer.push(o), true); sent.push(o); }
    assert.equal(reader.isEmpty(), false);
    assert.deepEqual(takeAll(reader), sent);
    assert.ok(reader.isEmpty());
  }
  const longest = { ...order(1), userId: 'u'.repeat(64) };
  writer.push(longest);
  assert.deepEqual(takeAll(reader), [longest]);
});

test('a full ring refuses the next order and takes it once the reader has read', () => {
  const writer = OrderRing.create(3);
  const reader = new OrderRing(writer.buffer);
  for (let i = 0; i < 3; i++) assert.equal(writer.push(order(i)), true);
  assert.equal(writer.push(order(3)), false);
  assert.deepEqual(takeAll(reader).map((o) => o.id), [0, 1, 2].map((i) => order(i).id));
  assert.equal(writer.push(order(3)), true);
  assert.deepEqual(takeAll(reader).map((o) => o.id), [order(3).id]);
});

test('the ring holds at most INBOX_LIMIT orders, and a bounded number for a large limit', () => {
  assert.equal(OrderRing.create(10).slots, 11);
  assert.ok(OrderRing.create(100_000_000).buffer.byteLength < 1024 * 1024);
});
