"""figures, stats, tables, results, diff, experiments: the figures a reader sees come out right."""
import json
from pathlib import Path

import pytest

from tests import records
from tradebench_harness.analysis import stats
from tradebench_harness.measure import calibrate, experiments, figures
from tradebench_harness.report import diff, results, tables

ROOT = Path(__file__).resolve().parents[2]

HGRM = """       Value     Percentile TotalCount 1/(1-Percentile)

       0.100 0.000000000000          1           1.00
       0.500 0.500000000000        500           2.00
       2.000 0.900000000000        900          10.00
      10.000 0.990000000000        990         100.00
      50.000 0.999000000000        999        1000.00
     100.000 1.000000000000       1000
#[Mean    =        1.000, StdDeviation   =        2.000]
#[Max     =      100.000, Total count    =         1000]
#[Buckets =           20, SubBuckets     =        2048]
"""


def run(variant, repeat, spm, ops=100.0, case="", runtime="java", persist="per-sale", conns=8, **kw):
    r = {**records.window(variant), "variant": variant, "runtime": runtime, "case": case, "repeat": repeat, "engines": 4, "persist": persist,
         "rate": None, "settings": {"ENGINES": "4"}, "dbConnections": conns, "salesPerMinute": spm,
         "salesPerSecond": spm / 60 if spm is not None else None, "ordersPerSecond": ops, "p50Ms": 1.0, "p99Ms": 5.0, "p999Ms": 9.0,
         "cpu": {"variant": {"cpuPercent": 150.0}, "loadclient": {"cpuPercent": 30.0}, "database": {"cpuPercent": 10.0}},
         "steady": True, "driftFlagged": False}
    r.update(kw)
    return r


def test_hgrm_is_read_as_percentile_and_milliseconds(tmp_path):
    p = tmp_path / "l.hgrm"
    p.write_text(HGRM)
    pts = figures.parse_hgrm(p)
    assert pts[0] == [0.0, 0.1] and [50.0, 0.5] in pts and [99.9, 50.0] in pts and pts[-1] == [100.0, 100.0]
    assert len(pts) == 6


def test_summary_takes_median_min_max_and_without_processes_gives_no_interval_nor_tie():
    runs = [run("a", 1, 1000), run("b", 1, 1100), run("c", 1, 5000),
            run("a", 2, 1200), run("b", 2, 1300), run("c", 2, 5200),
            run("a", 3, 1100), run("b", 3, 1500), run("c", 3, 5100),
            run("c", 4, None, error="verify failed")]
    rows = {r["variant"]: r for r in stats.summarize(runs)}
    # windows that do not say their process are one process: no interval, and no verdict between rows
    assert rows["a"]["salesPerMinute"] == {"median": 1100, "min": 1000, "max": 1200, "n": 3, "low": None,
                                           "high": None, "processes": 1}
    assert rows["c"]["repeats"] == 3                    # the failed run is left out
    assert rows["a"]["withinNoiseOf"] == [] and rows["a"]["unchecked"] == ["b", "c"]
    md = tables.summary_md({"command": "compare", "runId": "x", "summary": list(rows.values()), "runs": runs,
                             "environment": {}, "calibration": None})
    assert "1,100 [no interval: 1 process]" in md and "≈ b" not in md
    assert "b stores 1.18× a (no interval: fewer than 2 processes each)" in md
    assert "verify failed" in md


def test_fractions_divide_by_the_runtime_and_persist_mode_ceilings():
    cal = {"http": {"java": {"ordersPerSecond": 1000.0}, "node": {"ordersPerSecond": 500.0}},
           "insert": {"8": {"singleRow": {"rowsPerSecond": 100.0}, "multiRow": {"rowsPerSecond": 1000.0}}}}
    j, n = run("j", 1, 600, ops=250), run("n", 1, 600, ops=250, runtime="node", persist="batch")
    j.update(figures.fractions(j, cal))
    n.update(figures.fractions(n, cal))
    assert j["httpCeilingFraction"] == 0.25 and n["httpCeilingFraction"] == 0.5
    assert j["insertCeilingFraction"] == 0.1 and n["insertCeilingFraction"] == 0.01
    other = run("o", 1, 600, conns=12)
    other.update(figures.fractions(other, cal))
    assert other["insertCeilingFraction"] is None       # no ceiling measured at 12 connections


