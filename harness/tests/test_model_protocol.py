"""How sure the model is: inputs refused at the edge, the subcommands, the intervals and their coverage, the
held-out protocol (the committed check kept at what docs/model-accuracy.md says), where an answer extrapolates, settings
with a margin, saturation per CPU count and latency. No database, no variant started."""
import argparse
import dataclasses
import json
import math
import os
import statistics

import pytest

from tests.commands import predict as predict_main
from tradebench_harness.analysis import crowded
from tradebench_harness.cli import main, validators
from tradebench_harness.cli import predict as predict_cli
from tradebench_harness.cli import predict_answers as answers
from tradebench_harness.cli.options import Question
from tradebench_harness.model import accuracy, calibrate, check, fit, params, plan
from tradebench_harness.model import predict as m
from tradebench_harness.model.designs import all_designs

HOLDOUT = json.loads((params.COMMITTED.parent / "holdout.json").read_text())


def committed_set(cpu_model):
    return params.for_machine(params.load(params.COMMITTED), cpu_model, 2)


# --- inputs refused -----------------------------------------------------------------------------------------------

@pytest.mark.parametrize("args", [
    ["--db-latency", "7", "--rate", "nan"], ["--db-latency", "7", "--rate", "inf"], ["--db-latency", "7", "--rate", "-5"],
    ["--db-latency", "7", "--rate", "0"], ["--db-latency", "nan", "--rate", "3000"],
    ["--db-latency", "-1", "--rate", "3000"], ["--db-latency", "7", "--rate", "3000", "--cores", "-2"],
    ["--db-latency", "7", "--rate", "3000", "--cores", "inf"], ["--db-latency", "7", "--rate", "3000", "--db-cpu", "0"],
    ["--db-latency", "7", "--rate", "3000", "--db-cpu", "nan"], ["--db-latency", "7", "--rate", "3,000"],
    ["--db-latency", "0", "--saturation", "--cores", "nan"], ["--db-latency", "7"],
    ["--db-latency", "7", "--rate", "3000", "--saturation"],
])
def test_nan_inf_negative_and_missing_inputs_are_refused_with_an_error_and_no_answer(args, capsys):
    with pytest.raises(SystemExit) as e:
        predict_main(args)
    assert e.value.code == 2
    got = capsys.readouterr()
    assert got.out == "" and "error:" in got.err


def test_the_number_types_say_what_they_accept():
    assert validators.number_above_zero("--rate")("3000") == 3000.0
    assert validators.number_not_negative("--db-latency")("0") == 0.0
    for bad, why in (("nan", "finite"), ("-inf", "finite"), ("-1", "at least 0"), ("x", "a number")):
        with pytest.raises(argparse.ArgumentTypeError) as e:
            validators.number_not_negative("--db-latency")(bad)
        assert why in str(e.value)


# --- the subcommands and the typed options -----------------------------------------------------------------------

def test_check_is_a_subcommand_and_the_older_flag_is_refused_naming_it(ctx, capsys):
    assert predict_main(["check", "2026-11-26-map"], root=ctx.root) == 0
    out = capsys.readouterr().out
    assert "- sales: " in out and "interval covered" in out and "leaving each cell out" in out
    assert "| p50 ms |" in out
    with pytest.raises(SystemExit) as e:
        predict_main(["--check", "2026-11-26-map"], root=ctx.root)
    assert e.value.code == 2 and "older form: ./tradebench predict check 2026-11-26-map" in capsys.readouterr().err


def test_check_refuses_a_folder_the_parameters_were_fitted_from_unless_asked(ctx, tmp_path, capsys):
    doc = params.load(params.COMMITTED)
    epyc = params.for_machine(doc, "AMD EPYC", 2)
    assert predict_main(["check", "2026-11-26-light-loads"], root=ctx.root) == 2
    assert "fitted from" in capsys.readouterr().err
    assert predict_main(["check", "2026-11-26-light-loads", "--in-sample"], root=ctx.root) == 0
    assert "in-sample" in capsys.readouterr().err
    assert "20261126-062451-map" in params.fitted_from(epyc) or any(
        s["folder"] == "2026-11-26-light-loads" for s in epyc["sources"])


