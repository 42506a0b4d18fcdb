"""One variant started once, measured at many cells (a database latency and a load each): the latency
sweep and the map are made of these.

Per series (a variant with its row's settings):
  Toxiproxy in front of the database -> variant started behind it -> `loadclient verify` (no added
  latency) -> JIT warm-up (Java) -> for each repeat, for each cell: the backlog of the cell before
  stored (no load, no added latency, until SALES stops growing), the link's latency set, SALES
  emptied, a fresh `loadclient load` (fixed settle, then the measured window) while the variant, the
  database, the link and the load client are sampled -> one run record per cell.

The variant keeps its process, its JIT-compiled code and its connections from cell to cell; only the
link's latency and the load client change. The link stays in the path at every latency, 0 included,
so every cell of every series pays for it alike (its CPU is the "link" group). Sales are counted per
window from SALES (created in the window), not from the process.

The round trip of each latency is measured once, before the series: one connection storing single
rows one after another through a link at that latency (bounds.rtt_ms).
"""
from __future__ import annotations

import json
import time
from dataclasses import dataclass, field
from pathlib import Path

from . import bench, bounds, figures, jit_warmup, loadclient, process, results, tables, toxiproxy
from .context import Context
from .db import DbError
from .variants import Variant, row_label

PROBE_SECONDS = 3
#: the most seconds a cell waits for the backlog of the cell before it to be stored (drain)
DRAIN_MAX_S = 60


@dataclass
class Cell:
    latency_ms: int
    concurrency: int = 64
    wait_ms: int = 0
    rate: int | None = None

    @property
    def load_text(self) -> str:
        return f"{self.rate}/s" if self.rate else f"{self.concurrency} clients, wait {self.wait_ms} ms"


@dataclass
class Series:
    """A row of the sweep or the map: a variant with its row's settings, ENGINES and persist mode."""
    variant: Variant
    engines: int
    persist: str
    settings: dict = field(default_factory=dict)    # the row's settings (WORKERS=threads, ...)
    case: str = ""                                  # "" or why this row is there ("equal in-flight")

    @property
    def name(self) -> str:
        extra = row_label(self.settings)
        return self.variant.name + (f" {extra}" if extra else "") + (f" ({self.case})" if self.case else "")

    def run_settings(self, env: dict) -> dict:
        case = bench.Case(engines=self.engines, persist=self.persist, settings=dict(self.settings))
        return bench.variant_settings(self.variant, case, env)


@dataclass
class CellTiming:
    settle: int = 5        # seconds of load at a cell's latency before its window (what came before is drained first)
    window: int = 15
    repeat: int = 1        # passes over every cell, in order (the repeats of one process, interleaved in time)
    verify: bool = True
    jit_warmup_max: int = 45
    max_error_rate: float | None = None
    first_warmup: str | None = None   # the first window's warm-up instead of SETTLE ("auto": until steady; compare)
    warmup_max: int = 120             # its bound
    link: bool = True                 # Toxiproxy in the path (False: straight to the database; every cell at +0 ms)


def estimate_seconds(series: list[Series], cells: list[Cell], t: CellTiming) -> int:
    per_cell = t.settle + t.window + 5   # 2 of them: the drain of the cell before's backlog, usually
    out = PROBE_SECONDS * 2 * len({c.latency_ms for c in cells})
    for s in series:
        java = s.variant.runtime == "java"
        out += (8 if java else 3) + (25 if t.verify else 0) + (min(t.jit_warmup_max, 40) if java else 0)
        out += per_cell * len(cells) * t.repeat
    return out


