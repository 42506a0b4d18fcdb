"""The model's two other kinds of slow database: a busy one (its server held to a share of the cores: a
capacity of cores ÷ CPU per sale) and a durable one (every commit waits for an fsync: the round trip grows
by F), their figures' fit, and `./tradebench predict --db-cpu / --db-durable`. No database, no variant."""
import contextlib
import json

import pytest

from tests import records
from tests.commands import predict as predict_main
from tradebench_harness.measure import fsync as fsync_probe
from tradebench_harness.model import fit, fsync, params, plan
from tradebench_harness.model import predict as m
from tradebench_harness.model.designs import all_designs

MACHINE = m.Machine(sales_per_order=0.9, db_own_ms=0.2, cores=2.0)


def fig(**kw):
    base = {"cpu_us_per_order": 50.0, "saturation_orders": 20_000.0, "insert_overhead_ms": 0.0,
            "rss_base_mb": 300.0}
    base.update(kw)
    return m.Figures(**base)


# --- the arithmetic ------------------------------------------------------------------------------------------

def test_a_busy_databases_capacity_is_its_cores_over_its_cpu_per_sale():
    assert m.database_sales_per_s(0.25, 100.0) == pytest.approx(2500.0)
    assert m.database_sales_per_s(2, 40.0) == pytest.approx(50_000.0)
    assert m.database_sales_per_s(None, 100.0) is None          # not held to a share: it keeps up
    assert m.database_sales_per_s(0.25, None) is None
    assert m.Database(cores=0.5, cpu_us_per_sale=125.0).capacity() == pytest.approx(4000.0)
    assert m.Database(fsync_ms=2.0).capacity() is None


def test_a_busy_database_is_the_limit_and_more_in_flight_does_not_move_it():
    cap = m.database_sales_per_s(0.25, 125.0)                   # 2,000 sales/s
    few = m.predict(5000, 0.3, 4, 4, 3, fig(), MACHINE, db_sales=cap)
    many = m.predict(5000, 0.3, 64, 4, 3, fig(), MACHINE, db_sales=cap)
    assert few.limit == many.limit == "database" and not few.carries
    assert few.sales == many.sales == pytest.approx(2000.0)
    # below its capacity the database is no limit: the load, or Little's law, is
    light = m.predict(1000, 0.3, 4, 4, 3, fig(), MACHINE, db_sales=cap)
    assert light.limit == "load" and light.sales == pytest.approx(900.0)
    far = m.predict(5000, 10.0, 4, 4, 3, fig(), MACHINE, db_sales=cap)
    assert far.limit == "in flight" and far.sales == pytest.approx(400.0)


def test_a_durable_commit_waits_one_fsync_so_more_in_flight_store_more():
    rtt = m.round_trip_ms(0, 0.3, 2.0)
    assert rtt == pytest.approx(2.3)
    assert m.round_trip_ms(7, 0.3) == pytest.approx(7.3)       # not durable: no fsync
    four = m.predict(100_000, rtt, 4, 4, 3, fig(), MACHINE)
    sixty_four = m.predict(100_000, rtt, 64, 4, 3, fig(), MACHINE)
    assert four.limit == "in flight" and four.sales == pytest.approx(4 * 1000 / 2.3)
    # group commit: 16 times the commits in flight share the fsyncs, 16 times the sales (short of the cores')
    assert sixty_four.limit == "in flight" and sixty_four.sales == pytest.approx(16 * four.sales)
    assert m.in_flight_needed(2700, rtt) > m.in_flight_needed(2700, 0.3)


