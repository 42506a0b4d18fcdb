"""One measured run of one variant (bench, compare, sweep are made of these).

empty SALES -> (slow link) -> variant built and started -> healthy (90 s) ->
`loadclient verify` -> restarted (an empty market) -> `loadclient load`
(warm-up to steady state, or fixed; then the measured window) while the
variant's process tree, the load client and the database are sampled every
second -> one run record. Whatever it started is stopped, on success, failure
or Ctrl-C.
"""
from __future__ import annotations

import json
import os
import time
from dataclasses import asdict, dataclass, field
from pathlib import Path

from . import figures, jit_warmup, loadclient, process, toxiproxy
from .context import Context
from .db import DbError
from .variants import Variant



STEADY_WINDOW_S = 5
STEADY_TOLERANCE = 0.05
DRIFT_FLAG = 0.10


@dataclass
class Case:
    """The settings of one row of the table (a variant is run with them)."""
    label: str = ""
    engines: int = 4
    wait_ms: int = 0
    concurrency: int = 64
    persist: str = "per-sale"
    db_latency_ms: int = 0
    rate: int | None = None
    settings: dict = field(default_factory=dict)     # extra variant settings (THREADS=virtual, ...)
    nodes: int = 1                                   # cluster members on loopback (java-spray-async's cluster mode)
    variants: list[str] | None = None                # None: every variant of the run


@dataclass
class Timing:
    duration: int = 30
    warmup: str = "auto"         # "auto" or seconds
    warmup_max: int = 120
    verify: bool = True
    max_error_rate: float | None = None   # None: the load client's default (1 %)
    jit_warmup_max: int = 90     # a JVM variant's load until its JIT is quiet, at most this long (0: none; jit_warmup.py)


class RunFailed(Exception):
    pass


def variant_settings(v: Variant, case: Case, env: dict) -> dict:
    """The environment the variant gets: the case's settings over the caller's environment, for every
    setting its manifest declares; every one of them recorded, as the variant will see it."""
    given = {k: env[k] for k in v.settings if env.get(k) not in (None, "")}
    given.update({k: str(x) for k, x in case.settings.items()})
    given["ENGINES"] = str(case.engines)
    given["PERSIST"] = case.persist
    return {k: str(x) for k, x in v.effective_settings(given).items()}


def load_args(ctx: Context, case: Case, timing: Timing, url: str, jdbc: str, json_path: Path, hgrm: Path) -> list:
    args = ["--url", url, "--concurrency", case.concurrency, "--duration", timing.duration, "--db-url", jdbc,
            "--json", json_path]
    if case.rate:
        args += ["--rate", case.rate]
    else:
        args += ["--wait", case.wait_ms]
    if timing.warmup == "auto" and loadclient.supports(ctx, "load", "--steady-window"):
        args += ["--warmup", "auto", "--steady-window", STEADY_WINDOW_S, "--steady-tolerance", STEADY_TOLERANCE,
                 "--warmup-max", timing.warmup_max]
    else:
        args += ["--warmup", 10 if timing.warmup == "auto" else timing.warmup]
    if timing.max_error_rate is not None and loadclient.supports(ctx, "load", "--max-error-rate"):
        args += ["--max-error-rate", timing.max_error_rate]
    if loadclient.supports(ctx, "load", "--histogram"):
        args += ["--histogram", hgrm]
    return args


def last_progress(log: Path) -> str:
    try:
        with open(log, "rb") as f:
            f.seek(max(0, os.path.getsize(log) - 4000))
            lines = [l for l in f.read().decode(errors="replace").splitlines()
                     if l.startswith("progress") or l.startswith("warmup")]
        return lines[-1] if lines else ""
    except OSError:
        return ""


