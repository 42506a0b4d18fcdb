'use strict';
// contract section 2: the replay reproduces every vector of docs/conformance
// exactly, through the same command the launcher runs.
const test = require('node:test');
const assert = require('node:assert/strict');
const fs = require('node:fs');
const path = require('node:path');
const { execFileSync } = require('node:child_process');
const { conformanceVectors, engineRoot } = require('../test-support/helpers');
const { runScenario } = require('../src/scenario');
const { ReferenceMarket } = require('../src/reference-market');

const REPLAY = path.join(engineRoot, 'src', 'replay.js');
const KEYS = {
  sales: ['cycle', 'productId', 'buyer', 'seller', 'price', 'quantity', 'poId', 'soId'],
  timedOut: ['cycle', 'id'],
  open: ['id', 'remaining'],
};
const STRINGS = new Set(['productId', 'buyer', 'seller']);

// Exactly the keys, strings where strings belong, integers everywhere else
// but price, and prices equal as numbers.
function assertSameResult(actual, expected) {
  assert.deepEqual(Object.keys(actual).sort(), ['open', 'sales', 'timedOut']);
  for (const section of Object.keys(KEYS)) {
    assert.equal(actual[section].length, expected[section].length, `${section}: number of records`);
    actual[section].forEach((record, i) => {
      assert.deepEqual(Object.keys(record).sort(), [...KEYS[section]].sort(), `${section}[${i}] keys`);
      for (const key of KEYS[section]) {
        const a = record[key];
        const e = expected[section][i][key];
        if (STRINGS.has(key)) assert.equal(typeof a, 'string', `${section}[${i}].${key} is a string`);
        else if (key === 'price') assert.ok(Math.abs(a - e) < 1e-9, `${section}[${i}].price ${a} != ${e}`);
        else assert.ok(Number.isInteger(a), `${section}[${i}].${key} is an integer`);
        if (key !== 'price') assert.equal(a, e, `${section}[${i}].${key}`);
      }
    });
  }
}

const vectors = conformanceVectors();

test('the conformance folder has the vectors', () => {
  assert.ok(vectors.length >= 30, `only ${vectors.length} vectors`);
  assert.ok(vectors.some((v) => v.name === 'stress-5000'));
});

for (const v of vectors) {
  test(`replay reproduces ${v.name}`, () => {
    const expected = JSON.parse(fs.readFileSync(v.resultFile, 'utf8'));
    const stdout = execFileSync(process.execPath, [REPLAY, v.scenarioFile], { encoding: 'utf8' });
    // The printed text, not an object: integers must not be written 3.0.
    assert.doesNotMatch(stdout, /"(cycle|quantity|poId|soId|id|remaining)":\s*-?\d+\.\d/);
    assertSameResult(JSON.parse(stdout), expected);
  });

  test(`reference market reproduces ${v.name}`, () => {
    const expected = JSON.parse(fs.readFileSync(v.resultFile, 'utf8'));
    const scenario = JSON.parse(fs.readFileSync(v.scenarioFile, 'utf8'));
    assertSameResult(runScenario(scenario, { MarketClass: ReferenceMarket }), expected);
  });
}

test('replay without a file says how to use it and fails', () => {
  assert.throws(() => execFileSync(process.execPath, [REPLAY], { stdio: 'pipe' }), /usage/);
});