def test_cpu_per_order_is_divided_by_the_trivial_servers_cost_of_its_runtime():
    """150 % of a core at 10,000 orders/s is 150 µs per order; the java trivial server's 10 µs makes it ×15."""
    samples = {"variant": [{"t": 1000 * i, "cpuPercent": 150.0, "rssMb": 1, "threads": 1, "processes": 1} for i in range(5)],
               "database": [{"t": 1000 * i, "cpuPercent": 50.0, "rssMb": 1, "threads": 1, "processes": 1} for i in range(5)]}
    f = figures.run_figures({"requestsPerSecond": 10_000.0, "db": {"salesPerMinute": 60}}, samples, None)
    assert f["cpuUsPerOrder"] == {"variant": 150.0, "database": 50.0}
    cal = {"http": {"java": {"ordersPerSecond": 1.0, "cpuUsPerRequest": {"server": 10.0, "loadclient": 8.0}},
                    "node": {"ordersPerSecond": 1.0, "cpuUsPerRequest": {"server": 30.0}}}, "insert": {}}
    j = run("j", 1, 600, **f)
    n = run("n", 1, 600, runtime="node", **f)
    old = run("o", 1, 600, **f)
    for r, c in ((j, cal), (n, cal), (old, {"http": {"java": {"ordersPerSecond": 1.0}}})):
        r.update(figures.fractions(r, c))
    assert j["cpuPerOrderVsTrivial"] == 15.0 and n["cpuPerOrderVsTrivial"] == 5.0
    assert old["cpuPerOrderVsTrivial"] is None            # a calibration from before CPU was sampled
    j2 = run("j", 2, 600, **{**f, "cpuUsPerOrder": {"variant": 170.0}})
    j2.update(figures.fractions(j2, cal))
    row = stats.summarize([j, j2])[0]
    assert row["cpuUsPerOrderVariant"] == {"median": 160.0, "min": 150.0, "max": 170.0, "n": 2, "low": None,
                                           "high": None, "processes": 1}
    assert tables.cost_cell(row) == "160.0 [no interval: 1 process] (×16.0)"
    assert "160.0 [no interval: 1 process] (×16.0)" in tables.summary_md(
        {"command": "bench", "runId": "t", "summary": [row], "runs": [j, j2], "environment": {}, "calibration": cal})
    assert calibrate.cpu_us_per(None, 5) is None and calibrate.cpu_us_per(50.0, 0) is None
    # with its framework's floor (Tomcat at 50 µs): ×3, named; without a floor of its own, the runtime's server
    cal["floors"] = {"tomcat": {"ordersPerSecond": 1.0, "cpuUsPerRequest": {"server": 50.0}}}
    t = run("t", 1, 600, floor="tomcat", **f)
    t.update(figures.fractions(t, cal))
    n.update(figures.fractions(n, cal))
    assert t["cpuPerOrderVsFloor"] == 3.0 and t["floorCpuUsPerRequest"] == 50.0
    assert n["cpuPerOrderVsFloor"] == 5.0 and n["floorCpuUsPerRequest"] == 30.0
    assert tables.cost_cell(stats.summarize([t])[0]) == "150.0 [no interval: 1 process] (×15.0; ×3.0 tomcat)"
    assert "| floor: tomcat answering 202" in tables.calibration_md(cal)



def test_the_databases_cpu_per_sale_is_set_beside_its_cost_per_row_at_the_insert_ceiling():
    """10 % of a core for 600 sales/min (10/s) is 10,000 µs per sale; per-sale runs compare with single rows."""
    cal = {"http": {}, "insert": {"8": {"singleRow": {"rowsPerSecond": 100.0, "cpuUsPerRow": {"database": 40.0}},
                                        "multiRow": {"rowsPerSecond": 1000.0, "cpuUsPerRow": {"database": 4.0}}}}}
    per_sale, batch = run("p", 1, 600), run("b", 1, 600, persist="batch")
    for r in (per_sale, batch):
        r.update(figures.fractions(r, cal))
    assert per_sale["dbCpuUsPerSale"] == 10_000.0 and per_sale["insertCeilingDbCpuUsPerRow"] == 40.0
    assert batch["insertCeilingDbCpuUsPerRow"] == 4.0
    assert tables.db_cost_cell(stats.summarize([per_sale])[0]) == "10000.0 (40.0)"
    assert "| 40.0 / – |" in tables.calibration_md(cal)
    bare = run("x", 1, 600)
    bare.update(figures.fractions(bare, {}))                  # --no-calibrate: the run's own figure, no ceiling beside it
    assert tables.db_cost_cell(stats.summarize([bare])[0]) == "10000.0"


