"""The thread ring's harness (docs/ring.md): round records read from a ring's output, rows with their figures and
intervals over forks, the table with the 2010 figures, the options refused before anything runs; and the Node
rings' own test (small rings, node:test). No JMH run here: bench-ring's RingTest checks the Java rings."""
import json
import os
import re
import shutil
import subprocess
from pathlib import Path

import pytest

from tradebench_harness.cli import main as cli
from tradebench_harness.measure import ring
from tradebench_harness.report import ring as report

ROOT = Path(__file__).resolve().parents[2]


def record(ring_name="akka-fj", pid=1, wall_ns=2_000_000_000, cpu_ns=3_000_000_000, members=10_000, messages=500,
           handovers=None, cpus=2):
    return {"ring": ring_name, "threads": cpus, "members": members, "messages": messages,
            "handovers": members * messages if handovers is None else handovers, "wallNs": wall_ns, "cpuNs": cpu_ns,
            "cpus": cpus, "pid": pid, "layout": list(range(cpus)), "part": "rows"}


def test_a_rings_output_gives_its_round_records_and_nothing_else():
    out = "# JMH version: 1.37\n" + json.dumps(record()) + "\nIteration   1: 2000 ms/op\n" + json.dumps(record(pid=2)) + "\n"
    assert [r["pid"] for r in ring.parse_lines(out)] == [1, 2]


def test_a_row_has_its_figures_per_hand_over_and_an_interval_over_its_forks():
    rounds = [record(pid=p, wall_ns=w, cpu_ns=2 * w) for p, w in ((1, 2.0e9), (2, 2.2e9), (3, 1.8e9))]
    (row,) = report.rows_of(rounds)
    assert row["forks"] == 3 and row["handovers"] == 5_000_000
    assert row["nsPerHandover"]["median"] == pytest.approx(400.0)
    assert row["cpuNsPerHandover"]["median"] == pytest.approx(800.0)
    assert row["totalMs"]["median"] == pytest.approx(2000.0)
    low, high = row["nsPerHandover"]["low"], row["nsPerHandover"]["high"]
    assert 360 <= low < 400 < high <= 440


def test_one_fork_has_no_interval_and_says_so():
    (row,) = report.rows_of([record()])
    assert row["nsPerHandover"]["low"] is None
    assert report.figure(row["nsPerHandover"]) == "400 (one fork)"


def test_a_round_that_did_not_deliver_members_times_messages_is_refused():
    with pytest.raises(ValueError, match="not members x messages"):
        report.rows_of([record(handovers=4_999_999)])


def test_the_table_sets_each_row_beside_its_2010_figure():
    rows = report.rows_of([record("jetlang", pid=p) for p in (1, 2)] + [record("akka-fj", pid=p, cpus=1) for p in (3, 4)])
    lines = report.table(rows)
    assert lines[0].startswith("| row | model | CPUs |")
    jet = next(l for l in lines if l.startswith("| jetlang "))
    assert "Jetlang 2,155 ms (431 ns)" in jet and "10,000 × 500" in jet
    akka_one_cpu = next(l for l in lines if l.startswith("| akka-fj "))
    assert "Scala actors" not in akka_one_cpu          # 2010 ran one thread per CPU of a multi-core machine
    assert "| Scala actors | 47,911 | 9,582 |" in report.then_table()


def test_the_results_folder_has_the_table_first_a_chart_and_the_record(tmp_path):
    rounds = [record(r, pid=p, cpus=c) for r in ("jetlang", "node-workers") for p in (1, 2, 3) for c in (1, 2)]
    doc = {"commandLine": "./tradebench ring", "startedAt": "a", "finishedAt": "b", "commit": "abc",
           "machine": {"cpuModel": "x", "cpus": 2}, "plan": {"members": 10_000, "messages": 500},
           "rows": report.rows_of(rounds), "rounds": rounds}
    report.write(tmp_path, doc)
    summary = (tmp_path / "summary.md").read_text().splitlines()
    assert summary[0].startswith("# Thread ring") and summary[2].startswith("| row |")
    assert (tmp_path / report.CHART).stat().st_size > 1000
    assert len(json.loads((tmp_path / "results.json").read_text())["rows"]) == 4


def test_each_design_gets_its_count_times_its_models_cost_on_the_largest_layout():
    # akka-tp: 400 CPU ns per hand-over on 2 CPUs, 100 on 1; java-spray-async hands an order over 5 / 4 times
    rounds = [record("akka-tp", pid=p, cpu_ns=2_000_000_000) for p in (1, 2)] + \
        [record("akka-tp", pid=p, cpus=1, cpu_ns=500_000_000) for p in (3, 4)]
    lines = report.designs_table(report.rows_of(rounds))
    assert lines[0].startswith("| design | hand-overs per order")
    spray = next(l for l in lines if l.startswith("| java-spray-async "))
    assert "| 5 / 4 | `akka-tp` (2 CPUs) | 400 | 2.0 / 1.6 |" in spray
    assert not any(l.startswith("| java-akka ") for l in lines)     # its ring row was not measured: no line


def test_the_chart_is_a_palette_png_as_every_committed_chart(tmp_path):
    from PIL import Image
    rows = report.rows_of([record(r, pid=p, cpus=c) for r in ("jetlang", "akka-fj") for p in (1, 2) for c in (1, 2)])
    report.chart(rows, tmp_path / "ring.png")
    assert Image.open(tmp_path / "ring.png").mode == "P"


def test_the_defaults_are_the_2010_shape_on_one_and_on_two_cpus():
    c = cli.parse(["ring"])
    plan, out = c.options
    assert (plan.members, plan.messages, plan.forks, out) == (10_000, 500, 3, None)
    assert plan.rows == ring.ROWS and plan.sweep == (1, 2, 4, 8)
    assert [len(l) for l in plan.layouts] == [1, 2][:len(plan.layouts)]
    assert plan.size("threads") == (100, 500) and plan.size("node-children") == (10_000, 5)
    assert plan.estimate_s() < 600


@pytest.mark.parametrize("argv, why", [
    (["ring", "--rows", "akka-fj,scala"], "--rows scala: not a ring row"),
    (["ring", "--members", "0"], "--members 0: at least 1"),
    (["ring", "--sweep", "1,x"], "--sweep 1,x: comma-separated whole numbers"),
    (["ring", "--cpus", "64"], "--cpus 64: this machine lets the harness use"),
])
def test_options_that_cannot_be_run_are_refused_before_anything_starts(argv, why, capsys):
    with pytest.raises(SystemExit) as e:
        cli.parse(argv)
    assert e.value.code == 2 and why in capsys.readouterr().err


def test_the_node_rings_deliver_every_hand_over_once():
    node = os.environ.get("TB_NODE") or shutil.which("node")
    assert node, "Node.js is needed for the Node rings' test"
    p = subprocess.run([node, "--test", str(ROOT / "bench-ring" / "node" / "ring.test.js")], capture_output=True,
                       text=True, timeout=120)
    assert p.returncode == 0, p.stdout[-2000:] + p.stderr[-2000:]
    # node --test's summary: "# pass 6" from the TAP reporter, "ℹ pass 6" from the spec reporter (Node 24's default)
    assert re.search(r"^[#ℹ] fail 0$", p.stdout, re.M) and re.search(r"^[#ℹ] pass 6$", p.stdout, re.M), p.stdout[-2000:]
