'use strict';
// GET /stats: the counters of docs/contract-details.md, the whole service's (snapshot():
// on the main thread, or asked of it by another HTTP thread).
function statsReport({ snapshot }) {
  return async function showStats(req, res) {
    res.json(await snapshot());
  };
}

module.exports = { statsReport };