def probe_rtts(ctx: Context, db, scratch_db: str, latencies: list[int], out: Path, say=lambda s: None) -> dict:
    """Per added latency: the round trip of one INSERT through the link (ms), single rows on one connection."""
    out.mkdir(parents=True, exist_ok=True)
    rtts: dict[int, float | None] = {}
    link = toxiproxy.SlowLink(ctx, db.host, db.port, 0, out / "toxiproxy.log").start()
    try:
        for lat in sorted(set(latencies)):
            say(f"round trip at +{lat} ms")
            link.set_latency(lat)
            js = out / f"rtt-{lat}ms.json"
            rc = loadclient.run(ctx, "insert-ceiling", "--db-url", db.jdbc(scratch_db, "127.0.0.1", link.port),
                                "--connections", 1, "--batch-rows", 1, "--duration", PROBE_SECONDS, "--warmup", 1,
                                "--json", js, log=out / f"rtt-{lat}ms.log", timeout=120)
            rows = json.loads(js.read_text()).get("rowsPerSecond") if rc == 0 and js.exists() else None
            rtts[lat] = round(bounds.rtt_ms(rows), 3) if rows else None
    finally:
        link.stop()
    return rtts


def measure_series(ctx: Context, db, s: Series, cells: list[Cell], t: CellTiming, rtts: dict, out: Path,
                   on_progress=None, on_record=None) -> list[dict]:
    """Every cell of S, T.repeat times; a run record per cell and repeat (an error record when it failed)."""
    say = on_progress or (lambda m: None)
    out.mkdir(parents=True, exist_ok=True)
    v = s.variant
    settings = s.run_settings(ctx.env)
    flight = bounds.in_flight(v, s.persist, settings)
    base = {"variant": v.name, "runtime": v.runtime, "case": s.case, "row": v.row_of(settings), "series": s.name,
            "engines": s.engines, "persist": s.persist, "settings": settings,
            "dbConnections": v.db_connection_count(settings), "nodes": 1,
            "floor": v.floor["name"] if v.floor else None, "inFlight": flight}
    v.ensure_built(ctx, log=open(out / "build.log", "ab"))
    records: list[dict] = []
    link = variant = None
    try:
        env = {**db.variant_env(), **settings}
        if t.link:
            link = toxiproxy.SlowLink(ctx, db.host, db.port, 0, out / "toxiproxy.log").start()
            env.update(DB_HOST="127.0.0.1", DB_PORT=str(link.port))
        elif any(c.latency_ms for c in cells):
            raise ValueError("a cell with added latency needs the link")
        say("starting")
        variant = bench.start(ctx, v, env, out, 1, process.free_port(), db=db)
        if t.verify:
            say("loadclient verify")
            rc = loadclient.run(ctx, "verify", "--url", variant.url, "--db-url", db.jdbc(), log=out / "verify.log")
            if rc != 0:
                raise bench.RunFailed(f"{v.name} failed loadclient verify: not measured (log: {out / 'verify.log'})")
        # the JIT warms at the heaviest load of the cells: what it compiles there serves the lighter ones
        first = max(cells, key=lambda c: (c.rate is None, c.rate or 0))
        if t.jit_warmup_max and jit_warmup.has_jit(variant.pids):
            base["jitWarmup"] = jit_warmup.warm(ctx, variant, first.concurrency, first.wait_ms, first.rate,
                                                t.jit_warmup_max, out / "jit-warmup.log", say=say)
        for rep in range(1, t.repeat + 1):
            for i, cell in enumerate(cells, 1):
                if not variant.alive():
                    raise bench.RunFailed(f"{v.name} died (log: {out / 'variant.log'})")
                say(f"+{cell.latency_ms} ms, {cell.load_text} (cell {i}/{len(cells)}, repeat {rep})")
                rec = {**base, "repeat": rep, "dbLatencyMs": cell.latency_ms, "rate": cell.rate,
                       "concurrency": cell.concurrency, "waitMs": None if cell.rate else cell.wait_ms,
                       "rttMs": rtts.get(cell.latency_ms),
                       "startedAt": time.strftime("%Y-%m-%dT%H:%M:%S%z")}
                warmup = t.first_warmup if (rep, i) == (1, 1) and t.first_warmup else str(t.settle)
                # the cell before, or the JIT warm-up at the heaviest load before the first cell, may have left
                # a backlog above the design's bound: stored before this cell's window opens
                rec["drainSeconds"] = drain(db, link)
                try:
                    rec.update(_measure_cell(ctx, db, link, variant, cell, t, warmup,
                                             out / f"r{rep}-{i:02d}-{cell.latency_ms}ms"))
                except bench.RunFailed as e:
                    rec["error"] = str(e)
                sales = rec.get("salesPerMinute")
                rec["boundSalesPerMinute"] = bounds.sales_per_minute(flight, rec["rttMs"])
                rec["boundFraction"] = bounds.fraction(sales, rec["boundSalesPerMinute"])
                records.append(rec)
                if on_record:
                    on_record(rec)
    except (bench.RunFailed, process.NotHealthy, toxiproxy.ToxiproxyError, DbError, OSError, ValueError) as e:
        done = {(r["repeat"], r["dbLatencyMs"], r["rate"], r["concurrency"]) for r in records}
        for rep in range(1, t.repeat + 1):
            for cell in cells:
                if (rep, cell.latency_ms, cell.rate, cell.concurrency) not in done:
                    records.append({**base, "repeat": rep, "dbLatencyMs": cell.latency_ms, "rate": cell.rate,
                                    "concurrency": cell.concurrency, "rttMs": rtts.get(cell.latency_ms),
                                    "error": str(e), "cpu": {}})
    finally:
        if variant:
            variant.stop(15)
        if link:
            link.stop()
    return records


