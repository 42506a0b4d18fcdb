'use strict';
// mysql2 pools and the few queries of the parent (fills, id floor, health).
const mysql = require('mysql2/promise');

function createPool(db, { connectionLimit = db.poolSize, connectTimeout = 3000 } = {}) {
  return mysql.createPool({
    host: db.host, port: db.port, database: db.database, user: db.user, password: db.password,
    connectionLimit,
    connectTimeout,
    decimalNumbers: true,      // PRICE comes back as a JSON number
    supportBigNumbers: true,   // BIGINT ids below 2^53 come back as numbers
    bigNumberStrings: false,
    waitForConnections: true,
    enableKeepAlive: true,
    // No stack captured per query for its error (mysql2's default): that
    // capture was ~3 % of an engine child's profile at saturation, one per
    // insert; an error still names its code and message.
    trace: false,
  });
}

// Every answer waits at most this long for the database: a stalled database
// must turn into an error the caller can report, not a request that hangs.
const QUERY_TIMEOUT_MS = 5000;

// The SALES rows of one order, by ID, in the shape of docs/contract-details.md; `db` a pool or a connection.
// timeoutMs 0: none (the order view keeps its own deadline, src/read-path.js).
async function fillsOf(db, id, side, { timeoutMs = QUERY_TIMEOUT_MS } = {}) {
  let sql;
  let values;
  if (side === 'buy') { sql = 'SELECT * FROM SALES WHERE PO_ID = ? ORDER BY ID'; values = [id]; }
  else if (side === 'sell') { sql = 'SELECT * FROM SALES WHERE SO_ID = ? ORDER BY ID'; values = [id]; }
  else {
    // Side unknown (an order this process forgot): both indexes, merged.
    sql = '(SELECT * FROM SALES WHERE PO_ID = ?) UNION (SELECT * FROM SALES WHERE SO_ID = ?) ORDER BY ID';
    values = [id, id];
  }
  const [rows] = await db.query({ sql, values, timeout: timeoutMs });
  return rows.map((r) => ({
    saleId: Number(r.ID), buyer: r.BUYER_NAME, seller: r.SELLER_NAME, productId: r.PRODUCT_ID,
    price: Number(r.PRICE), quantity: Number(r.QUANTITY), poId: Number(r.PO_ID), soId: Number(r.SO_ID),
    created: Number(r.CREATED),
  }));
}

// The largest order id SALES knows: ids of this run start above it.
async function largestStoredOrderId(pool) {
  const [rows] = await pool.query({
    sql: 'SELECT GREATEST(COALESCE(MAX(PO_ID), 0), COALESCE((SELECT MAX(SO_ID) FROM SALES), 0)) AS M FROM SALES',
    timeout: QUERY_TIMEOUT_MS,
  });
  return Number(rows[0].M);
}

async function ping(pool) {
  await pool.query({ sql: 'SELECT 1', timeout: 2000 });
}

module.exports = { createPool, fillsOf, largestStoredOrderId, ping };
