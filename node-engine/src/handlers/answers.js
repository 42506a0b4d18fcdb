'use strict';
// Answers written with Node's own response API (writeHead/end), so that they
// work alike on an Express response and on the plain node:http response of
// the order fast path (src/front.js).
//
// Why not res.status(...).json(...): at saturation the parent is the
// bottleneck of node-engine (one core), and a CPU profile of it showed
// Express's send/json/status/set helpers at several per cent of its time,
// for answers whose every byte is known here. The headers and bodies are the
// ones res.json would send (the app disables ETag and X-Powered-By):
// Content-Type `application/json; charset=utf-8`, Content-Length, and the
// extra headers (Retry-After) first, in the order Express would set them.
const JSON_TYPE = 'application/json; charset=utf-8';

function answerAccepted(res, id, side) {
  const body = `{"id":${id},"side":"${side}","status":"accepted"}`;
  res.writeHead(202, { 'Content-Type': JSON_TYPE, 'Content-Length': Buffer.byteLength(body) });
  res.end(body);
}

// status, a value for JSON.stringify, and optional headers set before it.
function answerJson(res, status, value, headers) {
  const body = JSON.stringify(value);
  const all = headers ? { ...headers } : {};
  all['Content-Type'] = JSON_TYPE;
  all['Content-Length'] = Buffer.byteLength(body);
  res.writeHead(status, all);
  res.end(body);
}

// The 503 of a refused order (overloaded, engine unavailable, shutting down).
function answerRefused(res, error) {
  answerJson(res, 503, { error }, { 'Retry-After': '1' });
}

module.exports = { answerAccepted, answerJson, answerRefused };
