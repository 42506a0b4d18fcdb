"""The bench/compare end-to-end check: a short real compare of two variants
(two fresh processes of each, one short fixed window each, no further round, each row profiled)
against the project's private database (the session's `compared` fixture, conftest.py, whose folder the
profile's test reads too); its results folder; its report.html opened in headless Chromium."""
import csv
import io
import shutil
import subprocess

import psutil
import pytest
from PIL import Image

from tradebench_harness.report import diff
from tradebench_harness.run import db as dbmod

pytestmark = pytest.mark.system   # a real compare of two variants on the private database

VARIANTS = ["java-threads", "node-engine"]     # conftest.py's COMPARED
TEST_DB = "TRADER_COMPARE_TEST"                # conftest.py's COMPARE_DB


def test_the_results_folder_holds_every_file(compared):
    out, doc, _ = compared
    for f in ("results.json", "raw.json.gz", "report.html", "summary.md", "runs.csv"):
        assert (out / f).stat().st_size > 0, f
    rows = list(csv.DictReader(io.StringIO((out / "runs.csv").read_text())))
    assert [r["variant"] for r in rows] == VARIANTS * 2        # round-robin: a process of each, then again


def test_each_variant_is_measured_in_fresh_processes_and_each_window_real_sales(compared, ctx):
    _, doc, _ = compared
    runs = doc["runs"]
    assert [(r["variant"], r["repeat"]) for r in runs] == [(v, rep) for rep in (1, 2) for v in VARIANTS]
    for v in VARIANTS:
        # two fresh processes: their own pid, their own process number (what the interval draws from)
        mine = [r for r in runs if r["variant"] == v]
        assert len({r["pids"]["variant"] for r in mine}) == 2 and len({r["process"] for r in mine}) == 2
        # the live heap after a collection, read after each window (JVM: jcmd; node: --trace-gc)
        for r in mine:
            assert r["memory"]["liveHeapMb"] is None or 1 < r["memory"]["liveHeapMb"] < 2000, r["memory"]
        if v == "java-threads":
            assert all(r["memory"]["liveHeapMb"] for r in mine)
    assert "-Xmx512m" in doc["environment"]["variantJvmFlags"] and doc["environment"]["heapPolicy"]
    for r in runs:
        assert not r.get("error"), r.get("error")
        assert r["salesInWindow"] > 0 and r["salesPerMinute"] > 0 and r["ordersPerSecond"] > 0
        assert r["settings"]["ENGINES"] == "4" and "DB_POOL" in r["settings"] and r["settings"]["PERSIST"] == "per-sale"
        # the first window after --warmup, the next after a short settle
        assert r["warmupMode"] == "fixed" and r["steady"] is None and r["warmupS"] == 1     # each the first of its process
        assert set(r["halves"]) >= {"firstOrdersPerSecond", "secondOrdersPerSecond", "drift"}
        assert r["driftFlagged"] == (r["drift"] is not None and abs(r["drift"]) > 0.10)
        # the window's latency distribution, from the load client's .hgrm: percentiles rising to 100
        pts = r["latencyPercentiles"]
        assert pts[-1][0] == 100.0 and all(a[0] <= b[0] and a[1] <= b[1] for a, b in zip(pts, pts[1:]))
        assert pts[-1][1] == pytest.approx(r["maxMs"], rel=0.01)
        for group in ("variant", "loadclient", "database"):
            assert r["cpu"][group]["samples"] >= 1, (r["variant"], group)
        assert r["cpu"]["variant"]["threadsMax"] >= 1 and r["cpu"]["variant"]["rssMaxMb"] > 10
        # the JVM got the load until its JIT was quiet, within the bound (6 s here); node, whose compiler is not
        # told apart, until its CPU was steady
        w = r["jitWarmup"]
        assert w["maxS"] == 6 and 0 < w["seconds"] < 6 + 10, w
        if r["runtime"] == "java":
            assert w["rule"] == "jit quiet" and w["jitCpuPercent"] is not None, w
            assert w["quiet"] == (w["jitCpuPercent"] < 5.0), w
        else:
            assert w["rule"] == "cpu steady" and w["jitCpuPercent"] is None and w["cpuPercent"] is not None, w
    # SALES is emptied before each run: the last run's rows are still there, count them again
    last = runs[-1]
    db = dbmod.private(ctx, TEST_DB)
    counted = int(db.scalar(f"SELECT COUNT(*) FROM SALES WHERE CREATED >= {last['windowStartMs']} "
                            f"AND CREATED < {last['windowEndMs']}"))
    assert counted == last["salesInWindow"]