def test_at_saturation_a_closed_loop_stores_the_least_of_its_cores_littles_law_and_the_database():
    f = fig(saturation_orders=10_000.0, insert_overhead_ms=0.1)
    assert m.at_saturation(0.3, 64, f, MACHINE) == (pytest.approx(9000.0), "saturation")
    assert m.at_saturation(2.3, 4, f, MACHINE) == (pytest.approx(4000 / 2.4), "in flight")
    assert m.at_saturation(0.3, 64, f, MACHINE, db_sales=2500.0) == (pytest.approx(2500.0), "database")
    # batch: no bound in sales, only its saturation and the database
    assert m.at_saturation(2.3, None, f, MACHINE)[1] == "saturation"
    # a design with no saturation run here: only Little's law and the database bound it
    assert m.at_saturation(2.0, 4, None, MACHINE) == (pytest.approx(2000.0), "in flight")
    assert m.at_saturation(2.0, 64, None, MACHINE, db_sales=2500.0) == (pytest.approx(2500.0), "database")
    assert m.at_saturation(2.0, None, None, MACHINE)[1] == "none"
    # what its saturation run stored, where it refused part of what it answered, rather than orders × s
    assert m.at_saturation(0.3, 64, fig(saturation_orders=10_000.0, saturation_sales=5_000.0), MACHINE) == \
        (pytest.approx(5000.0), "saturation")


# --- the parameter set ------------------------------------------------------------------------------------

def a_set(**extra):
    figs = {"cpuUsPerOrder": 50.0, "saturationOrders": 20_000, "loadExponent": 0.0, "cycleUs": 0.0,
            "refusedCost": 1.0, "insertOverheadMs": 0.0, "rssBaseMb": 300.0, "rssPerEngineMb": 5.0, "from": {}}
    s = {"machine": {"cpuModel": "CPU X", "cores": 2}, "sources": [], "salesPerOrder": {"value": 0.9},
         "dbOwnMs": {"value": 0.2}, "designs": {}}
    s["designs"] = {k: {"per-sale": dict(figs), "batch": dict(figs)} for k in extra.pop("keys", [])}
    s.update(extra)
    return s


def test_a_set_gives_the_database_its_cpu_per_sale_in_the_persist_mode_and_its_fsync():
    s = a_set(database={"per-sale": {"cpuUsPerSale": 100.0}, "batch": {"cpuUsPerSale": 20.0}},
              fsyncMs={"value": 1.5, "from": "a probe"})
    busy = params.database(s, "per-sale", cores=0.25)
    assert busy.capacity() == pytest.approx(2500.0) and busy.fsync_ms == 0.0
    assert params.database(s, "batch", cores=0.25).capacity() == pytest.approx(12_500.0)
    durable = params.database(s, "per-sale", durable=True)
    assert durable.fsync_ms == 1.5 and durable.capacity() is None
    assert params.database(s, "per-sale").capacity() is None
    with pytest.raises(ValueError, match="probe-fsync"):
        params.database(a_set(), "per-sale", durable=True)
    with pytest.raises(ValueError, match="CPU per sale"):
        params.database(a_set(), "per-sale", cores=0.25)


def test_the_committed_sets_have_the_databases_cpu_per_sale_and_an_fsync_with_where_they_came_from():
    for s in params.load(params.COMMITTED)["sets"]:
        for persist in ("per-sale", "batch"):
            db = s["database"][persist]
            assert db["cpuUsPerSale"] > 0 and "saturation runs" in db["from"], (s["machine"], persist)
        # a row of a multi-row INSERT costs the database less than an INSERT of its own
        assert s["database"]["batch"]["cpuUsPerSale"] < s["database"]["per-sale"]["cpuUsPerSale"]
        assert s["fsyncMs"]["value"] > 0 and "--probe-fsync" in s["fsyncMs"]["from"]


# --- the fit -------------------------------------------------------------------------------------------------

def run(variant, db_cpu, sales, **kw):
    r = {**records.window(variant), "persist": "per-sale", "engines": 4, "rate": None, "dbLatencyMs": 0, "waitMs": 0,
         "settings": {"ENGINES": "4", "DELAY_MS": "3"}, "answers503": 0, "errors": 0, "driftFlagged": False,
         "inFlight": 4, "boundFraction": None, "ordersPerSecond": sales / 0.9, "acceptedPerSecond": sales / 0.9,
         "salesPerSecond": sales,
         "cpu": {"variant": {"cpuPercent": 100.0, "rssMaxMb": 500.0}, "database": {"cpuPercent": db_cpu}}}
    r.update(kw)
    return r


