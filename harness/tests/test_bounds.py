"""The bound arithmetic (Little's law), crossovers, the map's winners, and each manifest's in-flight count."""
import pytest

from tradebench_harness.analysis import bounds
from tradebench_harness.cli.measure import all_series
from tradebench_harness.cli.sweep import equal_in_flight
from tradebench_harness.measure import experiments, plan
from tradebench_harness.measure.plan import Case
from tradebench_harness.report import answer
from tradebench_harness.run.variants import by_name, discover


def test_the_bound_is_inserts_in_flight_over_the_round_trip():
    # the article's case 1: 4 blocking engines behind a 50 ms round trip
    assert bounds.sales_per_minute(4, 50.0) == pytest.approx(4_800)
    assert bounds.sales_per_minute(64, 50.0) == pytest.approx(76_800)
    assert bounds.sales_per_minute(4, 20.0) == pytest.approx(12_000)
    assert bounds.sales_per_minute(None, 20.0) is None and bounds.sales_per_minute(4, None) is None
    # one connection storing 48 rows a second one after another: a round trip of 20.8 ms
    assert bounds.rtt_ms(48.0) == pytest.approx(20.833, rel=1e-3)
    assert bounds.rtt_ms(0) is None
    assert bounds.fraction(10_659, 12_000) == pytest.approx(0.888, rel=1e-3)
    assert bounds.at_bound(10_300, 12_000) and not bounds.at_bound(10_100, 12_000)


def test_each_manifest_declares_what_it_keeps_in_flight(ctx):
    expected = {"java-threads": 4, "java-akka": 4, "java-spray-async": 64, "node-engine": 4, "java-virtual": 64}
    for v in discover(ctx.root):
        if v.name in expected:
            settings = {"ENGINES": "4", "PERSIST": "per-sale"}
            assert bounds.in_flight(v, "per-sale", settings) == expected[v.name], v.name
        # a multi-row INSERT per cycle: no bound in sales
        assert bounds.in_flight(v, "batch", {"ENGINES": "4"}) is None, v.name
    (threads,) = by_name(ctx.root, ["java-threads"])
    assert bounds.in_flight(threads, "per-sale", {"ENGINES": "64"}) == 64
    (akka,) = by_name(ctx.root, ["java-akka"])
    assert bounds.in_flight(akka, "per-sale", {"ENGINES": "8", "PERSIST_THREADS": "2"}) == 2


def test_equal_in_flight_adds_the_blocking_designs_at_the_pools_count(ctx):
    series = all_series(by_name(ctx.root, ["java-threads", "java-spray-async"]), 4, "per-sale", {})
    extra = equal_in_flight(series, {}, None)
    assert [(s.variant.name, s.engines) for s in extra] == [("java-threads", 64)]
    assert "64 in flight" in extra[0].name
    assert [s.engines for s in equal_in_flight(series, {}, 16)] == [16]


def test_a_variants_rows_are_one_where_the_caller_pins_their_setting(ctx):
    (node,) = by_name(ctx.root, ["node-engine"])
    rows = [{}, {"WORKERS": "threads"}, {"WORKERS": "threads", "LISTENERS": "cores"}]
    assert [s.settings for s in all_series([node], 4, "per-sale", {})] == rows
    assert [s.settings for s in all_series([node], 4, "per-sale", {"WORKERS": "threads"})] == [{}]
    assert [s.settings for s in all_series([node], 4, "per-sale", {"WORKERS": ""})] == rows
    assert len(plan.rows_of([node], [Case()], {})) == 3
    (row,) = plan.rows_of([node], [Case(settings={"WORKERS": "processes"})], {})
    assert row[0].settings == {"WORKERS": "processes"}


def pt(series, lat, rtt, med, spread=0.05, load="64 clients"):
    return {"series": series, "latencyMs": lat, "rttMs": rtt, "load": load,
            "salesPerMinute": {"median": med, "min": med * (1 - spread), "max": med * (1 + spread), "n": 2}}


