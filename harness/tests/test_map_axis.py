"""The map drawn along each kind of slow database (report/answer.py, report/axis.py, model/check.py): its grid,
its cost tables and charts keyed on the database's cores or its commits synced, as they are on the latency; a
folder made before runs carried their database read as it always was. Synthetic documents: nothing runs."""
import pytest

from tradebench_harness.model import check, fit
from tradebench_harness.model.designs import all_designs
from tradebench_harness.report import answer, results
from tradebench_harness.report.axis import Axis, of_doc


def cell(series, rate, spm, cpu_pct, *, lat=0, rtt=0.3, **db):
    return {"series": series, "variant": series, "runtime": "java", "case": "", "repeat": 1, "engines": 4,
            "persist": "per-sale", "settings": {"ENGINES": "4"}, "rate": rate, "concurrency": 64, "dbLatencyMs": lat,
            "rttMs": rtt, "inFlight": 4 if series == "java-threads" else 64,
            "boundSalesPerMinute": (4 if series == "java-threads" else 64) / rtt * 60_000,
            "salesPerMinute": spm, "salesPerSecond": spm / 60, "ordersPerSecond": rate, "p50Ms": 1.0,
            "p99Ms": 4.0 if series == "java-threads" else 8.0, "p999Ms": 9.0, "dbConnectionsOpen": 4,
            "cpu": {"variant": {"cpuPercent": cpu_pct, "rssMaxMb": 300, "threadsMax": 40, "processes": 1},
                    "database": {"cpuPercent": 20.0}}, **db}


def busy_doc():
    """Two designs along a busy database: held to 1 core both carry 2,000/s; held to 0.1 core java-virtual
    stores twice what java-threads does."""
    runs = [cell("java-threads", 2000, 106_800, 30.0, dbCpuCores=1.0, dbDurable=False),
            cell("java-virtual", 2000, 106_000, 40.0, dbCpuCores=1.0, dbDurable=False),
            cell("java-threads", 2000, 30_000, 20.0, dbCpuCores=0.1, dbDurable=False),
            cell("java-virtual", 2000, 60_000, 25.0, dbCpuCores=0.1, dbDurable=False)]
    return {"command": "map", "runId": "busy", "runs": runs, "options": {}, "startedAt": "t", "elapsedS": 1,
            "environment": {"cores": 2, "databaseCpuCores": None, "databaseDurable": False},
            "cells": {"kind": "map", "axis": "busy", "dbCpus": [1.0, 0.1], "latencies": [0], "loads": ["2000/s"],
                      "rttMs": {"0, 1 core": 0.3, "0, 0.1 cores": 0.3}}}


def test_the_busy_map_is_keyed_on_the_databases_cores_from_the_least_held():
    doc = busy_doc()
    pts = answer.points(doc)
    assert [(p["series"], p["at"]) for p in pts] == [("java-threads", 1.0), ("java-threads", 0.1),
                                                     ("java-virtual", 1.0), ("java-virtual", 0.1)]
    ws = {w["at"]: w for w in answer.winners(pts)}
    assert (ws[1.0]["winner"], ws[1.0]["ties"]) == ("java-threads", ["java-virtual"])
    assert ws[0.1]["winner"] == "java-virtual" and ws[0.1]["ties"] == []
    assert ws[0.1]["overNext"] == pytest.approx(2.0)
    md = answer.md(doc)
    grid = md.split("## The map", 1)[1].split("## What carrying", 1)[0]
    assert "| database cores | round trip ms | 2000/s |" in grid
    # the least held database first, as a far map's nearest latency is
    assert grid.index("\n| 1 | 0.30 |") < grid.index("\n| 0.1 | 0.30 | java-virtual ×2.0 (no interval: one process) |")
    cost = md.split("## What carrying the load costs", 1)[1].split("## Every series", 1)[0]
    assert "| database cores | round trip ms |" in cost and "| 1 | 0.30 | least CPU: java-threads (0.30 cores" in cost
    assert "## Every series in every cell" in md and "| series | database cores | round trip ms |" in md
    assert "| java-virtual | 0.1 | 0.30 | 2000/s |" in md
    # crossings are along the round trip: a busy map has none to show
    assert "## Where two designs cross" not in md
    assert "| +ms, the cell's database | one INSERT's round trip ms |" in md and "| 0, 0.1 cores | 0.30 |" in md
    assert "database cores: the database's server held to that many cores" in md


def test_the_busy_maps_charts_are_drawn_along_the_cores(tmp_path):
    doc = busy_doc()
    doc = results.write_all(tmp_path, doc)
    for name in ("map", "map-cost", "cost", "db-cpu-sweep"):
        assert (tmp_path / f"{name}.png").stat().st_size > 5000, name
    assert not (tmp_path / "latency-sweep.png").exists()
    html = (tmp_path / "report.html").read_text()
    assert "a panel per database&#x27;s cores" in html and "Every series in every cell" in html
    assert doc["summary"][0]["axis"] == "busy" and doc["summary"][0]["dbCpuCores"] == 1.0