def test_the_answers_options_are_one_typed_object_built_at_the_edge():
    q = main.parse(["predict", "--db-latency", "7", "--rate", "3000", "--cores", "4"]).options
    assert q == Question(7.0, 3000.0, 4.0, "per-sale", None, False, None, None) and not q.saturation
    with pytest.raises(dataclasses.FrozenInstanceError):
        q.rate = 1.0                                     # frozen: not changed after the edge
    assert main.parse(["predict", "--db-latency", "0", "--saturation"]).options.saturation
    assert predict_cli.older_form(["--fit", "a", "b", "--out", "x"]).endswith("./tradebench predict fit a b --out x")
    assert predict_cli.older_form(["--probe-fsync"]).endswith("./tradebench predict probe-fsync")
    assert predict_cli.older_form(["--db-latency", "0", "--saturation"]) is None


# --- intervals and coverage --------------------------------------------------------------------------------------

def row(design, pred, meas, fig="sales"):
    measured, predicted = accuracy.FIGURES[fig]
    return {"design": design, measured: meas, predicted: pred}


def test_quantiles_are_linear_between_order_statistics():
    xs = [0.0, 1.0, 2.0, 3.0, 4.0]
    assert accuracy.quantile(xs, 0.5) == 2.0
    assert accuracy.quantile(xs, 0.025) == pytest.approx(0.1)
    assert accuracy.quantile(xs, 0.975) == pytest.approx(3.9)
    assert accuracy.quantile([7.0], 0.3) == 7.0


def test_a_designs_interval_is_its_bias_and_every_designs_spread_about_theirs():
    # design a always predicts 10 % high, b 10 % low; each strays ±2 % about that
    rows = [row("a", 110 + d, 100) for d in (-2, 0, 2, -2, 0, 2)] + [row("b", 90 + d, 100) for d in (-2, 0, 2, -2, 0, 2)]
    bands = accuracy.intervals(rows)
    a, how = accuracy.band_for(bands, "a", "sales")
    # on a log scale: a's median ± the ⌈13 × 0.95⌉-th = 12th least distance of every cell from its design's median
    about = [math.log(x / 110) for x in (108, 110, 112)] * 2 + [math.log(x / 90) for x in (88, 90, 92)] * 2
    half = max(abs(x) for x in about)
    assert how == "its own" and bands["sales"]["spread"]["rank"] == 12 and bands["sales"]["spread"]["n"] == 12
    assert a["low"] == pytest.approx(1.1 * math.exp(-half) - 1, abs=1e-3)
    assert a["high"] == pytest.approx(1.1 * math.exp(half) - 1, abs=1e-3)
    # with 39 cells about their medians, the 38th least: the most extreme is left out
    spread = accuracy.conformal([0.01 * i for i in range(39)])
    assert spread["rank"] == 38 and spread["halfLog"] == pytest.approx(0.37)
    lo, hi = accuracy.interval(110.0, a)
    assert lo == pytest.approx(110 / (1 + a["high"])) and hi == pytest.approx(110 / (1 + a["low"]))
    # a design without residuals of its own takes every design's
    assert accuracy.band_for(bands, "c", "sales")[1] == "every design's"
    cov = accuracy.coverage(rows, bands)["sales"]
    assert cov["covered"] == cov["of"] == 12
    # counted leaving each cell out, a cell that strays further than the others is not covered
    strays = rows + [row("a", 135, 100)]
    loo = accuracy.coverage(strays, None, leave_one_out=True)["sales"]
    assert loo["of"] == 13 and loo["covered"] < 13


def test_a_record_of_the_quantiles_form_is_still_read():
    bands = {"cpu": {"pooled": {"low": -0.3, "high": 0.3, "n": 20}, "spread": {"low": -0.1, "high": 0.2, "n": 20},
                     "designs": {"a": {"median": 0.05, "n": 9}}}}
    band, how = accuracy.band_for(bands, "a", "cpu")
    assert how == "its own" and band["low"] == pytest.approx(-0.05) and band["high"] == pytest.approx(0.25)


