"""A measuring command from its units to its results folder, the same for bench, compare, sweep and map:

  build what runs -> the environment -> the time it will take, said up front -> the round trip of every
  database setting of the windows (its added latency, and a window's own cores or syncing; a run through the
  link) -> the calibration (bench, compare and calibrate: this machine's ceilings) ->
  every unit in turn on the one measurement path (instance.measure_unit) -> results/<run-id>/ written by
  the writer the command hands down (cli/measure.py results_writer: report.results.write_all), so that
  measuring knows nothing of how a run is drawn.
"""
from __future__ import annotations

import json
import os
import sys
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol, cast

from .. import record
from ..analysis import bounds
from ..record import Adaptive, Results, Run
from ..run import db as dbmod
from ..run import environment, layout, loadclient, slowdb, toxiproxy
from ..run.context import Context
from ..run.variants import ManifestError
from . import calibrate
from .instance import measure_unit
from .plan import PROBE_SECONDS, Calibration, Timing, Unit, builds_of, databases, db_key, db_slug, db_text, estimate_seconds


class More(Protocol):
    """A plan that grows as it measures (measure/adaptive.py): more units once every unit so far is measured."""

    def more(self, runs: list[Run]) -> list[Unit]:
        """The units to measure next from the windows measured so far, RUNS ([]: done)."""

    def section(self) -> Adaptive | None:
        """What the results document says of how the plan chose its units (None: nothing)."""


#: a command's results writer: the folder and its document; returns the document as written, its derived parts
#: computed (cli/measure.py results_writer)
Write = Callable[[Path, Results], Results]


@dataclass(frozen=True)
class Measured:
    """What the measurement of a run returns (`_measure`): the parts of its results document."""
    rtts: dict[str, Any]
    calibration: record.Calibration
    runs: list[Run]
    finished_at: str
    elapsed_s: float


def say(msg: str) -> None:
    print(f"tradebench: {msg}", file=sys.stderr, flush=True)


def human(seconds: float) -> str:
    m, s = divmod(int(seconds), 60)
    return f"{m} min {s:02d} s" if m else f"{s} s"


def probe_rtts(ctx: Context, db: dbmod.Database, scratch_db: str, settings: list[tuple[Any, ...]], out: Path) -> dict[str, Any]:
    """Per database setting (added latency, a window's own cores, its commits synced or not: plan.databases):
    the round trip of one INSERT through the link (ms), single rows on one connection, the database set as the
    windows will have it (a synced commit's round trip holds its fsync); keyed by plan.db_key."""
    out.mkdir(parents=True, exist_ok=True)
    rtts: dict[str, float | None] = {}
    link = toxiproxy.SlowLink(ctx, db.host, db.port, 0, out / "toxiproxy.log").start()
    try:
        for lat, cpu, durable in sorted(set(settings), key=lambda s: (s[0], -(s[1] or 0), bool(s[2]))):
            say(f"round trip at {db_text(lat, cpu, durable)}")
            name = f"rtt-{db_slug(lat, cpu, durable)}"
            link.set_latency(lat)
            js = out / f"{name}.json"
            with slowdb.for_window(db, cpu, durable):
                rc = loadclient.run(ctx, "insert-ceiling", "--db-url", db.jdbc(scratch_db, "127.0.0.1", link.port),
                                    "--connections", 1, "--batch-rows", 1, "--duration", PROBE_SECONDS, "--warmup", 1,
                                    "--json", js, log=out / f"{name}.log", timeout=120)
            rows = json.loads(js.read_text()).get("rowsPerSecond") if rc == 0 and js.exists() else None
            rtt = bounds.rtt_ms(rows) if rows else None
            rtts[db_key(lat, cpu, durable)] = round(rtt, 3) if rtt is not None else None
    finally:
        link.stop()
    return rtts


def shown(rec: dict[str, Any]) -> str:
    """One line of what a window measured, for the log."""
    if rec.get("error"):
        return f"failed: {rec['error'][:200]}"
    f = rec.get("boundFraction")
    rtt = f" ({rec['rttMs']} ms)" if rec.get("rttMs") is not None else ""
    load = f"{rec['rate']}/s" if rec.get("rate") else f"{rec.get('concurrency')} clients"
    # a database held or synced is said; a free one, as every run's was before, is not
    where = db_text(rec["dbLatencyMs"], rec.get("dbCpuCores") or None, rec.get("dbDurable") or None)
    return (f"{where}{rtt}, {load}: sales/min {_n(rec.get('salesPerMinute'))}"
            + (f" = {f:.2f} of its bound" if f is not None else "")
            + f", orders/s {_n(rec.get('ordersPerSecond'))}, p99 {_n(rec.get('p99Ms'), '.1f')} ms")