def test_the_durable_map_is_keyed_on_commits_not_synced_then_synced(tmp_path):
    runs = [cell("java-threads", 8000, 240_000, 60.0, rtt=0.55, dbDurable=True),
            cell("java-threads", 8000, 420_000, 60.0, dbDurable=False),
            cell("java-virtual", 8000, 420_000, 70.0, dbDurable=False),
            cell("java-virtual", 8000, 410_000, 70.0, rtt=0.55, dbDurable=True)]
    doc = {"command": "map", "runId": "durable", "runs": runs, "options": {}, "environment": {"cores": 2},
           "cells": {"kind": "map", "axis": "durable", "durable": [False, True], "latencies": [0],
                     "loads": ["8000/s"], "rttMs": {"0, not synced": 0.3, "0, synced": 0.55}}}
    md = answer.md(doc)
    grid = md.split("## The map", 1)[1].split("## What carrying", 1)[0]
    assert "| commits | round trip ms | 8000/s |" in grid
    assert grid.index("\n| not synced | 0.30 | tie: ") < grid.index("\n| synced | 0.55 | java-virtual ×1.7 (no interval: one "
                                                                  "process) |")
    doc = results.write_all(tmp_path, doc)
    assert (tmp_path / "db-durable-sweep.png").stat().st_size > 5000 and (tmp_path / "cost.png").exists()


def test_a_folder_from_before_the_axis_is_keyed_on_the_latency_with_the_whole_runs_database():
    """No cells.axis, no dbCpuCores or dbDurable in its runs: a far map, each run's database the environment's."""
    runs = [cell(s, 500, 26_000, 5.0, lat=lat, rtt=lat + 0.3) for s in ("java-threads", "java-virtual")
            for lat in (0, 10)]
    doc = {"command": "map", "runId": "old", "runs": runs, "options": {},
           "environment": {"cores": 2, "databaseCpuCores": 0.25, "databaseDurable": True},
           "cells": {"kind": "map", "latencies": [0, 10], "loads": ["500/s"], "rttMs": {"0": 0.3, "10": 10.3}}}
    assert of_doc(doc) == Axis("far")
    pts = answer.points(doc)
    assert {p["at"] for p in pts} == {0, 10} and all(p["dbCpuCores"] == 0.25 and p["dbDurable"] for p in pts)
    md = answer.md(doc)
    assert "| +ms | round trip ms | 500/s |" in md and "\n| 10 | 10.3 |" in md and "## Where two designs cross" in md
    assert "| +ms | one INSERT's round trip ms |" in md and "| 10 | 10.3 |" in md
    assert set(answer.charts(doc)) == {"map", "map-cost", "cost", "latency-sweep"}


def test_the_model_holds_each_cell_against_its_own_database(ctx):
    """A busy map's cells: each predicted with the capacity of the cores that cell held the database to."""
    from test_model_db import a_set
    s = a_set(keys=["java-threads"], database={"per-sale": {"cpuUsPerSale": 100.0}})
    runs = [cell("java-threads", 5000, 150_000, 25.0, rtt=0.2, dbCpuCores=0.25),
            cell("java-threads", 5000, 267_000, 40.0, rtt=0.2, dbCpuCores=1.0)]
    doc = {"environment": {"cores": 2, "databaseCpuCores": None}, "cells": {"axis": "busy"}, "runs": runs}
    rows = {r["dbCpuCores"]: r for r in check.against(doc, s, all_designs(ctx.root))}
    # 0.25 cores at 100 µs a sale: 2,500 sales/s, under the 4,450 offered; one core keeps up
    assert rows[0.25]["limit"] == "database" and rows[0.25]["predictedSalesPerMinute"] == 150_000
    assert rows[1.0]["limit"] != "database"
    table = check.table(list(rows.values()))
    assert "| design | +ms | database | round trip ms |" in table and "| java-threads | 0 | 0.25 cores | 0.2 |" in table
    # a far map's table stays as it was
    assert "database |" not in check.table([{**rows[1.0], "dbCpuCores": None}])


def test_a_folder_with_busy_or_durable_cells_is_not_fitted_from():
    assert fit.slowed_database(busy_doc())
    assert fit.slowed_database({"environment": {}, "runs": [cell("java-threads", 500, 1.0, 1.0, dbDurable=True)]})
    assert not fit.slowed_database({"environment": {}, "runs": [cell("java-threads", 500, 1.0, 1.0, dbDurable=False,
                                                                     dbCpuCores=None)]})
