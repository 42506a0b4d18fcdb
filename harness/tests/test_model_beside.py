"""The database's bound in the isolated layout: the CPUs it has, shared with the link of a slowed database and,
on a small machine, the load client (predict.Beside); the three figures fitted from the runs' CPU samples, and
taken from this machine's own results/ where it has them (model/here.py). No database, no variant."""
import json

import pytest

from tests.test_model import results_doc, run
from tradebench_harness.model import fit, here, params, plan
from tradebench_harness.model import predict as m
from tradebench_harness.model.designs import all_designs


def linked_run(variant, sales, db_pct, link_pct, load_pct, orders, latency=3):
    r = run(variant, dbLatencyMs=latency, rttMs=latency + 0.2, rate=orders, ordersPerSecond=orders,
            acceptedPerSecond=orders, salesPerSecond=sales)
    r["cpu"].update(database={"cpuPercent": db_pct}, link={"cpuPercent": link_pct}, loadclient={"cpuPercent": load_pct})
    return r


# --- the arithmetic ------------------------------------------------------------------------------------------

def test_the_cpus_the_database_shares_store_what_is_left_of_them_over_its_and_the_links_cost_a_sale():
    b = m.Beside(cpus=1, db_us_per_sale=50.0, link_us_per_sale=50.0, load_us_per_order=10.0)
    # 5,000 orders/s sent cost the load client 0.05 of the CPU: 950,000 µs a second left, 100 µs a sale
    assert b.sales_per_s(5000) == pytest.approx(9500.0)
    assert b.sales_per_s(None) == pytest.approx(10_000.0)           # a closed loop: the load client's share unknown
    assert b.sales_per_s(200_000) == 0.0                           # the load client alone fills the CPU
    assert m.Beside(cpus=2, db_us_per_sale=40.0).sales_per_s(5000) == pytest.approx(50_000.0)
    assert m.Beside(cpus=1, db_us_per_sale=0.0).sales_per_s(5000) is None


def test_the_databases_capacity_is_the_least_of_its_share_of_the_cores_and_the_cpus_it_shares():
    beside = m.Beside(cpus=1, db_us_per_sale=100.0, link_us_per_sale=100.0)     # 5,000 sales/s
    db = m.Database(cores=0.25, cpu_us_per_sale=100.0, beside=beside)            # busy: 2,500 sales/s
    assert db.capacity(1000) == pytest.approx(2500.0) and db.bound_by(1000) == "busy"
    free = m.Database(beside=beside)
    assert free.capacity(1000) == pytest.approx(5000.0) and free.bound_by(1000) == "beside"
    assert m.Database().capacity(1000) is None


def test_past_the_databases_bound_no_setting_carries_the_load_and_the_plan_says_what_bounds_it(ctx):
    designs = {d.key: d for d in all_designs(ctx.root)}
    s = {"machine": {"cpuModel": "CPU X", "cores": 2}, "sources": [], "salesPerOrder": {"value": 0.9},
         "dbOwnMs": {"value": 0.2}, "designs": {},
         "database": {"per-sale": {"cpuUsPerSale": 50.0, "linkedCpuUsPerSale": 150.0, "linkCpuUsPerSale": 100.0,
                                   "loadClientCpuUsPerOrder": 20.0, "from": "f", "besideFrom": "b"}}}
    db = params.database(s, "per-sale", own_cpus=1, linked=True, load_beside=True)
    assert db.beside == m.Beside(1.0, 150.0, 100.0, 20.0, source="b", here=False)
    # 5,000 orders/s: (10^6 - 5,000 × 20) ÷ 250 = 3,600 sales/s, less than the 4,500 offered
    p = plan.plan(designs["java-virtual"], "per-sale", s, 5000, 3.2, 1.0, db)
    assert not p.carries and p.as_configured.limit == "database"
    assert p.as_configured.sales == pytest.approx(3600.0)
    assert "the database is the limit (216,000 sales/min on its 1 CPU, shared with the link and the load client)" \
        in p.why_not
    # below it the design carries the load as configured
    assert plan.plan(designs["java-virtual"], "per-sale", s, 3000, 3.2, 1.0, db).as_configured.limit == "load"
    # next door there is no link: the database's own cost a sale, the load client's beside it
    near = params.database(s, "per-sale", own_cpus=1, linked=False, load_beside=True)
    assert near.beside is not None and near.beside.db_us_per_sale == 50.0 and near.beside.link_us_per_sale == 0.0
    # the shared layout: no CPUs of its own, no such bound
    assert params.database(s, "per-sale").beside is None
    # this machine's own figures replace the set's
    mine = params.database(s, "per-sale", own_cpus=1, linked=True, load_beside=True,
                           here={"linkedCpuUsPerSale": 300.0, "linkCpuUsPerSale": 200.0, "besideFrom": "results/x"})
    assert mine.beside is not None and mine.beside.here and mine.beside.source == "results/x"
    assert mine.beside.sales_per_s(5000) == pytest.approx(900_000 / 500)