def _n(v: object, spec: str = ",.0f") -> str:
    return "–" if v is None else format(v, spec)


def floors_of(variants: list[Any]) -> dict[str, Any]:
    """Each floor once, by its name, run by the first build naming it (Tomcat: java-threads' and java-akka's
    are one)."""
    out = {}
    for v in variants:
        if v.floor and v.floor["name"] not in out:
            out[v.floor["name"]] = v
    return out


def execute(ctx: Context, command: str, units: list[Unit], t: Timing, options: dict[str, Any], *, cells: dict[str, Any] | None = None,
            calibration: Calibration | None = None, experiment: dict[str, Any] | None = None,
            out_dir: Path | None = None, db_cpu: float | None = None, db_durable: bool = False,
            more: More | None = None, write: Write) -> tuple[Path, Results]:
    """Measures every unit in order; has WRITE write results/<run-id>/ and returns (folder, results document).

    CELLS: a sweep's or a map's grid ({"kind", "latencies", "loads"}), drawn by report.answer; None: the
    generic table of cases and variants. CALIBRATION: measure this machine's ceilings after the round trips,
    before the windows (None: not).
    DB_CPU, DB_DURABLE: the database made busy (its server held to that many cores) or durable (every commit
    synced) for the whole run, calibration included (run.slowdb). MORE: asked for more units whenever every
    unit so far is measured (measure/adaptive.py). WRITE: the results folder from the document (its summary,
    report and charts: the command's writer)."""
    if not units:
        raise ManifestError("nothing to run: no variant matches the cases")
    run_id = record.new_run_id(command)
    folder = out_dir or ctx.results / run_id
    folder.mkdir(parents=True, exist_ok=True)
    db = dbmod.open_db(ctx, ctx.env.get("DB_NAME") or "TRADER")
    variants = builds_of(units)
    for v in variants:
        say(f"building {v.name} when needed")
        v.ensure_built(ctx, log=open(folder / "build.log", "ab"))

    settings = databases(units)
    runtimes = {v.runtime for v in variants}
    floors: dict[str, Callable[..., list[str] | None]] = {name: (lambda port, v=v: v.floor_command(ctx, port)) for name, v in floors_of(variants).items()}
    conns = {u.series.variant.db_connection_count(u.series.run_settings(ctx.env)) * u.series.nodes for u in units}
    modes = {u.series.persist for u in units}
    est = estimate_seconds(units, t, ctx.env, calibration)
    windows = sum(len(u.windows) for u in units)
    say(f"{command}: {len(units)} process(es), {windows} window(s) of {t.window} s"
        f"{' + calibration' if calibration else ''}: about {human(est)}; results in {folder}")
    started_at = time.strftime("%Y-%m-%dT%H:%M:%S%z")
    collected = environment.collect(ctx, db)
    lay = ctx.laid_out
    say(f"CPU layout: {layout.describe(lay.record())}")
    with slowdb.slowed(db, db_cpu, db_durable), placed(db, ctx.layout):
        env = cast(record.Environment, {
            **collected, "layout": lay.record(), "databaseCpuCores": db_cpu,
            "databaseDurable": db.scalar("SELECT @@GLOBAL.innodb_flush_log_at_trx_commit") == "1"})
        m = _measure(ctx, db, env, units, t, calibration, settings, runtimes, conns, floors, modes, folder, more)
    grid: record.Cells | None = None
    if cells is not None:
        grid = cast(record.Cells, {**cells, "series": list(dict.fromkeys(u.series.name for u in units)),
                                   "estimateS": est, "rttMs": dict(m.rtts)})
    doc = record.new_results(run_id=run_id, command=command, started_at=started_at, finished_at=m.finished_at,
                             elapsed_s=m.elapsed_s, environment=env, options=options,
                             experiment=cast(record.Experiment | None, experiment), calibration=m.calibration,
                             runs=m.runs,
                             cells=grid, adaptive=more.section() if more else None)
    written = write(folder, doc)
    print((folder / "summary.md").read_text(), flush=True)
    say(f"results in {folder} (summary.md, report.html, results.json, raw.json.gz, runs.csv)")
    return folder, written


