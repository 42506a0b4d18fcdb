"""The map along a busy database, for real: one variant row, two cells (its server held to 1 and to 0.25 cores),
a few seconds each; each cell measured on its own database, the grid keyed on the cores, and the server let go
after. The CPU quota needs root or a delegated cgroup, as `--db-cpu` does (run/slowdb.py)."""
import os
import subprocess
import sys
from pathlib import Path

import pytest

from tradebench_harness.report import results
from tradebench_harness.run import db as dbmod

pytestmark = pytest.mark.system   # a real variant behind Toxiproxy on the private database, its server held

TEST_DB = "TRADER_HARNESS_TEST"


def harness(ctx, *args, timeout=900):
    dbmod.create(ctx, TEST_DB)
    env = {k: v for k, v in os.environ.items() if not k.startswith("DB_")}
    env.update(DB_NAME=TEST_DB, TB_ROOT=str(ctx.root))
    r = subprocess.run([sys.executable, "-m", "tradebench_harness", *args], env=env, capture_output=True, text=True,
                       timeout=timeout)
    assert r.returncode == 0, (r.stdout + r.stderr)[-4000:]
    return r


def test_the_busy_map_measures_each_cell_on_its_own_cores_and_lets_the_server_go(ctx, tmp_path):
    dbmod.start_private(ctx)
    server = dbmod.private(ctx)
    home = Path(f"/proc/{server.pid()}/cgroup").read_text()
    flush = server.scalar("SELECT @@GLOBAL.innodb_flush_log_at_trx_commit")
    out = tmp_path / "map"
    harness(ctx, "map", "--variants", "java-threads", "--db-kind", "busy", "--db-cpus", "1,0.25", "--loads", "300",
            "--duration", "3", "--settle", "2", "--jit-warmup-max", "6", "--remeasure", "0", "--concurrency", "16",
            "--no-verify", "--processes", "1", "--out", str(out))
    # the server is back in its cgroup with its own setting: the run never leaves the database slowed
    assert Path(f"/proc/{server.pid()}/cgroup").read_text() == home
    assert server.scalar("SELECT @@GLOBAL.innodb_flush_log_at_trx_commit") == flush
    doc = results.load(str(out), out.parent)
    assert doc["cells"]["axis"] == "busy" and doc["cells"]["dbCpus"] == [1, 0.25]
    assert set(doc["cells"]["rttMs"]) == {"0, 1 core", "0, 0.25 cores"}
    runs = {r["dbCpuCores"]: r for r in doc["runs"]}
    assert set(runs) == {1, 0.25}
    for cores, r in runs.items():
        assert not r.get("error"), r["error"]
        assert r["dbLatencyMs"] == 0 and r["dbDurable"] is False and r["salesInWindow"] > 0
        assert r["rttMs"] == doc["cells"]["rttMs"]["0, 1 core" if cores == 1 else "0, 0.25 cores"]
        # the quota held in the window: a quarter core's server used about a quarter core at most
        assert r["cpu"]["database"]["cpuPercent"] <= cores * 100 * 1.2 + 5, (cores, r["cpu"]["database"])
        assert 0.5 * r["rate"] < r["ordersPerSecond"] < 1.5 * r["rate"]
    md = (out / "summary.md").read_text()
    grid = md.split("## The map", 1)[1].split("## What carrying the load costs", 1)[0]
    assert "| database cores | round trip ms | 300/s |" in grid
    assert grid.index("\n| 1 |") < grid.index("\n| 0.25 |")
    for chart in ("map", "map-cost", "cost", "db-cpu-sweep"):
        assert (out / f"{chart}.png").stat().st_size > 5000, chart
    # the model's prediction of each cell, with the capacity of that cell's cores
    rows = doc["model"]["rows"]
    assert sorted(r["dbCpuCores"] for r in rows) == [0.25, 1]
