"""Machine calibration: this machine's ceilings, measured with the same load
client and connection count as the runs they calibrate.

  http.java   orders/s of loadclient against the Java TrivialServer (loadclient.jar)
  http.node   orders/s against a node:http server that does no work (harness/trivial_server.js)
              (both with the CPU the server and the load client spent per request)
  insert      rows/s of `loadclient insert-ceiling` into SALES, single-row autocommit
              ("singleRow", server-side prepared as the per-sale writers send it) and multi-row
              statements ("multiRow", text as the batch writers send it), at each connection
              count the variants open (their manifests' dbConnections)

A run's orders/s divided by its runtime's HTTP ceiling, and its sales/s divided
by the insert ceiling of its persist mode, are what two machines can compare.

Each ceiling is measured in steady state, as the runs are: by default the
warm-up lasts until two consecutive 5 s windows differ by less than 5 %
(`--calibration-warmup auto`, bounded by `--calibration-warmup-max`). With a
fixed 5 s (HTTP) and 2 s (inserts) warm-up, every ceiling was still rising in
its measured window on this project's machine (the node server's halves
differed by 20 %, the inserts' 5 s progress lines by 35 %), so the same
ceiling measured an hour apart differed by up to 57 %.
"""
from __future__ import annotations

import json
import socket
import subprocess
import time
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any

from ..run import loadclient, process
from ..run.context import Context
from ..run.db import Database

MULTI_ROW_BATCH = 100


def _wait_port(port: int, seconds: float, proc: subprocess.Popen[bytes]) -> bool:
    end = time.monotonic() + seconds
    while time.monotonic() < end:
        if proc.poll() is not None:
            return False
        with socket.socket() as s:
            s.settimeout(0.5)
            if s.connect_ex(("127.0.0.1", port)) == 0:
                return True
        time.sleep(0.1)
    return False


def warmup_args(warmup: str, warmup_max: int) -> list[Any]:
    """The load client's warm-up flags: seconds, or auto (until steady) with its bound."""
    return ["--warmup", "auto", "--warmup-max", warmup_max] if warmup == "auto" else ["--warmup", warmup]


def _warmup_of(r: dict[str, Any]) -> dict[str, Any]:
    w = r.get("warmup") or {}
    return {"mode": w.get("mode"), "seconds": w.get("seconds"), "steady": w.get("steady")}


def http_ceiling(ctx: Context, runtime: str, out: Path, concurrency: int, wait_ms: int, duration: int, warmup: str,
                 warmup_max: int = 45) -> dict[str, Any]:
    """The trivial server's orders/s, and what one request costs it and the load client in CPU: a variant's
    CPU per order divided by the server's (figures.fractions) says how much more than a bare server of
    its runtime the variant spends on a request, on the same cores, in the same run."""
    port = process.free_port()
    if runtime == "java":
        argv = [ctx.java, *ctx.loadclient_opts, "-cp", str(ctx.loadclient_jar()), "tradebench.loadclient.TrivialServer", str(port)]
    else:
        argv = [ctx.env.get("TB_NODE") or "node", str(ctx.root / "harness" / "trivial_server.js"), str(port)]
    return serve_and_measure(ctx, f"trivial-{runtime}", argv, port, out, concurrency, wait_ms, duration, warmup, warmup_max)


def floor(ctx: Context, name: str, argv: list[str], port: int, out: Path, concurrency: int, wait_ms: int,
          duration: int, warmup: str, warmup_max: int = 45) -> dict[str, Any]:
    """A variant's floor (its manifest's `floor`): its own HTTP framework, set up as the variant sets it up,
    answering 202 with nothing behind it. Its CPU per request is what the framework costs; a variant's CPU per
    order above it is the variant's own code (validation, engine, storage)."""
    return serve_and_measure(ctx, f"floor-{name}", argv, port, out, concurrency, wait_ms, duration, warmup, warmup_max)


def serve_and_measure(ctx: Context, label: str, argv: list[str], port: int, out: Path, concurrency: int, wait_ms: int,
                      duration: int, warmup: str, warmup_max: int) -> dict[str, Any]:
    """Starts ARGV (a server on PORT), loads it at saturation and samples it and the load client."""
    server = process.start(label, ctx.placed("variant", argv), out / f"{label}.log")
    try:
        if not _wait_port(port, 60, server.popen):
            return {"error": f"{label}: the server did not start (log: {server.log})"}
        js = out / f"{label}.json"
        log = out / f"{label}-load.log"
        lc = loadclient.start(ctx, "load", "--url", f"http://127.0.0.1:{port}", "--concurrency", concurrency,
                              "--wait", wait_ms, "--duration", duration, *warmup_args(warmup, warmup_max), "--json", js,
                              log=log)
        rc, samples = _sampled_to_end(lc, {"server": server.pid}, duration + upper(warmup, warmup_max) + 120)
        if rc != 0 or not js.exists():
            return {"error": f"{label}: loadclient load failed (log: {log})"}
        r = json.loads(js.read_text())
        ops = r.get("requestsPerSecond")
        cpu = {g: process.summarize(s, r.get("windowStartMs"), r.get("windowEndMs")) for g, s in samples.items()}
        return {"ordersPerSecond": ops, "p50Ms": (r.get("latencyMs") or {}).get("p50"),
                "p99Ms": (r.get("latencyMs") or {}).get("p99"), "concurrency": concurrency, "waitMs": wait_ms,
                "durationS": duration, "warmup": _warmup_of(r), "drift": (r.get("halves") or {}).get("drift"),
                "cpu": cpu,
                "cpuUsPerRequest": {g: cpu_us_per(c.get("cpuPercent"), ops) for g, c in cpu.items()}}
    finally:
        server.stop(5)


