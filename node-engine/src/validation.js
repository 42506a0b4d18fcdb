'use strict';
// Request parameters and their validation (contract sections 3 and 8, docs/contract-details.md), in the
// contract's order; the first failure is the answer. The messages are the
// Java variants' (engine-wire OrderParams), so all four answer alike.
const { MAX_PRICE_CENTS, parsePriceText } = require('./prices');

class BadRequest extends Error {
  constructor(message) {
    super(message);
    this.status = 400;
  }
}

const MAX_QUANTITY = 1000000;

// "a=1&b=2" -> Map name -> [values]. Our own parser, so that malformed
// percent-encoding is a 400 and a repeated parameter stays visible.
function parseParams(text, into = new Map()) {
  if (!text) return into;
  for (const piece of text.split('&')) {
    if (piece === '') continue;
    const eq = piece.indexOf('=');
    const rawName = eq < 0 ? piece : piece.slice(0, eq);
    const rawValue = eq < 0 ? '' : piece.slice(eq + 1);
    const name = decodeParam(rawName);
    const value = decodeParam(rawValue);
    const values = into.get(name);
    if (values === undefined) into.set(name, [value]);
    else values.push(value);
  }
  return into;
}

// '+' is a space, %XX a byte of UTF-8. Text without either (the load
// client's parameters) is returned as it is: nothing to decode.
function decodeParam(raw) {
  if (raw.indexOf('%') < 0 && raw.indexOf('+') < 0) return raw;
  try {
    return decodeURIComponent(raw.replace(/\+/g, ' '));
  } catch {
    throw new BadRequest('malformed URL encoding in the parameters');
  }
}

// The parameters of a request: its query string and, for a form POST, its body.
function paramsOf(req) {
  const url = req.originalUrl || req.url;
  const q = url.indexOf('?');
  const params = parseParams(q < 0 ? '' : url.slice(q + 1));
  if (typeof req.body === 'string') parseParams(req.body, params);
  return params;
}

// The single value of a parameter; undefined when absent.
function single(params, name) {
  const values = params.get(name);
  if (!values) return undefined;
  if (values.length > 1) throw new BadRequest(`parameter ${name} given more than once`);
  return values[0];
}

function required(params, name) {
  const value = single(params, name);
  if (value === undefined) throw new BadRequest(`${name} is missing`);
  return value;
}

const USER_ID = /^[A-Za-z0-9_.-]{1,64}$/;
const NATURAL = /^(0|[1-9][0-9]{0,15})$/; // no sign, no leading zeros

function parseUserId(params) {
  const userId = required(params, 'userId');
  if (!USER_ID.test(userId)) throw new BadRequest('userId must be 1..64 characters of A-Z a-z 0-9 _ . -');
  return userId;
}

function parseProductId(params, products) {
  const text = required(params, 'productId');
  if (!NATURAL.test(text) || Number(text) >= products) {
    throw new BadRequest(`productId must be an integer in 0..${products - 1} (unknown product)`);
  }
  return Number(text);
}

function parseQuantity(params) {
  const text = required(params, 'quantity');
  if (!NATURAL.test(text) || Number(text) < 1 || Number(text) > MAX_QUANTITY) {
    throw new BadRequest(`quantity must be an integer in 1..${MAX_QUANTITY}`);
  }
  return Number(text);
}

// Price in cents; null when optional and absent (a PO without maxPrice).
function parsePrice(params, isRequired) {
  const text = isRequired ? required(params, 'price') : single(params, 'price');
  if (text === undefined) return null;
  const cents = parsePriceText(text);
  if (cents === null || cents <= 0 || cents > MAX_PRICE_CENTS) {
    throw new BadRequest('price must be a number in (0, 1000000000] with at most 2 decimals');
  }
  return cents;
}

// -> {side, userId, productId (number), quantity, priceCents}; throws BadRequest.
function parseOrder(params, side, products) {
  const userId = parseUserId(params);
  const productId = parseProductId(params, products);
  const quantity = parseQuantity(params);
  const priceCents = parsePrice(params, side === 'sell');
  return { side, userId, productId, quantity, priceCents };
}

// GET /orders/{id}: up to 18 digits, not 0 (the Java variants' reading).
// Above 2^53 no id of ours can exist -> null (404).
function parseOrderId(text) {
  if (!/^[0-9]{1,18}$/.test(text) || Number(text) === 0) throw new BadRequest('order id must be a positive integer');
  const id = Number(text);
  return Number.isSafeInteger(id) ? id : null;
}

module.exports = { paramsOf, parseOrder, parseOrderId };
