"""The one measurement path: a unit (plan.Unit) is one process of a variant row, measured in windows.

  Toxiproxy in front of the database (when the link is wanted) -> the variant built and started behind it
  -> healthy -> `loadclient verify` (no added latency) -> restarted (verify leaves orders in the market that
  would trade with the load) -> JIT warm-up at the heaviest window's load (a JVM; the heaviest open-loop one
  where the unit has any) -> for each window: what
  the load before left in the variant's inboxes stored (no load, no added latency, the database as the run
  has it, until SALES stops growing), the window's own database set (its cores, its commits synced or not:
  run/slowdb.py), the link's latency set, SALES emptied, a fresh `loadclient load` (warm-up or settle, then
  the measured window) while the variant, the database, the link and the load client are sampled every
  second, the database put back -> one run record per window.

Whatever it started is stopped, and a window's database put back, on success, failure, Ctrl-C or SIGTERM.
Sales are counted per window from SALES rows created in the window, not from the process.
"""
from __future__ import annotations

import dataclasses
import json
import os
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from ..analysis import bounds, crowded
from ..run import layout, loadclient, members, process, slowdb, speed, toxiproxy
from ..run.context import Context
from ..run.db import Database, DbError
from ..run.variants import ManifestError
from . import figures, jit_warmup, memory
from .plan import Series, Timing, Unit, Window
from .profile import Profiling

STEADY_WINDOW_S = 5
STEADY_TOLERANCE = 0.05
#: the most seconds a window waits for the backlog of the load before it to be stored (drain)
DRAIN_MAX_S = 60
#: the drain ends when SALES has not grown for this long: a backlog next door stores thousands of rows a second,
#: and with none the drain costs the window this much (a second of each of a calibration's 35 windows before)
DRAIN_QUIET_S = 0.5


class RunFailed(Exception):
    pass


class _One:
    """A single variant process with the Members interface (url, urls, pids, alive, stop)."""

    def __init__(self, r: process.Running) -> None:
        self.r = r
        self.url = self.urls = r.url
        self.pids = [r.pid]

    def alive(self) -> bool:
        return self.r.alive()

    def stop(self, timeout: float = 15.0) -> int | str:
        return self.r.stop(timeout)


def start_variant(ctx: Context, s: Series, env: dict[str, Any], out: Path, port: int, append: bool = False,
                  db: Database | None = None) -> Started:
    """The variant alone on PORT, or S.nodes cluster members (the load client spreads its connections over them).
    Members start with no handed-over orders: a cluster stopped before leaves its open orders in ENGINE_HANDOVER."""
    v = s.variant
    if s.nodes <= 1:
        return _One(process.start_variant(ctx, v, env, out / "variant.log", port=port, append=append))
    if v.cluster is None:
        raise RunFailed(f"--nodes {s.nodes}: {v.name} has no cluster mode (no cluster key in its variant.yaml)")
    if db is not None:
        try:
            db.sql("DELETE FROM ENGINE_HANDOVER")
        except DbError:
            pass   # a database made before the table: the members create it
    logs = [out / f"variant-{i}.log" for i in range(s.nodes)]
    return members.start(ctx, v, env, logs, append=append)


#: a started variant: alone, or as cluster members
Started = _One | members.Members


