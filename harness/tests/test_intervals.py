"""Intervals, verdicts and the adaptive compare's decisions (analysis/intervals.py, analysis/verdict.py,
analysis/stats.py, measure/adaptive.py) on synthetic windows: nothing runs."""
from pathlib import Path

import pytest

from tradebench_harness.analysis import intervals, stats, verdict
from tradebench_harness.measure import adaptive, memory, plan
from tradebench_harness.measure.plan import Case, Timing
from tradebench_harness.report import tables
from tradebench_harness.run import variants

ROOT = Path(__file__).resolve().parents[2]


def windows(variant, per_process, case="", first_process=1, **kw):
    """Run records of VARIANT: per_process[i] is the sales/min of the windows of its process i."""
    out = []
    for i, vals in enumerate(per_process):
        for k, v in enumerate(vals, 1):
            r = {"variant": variant, "runtime": "java", "case": case, "repeat": k, "engines": 4,
                 "persist": "per-sale", "rate": None, "settings": {}, "dbConnections": 8, "salesPerMinute": v,
                 "ordersPerSecond": v / 50, "p50Ms": 1.0, "p99Ms": 5.0, "p999Ms": 9.0,
                 "cpu": {"variant": {"cpuPercent": 150.0, "rssMaxMb": 300.0}, "loadclient": {"cpuPercent": 30.0},
                         "database": {"cpuPercent": 10.0}},
                 "cpuUsPerOrder": {"variant": 150.0 / (v / 50) * 1e4}, "memory": {"liveHeapMb": 40.0},
                 "steady": True, "driftFlagged": False, "process": first_process + i, "series": variant}
            r.update(kw)
            out.append(r)
    return out


def test_one_process_gives_no_interval_never_a_zero_width_one():
    ci = intervals.interval([[100.0, 101.0, 99.0]])
    assert ci["median"] == 100.0 and ci["low"] is None and ci["high"] is None and ci["processes"] == 1
    assert intervals.half_width(ci) is None
    r = verdict.compare([[100.0, 101.0]], [[90.0, 91.0], [89.0]])
    assert r["verdict"] == verdict.UNKNOWN and r["low"] is None
    assert "no interval" in verdict.text("a", "b", r)
    rows = {r["variant"]: r for r in stats.summarize(windows("a", [[1000, 1010, 990]]))}
    assert tables.cell(rows["a"]["salesPerMinute"]) == "1,000 [no interval: 1 process]"


def test_the_spread_between_processes_is_inside_the_interval():
    # two processes, each steady within itself (±0.1 %), 20 % apart: the interval spans them
    ci = intervals.interval([[900.0, 901.0, 899.0], [1100.0, 1101.0, 1099.0]])
    assert ci["low"] < 905 and ci["high"] > 1095
    # windows of one process only would have said ±0.1 %
    assert intervals.half_width(ci) > 0.08


def test_the_interval_is_reproducible_and_holds_its_median():
    groups = [[980.0, 1010.0], [1000.0, 1030.0], [990.0, 1005.0]]
    a, b = intervals.interval(groups, tag="x"), intervals.interval(groups, tag="x")
    assert a == b and a["low"] <= a["median"] <= a["high"]


def test_two_rows_alike_give_no_difference_detected():
    a = [[1000.0, 1020.0], [990.0, 1010.0], [1005.0, 985.0]]
    b = [[1010.0, 995.0], [1000.0, 1015.0], [985.0, 1002.0]]
    r = verdict.compare(a, b)
    assert r["verdict"] == verdict.SAME and r["low"] < 1 < r["high"]
    assert verdict.text("A", "B", r).startswith("no difference detected between A and B (")


def test_a_row_ahead_by_a_fifth_is_detected_with_its_ratio_and_interval():
    a = [[1200.0, 1210.0], [1190.0, 1205.0], [1215.0, 1195.0]]
    b = [[1000.0, 1010.0], [990.0, 1005.0], [1002.0, 998.0]]
    r = verdict.compare(a, b)
    assert r["verdict"] == verdict.AHEAD and 1 < r["low"] <= r["ratio"] <= r["high"] < 1.3
    assert r["ratio"] == pytest.approx(1.2, rel=0.02)
    text = verdict.text("A", "B", r)
    assert text.startswith("A stores 1.20× B [") and text.endswith("]")
    assert verdict.compare(b, a)["verdict"] == verdict.BEHIND