def folder(tmp_path, name, started, runs, cpu_model="CPU X"):
    d = tmp_path / name
    d.mkdir()
    (d / "results.json").write_text(json.dumps({
        "runId": name, "command": "compare", "startedAt": started, "cells": {"rttMs": {"0": 0.2}},
        "environment": {"cpuModel": cpu_model, "cores": 2, "memoryGb": 8, "gitCommit": "abcdef0"}, "runs": runs}))
    return d


def test_the_databases_cpu_per_sale_is_the_newest_folders_median_over_its_designs(ctx, tmp_path):
    designs = all_designs(ctx.root)
    new = folder(tmp_path, "new", "2026-11-25T10:00:00+0000", [
        # 50 % of a core for 5,000 sales/s: 100 µs a sale; a compare's own record is taken as it is
        run("java-threads", 50.0, 5000),
        run("java-virtual", 60.0, 5000, dbCpuUsPerSale=150.0, insertCeilingDbCpuUsPerRow=90.0),
        run("java-akka", 40.0, 5000),                                   # 80 µs
        run("java-akka", 40.0, 500, engines=64, settings={"ENGINES": "64"}),   # not its default engines
        run("java-threads", 90.0, 100, dbLatencyMs=20),                 # behind a far database: not saturation
        run("java-threads", 5.0, 1000, persist="batch", engines=6),     # 50 µs a row in batch
    ])
    old = folder(tmp_path, "old", "2026-11-24T10:00:00+0000", [run("java-threads", 10.0, 5000)])
    (s,) = fit.fit([old, new], designs)
    per_sale = s["database"]["per-sale"]
    assert per_sale["cpuUsPerSale"] == pytest.approx(100.0)             # median of 80, 100, 150
    assert per_sale["insertCeilingCpuUsPerRow"] == pytest.approx(90.0)
    assert per_sale["from"].startswith("new:") and "3 designs" in per_sale["from"]
    assert s["database"]["batch"]["cpuUsPerSale"] == pytest.approx(50.0)


def test_an_fsync_probe_goes_to_its_machines_set_and_to_another_said_to_be_a_guess(ctx, tmp_path):
    designs = all_designs(ctx.root)
    x = folder(tmp_path, "x", "2026-11-25T10:00:00+0000", [run("java-threads", 50.0, 5000)])
    y = folder(tmp_path, "y", "2026-11-25T11:00:00+0000", [run("java-threads", 50.0, 5000)], cpu_model="CPU Y")
    probe = {"kind": "fsync-probe", "machine": {"cpuModel": "CPU X", "cores": 2}, "measuredAt": "2026-11-25T12:00",
             "command": "./tradebench predict --probe-fsync", "fsyncMs": fsync.fsync_figure([0.2, 0.3], [2.0, 2.6])}
    sets = {s["machine"]["cpuModel"]: s for s in fit.fit([x, y], designs, fsync_probes=[probe])}
    assert sets["CPU X"]["fsyncMs"]["value"] == pytest.approx(2.05)     # 2.3 − 0.25
    assert "not measured" not in sets["CPU X"]["fsyncMs"]["from"]
    assert sets["CPU Y"]["fsyncMs"]["value"] == pytest.approx(2.05)
    assert sets["CPU Y"]["fsyncMs"]["from"].startswith("not measured on this machine")
    earlier = {**probe, "measuredAt": "2026-11-25T11:00", "fsyncMs": fsync.fsync_figure([0.2], [0.5])}
    (newest,) = [s for s in fit.fit([x], designs, fsync_probes=[probe, earlier])]
    assert newest["fsyncMs"]["value"] == pytest.approx(2.05) and "an earlier probe: 0.3 ms" in newest["fsyncMs"]["from"]
    (alone,) = fit.fit([y], designs, fsync_probes=[probe])
    assert alone["fsyncMs"] is None                                     # no probe of any machine fitted with it


