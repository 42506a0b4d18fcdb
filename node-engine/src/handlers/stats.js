'use strict';
// GET /stats: the counters of docs/contract.md.
function statsReport({ stats, engines }) {
  return function showStats(req, res) {
    res.json(stats.snapshot(engines.stats()));
  };
}

module.exports = { statsReport };
