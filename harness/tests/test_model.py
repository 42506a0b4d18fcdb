"""The model's arithmetic (Little's law, the engine's cycle, CPU and memory at a load), its fit from results
documents, the setting a design needs, and its check against a map: no database, no variant started."""
import json
import math

import pytest

from tests import records
from tests.commands import predict as predict_main
from tradebench_harness.cli.predict_answers import newer_runs
from tradebench_harness.model import check, fit, latency, light, pace, params, plan
from tradebench_harness.model import predict as m
from tradebench_harness.model.designs import all_designs, key_of
from tradebench_harness.run.environment import cpu_model

MACHINE = m.Machine(sales_per_order=0.9, db_own_ms=0.2, cores=2.0)


def fig(**kw):
    base = {"cpu_us_per_order": 50.0, "saturation_orders": 20_000.0, "load_exponent": 0.0, "cycle_us": 0.0,
            "refused_cost": 1.0, "insert_overhead_ms": 0.0, "rss_base_mb": 300.0, "rss_per_engine_mb": 10.0}
    base.update(kw)
    return m.Figures(**base)


# --- Little's law and the setting it asks for -------------------------------------------------------------

def test_the_bound_is_inserts_in_flight_over_the_round_trip_and_the_designs_own_time():
    assert m.bound_sales_per_s(4, 50.0) == pytest.approx(80.0)
    assert m.bound_sales_per_s(4, 9.6, 0.4) == pytest.approx(400.0)
    assert m.bound_sales_per_s(None, 50.0) is None
    assert m.round_trip_ms(7, 0.29) == pytest.approx(7.29)


@pytest.mark.parametrize("sales", [1.0, 99.0, 400.0, 2664.0, 12_345.6])
@pytest.mark.parametrize("rtt", [0.15, 2.5, 7.29, 51.8])
def test_the_in_flight_needed_is_the_least_that_stores_the_sales(sales, rtt):
    n = m.in_flight_needed(sales, rtt, 0.3)
    assert m.bound_sales_per_s(n, rtt, 0.3) >= sales * (1 - 1e-9)
    if n > 1:
        assert m.bound_sales_per_s(n - 1, rtt, 0.3) < sales


def test_the_smallest_setting_is_found_or_said_to_be_out_of_reach():
    assert m.smallest_setting(lambda v: v * 4 >= 85, 4) == 22
    assert m.smallest_setting(lambda v: v >= 4, 4) == 4
    assert m.smallest_setting(lambda v: v >= 5000, 4, most=4096) is None


# --- what sets the sales -------------------------------------------------------------------------------

def test_below_every_bound_a_design_stores_what_it_is_offered():
    p = m.predict(1000, 10.0, 64, 4, 3, fig(), MACHINE)
    assert p.limit == "load" and p.carries
    assert p.sales == pytest.approx(900.0) and p.sales_per_minute == pytest.approx(54_000.0)


def test_above_its_bound_a_design_stores_in_flight_over_the_round_trip():
    p = m.predict(1000, 10.0, 4, 4, 3, fig(insert_overhead_ms=0.5), MACHINE)
    assert p.limit == "in flight" and not p.carries
    assert p.sales == pytest.approx(4 * 1000 / 10.5)


def test_a_design_short_of_cores_stores_what_its_cores_answer():
    p = m.predict(100_000, 0.2, 64, 4, 3, fig(), MACHINE)
    assert p.limit == "cores"
    assert p.cpu_orders == pytest.approx(2.0 * 1e6 / 50.0)
    assert p.sales == pytest.approx(40_000 * 0.9)
    assert p.cores == pytest.approx(2.0)


def test_a_multi_row_insert_per_cycle_has_no_bound_in_sales():
    p = m.predict(1000, 50.0, None, 6, 3, fig(), MACHINE)
    assert p.bound_sales is None and p.limit == "load"


def test_without_figures_only_the_load_and_littles_law_are_known():
    p = m.predict(1000, 10.0, 4, 4, 3, None, MACHINE)
    assert p.limit == "in flight" and p.cores is None and p.rss_mb is None


# --- the engine's cycle, and CPU at a load ---------------------------------------------------------------

def test_a_cycle_is_the_pause_and_at_least_one_round_trip_and_grows_without_end_at_a_backlog():
    assert m.cycle_ms(3, 2.0, 0.0, 1) == pytest.approx(5.0)
    # 200 sales/s on one slot of 2 ms: the inserts take 40 % of the engine's time: 3 / (1 - 0.4)
    assert m.cycle_ms(3, 2.0, 200.0, 1) == pytest.approx(5.0)
    assert m.cycle_ms(3, 2.0, 300.0, 1) == pytest.approx(3 / 0.4)
    # sixteen slots share the inserts of a cycle
    assert m.cycle_ms(3, 2.0, 300.0 * 16, 16) == pytest.approx(3 / 0.4)
    assert m.cycle_ms(3, 2.0, 600.0, 1) == pytest.approx(3 / (1 - m.BACKLOG))
    # one multi-row INSERT per cycle, whatever its sales
    assert m.cycle_ms(3, 2.0, 1e6, None) == pytest.approx(5.0)
    assert m.cycles_per_s(4, 3, 2.0, 0.0, 4) == pytest.approx(4 * 200.0)


def test_cpu_per_order_grows_below_saturation_by_the_load_exponent():
    f = fig(cpu_us_per_order=40.0, saturation_orders=16_000.0, load_exponent=0.5)
    assert m.cpu_us_per_order_at(16_000, f) == pytest.approx(40.0)
    assert m.cpu_us_per_order_at(40_000, f) == pytest.approx(40.0)
    assert m.cpu_us_per_order_at(4_000, f) == pytest.approx(80.0)
    assert m.cpu_us_per_order_at(1_000, fig(load_exponent=0.0)) == pytest.approx(50.0)


