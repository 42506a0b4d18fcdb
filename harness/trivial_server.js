'use strict';
// The Node side of the harness's machine calibration: a node:http server that
// does no work and gives every request the same 202 answer a variant gives
// (loadclient's TrivialServer is the Java side). What limits a run against it
// is Node's HTTP stack on this machine: the ceiling node-engine's orders/s are
// a fraction of.
//   node harness/trivial_server.js PORT
const http = require('node:http');

const BODY = '{"id": 1, "side": "buy", "status": "accepted"}';
const port = Number(process.argv[2] || 3998);

const server = http.createServer((req, res) => {
  req.resume();
  req.on('end', () => {
    res.writeHead(202, { 'Content-Type': 'application/json', 'Content-Length': Buffer.byteLength(BODY) });
    res.end(BODY);
  });
});
server.keepAliveTimeout = 60000;
server.listen(port, '127.0.0.1', () => console.log(`trivial node:http server on 127.0.0.1:${port}`));
process.on('SIGTERM', () => server.close(() => process.exit(0)));
