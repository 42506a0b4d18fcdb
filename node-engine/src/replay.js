'use strict';
// `./tradebench replay node SCENARIO.json`: contract section 2 on stdout.
// `--reference` runs the plainly written reference market instead.
const fs = require('node:fs');
const { runScenario, formatResult } = require('./scenario');
const { ReferenceMarket } = require('./reference-market');

function main(argv) {
  const args = argv.slice(2);
  const reference = args.includes('--reference');
  const files = args.filter((a) => a !== '--reference');
  if (files.length !== 1) {
    process.stderr.write('usage: node src/replay.js [--reference] SCENARIO.json\n');
    return 2;
  }
  let scenario;
  try {
    scenario = JSON.parse(fs.readFileSync(files[0], 'utf8'));
  } catch (err) {
    process.stderr.write(`replay: cannot read ${files[0]}: ${err.message}\n`);
    return 1;
  }
  const result = runScenario(scenario, reference ? { MarketClass: ReferenceMarket } : {});
  process.stdout.write(formatResult(result));
  return 0;
}

if (require.main === module) process.exitCode = main(process.argv);