def run(ctx: Context, db, v: Variant, case: Case, timing: Timing, out: Path, repeat: int = 1,
        on_progress=None) -> dict:
    """Runs V once; returns its run record (docs/results-format.md documents the fields). Raises RunFailed."""
    out.mkdir(parents=True, exist_ok=True)
    settings = variant_settings(v, case, ctx.env)
    v = v.for_settings(settings)   # the build its settings pick (STACK=pekko: the Pekko jar, floor and members)
    record: dict = {
        "variant": v.name, "runtime": v.runtime, "case": case.label, "repeat": repeat,
        "row": v.row_of(settings),
        "engines": case.engines, "persist": case.persist, "waitMs": None if case.rate else case.wait_ms,
        "rate": case.rate, "concurrency": case.concurrency, "dbLatencyMs": case.db_latency_ms,
        "settings": settings, "dbConnections": v.db_connection_count(settings) * case.nodes,
        "nodes": case.nodes, "floor": v.floor["name"] if v.floor else None,
        "logs": str(out.relative_to(out.parents[1])),
        "startedAt": time.strftime("%Y-%m-%dT%H:%M:%S%z"),
    }
    say = on_progress or (lambda s: None)
    v.ensure_built(ctx, log=open(out / "build.log", "ab"))
    db.sql("DELETE FROM SALES")
    link = None
    variant = None
    sampler = None
    lc = None
    t0 = time.monotonic()
    try:
        vdb_host, vdb_port = db.host, db.port
        if case.db_latency_ms:
            link = toxiproxy.SlowLink(ctx, db.host, db.port, case.db_latency_ms, out / "toxiproxy.log").start()
            vdb_host, vdb_port = "127.0.0.1", link.port
        env = {**db.variant_env(), "DB_HOST": vdb_host, "DB_PORT": str(vdb_port), **settings}
        port = process.free_port()
        say("starting")
        try:
            variant = start(ctx, v, env, out, case.nodes, port, db=db)
            if timing.verify:
                say("loadclient verify")
                # behind a slow database a cycle's sales take seconds to store: fewer orders, longer to go quiet
                extra = ["--orders", 300, "--quiet-timeout", 90] if case.db_latency_ms else []
                rc = loadclient.run(ctx, "verify", "--url", variant.url, "--db-url", db.jdbc(), *extra,
                                    log=out / "verify.log")
                if rc != 0:
                    raise RunFailed(f"{v.name} failed loadclient verify: not benchmarked (log: {out / 'verify.log'})")
                # verify leaves orders in the market that would trade with the load: measure a fresh one
                say("restarting (an empty market)")
                variant.stop(60 if case.nodes > 1 else 15)
                variant = start(ctx, v, env, out, case.nodes, port, append=True, db=db)
        except process.NotHealthy as e:
            raise RunFailed(str(e)) from e
        if timing.jit_warmup_max and jit_warmup.has_jit(variant.pids):
            record["jitWarmup"] = jit_warmup.warm(ctx, variant, case.concurrency, case.wait_ms, case.rate,
                                                  timing.jit_warmup_max, out / "jit-warmup.log", say=say)
            if not variant.alive():
                raise RunFailed(f"{v.name} died during the JIT warm-up (log: {out / 'variant.log'})")
            # The warm-up stored a minute of sales (a million rows and more at saturation): a table that large no
            # longer fits the buffer pool and doubled the database's CPU per sale in the measured window (40.6
            # against 18 µs, java-threads batch). Every variant is measured on a SALES table holding only its
            # measured load's rows. TRUNCATE waits for the inserts under way; the variants' prepared
            # statements are prepared again by the server.
            try:
                db.sql("TRUNCATE TABLE SALES")
            except DbError:
                db.sql("DELETE FROM SALES")     # a user without the DROP privilege TRUNCATE needs
        sampler = process.Sampler(1.0)
        sampler.add("variant", *variant.pids)
        sampler.add("database", db.pid())
        load_json, hgrm = out / "load.json", out / "latency.hgrm"
        lc = loadclient.start(ctx, "load", *load_args(ctx, case, timing, variant.urls, db.jdbc(), load_json, hgrm),
                              log=out / "load.log")
        sampler.add("loadclient", lc.pid)
        record["pids"] = {"variant": variant.pids[0], "loadclient": lc.pid}
        sampler.start()
        while lc.popen.poll() is None:
            time.sleep(1)
            say(last_progress(lc.log)[:120] or "load")
            if not variant.alive():
                lc.stop(5)
                raise RunFailed(f"{v.name} died during the load (log: {out / 'variant.log'})")
        rc = lc.popen.returncode
        lc.stop(1)
        samples = sampler.stop()
        sampler = None
        if not load_json.exists():
            raise RunFailed(f"the load client wrote no result (exit {rc}; log: {out / 'load.log'})")
        load = json.loads(load_json.read_text())
        record.update(figures.run_figures(load, samples, hgrm if hgrm.exists() else None, timing))
        record["samples"] = samples
        if rc != 0:
            record["error"] = f"the load client exited {rc} (error rate above --max-error-rate?; log: {out / 'load.log'})"
        return record
    finally:
        if lc and lc.alive():          # interrupted (Ctrl-C, SIGTERM) while the load ran
            lc.stop(5)
        if sampler:
            sampler.stop()
        if variant:
            variant.stop(60 if case.nodes > 1 else 15)
        if link:
            link.stop()
        record["seconds"] = round(time.monotonic() - t0, 1)


class _One:
    """A single variant process with the Members interface (url, urls, pids, alive, stop)."""

    def __init__(self, r: process.Running):
        self.r = r
        self.url = self.urls = r.url
        self.pids = [r.pid]

    def alive(self) -> bool:
        return self.r.alive()

    def stop(self, timeout: float = 15.0):
        return self.r.stop(timeout)


def start(ctx: Context, v: Variant, env: dict, out: Path, nodes: int, port: int, append: bool = False, db=None):
    """The variant alone on PORT, or NODES cluster members (the load client spreads its connections over them).
    Members start with no handed-over orders: a cluster stopped before leaves its open orders in ENGINE_HANDOVER."""
    if nodes <= 1:
        return _One(process.start_variant(ctx, v, env, out / "variant.log", port=port, append=append))
    from . import members
    if v.cluster is None:
        raise RunFailed(f"--nodes {nodes}: {v.name} has no cluster mode (no cluster key in its variant.yaml)")
    if db is not None:
        try:
            db.sql("DELETE FROM ENGINE_HANDOVER")
        except DbError:
            pass   # a database made before the table: the members create it
    logs = [out / f"variant-{i}.log" for i in range(nodes)]
    return members.start(ctx, v, env, logs, append=append)


def estimate_run_seconds(v: Variant, case: Case, timing: Timing) -> int:
    """A run's wall time: start + verify + restart + warm-up + window (auto warm-up: its likely length)."""
    start = 8 if v.runtime == "java" else 3
    verify = 25 if timing.verify else 0
    if case.db_latency_ms:
        verify *= 3
    warm = min(timing.warmup_max, 40) if timing.warmup == "auto" else int(timing.warmup)
    if v.runtime == "java":
        warm += min(timing.jit_warmup_max, 60)     # measured: the C2 compiler quiet about a minute into the load
    return start * (2 if timing.verify else 1) + verify + warm + timing.duration + 5
