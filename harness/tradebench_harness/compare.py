"""bench, compare and sweep: calibration, then every (repeat, case, variant)
run interleaved round-robin (A B C D, A B C D, ...), with an up-front time
estimate and a progress bar; then the results folder."""
from __future__ import annotations

import sys
import time
from dataclasses import asdict, replace
from pathlib import Path

from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

from . import bench, calibrate, environment, figures, results, stats, tables
from . import db as dbmod
from .bench import Case, RunFailed, Timing
from .context import Context
from .variants import ManifestError, Variant

console = Console(stderr=True)


def rows_of(variants: list[Variant], cases: list[Case], env: dict | None = None) -> list[tuple[Case, Variant]]:
    """Every (case, variant row): a variant once per row of its manifest (node-engine: WORKERS=processes and
    threads), the row's settings over the case's; once only where ENV or the case pins the row's setting."""
    out = []
    for case in cases:
        for v in variants:
            if case.variants is None or v.name in case.variants:
                for row in v.rows_given({**(env or {}), **case.settings}):
                    out.append((replace(case, settings={**case.settings, **row}) if row else case,
                                v.for_settings({**(env or {}), **case.settings, **row})))
    return out


def plan(variants: list[Variant], cases: list[Case], repeat: int, env: dict | None = None) -> list[tuple[int, Case, Variant]]:
    """Round-robin: repeat 1 of every (case, variant row), then repeat 2, ..."""
    return [(rep, case, v) for rep in range(1, repeat + 1) for case, v in rows_of(variants, cases, env)]


def human(seconds: float) -> str:
    m, s = divmod(int(seconds), 60)
    return f"{m} min {s:02d} s" if m else f"{s} s"


