'use strict';
// The 202 of an accepted order, written with Node's own response API.
//
// Why not res.status(202).json(...): at saturation the Express parent is the
// bottleneck of node-engine (one core), and a CPU profile of it showed
// Express's send/json/status/set helpers at several per cent of its time,
// for an answer whose every byte is known here. The headers are the ones
// res.json would send (no ETag: the app disables them).
const JSON_TYPE = 'application/json; charset=utf-8';

function answerAccepted(res, id, side) {
  const body = `{"id":${id},"side":"${side}","status":"accepted"}`;
  res.writeHead(202, { 'Content-Type': JSON_TYPE, 'Content-Length': Buffer.byteLength(body) });
  res.end(body);
}

module.exports = { answerAccepted };
