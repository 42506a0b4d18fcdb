"""A real sweep: open loop at two offered rates and two engine counts; each point measured, the curves drawn."""
import os
import subprocess
import sys
from pathlib import Path

import pytest

from tradebench_harness.report import results
from tradebench_harness.run import db as dbmod

pytestmark = pytest.mark.system   # a real sweep of node-engine on the private database

ROOT = Path(__file__).resolve().parents[2]
TEST_DB = "TRADER_HARNESS_TEST"


def test_sweep_measures_every_rate_and_engine_count(ctx, tmp_path):
    out = tmp_path / "sweep"
    dbmod.start_private(ctx)
    dbmod.create(ctx, TEST_DB)
    env = {k: v for k, v in os.environ.items() if not k.startswith("DB_")}
    # node-engine once (its WORKERS=processes row): its WORKERS=threads row runs in the map's test
    env.update(DB_NAME=TEST_DB, TB_ROOT=str(ctx.root), WORKERS="processes")
    r = subprocess.run([sys.executable, "-m", "tradebench_harness", "sweep", "rates", "node-engine", "--rates", "100,300",
                        "--engines", "1,2", "--duration", "3", "--warmup", "auto", "--warmup-max", "12", "--no-verify",
                        "--no-calibrate", "--processes", "1", "--jit-warmup-max", "0",
                        "--concurrency", "8", "--out", str(out)], env=env, capture_output=True, text=True, timeout=900)
    assert r.returncode == 0, (r.stdout + r.stderr)[-4000:]
    doc = results.load(str(out), out.parent)     # with each run's raw material (raw.json.gz)
    points = sorted((run["engines"], run["rate"]) for run in doc["runs"])
    assert points == [(1, 100), (1, 300), (2, 100), (2, 300)]
    for run in doc["runs"]:
        assert not run.get("error"), run["error"]
        assert run["load"]["mode"] == "rate" and run["settings"]["ENGINES"] == str(run["engines"])
        # open loop: the client sends at the offered rate, far below what the variant can answer
        assert 0.5 * run["rate"] < run["ordersPerSecond"] < 1.5 * run["rate"], run["ordersPerSecond"]
        assert run["p99Ms"] is not None and run["salesPerMinute"] >= 0
        # steady state: 5 s windows until two agree within 5 %, at most --warmup-max
        assert run["warmupMode"] == "auto" and run["steady"] in (True, False)
        assert len(run["warmupWindowsOrdersPerSecond"]) >= 2 and 10 <= run["warmupS"] <= 12 + 5
    assert len(doc["summary"]) == 4
    html = (out / "report.html").read_text()
    assert 'id="chart-sweep-rate"' in html and 'id="chart-sweep-engines"' in html