def test_cores_are_the_cycles_and_the_orders_and_a_refused_order_costs_at_most_a_taken_one():
    f = fig(cycle_us=20.0, refused_cost=0.25)
    assert m.cores_used(1000, 1000, f, cycles=1000) == pytest.approx((1000 * 20 + 1000 * 50) / 1e6)
    assert m.cores_used(1000, 200, f, cycles=0) == pytest.approx((200 * 50 + 800 * 0.25 * 50) / 1e6)
    assert m.cores_used(1000, 200, fig(refused_cost=3.0), cycles=0) == pytest.approx(1000 * 50 / 1e6)


def test_with_its_own_light_load_terms_a_design_costs_a_fixed_share_its_cycles_and_its_orders():
    f = fig(fixed_us_per_s=40_000.0, cycle_us=20.0, order_us=60.0, refused_cost=0.5)
    # the light-load terms replace the saturation figure: 40,000 + 1,000 × 20 + (200 + 0.5 × 800) × 60 µs a second
    assert m.cores_used(1000, 200, f, cycles=1000) == pytest.approx((40_000 + 20_000 + 600 * 60) / 1e6)
    assert m.cores_used(0, 0, f, cycles=0) == pytest.approx(0.04)          # idle, it still spends its fixed share
    # orders waiting in an inbox cost ρ_w, the 503s ρ: 300 of the 800 not stored wait
    w = fig(fixed_us_per_s=40_000.0, cycle_us=20.0, order_us=60.0, refused_cost=0.5, waiting_cost=0.9)
    assert m.cores_used(1000, 200, w, cycles=1000, waiting=300) == pytest.approx(
        (40_000 + 20_000 + (200 + 0.9 * 300 + 0.5 * 500) * 60) / 1e6)
    assert m.cores_used(1000, 200, w, cycles=1000, waiting=5000) == m.cores_used(1000, 200, w, 1000, waiting=800)


def test_a_drained_cells_inboxes_take_what_it_does_not_store_until_they_are_full(ctx):
    threads = next(d for d in all_designs(ctx.root) if d.key == "java-threads")
    opts = {"settle": 5, "duration": 10}
    # 4 × 10,000 orders of room: 1,640 orders/s not stored fill it in 24 s, after the window: all wait
    assert check.waiting_share(threads, {}, 2000, 360, opts) == 1.0
    # 7,680/s fill it in 5.2 s, 0.2 s into the window: 2 % of the window's unstored orders wait, the rest are 503s
    assert check.waiting_share(threads, {}, 8000, 320, opts) == pytest.approx((40_000 / 7680 - 5) / 10)
    assert check.waiting_share(threads, {}, 20_000, 300, opts) == 0.0
    assert check.waiting_share(threads, {}, 500, 500, opts) == 0.0          # it stores them all


def test_memory_is_a_base_and_a_share_per_engine():
    assert m.predict(100, 1.0, 21, 21, 3, fig(), MACHINE).rss_mb == pytest.approx(300 + 21 * 10)


# --- the fit ------------------------------------------------------------------------------------------

def test_the_load_shape_is_recovered_from_runs_the_model_itself_made():
    beta = 0.4
    weights = {"one": (30.0, 900.0), "two": (5.0, 400.0)}
    loads = [(500, 1300), (2000, 1250), (8000, 1100), (500, 700), (2000, 650), (8000, 80)]
    points = {k: [(r, cyc, a * cyc + b * r ** (1 - beta)) for r, cyc in loads] for k, (a, b) in weights.items()}
    points["one rate"] = [(500, 1300, 9e5), (500, 700, 8e5), (500, 100, 7e5)]
    got_beta, factors = fit.fit_shape(points)
    assert got_beta == pytest.approx(beta, abs=0.011)
    for k, (a, b) in weights.items():
        assert factors[k] == pytest.approx(a / b, rel=0.05)
    assert "one rate" not in factors                            # one rate says nothing of β
    assert fit.fit_shape({"two points": points["one"][:2]}) is None


def test_the_light_load_terms_are_recovered_from_cells_the_form_itself_made():
    F, a, mu, rho, spo, g = 50_000.0, 15.0, 1100.0, 0.4, 0.9, light.ORDER_EXPONENT
    below = [(r, cyc, F + a * cyc + mu * r ** g) for r, cyc in [(300, 1290), (1000, 1280), (4000, 1250), (300, 290)]]
    got = light.fit_terms(below)
    assert (got["fixedUsPerS"], got["cycleUs"], got["orderUs"]) == pytest.approx((F, a, mu), rel=1e-6)
    assert got["orderExponent"] == g
    # the linear form (γ = 1) is the same fit with another column
    linear = light.fit_terms([(r, cyc, F + a * cyc + 55.0 * r) for r, cyc, _ in below], exponent=1.0)
    assert (linear["fixedUsPerS"], linear["cycleUs"], linear["orderUs"]) == pytest.approx((F, a, 55.0), rel=1e-6)
    # above its bound: orders waiting in the inboxes (accepted, not stored) cost ρ_w, a 503 ρ of a stored order
    rho_w = 0.8

    def unstored(orders, sales, accepted, cyc):
        stored = sales / spo
        cpu = F + a * cyc + mu * (stored + rho_w * (accepted - stored) + rho * (orders - accepted)) ** g
        return orders, sales, accepted, cyc, cpu
    above = [unstored(1000, 330, 1000, 290), unstored(4000, 330, 2500, 290)]
    # closed loop behind a slow database: nearly every order a 503
    refusing = [unstored(20_000, 180, 200, 60), unstored(15_000, 180, 200, 60)]
    assert light.unstored_costs(got, above, refusing, spo) == pytest.approx((rho_w, rho), abs=0.01)
    # without refusing cells ρ is unknown, and ρ_w comes from the cells of waiting orders alone
    assert light.unstored_costs(got, above, [], spo) == pytest.approx((rho_w, None))
    assert light.unstored_costs(got, [], [], spo) == (None, None)
    # a term the cells would make negative is left out, and the rest fitted without it
    falling = [(r, cyc, 2000 + 1100 * r ** g - 5 * cyc) for r, cyc in [(300, 1290), (1000, 300), (4000, 1250)]]
    assert light.fit_terms(falling)["cycleUs"] == 0.0
    assert light.fit_terms(below[:2]) is None                       # two cells: too few for three terms
    assert light.fit_terms([(300, c, y) for _, c, y in below]) is None    # one rate says nothing of m