def test_p50s_interval_pools_every_design_in_a_normal_prediction_interval():
    # design a reads 10 % low, b 0 %: p50's error is the rate's, not the design's, so neither keeps a bias
    rows = [row("a", 90 + d, 100, "p50") for d in (-2, 0, 2)] + [row("b", 100 + d, 100, "p50") for d in (-2, 0, 2)]
    bands = accuracy.intervals(rows)
    band, how = accuracy.band_for(bands, "a", "p50")
    assert how == "every design's" and band["form"] == "normal" and band["n"] == 6
    es = [r["predictedP50Ms"] / r["p50Ms"] - 1 for r in rows]
    half = accuracy.t_975(5) * statistics.stdev(es) * (1 + 1 / 6) ** 0.5
    assert band["low"] == pytest.approx(statistics.fmean(es) - half, abs=1e-4)
    assert band["high"] == pytest.approx(statistics.fmean(es) + half, abs=1e-4)
    # a cell of either design at the other's bias is inside it; one 40 % off is not
    assert accuracy.coverage([row("a", 100, 100, "p50"), row("b", 90, 100, "p50"), row("a", 140, 100, "p50")],
                             bands)["p50"]["covered"] == 2
    # Student's t, not the normal's 1.96, with few cells
    assert accuracy.t_975(2) == pytest.approx(4.303) and accuracy.t_975(16) == pytest.approx(2.120, abs=2e-3)


def test_a_crowded_cell_is_left_out_of_the_score_the_intervals_and_their_coverage():
    rows = [row("a", 100 + d, 100) for d in (-2, 0, 2)] + [row("a", 150, 100) | {"crowded": True}]
    assert accuracy.score(rows)["sales"]["of"] == 3 and accuracy.score(rows)["sales"]["within"] == 3
    assert accuracy.intervals(rows)["sales"]["pooled"]["n"] == 3
    assert accuracy.coverage(rows, accuracy.intervals(rows))["sales"]["of"] == 3
    # the window's own record says so: processes, or the hypervisor's other guests
    assert crowded.crowded({"machineCpu": {"othersPercent": 1.0, "stealPercent": 60.0}})
    assert crowded.crowded({"machineCpu": {"othersPercent": 53.0, "stealPercent": 0.0}})
    assert not crowded.crowded({"machineCpu": {"othersPercent": 1.0, "stealPercent": 2.0}})


def test_the_score_counts_cells_within_each_figures_tolerance():
    rows = [row("a", 105, 100), row("a", 120, 100), row("a", 100, 100, "cpu") | row("a", 105, 100)]
    s = accuracy.score(rows)
    assert s["sales"]["within"] == 2 and s["sales"]["of"] == 3 and s["sales"]["tolerance"] == 0.10
    assert s["cpu"] == {"within": 1, "of": 1, "tolerance": 0.20, "medianError": 0.0}


def test_the_accuracy_sentence_is_computed_from_the_set_in_use():
    epyc, xeon = committed_set("AMD EPYC"), committed_set("Intel(R) Xeon(R) Processor")
    said = accuracy.sentence(epyc)
    h = epyc["heldOut"]
    assert f"{h['cells']} cells of 2026-11-26-map" in said
    assert f"sales within 10 % in {h['score']['sales']['within']} of {h['score']['sales']['of']}" in said
    assert "has not been held against" in accuracy.sentence({k: v for k, v in xeon.items() if k != "heldOut"})
    assert "a later sitting they were not drawn from" in accuracy.sentence(xeon)     # two held-out sittings
    changed = {**epyc, "heldOut": {**h, "score": {**h["score"], "sales": {**h["score"]["sales"], "within": 3}}}}
    assert accuracy.sentence(changed) != said