def test_fail_above_needs_a_detected_regression_worse_than_the_threshold():
    base = [[1000.0, 1010.0], [990.0, 1005.0], [1002.0, 998.0]]
    slower = [[x * 0.85 for x in g] for g in base]
    slightly = [[x * 0.97 for x in g] for g in base]
    assert verdict.fails(verdict.compare(slower, base), 5)
    r = verdict.compare(slightly, base)
    assert verdict.regression(r) and not verdict.fails(r, 5)          # detected, but 3 % < 5 %
    assert not verdict.fails(verdict.compare(base, base), 5)            # nothing detected
    assert not verdict.fails(verdict.compare([[850.0]], [[1000.0]]), 5)  # no interval: no verdict, no failure


def test_the_summary_carries_intervals_and_decides_ties_by_the_ratio():
    runs = (windows("a", [[1000, 1010], [990, 1005]]) + windows("b", [[1002, 995], [1008, 992]], first_process=3)
            + windows("c", [[2000, 2010], [1990, 2005]], first_process=5))
    rows = {r["variant"]: r for r in stats.summarize(runs)}
    for fig in ("salesPerMinute", "ordersPerSecond", "cpuUsPerOrderVariant", "p99Ms", "rssMb", "liveHeapMb"):
        s = rows["a"][fig]
        assert s["low"] is not None and s["processes"] == 2, fig
    assert rows["a"]["withinNoiseOf"] == ["b"] and rows["c"]["withinNoiseOf"] == []
    assert rows["c"]["against"]["a"]["verdict"] == verdict.AHEAD
    md = tables.summary_md({"command": "compare", "runId": "x", "summary": list(rows.values()), "runs": runs,
                            "environment": {}, "calibration": None})
    assert "## Which row stores more: verdicts" in md and "c stores 2.00× a [" in md
    assert "no difference detected between" in md
    assert f"{rows['a']['salesPerMinute']['median']:,.0f} [" in md


def test_a_drifting_window_is_set_aside_when_its_process_has_a_steady_one_else_counted_and_marked():
    rs = windows("a", [[1000, 1000], [1010, 990]])
    rs[1].update(driftFlagged=True, salesPerMinute=500)
    counted, aside = stats.counted(rs)
    assert aside == [rs[1]] and rs[1] not in counted
    # a process with no steady window: every window counts, the drifting one marked
    rs2 = windows("a", [[1000], [1010, 990]])
    rs2[0]["driftFlagged"] = True
    assert stats.counted(rs2) == (rs2, [])
    (row,) = stats.summarize(rs2)
    assert row["driftCounted"] == 1 and "⚠ drift in 1 of 3 window(s), counted" in "; ".join(tables.row_notes(row))


def test_a_row_a_neighbour_crowded_is_marked_and_a_quiet_one_is_not():
    quiet = windows("q", [[500_000, 510_000], [505_000, 499_000]],
                    machineCpu={"othersPercent": 2.0, "stealPercent": 0.0, "samples": 8})
    rs = windows("c", [[500_000, 510_000], [505_000, 499_000]], first_process=3,
                 machineCpu={"othersPercent": 2.0, "stealPercent": 0.0, "samples": 8})
    rs[1] = {**rs[1], "machineCpu": {"othersPercent": 53.0, "stealPercent": 0.0, "samples": 8}}
    rows = {r["variant"]: r for r in stats.summarize(quiet + rs)}
    assert "⚠ busy machine: other processes took up to 53 % of a core" in tables.row_notes(rows["c"])
    assert not [n for n in tables.row_notes(rows["q"]) if "busy" in n]
    # a window the hypervisor stole from is marked too
    stolen = windows("s", [[500_000, 510_000], [505_000, 499_000]], first_process=5,
                     machineCpu={"othersPercent": 2.0, "stealPercent": 0.0, "samples": 8})
    stolen[0] = {**stolen[0], "machineCpu": {"othersPercent": 2.0, "stealPercent": 61.0, "samples": 8}}
    (row,) = stats.summarize(stolen)
    assert "⚠ busy host: the hypervisor gave other guests up to 61 % of a core" in tables.row_notes(row)


def test_a_row_whose_windows_fall_steadily_is_unstable_and_its_figures_shown():
    falling = windows("n", [[766_456, 461_392, 280_176], [700_000, 500_000, 300_000]])
    steady = windows("m", [[500_000, 510_000, 495_000], [505_000, 499_000, 502_000]], first_process=3)
    rows = {r["variant"]: r for r in stats.summarize(falling + steady)}
    assert rows["n"]["unstable"] and not rows["m"]["unstable"]
    md = "\n".join(tables.unstable_md({"summary": list(rows.values())}))
    assert "## Unstable rows" in md and "766,456 → 461,392 → 280,176" in md


