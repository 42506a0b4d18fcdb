"""A window's own database on the one measurement path (measure/instance.py, run/slowdb.py): set after the drain,
held while the window is measured, put back after it — when it fails or is interrupted too — and written in its
run record. A fake database and a fake variant stand in: nothing is started."""
import contextlib
import re

import pytest

from tradebench_harness.measure import instance
from tradebench_harness.measure.instance import RunFailed
from tradebench_harness.measure.plan import Series, Timing, Unit, Window
from tradebench_harness.run import slowdb, variants


class FakeDb:
    """innodb_flush_log_at_trx_commit as a server holds it, and the cores its process is held to."""
    port = 3307

    def __init__(self, flush="2"):
        self.flush, self.cores, self.statements = flush, None, []

    def pid(self):
        return 4242

    def scalar(self, statement):
        self.statements.append(statement)
        return self.flush if "innodb_flush_log_at_trx_commit" in statement else "0"

    def sql(self, statement):
        self.statements.append(statement)
        m = re.search(r"innodb_flush_log_at_trx_commit = (\d)", statement)
        if m:
            self.flush = m.group(1)

    @property
    def state(self):
        return self.cores, self.flush


@pytest.fixture()
def db(monkeypatch):
    d = FakeDb()

    @contextlib.contextmanager
    def held(pid, cores, name):
        assert pid == d.pid() and d.cores is None and "window" in name
        d.cores = cores
        try:
            yield cores
        finally:
            d.cores = None

    monkeypatch.setattr(slowdb, "cpu_limited", held)   # a cgroup needs root: its effect is what counts here
    return d


def test_a_windows_cores_and_syncing_are_set_inside_and_put_back_after(db):
    with slowdb.for_window(db, 0.25, True):
        assert db.state == (0.25, "1")
    assert db.state == (None, "2")
    db.flush = "1"                                     # a database durable for the whole run (TB_DB_DURABLE=1)
    with slowdb.for_window(db, None, False):
        assert db.state == (None, "2")                 # not synced, never 0
    assert db.state == (None, "1")
    with slowdb.for_window(db, None, None):            # a window without its own database leaves the run's alone
        assert db.state == (None, "1")
    assert not [s for s in db.statements if "SET" in s and "= 0" in s]


def test_an_interrupted_window_puts_its_database_back(db):
    with pytest.raises(KeyboardInterrupt), slowdb.for_window(db, 0.1, True):
        raise KeyboardInterrupt
    assert db.state == (None, "2")


class FakeInstance:
    """A started variant that records the database as each step saw it."""
    seen: list = []
    fail_at: dict = {}
    stolen_at: dict = {}     # window number -> the hypervisor's steal over it, % of a core

    def __init__(self, ctx, db, series, out, link, profiling=None):
        self.db = db

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        FakeInstance.seen.append(("stopped", self.db.state))

    def start(self):
        pass

    def warm_jit(self, w, max_s, say):
        FakeInstance.seen.append(("jit", self.db.state))

    def alive(self):
        return True

    def drain(self):
        FakeInstance.seen.append(("drain", self.db.state))
        return 0.0

    def measure(self, w, t, warmup, out):
        FakeInstance.seen.append(("window", self.db.state))
        n = sum(1 for what, _ in FakeInstance.seen if what == "window")
        if n in FakeInstance.fail_at:
            raise FakeInstance.fail_at[n]
        return {"salesPerMinute": 600.0 + n, "salesPerSecond": 10.0, "ordersPerSecond": 11.0,
                "machineCpu": {"othersPercent": 1.0, "stealPercent": FakeInstance.stolen_at.get(n, 0.0), "samples": 3}}


@pytest.fixture()
def unit_of(ctx, monkeypatch):
    monkeypatch.setattr(variants.Variant, "ensure_built", lambda self, ctx, log=None: None)
    monkeypatch.setattr(instance, "Instance", FakeInstance)
    FakeInstance.seen, FakeInstance.fail_at, FakeInstance.stolen_at = [], {}, {}
    (threads,) = variants.by_name(ctx.root, ["java-threads"])
    return lambda windows: Unit(Series(threads, 4, "per-sale"), [(1, w) for w in windows])


def measure(ctx, db, unit, tmp_path, remeasure=0):
    t = Timing(window=3, warmup="1", settle=1, verify=False, jit_warmup_max=0, link=True, remeasure=remeasure)
    rtts = {w.db_key: 0.3 for _, w in unit.windows}
    return instance.measure_unit(ctx, db, unit, t, rtts, tmp_path / "unit", tmp_path)


