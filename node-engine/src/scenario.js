'use strict';
// contract section 2: run a SCENARIO (already parsed) on a market, return the RESULT.
const _ = require('underscore');
const { Market } = require('./market');
const { centsOfNumber, priceOfCents } = require('./prices');

function orderOfEvent(e) {
  const isSell = e.type === 'sell';
  const price = isSell ? e.price : e.maxPrice;
  return {
    id: e.id, side: isSell ? 'sell' : 'buy', userId: String(e.userId), productId: String(e.productId),
    quantity: e.quantity, priceCents: price == null ? null : centsOfNumber(price), arrival: e.t,
  };
}

function runScenario(scenario, { MarketClass = Market } = {}) {
  const market = new MarketClass({ timeoutMs: scenario.timeoutMs });
  const sales = [];
  const timedOut = [];
  let cycle = 0;
  for (const e of scenario.events) {
    if (e.type === 'trade') {
      const r = market.cycle(e.t);
      for (const s of r.sales) {
        sales.push({ cycle, productId: s.productId, buyer: s.buyer, seller: s.seller,
          price: priceOfCents(s.priceCents), quantity: s.quantity, poId: s.poId, soId: s.soId });
      }
      for (const id of r.timedOut) timedOut.push({ cycle, id });
      cycle++;
    } else if (e.type === 'buy' || e.type === 'sell') {
      market.submit(orderOfEvent(e));
    } else {
      throw new Error(`unknown event type: ${JSON.stringify(e.type)}`);
    }
  }
  return {
    sales: sortBy(sales, ['cycle', 'poId', 'soId']),
    timedOut: sortBy(timedOut, ['cycle', 'id']),
    open: sortBy(market.openOrders(), ['id']),
  };
}

// Sort by several numeric keys, the first one most significant.
function sortBy(list, keys) {
  return _.reduceRight(keys, (sorted, key) => _.sortBy(sorted, key), list);
}

// RESULT as text: one record per line, keys in the contract's order.
function formatResult(result) {
  const lines = (list) => (list.length === 0 ? '[]' : `[\n${list.map((r) => `    ${JSON.stringify(r)}`).join(',\n')}\n  ]`);
  return `{\n  "sales": ${lines(result.sales)},\n  "timedOut": ${lines(result.timedOut)},\n  "open": ${lines(result.open)}\n}\n`;
}

module.exports = { runScenario, formatResult };
