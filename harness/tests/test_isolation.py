"""The isolation experiment's file, arithmetic and tables (measure/isolation.py, report/isolation.py), without a
variant: the committed experiment parses and fits its time, Little's law says which rows must queue their
orders, a phase's figures and intervals come from the load client's per-phase and per-second figures, and the
verdict tells orders that kept flowing from orders that queued."""
from pathlib import Path

import pytest

from tradebench_harness.measure import isolation
from tradebench_harness.report import isolation as report

ROOT = Path(__file__).resolve().parents[2]
FILE = ROOT / "harness" / "experiments" / "isolation.yaml"


@pytest.fixture(scope="module")
def exp():
    return isolation.read_experiment(FILE)


def test_the_committed_experiment_runs_every_design_and_its_fixes_within_twenty_minutes(exp):
    variants = {r.variant for r in exp.rows}
    assert {"java-threads", "java-akka", "java-virtual", "java-spray-async", "node-engine"} <= variants
    settings = [r.settings for r in exp.rows if r.variant == "java-threads"]
    assert {"VIEWS": "async"} in settings and {"VIEWS": "resilience4j"} in settings
    assert [p.name for p in exp.phases][0] == "healthy"
    assert {p.reads for p in exp.phases} >= {20, 1000, "down"}
    assert any(p.writes for p in exp.phases), "no phase slows the whole database"
    # the rows alone; the builds of a fresh clone come on top (about 3 minutes on the project's machine)
    assert exp.estimate_s() <= 17 * 60, f"{exp.estimate_s():.0f} s"


def test_rows_and_phase_lengths_can_be_chosen_and_an_unknown_row_is_named(exp):
    short = exp.only(["java-threads", "node-engine"]).with_phase_seconds(4)
    assert [r.label for r in short.rows] == ["java-threads", "node-engine"]
    assert {p.seconds for p in short.phases if not p.name.startswith("recover")} == {4}
    assert {p.seconds for p in short.phases if p.name.startswith("recover")} == {2}
    with pytest.raises(isolation.IsolationError, match="java-nothing"):
        exp.only(["java-nothing"])


def test_a_path_is_milliseconds_or_down(tmp_path):
    bad = tmp_path / "bad.yaml"
    bad.write_text(FILE.read_text().replace("reads: 1000", "reads: slow"))
    with pytest.raises(isolation.IsolationError, match="slow"):
        isolation.read_experiment(bad)


def test_the_load_client_is_told_the_phases_and_when_the_window_opens(exp, tmp_path):
    args = [str(a) for a in isolation.load_args(exp, "http://127.0.0.1:1", 1_700_000_000_000, tmp_path, "i1-")]
    assert args[args.index("--window-at") + 1] == "1700000000000"
    assert args[args.index("--phases") + 1].startswith("healthy:12,view-slow:12,")
    assert args[args.index("--view-clients") + 1] == "300"
    assert args[args.index("--view-pause") + 1] == "500-1500"
    assert args[args.index("--orders-out") + 1] == str(tmp_path / "orders.tsv")


def phase(name, reads):
    return {"name": name, "seconds": 12, "reads": reads, "writes": None}


def test_littles_law_queues_the_orders_only_where_views_hold_the_request_threads_they_share():
    down, slow = phase("view-down", "down"), phase("view-slow", 1000)
    servlet_2012 = {"variant": "java-threads", "settings": {"VIEW_LIMIT": "0", "READ_TIMEOUT_MS": "30000"}}
    b = report.bound(servlet_2012, down, 300, 1.0)
    assert b["holdS"] == 30 and b["viewsHeld"] == pytest.approx(300 * 30 / 31, abs=0.1)
    assert b["ordersQueue"] and b["threadsViewsPerS"] == pytest.approx(200 / 30, abs=0.1)
    # +1 s: 150 views/s want 150 reads at once from a pool of 16: the rest queue for a connection up to their
    # 30 s time-out, and hold 290 threads
    b = report.bound(servlet_2012, slow, 300, 1.0)
    assert b["holdS"] == 30 and b["ordersQueue"] and b["readPoolViewsPerS"] == pytest.approx(16, abs=0.1)
    # a pool the views do not outrun: +20 ms, 5.9 held, the read's delay is the hold
    healthy = report.bound(servlet_2012, phase("healthy", 20), 300, 1.0)
    assert healthy["holdS"] == pytest.approx(0.0202, abs=1e-3) and not healthy["ordersQueue"]
    big_pool = {"variant": "java-threads", "settings": {"VIEW_LIMIT": "0", "READ_TIMEOUT_MS": "30000",
                                                        "READ_POOL": "200"}}
    assert report.bound(big_pool, slow, 300, 1.0)["holdS"] == pytest.approx(1.0002, abs=1e-3)
    assert not report.bound(big_pool, slow, 300, 1.0)["ordersQueue"]
    # the shipped limit: at most 64 of the 200 threads wait on views
    assert not report.bound({"variant": "java-threads", "settings": {}}, down, 300, 1.0)["ordersQueue"]
    # a 2 s time-out: 300 x 2 / 3 = 200 held, at the thread count
    assert report.bound({"variant": "java-akka", "settings": {"VIEW_LIMIT": "0"}}, down, 300, 1.0)["ordersQueue"]
    for row in ({"variant": "java-threads", "settings": {"VIEWS": "async", "VIEW_LIMIT": "0"}},
                {"variant": "java-virtual", "settings": {"VIEW_LIMIT": "0"}},
                {"variant": "java-spray-async", "settings": {}}, {"variant": "node-engine", "settings": {}}):
        assert not report.bound(row, down, 300, 1.0)["ordersQueue"], row
    assert report.bound({"variant": "node-engine", "settings": {}}, slow, 300, 1.0)["readPoolViewsPerS"] == \
        pytest.approx(16, abs=0.1)