class Instance:
    """One started variant row: its process(es), behind a Toxiproxy link when LINK; a context manager that
    stops everything it started."""

    def __init__(self, ctx: Context, db: Database, series: Series, out: Path, link: bool, profiling: Profiling | None = None) -> None:
        self.ctx, self.db, self.series, self.out, self.want_link = ctx, db, series, out, link
        self.profiling = profiling
        self.windows = 0
        self.settings = series.run_settings(ctx.env)
        self.link: toxiproxy.SlowLink | None = None
        self.variant: Started | None = None
        self.port = process.free_port()

    def __enter__(self) -> Instance:
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop()

    @property
    def stop_timeout(self) -> float:
        return 60 if self.series.nodes > 1 else 15

    def env(self) -> dict[str, Any]:
        env = {**self.db.variant_env(), **self.settings, **(self.profiling.env() if self.profiling else {})}
        if self.link:
            env.update(DB_HOST="127.0.0.1", DB_PORT=str(self.link.port))
        return env

    @property
    def running(self) -> Started:
        """The started variant (RunFailed before it is)."""
        if self.variant is None:
            raise RunFailed(f"{self.series.variant.name} is not started")
        return self.variant

    def start(self) -> None:
        self.out.mkdir(parents=True, exist_ok=True)
        if self.want_link:
            self.link = toxiproxy.SlowLink(self.ctx, self.db.host, self.db.port, 0, self.out / "toxiproxy.log").start()
        self.variant = start_variant(self.ctx, self.series, self.env(), self.out, self.port, db=self.db)

    def verify(self) -> None:
        """`loadclient verify` with no added latency; then a restart, so the load meets an empty market."""
        if self.link:
            self.link.set_latency(0)
        rc = loadclient.run(self.ctx, "verify", "--url", self.running.url, "--db-url", self.db.jdbc(),
                            log=self.out / "verify.log")
        if rc != 0:
            raise RunFailed(f"{self.series.variant.name} failed loadclient verify: not measured "
                            f"(log: {self.out / 'verify.log'})")
        self.running.stop(self.stop_timeout)
        self.variant = start_variant(self.ctx, self.series, self.env(), self.out, self.port, append=True, db=self.db)

    def warm_jit(self, w: Window, max_s: int, say: Callable[[str], None]) -> dict[str, Any] | None:
        """The load at W until a JVM's JIT compiler is quiet, another runtime's CPU steady (what it compiles at the
        heaviest load serves the lighter ones); None with no warm-up asked for (MAX_S 0)."""
        if not max_s:
            return None
        if self.link:
            self.link.set_latency(0)
        done = jit_warmup.warm(self.ctx, self.running, w.concurrency, w.wait_ms, w.rate, max_s,
                               self.out / "jit-warmup.log", say=say)
        if not self.running.alive():
            raise RunFailed(f"{self.series.variant.name} died during the JIT warm-up (log: {self.out / 'variant.log'})")
        return done

    def drain(self, most_s: float = DRAIN_MAX_S, quiet_s: float = DRAIN_QUIET_S) -> float:
        """With no load and no added latency, lets the variant store what the load before left in its inboxes,
        until SALES stops growing for QUIET_S (at most MOST_S); the seconds it took."""
        return drain(self.db, self.link, most_s, quiet_s)

    def await_load(self, lc: process.Running, most_s: float, out: Path) -> dict[str, Any]:
        """Until the load client LC ends; RunFailed when the variant dies first or LC runs past MOST_S. Returns
        each party's CPUs read back from /proc while the load ran (cpus_allowed)."""
        deadline = time.monotonic() + most_s
        allowed: dict[str, Any] = {}
        while lc.popen.poll() is None:
            time.sleep(0.5)
            if not allowed:      # read back from the kernel while every party runs (the load client is started)
                allowed = self.cpus_allowed(lc.pid)
            if not self.running.alive():
                lc.stop(5)
                raise RunFailed(f"the variant died during the load (log: {self.out / 'variant.log'})")
            if time.monotonic() > deadline:
                lc.stop(5)
                raise RunFailed(f"the load client did not finish (log: {out / 'load.log'})")
        return allowed

    def measure(self, w: Window, t: Timing, warmup: str, out: Path) -> dict[str, Any]:
        """One window at W: the link's latency set, SALES emptied, a fresh load client (WARMUP, then the
        window) while every process group is sampled; the window's figures."""
        out.mkdir(parents=True, exist_ok=True)
        if self.link:
            self.link.set_latency(w.latency_ms)
        elif w.latency_ms:
            raise ValueError("a window with added latency needs the link")
        # A window's sales only. The JIT warm-up stored a minute of sales (a million rows and more at
        # saturation): a table that large no longer fits the buffer pool and doubled the database's CPU per sale
        # (40.6 against 18 µs, java-threads batch). TRUNCATE waits for the inserts under way; the variants'
        # prepared statements are prepared again by the server.
        try:
            self.db.sql("TRUNCATE TABLE SALES")
        except DbError:
            self.db.sql("DELETE FROM SALES")     # a user without the DROP privilege TRUNCATE needs
        probe = speed.probe_ms()         # the machine's speed this minute (run/speed.py), before the load
        load_json, hgrm = out / "load.json", out / "latency.hgrm"
        sampler = process.Sampler(1.0)
        sampler.add_machine()
        sampler.add("variant", *self.running.pids)
        sampler.add("database", self.db.pid())
        if self.link:
            sampler.add("link", self.link.pid)
        self.windows += 1
        if self.profiling:       # before the load: the window is cut from what it records by timestamps
            self.profiling.start_window(self.windows, self.running.pids, out)
        lc = loadclient.start(self.ctx, "load", *load_args(w, t, warmup, self.running.urls, self.db.jdbc(), load_json,
                                                             hgrm), log=out / "load.log")
        sampler.add("loadclient", lc.pid)
        sampler.start()
        allowed: dict[str, Any] = {}
        try:
            allowed = self.await_load(lc, (t.warmup_max if warmup == "auto" else int(warmup)) + t.window + 90, out)
        finally:
            if self.profiling:
                self.profiling.stop_window()
            samples = sampler.stop()
            if lc.alive():                 # interrupted (Ctrl-C, SIGTERM) while the load ran
                lc.stop(5)
        # the connections the variant keeps open to its database (its pools stay open after the load)
        open_conns = process.connections_to(self.running.pids, [self.link.port if self.link else self.db.port])
        # its live heap after a collection, after the load (measure/memory.py)
        mem = memory.after_window(self.ctx, self.series.variant.runtime, self.running.pids,
                                  sorted(self.out.glob("variant*.log"))) if t.live_heap else None
        rc = lc.popen.returncode
        if not load_json.exists():
            raise RunFailed(f"the load client wrote no result (exit {rc}; log: {out / 'load.log'})")
        rec = figures.run_figures(json.loads(load_json.read_text()), samples, hgrm if hgrm.exists() else None, warmup)
        rec["samples"] = samples
        rec["cpuProbeMs"] = probe
        rec["cpusAllowed"] = allowed or self.cpus_allowed(None)
        rec["dbConnectionsOpen"] = open_conns
        rec["memory"] = mem
        rec["pids"] = {"variant": self.running.pids[0], "loadclient": lc.pid}
        if rc != 0:
            rec["error"] = f"the load client exited {rc} (error rate above --max-error-rate?; log: {out / 'load.log'})"
        return rec

    def cpus_allowed(self, loadclient_pid: int | None) -> dict[str, Any]:
        """Each party's Cpus_allowed_list as /proc has it, over every thread of its process tree (one entry where
        all agree): what the layout asked for, read back."""
        pids: dict[str, list[int | None]] = {"variant": [*self.running.pids], "database": [self.db.pid()],
                "link": [self.link.pid] if self.link else [], "loadclient": [loadclient_pid] if loadclient_pid else []}
        return {party: layout.allowed_of_tree([p for p in ps if p]) for party, ps in pids.items() if any(ps)}

    def alive(self) -> bool:
        return self.variant is not None and self.variant.alive()

    def stop(self) -> None:
        try:
            if self.variant:
                self.variant.stop(self.stop_timeout)
                self.variant = None
        finally:
            if self.link:
                self.link.stop()
                self.link = None


