'use strict';
// Every failure becomes a JSON answer: unknown path 404, wrong method 405,
// anything thrown (malformed URL encoding, bad body, database error) 4xx/5xx.
const { answerJson } = require('./answers');

function methodNotAllowed(allow) {
  return function refuseMethod(req, res) {
    res.status(405).set('Allow', allow).json({ error: `method not allowed: ${req.method} ${req.path}` });
  };
}

function notFound(req, res) {
  res.status(404).json({ error: `not found: ${req.path}` });
}

// What a server error says: 503 with Retry-After while the database is away
// (/orders/{id} reads SALES: say so, as the Java variants do), else its own status.
function serverError(err, req, status) {
  // req.originalUrl: set by Express; the fast path (front.js) has only req.url.
  process.stderr.write(`error answering ${req.method} ${req.originalUrl || req.url}: ${err.stack || err}\n`);
  if (err.code && /^(ECONN|PROTOCOL_|ETIMEDOUT|ENOTFOUND|EHOSTUNREACH|ER_)/.test(err.code)) {
    return { status: 503, error: 'database unreachable', headers: { 'Retry-After': '1' } };
  }
  return { status, error: 'internal error' };
}

// What a refused request is told: a malformed URL encoding, or the error's own message where it may be shown.
function refusal(err, status) {
  if (err instanceof URIError || /decode/i.test(err.message)) return { status, error: 'malformed URL encoding' };
  return { status, error: err.expose === false ? 'bad request' : err.message };
}

// Four arguments: Express calls it with whatever a handler or middleware threw.
function errorHandler(err, req, res, next) {
  let status = Number(err.status || err.statusCode) || 500;
  if (status < 400 || status > 599) status = 500;
  const answer = status >= 500 ? serverError(err, req, status) : refusal(err, status);
  if (res.headersSent) return req.socket.destroy();
  return answerJson(res, answer.status, { error: answer.error }, answer.headers);
}

// Requests Node's HTTP parser refuses before Express sees them (an unknown
// method such as FOO, a malformed request line or header, headers over the
// size limit): a JSON error like every other refusal, then the connection is
// closed. Node's default answer would be a bare 400 without a body.
function clientError(err, socket) {
  if (!socket.writable || err.code === 'ECONNRESET') {
    socket.destroy();
    return;
  }
  const tooLarge = err.code === 'HPE_HEADER_OVERFLOW';
  const status = tooLarge ? '431 Request Header Fields Too Large' : '400 Bad Request';
  const body = JSON.stringify({ error: tooLarge ? 'request headers too large' : 'malformed HTTP request' });
  socket.end(`HTTP/1.1 ${status}\r\nContent-Type: application/json; charset=utf-8\r\n` +
    `Content-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`);
}

module.exports = { methodNotAllowed, notFound, errorHandler, clientError };
