'use strict';
// Requests Node's HTTP parser refuses (unknown method, malformed request line,
// headers over the limit) get a JSON error like every other refusal (found by
// the reliability suite: Node's default is a bare 400 without a body).
const test = require('node:test');
const assert = require('node:assert/strict');
const http = require('node:http');
const net = require('node:net');
const { clientError } = require('../src/handlers/errors');

function raw(port, text) {
  return new Promise((resolve, reject) => {
    const s = net.connect(port, '127.0.0.1', () => s.end(text));
    let got = '';
    s.on('data', (d) => { got += d; });
    s.on('end', () => resolve(got));
    s.on('error', reject);
  });
}

test('unknown methods, malformed requests and oversized headers answer JSON', async () => {
  const server = http.createServer((req, res) => res.end('ok'));
  server.on('clientError', clientError);
  await new Promise((r) => server.listen(0, '127.0.0.1', r));
  const { port } = server.address();
  try {
    for (const text of ['FOO /buy HTTP/1.1\r\nHost: x\r\n\r\n', 'GARBAGE\r\n\r\n',
      'GET / HTTP/1.1\r\nno colon\r\n\r\n']) {
      const answer = await raw(port, text);
      assert.match(answer, /^HTTP\/1\.1 400 /, text);
      assert.match(answer, /content-type: application\/json/i);
      assert.deepEqual(JSON.parse(answer.slice(answer.indexOf('\r\n\r\n') + 4)), { error: 'malformed HTTP request' });
    }
    const big = await raw(port, `GET / HTTP/1.1\r\nHost: x\r\nX-Big: ${'x'.repeat(100000)}\r\n\r\n`);
    assert.match(big, /^HTTP\/1\.1 431 /);
    assert.match(big, /"error":"request headers too large"/);
  } finally {
    server.close();
  }
});
