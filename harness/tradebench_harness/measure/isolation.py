"""The isolation experiment (docs/isolation.md): each design under orders and order views at once, while the
views' read path, then the whole database, turns slow. Orders never touch the database in the request path;
a view reads SALES in it, by a path of its own (docs/contract-details.md, "The order view's read path").

One row, start to end:
  1. SALES emptied; the variant started with its writers through one Toxiproxy path and its views' reads
     through another (`toxiproxy.Paths`), on the layout's CPUs;
  2. one load client (`loadclient load`, its mixed load) told the wall-clock time its window opens and the
     phases that split it; this module changes each path's toxic at those same times, so each phase's figures
     are of the world that phase names, and nothing but the clock passes between the two processes;
  3. the variant's CPU, memory and threads sampled every second, its database connections counted;
  4. the paths made healthy, the variant's sales left to settle, the load's accepted orders audited
     (`loadclient reliability audit`: no sale lost or doubled); the variant stopped with SIGTERM.

A row is a value (`RowResult`), returned; the document is written by record.isolation and drawn by
report.isolation.
"""
from __future__ import annotations

import json
import random
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

from ..run import db as dbmod
from ..run import loadclient, process, toxiproxy
from ..run.context import Context
from ..run.variants import Variant, by_name

#: the two paths to the database: the engines' writers', and the order view's reads
WRITES, READS = "writes", "reads"
#: seconds a row costs beyond its phases and warm-up: the variant's start, the load client's, the settle and
#: the audit, the stop (measured on the project's 2-core machine: 14-19 s)
ROW_OVERHEAD_S = 18
#: the load client's JVM starts within this; its window opens this long after it is launched, plus the warm-up
LAUNCH_S = 4.0
#: the database of the experiment: emptied before each row, so the audit reads only the row's sales
DATABASE = "TRADER_ISOLATION"


class IsolationError(Exception):
    pass


@dataclass(frozen=True)
class Phase:
    name: str
    seconds: float
    reads: toxiproxy.Toxic = None
    writes: toxiproxy.Toxic = None


@dataclass(frozen=True)
class Row:
    label: str
    variant: str
    settings: dict[str, str] = field(default_factory=dict)
    why: str = ""


@dataclass(frozen=True)
class Load:
    order_rate: float
    order_connections: int
    view_clients: int
    view_pause_ms: tuple[int, int]
    view_timeout_ms: int
    warmup_s: float


@dataclass(frozen=True)
class Experiment:
    name: str
    description: str
    file: str
    load: Load
    phases: tuple[Phase, ...]
    rows: tuple[Row, ...]
    article: dict[str, Any]

    def with_phase_seconds(self, seconds: float | None) -> Experiment:
        """Every phase SECONDS long (a short run: the system test), the recoveries half as long."""
        if not seconds:
            return self
        phases = tuple(Phase(p.name, seconds if not p.name.startswith("recover") else max(2.0, seconds / 2),
                             p.reads, p.writes) for p in self.phases)
        return Experiment(self.name, self.description, self.file, self.load, phases, self.rows, self.article)

    def only(self, labels: list[str] | None) -> Experiment:
        if not labels:
            return self
        known = {r.label: r for r in self.rows}
        missing = [x for x in labels if x not in known]
        if missing:
            raise IsolationError(f"--rows {','.join(missing)}: the rows are {', '.join(known)}")
        return Experiment(self.name, self.description, self.file, self.load, self.phases,
                          tuple(known[x] for x in labels), self.article)

    def window_s(self) -> float:
        return sum(p.seconds for p in self.phases)

    def estimate_s(self) -> float:
        return len(self.rows) * (self.load.warmup_s + LAUNCH_S + self.window_s() + ROW_OVERHEAD_S)


def _toxic(value: Any, where: str) -> toxiproxy.Toxic:
    if value is None or value == toxiproxy.DOWN:
        return value  # type: ignore[no-any-return]
    if isinstance(value, int) and value >= 0:
        return value
    raise IsolationError(f"{where}: a path adds milliseconds (a whole number), or is `down`, not {value!r}")