def test_the_live_heap_is_read_from_jcmd_and_from_v8s_trace():
    heap_info = (" PSYoungGen      total 152576K, used 5120K [0x00000000f5580000, 0x0000000100000000)\n"
                 "  eden space 131072K, 3% used [0x00000000f5580000,0x00000000f5a80000,0x00000000fd580000)\n"
                 " ParOldGen       total 349696K, used 30720K [0x00000000e0000000, 0x00000000f5580000)\n"
                 " Metaspace       used 20000K, committed 20480K, reserved 1114112K\n")
    assert memory.heap_info_used_mb(heap_info) == 35.0
    log = ("[100:0xaaa]     1200 ms: Scavenge 20.1 (25.0) -> 12.0 (26.0) MB, 1.2 / 0.0 ms\n"
           "[100:0xaaa]     3000 ms: Mark-Compact 40.0 (60.0) -> 30.5 (58.0) MB, 12.3 / 0.0 ms\n"
           "[100:0xbbb]     3100 ms: Mark-Compact (reduce) 10.0 (20.0) -> 8.0 (18.0) MB, 2.0 / 0.0 ms\n"
           "[100:0xaaa]     9000 ms: Mark-Compact 45.0 (60.0) -> 32.0 (58.0) MB, 12.3 / 0.0 ms\n"
           "[999:0xccc]     9100 ms: Mark-Compact 90.0 (99.0) -> 80.0 (98.0) MB, 2.0 / 0.0 ms\n")
    assert memory.node_live_heap_mb(log, {100}) == 40.0      # the latest of each isolate of its own pids
    assert memory.node_live_heap_mb("no collections", {100}) is None


def adaptive_plan(budget_s=600, target=0.05):
    vs = variants.by_name(ROOT, ["java-threads", "node-engine"])
    rows = adaptive.first_rows(plan.rows_of(vs, [Case()], {}))
    t = Timing(window=8, warmup="4", jit_warmup_max=20)
    return rows, adaptive.Adaptive(rows, t, adaptive.Goal(target=target, budget_s=budget_s), {}, started=0.0)


def test_compare_runs_each_designs_first_row_in_two_fresh_processes_round_robin_the_later_unverified():
    rows, a = adaptive_plan()
    assert [s.name for s, _ in rows] == ["java-threads", "node-engine"]      # node-engine's other rows: --all-rows
    units = a.initial()
    assert [u.series.name for u in units] == ["java-threads", "node-engine"] * 2
    assert [u.timing.verify for u in units] == [True, True, False, False]
    assert [rep for rep, _ in units[2].windows] == [3, 4]


def sure_doc(rows, spread):
    runs = []
    for n, (s, _) in enumerate(rows):
        runs += windows(s.name, [[1000, 1000 * (1 + spread)], [1000 * (1 - spread), 1000]], first_process=2 * n + 1)
    return {"runs": runs}


def test_a_row_within_its_target_stops_and_one_outside_gets_another_process(monkeypatch):
    monkeypatch.setattr(adaptive.time, "monotonic", lambda: 10.0)
    rows, a = adaptive_plan()
    a.initial()
    doc = sure_doc(rows, 0.01)
    assert a.section() is None                  # nothing to say before the first rounds are measured
    assert a.more(doc["runs"]) == [] and a.section()["stoppedShort"] == []
    rows, a = adaptive_plan()
    a.initial()
    doc = sure_doc(rows, 0.30)
    more = a.more(doc["runs"])
    assert sorted(u.series.name for u in more) == ["java-threads", "node-engine"]
    assert all(not u.timing.verify for u in more)


def test_a_spent_budget_stops_the_rows_short_and_says_which(monkeypatch):
    monkeypatch.setattr(adaptive.time, "monotonic", lambda: 590.0)
    rows, a = adaptive_plan(budget_s=600)
    a.initial()
    doc = sure_doc(rows, 0.30)
    assert a.more(doc["runs"]) == []
    doc["adaptive"] = a.section()
    assert doc["adaptive"]["stoppedShort"] == ["|java-threads", "|node-engine"]
    row = stats.summarize(doc["runs"])[0]
    note = "; ".join(tables.row_notes(row, doc))
    assert "stopped short of the target: ±" in note and "(target ±5 %)" in note


def test_a_row_whose_latest_process_failed_is_not_measured_again(monkeypatch):
    monkeypatch.setattr(adaptive.time, "monotonic", lambda: 10.0)
    rows, a = adaptive_plan()
    a.initial()
    doc = sure_doc(rows, 0.30)
    for r in doc["runs"]:
        if r["series"] == "node-engine" and r["process"] == 4:
            r.update(error="the variant died", salesPerMinute=None)
    assert [u.series.name for u in a.more(doc["runs"])] == ["java-threads"]