def test_a_fit_takes_a_designs_light_load_cost_from_its_own_open_loop_runs(ctx, tmp_path):
    designs = all_designs(ctx.root)
    F, a, mu = 40_000.0, 10.0, 1200.0

    def cell(rate, rtt, engines=4):
        cyc = m.cycles_per_s(engines, 3, rtt, rate * 0.9, 4)
        return run("java-threads", rate=rate, rttMs=rtt, dbLatencyMs=0 if rtt < 1 else 10, ordersPerSecond=rate,
                   acceptedPerSecond=rate, salesPerSecond=rate * 0.9, boundFraction=0.1,
                   cpu=(F + a * cyc + mu * rate ** light.ORDER_EXPONENT) / 1e4)
    # a fifth window, crowded by other processes and costing twice as much, is left out of the fit, and so is a
    # sixth the hypervisor stole from; a seventh's JIT compiler work is left out of its CPU
    crowded = {**cell(2000, 0.2), "machineCpu": {"othersPercent": 53.0, "stealPercent": 0.0, "samples": 8}}
    crowded["cpu"]["variant"]["cpuPercent"] *= 2
    stolen = {**cell(1500, 0.2), "machineCpu": {"othersPercent": 1.0, "stealPercent": 60.0, "samples": 8}}
    stolen["cpu"]["variant"]["cpuPercent"] *= 2
    compiling = cell(2500, 0.2)
    compiling["cpu"]["variant"]["jitCpuPercent"] = 4.0
    compiling["cpu"]["variant"]["cpuPercent"] += 4.0
    light_map = results_doc(tmp_path, "light", "CPU X", "2026-11-25T11:00:00+0000",
                            [cell(300, 0.2), cell(1000, 0.2), cell(4000, 0.2), cell(300, 10.2), crowded, stolen,
                             compiling])
    sat = results_doc(tmp_path, "sat", "CPU X", "2026-11-25T10:00:00+0000", [
        run("java-threads", cpu=100.0, ordersPerSecond=20_000, acceptedPerSecond=20_000, salesPerSecond=18_000),
        run("java-akka", cpu=100.0, ordersPerSecond=20_000, acceptedPerSecond=20_000, salesPerSecond=18_000)])
    (s,) = fit.fit([light_map, sat], designs)
    threads = s["designs"]["java-threads"]["per-sale"]
    assert (threads["fixedUsPerS"], threads["orderUs"]) == pytest.approx((F, mu), rel=0.01)
    assert "(rms 0%)" in threads["from"]["fixedUsPerS, cycleUs and orderUs"]      # the compiled cell fits exactly
    assert "light: its 5 open-loop cells" in threads["from"]["fixedUsPerS, cycleUs and orderUs"]
    assert threads["cpuUsPerOrder"] == pytest.approx(50.0)              # the cores' limit stays the saturation's
    assert params.figures(s, "java-threads", "per-sale").order_us == pytest.approx(mu, rel=0.01)
    # a design the light runs did not measure keeps the saturation-shaped form
    assert params.figures(s, "java-akka", "per-sale").order_us is None


def run(variant, **kw):
    r = records.window(variant, persist="per-sale", engines=4, rate=None, dbLatencyMs=0, waitMs=0,
                       settings={"ENGINES": "4", "DELAY_MS": "3"}, answers503=0, errors=0, driftFlagged=False,
                       inFlight=4, boundFraction=None)
    r.update(kw)
    cpu = r.pop("cpu", 100.0)
    r["cpu"] = {"variant": {"cpuPercent": cpu, "rssMaxMb": r.pop("rss", 1000.0)}}
    return r


def results_doc(tmp_path, name, cpu_model, started, runs, rtt0=0.2):
    folder = tmp_path / name
    folder.mkdir()
    doc = {"runId": name, "command": "sweep-latency", "startedAt": started,
           "environment": {"cpuModel": cpu_model, "cores": 2, "memoryGb": 23.5, "gitCommit": "abcdef0123"},
           "cells": {"rttMs": {"0": rtt0}}, "runs": runs}
    (folder / "results.json").write_text(json.dumps(doc))
    return folder