def test_drift_over_ten_percent_is_flagged():
    f = figures.run_figures({"halves": {"drift": 0.15}, "db": {"salesPerMinute": 60}}, {}, None)
    g = figures.run_figures({"halves": {"drift": -0.05}, "db": {"salesPerMinute": 60}}, {}, None)
    assert f["driftFlagged"] and not g["driftFlagged"]


def test_diff_gives_both_medians_the_ratio_and_its_verdict():
    def doc(name, runs):
        return {"runId": name, "environment": {}, "runs": runs, "summary": stats.summarize(runs)}
    # each window a process of its own: two processes per row, so each ratio has its interval
    a = doc("A", [run("x", 1, 1000, process=1), run("x", 2, 1200, process=2),
                  run("y", 1, 100, process=3), run("y", 2, 110, process=4)])
    b = doc("B", [run("x", 1, 2000, process=1), run("x", 2, 2400, process=2),
                  run("y", 1, 105, process=3), run("y", 2, 130, process=4)])
    rows = {r["variant"]: r for r in diff.compare(a, b)}
    x, y = rows["x"]["salesPerMinute"], rows["y"]["salesPerMinute"]
    assert x["ratio"] == 2.0 and x["verdict"] == "ahead" and x["interval"]["low"] > 1
    assert y["verdict"] == "no difference" and y["interval"]["low"] < 1 < y["interval"]["high"]
    text = diff.render(a, b, list(rows.values()))
    assert "| x |" in text and "2.00× [" in text and "no difference (" in text


def test_the_2014_experiment_file_has_the_articles_cases(ctx):
    meta, cases = experiments.load(ctx, "2014", {"TB_SLOW_DB_MS": "40"})
    assert [c.label for c in cases] == ["case1-slow-db", "case2-fast-db", "followup-spray", "followup-node",
                                        "followup-tomcat"]
    assert cases[0].db_latency_ms == 40 and cases[1].db_latency_ms == 0
    assert meta["article"]["case1-slow-db"]["java-threads"] == 5100
    assert cases[3].engines == 25 and cases[3].variants == ["node-engine"]
    _, again = experiments.load(ctx, "2014", {})
    assert again[0].db_latency_ms == 50


def test_a_users_experiment_file_is_read_and_a_bad_one_refused(ctx, tmp_path):
    f = tmp_path / "mine.yaml"
    f.write_text("cases:\n  - {label: small, engines: 2, wait: 10, persist: batch}\n")
    meta, cases = experiments.load(ctx, str(f), {})
    assert meta["name"] == "mine" and cases[0].persist == "batch" and cases[0].wait_ms == 10
    f.write_text("cases:\n  - {label: small, engins: 2}\n")
    with pytest.raises(experiments.ExperimentError, match="engins"):
        experiments.load(ctx, str(f), {})
    with pytest.raises(experiments.ExperimentError, match="2014"):
        experiments.load(ctx, "no-such-experiment", {})


def test_the_report_draws_one_repeat_of_tiny_fractions(tmp_path):
    """One repeat: median = min = max, whatever the float (a bar chart refuses negative error bars)."""
    cal = {"http": {"java": {"ordersPerSecond": 3.0}},
           "insert": {"8": {"singleRow": {"rowsPerSecond": 7.0}, "multiRow": {"rowsPerSecond": 9.0}}}}
    runs = [run("a", 1, 0.1, ops=0.1 / 3), run("b", 1, 123.456, ops=1 / 7)]
    for r in runs:
        r.update(figures.fractions(r, cal))
    doc = {"command": "bench", "runId": "t", "runs": runs, "environment": {}, "calibration": cal, "options": {},
           "experiment": None}
    doc = results.write_all(tmp_path, doc)
    html = (tmp_path / "report.html").read_text()
    assert 'data-variant="a"' in html and 'id="chart-fractions"' in html
    for row in doc["summary"]:
        for key in ("salesPerMinute", "httpCeilingFraction", "insertCeilingFraction"):
            s = row[key]
            assert s["min"] == s["median"] == s["max"]


