'use strict';
// GET /health: up while the database answers; 503 while it cannot be reached.
const { ping } = require('../db');

function health({ pool }) {
  return async function showHealth(req, res) {
    try {
      await ping(pool);
      res.json({ status: 'up' });
    } catch {
      res.status(503).json({ status: 'down', error: 'database unreachable' });
    }
  };
}

module.exports = { health };