def drain(db, link, most_s: float = DRAIN_MAX_S, quiet_s: float = 1.0) -> float:
    """With no load and no added latency, lets the variant store what the cell before left in its inboxes,
    until SALES stops growing for QUIET_S (at most MOST_S). A cell heavier than a design's bound fills its
    inboxes; without this the next cell's window would hold that backlog beside its own load's sales, and a
    design that keeps up with a light cell would seem to store more than the cell offers. Returns the
    seconds it took."""
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


def _measure_cell(ctx: Context, db, link, variant, cell: Cell, t: CellTiming, warmup: str, out: Path) -> dict:
    out.mkdir(parents=True, exist_ok=True)
    if link:
        link.set_latency(cell.latency_ms)
    # a window's sales only: a table grown by the cells before would cost the database more per sale
    try:
        db.sql("TRUNCATE TABLE SALES")
    except DbError:
        db.sql("DELETE FROM SALES")
    timing = bench.Timing(duration=t.window, warmup=warmup, warmup_max=t.warmup_max, verify=False,
                          max_error_rate=t.max_error_rate)
    case = bench.Case(concurrency=cell.concurrency, wait_ms=cell.wait_ms, rate=cell.rate)
    load_json, hgrm = out / "load.json", out / "latency.hgrm"
    sampler = process.Sampler(1.0)
    sampler.add("variant", *variant.pids)
    sampler.add("database", db.pid())
    if link:
        sampler.add("link", link.pid)
    lc = loadclient.start(ctx, "load", *bench.load_args(ctx, case, timing, variant.urls, db.jdbc(), load_json, hgrm),
                          log=out / "load.log")
    sampler.add("loadclient", lc.pid)
    sampler.start()
    try:
        deadline = time.monotonic() + max(t.settle, t.warmup_max if warmup == "auto" else int(warmup)) + t.window + 90
        while lc.popen.poll() is None:
            time.sleep(0.5)
            if not variant.alive():
                lc.stop(5)
                raise bench.RunFailed(f"the variant died during the load (log: {out.parent / 'variant.log'})")
            if time.monotonic() > deadline:
                lc.stop(5)
                raise bench.RunFailed(f"the load client did not finish (log: {out / 'load.log'})")
    finally:
        samples = sampler.stop()
        if lc.alive():                 # interrupted (Ctrl-C, SIGTERM) while the load ran
            lc.stop(5)
    rc = lc.popen.returncode
    if not load_json.exists():
        raise bench.RunFailed(f"the load client wrote no result (exit {rc}; log: {out / 'load.log'})")
    rec = figures.run_figures(json.loads(load_json.read_text()), samples, hgrm if hgrm.exists() else None, timing)
    rec["samples"] = samples
    rec["logs"] = str(out)
    rec["pids"] = {"variant": variant.pids[0], "loadclient": lc.pid}
    if rc != 0:
        rec["error"] = f"the load client exited {rc} (error rate above --max-error-rate?; log: {out / 'load.log'})"
    return rec