def test_a_crossing_is_found_between_the_latencies_where_the_lead_changes():
    # blocking ahead on a fast database (less CPU an order), the pool ahead behind a slow one
    series = {"blocking": {0: {"rttMs": 0.1, **pt("b", 0, 0.1, 600_000)["salesPerMinute"]},
                           1: {"rttMs": 1.0, **pt("b", 1, 1.0, 200_000)["salesPerMinute"]},
                           20: {"rttMs": 20.0, **pt("b", 20, 20.0, 12_000)["salesPerMinute"]}},
              "pool": {0: {"rttMs": 0.1, **pt("p", 0, 0.1, 450_000)["salesPerMinute"]},
                       1: {"rttMs": 1.0, **pt("p", 1, 1.0, 420_000)["salesPerMinute"]},
                       20: {"rttMs": 20.0, **pt("p", 20, 20.0, 150_000)["salesPerMinute"]}}}
    (c,) = bounds.crossovers(series)
    assert c["below"] == "blocking" and c["above"] == "pool" and c["between"] == [0.1, 1.0]
    # log(600/450) = 0.288 at 0.1 ms, log(200/420) = -0.742 at 1 ms: zero 0.279 of the way on log(rtt)
    assert c["rttMs"] == pytest.approx(10 ** (-1 + 0.2795), rel=0.01)
    # within noise on one side: a tie there, no crossing
    series["pool"][0] = {"rttMs": 0.1, **pt("p", 0, 0.1, 590_000)["salesPerMinute"]}
    assert bounds.crossovers(series) == []


def test_the_map_names_the_winner_of_each_cell_and_its_ties():
    pts = [pt("a", 0, 0.1, 100_000), pt("b", 0, 0.1, 98_000), pt("a", 50, 50.0, 4_800), pt("b", 50, 50.0, 60_000)]
    for p in pts:
        p["withinNoiseOf"] = []
    ws = {w["latencyMs"]: w for w in answer.winners(pts)}
    # points measured in one process: no interval, so a tie is each within ±10 % of the other, said so
    assert ws[0]["winner"] == "a" and ws[0]["ties"] == ["b"]
    assert answer.winner_text(ws[0]) == "tie: a, b (one process: within ±10 %)"
    assert ws[50]["winner"] == "b" and ws[50]["ties"] == [] and ws[50]["overNext"] == pytest.approx(12.5)
    assert answer.winner_text(ws[50]) == "b ×12.5 (no interval: one process)"
    assert ws[0]["overRest"] is None   # every series ties: no rest to be ahead of
    # two leaders within noise of each other, both far ahead of a third: a tie, and by how much it leads
    pts += [pt("c", 50, 50.0, 59_000)]
    pts[-1]["withinNoiseOf"] = []
    w50 = {w["latencyMs"]: w for w in answer.winners(pts)}[50]
    assert w50["ties"] == ["c"] and w50["overRest"] == pytest.approx(59_000 / 4_800)
    assert answer.winner_text(w50) == "tie: b, c (×12.3 over the rest) (one process: within ±10 %)"


def test_a_map_cell_measured_in_processes_is_decided_by_the_interval_of_the_ratio():
    pts = [pt("a", 0, 0.1, 100_000), pt("b", 0, 0.1, 96_000), pt("c", 0, 0.1, 80_000)]
    pts[0]["salesByProcess"] = [[100_000.0, 101_000.0], [99_000.0, 100_500.0]]
    pts[1]["salesByProcess"] = [[96_000.0, 97_000.0], [95_500.0, 96_500.0]]     # 4 % behind, steadily: a lead
    pts[2]["salesByProcess"] = [[80_000.0, 81_000.0], [79_000.0, 80_500.0]]
    (w,) = answer.winners(pts)
    assert w["winner"] == "a" and w["ties"] == [] and w["unchecked"] == []
    text = answer.winner_text(w)
    assert text.startswith("a ×1.04 [") and text.endswith("]")
    # b's processes 10 % apart: no difference detected, though its median is 4 % behind (±10 % would not say)
    pts[1]["salesByProcess"] = [[91_000.0, 92_000.0], [101_000.0, 102_000.0]]
    (w,) = answer.winners(pts)
    assert w["ties"] == ["b"] and answer.winner_text(w).startswith("no difference detected: a, b")


