'use strict';
// The parent's request listener: a fast path for the orders in front of the
// Express app.
//
// At saturation the parent is node-engine's bottleneck, and Express's
// per-request set-up (prototype swaps, the router's layer walk, the route's
// method dispatch, the body parser's checks) cost more of its CPU than the
// order itself (see the README's profile). The load's requests — GET or POST
// /buy and /sell with their parameters in the query string and no body — go
// straight to the order handler (handlers/order-entry.js), which writes its
// answers with Node's own API, so they are the same bytes either way. Every
// other request goes to the Express app unchanged: a form body, HEAD and
// other methods (405), /orders/{id}, /stats, /health, unknown paths (404),
// absolute-form URLs.
const http = require('node:http');
const { errorHandler } = require('./handlers/errors');

// Would Express's form-body parser (express.text on the POST routes) read a
// body here? When it would not, the fast path sees exactly the parameters
// Express would: the query string's.
function noBody(req) {
  const h = req.headers;
  if (h['transfer-encoding'] !== undefined) return false;
  const length = h['content-length'];
  return length === undefined || (length === '0' && h['content-type'] === undefined);
}

// The order handler that serves this request on the fast path, or null
// when it goes to Express.
function fastHandler(req, buy, sell) {
  const method = req.method;
  if (method !== 'POST' && method !== 'GET') return null;
  const url = req.url;
  const q = url.indexOf('?');
  const path = q < 0 ? url : url.slice(0, q);
  const handler = path === '/buy' ? buy : path === '/sell' ? sell : null;
  if (handler === null || (method === 'POST' && !noBody(req))) return null;
  return handler;
}

// app: the Express app; buy, sell: the order handlers of its /buy and /sell routes.
function createFront(app, buy, sell) {
  function front(req, res) {
    const handler = fastHandler(req, buy, sell);
    if (handler === null) {
      app(req, res);
      return;
    }
    try {
      handler(req, res);
    } catch (err) {
      errorHandler(err, req, res);
    }
  }
  // As Express's app.listen: a node:http server with this listener.
  front.listen = function listen(...args) {
    const server = http.createServer(front);
    return server.listen(...args);
  };
  front.express = app;
  return front;
}

module.exports = { createFront, fastHandler };