def cpu_us_per(cpu_percent: float | None, per_second: float | None) -> float | None:
    """CPU microseconds per event: a mean CPU % (100 = one core) over a window, divided by the events per second
    in it. 100 % at 10,000 orders/s is 100 µs per order."""
    if cpu_percent is None or not per_second:
        return None
    return round(cpu_percent * 10_000 / per_second, 2)


def _sampled_to_end(lc: process.Running, others: dict[str, Any], timeout: float) -> tuple[int, dict[str, Any]]:
    """Waits for the load client LC to end (at most TIMEOUT s; then it is stopped: exit 124), sampling the CPU of
    it and of OTHERS (group name -> pid) every second meanwhile. Returns its exit code and the samples."""
    sampler = process.Sampler(1.0)
    for name, pid in others.items():
        sampler.add(name, pid)
    sampler.add("loadclient", lc.pid)
    sampler.start()
    try:
        rc = lc.popen.wait(timeout=timeout)
    except subprocess.TimeoutExpired:
        rc = 124
    finally:
        lc.stop(1)
        samples = sampler.stop()
    return rc, samples


def upper(warmup: str, warmup_max: int) -> int:
    """The longest a warm-up can last (for time-outs and estimates)."""
    return int(warmup_max) if warmup == "auto" else int(float(warmup))


def insert_ceiling(ctx: Context, jdbc: str, out: Path, connections: int, batch_rows: int, duration: int, warmup: str,
                   warmup_max: int = 45, db_pid: int | None = None) -> dict[str, Any]:
    """The load client's insert-ceiling JSON, plus (DB_PID: the database server, sampled) what a row cost the
    database in CPU µs: a per-sale run's database CPU per sale set beside it says whether the database does the
    same work per sale in the run, and so whether what it lacks there is CPU (the cores it shares)."""
    js = out / f"insert-{connections}c-{batch_rows}r.json"
    log = out / f"insert-{connections}c-{batch_rows}r.log"
    lc = loadclient.start(ctx, "insert-ceiling", "--db-url", jdbc, "--connections", connections, "--duration", duration,
                          *warmup_args(warmup, warmup_max), "--batch-rows", batch_rows, "--json", js, log=log)
    rc, samples = _sampled_to_end(lc, {"database": db_pid}, duration + upper(warmup, warmup_max) + 120)
    if rc != 0 or not js.exists():
        return {"error": f"loadclient insert-ceiling failed (log: {log})"}
    r: dict[str, Any] = json.loads(js.read_text())
    if r.get("windowStartMs"):      # a load client from before the window was written: no CPU figures
        cpu = {g: process.summarize(s, r["windowStartMs"], r.get("windowEndMs")) for g, s in samples.items()}
        r["cpu"] = cpu
        r["cpuUsPerRow"] = {g: cpu_us_per(c.get("cpuPercent"), r.get("rowsPerSecond")) for g, c in cpu.items()}
    return r


def calibrate(ctx: Context, out: Path, db: Database, db_name: str, runtimes: set[str], connection_counts: set[int],
              concurrency: int, wait_ms: int, duration: int, warmup: str = "auto", warmup_max: int = 45,
              on_step: Callable[[str], None] | None = None,
              floors: dict[str, Any] | None = None, persist_modes: Iterable[str] = ("per-sale", "batch")) -> dict[str, Any]:
    """Every ceiling the runs need. DB: the database (db.Database) whose server is measured; DB_NAME: a
    database with the SALES table that may be emptied; FLOORS: name -> a function of a port giving the command
    line of a variant's floor server (Variant.floor_command); PERSIST_MODES: the runs' persist modes (single-row
    inserts are per-sale's ceiling, multi-row statements batch's: a ceiling no run is held against is not
    measured)."""
    out.mkdir(parents=True, exist_ok=True)
    cal: dict[str, Any] = {"concurrency": concurrency, "waitMs": wait_ms, "durationS": duration, "warmup": warmup,
                 "warmupMaxS": warmup_max if warmup == "auto" else None,
                 "http": {}, "floors": {}, "insert": {}, "multiRowBatch": MULTI_ROW_BATCH}
    for rt in sorted(runtimes):
        if on_step:
            on_step(f"calibration: {rt} trivial HTTP server")
        cal["http"][rt] = http_ceiling(ctx, rt, out, concurrency, wait_ms, duration, warmup, warmup_max)
    for name, command_of in sorted((floors or {}).items()):
        if on_step:
            on_step(f"calibration: floor {name} (the framework answering 202, nothing behind it)")
        port = process.free_port()
        cal["floors"][name] = floor(ctx, name, command_of(port), port, out, concurrency, wait_ms, duration, warmup,
                                    warmup_max)
    for n in sorted(connection_counts):
        entry = {}
        for key, rows in insert_kinds(persist_modes):
            if on_step:
                on_step(f"calibration: database inserts, {n} connections, {rows} row(s) per statement")
            db.sql("DELETE FROM SALES", db_name)
            entry[key] = insert_ceiling(ctx, db.jdbc(db_name), out, n, rows, duration, warmup, warmup_max, db.pid())
        db.sql("DELETE FROM SALES", db_name)
        cal["insert"][str(n)] = entry
    return cal


def insert_kinds(persist_modes: Iterable[str]) -> list[tuple[str, int]]:
    """The insert ceilings the persist modes are held against: (key in the calibration, rows per statement)."""
    kinds = {"per-sale": ("singleRow", 1), "batch": ("multiRow", MULTI_ROW_BATCH)}
    return [kinds[m] for m in ("per-sale", "batch") if m in set(persist_modes)]