def test_a_fit_takes_each_figure_from_the_runs_that_measure_it(ctx, tmp_path):
    designs = all_designs(ctx.root)
    new = results_doc(tmp_path, "new", "CPU X", "2026-11-25T10:00:00+0000", [
        # saturation: 100 % of a core for 20,000 orders/s is 50 µs an order
        run("java-threads", cpu=100.0, ordersPerSecond=20_000, acceptedPerSecond=20_000, salesPerSecond=18_000),
        run("java-virtual", cpu=120.0, ordersPerSecond=20_000, acceptedPerSecond=20_000, salesPerSecond=18_000),
        # at its bound behind 20 ms: 4 in flight storing 190 sales/s is 21.05 ms an insert, 1.05 over the round trip
        run("java-threads", dbLatencyMs=20, rttMs=20.0, rate=None, answers503=1000, boundFraction=0.95,
            ordersPerSecond=20_000, acceptedPerSecond=200, salesPerSecond=4000 / 21.05),
    ])
    old = results_doc(tmp_path, "old", "CPU X", "2026-11-24T10:00:00+0000", [
        run("java-threads", cpu=100.0, ordersPerSecond=25_000, acceptedPerSecond=25_000, salesPerSecond=22_000),
        run("node-engine", cpu=100.0, ordersPerSecond=10_000, acceptedPerSecond=10_000, salesPerSecond=9_000,
            settings={"ENGINES": "4", "WORKERS": "processes"}),
    ])
    (s,) = fit.fit([new, old], designs)
    d = s["designs"]
    assert d["java-threads"]["per-sale"]["cpuUsPerOrder"] == pytest.approx(50.0)
    assert d["java-virtual"]["per-sale"]["cpuUsPerOrder"] == pytest.approx(60.0)
    # node-engine only in the older folder, which measured java-threads at 40 µs: × 50/40
    assert d["node-engine"]["per-sale"]["cpuUsPerOrder"] == pytest.approx(100.0 * 1.25)
    assert "× 1.25" in d["node-engine"]["per-sale"]["from"]["cpuUsPerOrder"]
    assert d["java-threads"]["per-sale"]["insertOverheadMs"] == pytest.approx(1.05, abs=0.01)
    assert "no cell of its own" in d["java-virtual"]["per-sale"]["from"]["insertOverheadMs"]
    # the median of the runs that stored what they accepted (the cell refusing orders is not one of them)
    assert s["salesPerOrder"]["value"] == pytest.approx(0.9)
    assert s["dbOwnMs"]["value"] == pytest.approx(0.2)
    assert [src["folder"] for src in s["sources"]] == ["new", "old"]


def test_a_design_one_machine_lacks_comes_from_another_scaled_by_their_ratio(ctx, tmp_path):
    designs = all_designs(ctx.root)
    fast = results_doc(tmp_path, "fast", "CPU F", "2026-11-25T10:00:00+0000", [
        run("java-threads", cpu=100.0, ordersPerSecond=20_000, acceptedPerSecond=20_000, salesPerSecond=18_000),
        run("java-akka", cpu=100.0, ordersPerSecond=10_000, acceptedPerSecond=10_000, salesPerSecond=9_000)])
    slow = results_doc(tmp_path, "slow", "CPU S", "2026-11-25T11:00:00+0000", [
        run("java-threads", cpu=100.0, ordersPerSecond=5_000, acceptedPerSecond=5_000, salesPerSecond=4_500)])
    sets = {s["machine"]["cpuModel"]: s for s in fit.fit([fast, slow], designs)}
    akka = sets["CPU S"]["designs"]["java-akka"]["per-sale"]
    assert akka["cpuUsPerOrder"] == pytest.approx(100.0 * 4)
    assert "not measured on this machine" in akka["from"]["cpuUsPerOrder"]


def test_a_run_is_keyed_by_its_variant_and_the_row_its_settings_make(ctx):
    designs = all_designs(ctx.root)
    assert key_of({"variant": "node-engine", "settings": {"WORKERS": "threads"}}, designs) == \
        "node-engine WORKERS=threads"
    assert key_of({"variant": "node-engine", "settings": {"WORKERS": "processes"}}, designs) == "node-engine"
    assert key_of({"variant": "java-threads", "settings": {}}, designs) == "java-threads"
    assert key_of({"variant": "no-such-variant"}, designs) is None


# --- the setting a design needs, and the cheapest ----------------------------------------------------------

def a_set(**per_design):
    figs = {"cpuUsPerOrder": 50.0, "saturationOrders": 20_000, "loadExponent": 0.0, "cycleUs": 0.0,
            "refusedCost": 1.0, "insertOverheadMs": 0.0, "rssBaseMb": 300.0, "rssPerEngineMb": 5.0, "from": {}}
    designs = {k: {"per-sale": {**figs, **v}, "batch": {**figs, **v}} for k, v in per_design.items()}
    return {"machine": {"cpuModel": "CPU X", "cores": 2}, "sources": [], "salesPerOrder": {"value": 0.9},
            "dbOwnMs": {"value": 0.2}, "designs": designs}


def test_a_blocking_design_needs_engines_and_a_pooled_one_connections(ctx):
    by = {d.key: d for d in all_designs(ctx.root)}
    s = a_set(**{k: {} for k in by})
    # 3,000 orders/s × 0.9 = 2,700 sales/s behind 7.2 ms: 19.44 in flight, so 20
    threads = plan.plan(by["java-threads"], "per-sale", s, 3000, 7.2)
    assert not threads.as_configured.carries and threads.needs == {"ENGINES": 20} and threads.carries
    assert threads.at_need.rss_mb == pytest.approx(300 + 20 * 5)
    akka = plan.plan(by["java-akka"], "per-sale", s, 3000, 7.2)
    assert akka.needs == {"ENGINES": 20}                  # PERSIST_THREADS follows ENGINES
    virtual = plan.plan(by["java-virtual"], "per-sale", s, 3000, 7.2)
    assert virtual.needs == {} and virtual.carries        # 64 in flight as configured
    assert plan.plan(by["java-virtual"], "per-sale", s, 3000, 30.0).needs == {"DB_POOL": 81}
    # behind 50 ms, 135 in flight: an engine per product is the most that trade
    far = plan.plan(by["java-threads"], "per-sale", s, 3000, 50.0)
    assert not far.carries and "PRODUCTS" in far.why_not


def test_no_setting_helps_a_design_short_of_cores_and_the_cheapest_is_the_one_using_the_fewest(ctx):
    by = {d.key: d for d in all_designs(ctx.root)}
    s = a_set(**{k: ({"cpuUsPerOrder": 10.0} if k == "java-virtual" else {}) for k in by})
    short = plan.plan(by["java-threads"], "per-sale", s, 100_000, 0.2)
    assert not short.carries and "cores" in short.why_not
    plans = [plan.plan(d, "per-sale", s, 3000, 7.2) for d in by.values()]
    assert plan.cheapest(plans).design.key == "java-virtual"


# --- the check against a map -------------------------------------------------------------------------------