def drain(db: Database, link: toxiproxy.SlowLink | None, most_s: float = DRAIN_MAX_S,
          quiet_s: float = DRAIN_QUIET_S) -> float:
    """A load heavier than a design's bound fills its inboxes; without this the next window would hold that
    backlog beside its own load's sales, and a design that keeps up with a light load would seem to store more
    than it offers. Returns the seconds it took."""
    started = time.monotonic()
    if link:
        link.set_latency(0)
    last = None
    while time.monotonic() - started < most_s:
        stored = int(db.scalar("SELECT COUNT(*) FROM SALES"))
        if stored == last:
            break
        last = stored
        time.sleep(quiet_s)
    return round(time.monotonic() - started, 1)


def load_args(w: Window, t: Timing, warmup: str, url: str, jdbc: str, json_path: Path, hgrm: Path) -> list[Any]:
    """The load client's flags for one window (loadclient/README.md)."""
    args = ["--url", url, "--concurrency", w.concurrency, "--duration", t.window, "--db-url", jdbc,
            "--json", json_path, "--histogram", hgrm]
    args += ["--rate", w.rate] if w.rate else ["--wait", w.wait_ms]
    if warmup == "auto":
        args += ["--warmup", "auto", "--steady-window", STEADY_WINDOW_S, "--steady-tolerance", STEADY_TOLERANCE,
                 "--warmup-max", t.warmup_max]
    else:
        args += ["--warmup", warmup]
    if t.max_error_rate is not None:
        args += ["--max-error-rate", t.max_error_rate]
    return args