def test_predict_prints_the_sentence_of_the_set_it_uses_and_an_interval_on_each_figure(ctx, capsys, monkeypatch):
    monkeypatch.setattr(answers, "_this_machine", lambda: ("AMD EPYC", 2))
    monkeypatch.setattr(os, "cpu_count", lambda: 2)
    assert predict_main(["--db-latency", "0", "--rate", "2000"], root=ctx.root) == 0
    out = capsys.readouterr().out
    # the isolated layout's committed set (the kind's calibration), the shared layout's the fit of docs/results
    isolated = params.committed("AMD EPYC", 2, "isolated")
    assert isolated is not None and isolated.get("calibration") and accuracy.sentence(isolated) in out
    threads = next(line for line in out.splitlines() if line.startswith("| java-threads |"))
    assert threads.count("–") >= 4          # sales, cores, memory, p50, p99 each with a range
    assert predict_main(["--db-latency", "0", "--rate", "2000", "--layout", "shared"], root=ctx.root) == 0
    assert accuracy.sentence(committed_set("AMD EPYC")) in capsys.readouterr().out


# --- the held-out protocol ------------------------------------------------------------------------------------------

def _held_out_set(entry):
    """The set ENTRY of holdout.json holds: the committed set of its machine, or the file it names (a set
    measured by ./tradebench calibrate)."""
    source = params.COMMITTED.parent / entry["params"] if entry.get("params") else params.COMMITTED
    doc = params.load(source)
    return params.for_machine(doc, entry["cpuModel"], entry["cores"]) or params.calibrated(doc, entry["cores"])


@pytest.mark.parametrize("entry", HOLDOUT["sets"], ids=lambda e: e["cpuModel"] + (" " + e["params"] if e.get("params") else ""))
def test_the_committed_check_on_held_out_folders_keeps_what_docs_model_accuracy_md_says(ctx, entry):
    pset = _held_out_set(entry)
    assert pset["heldOut"]["folders"] == entry["folders"]
    rows, by_folder = [], {}
    for name in entry["folders"]:
        doc = json.loads((ctx.root / "docs" / "results" / name / "results.json").read_text())
        assert doc["runId"] not in params.fitted_from(pset), f"{name} is in the fit: it is no held-out folder"
        by_folder[name] = check.against(doc, pset, all_designs(ctx.root))
        rows += by_folder[name]
    score = accuracy.score(rows)
    if entry.get("intervalsFrom"):       # intervals from the first sitting, counted on the later one
        first = [r for name in entry["intervalsFrom"] for r in by_folder[name]]
        later = [r for name in entry["folders"] if name not in entry["intervalsFrom"] for r in by_folder[name]]
        cov = accuracy.coverage(later, accuracy.intervals(first))
    else:
        cov = accuracy.coverage(rows, None, leave_one_out=True)
    doc_text = (ctx.root / "docs" / "model-accuracy.md").read_text()
    for fig, want in entry["figures"].items():
        assert score[fig]["tolerance"] == want["tolerance"], fig
        assert score[fig]["of"] == want["of"], fig
        assert score[fig]["within"] >= want["atLeast"], (fig, score[fig])
        assert cov[fig]["covered"] >= want["coveredAtLeast"], (fig, cov[fig])
        # the doc states the same floor
        line = (f"| {accuracy.NAMES[fig]} | {want['tolerance'] * 100:.0f} % | {want['atLeast']} of {want['of']} | "
                f"{want['coveredAtLeast']} of ")
        assert line in doc_text, f"docs/model-accuracy.md lacks the row: {line}"


def test_a_calibration_takes_its_intervals_from_a_shipped_calibration_held_against_two_sittings(monkeypatch):
    committed = params.load(params.COMMITTED)["sets"]
    donor = calibrate.interval_donor(committed)
    assert donor["calibration"] and donor["heldOut"]["coverageOn"]
    shipped = [c for c in params.shipped_calibrations() if (c.get("heldOut") or {}).get("coverageOn")]
    assert donor["calibration"]["measuredAt"] == max(c["calibration"]["measuredAt"] for c in shipped)
    # none shipped: the committed set held out last
    monkeypatch.setattr(params, "shipped_calibrations", lambda: [])
    fallback = calibrate.interval_donor(committed)
    assert not fallback.get("calibration") and fallback["heldOut"]