# --- the fit, and this machine's own runs ---------------------------------------------------------------------

def test_the_fit_reads_each_figure_from_the_busiest_runs_through_the_link(ctx, tmp_path):
    designs = all_designs(ctx.root)
    folder = results_doc(tmp_path, "sweep", "CPU X", "2026-11-25T10:00:00+0000", [
        # 3,000 sales/s: the database 30 %, the link 30 %; the load client 10 % of 4,000 orders/s
        linked_run("java-virtual", 3000, 30.0, 30.0, 10.0, 4000),
        linked_run("java-spray-async", 2000, 20.0, 25.0, 8.0, 2500),
        # 100 sales/s at 10 % each: 1,000 µs a sale, a light run's fixed cost a second that no bound meets
        linked_run("java-threads", 100, 10.0, 10.0, 2.0, 1000),
        # next door through the link (Toxiproxy in the path at every latency): a run like the others
        linked_run("java-threads", 2500, 22.0, 20.0, 8.0, 3000, latency=0),
    ])
    got = fit.beside_of([fit.read(folder)], designs, "per-sale")
    # the runs of at least half the most sales (1,500 a second): the light one left out
    assert got["linkCpuUsPerSale"] == pytest.approx(75e4 / 7500, abs=0.05)         # 100.0, not 129 with it
    assert got["linkedCpuUsPerSale"] == pytest.approx(72e4 / 7500, abs=0.05)
    assert got["loadClientCpuUsPerOrder"] == pytest.approx(26e4 / 9500, abs=0.05)
    assert "3 busiest runs through the link" in got["besideFrom"] and "its 3 busiest runs" in got["besideFrom"]
    assert fit.beside_of([fit.read(folder)], designs, "batch")["linkCpuUsPerSale"] is None


def test_predict_takes_the_neighbours_figures_from_this_machines_results_and_says_so(ctx, tmp_path):
    designs = all_designs(ctx.root)
    (tmp_path / "results").mkdir()
    assert here.measured_here(tmp_path, designs, "per-sale", "CPU X", 2) is None
    results_doc(tmp_path / "results", "20261202-060000-bench", "CPU X", "2026-12-02T06:00:00+0000",
                [linked_run("java-virtual", 2720, 42.0, 27.5, 22.5, 3100)])
    results_doc(tmp_path / "results", "20261202-050000-bench", "another CPU", "2026-12-02T05:00:00+0000",
                [linked_run("java-virtual", 1000, 90.0, 90.0, 20.0, 1100)])
    got = here.measured_here(tmp_path, designs, "per-sale", "CPU X", 2)
    assert got is not None and got.folders == ["results/20261202-060000-bench"]
    assert got.figures["linkedCpuUsPerSale"] == pytest.approx(154.4, abs=0.05)
    assert got.figures["linkCpuUsPerSale"] == pytest.approx(101.1, abs=0.05)
    assert got.figures["loadClientCpuUsPerOrder"] == pytest.approx(72.6, abs=0.05)
    # a machine of another kind finds none of it
    assert here.measured_here(tmp_path, designs, "per-sale", "CPU Y", 2) is None


def test_the_spread_is_over_the_sittings_a_set_was_fitted_from(ctx, tmp_path):
    designs = all_designs(ctx.root)
    where = tmp_path / "docs" / "results"
    where.mkdir(parents=True)
    results_doc(where, "a", "CPU X", "2026-11-25T10:00:00+0000", [linked_run("java-virtual", 1000, 10.0, 10.0, 5.0, 1100)])
    results_doc(where, "b", "CPU X", "2026-11-26T10:00:00+0000", [linked_run("java-virtual", 1000, 20.0, 20.0, 5.0, 1100)])
    s = {"sources": [{"folder": "a"}, {"folder": "b"}, {"folder": "not-here"}]}
    assert here.spread(tmp_path, s, designs, "per-sale") == (pytest.approx(200.0), pytest.approx(400.0), 2)
    assert here.spread(tmp_path, {"sources": [{"folder": "a"}]}, designs, "per-sale") is None


def test_the_committed_sets_carry_the_neighbours_figures_with_where_they_came_from():
    for s in json.loads(params.COMMITTED.read_text())["sets"]:
        db = s["database"]["per-sale"]
        assert db["linkCpuUsPerSale"] > 0 and db["linkedCpuUsPerSale"] > 0 and db["loadClientCpuUsPerOrder"] > 0
        assert "runs through the link" in db["besideFrom"]
        # a sale through the link costs the database more than one next door: its thread wakes after the wait
        assert db["linkedCpuUsPerSale"] > db["cpuUsPerSale"]
