"""The statistics of a run's records: per (case, variant) the median, min and max of each figure over its
windows with the figure's 95 % interval across processes (intervals.py), which rows no difference was
detected between (verdict.py), an experiment's ratios, and where an order's CPU goes. Plain figures in, plain
figures out: nothing here formats, draws or writes."""
from __future__ import annotations

import statistics
from collections.abc import Callable, Iterable
from typing import Any

from ..record import Derived, Run, group_figure, per_order
from . import crowded, intervals, verdict

# a measured window whose two halves differ by more than this share is flagged (drift)
DRIFT_FLAG = 0.10
# the JVM's JIT compiler threads using more than this (% of a core) in the measured window: still warming up
JIT_FLAG = 5.0


def spread(values: Iterable[Any]) -> dict[str, Any] | None:
    vals = [v for v in values if v is not None]
    if not vals:
        return None
    return {"median": statistics.median(vals), "min": min(vals), "max": max(vals), "n": len(vals)}


def overlaps(a: dict[str, Any] | None, b: dict[str, Any] | None) -> bool:
    return bool(a and b and a["min"] <= b["max"] and b["min"] <= a["max"])


# a process whose windows each fall below the one before, the last this share below the first: falling
UNSTABLE_DROP = 0.10


def process_of(r: Run) -> tuple[Any, ...]:
    """The process a window was measured in: its unit's number in the run (execute.py), else its variant's pid
    (a folder written before the number was kept); neither: one process, unknown (no interval)."""
    if r.get("process") is not None:
        return ("unit", r["process"])
    pids = r.get("pids")
    pid = pids.get("variant") if pids else None
    return ("pid", pid) if pid is not None else ("unknown",)


def by_process(rs: list[Run], get: Callable[[Run], Any]) -> list[list[Any]]:
    """GET of each window of RS, grouped by process, the processes in the order they came."""
    out: dict[tuple[Any, ...], list[Any]] = {}
    for r in rs:
        out.setdefault(process_of(r), []).append(get(r))
    return list(out.values())


def figure(rs: list[Run], get: Callable[[Run], Any], tag: str = "") -> dict[str, Any] | None:
    """spread() of GET over the windows RS, with the 95 % interval across their processes: low and high (None
    when fewer than two processes: unavailable), processes."""
    s = spread(get(r) for r in rs)
    if not s:
        return None
    ci = intervals.interval(by_process(rs, get), tag=tag)
    assert ci is not None        # s: a figure, so a process with one
    return {**s, "low": ci["low"], "high": ci["high"], "processes": ci["processes"]}


def counted(rs: list[Run]) -> tuple[list[Run], list[Run]]:
    """The windows a row's figures are computed from, and those set aside: a window whose two halves differ by
    more than DRIFT_FLAG was still moving, so it is set aside when every process of the row keeps a steady
    window besides (the interval is drawn from processes; the adaptive compare measures more in its place);
    otherwise every window counts, the drifting ones marked (driftCounted)."""
    steady = [r for r in rs if not r.get("driftFlagged")]
    if not steady or len(steady) == len(rs):
        return rs, []
    if {process_of(r) for r in steady} != {process_of(r) for r in rs}:
        return rs, []
    return steady, [r for r in rs if r.get("driftFlagged")]


def falling(rs: list[Run]) -> bool:
    """A row whose windows fall steadily: in more than half of its processes of two windows or more, each
    window stored fewer sales than the one before and the last over UNSTABLE_DROP below the first."""
    seqs = [[v for v in g if v is not None] for g in by_process(rs, lambda r: r.get("salesPerMinute"))]
    seqs = [g for g in seqs if len(g) >= 2]
    if not seqs:
        return False
    down = sum(1 for g in seqs if all(b < a for a, b in zip(g, g[1:])) and g[-1] < g[0] * (1 - UNSTABLE_DROP))
    return down * 2 > len(seqs)


def live_heap(r: Run) -> float | None:
    m = r.get("memory")
    return m.get("liveHeapMb") if m else None


def jit_seconds(r: Run) -> float | None:
    jit = r.get("jitWarmup")
    return jit.get("seconds") if jit else None


def shown(run: Run) -> str:
    """A run's name in the tables: its variant, and its manifest row's settings when it has any
    ("node-engine WORKERS=threads")."""
    return str(run["variant"]) + (f" {run['row']}" if run.get("row") else "")


