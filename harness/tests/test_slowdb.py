"""The busy and the durable database (run/slowdb.py) on the real private database: the server's process held to
a CPU quota does measurably less work per second, every commit is synced while durable, and both are put back."""
import time
from pathlib import Path

import psutil
import pytest

from tradebench_harness.run import db as dbmod
from tradebench_harness.run import slowdb

pytestmark = pytest.mark.integration   # the private database, no variant


@pytest.fixture()
def db(ctx):
    # the private instance itself (root over its socket, its pid known), also where ./tradebench test has named it
    # in DB_HOST for the variants' tests
    dbmod.start_private(ctx)
    return dbmod.private(ctx)


def busy_cpu_seconds(db, pid: int, seconds: float = 2.0) -> float:
    """The server's CPU seconds over SECONDS of a query that keeps it busy (a tight loop of BENCHMARK)."""
    proc = psutil.Process(pid)
    before = sum(proc.cpu_times()[:2])
    t0 = time.monotonic()
    while time.monotonic() - t0 < seconds:
        db.sql("SELECT BENCHMARK(2000000, SHA2('tradebench', 256))")
    return (sum(proc.cpu_times()[:2]) - before) / (time.monotonic() - t0)


def cgroup_of(pid: int) -> str:
    return Path(f"/proc/{pid}/cgroup").read_text()


def test_a_busy_database_is_held_to_its_quota_and_let_go_after(db):
    pid = db.pid()
    home = cgroup_of(pid)
    free = busy_cpu_seconds(db, pid)
    with slowdb.cpu_limited(pid, 0.2, "tradebench-db-test") as cores:
        assert cores == pytest.approx(0.2)
        assert "tradebench-db-test" in cgroup_of(pid)
        held = busy_cpu_seconds(db, pid)
    assert held < 0.3, f"held to 0.2 cores it used {held:.2f}"
    assert free > held * 1.5, f"free {free:.2f} cores, held {held:.2f}"
    assert cgroup_of(pid) == home, "the server was not put back in its cgroup"


def test_no_quota_without_the_servers_process():
    with pytest.raises(dbmod.DbError, match="not on this machine"), slowdb.cpu_limited(None, 0.5, "x"):
        pass


def test_a_durable_database_syncs_every_commit_while_inside_and_is_put_back(db):
    was = db.scalar("SELECT @@GLOBAL.innodb_flush_log_at_trx_commit")
    with slowdb.slowed(db, None, True):
        assert db.scalar("SELECT @@GLOBAL.innodb_flush_log_at_trx_commit") == "1"
    assert db.scalar("SELECT @@GLOBAL.innodb_flush_log_at_trx_commit") == was
    with slowdb.slowed(db, None, False):
        assert db.scalar("SELECT @@GLOBAL.innodb_flush_log_at_trx_commit") == was