@contextmanager
def placed(db: dbmod.Database, lay: layout.Layout | None) -> Iterator[None]:
    """The database server and this harness on their CPUs for the run (the harness beside the load client, whose
    side of the measurement it is); both on every CPU again after, on success, failure or interrupt (a database
    started by `db start` outlives the run)."""
    mine = os.sched_getaffinity(0)
    pid = db.pid() if lay is not None and lay.database else None
    before = layout.allowed(pid) if pid else None
    try:
        if lay is not None:
            if pid and before and lay.database:
                layout.pin_running(pid, lay.database)
            if lay.load:
                os.sched_setaffinity(0, lay.load)    # this thread; the threads it starts from now on inherit it
        yield
    finally:
        if lay is not None:
            os.sched_setaffinity(0, mine)
            if pid and before:
                layout.pin_running(pid, layout.parse_cpus(before))


def _measure(ctx: Context, db: dbmod.Database, env: record.Environment, units: list[Unit], t: Timing,
             calibration: Calibration | None, settings: list[tuple[Any, ...]], runtimes: set[str], conns: set[int],
             floors: dict[str, Callable[..., list[str] | None]], modes: set[str], folder: Path,
             more: More | None = None) -> Measured:
    t0 = time.monotonic()
    scratch = "TRADER_CALIBRATION" if db.private else db.name
    probed = t.link or any(lat for lat, _, _ in settings)
    if db.private and (calibration or probed):
        dbmod.create(ctx, scratch)
    rtts: dict[str, Any] = {}
    if probed:
        rtts = probe_rtts(ctx, db, scratch, settings, folder / "round-trips")
        say("round trips: " + ", ".join(f"{db_text(*s)}: {rtts.get(db_key(*s))} ms" for s in settings))
    ceilings: record.Calibration = {}
    if calibration:
        # after the probes: a ceiling deletes the hundreds of thousands of rows it inserted, which the database
        # purges in the background for a while after, and the probes measure one INSERT on a quiet database. A
        # ceiling is measured at saturation: the runs' connection count, no pause
        ceilings = cast(record.Calibration, calibrate.calibrate(
            ctx, folder / "calibration", db, scratch, runtimes, conns, units[0].windows[0][1].concurrency, 0,
            calibration.duration, calibration.warmup, calibration.warmup_max, on_step=say, floors=floors,
            persist_modes=modes))
    runs: list[dict[str, Any]] = []

    units = list(units)
    i = 0
    units_t0, done_estimate = time.monotonic(), 0.0
    while i < len(units):
        i += 1
        u = units[i - 1]
        name = f"[{i}/{len(units)}] {u.series.name}"
        reps = sorted({rep for rep, _ in u.windows})
        out = folder / "runs" / (f"{i:02d}-{u.series.slug}" + (f"-r{reps[0]}" if len(u.windows) == 1 else ""))

        def measured(rec: dict[str, Any], name: str = name) -> None:
            say(f"{name} #{rec['repeat']}: {shown(rec)}")

        def said(m: str, name: str = name) -> None:
            say(f"{name}: {m}")

        # a window without a database of its own had the run's (results-format.md: dbCpuCores, dbDurable); the
        # unit it is measured in is its process (analysis/intervals.py)
        of_run = {"dbCpuCores": env.get("databaseCpuCores"), "dbDurable": env.get("databaseDurable"), "process": i}
        runs += measure_unit(ctx, db, u, u.timing or t, rtts, out, folder, of_run=of_run,
                             ceilings=cast(dict[str, Any], ceilings), say=said, measured=measured)
        if i == len(units) and more:
            units += more.more(cast(list[Run], runs))
        elapsed = time.monotonic() - t0
        # what is left at this run's own pace against the plan: the units' estimates, scaled by how long the
        # units so far took against theirs (the calibration and the builds before them are not a unit's pace)
        done_estimate += estimate_seconds([u], u.timing or t, ctx.env)
        pace = (time.monotonic() - units_t0) / done_estimate if done_estimate else 1.0
        left = pace * sum(estimate_seconds([x], x.timing or t, ctx.env) for x in units[i:])
        say(f"{i}/{len(units)} in {human(elapsed)}; about {human(left)} left")
    return Measured(rtts=rtts, calibration=ceilings, runs=cast(list[Run], runs), finished_at=time.strftime("%Y-%m-%dT%H:%M:%S%z"),
                    elapsed_s=round(time.monotonic() - t0, 1))