def test_the_2014_follow_up_runs_on_the_slow_database_and_its_ratios_name_real_cases(ctx):
    meta, cases = experiments.load(ctx, "2014", {})
    by = {c.label: c for c in cases}
    assert by["case1-slow-db"].db_latency_ms == 50 and by["case2-fast-db"].db_latency_ms == 0
    for label in ("followup-spray", "followup-node", "followup-tomcat"):
        assert by[label].db_latency_ms == by["case1-slow-db"].db_latency_ms, label
    # TB_SLOW_DB_MS moves every slow case together
    _, slower = experiments.load(ctx, "2014", {"TB_SLOW_DB_MS": "80"})
    assert {c.label for c in slower if c.db_latency_ms == 80} == {"case1-slow-db", "followup-spray", "followup-node",
                                                                  "followup-tomcat"}
    names = {r["name"]: r for r in meta["ratios"]}
    assert names["Spray ÷ Tomcat"]["article"] == pytest.approx(79_536 / 10_221, rel=1e-3)
    assert names["Node ÷ Tomcat"]["article"] == pytest.approx(51_234 / 10_221, rel=1e-3)
    assert names["Spray ÷ Node"]["article"] == pytest.approx(79_536 / 51_234, rel=1e-3)
    for r in meta["ratios"]:
        for side in ("numerator", "denominator"):
            assert r[side]["variant"] in by[r[side]["case"]].variants and r["why"]


def test_a_ratio_naming_a_missing_case_is_refused(ctx, tmp_path):
    f = tmp_path / "x.yaml"
    f.write_text("name: x\ncases:\n  - {label: a, variants: [java-threads]}\n"
                 "ratios:\n  - {name: r, numerator: {case: a, variant: java-threads}, denominator: {case: b, variant: x}}\n")
    with pytest.raises(experiments.ExperimentError, match="denominator"):
        experiments.load(ctx, str(f), {})


def test_the_calibration_measures_the_insert_ceilings_of_the_runs_persist_modes():
    from tradebench_harness.measure import calibrate
    assert calibrate.insert_kinds({"per-sale"}) == [("singleRow", 1)]
    assert calibrate.insert_kinds(["batch"]) == [("multiRow", calibrate.MULTI_ROW_BATCH)]
    assert [k for k, _ in calibrate.insert_kinds(("batch", "per-sale"))] == ["singleRow", "multiRow"]
    from tradebench_harness.report import tables
    md = tables.calibration_md({"multiRowBatch": 100, "insert": {"8": {"singleRow": {"rowsPerSecond": 9000.0}}}})
    assert "single-row autocommit, 8 connections | 9,000 rows/s" in md and "100-row" not in md


def costed(series, lat, med, cores, p99):
    p = pt(series, lat, 1.0, med, load="500/s")
    p.update(cpuPercent={"variant": {"median": cores * 100}}, p99Ms={"median": p99})
    return p


def test_the_cheapest_carrier_is_chosen_among_the_designs_that_carry_the_load():
    # a and b carry the cell (a tie), c stores a third of it: c's tiny CPU does not make it the cheapest
    pts = [costed("a", 0, 100_000, 0.40, 3.0), costed("b", 0, 99_000, 0.20, 6.0), costed("c", 0, 30_000, 0.05, 1.0)]
    (c,) = answer.cheapest(pts)
    assert c["carriers"] == ["a", "b"]
    assert c["leastCpu"] == "b" and c["cpuNextOver"] == pytest.approx(2.0)
    assert c["lowestP99"] == "a" and c["p99NextOver"] == pytest.approx(2.0)
    assert answer.cheapest_text(c) == ("least CPU: b (0.20 cores, next ×2.0); lowest p99: a (3.0 ms, next ×2.0)")


def test_a_cell_with_one_carrier_says_so():
    (c,) = answer.cheapest([costed("a", 0, 100_000, 0.4, 3.0), costed("b", 0, 10_000, 0.1, 1.0)])
    assert c["carriers"] == ["a"] and c["cpuNextOver"] is None
    assert "the only carrier" in answer.cheapest_text(c)


def test_the_models_section_is_left_out_where_no_cell_is_open_loop():
    # a closed-loop sweep has no cell the model predicts: no empty table, no "0 of 0"
    empty = {"model": {"parameters": "p", "rows": [], "summary": {"cells": 0, "sales": {"within": 0, "of": 0}}}}
    assert answer.model_md(empty) == []
    row = {"design": "java-threads", "latencyMs": 0, "rttMs": 0.12, "rate": 500, "salesPerMinute": 26000,
           "predictedSalesPerMinute": 26500, "salesError": 0.02, "limit": "load", "cpuPercent": 8.0,
           "predictedCpuPercent": 9.0, "cpuError": 0.125, "rssMb": 300, "predictedRssMb": 310, "rssError": 0.03}
    one = {"model": {"parameters": "p", "rows": [row], "summary": {"cells": 1, "sales": {"within": 1, "of": 1}}}}
    assert "sales 1 of 1" in "\n".join(answer.model_md(one))