def test_nothing_the_runs_started_is_left_running(compared):
    _, doc, _ = compared
    for r in doc["runs"]:
        for pid in r["pids"].values():
            assert not psutil.pid_exists(pid) or psutil.Process(pid).status() == psutil.STATUS_ZOMBIE, pid


def test_calibration_measured_each_ceiling(compared):
    _, doc, _ = compared
    cal = doc["calibration"]
    assert cal["http"]["java"]["ordersPerSecond"] > 0 and cal["http"]["node"]["ordersPerSecond"] > 0
    # every ceiling warms up as the runs do (auto, bounded here by 6 s: one 5 s window, never two to compare)
    measured = [cal["http"][rt] for rt in ("java", "node")]
    measured += [e["singleRow"] for e in cal["insert"].values()]
    for m in measured:
        assert m["warmup"]["mode"] == "auto", m
        assert m["warmup"]["steady"] is False and 6 <= m["warmup"]["seconds"] < 30, m
    for rt in ("java", "node"):
        # the trivial server and the load client were sampled over the measured window: both worked
        h = cal["http"][rt]
        assert h["cpu"]["server"]["cpuPercent"] > 0 and h["cpu"]["loadclient"]["cpuPercent"] > 0, h
        assert h["cpuUsPerRequest"]["server"] == pytest.approx(
            h["cpu"]["server"]["cpuPercent"] * 10_000 / h["ordersPerSecond"], rel=1e-2)
    # each framework floor once (java-threads and java-akka share Tomcat's), started from the variant's jar
    assert set(cal["floors"]) == {"tomcat"}
    for name, f in cal["floors"].items():
        assert f["ordersPerSecond"] > 0 and f["cpu"]["server"]["cpuPercent"] > 0, (name, f)
    for e in cal["insert"].values():
        for k in ("singleRow",):      # the database was sampled in each insert ceiling's window
            assert e[k]["cpu"]["database"]["cpuPercent"] > 0 and e[k]["cpuUsPerRow"]["database"] > 0, e[k]
            assert e[k]["windowEndMs"] > e[k]["windowStartMs"]


def test_each_runs_ceiling_fractions_divide_by_the_calibration(compared):
    _, doc, _ = compared
    cal = doc["calibration"]
    for r in doc["runs"]:
        ceiling = cal["http"][r["runtime"]]["ordersPerSecond"]
        assert r["httpCeilingFraction"] == pytest.approx(r["ordersPerSecond"] / ceiling, rel=1e-3)
        floor = cal["floors"][r["floor"]] if r["floor"] else cal["http"][r["runtime"]]
        assert r["cpuPerOrderVsFloor"] == pytest.approx(r["cpuUsPerOrder"]["variant"] / floor["cpuUsPerRequest"]["server"],
                                                        rel=1e-2)
        us = r["cpuUsPerOrder"]["variant"]
        assert us == pytest.approx(r["cpu"]["variant"]["cpuPercent"] * 10_000 / r["ordersPerSecond"], rel=1e-2)
        assert r["cpuPerOrderVsTrivial"] == pytest.approx(us / cal["http"][r["runtime"]]["cpuUsPerRequest"]["server"],
                                                          rel=1e-2)
        assert r["dbCpuUsPerSale"] == pytest.approx(
            r["cpu"]["database"]["cpuPercent"] * 10_000 / r["salesPerSecond"], rel=1e-2)
        assert r["insertCeilingDbCpuUsPerRow"] == cal["insert"][str(r["dbConnections"])]["singleRow"]["cpuUsPerRow"]["database"]
        entry = cal["insert"][str(r["dbConnections"])]
        # the runs are per-sale: held against single-row inserts; batch's multi-row ceiling is not measured
        assert "multiRow" not in entry
        ins = entry["singleRow"]["rowsPerSecond"]
        assert ins > 0 and entry["singleRow"]["batchRows"] == 1
        assert r["insertCeilingFraction"] == pytest.approx(r["salesPerSecond"] / ins, rel=1e-3)