def test_a_fit_refuses_to_hold_out_a_folder_it_was_fitted_from(ctx):
    doc = params.document([committed_set("AMD EPYC")])
    with pytest.raises(ValueError, match="cannot be held out"):
        answers.score_held_out(doc, [ctx.root / "docs" / "results" / "2026-11-26-light-loads"], ctx.root)
    answers.score_held_out(doc, [ctx.root / "docs" / "results" / "2026-11-26-map"], ctx.root)
    assert doc["sets"][0]["heldOut"]["cells"] == 108


# --- where it extrapolates ----------------------------------------------------------------------------------------

def q(**kw):
    base = dict(db_latency=0.0, rate=3000.0, cores=None, persist="per-sale", db_cpu=None, db_durable=False,
                params=None, layout="shared")
    base.update(kw)
    return Question(**base)


def test_a_rate_round_trip_core_count_layout_or_mode_outside_the_set_is_said():
    s = {"measured": {"rates": [300, 6000], "ratesFrom": "this machine's open-loop runs", "roundTripMs": [0.12, 51.8],
                      "variantCpus": [2], "layouts": ["shared"], "persist": ["per-sale"]}}
    assert answers.extrapolated(s, q(), 0.2, 2) == []
    said = answers.extrapolated(s, q(rate=8000.0, layout="isolated", persist="batch"), 80.0, 8)
    assert "rate above the largest measured 6,000/s (this machine's open-loop runs)" in said
    assert any("round trip 80.00 ms above the longest measured 51.8 ms" in x for x in said)
    assert any("8 CPUs for the variant: measured at 2 only" in x for x in said)
    assert any(x.startswith("layout isolated") for x in said) and any(x.startswith("batch") for x in said)
    assert answers.extrapolated(s, q(rate=100.0), 0.2, 2) == ["rate below the least measured 300/s (this machine's "
                                                         "open-loop runs)"]
    assert "does not say what it measured" in answers.extrapolated({}, q(), 0.2, 2)[0]


def test_predict_marks_a_rate_above_what_its_set_measured(ctx, capsys, monkeypatch):
    monkeypatch.setattr(answers, "_this_machine", lambda: ("AMD EPYC", 2))
    assert predict_main(["--db-latency", "0", "--rate", "8000", "--cores", "4", "--layout", "shared"],
                        root=ctx.root) == 0
    out = capsys.readouterr().out
    assert "Extrapolated: rate above the largest measured 6,000/s" in out
    assert "Extrapolated: 4 CPUs for the variant: measured at 2 only" in out


# --- settings with a margin -----------------------------------------------------------------------------------------

def test_the_margin_is_the_largest_share_of_the_bound_below_which_every_cell_stored_95_percent():
    cells = [(0.01, 0.92), (0.2, 1.0), (0.5, 0.97), (0.72, 0.93), (3.6, 0.3), (0.6, 0.99)]
    # 0.01: too light to lose load to the bound (the matching's noise); 0.72 lost 7 %
    assert fit.margin_of(cells) == pytest.approx(0.6)
    assert fit.margin_of([(0.5, 0.5)]) is None
    assert m.in_flight_with_margin(2664, 7.18) == m.in_flight_needed(2664, 7.18) == 20
    assert m.in_flight_with_margin(2664, 7.18, 0.0, 0.5) == 39
    # a margin below a quarter is not one more in flight buys: at most four times the least
    assert m.in_flight_with_margin(2664, 7.18, 0.0, 0.01) == 77


