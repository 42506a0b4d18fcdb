'use strict';
// The order view's read path (docs/contract-details.md, section 8): GET /orders/{id} reads SALES on a pool of
// its own (READ_POOL connections to READ_DB_HOST:READ_DB_PORT), apart from the engines' writers, so
// that a slow read server slows the views and nothing else. Each process or HTTP thread that answers
// views has one; its views wait on that thread's event loop, for a callback, never on a thread.
//
// The views wait for a connection here, in a queue of this module's own rather than mysql2's: a view
// whose deadline passes while it waits leaves the queue and never runs its query, where mysql2's
// queue offers no way out and would later hand it a connection for an answer nobody reads. At most
// READ_POOL connections are taken (or being opened) at once, so mysql2's own queue stays empty.
//
// mysql2's query `timeout` is no way out either: it reports an error but leaves the query on the
// connection, waiting for the late answer, and releases the connection only once that answer has
// come (lib/commands/query.js in mysql2 3.x); against a server that never answers the pool would
// lose that connection for good. So at the deadline the connection that was reading is destroyed:
// it leaves the pool at once (a new one is opened on demand) and serves no later view.
const { createPool } = require('./db');

// A view refused at once: VIEW_LIMIT views are already in the read path.
class ViewRefused extends Error {
  constructor(limit) {
    super(`too many order views waiting for the database (VIEW_LIMIT=${limit})`);
    this.status = 503;
    this.headers = { 'Retry-After': '1' };
  }
}

// A view whose read did not come back by its deadline.
class ReadTimedOut extends Error {
  constructor(timeoutMs) {
    super(`the order's fills were not read within ${timeoutMs} ms`);
    this.status = 504;
    this.headers = undefined;
  }
}

class ReadPath {
  // pool: a mysql2 promise pool of `connections` connections (createReadPool); timeoutMs: a view's
  // deadline from its admission; viewLimit: views admitted at once, 0 none.
  constructor(pool, { connections, timeoutMs, viewLimit }) {
    this.pool = pool;
    this.connections = connections;
    this.timeoutMs = timeoutMs;
    this.viewLimit = viewLimit;
    this.views = 0;      // admitted and not yet answered
    this.taken = 0;      // connections taken, or being opened, for views (answered or not)
    this.waiting = [];   // admitted views waiting for a connection, first come first served
  }

  // The read path of this process or thread, from config.read (src/config.js). Opens nothing yet:
  // connections are opened on demand, so a read server that is away never holds up the start.
  static open(config) {
    const { read, db } = config;
    const pool = createPool({ ...db, host: read.host, port: read.port },
      { connectionLimit: read.poolSize, connectTimeout: read.timeoutMs });
    return new ReadPath(pool, { connections: read.poolSize, timeoutMs: read.timeoutMs, viewLimit: read.viewLimit });
  }

  // What work(connection) resolves with, read on a connection of the pool within the deadline.
  // Rejects with ViewRefused at once when full, ReadTimedOut at the deadline, or the database's error.
  // Settles once, whatever comes late.
  read(work) {
    if (this.isFull()) return Promise.reject(new ViewRefused(this.viewLimit));
    this.views++;
    return new Promise((resolve, reject) => {
      const view = { work, resolve, reject, answered: false, holds: false, connection: null, timer: null };
      view.timer = setTimeout(() => this.expire(view), this.timeoutMs);
      if (this.taken < this.connections) this.start(view);
      else this.waiting.push(view);
    });
  }

  isFull() {
    return this.viewLimit > 0 && this.views >= this.viewLimit;
  }

  async start(view) {
    this.taken++;
    view.holds = true;
    let connection;
    try {
      connection = await this.pool.getConnection();
    } catch (err) {
      this.giveBack(view);
      this.answer(view, err);
      return;
    }
    // Opened after the deadline: a clean connection, kept for the next view.
    if (view.answered) {
      connection.release();
      this.giveBack(view);
      return;
    }
    view.connection = connection;
    try {
      const value = await view.work(connection);
      if (view.connection === connection) connection.release();
      this.answer(view, null, value);
    } catch (err) {
      // After an error the connection's state is unknown (a query may still be on it): never reused.
      if (view.connection === connection) destroy(connection);
      this.answer(view, err);
    } finally {
      view.connection = null;
      this.giveBack(view);
    }
  }

  expire(view) {
    view.timer = null;
    const queued = this.waiting.indexOf(view);
    if (queued >= 0) this.waiting.splice(queued, 1);
    if (view.connection) {
      destroy(view.connection);
      view.connection = null;
      this.giveBack(view);
    }
    this.answer(view, new ReadTimedOut(this.timeoutMs));
  }

  answer(view, err, value) {
    if (view.answered) return;
    view.answered = true;
    if (view.timer) clearTimeout(view.timer);
    this.views--;
    if (err) view.reject(err);
    else view.resolve(value);
  }

  // The view's connection is back in the pool or gone: the next waiting view may take one.
  giveBack(view) {
    if (!view.holds) return;
    view.holds = false;
    this.taken--;
    const next = this.waiting.shift();
    if (next) this.start(next);
  }

  // Shutdown: the pool ended, without waiting long for a read server that does not answer.
  async close() {
    const ended = this.pool.end().catch(() => {});
    let timer;
    const late = new Promise((resolve) => { timer = setTimeout(resolve, 1000); });
    await Promise.race([ended, late]);
    clearTimeout(timer);
  }
}

// Out of the pool at once, and its socket closed without waiting for the server.
function destroy(connection) {
  connection.destroy();
  const socket = connection.connection && connection.connection.stream;
  if (socket && typeof socket.destroy === 'function') socket.destroy();
}

module.exports = { ReadPath, ViewRefused, ReadTimedOut };