def read_experiment(path: Path) -> Experiment:
    """The experiment file (harness/experiments/isolation.yaml), checked."""
    doc = yaml.safe_load(path.read_text()) or {}
    try:
        ld = doc["load"]
        load = Load(float(ld["orderRate"]), int(ld["orderConnections"]), int(ld["viewClients"]),
                    (int(ld["viewPauseMs"][0]), int(ld["viewPauseMs"][1])), int(ld["viewTimeoutMs"]),
                    float(ld["warmupS"]))
        phases = tuple(Phase(str(p["name"]), float(p["seconds"]), _toxic(p.get("reads"), f"phase {p['name']}"),
                             _toxic(p.get("writes"), f"phase {p['name']}")) for p in doc["phases"])
        rows = tuple(Row(str(r["label"]), str(r["variant"]), {k: str(v) for k, v in (r.get("settings") or {}).items()},
                         str(r.get("why", ""))) for r in doc["rows"])
    except (KeyError, TypeError, ValueError, IndexError) as e:
        raise IsolationError(f"{path}: {e!r}: needs load (orderRate, orderConnections, viewClients, viewPauseMs, "
                             f"viewTimeoutMs, warmupS), phases (name, seconds, reads, writes) and rows (label, "
                             f"variant, settings, why)") from e
    if not phases or not rows or any(p.seconds <= 0 for p in phases):
        raise IsolationError(f"{path}: needs at least one phase of a positive length and one row")
    return Experiment(str(doc.get("name", path.stem)), str(doc.get("description", "")), str(path), load, phases,
                      rows, doc.get("article") or {})


@dataclass(frozen=True)
class RowResult:
    """What one row measured: the load client's own figures (per request type, per phase, per second), what the
    variant cost in each phase, when each path changed, and the audit of its sales."""
    label: str
    variant: str
    settings: dict[str, str]
    why: str
    load: dict[str, Any] | None
    costs: dict[str, dict[str, Any]]
    db_connections: int | None
    changes: list[dict[str, Any]]
    audit: dict[str, Any]
    exit_code: str | None
    error: str | None = None

    def record(self) -> dict[str, Any]:
        return {"label": self.label, "variant": self.variant, "settings": self.settings, "why": self.why,
                "load": self.load, "costs": self.costs, "dbConnections": self.db_connections,
                "changes": self.changes, "audit": self.audit, "exitCode": self.exit_code, "error": self.error}


def say(msg: str) -> None:
    print(f"tradebench: isolation: {msg}", flush=True)


def load_args(exp: Experiment, url: str, window_at_ms: int, out: Path, prefix: str) -> list[object]:
    """The load client's mixed load for EXP, its window opening at WINDOW_AT_MS (wall clock)."""
    ld = exp.load
    return ["--url", url, "--rate", ld.order_rate, "--concurrency", ld.order_connections,
            "--view-clients", ld.view_clients, "--view-pause", f"{ld.view_pause_ms[0]}-{ld.view_pause_ms[1]}",
            "--view-timeout", ld.view_timeout_ms, "--timeout", ld.view_timeout_ms,
            "--phases", ",".join(f"{p.name}:{p.seconds:g}" for p in exp.phases), "--window-at", window_at_ms,
            "--user-prefix", prefix, "--orders-out", out / "orders.tsv", "--json", out / "load.json",
            "--progress", 5]


def _until(at_ms: float) -> None:
    left = at_ms / 1000 - time.time()
    if left > 0:
        time.sleep(left)


def drive(paths: toxiproxy.Paths, exp: Experiment, window_at_ms: int, bg: process.Running) -> list[dict[str, Any]]:
    """Each phase's toxics set at its start (wall clock, the load client's own boundaries); returns when each
    was set. Stops early when the load client is gone."""
    changes = []
    start = float(window_at_ms)
    for p in exp.phases:
        _until(start)
        if not bg.alive():
            break
        paths.set(READS, p.reads)
        paths.set(WRITES, p.writes)
        changes.append({"phase": p.name, "atMs": int(time.time() * 1000), "plannedMs": int(start),
                        "reads": p.reads, "writes": p.writes})
        start += p.seconds * 1000
    return changes


def costs_of(samples: list[dict[str, Any]], exp: Experiment, window_at_ms: int) -> dict[str, dict[str, Any]]:
    """The variant's mean CPU, peak RSS and threads in each phase (process.summarize over its seconds)."""
    out = {}
    start = window_at_ms
    for p in exp.phases:
        end = start + int(p.seconds * 1000)
        out[p.name] = process.summarize([s for s in samples if start <= s["t"] <= end])
        start = end
    return out