def test_a_named_setting_keeps_the_measured_margin_not_the_least_the_law_allows(ctx):
    by = {d.key: d for d in all_designs(ctx.root)}
    figs = {"cpuUsPerOrder": 50.0, "saturationOrders": 20_000, "loadExponent": 0.0, "cycleUs": 0.0,
            "refusedCost": 1.0, "insertOverheadMs": 0.0, "rssBaseMb": 300.0, "rssPerEngineMb": 5.0, "from": {}}
    s = {"machine": {"cpuModel": "CPU X", "cores": 2}, "sources": [], "salesPerOrder": {"value": 0.9},
         "dbOwnMs": {"value": 0.2}, "designs": {"java-threads": {"per-sale": {**figs, "marginBoundFraction": 0.8}},
                                                "java-virtual": {"per-sale": {**figs, "marginBoundFraction": 0.8}}}}
    # 2,700 sales/s behind 7.2 ms: 19.44 in flight; at 0.8 of the bound, 25
    assert plan.plan(by["java-threads"], "per-sale", s, 3000, 7.2).needs == {"ENGINES": 25}
    # 64 in flight carry it as configured, but at 0.30 of their bound; 2,700 × 30 ms = 81 in flight: 102 with margin
    assert plan.plan(by["java-virtual"], "per-sale", s, 3000, 30.0).needs == {"DB_POOL": 102}
    # behind 30 ms the margin asks 102 engines and ENGINES stops at PRODUCTS: the most it allows, said so
    far = plan.plan(by["java-threads"], "per-sale", s, 3000, 30.0)
    assert far.carries and far.needs == {"ENGINES": 100} and "ENGINES stops at 100" in far.why_not


# --- saturation per CPU count ---------------------------------------------------------------------------------------

def test_saturation_is_interpolated_between_measured_counts_and_extrapolated_beyond_them_capped():
    pts = [{"cpus": 1, "orders": 10_000, "sales": 9_000}, {"cpus": 2, "orders": 18_000, "sales": 16_000},
           {"cpus": 4, "orders": 30_000, "sales": 26_000}]
    assert m.saturation_at(pts, 2).orders == 18_000 and m.saturation_at(pts, 2).measured
    mid = m.saturation_at(pts, 3)
    assert mid.orders == pytest.approx(24_000) and mid.measured and mid.note == ""
    far = m.saturation_at(pts, 8)
    assert far.orders == pytest.approx(30_000 + 6_000 * 4) and not far.measured and "above the largest" in far.note
    # a last step that gains more per CPU than the last point's average is capped at proportional
    steep = m.saturation_at([{"cpus": 1, "orders": 1_000, "sales": 900}, {"cpus": 2, "orders": 10_000, "sales": 9_000}], 4)
    assert steep.orders == pytest.approx(20_000)
    one = m.saturation_at([{"cpus": 2, "orders": 18_000, "sales": 16_000}], 8)
    assert one.sales == pytest.approx(64_000) and "measured at 2 only" in one.note
    assert m.saturation_at([], 2) is None


def test_predict_saturation_scales_with_cores_from_measured_points_and_says_so(ctx, capsys, monkeypatch):
    monkeypatch.setattr(answers, "_this_machine", lambda: ("AMD EPYC", 2))
    shared = ["--db-latency", "0", "--saturation", "--layout", "shared"]       # the set measured 2 CPUs
    assert predict_main([*shared, "--cores", "2"], root=ctx.root) == 0
    two = capsys.readouterr().out
    assert predict_main([*shared, "--cores", "1"], root=ctx.root) == 0
    one = capsys.readouterr().out
    line = next(x for x in one.splitlines() if x.startswith("| java-virtual |"))
    assert "saturation (extrapolated: CPUs 1: measured at 2 only" in line
    assert line != next(x for x in two.splitlines() if x.startswith("| java-virtual |"))


def test_a_run_without_variant_cpus_counts_as_the_machines_cpus_shared(ctx, tmp_path):
    from tests.test_model import results_doc, run  # noqa: PLC0415
    designs = all_designs(ctx.root)
    sat = results_doc(tmp_path, "sat", "CPU X", "2026-11-25T10:00:00+0000", [
        run("java-threads", cpu=100.0, ordersPerSecond=20_000, acceptedPerSecond=20_000, salesPerSecond=18_000),
        run("java-threads", cpu=50.0, ordersPerSecond=11_000, acceptedPerSecond=11_000, salesPerSecond=10_000,
            variantCpus=1, layout={"kind": "isolated", "cpus": {"variant": [0]}})])
    (s,) = fit.fit([sat], designs)
    pts = s["designs"]["java-threads"]["per-sale"]["saturationByCpus"]
    assert {(p["cpus"], p["layout"], p["sales"]) for p in pts} == {(2, "shared", 18_000), (1, "isolated", 10_000)}
    assert s["measured"]["variantCpus"] == [1, 2] and s["measured"]["layouts"] == ["isolated", "shared"]
    # the reference figure is the machine's CPUs, shared
    assert s["designs"]["java-threads"]["per-sale"]["saturationSales"] == 18_000


