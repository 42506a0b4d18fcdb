"""The latency sweep and the map, for real: two variants behind Toxiproxy, short windows; each cell measured
from SALES, each design's bound beside it, the charts drawn in report.html (opened in headless Chromium)."""
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tradebench_harness.report import results
from tradebench_harness.run import db as dbmod

pytestmark = pytest.mark.system   # real variants behind Toxiproxy on the private database

ROOT = Path(__file__).resolve().parents[2]
TEST_DB = "TRADER_HARNESS_TEST"


def harness(ctx, *args, timeout=1200, **settings):
    dbmod.start_private(ctx)
    dbmod.create(ctx, TEST_DB)
    env = {k: v for k, v in os.environ.items() if not k.startswith("DB_")}
    env.update(DB_NAME=TEST_DB, TB_ROOT=str(ctx.root), **settings)
    r = subprocess.run([sys.executable, "-m", "tradebench_harness", *args], env=env, capture_output=True, text=True,
                       timeout=timeout)
    assert r.returncode == 0, (r.stdout + r.stderr)[-4000:]
    return r


def dom_of(report: Path, tmp_path: Path) -> str:
    chromium = shutil.which("chromium") or shutil.which("chromium-browser")
    assert chromium, "no chromium: ./tradebench test installs Debian's chromium package"
    flags = ["--headless", "--no-sandbox", "--disable-gpu", f"--user-data-dir={tmp_path / 'profile'}"]
    return subprocess.run([chromium, *flags, "--dump-dom", report.as_uri()], capture_output=True, text=True,
                          timeout=120).stdout


def drawn(dom: str, chart: str) -> bool:
    """The chart's figure holds a PNG of real size (not an empty data URI)."""
    at = dom.find(f'id="chart-{chart}"')
    return at >= 0 and len(dom[at:at + 30000].split('base64,', 1)[1].split('"', 1)[0]) > 5000


@pytest.fixture(scope="module")
def sweep(ctx, tmp_path_factory):
    out = tmp_path_factory.mktemp("sweep") / "run"
    r = harness(ctx, "sweep", "latency", "java-threads,java-spray-async", "--db-latency", "0,20", "--duration", "4",
                "--settle", "2", "--jit-warmup-max", "3", "--remeasure", "0", "--concurrency", "16", "--processes", "1",
                "--no-verify", "--out", str(out), STACK="akka")
    # java-spray-async's Akka row alone, a crowded window not measured again, and no check of each variant's
    # answers before its windows (the end-to-end step of ./tradebench test checks every variant with `loadclient
    # verify`): the test's time is the suite's
    return out, results.load(str(out), out.parent), r.stdout


def test_every_series_is_measured_at_every_latency_with_its_bound(sweep):
    _, doc, _ = sweep
    rtt = {int(k): v for k, v in doc["cells"]["rttMs"].items()}
    # the round trip is measured: the added latency and the database's own time
    assert 0 < rtt[0] < 5 and 20 <= rtt[20] < 30, rtt
    runs = {(r["series"], r["dbLatencyMs"]): r for r in doc["runs"]}
    # java-threads keeps ENGINES inserts in flight, so it runs again with as many engines as the pool has connections
    assert set(runs) == {(s, l) for s in ("java-threads", "java-spray-async", "java-threads (ENGINES=64: 64 in flight)")
                         for l in (0, 20)}
    for (series, lat), r in runs.items():
        assert not r.get("error"), r["error"]
        assert r["salesInWindow"] > 0 and r["rttMs"] == rtt[lat]
        # every window, the first of a process too (after the JIT warm-up's load), opens once the backlog is stored
        assert r["drainSeconds"] >= 0, (series, lat)
        assert r["boundSalesPerMinute"] == pytest.approx(r["inFlight"] / r["rttMs"] * 60_000)
        assert r["boundFraction"] == pytest.approx(r["salesPerMinute"] / r["boundSalesPerMinute"])
        for group in ("variant", "database", "link", "loadclient"):
            assert r["cpu"][group]["samples"] >= 1, (series, group)
    assert runs[("java-threads", 20)]["inFlight"] == 4 and runs[("java-spray-async", 20)]["inFlight"] == 64
    # behind 20 ms, 4 blocking engines can store no more than their bound (the measured window's noise aside)
    assert runs[("java-threads", 20)]["boundFraction"] < 1.15
    # one process per series: the JVM warmed once, the link's latency changed under it
    assert runs[("java-threads", 0)]["jitWarmup"] == runs[("java-threads", 20)]["jitWarmup"]


