'use strict';
// Prices travel as integer cents inside the service so that comparisons are
// exact; they become JSON numbers (10.5, 12) only at the edges.

const MAX_PRICE_CENTS = 100000000000; // 1e9 in cents

// "12", "12.5", "12.50" -> cents; anything else (".5", "12.", "1e3", "-1") -> null.
function parsePriceText(text) {
  const m = /^([0-9]+)(?:\.([0-9]{1,2}))?$/.exec(text);
  if (!m) return null;
  // at most 10 digits before the point, as in the Java variants (engine-wire OrderParams) and
  // docs/openapi.yaml: "00000000001" is refused everywhere alike
  if (m[1].length > 10) return null;
  const cents = Number(m[1]) * 100 + Number((m[2] || '').padEnd(2, '0'));
  return cents;
}

// A JSON number from a scenario file (10.5, 12, 12.0) -> cents. Scenario
// prices have at most 2 decimals, so rounding removes only binary noise.
function centsOfNumber(price) {
  return Math.round(price * 100);
}

// cents -> the shortest JSON number that reads back as the same price.
function priceOfCents(cents) {
  return cents / 100;
}

module.exports = { MAX_PRICE_CENTS, parsePriceText, centsOfNumber, priceOfCents };