def jit_window(windows: list[Window]) -> Window:
    """The load the JIT is warmed at: the heaviest window's, among the open-loop ones where the unit has any. A
    closed loop with no pause beside open-loop windows (calibrate's last) saturates the CPUs, and a JIT compiling
    beside it was still busy at the end of a 20 s warm-up (30 % of a core, 2026-11-27), its work then counted in
    the first light window; at the heaviest open-loop rate it finishes sooner and leaves no backlog to drain."""
    open_loop = [w for w in windows if w.rate is not None]
    return max(open_loop or windows, key=lambda w: (w.rate is None, w.rate or 0, w.concurrency))


def measure_unit(ctx: Context, db: Database, unit: Unit, t: Timing, rtts: dict[str, Any], out: Path, folder: Path,
                 *, of_run: dict[str, Any] | None = None, ceilings: dict[str, Any] | None = None,
                 say: Callable[[str], None] = lambda m: None,
                 measured: Callable[[dict[str, Any]], None] = lambda r: None) -> list[dict[str, Any]]:
    """Every window of UNIT on one process; a run record per window (an error record for each window that
    could not be measured), each whole when it is returned: OF_RUN's keys where the window has none of its own
    (the run's database, the unit's process number), its figures against this machine's CEILINGS (a
    calibration; None or {}: none). MEASURED is told of each window once its record is made."""
    of_run = of_run or {}
    s = unit.series
    out.mkdir(parents=True, exist_ok=True)
    # the unit's own layout (the cores axis puts the variant on S.cores CPUs), the database moved onto it
    lay = ctx.layout.with_variant_cpus(s.cores) if ctx.layout is not None and s.cores else ctx.layout
    ctx = dataclasses.replace(ctx, layout=lay)
    db_pid = db.pid()
    if lay is not None and lay.database and db_pid:
        layout.pin_running(db_pid, lay.database)
    settings = s.run_settings(ctx.env)
    v = s.variant.for_settings(settings)   # the build its settings pick (STACK=pekko: the Pekko jar, floor and members)
    flight = s.in_flight(ctx.env)
    base = {"variant": v.name, "runtime": v.runtime, "case": s.case, "row": v.row_of(settings), "series": s.name,
            "engines": s.engines, "persist": s.persist, "settings": settings,
            "dbConnections": v.db_connection_count(settings) * s.nodes, "nodes": s.nodes,
            "floor": v.floor["name"] if v.floor else None, "inFlight": flight,
            "layout": ctx.laid_out.record(),
            "variantCpus": len(lay.variant) if lay is not None and lay.variant else len(layout.available())}
    records: list[dict[str, Any]] = []
    profiling = Profiling(ctx, v.runtime, out, s.slug, say) if t.profile else None

    try:
        # built before the run's first unit (execute.py, plan.builds_of): a unit measures, it does not build
        with Instance(ctx, db, s, out, t.link or any(w.latency_ms for _, w in unit.windows), profiling) as inst:
            say("starting")
            inst.start()
            if t.verify:
                say("loadclient verify, then a restart (an empty market)")
                inst.verify()
            jit = inst.warm_jit(jit_window([w for _, w in unit.windows]), t.jit_warmup_max, say)
            if jit is not None:
                base["jitWarmup"] = jit
            for i, (rep, w) in enumerate(unit.windows, 1):
                if not inst.alive():
                    raise RunFailed(f"{v.name} died (log: {out / 'variant.log'})")
                say(f"{w.db_text}, {w.load_text} (window {i}/{len(unit.windows)}, repeat {rep})")
                rec = _window_record(base, rtts, rep, w)
                rec["startedAt"] = time.strftime("%Y-%m-%dT%H:%M:%S%z")
                wout = out / (f"r{rep}-{i:02d}-{w.db_slug}" if len(unit.windows) > 1 else "window")
                _measure_window(inst, db, t, w, t.warmup if i == 1 else str(t.settle), rec, wout, folder, flight)
                rec = _whole(rec, of_run, ceilings)
                records.append(rec)
                measured(rec)
        if profiling:     # after the variant stopped: a Node process writes its profile when it exits
            profiling.finish(records, folder)
    except (RunFailed, process.NotHealthy, toxiproxy.ToxiproxyError, DbError, ManifestError, OSError, ValueError) as e:
        for rep, w in unit.windows[len(records):]:
            rec = _whole({**_window_record(base, rtts, rep, w), "error": str(e), "cpu": {}}, of_run, None)
            records.append(rec)
            measured(rec)
    return records