def test_the_cpu_budget_splits_an_order_into_floor_own_work_load_client_and_database():
    """30 µs in the variant over a 10 µs floor, 10 µs load client, 20 µs database, 10,000 orders/s on 2 cores:
    30 % of the machine; were its own 20 µs free, 2,000,000 µs ÷ 40 µs = 50,000 orders/s, half the 100,000 ceiling."""
    cal = {"http": {"java": {"ordersPerSecond": 100_000.0, "cpuUsPerRequest": {"server": 5.0}}},
           "floors": {"tomcat": {"ordersPerSecond": 1.0, "cpuUsPerRequest": {"server": 10.0}}}, "insert": {}}
    r = run("t", 1, 600, ops=10_000.0, floor="tomcat",
            cpuUsPerOrder={"variant": 30.0, "loadclient": 10.0, "database": 20.0})
    r.update(figures.fractions(r, cal))
    doc = {"command": "bench", "runId": "t", "runs": [r], "summary": stats.summarize([r]),
           "environment": {"cores": 2}, "calibration": cal}
    (b,) = stats.budget_rows(doc)
    assert b["ownUs"] == 20.0 and b["totalUs"] == 60.0 and b["machinePercent"] == pytest.approx(30.0)
    assert b["boundIfOwnWorkFree"] == pytest.approx(50_000) and b["boundFraction"] == pytest.approx(0.5)
    md = tables.summary_md(doc)
    assert "## Where an order's CPU goes" in md
    assert "| – | t | 30.0 | 10.0 (tomcat) | 20.0 | 10.0 | 20.0 | 60.0 | 30 % | 50,000 | 50 % |" in md
    # several processes (node-engine): the main one's share is shown beside the whole tree's
    f = figures.run_figures({"requestsPerSecond": 10_000.0, "db": {"salesPerMinute": 60}},
                            {"variant": [{"t": 0, "cpuPercent": 120.0, "rootCpuPercent": 70.0, "rssMb": 1, "threads": 1,
                                          "processes": 7}]}, None)
    assert f["cpuUsPerOrder"] == {"variant": 120.0, "variantRoot": 70.0}
    one = figures.run_figures({"requestsPerSecond": 10_000.0, "db": {"salesPerMinute": 60}},
                              {"variant": [{"t": 0, "cpuPercent": 120.0, "rootCpuPercent": 120.0, "rssMb": 1,
                                            "threads": 1, "processes": 1}]}, None)
    assert "variantRoot" not in one["cpuUsPerOrder"]


def test_a_variant_still_compiling_in_its_window_is_flagged():
    hot = run("hot", 1, 600, cpu={"variant": {"cpuPercent": 100.0, "jitCpuPercent": 21.0}})
    cool = run("cool", 1, 600, cpu={"variant": {"cpuPercent": 100.0, "jitCpuPercent": 0.7}})
    rows = {r["variant"]: r for r in stats.summarize([hot, cool])}
    assert tables.jit_note(rows["hot"]) == ["⚠ JIT 21 %"] and tables.jit_note(rows["cool"]) == []
    md = tables.summary_md({"command": "bench", "runId": "t", "summary": list(rows.values()), "runs": [hot, cool],
                             "environment": {}, "calibration": None})
    assert "⚠ JIT 21 %" in md


def raw_doc() -> dict:
    """A two-run compare as the harness writes it: per-second samples and the load client's JSON in each run."""
    runs = [run("a", 1, 1000.0), run("b", 1, 2000.0)]
    for i, r in enumerate(runs):
        r["windowStartMs"], r["windowEndMs"] = 10_000, 13_000
        r["samples"] = {g: [{"t": 9_000 + 1000 * k, "cpuPercent": 10.0 * (i + k), "rssMb": 50.0, "threads": 4}
                            for k in range(5)] for g in ("variant", "loadclient", "database")}
        r["load"] = {"mode": "closed", "requestsPerSecond": 100.0 * (i + 1), "latencyMs": {"p50": 1.0}}
        r["latencyPercentiles"] = [[50.0, 1.0], [99.0, 2.5 + i]]
    return {"schemaVersion": results.SCHEMA_VERSION, "command": "compare", "runId": "t", "runs": runs,
            "environment": {}, "calibration": None, "options": {}, "experiment": None}


