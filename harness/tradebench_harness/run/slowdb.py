"""The two other kinds of slow database, beside a far one (toxiproxy.py adds a round trip):

  busy     its server held to a share of the cores: a cgroup's CPU quota (cgroup v2's cpu.max, or v1's
           cpu.cfs_quota_us) on the server process, as a database on a small or shared machine has
  durable  every commit synced to disk (innodb_flush_log_at_trx_commit=1): each commit waits for an fsync,
           and group commit rewards many commits in flight

`slowed(db, cpu, durable)` makes the database so for what runs inside (a whole run) and puts it back after;
`for_window(db, cpu, durable)` does the same for one measured window (a map drawn along the database's cores
or along its commits synced or not). The cgroup
needs the server's process on this machine (the private database, or a local one whose pid file the harness
knows) and a writable cgroup file system (root, or a delegated cgroup)."""
from __future__ import annotations

import contextlib
import os
from collections.abc import Iterator
from pathlib import Path

from .db import Database, DbError

PERIOD_US = 100_000
#: the options that ask for a CPU quota, as an error names them
ASKED = "--db-cpu (or map --db-kind busy)"
V2 = Path("/sys/fs/cgroup")
V1 = Path("/sys/fs/cgroup/cpu")


def _write(path: Path, text: str) -> None:
    try:
        path.write_text(text)
    except OSError as e:
        raise DbError(f"{ASKED}: cannot write {path} ({e.strerror}): a CPU quota needs root or a delegated cgroup") from e


def _cgroup_dir(name: str) -> tuple[Path, str]:
    """A new cgroup NAME with the CPU controller: (its folder, "v2" or "v1")."""
    if "cpu" in ((V2 / "cgroup.controllers").read_text().split() if (V2 / "cgroup.controllers").exists() else []):
        with contextlib.suppress(OSError):         # the controller offered to the children (may already be)
            (V2 / "cgroup.subtree_control").write_text("+cpu")
        d = V2 / name
        kind = "v2"
    elif (V1 / "cpu.cfs_quota_us").exists():
        d = V1 / name
        kind = "v1"
    else:
        raise DbError(f"{ASKED}: no cgroup CPU controller on this machine (neither cgroup v2's cpu nor v1's cpu)")
    try:
        d.mkdir(exist_ok=True)
    except OSError as e:
        raise DbError(f"{ASKED}: cannot create the cgroup {d} ({e.strerror})") from e
    return d, kind


@contextlib.contextmanager
def cpu_limited(pid: int | None, cores: float, name: str) -> Iterator[float]:
    """The process PID (every thread of it) held to CORES of CPU (0.25: a quarter of one core)."""
    if not pid:
        raise DbError(f"{ASKED}: the database server's process is not on this machine (no pid): use the private database")
    if cores <= 0:
        raise DbError(f"{ASKED} {cores}: a share of the cores above 0 (0.25: a quarter of one core)")
    d, kind = _cgroup_dir(name)
    quota = max(1000, int(cores * PERIOD_US))
    before = Path(f"/proc/{pid}/cgroup").read_text()
    if kind == "v2":
        _write(d / "cpu.max", f"{quota} {PERIOD_US}")
    else:
        _write(d / "cpu.cfs_period_us", str(PERIOD_US))
        _write(d / "cpu.cfs_quota_us", str(quota))
    _write(d / "cgroup.procs", str(pid))
    try:
        yield quota / PERIOD_US
    finally:
        home = _home(before, kind)
        with contextlib.suppress(OSError):
            (home / "cgroup.procs").write_text(str(pid))
        with contextlib.suppress(OSError):
            d.rmdir()


def _home(cgroup_text: str, kind: str) -> Path:
    """The cgroup the process was in before (from /proc/PID/cgroup), to put it back."""
    for line in cgroup_text.splitlines():
        _, controllers, path = line.split(":", 2)
        if (kind == "v2" and controllers == "") or (kind == "v1" and "cpu" in controllers.split(",")):
            return (V2 if kind == "v2" else V1) / path.lstrip("/")
    return V2 if kind == "v2" else V1


@contextlib.contextmanager
def durable(db: Database, on: bool) -> Iterator[int | None]:
    """Every commit synced to disk while inside (ON), the server's setting put back after."""
    if not on:
        yield None
        return
    was = db.scalar("SELECT @@GLOBAL.innodb_flush_log_at_trx_commit")
    db.sql("SET GLOBAL innodb_flush_log_at_trx_commit = 1")
    try:
        yield 1
    finally:
        db.sql(f"SET GLOBAL innodb_flush_log_at_trx_commit = {int(was)}")


#: innodb_flush_log_at_trx_commit of a database whose commits are not synced: each commit reaches the OS, the
#: disk synced once a second (the private database's default, run/db.py; never 0, which loses commits)
NOT_SYNCED = 2


@contextlib.contextmanager
def commits_synced(db: Database, on: bool) -> Iterator[bool]:
    """Every commit synced to disk (ON) or not (off: NOT_SYNCED) while inside, whatever the server had; its
    setting put back after, also when what runs inside fails or is interrupted."""
    was = db.scalar("SELECT @@GLOBAL.innodb_flush_log_at_trx_commit")
    db.sql(f"SET GLOBAL innodb_flush_log_at_trx_commit = {1 if on else NOT_SYNCED}")
    try:
        yield on
    finally:
        db.sql(f"SET GLOBAL innodb_flush_log_at_trx_commit = {int(was)}")


@contextlib.contextmanager
def for_window(db: Database, cpu: float | None, durable_commits: bool | None) -> Iterator[None]:
    """DB as one window wants it: held to CPU cores (None: as the run has it) and its commits synced or not
    (None: as the run has it); put back when the window ends, fails or is interrupted. A window's own
    cgroup is not the whole run's (--db-cpu): inside one, the server goes back to the run's after."""
    with contextlib.ExitStack() as stack:
        if cpu is not None:
            stack.enter_context(cpu_limited(db.pid(), cpu, f"tradebench-db-{db.port}-{os.getpid()}-window"))
        if durable_commits is not None:
            stack.enter_context(commits_synced(db, durable_commits))
        yield


@contextlib.contextmanager
def slowed(db: Database, cpu: float | None, durable_commits: bool) -> Iterator[None]:
    """DB busy (held to CPU cores) and/or durable (every commit synced) for what runs inside."""
    with contextlib.ExitStack() as stack:
        if cpu:
            stack.enter_context(cpu_limited(db.pid(), cpu, f"tradebench-db-{db.port}-{os.getpid()}"))
        stack.enter_context(durable(db, durable_commits))
        yield