def test_f_is_the_durable_probes_round_trip_less_the_plain_ones_never_below_zero():
    got = fsync.fsync_figure([0.15, 0.14, 0.5], [2.0, 3.0, 2.4])
    assert got["value"] == pytest.approx(2.4 - 0.15)
    assert fsync.fsync_figure([0.3], [0.25])["value"] == 0.0
    assert fsync.rtt_ms(4000) == pytest.approx(0.25) and fsync.rtt_ms(None) is None


class FakeDb:
    def __init__(self, flush):
        self.flush = flush

    def scalar(self, _):
        return str(self.flush)


def test_the_probe_alternates_plain_and_durable_and_refuses_a_database_already_durable(monkeypatch, tmp_path):
    seen = []

    @contextlib.contextmanager
    def durable(db, on):
        db.flush = 1
        yield
        db.flush = 2

    def probe(ctx, db, scratch, out):
        seen.append(db.flush)
        return 2.5 if db.flush == 1 else 0.2

    monkeypatch.setattr(fsync_probe.slowdb, "durable", durable)
    monkeypatch.setattr(fsync_probe, "_probe", probe)
    got = fsync_probe.measure(None, FakeDb(2), "S", tmp_path, rounds=2)
    assert seen == [2, 1, 2, 1] and got["value"] == pytest.approx(2.3)
    with pytest.raises(fsync_probe.dbmod.DbError, match="already syncs"):
        fsync_probe.measure(None, FakeDb(1), "S", tmp_path)
    (tmp_path / "other.json").write_text("{}")
    with pytest.raises(ValueError, match="not an fsync probe"):
        fsync.read(tmp_path / "other.json")


# --- the setting a design needs, and the command ----------------------------------------------------------

def test_no_setting_carries_a_load_beyond_a_busy_database_and_a_durable_one_asks_for_more_in_flight(ctx):
    by = {d.key: d for d in all_designs(ctx.root)}
    s = a_set(keys=list(by), database={"per-sale": {"cpuUsPerSale": 100.0}}, fsyncMs={"value": 2.0})
    busy = params.database(s, "per-sale", cores=0.25)                    # 2,500 sales/s
    over = plan.plan(by["java-virtual"], "per-sale", s, 5000, 0.2, db=busy)
    assert not over.carries and over.as_configured.limit == "database" and "database" in over.why_not
    under = plan.plan(by["java-threads"], "per-sale", s, 2000, 0.2, db=busy)
    assert under.carries                                                 # 1,800 sales/s, 4 in flight: 0.36 needed
    # 2,700 sales/s: 0.54 in flight at 0.2 ms, 5.94 when each commit also waits 2 ms for its fsync
    near = plan.plan(by["java-threads"], "per-sale", s, 3000, 0.2)
    synced = plan.plan(by["java-threads"], "per-sale", s, 3000, m.round_trip_ms(0, 0.2, 2.0),
                       db=params.database(s, "per-sale", durable=True))
    assert near.needs == {} and synced.needs == {"ENGINES": 6}


def params_file(ctx, tmp_path):
    """A parameter file of every design: 50 µs an order, 20,000 sales/s at saturation; the database 100 µs a
    sale, an fsync 2 ms."""
    s = a_set(keys=[d.key for d in all_designs(ctx.root)], database={"per-sale": {"cpuUsPerSale": 100.0}},
              fsyncMs={"value": 2.0, "from": "a probe"})
    for per in s["designs"].values():
        per["per-sale"]["saturationSales"] = 20_000
    path = tmp_path / "parameters.json"
    params.save(params.document([s]), path)
    return str(path)


