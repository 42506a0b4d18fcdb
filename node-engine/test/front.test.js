'use strict';
// src/front.js: which requests take the orders' fast path, and that its
// answers are byte for byte the ones the Express routes give (a form body
// goes through Express and the same handler).
const test = require('node:test');
const assert = require('node:assert/strict');
const http = require('node:http');
const { fastHandler } = require('../src/front');
const { withService, waitFor } = require('../test-support/helpers');

test('the fast path takes GET/POST /buy and /sell without a body, Express everything else', () => {
  const buy = () => {};
  const sell = () => {};
  const req = (method, url, headers = {}) => ({ method, url, headers });
  const fast = [
    [req('POST', '/buy?userId=b&productId=1&quantity=1'), buy],
    [req('POST', '/sell?userId=s&productId=1&quantity=1&price=2', { 'content-length': '0' }), sell],
    [req('GET', '/sell'), sell],
    // GET routes never read a body, in Express either
    [req('GET', '/buy?userId=b', { 'content-length': '5', 'content-type': 'application/x-www-form-urlencoded' }), buy],
  ];
  for (const [r, handler] of fast) assert.equal(fastHandler(r, buy, sell), handler, `${r.method} ${r.url}`);
  const express = [
    req('POST', '/buy', { 'content-length': '12', 'content-type': 'application/x-www-form-urlencoded' }),
    req('POST', '/buy', { 'content-length': '0', 'content-type': 'application/x-www-form-urlencoded' }),
    req('POST', '/buy', { 'transfer-encoding': 'chunked' }),
    req('HEAD', '/buy?userId=b&productId=1&quantity=1'),
    req('PUT', '/buy'),
    req('POST', '/buy/'),
    req('POST', '/BUY'),
    req('POST', '/buyer'),
    req('POST', 'http://localhost/buy?userId=b&productId=1&quantity=1'),
    req('GET', '/orders/12'),
    req('GET', '/stats'),
  ];
  for (const r of express) assert.equal(fastHandler(r, buy, sell), null, `${r.method} ${r.url} ${JSON.stringify(r.headers)}`);
});

// One request on its own connection; resolves with the status, the raw
// headers (Date and the connection's own left out) and the body.
function rawCall(url, method, pathAndQuery, body) {
  return new Promise((resolve, reject) => {
    const headers = body === undefined ? {} : { 'Content-Type': 'application/x-www-form-urlencoded', 'Content-Length': Buffer.byteLength(body) };
    const r = http.request(`${url}${pathAndQuery}`, { method, headers, agent: false }, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (d) => { text += d; });
      res.on('end', () => {
        const pairs = [];
        for (let i = 0; i < res.rawHeaders.length; i += 2) {
          if (!/^(date|connection|keep-alive)$/i.test(res.rawHeaders[i])) pairs.push(`${res.rawHeaders[i]}: ${res.rawHeaders[i + 1]}`);
        }
        resolve({ status: res.statusCode, headers: pairs, text });
      });
    });
    r.on('error', reject);
    r.end(body);
  });
}

test('the fast path answers exactly as the Express routes: 202, 400s, 503 overloaded', () =>
  withService({ inboxLimit: 4, delayMs: 60000 }, async (url, service) => {
    // After its first cycle each engine sleeps for a minute: orders stay pending.
    await waitFor(() => service.engines.stats().every((e) => e.cycles >= 1), { what: 'first cycles' });
    const cases = [
      ['/buy', 'userId=b1&productId=2&quantity=3', 202],
      ['/sell', 'userId=s1&productId=2&quantity=3&price=12.50', 202], // engine 0 now holds 4: full
      ['/buy', 'userId=b1&productId=4&quantity=3', 503],
      ['/buy', 'productId=1&quantity=1', 400],
      ['/buy', 'userId=b&productId=10&quantity=1', 400],
      ['/sell', 'userId=s&productId=1&quantity=1&price=1.234', 400],
      ['/buy', 'userId=b%ZZ&productId=1&quantity=1', 400],
      ['/buy', 'userId=b&userId=c&productId=1&quantity=1', 400],
    ];
    // Express's own res.json answer (the 404 of an unknown path): the headers the handler's answers must match.
    const expressJson = await rawCall(url, 'GET', '/nothing');
    const shape = (headers) => headers.map((h) => h.replace(/^(Content-Length): .*$/i, '$1: N'));
    assert.deepEqual(shape(expressJson.headers), ['Content-Type: application/json; charset=utf-8', 'Content-Length: N']);
    for (const [path, params, status] of cases) {
      // Express: the parameters in a form body; the fast path: in the query, no body.
      const viaExpress = await rawCall(url, 'POST', path, params);
      const viaFast = await rawCall(url, 'POST', `${path}?${params}`);
      assert.equal(viaExpress.status, status, `${path} ${params}: ${viaExpress.text}`);
      assert.equal(viaFast.status, status, `${path}?${params}: ${viaFast.text}`);
      assert.deepEqual(viaFast.headers, viaExpress.headers, `${path} ${params}`);
      const extra = status === 503 ? ['Retry-After: 1'] : [];
      assert.deepEqual(shape(viaFast.headers), [...extra, ...shape(expressJson.headers)], `${path} ${params}`);
      if (status === 202) {
        // ids differ; the rest of the body is the same
        const a = JSON.parse(viaExpress.text);
        const b = JSON.parse(viaFast.text);
        assert.ok(b.id > a.id);
        assert.equal(viaFast.text, viaExpress.text.replace(String(a.id), String(b.id)));
      } else {
        assert.equal(viaFast.text, viaExpress.text, `${path} ${params}`);
      }
    }
  }));
