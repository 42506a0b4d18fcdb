'use strict';
// Not a test: `node src/bench-market.js [ORDERS] [--time MS] [--check ORDERS] [--reference]`.
// Replays the load client's mix (half buys without a limit, half sells at
// 10.00..200.00, quantities 1..10, 100 products, 1000 users, a cycle every
// 1,000 orders, one simulated ms per order, TIMEOUT_MS 60000) through the
// fast Market, measured with tinybench: the replay of ORDERS orders (100,000)
// is one sample, repeated for --time ms (5,000; at least 10 samples) after a
// 1 s warm-up (at least 2 replays); the
// result is the mean with its 95 % margin of error (Student's t), the
// standard deviation, the median and p99, and the number of samples, in ms
// per replay and in orders/s. Before that, the fast Market and the
// ReferenceMarket replay the first --check orders (20,000) and must give the
// same sales (exit 1 otherwise). --reference also measures the
// ReferenceMarket (slow: it rescans every seller for every buyer).
const { Market } = require('./market');
const { ReferenceMarket } = require('./reference-market');

function generate(count, seed = 42) {
  let a = seed >>> 0;
  const random = () => { // mulberry32
    a = (a + 0x6D2B79F5) >>> 0;
    let t = Math.imul(a ^ (a >>> 15), a | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  const orders = [];
  for (let i = 1; i <= count; i++) {
    const isSell = random() < 0.5;
    const k = Math.floor(random() * 1000);
    orders.push({
      id: i, side: isSell ? 'sell' : 'buy', userId: `${isSell ? 's' : 'b'}${k}`,
      productId: String(Math.floor(random() * 100)), quantity: 1 + Math.floor(random() * 10),
      priceCents: isSell ? 1000 + Math.floor(random() * 19001) : null, arrival: i,
    });
  }
  return orders;
}

function run(MarketClass, orders) {
  const market = new MarketClass({ timeoutMs: 60000 });
  const started = process.hrtime.bigint();
  let sales = 0;
  let checksum = 0;
  orders.forEach((o, i) => {
    market.submit(o);
    if ((i + 1) % 1000 === 0 || i === orders.length - 1) {
      for (const s of market.cycle(o.arrival).sales) {
        sales++;
        // order-free: the two markets may list a cycle's products in other orders
        checksum = (checksum + ((s.poId * 7919 + s.soId * 104729 + s.quantity * 31 + s.priceCents) % 1000000007)) % 1000000007;
      }
    }
  });
  const seconds = Number(process.hrtime.bigint() - started) / 1e9;
  return { seconds, sales, checksum, perSecond: Math.round(orders.length / seconds) };
}

const USAGE = 'usage: node src/bench-market.js [ORDERS] [--time MS] [--check ORDERS] [--reference]';

function parseArgs(argv) {
  const o = { count: 100000, time: 5000, check: 20000, reference: false };
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    if (a === '--reference') o.reference = true;
    else if (a === '--time' && /^[0-9]+$/.test(argv[i + 1] || '')) o.time = Number(argv[++i]);
    else if (a === '--check' && /^[0-9]+$/.test(argv[i + 1] || '')) o.check = Number(argv[++i]);
    else if (/^[0-9]+$/.test(a)) o.count = Number(a);
    else throw new Error(`bad argument ${JSON.stringify(a)}\n${USAGE}`);
  }
  return o;
}

// tinybench's latency statistics (ms per sample) as one line.
function describe(name, task, orders) {
  const r = task.result;
  if (!r || !r.latency) throw new Error(`${name}: no result (${r ? r.state : 'not run'}${r && r.error ? `: ${r.error.message}` : ''})`);
  const l = r.latency;
  const perSecond = (ms) => Math.round((orders * 1000) / ms);
  return `${name.padEnd(28)} ${l.mean.toFixed(2)} ms ± ${l.rme.toFixed(2)} % per ${orders} orders ` +
    `(sd ${l.sd.toFixed(2)}, median ${l.p50.toFixed(2)}, p99 ${l.p99.toFixed(2)} ms; ${l.samplesCount} samples)  ` +
    `${perSecond(l.mean)} orders/s (${perSecond(l.mean + l.moe)}..${perSecond(Math.max(l.mean - l.moe, 1e-9))})`;
}

async function main() {
  const { count, time, check: checkCount, reference } = parseArgs(process.argv.slice(2));
  const orders = generate(count);

  const checked = generate(checkCount);
  const fast = run(Market, checked);
  const ref = run(ReferenceMarket, checked);
  const same = ref.sales === fast.sales && ref.checksum === fast.checksum;
  console.log(`check on ${checkCount} orders: fast ${fast.sales} sales, reference ${ref.sales} sales, ` +
    `identical: ${same ? 'yes' : 'NO'} (fast ${fast.seconds.toFixed(3)} s, reference ${ref.seconds.toFixed(3)} s)`);
  if (!same) process.exitCode = 1;

  const { Bench } = await import('tinybench');
  // At least 10 samples (2 warm-up), and more while --time lasts.
  const bench = new Bench({ name: 'market', time, iterations: 10, warmupTime: 1000, warmupIterations: 2, throws: true });
  bench.add('fast (Market)', () => { run(Market, orders); });
  if (reference) bench.add('reference (ReferenceMarket)', () => { run(ReferenceMarket, orders); });
  await bench.run();
  for (const task of bench.tasks) console.log(describe(task.name, task, count));
}

if (require.main === module) {
  main().catch((err) => {
    console.error(err.stack || err);
    process.exit(1);
  });
}