def test_predict_names_the_busy_database_as_the_limit_and_the_fsync_of_a_durable_one(ctx, tmp_path, capsys):
    given = ["--params", params_file(ctx, tmp_path)]
    assert predict_main([*given, "--db-latency", "0", "--rate", "20000", "--db-cpu", "0.25"]) == 0
    out = capsys.readouterr().out
    assert "the database is the limit" in out and "more in flight does not help" in out
    assert "limit: database" in out and "150,000 sales/min" in out        # 0.25 cores ÷ 100 µs a sale
    assert predict_main([*given, "--db-latency", "0", "--rate", "3000"]) == 0
    free = capsys.readouterr().out
    assert predict_main([*given, "--db-latency", "0", "--rate", "3000", "--db-durable"]) == 0
    out = capsys.readouterr().out
    assert "fsync" in out and "more in flight helps" in out
    # 2,700 sales/s: 0.54 in flight at 0.2 ms, 5.94 with the fsync: java-threads carries it as configured
    # next to a free database and needs six engines next to a durable one
    assert "| java-threads | carries it (4 in flight) | as configured |" in free
    assert "| java-threads | stores " in out and "| ENGINES ≥ 6 |" in out
    with pytest.raises(SystemExit):
        predict_main(["--db-latency", "0", "--rate", "3000", "--db-cpu", "0"])


def test_at_saturation_every_design_stores_the_busy_databases_capacity_and_a_durable_one_bounds_the_few_in_flight(
        ctx, tmp_path, capsys):
    given = ["--params", params_file(ctx, tmp_path)]
    assert predict_main([*given, "--db-latency", "0", "--saturation", "--db-cpu", "0.25"]) == 0
    busy = [line for line in capsys.readouterr().out.splitlines() if line.startswith("| java-")]
    assert busy and all(line.endswith("| 150,000 | database |") for line in busy)
    # the shared layout: in the isolated one the database's own CPU (100 µs a sale) would bound the many in flight
    assert predict_main([*given, "--db-latency", "0", "--saturation", "--db-durable", "--layout", "shared"]) == 0
    rows = {line.split("|")[1].strip(): (line.split("|")[3].strip(), line.split("|")[4].strip())
            for line in capsys.readouterr().out.splitlines() if line.startswith("| java-")}
    assert rows["java-threads"] == ("109,091", "in flight")              # 4 ÷ 2.2 ms
    # 64 in flight hide the fsync: 64 ÷ 2.2 ms is above the 20,000 sales/s of its saturation run
    assert rows["java-spray-async"] == ("1,200,000", "saturation")


def test_a_run_against_a_busy_or_durable_database_is_not_fitted_from(ctx, tmp_path):
    designs = all_designs(ctx.root)
    free = folder(tmp_path, "free", "2026-11-24T10:00:00+0000", [run("java-threads", 50.0, 5000)])
    synced = folder(tmp_path, "synced", "2026-11-25T10:00:00+0000", [run("java-threads", 50.0, 500)])
    doc = json.loads((synced / "results.json").read_text())
    doc["environment"]["databaseDurable"] = True
    (synced / "results.json").write_text(json.dumps(doc))
    (s,) = fit.fit([free, synced], designs)
    assert [src["folder"] for src in s["sources"]] == ["free"]
    assert s["leftOut"]["folders"] == ["synced"]
    assert s["database"]["per-sale"]["cpuUsPerSale"] == pytest.approx(100.0)
    with pytest.raises(ValueError, match="free database"):
        fit.fit([synced], designs)


def test_a_map_against_a_busy_database_is_held_against_its_capacity(ctx):
    from tradebench_harness.model import check
    s = a_set(keys=["java-threads"], database={"per-sale": {"cpuUsPerSale": 100.0}})
    cell = {"variant": "java-threads", "persist": "per-sale", "engines": 4, "rate": 5000, "dbLatencyMs": 0,
            "rttMs": 0.2, "settings": {"ENGINES": "4"}, "salesPerMinute": 150_000, "salesPerSecond": 2500,
            "ordersPerSecond": 5000, "cpu": {"variant": {"cpuPercent": 25.0}}}
    doc = {"environment": {"cores": 2, "databaseCpuCores": 0.25}, "cells": {"rttMs": {"0": 0.2}}, "runs": [cell]}
    (row,) = check.against(doc, s, all_designs(ctx.root))
    assert row["limit"] == "database" and row["salesError"] == pytest.approx(0.0)
    doc["environment"]["databaseCpuCores"] = None                       # a free database: it keeps up
    (row,) = check.against(doc, s, all_designs(ctx.root))
    assert row["limit"] == "load"