def test_the_check_sets_each_cells_prediction_beside_its_measurement(ctx):
    designs = all_designs(ctx.root)
    s = a_set(**{"java-threads": {}})
    doc = {"environment": {"cores": 2}, "cells": {"rttMs": {"0": 0.2, "10": 10.2}}, "runs": [
        run("java-threads", rate=1000, dbLatencyMs=0, rttMs=0.2, salesPerMinute=54_000, salesPerSecond=900,
            cpu=5.0, ordersPerSecond=1000),
        # 4 in flight behind 10.2 ms: 392 sales/s, 23,529 a minute; measured 30 % more
        run("java-threads", rate=1000, dbLatencyMs=10, rttMs=10.2, salesPerMinute=23_529 * 1.3,
            salesPerSecond=392 * 1.3, cpu=5.0, ordersPerSecond=1000),
        run("java-threads", rate=None, dbLatencyMs=0, salesPerMinute=1, salesPerSecond=1),  # closed loop: not a cell
    ]}
    rows = check.against(doc, s, designs)
    assert len(rows) == 2
    near, far = sorted(rows, key=lambda r: r["latencyMs"])
    assert near["salesError"] == pytest.approx(0.0) and near["limit"] == "load"
    assert near["cpuError"] == pytest.approx(0.0)          # 1,000 × 50 µs = 5 % of a core
    assert far["limit"] == "in flight" and far["salesError"] == pytest.approx(1 / 1.3 - 1, abs=1e-3)
    summary = check.summary(rows)
    assert summary["sales"] == {"within": 1, "of": 2}
    assert "✗" in check.table(rows)


def test_the_check_puts_a_calibrated_sets_cpu_at_the_speed_of_each_window(ctx):
    designs = all_designs(ctx.root)
    s = {**a_set(**{"java-threads": {}}), "calibration": {"cpuProbeMs": 20.0}}

    def cell(probe, process):
        return run("java-threads", rate=1000, dbLatencyMs=0, rttMs=0.2, salesPerMinute=54_000, salesPerSecond=900,
                   cpu=5.0, ordersPerSecond=1000, cpuProbeMs=probe, process=process)
    # the same work took the probe 25 % longer while process 1 ran (the median of its windows', one outlier
    # aside): the machine was slower then, each order costing 25 % more
    runs = [cell(25.0, 1), cell(24.0, 1), cell(30.0, 1), cell(20.0, 2), cell(None, 3)]
    rows = check.against({"environment": {"cores": 2}, "runs": runs}, s, designs)
    slow, same, unknown = rows[0], rows[3], rows[4]
    assert {r["speedScale"] for r in rows[:3]} == {1.25}
    assert slow["predictedCpuPercent"] == pytest.approx(6.25, abs=0.05)
    assert same["predictedCpuPercent"] == pytest.approx(5.0) and unknown["predictedCpuPercent"] == pytest.approx(5.0)
    # a set with no probe of its own (every committed one) is held at its own speed
    (plain,) = check.against({"environment": {"cores": 2}, "runs": [cell(25.0, 1)]}, a_set(**{"java-threads": {}}),
                             designs)
    assert plain["predictedCpuPercent"] == pytest.approx(5.0)


def test_the_load_clients_cost_per_order_gauges_the_pace_before_the_probe(ctx):
    designs = all_designs(ctx.root)
    curve = [[300, 120.0], [3000, 40.0]]
    s = {**a_set(**{"java-threads": {}}), "calibration": {"cpuProbeMs": 20.0, "loadClientUsPerOrder": curve}}
    s["designs"]["java-threads"]["per-sale"]["latency"] = [[300, 0.7, 2.0], [3000, 0.7, 2.0]]
    # at 1,000/s the calibration's load client cost 120 × (1000 ÷ 300)^(ln(40/120) ÷ ln 10) µs an order
    at_1000 = 120.0 * (1000 / 300) ** (math.log(40 / 120) / math.log(10))
    assert pace.expected_us(curve, 1000) == pytest.approx(at_1000)
    assert pace.expected_us(curve, 100) == pytest.approx(120.0 * (100 / 300) ** (math.log(40 / 120) / math.log(10)))

    def cell(load_client_us, process, probe=20.0):
        return run("java-threads", rate=1000, dbLatencyMs=0, rttMs=0.2, salesPerMinute=54_000, salesPerSecond=900,
                   cpu=5.0, ordersPerSecond=1000, acceptedPerSecond=1000, cpuProbeMs=probe, process=process,
                   p50Ms=0.7, p99Ms=2.5, boundFraction=0.1, cpuUsPerOrder={"loadclient": load_client_us})
    # process 1's load client spent 25 % more per order than the calibration's (its probe said nothing): the hour
    # was slower, and the variant's CPU and its tail with it; process 2 ran at the calibration's pace
    runs = [cell(1.25 * at_1000, 1), cell(1.30 * at_1000, 1), cell(1.0 * at_1000, 1), cell(at_1000, 2, probe=30.0)]
    rows = check.against({"environment": {"cores": 2}, "runs": runs}, s, designs)
    slow, same = rows[0], rows[3]
    assert slow["speedScale"] == pytest.approx(1.25, abs=0.001) and same["speedScale"] == pytest.approx(1.0)
    assert slow["predictedCpuPercent"] == pytest.approx(1.25 * same["predictedCpuPercent"], abs=0.1)
    assert slow["predictedP99Ms"] == pytest.approx(2.5) and same["predictedP99Ms"] == pytest.approx(2.0)
    assert slow["predictedP50Ms"] == same["predictedP50Ms"] == pytest.approx(0.7)