def audit(ctx: Context, db: dbmod.Database, url: str, d: Path, prefix: str, engines: int) -> dict[str, Any]:
    """The row's accepted orders against SALES once the variant is quiet (`loadclient reliability audit`)."""
    log = d / "audit.log"
    rc = loadclient.run(ctx, "reliability", "audit", "--url", url, "--db-url", db.jdbc(DATABASE), "--prefix", prefix,
                        "--engines", engines, "--orders", d / "orders.tsv", "--quiet-timeout", 60,
                        "--json", d / "audit.json", log=log, timeout=180)
    try:
        figures = json.loads((d / "audit.json").read_text())
    except (OSError, ValueError):
        figures = {}
    failures = [x for x in log.read_text(errors="replace").splitlines() if x.startswith("FAIL")][:10]
    return {"ok": rc == 0, "exitCode": rc, "failures": failures, "figures": figures}


def measure_row(ctx: Context, db: dbmod.Database, paths: toxiproxy.Paths, v: Variant, row: Row, exp: Experiment,
                d: Path) -> RowResult:
    d.mkdir(parents=True, exist_ok=True)
    db.sql("DELETE FROM SALES", DATABASE)
    for name in (READS, WRITES):
        paths.set(name, None)
    env = {**db.variant_env(DATABASE), "DB_HOST": "127.0.0.1", "DB_PORT": str(paths.ports[WRITES]),
           "READ_DB_HOST": "127.0.0.1", "READ_DB_PORT": str(paths.ports[READS]), **row.settings}
    prefix = f"i{random.randint(0, 32767)}-"
    try:
        r = process.start_variant(ctx, v, env, d / "variant.log")
    except process.NotHealthy as e:
        return RowResult(row.label, v.name, row.settings, row.why, None, {}, None, [], {"ok": False}, None, str(e))
    sampler = process.Sampler(1.0)
    sampler.add("variant", r.pid)
    sampler.start()
    load_json: dict[str, Any] | None = None
    changes: list[dict[str, Any]] = []
    conns = None
    try:
        paths.set(READS, exp.phases[0].reads)
        window_at = int((time.time() + LAUNCH_S + exp.load.warmup_s) * 1000)
        bg = loadclient.start(ctx, "load", *load_args(exp, r.url, window_at, d, prefix), log=d / "load.log")
        try:
            changes = drive(paths, exp, window_at, bg)
            conns = process.connections_to([r.pid], [paths.ports[WRITES], paths.ports[READS]])
            rc = bg.popen.wait(timeout=exp.window_s() + exp.load.view_timeout_ms / 1000 + 60)
        finally:
            bg.stop(5)
        for name in (READS, WRITES):
            paths.set(name, None)
        try:
            load_json = json.loads((d / "load.json").read_text())
        except (OSError, ValueError):
            load_json = None
        if load_json is None:
            raise IsolationError(f"the load client wrote no figures (exit {rc}; log: {d / 'load.log'})")
        checked = audit(ctx, db, r.url, d, prefix, int(row.settings.get("ENGINES", 4)))
    except IsolationError as e:
        samples = sampler.stop().get("variant", [])
        r.stop(10)
        return RowResult(row.label, v.name, row.settings, row.why, load_json, {}, conns, changes, {"ok": False},
                         None, str(e))
    finally:
        for name in (READS, WRITES):
            paths.set(name, None)
    samples = sampler.stop().get("variant", [])
    code = r.stop(15)
    return RowResult(row.label, v.name, row.settings, row.why, load_json, costs_of(samples, exp, changes[0]["plannedMs"]
                     if changes else 0), conns, changes, checked, str(code))


def run(ctx: Context, exp: Experiment, folder: Path) -> list[RowResult]:
    """Every row of EXP in order, on one database and one pair of paths; each row's files in FOLDER/<label>/."""
    db = dbmod.open_db(ctx, DATABASE)
    dbmod.apply_schema(ctx, DATABASE) if db.private else None
    variants = {v.name: v for v in by_name(ctx.root, sorted({r.variant for r in exp.rows}))}
    for v in variants.values():
        for row in exp.rows:
            if row.variant == v.name:
                v.for_settings(row.settings).ensure_built(ctx, log=open(folder / "build.log", "ab"))
    out = []
    with toxiproxy.Paths(ctx, db.host, db.port, (WRITES, READS), folder / "toxiproxy.log") as paths:
        for i, row in enumerate(exp.rows):
            say(f"row {i + 1} of {len(exp.rows)}: {row.label} ({row.why})")
            res = measure_row(ctx, db, paths, variants[row.variant], row, exp, folder / row.label)
            say(f"{row.label}: " + (res.error or f"audit {'passed' if res.audit.get('ok') else 'FAILED'}"))
            out.append(res)
    return out
