'use strict';
// Storing a cycle's sales (contract section 4). Every insert is idempotent
// (ON DUPLICATE KEY UPDATE ID = ID on UNIQUE (PO_ID, SO_ID)), so a failed
// attempt, even one that did commit before its answer was lost, is simply
// retried with backoff until every sale is stored. storeSales resolves only
// then: the engine does not start its next cycle before.
const mysql = require('mysql2');

const COLUMNS = '(BUYER_NAME, SELLER_NAME, PRODUCT_ID, PRICE, QUANTITY, PO_ID, SO_ID, CREATED)';
const UPSERT = 'ON DUPLICATE KEY UPDATE ID = ID';
const INSERT_ONE = `INSERT INTO SALES ${COLUMNS} VALUES (?, ?, ?, ?, ?, ?, ?, ?) ${UPSERT}`;
const INSERT_MANY = `INSERT INTO SALES ${COLUMNS} VALUES `;
const MANY_TAIL = ` ${UPSERT}`;
// Chunk size and back-off are the Java writers' (engine-model SalesTable.CHUNK,
// SalesPersister.FIRST_BACKOFF_MS / MAX_BACKOFF_MS).
const BATCH_ROWS = 1000;          // keeps one statement well under max_allowed_packet
const INSERT_TIMEOUT_MS = 10000;  // a stalled insert becomes a failure, then a retry
const BACKOFF_FIRST_MS = 50;
const BACKOFF_MAX_MS = 1000;

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

// Exact decimal text of a price in cents: the DECIMAL(12,2) column gets no binary noise.
function priceText(cents) {
  return `${Math.floor(cents / 100)}.${String(cents % 100).padStart(2, '0')}`;
}

// A text column's value as an SQL string literal. User names (validation.js: A-Z a-z 0-9 _ . -)
// and product ids (digits) have nothing to escape; anything else goes through mysql2's escaper.
const PLAIN_TEXT = /^[A-Za-z0-9_.-]*$/;
function textLiteral(value) {
  const text = String(value);
  return PLAIN_TEXT.test(text) ? `'${text}'` : mysql.escape(text);
}

// The multi-row INSERT of a batch, written for its known columns: mysql2's
// generic formatter (sql-escaper walking arrays of arrays and testing each
// value's type) was ~5 % of an engine's profile, once per cycle.
function insertManySql(sales, created) {
  let sql = INSERT_MANY;
  for (let i = 0; i < sales.length; i++) {
    const s = sales[i];
    sql += `${i === 0 ? '' : ','}(${textLiteral(s.buyer)},${textLiteral(s.seller)},${textLiteral(s.productId)},` +
      `'${priceText(s.priceCents)}',${s.quantity},${s.poId},${s.soId},${created})`;
  }
  return sql + MANY_TAIL;
}

function rowOf(sale, created) {
  return [sale.buyer, sale.seller, sale.productId, priceText(sale.priceCents), sale.quantity, sale.poId, sale.soId, created];
}

// per-sale: one connection, one insert after another on it, released after
// the last answer. Resolves to the sales that failed (to be retried). Each
// insert executes a server-side prepared statement (mysql2 prepares it once
// per connection and keeps it): the database parses the INSERT once per
// connection, not once per sale. A connection answers one statement at a
// time, so awaiting each costs no round trip; it stamps every row with its own
// insert time (CREATED, contract section 4): a cycle of k sales behind a slow
// database takes k round trips, and its last rows are stored that much later
// than its first.
async function insertEach(pool, sales) {
  const conn = await pool.getConnection();
  const failed = [];
  let error = null;
  let broken = false;
  try {
    for (const s of sales) {
      if (broken) { failed.push(s); continue; }   // its connection is gone: the retry takes them all
      try {
        await conn.execute({ sql: INSERT_ONE, values: rowOf(s, Date.now()), timeout: INSERT_TIMEOUT_MS });
      } catch (err) {
        failed.push(s);
        error = error || err;
        if (err && err.fatal !== false) broken = true;
      }
    }
    return { failed, error };
  } finally {
    // A connection that saw an error may be half-dead: never hand it back.
    if (broken) conn.destroy(); else conn.release();
  }
}

// batch: one multi-row INSERT (chunked for very large cycles).
async function insertBatch(pool, sales) {
  const failed = [];
  let error = null;
  const created = Date.now();
  for (let i = 0; i < sales.length; i += BATCH_ROWS) {
    const chunk = sales.slice(i, i + BATCH_ROWS);
    try {
      // values: null, not left out: mysql2 would otherwise scan the whole statement for
      // placeholders to fill with an empty list.
      await pool.query({ sql: insertManySql(chunk, created), values: null, timeout: INSERT_TIMEOUT_MS });
    } catch (err) {
      failed.push(...chunk);
      error = error || err;
    }
  }
  return { failed, error };
}

// Stores every sale, retrying the failed ones until none is left.
// onFailure(err, count) is told about each failed attempt (for /stats and the log).
async function storeSales(pool, mode, sales, { onFailure = () => {} } = {}) {
  let todo = sales;
  let backoff = BACKOFF_FIRST_MS;
  while (todo.length > 0) {
    let outcome;
    try {
      outcome = mode === 'batch' ? await insertBatch(pool, todo) : await insertEach(pool, todo);
    } catch (err) { // no connection at all
      outcome = { failed: todo, error: err };
    }
    if (outcome.failed.length === 0) return;
    onFailure(outcome.error, outcome.failed.length);
    todo = outcome.failed;
    await sleep(backoff);
    backoff = Math.min(backoff * 2, BACKOFF_MAX_MS);
  }
}

module.exports = { storeSales };
