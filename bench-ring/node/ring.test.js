'use strict';
// Every Node ring delivers exactly members x messages hand-overs per round, and a miscount fails the round.
const test = require('node:test');
const assert = require('node:assert');
const { main, parse, checked } = require('./ring.js');

for (const ring of ['loop-immediate', 'loop-microtask', 'workers', 'children']) {
  test(`${ring} delivers every hand-over once`, async () => {
    const lines = [];
    const rounds = await main(parse(['--ring', ring, '--members', '100', '--messages', '20', '--threads', '2',
      '--warmups', '1', '--rounds', '2']), (l) => lines.push(l));
    assert.strictEqual(rounds.length, 2);
    for (const r of rounds) {
      assert.strictEqual(r.handovers, 100 * 20);
      assert.ok(r.wallNs > 0);
      assert.ok(r.cpuNs >= 0);
    }
    assert.strictEqual(lines.length, 2);
  });
}

test('a round that dropped or double-delivered fails', () => {
  const o = parse(['--members', '100', '--messages', '20']);
  assert.throws(() => checked({ received: 1999 }, o), /delivered 1999 hand-overs, expected 2000/);
  assert.throws(() => checked({ received: 2001 }, o), /delivered 2001/);
  assert.strictEqual(checked({ received: 2000 }, o).received, 2000);
});

test('an unknown option is refused', () => {
  assert.throws(() => parse(['--ringg', 'x']), /unknown option/);
});