def test_the_latency_curve_is_a_line_through_the_uncrowded_windows_that_one_stray_window_does_not_move(ctx):
    designs = all_designs(ctx.root)

    def cell(rate, p99, **kw):
        return run("java-threads", rate=rate, dbLatencyMs=0, rttMs=0.2, salesPerMinute=rate * 54, salesPerSecond=rate,
                   ordersPerSecond=rate, acceptedPerSecond=rate, p50Ms=0.8, p99Ms=p99, boundFraction=0.1, **kw)
    # p99 = 3 + 2 ms per 1,000/s; the second window at 300/s caught a pause (30 ms), and one at 1,000/s was crowded
    stolen = {"machineCpu": {"othersPercent": 1.0, "stealPercent": 60.0}}
    runs = [cell(300, 3.6), cell(300, 30.0), cell(1000, 5.0), cell(1000, 80.0, **stolen), cell(2000, 7.0),
            cell(3000, 9.0)]
    folder = fit._Folder({"startedAt": "2026-11-29T00:00:00Z", "runs": runs}, "f", designs)
    lat = fit.latency_curve([folder], "java-threads", "per-sale")
    assert [p[0] for p in lat["points"]] == [300, 1000, 2000, 3000]
    assert [p[2] for p in lat["points"]] == pytest.approx([3.6, 5.0, 7.0, 9.0], abs=0.01)
    assert all(p[1] == pytest.approx(0.8) for p in lat["points"])
    # the median of the pairs' slopes, never below 0; one rate: no line
    assert latency.theil_sen([1.0, 2.0, 3.0], [5.0, 4.0, 3.0]) == (4.0, 0.0)
    assert latency.curve([(300.0, 0.8, 3.0, 0.0), (300.0, 0.9, 4.0, 0.0)]) is None
    assert lat["p99PerInFlightMs"] is None         # no window with many inserts in flight: no term


def test_a_window_queued_at_a_busy_database_draws_neither_the_lines_nor_the_tail(ctx):
    from tradebench_harness.analysis.crowded import database_busy
    designs = all_designs(ctx.root)
    isolated = {"kind": "isolated", "cpus": {"variant": [1], "database": [0], "load": [0]}}

    def cell(rate, rtt, p99, db, link, load):
        r = run("java-virtual", rate=rate, dbLatencyMs=round(rtt), rttMs=rtt, salesPerMinute=rate * 60,
                salesPerSecond=rate, ordersPerSecond=rate, acceptedPerSecond=rate, p50Ms=0.8, p99Ms=p99,
                boundFraction=0.3, layout=isolated)
        r["cpu"] = {**r["cpu"], "database": {"cpuPercent": db}, "link": {"cpuPercent": link},
                    "loadclient": {"cpuPercent": load}}
        return r
    near = [cell(300, 0.2, 2.3, 5, 5, 5), cell(1000, 0.2, 3.0, 12, 12, 12), cell(3000, 0.2, 5.0, 25, 25, 20)]
    far = cell(2000, 20.0, 8.0, 20, 20, 15)
    # the database, the link and the load client beside them used 94 % of the database's one CPU: its queue
    queued = cell(3500, 4.0, 534.0, 45, 30, 19)
    assert database_busy(queued) and not database_busy(far)
    # the load client elsewhere is no part of the database's CPUs
    assert not database_busy({**queued, "layout": {"kind": "isolated", "cpus": {"database": [0], "load": [1]}}})
    assert not database_busy({**queued, "layout": {"kind": "shared", "cpus": {}}})      # no CPUs of its own
    with_it = fit.latency_curve([fit._Folder({"startedAt": "2026-12-04T00:00:00Z", "runs": [*near, far, queued]},
                                             "f", designs)], "java-virtual", "per-sale")
    without = fit.latency_curve([fit._Folder({"startedAt": "2026-12-04T00:00:00Z", "runs": [*near, far]}, "g",
                                             designs)], "java-virtual", "per-sale")
    assert with_it["p99PerInFlightMs"] == without["p99PerInFlightMs"] == pytest.approx(0.025)
    assert [p[0] for p in with_it["points"]] == [300, 1000, 2000, 3000]


def test_the_tail_grows_by_a_term_per_insert_in_flight_and_the_rates_square_measured_far_away_leaving_the_lines(ctx):
    designs = all_designs(ctx.root)

    def cell(rate, rtt, p99):
        # sales/s × round trip = the inserts in flight (Little's law)
        return run("java-virtual", rate=rate, dbLatencyMs=round(rtt), rttMs=rtt, salesPerMinute=rate * 60,
                   salesPerSecond=rate, ordersPerSecond=rate, acceptedPerSecond=rate, p50Ms=0.8, p99Ms=p99,
                   boundFraction=0.3)
    # next door p99 = 2 + 1 ms per 1,000/s; behind 20 ms, 2,000/s keeps 40 in flight and answers 4 ms slower at its
    # 1 % (0.025 ms an insert × 2² at 2,000/s), 1,500/s keeps 30 and 1.6875 ms slower (0.025 × 1.5²); a term per
    # insert in flight alone would differ by window (0.1 and 0.056)
    near = [cell(300, 0.2, 2.3), cell(1000, 0.2, 3.0), cell(3000, 0.2, 5.0)]
    far = [cell(2000, 20.0, 8.0), cell(1500, 20.0, 5.1875)]
    folder = fit._Folder({"startedAt": "2026-11-29T00:00:00Z", "runs": near + far}, "f", designs)
    lat = fit.latency_curve([folder], "java-virtual", "per-sale")
    assert lat["p99PerInFlightMs"] == pytest.approx(0.025) and lat["p99TailRatePower"] == 2.0
    only_near = fit.latency_curve([fit._Folder({"startedAt": "2026-11-29T00:00:00Z", "runs": near}, "g", designs)],
                                  "java-virtual", "per-sale")
    assert only_near["p99PerInFlightMs"] is None and only_near["p99TailRatePower"] is None
    # the far windows are points of the curve at their rates, on the same line
    assert [p[0] for p in lat["points"]] == [300, 1000, 1500, 2000, 3000]
    assert [p[2] for p in lat["points"]] == pytest.approx([2.3, 3.0, 3.5, 4.0, 5.0], abs=0.01)
    assert [p[2] for p in only_near["points"]] == pytest.approx([2.3, 3.0, 5.0], abs=0.01)
    # predicted: the line at the rate and the term at the inserts in flight (which the bound caps) and the rate
    assert m.latency_at(lat["points"], 2500, 50.0, 0.025, 2.0)[1] == pytest.approx(4.5 + 0.025 * 50 * 2.5 ** 2)
    # a set made before the rate's power (none recorded) reads its term per insert in flight alone
    assert m.latency_at(lat["points"], 2500, 50.0, 0.11)[1] == pytest.approx(4.5 + 5.5)
    s = a_set(**{"java-virtual": {}})
    s["designs"]["java-virtual"]["per-sale"]["latency"] = lat["points"]
    s["designs"]["java-virtual"]["per-sale"]["p99PerInFlightMs"] = lat["p99PerInFlightMs"]
    s["designs"]["java-virtual"]["per-sale"]["p99TailRatePower"] = lat["p99TailRatePower"]
    (row,) = check.against({"environment": {"cores": 2}, "runs": [cell(2500, 10.0, 9.0)]}, s, designs)
    in_flight = row["predictedSalesPerMinute"] / 60 * 10.0 / 1000
    assert row["predictedP99Ms"] == pytest.approx(4.5 + 0.025 * in_flight * 2.5 ** 2, abs=0.01)
    assert row["predictedP50Ms"] == pytest.approx(0.8)
    del s["designs"]["java-virtual"]["per-sale"]["p99TailRatePower"]
    (old,) = check.against({"environment": {"cores": 2}, "runs": [cell(2500, 10.0, 9.0)]}, s, designs)
    assert old["predictedP99Ms"] == pytest.approx(4.5 + 0.025 * in_flight, abs=0.01)