def _whole(rec: dict[str, Any], of_run: dict[str, Any], ceilings: dict[str, Any] | None) -> dict[str, Any]:
    """A window's record made whole: OF_RUN's keys it has none of, then its figures against CEILINGS."""
    rec = {**rec, **{k: v for k, v in of_run.items() if k not in rec}}
    return {**rec, **figures.fractions(rec, ceilings)} if ceilings and not rec.get("error") else rec


def _window_record(base: dict[str, Any], rtts: dict[str, Any], rep: int, w: Window) -> dict[str, Any]:
    """Window W's record of repeat REP: the unit's BASE, the window's settings, its round trip from RTTS."""
    rec = {**base, "repeat": rep, "dbLatencyMs": w.latency_ms, "rate": w.rate, "concurrency": w.concurrency,
           "waitMs": None if w.rate else w.wait_ms, "rttMs": rtts.get(w.db_key)}
    # the window's own database; a window without one has the run's (measure_unit's OF_RUN)
    if w.db_cpu is not None:
        rec["dbCpuCores"] = w.db_cpu
    if w.db_durable is not None:
        rec["dbDurable"] = w.db_durable
    return rec


def _measure_window(inst: Instance, db: Database, t: Timing, w: Window, warmup: str, rec: dict[str, Any], wout: Path,
                    folder: Path, flight: int | None) -> None:
    """Window W measured into its record REC: the backlog drained first, then the window on its own database;
    its bound beside it. A window others crowded (analysis/crowded.py) is measured again, T.remeasure times at
    most, the crowded measurements' machine figures and logs kept in `crowdedAttempts`; the last one is the
    window's, crowded or not (the model then leaves it out, and says so)."""
    t0 = time.monotonic()
    head, first_out = dict(rec), wout
    attempts: list[dict[str, Any]] = []
    for attempt in range(1 + t.remeasure):
        if attempt:     # the crowded measurement put aside, its logs kept beside the next one's
            attempts.append({"machineCpu": rec.get("machineCpu"), "salesPerMinute": rec.get("salesPerMinute"),
                             "logs": rec["logs"]})
            rec.clear()
            rec.update(head)
            wout = first_out.with_name(f"{first_out.name}-again{attempt}")
        rec["drainSeconds"] = inst.drain()
        try:
            # set after the drain (the backlog stored by the database as the run has it), put back before
            # the next window's drain, and on a failure or an interrupt
            with slowdb.for_window(db, w.db_cpu, w.db_durable):
                rec.update(inst.measure(w, t, warmup, wout))
        except RunFailed as e:
            rec["error"] = str(e)
        rec["logs"] = os.path.relpath(wout, folder)
        if rec.get("error") or not crowded.crowded(rec):
            break
    if attempts:
        rec["crowdedAttempts"] = attempts
    rec["boundSalesPerMinute"] = bounds.sales_per_minute(flight, rec["rttMs"])
    rec["boundFraction"] = bounds.fraction(rec.get("salesPerMinute"), rec["boundSalesPerMinute"])
    rec["seconds"] = round(time.monotonic() - t0, 1)