def execute(ctx: Context, command: str, variants: list[Variant], cases: list[Case], timing: Timing, repeat: int,
            options: dict, calibration: dict | None = None, experiment: dict | None = None, out_dir: Path | None = None,
            cal_duration: int = 10, cal_warmup="auto", cal_warmup_max: int = 45, fresh: bool = True) -> tuple[Path, dict]:
    """Runs the plan; writes results/<run-id>/; returns (folder, results document).

    FRESH: each repeat a fresh process, verified, warmed and measured, the rows interleaved round-robin (the
    longer, tighter study). Otherwise each row is started, verified and warmed once and its repeats are
    windows of that process back to back (cells.py): a third of the time, and the spread it shows is the
    window's noise, not that of a process's start (JIT decisions, heap layout)."""
    run_id = results.new_run_id(command)
    folder = out_dir or ctx.results / run_id
    folder.mkdir(parents=True, exist_ok=True)
    db = dbmod.open_db(ctx, ctx.env.get("DB_NAME") or "TRADER")
    runs_plan = plan(variants, cases, repeat, ctx.env)
    if not runs_plan:
        raise ManifestError("nothing to run: no variant matches the cases")
    for v in {v.name: v for _, _, v in runs_plan}.values():
        console.print(f"tradebench: building {v.name} when needed")
        v.ensure_built(ctx, log=open(folder / "build.log", "ab"))

    env = environment.collect(ctx, db)
    runtimes = {v.runtime for _, _, v in runs_plan}
    # each floor once, started as the first variant naming it starts it (Tomcat: java-threads' and java-akka's are one)
    floors: dict = {}
    for _, _, v in runs_plan:
        if v.floor and v.floor["name"] not in floors:
            floors[v.floor["name"]] = lambda port, v=v: v.floor_command(ctx, port)
    conns = {v.db_connection_count(bench.variant_settings(v, c, ctx.env)) * c.nodes for _, c, v in runs_plan}
    est_runs = sum(bench.estimate_run_seconds(v, c, timing) for _, c, v in runs_plan) if fresh else \
        sum(windows_estimate(v, c, timing, repeat) for c, v in rows_of(variants, cases, ctx.env))
    modes = {c.persist for c in cases}
    est_cal = 0 if calibration is not None else calibrate.estimate_seconds(len(runtimes), len(conns), cal_duration, cal_warmup,
                                                                              cal_warmup_max, len(floors), len(modes))
    console.print(f"tradebench: {command}: {len(runs_plan)} runs ({len(runs_plan) // max(1, repeat)} variant rows over "
                  f"{len(cases)} case(s) x {repeat} repeat(s), round-robin) + calibration: about "
                  f"{human(est_runs + est_cal)} (warm-up {timing.warmup}{' s' if timing.warmup != 'auto' else ', up to ' + str(timing.warmup_max) + ' s each'}, "
                  f"window {timing.duration} s); results in {folder}")
    doc = {"schemaVersion": results.SCHEMA_VERSION, "runId": run_id, "command": command,
           "startedAt": time.strftime("%Y-%m-%dT%H:%M:%S%z"), "finishedAt": None,
           "environment": env, "options": options, "experiment": experiment, "calibration": calibration,
           "runs": [], "summary": []}
    t0 = time.monotonic()
    with Progress(TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn(),
                  TextColumn("{task.fields[eta]}"), console=console, transient=False) as progress:
        task = progress.add_task("calibration", total=len(runs_plan) + (0 if calibration is not None else 1),
                                 eta=f"~{human(est_runs + est_cal)} left")
        if calibration is None:
            cal_db = "TRADER_CALIBRATION" if db.private else db.name
            if db.private:
                dbmod.create(ctx, cal_db)
            # a ceiling is measured at saturation: the runs' connection count, no pause
            conc = cases[0].concurrency
            wait = 0
            doc["calibration"] = calibrate.calibrate(
                ctx, folder / "calibration", db, cal_db, runtimes, conns, conc, wait, cal_duration, cal_warmup,
                cal_warmup_max, on_step=lambda s: progress.update(task, description=s), floors=floors,
                persist_modes=modes)
            progress.advance(task)
        if not fresh:
            for i, (case, v) in enumerate(rows_of(variants, cases, ctx.env), 1):
                progress.update(task, description=f"{v.name} {case.label}")
                for rec in measure_windows(ctx, db, v, case, timing, repeat,
                                           folder / "runs" / f"{i:02d}-{v.name}{'-' + case.label if case.label else ''}",
                                           on_progress=lambda s, n=f"{v.name} {case.label}": progress.update(task, description=f"{n}: {s}")):
                    if not rec.get("error"):
                        figures.attach_fractions(rec, doc["calibration"])
                        console.print(f"tradebench: {stats.shown(rec)} {case.label} #{rec['repeat']}: sales/min "
                                      f"{tables.fmt(rec.get('salesPerMinute'))}, orders/s {tables.fmt(rec.get('ordersPerSecond'))}, "
                                      f"p99 {tables.fmt(rec.get('p99Ms'), '.2f')} ms, steady {rec.get('steady')}")
                    else:
                        console.print(f"tradebench: {stats.shown(rec)} {case.label} #{rec['repeat']} failed: {rec['error']}")
                    doc["runs"].append(rec)
                    progress.update(task, advance=1)
            runs_plan = []
        left = est_runs
        done_s = 0.0
        for i, (rep, case, v) in enumerate(runs_plan, 1):
            name = f"[{i}/{len(runs_plan)}] {v.name}{' ' + case.label if case.label else ''} #{rep}"
            out = folder / "runs" / f"{i:02d}-{v.name}{'-' + case.label if case.label else ''}-r{rep}"
            progress.update(task, description=name)
            t_run = time.monotonic()
            try:
                rec = bench.run(ctx, db, v, case, timing, out, rep,
                                on_progress=lambda s, n=name: progress.update(task, description=f"{n}: {s}"))
            except (RunFailed, ManifestError, dbmod.DbError, OSError) as e:
                rec = {"variant": v.name, "runtime": v.runtime, "case": case.label, "repeat": rep,
                       "engines": case.engines, "persist": case.persist, "rate": case.rate, "error": str(e),
                       "settings": bench.variant_settings(v, case, ctx.env), "cpu": {}}
                console.print(f"tradebench: {name} failed: {e}")
            figures.attach_fractions(rec, doc["calibration"]) if not rec.get("error") else None
            doc["runs"].append(rec)
            done_s += time.monotonic() - t_run
            left -= bench.estimate_run_seconds(v, case, timing)
            # the estimate, corrected by how long the runs so far really took
            remaining = (done_s / i) * (len(runs_plan) - i)
            progress.update(task, advance=1, eta=f"~{human(remaining)} left")
            if not rec.get("error"):
                console.print(f"tradebench: {name}: sales/min {tables.fmt(rec.get('salesPerMinute'))}, orders/s "
                              f"{tables.fmt(rec.get('ordersPerSecond'))}, p99 {tables.fmt(rec.get('p99Ms'), '.2f')} ms, "
                              f"steady {rec.get('steady')}, warm-up {rec.get('warmupS')} s")
    doc["finishedAt"] = time.strftime("%Y-%m-%dT%H:%M:%S%z")
    doc["elapsedS"] = round(time.monotonic() - t0, 1)
    results.write_all(folder, doc)
    results.link_latest(ctx.results, folder)
    print((folder / "summary.md").read_text(), flush=True)
    console.print(f"tradebench: results in {folder} (results.json, report.html, summary.md, runs.csv)")
    return folder, doc


def measure_windows(ctx: Context, db, v: Variant, case: Case, timing: Timing, repeat: int, out: Path,
                    on_progress=None) -> list[dict]:
    """One process of V for CASE: verified, warmed (JIT, then until steady), then REPEAT windows (cells.py)."""
    from . import cells
    s = cells.Series(v, case.engines, case.persist, dict(case.settings), case=case.label)
    t = cells.CellTiming(settle=2, window=timing.duration, repeat=repeat, verify=timing.verify,
                         jit_warmup_max=timing.jit_warmup_max, max_error_rate=timing.max_error_rate,
                         first_warmup=timing.warmup, warmup_max=timing.warmup_max, link=bool(case.db_latency_ms))
    cell = cells.Cell(case.db_latency_ms, case.concurrency, case.wait_ms, case.rate)
    recs = cells.measure_series(ctx, db, s, [cell], t, {}, out, on_progress=on_progress)
    for r in recs:
        r["series"] = None      # the generic table: a row per (case, variant row)
    return recs


def windows_estimate(v: Variant, case: Case, timing: Timing, repeat: int) -> int:
    """A row's wall time when its repeats are windows of one process."""
    java = v.runtime == "java"
    warm = min(timing.warmup_max, 30) if timing.warmup == "auto" else int(timing.warmup)
    return ((8 if java else 3) + (25 * (3 if case.db_latency_ms else 1) if timing.verify else 0)
            + (min(timing.jit_warmup_max, 45) if java else 0) + warm + repeat * (timing.duration + 3))
