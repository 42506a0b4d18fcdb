"""A set scaled to this machine's ceilings (model/here.py): what a request and a row cost here, read from a recorded
calibration in results/, beside what they cost the machine the set was measured on. No database, no variant."""
import json
import shutil

import pytest

from tests.commands import predict as predict_main
from tradebench_harness.cli import predict_answers as answers
from tradebench_harness.model import here
from tradebench_harness.model.designs import all_designs

RECORDED = "2026-11-27-compare-isolated"      # a compare's calibration on the project's Xeon, isolated layout


def recorded(ctx):
    return json.loads((ctx.root / "docs" / "results" / RECORDED / "results.json").read_text())


def test_a_recorded_calibration_says_what_a_request_and_a_row_cost(ctx):
    costs = here.ceilings_of(recorded(ctx)["calibration"])
    # the Java and Node trivial servers, the two frameworks' floors, the load client, the database a row
    assert costs["http.java"] == pytest.approx(3.71) and costs["http.node"] == pytest.approx(10.33)
    assert costs["floor.tomcat"] == pytest.approx(11.32) and costs["floor.akka-http"] == pytest.approx(16.95)
    assert costs["loadclient"] == pytest.approx(5.22)
    assert any(k.startswith("insert.singleRow.") for k in costs) and all(v > 0 for v in costs.values())
    assert here.ceilings_of({}) == {}


def a_set(costs):
    return {"machine": {"cpuModel": "CPU X", "cores": 2}, "sources": [], "salesPerOrder": {"value": 0.8},
            "dbOwnMs": {"value": 0.2}, "ceilings": {"costs": costs, "folder": "the set's"},
            "designs": {"java-threads": {"per-sale": {"cpuUsPerOrder": 40.0, "cycleUs": 10.0, "saturationOrders": 20_000.0,
                                                      "saturationSales": 15_000.0, "latency": [[300, 0.8, 2.0]],
                                                      "saturationByCpus": [{"cpus": 1, "orders": 10_000.0,
                                                                            "sales": 8_000.0}], "from": {}}},
                        "node-engine": {"per-sale": {"cpuUsPerOrder": 60.0, "from": {}}}},
            "database": {"per-sale": {"cpuUsPerSale": 50.0, "linkCpuUsPerSale": 100.0,
                                      "loadClientCpuUsPerOrder": 20.0, "from": "f"}}}


def test_a_machine_twice_as_slow_doubles_the_sets_costs_and_halves_what_its_cpus_answer(ctx):
    mine = here.Ceilings(here.ceilings_of(recorded(ctx)["calibration"]), f"results/{RECORDED}")
    # the set's machine: every request and row at half this machine's cost, but node's trivial server at a third
    theirs = here.Ceilings({**{k: v / 2 for k, v in mine.costs.items()}, "http.node": mine.costs["http.node"] / 3},
                           "docs/results/x")
    by = here.scaling(mine, theirs, all_designs(ctx.root), "per-sale")
    assert by is not None
    # java-threads: Tomcat's floor; node-engine: its runtime's trivial server (no floor of its own)
    assert by.by_design["java-threads"] == pytest.approx(2.0) and by.by_design["node-engine"] == pytest.approx(3.0)
    assert by.database == pytest.approx(2.0) and by.loadclient == pytest.approx(2.0)
    s = a_set(theirs.costs)
    got = here.scaled(s, by)
    threads = got["designs"]["java-threads"]["per-sale"]
    assert threads["cpuUsPerOrder"] == pytest.approx(80.0) and threads["cycleUs"] == pytest.approx(20.0)
    assert threads["saturationOrders"] == pytest.approx(10_000.0) and threads["saturationSales"] == pytest.approx(7_500.0)
    assert threads["saturationByCpus"][0]["orders"] == pytest.approx(5_000.0)
    assert threads["latency"] == [[300, 0.8, 2.0]]                 # a latency is not a CPU cost: as it was
    assert got["designs"]["node-engine"]["per-sale"]["cpuUsPerOrder"] == pytest.approx(180.0)
    db = got["database"]["per-sale"]
    assert db["cpuUsPerSale"] == pytest.approx(100.0) and db["loadClientCpuUsPerOrder"] == pytest.approx(40.0)
    assert s["designs"]["java-threads"]["per-sale"]["cpuUsPerOrder"] == 40.0     # the set itself unchanged
    assert "java-threads ×2.00" in by.said() and f"results/{RECORDED}" in by.said()


def test_ceilings_further_apart_than_machines_of_a_kind_are_not_scaled_by(ctx):
    mine = here.Ceilings(here.ceilings_of(recorded(ctx)["calibration"]), "here")
    far = here.Ceilings({k: v * 10 for k, v in mine.costs.items()}, "there")
    assert here.scaling(mine, far, all_designs(ctx.root), "per-sale") is None


def test_predict_scales_the_set_by_this_machines_calibration_in_results_and_says_so(ctx, tmp_path, monkeypatch,
                                                                                   capsys):
    doc = recorded(ctx)
    cpu, cores = doc["environment"]["cpuModel"], doc["environment"]["cores"]
    monkeypatch.setattr(answers, "_this_machine", lambda: (cpu, cores))
    # a root with the repository's manifests and docs/results, and no results/ of this machine yet
    for part in ("docs", "java-threads", "java-akka", "java-spray-async", "java-virtual", "node-engine"):
        shutil.copytree(ctx.root / part, tmp_path / part,
                        ignore=shutil.ignore_patterns("target", "node_modules", "src", "test"))
    asked = ["--db-latency", "3", "--rate", "2000", "--layout", "isolated", "--params",
             str(ctx.root / "harness" / "tradebench_harness" / "model" / "parameters.json")]
    assert predict_main(asked, root=tmp_path) == 0
    before = capsys.readouterr().out
    assert "no calibration of this machine in results/ to scale it by" in before
    assert "./tradebench calibrate (10 minutes) makes the answer this machine's" in before
    # a compare of this machine whose every request cost 1.5 times the recorded one's
    folder = tmp_path / "results" / "20261202-180000-compare"
    folder.mkdir(parents=True)
    slower = json.loads(json.dumps(doc))
    for group in ("http", "floors"):
        for entry in slower["calibration"][group].values():
            entry["cpuUsPerRequest"]["server"] *= 1.5
    (folder / "results.json").write_text(json.dumps(slower))
    mine = here.ceilings_here(tmp_path, cpu, cores, "isolated")
    assert mine is not None and mine.folder == "results/20261202-180000-compare"
    assert here.ceilings_here(tmp_path, cpu, cores, "shared") is None          # measured in the other layout
    assert here.ceilings_here(tmp_path, "another CPU", cores, "isolated") is None
    assert predict_main(asked, root=tmp_path) == 0
    after = capsys.readouterr().out
    assert "scaled by this machine's ceilings (results/20261202-180000-compare) over its own (docs/results/" in after
    assert before != after