def test_predict_says_where_a_tail_is_predicted_for_more_inserts_in_flight_than_the_design_was_measured_with(ctx):
    by = {d.key: d for d in all_designs(ctx.root)}
    line = [[300, 0.8, 2.0], [3000, 0.8, 5.0]]
    s = a_set(**{"java-threads": {"latency": line}, "java-virtual": {"latency": line, "p99PerInFlightMs": 0.1}})
    # 3,000 orders/s × 0.9 behind 7.2 ms: 19.4 inserts in flight (java-threads at ENGINES=20)
    threads = plan.plan(by["java-threads"], "per-sale", s, 3000, 7.2)
    assert threads.latency[1] == pytest.approx(5.0) and "without a term for its 19 inserts in flight" in threads.latency[2]
    virtual = plan.plan(by["java-virtual"], "per-sale", s, 3000, 7.2)
    assert virtual.latency[1] == pytest.approx(5.0 + 0.1 * 2700 * 7.2 / 1000) and virtual.latency[2] == ""
    # next door no design keeps many in flight: nothing to say
    assert plan.plan(by["java-threads"], "per-sale", s, 3000, 0.2).latency[2] == ""


# --- the committed parameters and the command ------------------------------------------------------------

def test_the_committed_parameters_cover_every_measured_design_and_say_where_each_figure_came_from(ctx):
    doc = params.load(params.COMMITTED)
    designs = all_designs(ctx.root)
    assert {s["machine"]["cpuModel"] for s in doc["sets"]} >= {"Intel(R) Xeon(R) Processor", "AMD EPYC"}
    measured = set()
    for s in doc["sets"]:
        for src in s["sources"]:
            f = ctx.root / "docs" / "results" / src["folder"] / "results.json"
            assert f.is_file(), src
            measured |= {key_of(r, designs) for r in json.loads(f.read_text())["runs"]} - {None}
    keys = measured
    assert len(keys) >= 6
    for s in doc["sets"]:
        assert keys <= set(s["designs"]), s["machine"]
        # a design no committed run measured (a row added since) has no figures, not another design's
        for d in designs:
            if d.key not in measured:
                assert params.figures(s, d.key, "per-sale") is None, d.key
        for key in keys:
            entry = s["designs"][key]["per-sale"]
            assert entry["cpuUsPerOrder"] > 0 and entry["from"]["cpuUsPerOrder"], key
            assert entry["insertOverheadMs"] is not None and entry["from"]["insertOverheadMs"], key
        assert 0.5 < s["salesPerOrder"]["value"] < 1.0 and s["dbOwnMs"]["value"] > 0


def test_predict_answers_for_every_design_without_starting_anything(ctx, capsys):
    assert predict_main(["--db-latency", "7", "--rate", "3000"]) == 0
    out = capsys.readouterr().out
    for d in all_designs(ctx.root):
        assert f"| {d.key} |" in out
    assert "Parameters: " in out and "Cheapest that carries it: " in out
    with pytest.raises(SystemExit):
        predict_main(["--rate", "3000"])


def test_the_model_math_is_finite_over_a_grid_of_loads():
    for rate in (1, 500, 8000, 50_000):
        for rtt in (0.1, 2.5, 51.8):
            for n in (None, 1, 4, 64):
                p = m.predict(rate, rtt, n, 4, 3, fig(load_exponent=0.4, cycle_us=30.0), MACHINE)
                assert all(math.isfinite(x) for x in (p.sales, p.cores, p.rss_mb))
                assert p.sales <= p.offered_sales + 1e-9


def test_predict_points_to_newer_runs_of_this_machine_and_not_to_another_machines(tmp_path):
    import os
    pset = {"machine": {"cpuModel": cpu_model(), "cores": os.cpu_count()},
            "sources": [{"startedAt": "2026-11-25T10:00:00+0000"}]}
    results = tmp_path / "results"
    results.mkdir()
    for name, model, started in [("20261126-000000-compare", cpu_model(), "2026-11-26T00:00:00+0000"),
                                 ("20261126-010000-compare", "another CPU", "2026-11-26T01:00:00+0000"),
                                 ("20261124-000000-compare", cpu_model(), "2026-11-24T00:00:00+0000")]:
        results_doc(results, name, model, started, [run("java-threads")])
        doc = json.loads((results / name / "results.json").read_text())
        doc["environment"]["cores"] = os.cpu_count()
        (results / name / "results.json").write_text(json.dumps(doc))
    assert newer_runs(tmp_path, pset) == ["20261126-000000-compare"]