def test_the_summary_and_the_report_show_the_sweep(sweep, tmp_path):
    out, doc, stdout = sweep
    md = (out / "summary.md").read_text()
    assert "## Where two designs cross" in md and "bound sales/min" in md and "| java-spray-async | 20 |" in md
    assert "java-spray-async" in stdout
    dom = dom_of(out / "report.html", tmp_path)
    assert drawn(dom, "latency-sweep"), "no latency sweep chart"
    assert (out / "latency-sweep.png").stat().st_size > 5000     # the chart as a file, for a README
    assert dom.count('data-series=') == 6


def test_the_map_names_a_winner_per_cell(ctx, tmp_path):
    out = tmp_path / "map"
    harness(ctx, "map", "--variants", "java-threads,node-engine", "--latencies", "0,20", "--loads", "100,400",
            "--duration", "3", "--settle", "2", "--jit-warmup-max", "6", "--remeasure", "0", "--concurrency", "16",
            "--no-verify", "--processes", "1", "--out", str(out),
            WORKERS="threads")   # node-engine's threads row (the compare and sweep tests run its processes)
    doc = results.load(str(out), out.parent)
    cells = {(r["variant"], r["dbLatencyMs"], r["rate"]) for r in doc["runs"] if not r.get("error")}
    assert cells == {(v, l, r) for v in ("java-threads", "node-engine") for l in (0, 20) for r in (100, 400)}
    for r in doc["runs"]:
        # open loop: the client offers the cell's rate, far below what either variant answers
        assert 0.5 * r["rate"] < r["ordersPerSecond"] < 1.5 * r["rate"], r["ordersPerSecond"]
    md = (out / "summary.md").read_text()
    assert "## The map: which design stored the most sales" in md
    table = md.split("## The map", 1)[1].split("## What carrying the load costs", 1)[0]
    assert table.count("\n| 0 |") == 1 and table.count("\n| 20 |") == 1
    dom = dom_of(out / "report.html", tmp_path)
    assert drawn(dom, "map"), "no map chart"
    assert (out / "map.png").stat().st_size > 5000
    # what carrying each cell's load cost, and the cheapest carrier of each cell
    assert "## What carrying the load costs: the cheapest carrier of each cell" in md
    assert drawn(dom, "map-cost") and drawn(dom, "cost"), "no cost charts"
    for r in doc["runs"]:
        assert r["cpu"]["variant"]["rssMaxMb"] > 20 and r["dbConnectionsOpen"] >= 1 and r["p999Ms"] is not None, r
    # the model's prediction of every cell beside its measurement (./tradebench predict's, from committed
    # parameters): a short real run against it. 100/s is bound by what is offered, 400/s behind 20 ms by the
    # four inserts in flight (4 ÷ 20 ms = 200 sales/s, under the 355 offered): both well inside the model
    model = doc["model"]
    assert model and model["summary"]["cells"] == 8, model
    assert "## The model beside the measurement" in md
    errors = {(r["design"], r["latencyMs"], r["rate"]): r["salesError"] for r in model["rows"]}
    assert len(errors) == 8 and all(e is not None for e in errors.values()), errors
    assert sum(abs(e) <= 0.3 for e in errors.values()) >= 6, errors