def execute(ctx: Context, command: str, kind: str, series: list[Series], cells: list[Cell], t: CellTiming,
            options: dict, out_dir: Path | None = None) -> tuple[Path, dict]:
    """Measures every series at every cell; writes results/<run-id>/ (summary.md, report.html, ...)."""
    import sys
    from . import db as dbmod, environment
    run_id = results.new_run_id(command)
    folder = out_dir or ctx.results / run_id
    folder.mkdir(parents=True, exist_ok=True)
    db = dbmod.open_db(ctx, ctx.env.get("DB_NAME") or "TRADER")

    def say(msg: str) -> None:
        print(f"tradebench: {msg}", file=sys.stderr, flush=True)

    for v in {s.variant.name: s.variant for s in series}.values():
        say(f"building {v.name} when needed")
        v.ensure_built(ctx, log=open(folder / "build.log", "ab"))
    est = estimate_seconds(series, cells, t)
    say(f"{command}: {len(series)} series x {len(cells)} cells x {t.repeat} repeat(s) (settle {t.settle} s, window "
        f"{t.window} s): about {est // 60} min {est % 60:02d} s; results in {folder}")
    doc = {"schemaVersion": results.SCHEMA_VERSION, "runId": run_id, "command": command,
           "startedAt": time.strftime("%Y-%m-%dT%H:%M:%S%z"), "finishedAt": None,
           "environment": environment.collect(ctx, db), "options": options, "experiment": None, "calibration": None,
           "cells": {"kind": kind, "latencies": sorted({c.latency_ms for c in cells}),
                     "loads": [c.load_text for c in cells], "series": [s.name for s in series],
                     "estimateS": est, "rttMs": {}},
           "runs": [], "summary": []}
    t0 = time.monotonic()
    scratch = "TRADER_CALIBRATION" if db.private else db.name
    if db.private:
        dbmod.create(ctx, scratch)
    rtts = probe_rtts(ctx, db, scratch, [c.latency_ms for c in cells], folder / "round-trips", say=say)
    doc["cells"]["rttMs"] = {str(k): v for k, v in rtts.items()}
    say("round trips: " + ", ".join(f"+{k} ms: {v} ms" for k, v in rtts.items()))
    for i, s in enumerate(series, 1):
        name = f"[{i}/{len(series)}] {s.name}"
        slug = s.name.replace(" ", "-").replace("=", "").replace("(", "").replace(")", "").replace(",", "")

        def show(rec, name=name):
            if rec.get("error"):
                say(f"{name} +{rec['dbLatencyMs']} ms: failed: {rec['error'][:200]}")
            else:
                f = rec.get("boundFraction")
                say(f"{name} +{rec['dbLatencyMs']} ms ({rec['rttMs']} ms), {load_key_of(rec)}: sales/min "
                    f"{tables.fmt(rec.get('salesPerMinute'))}" + (f" = {f:.2f} of its bound" if f is not None else "")
                    + f", orders/s {tables.fmt(rec.get('ordersPerSecond'))}, p99 {tables.fmt(rec.get('p99Ms'), '.1f')} ms")

        doc["runs"] += measure_series(ctx, db, s, cells, t, rtts, folder / "runs" / f"{i:02d}-{slug}",
                                      on_progress=lambda m, name=name: say(f"{name}: {m}"), on_record=show)
        elapsed = time.monotonic() - t0
        say(f"{i}/{len(series)} series in {elapsed / 60:.1f} min; about {elapsed / i * (len(series) - i) / 60:.1f} min left")
    doc["finishedAt"] = time.strftime("%Y-%m-%dT%H:%M:%S%z")
    doc["elapsedS"] = round(time.monotonic() - t0, 1)
    results.write_all(folder, doc)
    results.link_latest(ctx.results, folder)
    print((folder / "summary.md").read_text(), flush=True)
    say(f"results in {folder} (results.json, report.html, summary.md, runs.csv)")
    return folder, doc


def load_key_of(rec: dict) -> str:
    return f"{rec['rate']}/s" if rec.get("rate") else f"{rec.get('concurrency')} clients"