def summarize(runs: list[Run]) -> list[Derived]:
    """Per (case, variant): median, min and max of each figure over its repeats, and which other variants
    of the case have an overlapping sales/min range (a difference within noise)."""
    groups: dict[tuple[Any, ...], list[Run]] = {}
    for r in runs:
        if r.get("error") or r.get("salesPerMinute") is None:
            continue
        key = (r["case"], shown(r), r.get("rate"), r["engines"])
        groups.setdefault(key, []).append(r)
    rows = []
    for (case, variant, rate, engines), every in groups.items():
        rs, aside = counted(every)
        tag = f"{case}/{variant}/{rate}/{engines}"
        cpu = {}
        for g in ("variant", "loadclient", "database"):
            cpu[g] = spread([group_figure(r, g, "cpuPercent") for r in rs])
        rows.append({
            "case": case, "variant": variant, "variantName": rs[0]["variant"], "runtime": rs[0]["runtime"], "rate": rate, "engines": engines,
            "persist": rs[0]["persist"], "settings": rs[0]["settings"], "repeats": len(rs),
            "measuredProcesses": len(by_process(rs, lambda r: 1)),
            "windowsSetAside": len(aside),
            "driftCounted": sum(1 for r in rs if r.get("driftFlagged")),
            "unstable": falling(every),
            "windowsByProcess": by_process(every, lambda r: r.get("salesPerMinute")),
            "salesPerMinute": figure(rs, lambda r: r["salesPerMinute"], tag + "/sales"),
            "ordersPerSecond": figure(rs, lambda r: r["ordersPerSecond"], tag + "/orders"),
            "p50Ms": spread(r["p50Ms"] for r in rs),
            "p99Ms": figure(rs, lambda r: r["p99Ms"], tag + "/p99"),
            "p999Ms": spread(r.get("p999Ms") for r in rs),
            "httpCeilingFraction": spread(r.get("httpCeilingFraction") for r in rs),
            "insertCeilingFraction": spread(r.get("insertCeilingFraction") for r in rs),
            "cpuPercent": cpu,
            "jitCpuPercent": spread(group_figure(r, "variant", "jitCpuPercent") for r in rs),
            "jitWarmupSeconds": spread(jit_seconds(r) for r in rs),
            "jitWarmupBounded": any(r.get("jitWarmup") and not r["jitWarmup"].get("quiet") for r in rs),
            "cpuUsPerOrderVariant": figure(rs, lambda r: per_order(r, "variant"), tag + "/cpu"),
            "cpuUsPerOrder": {g: spread(per_order(r, g) for r in rs)
                              for g in ("variant", "variantRoot", "loadclient", "database")},
            "floorCpuUsPerRequest": spread(r.get("floorCpuUsPerRequest") for r in rs),
            "httpCeiling": spread(r.get("httpCeiling") for r in rs),
            "cpuPerOrderVsTrivial": spread(r.get("cpuPerOrderVsTrivial") for r in rs),
            "cpuPerOrderVsFloor": spread(r.get("cpuPerOrderVsFloor") for r in rs),
            "floor": rs[0].get("floor"),
            "dbCpuUsPerSale": spread(r.get("dbCpuUsPerSale") for r in rs),
            "insertCeilingDbCpuUsPerRow": spread(r.get("insertCeilingDbCpuUsPerRow") for r in rs),
            "steady": all(r.get("steady") for r in rs) if all(r.get("steady") is not None for r in rs) else None,
            "driftFlagged": any(r.get("driftFlagged") for r in rs),
            "othersCpuPercent": spread(crowded.others_percent(r) for r in rs),
            "stolenCpuPercent": spread(crowded.stolen_percent(r) for r in rs),
            # what the row cost to run: its process group's memory, threads and processes, the database
            # connections it kept open, and the inserts it keeps in flight (its manifest's inFlight)
            "rssMb": figure(rs, lambda r: group_figure(r, "variant", "rssMaxMb"), tag + "/rss"),
            "liveHeapMb": figure(rs, live_heap, tag + "/heap"),
            "threads": spread(group_figure(r, "variant", "threadsMax") for r in rs),
            "processes": spread(group_figure(r, "variant", "processes") for r in rs),
            "dbConnectionsOpen": spread(r.get("dbConnectionsOpen") for r in rs),
            "dbConnections": rs[0].get("dbConnections"),
            "inFlight": rs[0].get("inFlight"),
        })
    windows = {id(row): counted_of(groups, row) for row in rows}
    for row in rows:
        row["against"] = {}
        for o in rows:
            if o is row or o["case"] != row["case"] or o["rate"] != row["rate"] or o["engines"] != row["engines"]:
                continue
            row["against"][o["variant"]] = verdict.compare(
                by_process(windows[id(row)], lambda r: r["salesPerMinute"]),
                by_process(windows[id(o)], lambda r: r["salesPerMinute"]), tag=f"{row['variant']}/{o['variant']}")
        # no difference detected by the interval of the ratio of the two rows' sales/min
        row["withinNoiseOf"] = sorted(v for v, r in row["against"].items() if r and r["verdict"] == verdict.SAME)
        row["unchecked"] = sorted(v for v, r in row["against"].items() if r and r["verdict"] == verdict.UNKNOWN)
    return rows


