'use strict';
// Not a test: `node src/bench-market.js [ORDERS] [--no-reference]`. Replays
// the load client's mix (half buys without a limit, half sells at
// 10.00..200.00, quantities 1..10, 100 products, 1000 users, a cycle every
// 1,000 orders, one simulated ms per order, TIMEOUT_MS 60000) through the
// fast Market and the ReferenceMarket, checks both give the same sales, and
// prints orders per second.
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

if (require.main === module) {
  const count = Number(process.argv[2] || 1000000);
  const orders = generate(count);
  const fast = run(Market, orders);
  console.log(`fast (Market)              ${fast.seconds.toFixed(2)} s  ${fast.perSecond} orders/s  ${fast.sales} sales`);
  if (!process.argv.includes('--no-reference')) {
    const ref = run(ReferenceMarket, orders);
    console.log(`reference (ReferenceMarket) ${ref.seconds.toFixed(2)} s  ${ref.perSecond} orders/s  ${ref.sales} sales`);
    const same = ref.sales === fast.sales && ref.checksum === fast.checksum;
    console.log(`results identical: ${same ? 'yes' : 'NO'}; speed-up ${(ref.seconds / fast.seconds).toFixed(1)}x`);
    if (!same) process.exitCode = 1;
  }
}

module.exports = { generate, run };