def test_results_json_is_compact_and_the_raw_samples_are_compressed_beside_it(tmp_path):
    doc = raw_doc()
    expected = json.loads(json.dumps(doc["runs"]))
    doc = results.write_all(tmp_path, doc)
    text = (tmp_path / "results.json").read_text()
    assert "\n" not in text and ": " not in text, "results.json is indented"
    lean = json.loads(text)
    assert lean["schemaVersion"] == 3
    assert "summary" not in lean, "the summary is computed from the runs, not stored"
    for r in lean["runs"]:
        assert not set(results.RAW_KEYS) & set(r), "the raw material is in results.json"
        assert r["salesPerMinute"] in (1000.0, 2000.0)
    assert (tmp_path / "raw.json.gz").read_bytes()[:2] == b"\x1f\x8b", "raw.json.gz is not gzip"
    back = results.load(str(tmp_path), tmp_path)
    assert back["runs"] == [dict(r, **{k: r[k] for k in results.RAW_KEYS}) for r in expected]
    assert back["summary"] == doc["summary"] and back["summary"][0]["salesPerMinute"]["median"] == 1000.0
    # the report drawn again from the folder has the chart that needs the samples
    assert 'id="chart-cpu-timeline"' in (tmp_path / "report.html").read_text()
    back = results.write_all(tmp_path, back)
    assert 'id="chart-cpu-timeline"' in (tmp_path / "report.html").read_text()


def test_writing_the_same_results_again_gives_the_same_bytes(tmp_path):
    results.write_all(tmp_path, raw_doc())
    first = {f: (tmp_path / f).read_bytes() for f in ("results.json", "raw.json.gz", "summary.md")}
    results.write_all(tmp_path, results.load(str(tmp_path), tmp_path))
    assert {f: (tmp_path / f).read_bytes() for f in first} == first


def test_a_version_1_folder_is_read_as_it_is_and_written_back_in_the_new_layout(tmp_path):
    doc = raw_doc()
    doc["schemaVersion"] = 1
    doc["summary"] = stats.summarize(doc["runs"])
    (tmp_path / "results.json").write_text(json.dumps(doc, indent=1))
    old = results.load(str(tmp_path / "results.json"), tmp_path)
    assert old == doc                          # every field inline, nothing looked for beside it
    (tmp_path / "raw.json.gz").write_bytes(b"not read for version 1")
    assert results.load(str(tmp_path), tmp_path) == doc
    (tmp_path / "raw.json.gz").unlink()
    old = results.write_all(tmp_path, old)           # what ./tradebench report does to it
    new = results.load(str(tmp_path), tmp_path)
    assert new["schemaVersion"] == 3 and new["runs"] == doc["runs"] and new["summary"] == old["summary"]
    assert json.loads((tmp_path / "results.json").read_text())["runs"][0].get("samples") is None


def test_a_version_2_folder_without_its_raw_file_reads_without_samples_and_a_wrong_one_is_refused(tmp_path):
    results.write_all(tmp_path, raw_doc())
    raw = (tmp_path / "raw.json.gz").read_bytes()
    (tmp_path / "raw.json.gz").unlink()
    doc = results.load(str(tmp_path), tmp_path)
    assert all("samples" not in r for r in doc["runs"]) and doc["runs"][0]["salesPerMinute"] == 1000.0
    doc = results.write_all(tmp_path, doc)           # the report is still drawn, without the samples' chart
    assert 'id="chart-cpu-timeline"' not in (tmp_path / "report.html").read_text()
    lean = json.loads((tmp_path / "results.json").read_text())
    lean["runs"] = lean["runs"][:1]
    (tmp_path / "results.json").write_text(json.dumps(lean))
    (tmp_path / "raw.json.gz").write_bytes(raw)
    with pytest.raises(ValueError, match="holds 2 runs"):
        results.load(str(tmp_path), tmp_path)


def test_a_sweep_in_flight_writes_its_price_of_capacity_chart_beside_its_summary(ctx, tmp_path):
    folder = ctx.root / "docs" / "results" / "2026-11-26-in-flight"
    results.write_all(tmp_path, results.load(str(folder), ctx.root))
    assert (tmp_path / results.IN_FLIGHT_CHART).read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    # a run whose rows keep one in-flight count has no such chart
    single = tmp_path / "single"
    single.mkdir()
    doc = {"command": "bench", "runId": "t", "runs": [run("a", 1, 100.0)], "environment": {}, "calibration": {},
           "options": {}, "experiment": None}
    doc = results.write_all(single, doc)
    assert not (single / results.IN_FLIGHT_CHART).exists()