def test_a_map_is_held_against_the_set_of_its_machine_and_told_when_it_was_fitted_from(ctx):
    doc = json.loads((ctx.root / "docs" / "results" / "2026-11-26-map" / "results.json").read_text())
    got = check.held_against(doc, ctx.root)
    assert got and not got["inSample"] and got["summary"]["cells"] == len(got["rows"]) > 0
    committed = params.load(params.COMMITTED)
    xeon = params.for_machine(committed, doc["environment"]["cpuModel"], doc["environment"]["cores"])
    fitted_on_it = {**committed, "sets": [{**xeon, "sources": [*xeon["sources"], {"runId": doc["runId"]}]}]}
    assert check.held_against(doc, ctx.root, fitted_on_it)["inSample"]
    shaped_by_it = {**committed, "sets": [{**xeon, "shapeSources": [{"runId": doc["runId"]}]}]}
    assert check.held_against(doc, ctx.root, shaped_by_it)["inSample"]
    assert not got["otherMachine"]
    # a machine with no set of its own: the newest set of another, said so
    other = check.held_against({**doc, "environment": {**doc["environment"], "cpuModel": "no such CPU"}}, ctx.root)
    assert other["otherMachine"] and other["parameters"].startswith("another machine's: ")


# --- memory from a design's own runs; a redrawn map's model section ---------------------------------

def test_memory_comes_from_a_designs_own_open_loop_runs_and_a_design_without_any_has_none(ctx, tmp_path):
    designs = all_designs(ctx.root)
    light_map = results_doc(tmp_path, "light", "CPU X", "2026-11-25T11:00:00+0000", [
        run("java-threads", rate=300, rttMs=0.2, ordersPerSecond=300, acceptedPerSecond=300, salesPerSecond=270,
            boundFraction=0.01, cpu=5.0, rss=310.0),
        run("java-threads", rate=1000, rttMs=0.2, ordersPerSecond=1000, acceptedPerSecond=1000, salesPerSecond=900,
            boundFraction=0.03, cpu=9.0, rss=330.0)])
    sat = results_doc(tmp_path, "sat", "CPU X", "2026-11-25T10:00:00+0000", [
        run("java-threads", cpu=100.0, ordersPerSecond=20_000, acceptedPerSecond=20_000, salesPerSecond=18_000,
            rss=1900.0),
        run("java-virtual", cpu=100.0, ordersPerSecond=20_000, acceptedPerSecond=20_000, salesPerSecond=18_000,
            rss=2100.0)])
    (s,) = fit.fit([light_map, sat], designs)
    assert s["designs"]["java-threads"]["per-sale"]["rssBaseMb"] == pytest.approx(320.0)
    # java-virtual ran only at saturation: neither java-threads' light peak nor its own grown heap
    virtual = s["designs"]["java-virtual"]["per-sale"]
    assert virtual["rssBaseMb"] is None and "no memory figure" in virtual["from"]["rssBaseMb"]
    assert virtual["rssSaturationMb"] == pytest.approx(2100.0)
    assert params.figures(s, "java-virtual", "per-sale").rss_base_mb is None
    assert m.predict(100, 1.0, 4, 4, 3, params.figures(s, "java-virtual", "per-sale"), MACHINE).rss_mb is None


def test_drawing_a_map_again_computes_its_model_section_from_the_model_as_it_is(ctx, tmp_path):
    from tradebench_harness.report import results
    doc = json.loads((ctx.root / "docs" / "results" / "2026-11-26-map" / "results.json").read_text())
    doc["model"] = {"parameters": "stale", "summary": {"cells": 0}, "rows": []}
    results.write_all(tmp_path, dict(doc))                     # without the repository: left as it was
    assert json.loads((tmp_path / "results.json").read_text())["model"]["parameters"] == "stale"
    results.write_all(tmp_path, dict(doc), ctx.root)
    again = json.loads((tmp_path / "results.json").read_text())["model"]
    assert again["summary"] == check.summary(check.against(doc, params.for_machine(
        params.load(params.COMMITTED), doc["environment"]["cpuModel"], doc["environment"]["cores"]),
        all_designs(ctx.root)))
    assert again["summary"]["cells"] == 108 and "stale" not in again["parameters"]
    assert "## The model beside the measurement" in (tmp_path / "summary.md").read_text()


def test_a_design_measured_at_one_engine_count_takes_the_memory_per_engine_of_other_machines_once():
    def design(base, per_engine, said):
        return {"rssBaseMb": base, "rssPerEngineMb": per_engine, "rssEngines": 4, "refusedCost": 0.2,
                "from": {"rssPerEngineMb": said, "refusedCost": "measured"}}

    here = {"machine": {"cpuModel": "CPU X"},
            "designs": {"node-engine": {"per-sale": design(511.0, 0.0, fit.ONE_ENGINE_COUNT + ": 0")}}}
    others = [{"machine": {"cpuModel": f"CPU {n}"},
               "designs": {"node-engine": {"per-sale": design(10.0, 75.9, "f, the median slope over 1 latencies")}}}
              for n in "YZ"]
    for other in others:     # each other machine in turn, as fill_from_other_machines goes
        fit._ratios_from(here, other)
    e = here["designs"]["node-engine"]["per-sale"]
    # the peak measured here at 4 engines is kept: the base gives back what the slope takes
    assert e["rssPerEngineMb"] == 75.9 and e["rssBaseMb"] == pytest.approx(511.0 - 4 * 75.9, abs=0.1)
    assert "CPU Y's" in e["from"]["rssPerEngineMb"]
