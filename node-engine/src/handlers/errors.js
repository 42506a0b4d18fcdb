'use strict';
// Every failure becomes a JSON answer: unknown path 404, wrong method 405,
// anything thrown (malformed URL encoding, bad body, database error) 4xx/5xx.

function methodNotAllowed(allow) {
  return function refuseMethod(req, res) {
    res.status(405).set('Allow', allow).json({ error: `method not allowed: ${req.method} ${req.path}` });
  };
}

function notFound(req, res) {
  res.status(404).json({ error: `not found: ${req.path}` });
}

// Four arguments: Express calls it with whatever a handler or middleware threw.
// eslint-disable-next-line no-unused-vars
function errorHandler(err, req, res, next) {
  let status = Number(err.status || err.statusCode) || 500;
  if (status < 400 || status > 599) status = 500;
  let error;
  if (status >= 500) {
    process.stderr.write(`error answering ${req.method} ${req.originalUrl}: ${err.stack || err}\n`);
    if (err.code && /^(ECONN|PROTOCOL_|ETIMEDOUT|ENOTFOUND|EHOSTUNREACH|ER_)/.test(err.code)) {
      // /orders/{id} reads SALES: while the database is away, say so, as the Java variants do.
      status = 503;
      error = 'database unreachable';
      res.set('Retry-After', '1');
    } else {
      error = 'internal error';
    }
  } else if (err instanceof URIError || /decode/i.test(err.message)) {
    error = 'malformed URL encoding';
  } else {
    error = err.expose === false ? 'bad request' : err.message;
  }
  if (res.headersSent) return req.socket.destroy();
  return res.status(status).json({ error });
}

module.exports = { methodNotAllowed, notFound, errorHandler };