def test_each_window_is_measured_on_its_own_database_and_drained_on_the_runs(ctx, db, unit_of, tmp_path):
    windows = [Window(0, rate=100, db_cpu=1), Window(0, rate=100, db_cpu=0.25), Window(0, rate=100)]
    recs = measure(ctx, db, unit_of(windows), tmp_path)
    assert FakeInstance.seen == [("jit", (None, "2")),
                                 ("drain", (None, "2")), ("window", (1, "2")),
                                 ("drain", (None, "2")), ("window", (0.25, "2")),
                                 ("drain", (None, "2")), ("window", (None, "2")), ("stopped", (None, "2"))]
    assert [(r.get("dbCpuCores"), r.get("dbDurable"), r["rttMs"]) for r in recs] == [
        (1, None, 0.3), (0.25, None, 0.3), (None, None, 0.3)]
    assert "dbCpuCores" not in recs[2]       # the run's own database: execute.py writes the environment's
    assert not any(r.get("error") for r in recs)
    # each window's logs named by its database
    assert [r["logs"].split("/")[-1] for r in recs] == ["r1-01-0ms-1cores", "r1-02-0ms-0.25cores", "r1-03-0ms"]


def test_a_failed_window_puts_its_database_back_and_the_next_is_measured(ctx, db, unit_of, tmp_path):
    FakeInstance.fail_at = {1: RunFailed("the variant died during the load")}
    recs = measure(ctx, db, unit_of([Window(0, rate=100, db_durable=True), Window(0, rate=100, db_durable=False)]),
                   tmp_path)
    assert [s for s in FakeInstance.seen if s[0] == "window"] == [("window", (None, "1")), ("window", (None, "2"))]
    assert "died" in recs[0]["error"] and not recs[1].get("error")
    assert [(r["dbDurable"], r.get("dbCpuCores")) for r in recs] == [(True, None), (False, None)]
    assert db.state == (None, "2")


def test_an_interrupt_in_a_window_leaves_the_database_as_it_was(ctx, db, unit_of, tmp_path):
    db.flush = "1"
    FakeInstance.fail_at = {2: KeyboardInterrupt()}
    with pytest.raises(KeyboardInterrupt):
        measure(ctx, db, unit_of([Window(0, rate=100, db_cpu=0.5, db_durable=False),
                                  Window(0, rate=100, db_cpu=0.1, db_durable=False)]), tmp_path)
    assert ("window", (0.1, "2")) in FakeInstance.seen
    assert db.state == (None, "1") and FakeInstance.seen[-1] == ("stopped", (None, "1"))


def test_a_window_the_hypervisor_stole_from_is_measured_again_and_the_crowded_ones_are_kept_aside(ctx, db, unit_of,
                                                                                                   tmp_path):
    # window 1 measured three times (stolen from twice), window 2 three times (stolen from every time), window 3 once
    FakeInstance.stolen_at = {1: 40.0, 2: 25.0, 4: 60.0, 5: 30.0, 6: 12.0}
    recs = measure(ctx, db, unit_of([Window(0, rate=100), Window(0, rate=200), Window(0, rate=300)]), tmp_path,
                   remeasure=2)
    assert [s for s, _ in FakeInstance.seen].count("window") == 7
    assert [s for s, _ in FakeInstance.seen].count("drain") == 7      # each measurement after a drain of its own
    first, second, third = recs
    assert first["machineCpu"]["stealPercent"] == 0.0 and first["salesPerMinute"] == 603.0
    assert [a["machineCpu"]["stealPercent"] for a in first["crowdedAttempts"]] == [40.0, 25.0]
    assert [a["logs"].split("/")[-1] for a in first["crowdedAttempts"]] == ["r1-01-0ms", "r1-01-0ms-again1"]
    assert first["logs"].endswith("r1-01-0ms-again2") and first["rate"] == 100
    # measured as often as allowed, still crowded: the last measurement is the window's, the model leaves it out
    assert second["machineCpu"]["stealPercent"] == 12.0 and len(second["crowdedAttempts"]) == 2
    assert "crowdedAttempts" not in third and third["logs"].endswith("r1-03-0ms")


def test_without_remeasuring_a_crowded_window_is_measured_once(ctx, db, unit_of, tmp_path):
    FakeInstance.stolen_at = {1: 40.0}
    (rec,) = measure(ctx, db, unit_of([Window(0, rate=100)]), tmp_path)
    assert rec["machineCpu"]["stealPercent"] == 40.0 and "crowdedAttempts" not in rec