def load_doc(order_p99_by_phase, seconds=6):
    """A load client's JSON with two phases of SECONDS seconds, the orders' p99 of each phase as given."""
    phases, per = [], {"order": [], "view": []}
    t = 1_000_000
    for name, p99 in order_p99_by_phase.items():
        phases.append({"name": name, "startMs": t, "endMs": t + seconds * 1000, "requests": 200 * seconds,
                       "requestsPerSecond": 200.0, "byStatus": {"202": 200 * seconds},
                       "answers": {"ok": 200 * seconds}, "latencyMs": {"p50": p99 / 4, "p90": p99 / 2, "p99": p99,
                                                                        "p999": p99 * 2, "max": p99 * 3}})
        for s in range(seconds):
            per["order"].append({"second": s, "startMs": t + s * 1000, "requests": 190 + s * 4, "p99": p99 + s,
                                 "p50": p99 / 4, "max": p99 * 2, "byStatus": {"202": 200}})
        t += seconds * 1000
    types = {"order": {"phases": phases, "perSecond": per["order"]},
             "view": {"phases": [{**p, "byStatus": {"200": 10, "504": 5},
                                  "answers": {"ok": 10, "timedOut504": 5}} for p in phases], "perSecond": []}}
    return {"windowStartMs": 1_000_000, "types": types}


def test_a_phases_figures_carry_intervals_over_its_seconds_and_the_verdict_reads_the_p99():
    load = load_doc({"healthy": 10.0, "view-down": 900.0})
    figs = report.phase_figures(load, "order")
    assert [f["phase"] for f in figs] == ["healthy", "view-down"]
    h = figs[0]
    lo, hi = h["rateCi"]
    assert 190 <= lo <= 200 <= hi <= 210
    assert h["medianSecondP99"] == pytest.approx(12.5)
    assert h["p99Ci"][0] <= 12.5 <= h["p99Ci"][1]
    assert report.verdict(figs, "view-down") == "queued"
    kept = report.phase_figures(load_doc({"healthy": 10.0, "view-down": 25.0}), "order")
    assert report.verdict(kept, "view-down") == "kept"
    # a healthy p99 of 1 ms: 40 ms is within the margin, not 40 times worse
    assert report.verdict(report.phase_figures(load_doc({"healthy": 1.0, "view-down": 40.0}), "order"),
                          "view-down") == "kept"


def test_the_summary_opens_with_the_answer_table_and_names_what_was_not_measured(exp):
    from tradebench_harness.cli.isolation import experiment_record
    rec = experiment_record(exp)
    rows = [{"label": "java-threads-2012", "variant": "java-threads", "settings": {"VIEW_LIMIT": "0"},
             "why": "2012", "load": load_doc({"healthy": 10.0, "view-slow": 12.0, "db-slow": 11.0,
                                              "view-down": 2000.0}),
             "audit": {"ok": True}, "costs": {"healthy": {"cpuPercent": 20.0, "rssMaxMb": 300, "threadsMax": 230}},
             "dbConnections": 24},
            {"label": "node-engine", "variant": "node-engine", "settings": {}, "why": "node", "load": None,
             "audit": {"ok": False}, "error": "not healthy within 90 s"}]
    doc = {"experiment": rec, "rows": rows, "environment": {"cpuModel": "x", "cores": 2, "gitCommit": "abc"},
           "startedAt": "now"}
    text = report.summary(doc)
    first = text.splitlines()[2]
    assert first.startswith("| design | orders p99 healthy")
    line = next(x for x in text.splitlines() if x.startswith("| java-threads-2012 |"))
    assert "2,000 ms **queued**" in line and "passed" in line
    assert "**Not measured**: not healthy within 90 s" in text
    assert "230 threads, 24 database connections" in text
    # 20 % of a core over 200 orders and 200 views a second: 500 µs a request
    assert "20.0 % of a core (500.0 µs a request of either type," in text