def test_summary_has_median_and_interval_per_variant(compared):
    out, doc, stdout = compared
    rows = {r["variant"]: r for r in doc["summary"]}
    assert set(rows) == set(VARIANTS)
    for v, row in rows.items():
        vals = sorted(r["salesPerMinute"] for r in doc["runs"] if r["variant"] == v)
        s = row["salesPerMinute"]
        assert row["repeats"] == 2 and s["min"] == vals[0] and s["max"] == vals[1]
        assert s["median"] == pytest.approx(sum(vals) / 2)
        # two processes: an interval, within the two windows' range (the median of a draw of them)
        assert s["processes"] == 2 and vals[0] <= s["low"] <= s["median"] <= s["high"] <= vals[1]
        assert f"| {v} |" in (out / "summary.md").read_text()
    assert "## Which row stores more: verdicts" in (out / "summary.md").read_text()
    env = doc["environment"]
    assert env["gitCommit"] and env["cores"] >= 1 and env["jdk"] and env["node"] and env["database"]
    assert env["loadAverageBefore"] and env["cpuModel"]
    assert doc["options"]["repeat"] == 1 and doc["adaptive"]["rows"]
    assert "java-threads" in stdout        # the table is printed at the end


def test_diff_of_a_run_with_itself(compared):
    _, doc, _ = compared
    rows = diff.compare(doc, doc)
    assert {r["variant"] for r in rows} == set(VARIANTS)
    assert all(r["salesPerMinute"]["ratio"] == 1.0 and r["salesPerMinute"]["verdict"] == "no difference" for r in rows)


def chromium() -> str:
    path = shutil.which("chromium") or shutil.which("chromium-browser")
    assert path, "no chromium: ./tradebench test installs Debian's chromium package"
    return path


def test_report_html_shows_every_variant_and_its_charts_in_chromium(compared, tmp_path):
    out, doc, _ = compared
    url = (out / "report.html").as_uri()
    flags = ["--headless", "--no-sandbox", "--disable-gpu", "--hide-scrollbars", f"--user-data-dir={tmp_path / 'profile'}"]
    dom = subprocess.run([chromium(), *flags, "--dump-dom", url], capture_output=True, text=True, timeout=120).stdout
    for v in VARIANTS:
        assert f'data-variant="{v}"' in dom, f"no row for {v}"
    for chart in ("sales", "fractions", "cpu"):
        assert f'id="chart-{chart}"' in dom, chart
    for chart in ("latency", "cpu-timeline"):
        assert f'id="chart-{chart}"' in dom, chart
    shot = tmp_path / "report.png"
    subprocess.run([chromium(), *flags, "--window-size=1280,2000", f"--screenshot={shot}", url],
                   capture_output=True, timeout=120)
    img = Image.open(shot).convert("RGB")
    assert img.size == (1280, 2000)
    small = img.resize((128, 200))
    raw = small.tobytes()
    pixels = [tuple(raw[i:i + 3]) for i in range(0, len(raw), 3)]
    non_white = sum(1 for p in pixels if sum(p) < 720)
    colours = len(set(pixels))
    # a page with tables and bar charts: many non-white pixels, the charts' blues and oranges among them
    assert non_white > len(pixels) * 0.05, f"only {non_white} non-white pixels of {len(pixels)}"
    assert colours > 50
    assert any(b > r + 60 and b > g for r, g, b in pixels), "no blue bar pixels"


def test_every_party_ran_on_its_cpus_as_read_back_from_proc(compared):
    """The default layout isolates the variant; each window read every thread's Cpus_allowed_list from /proc."""
    from tradebench_harness.run import layout
    out, doc, _ = compared
    lay = doc["environment"]["layout"]
    assert lay["kind"] == ("isolated" if len(lay["machineCpus"]) > 1 else "shared")
    want = {"variant": lay["cpus"]["variant"], "database": lay["cpus"]["database"], "loadclient": lay["cpus"]["load"]}
    for r in doc["runs"]:
        assert set(r["cpusAllowed"]) >= {"variant", "database", "loadclient"}, r["cpusAllowed"]
        for party, cpus in want.items():
            expected = layout.cpus_text(cpus or lay["machineCpus"])
            assert r["cpusAllowed"][party] == [expected], (r["variant"], party, r["cpusAllowed"][party])
    assert "**CPU layout**" in (out / "summary.md").read_text()
    assert "as laid out in every one" in (out / "summary.md").read_text()