# --- latency ----------------------------------------------------------------------------------------------------------

def test_latency_follows_the_designs_measured_curve_and_says_where_it_extrapolates():
    pts = [[300, 0.7, 1.4], [1500, 0.66, 1.2], [6000, 0.63, 1.8]]
    assert m.latency_at(pts, 1500)[:2] == (0.66, 1.2)
    p50, p99, note = m.latency_at(pts, 3750)
    assert p99 == pytest.approx(1.5) and note == ""
    p50, p99, note = m.latency_at(pts, 8000)
    assert p99 == pytest.approx(1.8 + 0.6 * 2000 / 4500) and "above the largest rate measured (6,000/s)" in note
    assert m.latency_at(pts, 100)[2].startswith("below the least rate")
    assert m.latency_at(None, 100) is None


def test_the_check_holds_latency_below_saturation_only(ctx):
    doc = json.loads((ctx.root / "docs" / "results" / "2026-11-26-map" / "results.json").read_text())
    rows = check.against(doc, committed_set("AMD EPYC"), all_designs(ctx.root))
    with_lat = [r for r in rows if r["predictedP99Ms"] is not None]
    assert with_lat and all(r["limit"] == "load" for r in with_lat)
    assert all(r["predictedP99Ms"] is None for r in rows if r["limit"] != "load")


# --- a calibrated set is this machine's, known by its figures --------------------------------------------------------

def test_predict_takes_this_machines_calibrated_set_first_and_says_so(tmp_path, monkeypatch):
    monkeypatch.setattr(answers, "_this_machine", lambda: ("Some CPU name", 2))
    s = json.loads(json.dumps(committed_set("AMD EPYC")))
    s["machine"] = {"cores": 2, "cpuModel": "another name altogether"}
    s["calibration"] = {"measuredAt": "2026-11-27T14:00:00+0000", "probeMs": 0.15,
                        "saturationOrders": {"java-threads": 19_000.0}}
    params.save(params.document([s]), tmp_path / answers.USER_PARAMS)
    got, which = answers.choose_set(tmp_path, None)
    assert got["calibration"] and which.startswith("this machine's, measured by ./tradebench calibrate")
    assert "java-threads 19,000" in which and "one INSERT 0.15 ms" in which
    # another machine's CPU count: not this one's
    monkeypatch.setattr(answers, "_this_machine", lambda: ("Some CPU name", 8))
    other, which = answers.choose_set(tmp_path, None)
    assert other["machine"]["cpuModel"] != "another name altogether" and which.startswith("no parameters for this")


def test_hold_out_draws_intervals_from_the_first_sitting_and_counts_them_on_the_second(ctx, tmp_path, capsys):
    only_epyc = params.document([committed_set("AMD EPYC")])
    src = tmp_path / "epyc.json"
    params.save(only_epyc, src)
    out = tmp_path / "held.json"
    assert predict_main(["hold-out", "--params", str(src), "--first", "2026-11-26-map",
                        "--second", "2026-11-26-map", "--out", str(out)], root=ctx.root) == 0
    held = params.load(out)["sets"][0]["heldOut"]
    assert held["intervalsFrom"] == "2026-11-26-map" and held["coverageOn"] == "2026-11-26-map"
    assert held["cells"] == 2 * held["scoreBySitting"]["2026-11-26-map"]["sales"]["of"]
    assert "a later sitting they were not drawn from" in capsys.readouterr().out
    # a folder the set was fitted from is no held-out sitting
    assert predict_main(["hold-out", "--params", str(src), "--first", "2026-11-26-light-loads",
                        "--second", "2026-11-26-map"], root=ctx.root) == 2
    assert "cannot be held out" in capsys.readouterr().err
    assert params.load(src) == only_epyc          # refused: the file is left as it was