def counted_of(groups: dict[tuple[Any, ...], list[Run]], row: Derived) -> list[Run]:
    return counted(groups[(row["case"], row["variant"], row["rate"], row["engines"])])[0]


def ratio_rows(doc: dict[str, Any]) -> list[dict[str, Any]]:
    """An experiment's ratios (experiments.ratios_of): ours as median ÷ median, with the range min ÷ max to
    max ÷ min of the repeats, beside the article's."""
    out = []
    rows = doc.get("summary") or []
    for r in (doc.get("experiment") or {}).get("ratios") or []:
        def find(ref: dict[str, Any]) -> dict[str, Any] | None:
            return next((x for x in rows if x["case"] == ref["case"] and x["variant"] == ref["variant"]), None)
        num, den = find(r["numerator"]), find(r["denominator"])
        ours = lo = hi = None
        if num and den and den["salesPerMinute"]["median"]:
            n, d = num["salesPerMinute"], den["salesPerMinute"]
            ours = n["median"] / d["median"]
            lo, hi = n["min"] / d["max"], n["max"] / d["min"]
        out.append({**r, "ours": ours, "oursMin": lo, "oursMax": hi})
    return out


def budget_rows(doc: dict[str, Any]) -> list[dict[str, Any]]:
    """Where an order's CPU goes, per summary row (medians): the variant's µs, of them its framework floor's and
    its own work (the rest), the load client's and the database's µs, their sum against the machine's cores, and
    the orders/s the cores would allow if the variant's own work cost nothing (the same per-order costs for the
    floor, the load client and the database): an upper bound for any change that leaves the framework, the load
    client and the database as they are, as a fraction of the runtime's trivial server."""
    cores = (doc.get("environment") or {}).get("cores")
    out = []
    for r in doc.get("summary") or []:
        med = {g: (s or {}).get("median") for g, s in (r.get("cpuUsPerOrder") or {}).items()}
        v, lc, db = med.get("variant"), med.get("loadclient"), med.get("database")
        floor = (r.get("floorCpuUsPerRequest") or {}).get("median")
        ops = (r.get("ordersPerSecond") or {}).get("median")
        ceiling = (r.get("httpCeiling") or {}).get("median")
        if v is None or lc is None or db is None:
            continue
        bound = cores * 1e6 / (floor + lc + db) if cores and floor else None
        out.append({"case": r["case"], "variant": r["variant"], "floor": r.get("floor"), "variantUs": v,
                    "rootUs": med.get("variantRoot"),
                    "floorUs": floor, "ownUs": v - floor if floor is not None else None, "loadclientUs": lc,
                    "databaseUs": db, "totalUs": v + lc + db,
                    "machinePercent": (v + lc + db) * ops / (cores * 1e4) if cores and ops else None,
                    "boundIfOwnWorkFree": bound,
                    "boundFraction": bound / ceiling if bound and ceiling else None})
    return out


FIGURES = {   # a figure of a run record, and whether more of it is better
    "salesPerMinute": (lambda r: r.get("salesPerMinute"), True),
    "ordersPerSecond": (lambda r: r.get("ordersPerSecond"), True),
    "cpuUsPerOrderVariant": (lambda r: per_order(r, "variant"), False),
    "p99Ms": (lambda r: r.get("p99Ms"), False),
    "httpCeilingFraction": (lambda r: r.get("httpCeilingFraction"), True),
    "insertCeilingFraction": (lambda r: r.get("insertCeilingFraction"), True),
}


def windows_of(doc: dict[str, Any], case: str, variant: str, rate: float | None = None, engines: int | None = None) -> list[Run]:
    """The windows a summary row of DOC is computed from (counted(): drifting ones set aside)."""
    rs = [r for r in doc["runs"] if not r.get("error") and r.get("salesPerMinute") is not None
          and r["case"] == case and shown(r) == variant
          and (rate is None or r.get("rate") == rate) and (engines is None or r["engines"] == engines)]
    return counted(rs)[0]


def ratio_of(b_runs: list[Run], a_runs: list[Run], fig: str, tag: str = "") -> dict[str, Any] | None:
    """B ÷ A of FIG with its interval and verdict (verdict.compare)."""
    get, _ = FIGURES[fig]
    return verdict.compare(by_process(b_runs, get), by_process(a_runs, get), tag=f"{tag}/{fig}")
