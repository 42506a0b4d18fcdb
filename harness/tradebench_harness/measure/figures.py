"""A run's record from what was measured: the load client's JSON, its latency histogram and the process
samples turned into the figures of docs/results-format.md's run records, and those figures divided by the
machine's calibrated ceilings."""
from __future__ import annotations

import math
from pathlib import Path
from typing import Any

from ..analysis import ceilings, stats
from ..run import process
from . import calibrate


def parse_hgrm(path: Path) -> list[list[float]]:
    """HdrHistogram's percentile distribution text: [[percentile (0-100), value ms], ...]."""
    points = []
    for line in path.read_text(errors="replace").splitlines():
        parts = line.split()
        # the last line (percentile 1.0) has no 1/(1-Percentile) column
        if len(parts) not in (3, 4) or line.lstrip().startswith("#"):
            continue
        try:
            value, pct = float(parts[0]), float(parts[1])
            int(parts[2])
        except ValueError:
            continue
        points.append([round(pct * 100, 6), value])
    return points


def thin(points: list[list[float]], keep: int = 160) -> list[list[float]]:
    """At most KEEP points of a percentile curve, evenly on the log(1/(1-p)) axis, the last one kept."""
    if len(points) <= keep:
        return points

    def x(p: list[float]) -> float:
        return math.log10(1 / max(1e-9, 1 - p[0] / 100))

    lo, hi = x(points[0]), x(points[-1])
    out, next_x = [], lo
    for p in points:
        if x(p) >= next_x:
            out.append(p)
            next_x = x(p) + (hi - lo) / keep
    if out[-1] is not points[-1]:
        out.append(points[-1])
    return out


def run_figures(load: dict[str, Any], samples: dict[str, Any], hgrm: Path | None, warmup: str = "auto") -> dict[str, Any]:
    """The figures of one run from the load client's JSON and the process samples (WARMUP: what the load
    client was asked for, "auto" or seconds)."""
    dbf = load.get("db") or {}
    lat = load.get("latencyMs") or {}
    ans = load.get("answers") or {}
    warm = load.get("warmup") or {}
    halves = load.get("halves") or {}
    start, end = load.get("windowStartMs"), load.get("windowEndMs")
    drift = halves.get("drift")
    spm = dbf.get("salesPerMinute")
    ops = load.get("requestsPerSecond")
    cpu = {g: process.summarize(s, start, end) for g, s in samples.items() if g != process.MACHINE}
    machine = samples.get(process.MACHINE)
    return {
        "salesPerMinute": spm,
        "salesPerSecond": round(spm / 60, 1) if spm is not None else None,
        "salesInWindow": dbf.get("sales"),
        "ordersPerSecond": ops,
        "acceptedPerSecond": load.get("acceptedPerSecond"),
        "p50Ms": lat.get("p50"), "p90Ms": lat.get("p90"), "p99Ms": lat.get("p99"), "p999Ms": lat.get("p999"),
        "maxMs": lat.get("max"),
        "answers503": ans.get("overloaded503", 0),
        "errors": sum(ans.get(k, 0) or 0 for k in ("other4xx", "other5xx", "otherStatus", "ioErrors")),
        "windowStartMs": start, "windowEndMs": end,
        "warmupMode": warm.get("mode") or "fixed",
        "warmupS": warm.get("seconds", load.get("warmupS")),
        "steady": warm.get("steady"),
        "warmupWindowsOrdersPerSecond": warm.get("windowsOrdersPerSecond"),
        "halves": halves or None,
        "drift": drift,
        "driftFlagged": drift is not None and abs(drift) > stats.DRIFT_FLAG,
        "cpu": cpu,
        "machineCpu": process.summarize_machine(machine, start, end) if machine else None,
        # what one order cost each process group in CPU: the variant's figure is what the CPU budget is about
        "cpuUsPerOrder": cpu_us_per_order(cpu, ops),
        "latencyPercentiles": thin(parse_hgrm(hgrm)) if hgrm else None,
        "load": {k: v for k, v in load.items() if k not in ("byStatus",)},
    }


def cpu_us_per_order(cpu: dict[str, Any], ops: float | None) -> dict[str, Any]:
    """Each group's CPU µs per order; for a variant of several processes (node-engine: the HTTP parent and its
    engine children) also its root process's alone ("variantRoot")."""
    out = {g: calibrate.cpu_us_per(c.get("cpuPercent"), ops) for g, c in cpu.items()}
    v = cpu.get("variant") or {}
    processes = v.get("processes")    # None: no sample in the window
    if processes is not None and processes > 1 and v.get("rootCpuPercent") is not None:
        out["variantRoot"] = calibrate.cpu_us_per(v["rootCpuPercent"], ops)
    return out


def fractions(run: dict[str, Any], cal: dict[str, Any]) -> dict[str, Any]:
    """A measured window's figures against this machine's ceilings CAL (the keys it adds to the window's record):
    orders/s ÷ the runtime's HTTP ceiling; sales/s ÷ the insert ceiling of the persist mode; the variant's CPU per
    order ÷ the trivial server's CPU per request (how many bare servers' worth of work an order is)."""
    http = ceilings.http_of(cal, run["runtime"])
    ins = ceilings.insert_of(cal, run["persist"], run["dbConnections"])
    ops, sps = run.get("ordersPerSecond"), run.get("salesPerSecond")
    cost = ceilings.http_cost_of(cal, run["runtime"])
    mine = (run.get("cpuUsPerOrder") or {}).get("variant")
    # the database's CPU per sale stored, beside what a row cost it at the insert ceiling of the same kind
    db_pct = ((run.get("cpu") or {}).get("database") or {}).get("cpuPercent")
    floor = ceilings.floor_cost_of(cal, run.get("floor"), run["runtime"])
    return {"httpCeiling": http, "insertCeiling": ins,
            "httpCeilingFraction": round(ops / http, 6) if http and ops is not None else None,
            "insertCeilingFraction": round(sps / ins, 6) if ins and sps is not None else None,
            "trivialServerCpuUsPerRequest": cost,
            "cpuPerOrderVsTrivial": round(mine / cost, 3) if cost and mine is not None else None,
            "dbCpuUsPerSale": calibrate.cpu_us_per(db_pct, sps),
            "insertCeilingDbCpuUsPerRow": ceilings.insert_cost_of(cal, run["persist"], run["dbConnections"]),
            "floorCpuUsPerRequest": floor,
            "cpuPerOrderVsFloor": round(mine / floor, 3) if floor and mine is not None else None}
