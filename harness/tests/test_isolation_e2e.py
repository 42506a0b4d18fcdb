"""The isolation experiment's behaviour on real variants (not its speed): with the order view's read path
blocked (every answer held back, as a dependency that hangs), java-threads configured as the 2012 servlet
store (views on its 200 request threads, no limit, a 30 s time-out) under more blocked views than it has
threads queues its orders, while java-virtual as shipped (a limit on the views in the read path, a 2 s
time-out) keeps answering its orders within a bound derived from the run's own healthy phase, and answers its
views 503 or 504 within their time-out. The audit of every accepted order passes in both. One short
`./tradebench isolation` of two rows: about two minutes on 2 cores."""
import os
import subprocess
import sys
from pathlib import Path

import pytest

from tradebench_harness.record import isolation as record
from tradebench_harness.report import isolation as report

pytestmark = pytest.mark.system   # two variants started, Toxiproxy in front of the private database

ROOT = Path(__file__).resolve().parents[2]
#: 400 view clients pausing 500-1,500 ms: healthy, 16 read connections carry their 390 views/s at +20 ms (8 held);
#: with every view hanging 30 s, 387 held, far more than Tomcat's 200 request threads
EXPERIMENT = """
name: isolation-test
description: the read path blocked under more views than request threads
load: {orderRate: 100, orderConnections: 8, viewClients: 400, viewPauseMs: [500, 1500], viewTimeoutMs: 30000,
       warmupS: 2}
phases:
  - {name: healthy, seconds: 6, reads: 20}
  - {name: view-down, seconds: 8, reads: down}
  - {name: recover-1, seconds: 2, reads: 20}
rows:
  - {label: servlet-2012, variant: java-threads, settings: {VIEW_LIMIT: 0, READ_TIMEOUT_MS: 30000}, why: "2012"}
  - {label: virtual, variant: java-virtual, why: "as shipped"}
"""


@pytest.fixture(scope="module")
def run(tmp_path_factory):
    d = tmp_path_factory.mktemp("isolation")
    (d / "exp.yaml").write_text(EXPERIMENT)
    env = {k: v for k, v in os.environ.items() if not k.startswith("DB_")}
    r = subprocess.run([sys.executable, "-m", "tradebench_harness", "isolation", "--experiment", str(d / "exp.yaml"),
                        "--out", str(d / "out")], env=env, capture_output=True, text=True, timeout=600)
    (d / "isolation.log").write_text(r.stdout + r.stderr)
    assert (d / "out" / record.FILE).exists(), f"no results:\n{(r.stdout + r.stderr)[-4000:]}"
    doc = record.read(d / "out")
    return r.returncode, doc, {f["label"]: f for f in report.figures(doc)}, r.stdout + r.stderr


def orders(fig, phase):
    return next(f for f in fig["types"]["order"] if f["phase"] == phase)


def views(fig, phase):
    return next(f for f in fig["types"]["view"] if f["phase"] == phase)


def test_every_accepted_order_of_both_rows_is_in_sales_once(run):
    code, doc, figs, log = run
    for label in ("servlet-2012", "virtual"):
        assert not figs[label]["error"], figs[label]["error"]
        assert figs[label]["audit"].get("ok"), f"{label}: {figs[label]['audit']}"
    assert code == 0, log[-3000:]


def test_the_2012_servlet_store_queues_its_orders_behind_views_that_hold_its_threads(run):
    _, _, figs, _ = run
    f = figs["servlet-2012"]
    healthy, blocked = orders(f, "healthy"), orders(f, "view-down")
    assert healthy["p99"] < 1000, healthy
    assert blocked["p99"] > max(10 * healthy["p99"], 1000), (healthy, blocked)
    assert f["verdicts"]["view-down"] == "queued"
    assert next(b for b in f["bounds"] if b["phase"] == "view-down")["ordersQueue"]


def test_virtual_threads_with_a_limit_keep_their_orders_and_answer_their_views_in_time(run):
    _, _, figs, _ = run
    f = figs["virtual"]
    healthy, blocked = orders(f, "healthy"), orders(f, "view-down")
    # the bound, from this run's healthy phase: ten times its p99, and never under 250 ms on a busy 2-core box
    assert blocked["p99"] <= max(10 * healthy["p99"], healthy["p99"] + 250), (healthy, blocked)
    assert blocked["requestsPerSecond"] >= 0.9 * healthy["requestsPerSecond"], (healthy, blocked)
    v = views(f, "view-down")
    answered = v["answers"]
    assert (answered.get("refused503") or 0) + (answered.get("timedOut504") or 0) > 0, v
    assert not answered.get("clientTimeouts"), v
    # every view answered within its 2 s time-out and the scheduling of a busy machine
    assert v["p99"] <= 2000 + 1500, v
