"""The results folder of a run: results/<run-id>/ with results.json (the format
is docs/results-format.md), runs.csv, summary.md and report.html.

This module turns the load client's JSON and the samples into run records,
and run records into the summary (median, min, max, ceiling fractions, noise).
"""
from __future__ import annotations

import csv
import json
import statistics
import time
from pathlib import Path

from . import calibrate, process

SCHEMA_VERSION = 1
DRIFT_FLAG = 0.10
# the JVM's JIT compiler threads using more than this (% of a core) in the measured window: still warming up
JIT_FLAG = 5.0


def new_run_id(command: str) -> str:
    return time.strftime("%Y%m%d-%H%M%S") + f"-{command}"


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
    import math

    def x(p):
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


def run_figures(load: dict, samples: dict, hgrm: Path | None, timing) -> dict:
    """The figures of one run from the load client's JSON and the process samples."""
    dbf = load.get("db") or {}
    lat = load.get("latencyMs") or {}
    ans = load.get("answers") or {}
    warm = load.get("warmup") or {}
    halves = load.get("halves") or {}
    start, end = load.get("windowStartMs"), load.get("windowEndMs")
    drift = halves.get("drift")
    spm = dbf.get("salesPerMinute")
    ops = load.get("requestsPerSecond")
    cpu = {g: process.summarize(s, start, end) for g, s in samples.items()}
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
        "warmupMode": warm.get("mode") or ("fixed" if timing.warmup != "auto" else "fixed (load client without auto)"),
        "warmupS": warm.get("seconds", load.get("warmupS")),
        "steady": warm.get("steady"),
        "warmupWindowsOrdersPerSecond": warm.get("windowsOrdersPerSecond"),
        "halves": halves or None,
        "drift": drift,
        "driftFlagged": drift is not None and abs(drift) > DRIFT_FLAG,
        "cpu": cpu,
        # what one order cost each process group in CPU: the variant's figure is what the CPU budget is about
        "cpuUsPerOrder": cpu_us_per_order(cpu, ops),
        "latencyPercentiles": thin(parse_hgrm(hgrm)) if hgrm else None,
        "load": {k: v for k, v in load.items() if k not in ("byStatus",)},
    }


def cpu_us_per_order(cpu: dict, ops) -> dict:
    """Each group's CPU µs per order; for a variant of several processes (node-engine: the HTTP parent and its
    engine children) also its root process's alone ("variantRoot")."""
    out = {g: calibrate.cpu_us_per(c.get("cpuPercent"), ops) for g, c in cpu.items()}
    v = cpu.get("variant") or {}
    if (v.get("processes") or 0) > 1 and v.get("rootCpuPercent") is not None:
        out["variantRoot"] = calibrate.cpu_us_per(v["rootCpuPercent"], ops)
    return out


def attach_fractions(run: dict, cal: dict) -> None:
    """orders/s ÷ the runtime's HTTP ceiling; sales/s ÷ the insert ceiling of the persist mode; the variant's
    CPU per order ÷ the trivial server's CPU per request (how many bare servers' worth of work an order is)."""
    http = calibrate.http_of(cal, run["runtime"])
    ins = calibrate.insert_of(cal, run["persist"], run["dbConnections"])
    run["httpCeiling"] = http
    run["insertCeiling"] = ins
    ops, sps = run.get("ordersPerSecond"), run.get("salesPerSecond")
    run["httpCeilingFraction"] = round(ops / http, 6) if http and ops is not None else None
    run["insertCeilingFraction"] = round(sps / ins, 6) if ins and sps is not None else None
    cost = calibrate.http_cost_of(cal, run["runtime"])
    mine = (run.get("cpuUsPerOrder") or {}).get("variant")
    run["trivialServerCpuUsPerRequest"] = cost
    run["cpuPerOrderVsTrivial"] = round(mine / cost, 3) if cost and mine is not None else None
    # the database's CPU per sale stored, beside what a row cost it at the insert ceiling of the same kind
    db_pct = ((run.get("cpu") or {}).get("database") or {}).get("cpuPercent")
    run["dbCpuUsPerSale"] = calibrate.cpu_us_per(db_pct, sps)
    run["insertCeilingDbCpuUsPerRow"] = calibrate.insert_cost_of(cal, run["persist"], run["dbConnections"])
    floor = calibrate.floor_cost_of(cal, run.get("floor"), run["runtime"])
    run["floorCpuUsPerRequest"] = floor
    run["cpuPerOrderVsFloor"] = round(mine / floor, 3) if floor and mine is not None else None


def spread(values) -> dict | None:
    vals = [v for v in values if v is not None]
    if not vals:
        return None
    return {"median": statistics.median(vals), "min": min(vals), "max": max(vals), "n": len(vals)}


def overlaps(a: dict | None, b: dict | None) -> bool:
    return bool(a and b and a["min"] <= b["max"] and b["min"] <= a["max"])


def shown(run: dict) -> str:
    """A run's name in the tables: its variant, and its manifest row's settings when it has any
    ("node-engine WORKERS=threads")."""
    return run["variant"] + (f" {run['row']}" if run.get("row") else "")


def summarize(runs: list[dict]) -> list[dict]:
    """Per (case, variant): median, min and max of each figure over its repeats, and which other variants
    of the case have an overlapping sales/min range (a difference within noise)."""
    groups: dict[tuple, list[dict]] = {}
    for r in runs:
        if r.get("error") or r.get("salesPerMinute") is None:
            continue
        key = (r["case"], shown(r), r.get("rate"), r["engines"])
        groups.setdefault(key, []).append(r)
    rows = []
    for (case, variant, rate, engines), rs in groups.items():
        cpu = {}
        for g in ("variant", "loadclient", "database"):
            cpu[g] = spread([(r["cpu"].get(g) or {}).get("cpuPercent") for r in rs])
        rows.append({
            "case": case, "variant": variant, "variantName": rs[0]["variant"], "runtime": rs[0]["runtime"], "rate": rate, "engines": engines,
            "persist": rs[0]["persist"], "settings": rs[0]["settings"], "repeats": len(rs),
            "salesPerMinute": spread(r["salesPerMinute"] for r in rs),
            "ordersPerSecond": spread(r["ordersPerSecond"] for r in rs),
            "p50Ms": spread(r["p50Ms"] for r in rs),
            "p99Ms": spread(r["p99Ms"] for r in rs),
            "p999Ms": spread(r.get("p999Ms") for r in rs),
            "httpCeilingFraction": spread(r.get("httpCeilingFraction") for r in rs),
            "insertCeilingFraction": spread(r.get("insertCeilingFraction") for r in rs),
            "cpuPercent": cpu,
            "jitCpuPercent": spread(((r.get("cpu") or {}).get("variant") or {}).get("jitCpuPercent") for r in rs),
            "jitWarmupSeconds": spread((r.get("jitWarmup") or {}).get("seconds") for r in rs),
            "jitWarmupBounded": any(r.get("jitWarmup") and not r["jitWarmup"].get("quiet") for r in rs),
            "cpuUsPerOrderVariant": spread((r.get("cpuUsPerOrder") or {}).get("variant") for r in rs),
            "cpuUsPerOrder": {g: spread((r.get("cpuUsPerOrder") or {}).get(g) for r in rs)
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
        })
    for row in rows:
        row["withinNoiseOf"] = sorted(
            o["variant"] for o in rows
            if o is not row and o["case"] == row["case"] and o["rate"] == row["rate"] and o["engines"] == row["engines"]
            and overlaps(row["salesPerMinute"], o["salesPerMinute"]))
    return rows


def jit_note(row: dict) -> list[str]:
    """'⚠ JIT n %' when the variant's JIT compiler threads used more than JIT_FLAG % of a core in the window
    (median of the repeats): part of its CPU per order is the JVM still compiling, not its steady cost."""
    j = row.get("jitCpuPercent")
    notes = [f"⚠ JIT {j['median']:.0f} %"] if j and j["median"] > JIT_FLAG else []
    w = row.get("jitWarmupSeconds")
    if w:
        notes.append(f"JIT warm-up {w['median']:.0f} s" + (" (bound reached: not quiet)" if row.get("jitWarmupBounded") else ""))
    return notes


def fmt(v, spec=",.0f") -> str:
    return "–" if v is None else format(v, spec)


def cell(s: dict | None, spec=",.0f", pct=False) -> str:
    """median (min–max)."""
    if not s:
        return "–"
    k = 100 if pct else 1
    suffix = " %" if pct else ""
    if s["n"] == 1:
        return f"{fmt(s['median'] * k, spec)}{suffix}"
    return f"{fmt(s['median'] * k, spec)} ({fmt(s['min'] * k, spec)}–{fmt(s['max'] * k, spec)}){suffix}"


def setting_text(row: dict) -> str:
    s = row["settings"]
    t = f"{row['engines']} engines, {row['persist']}"
    extra = {k: v for k, v in s.items() if k in ("THREADS", "DISPATCHER") }
    t += "".join(f", {k}={v}" for k, v in extra.items())
    if row.get("rate"):
        t += f", rate {row['rate']}/s"
    return t


SUMMARY_HEAD = ("| case | variant | settings | sales/min | orders/s | orders/s ÷ HTTP ceiling | sales/s ÷ insert ceiling "
                "| p99 ms | CPU % variant / load client / db | variant CPU µs/order (× trivial server's; × its framework floor's) "
                "| db CPU µs/sale (at the insert ceiling) | steady | notes |\n"
                "| --- | --- | --- | ---: | ---: | ---: | ---: | ---: | --- | ---: | ---: | --- | --- |\n")


def db_cost_cell(row: dict) -> str:
    """The database's CPU µs per sale stored (median), and per row at the matching insert ceiling."""
    us, ceil = row.get("dbCpuUsPerSale"), row.get("insertCeilingDbCpuUsPerRow")
    if not us:
        return "–"
    return f"{us['median']:.1f}" + (f" ({ceil['median']:.1f})" if ceil else "")


def cost_cell(row: dict) -> str:
    """The variant's CPU µs per order, median (min–max), then its median × the trivial server's µs per request
    and × its floor's (its own framework answering 202), when the calibration has them."""
    us, ratio, vs_floor = row.get("cpuUsPerOrderVariant"), row.get("cpuPerOrderVsTrivial"), row.get("cpuPerOrderVsFloor")
    times = []
    if ratio:
        times.append(f"×{ratio['median']:.1f}")
    if vs_floor and row.get("floor"):
        times.append(f"×{vs_floor['median']:.1f} {row['floor']}")
    return cell(us, ".1f") + (f" ({'; '.join(times)})" if times else "")


def summary_md(doc: dict) -> str:
    lines = [f"# tradebench {doc['command']} {doc['runId']}\n",
             "Each cell: median (min–max) over the repeats. ≈ marks variants whose sales/min ranges overlap "
             "(the difference is within noise); ⚠ drift: the two halves of a measured window differ by over 10 %; ⚠ JIT: the JVM's JIT compiler "
             "threads used more than 5 % of a core in the window (the variant was still compiling); JIT warm-up: how long "
             "a JVM variant got the load before the measured one, until its JIT compiler used under 5 % of a core. "
             "CPU µs/order: the variant's CPU over the window per order answered; × trivial server's: divided by what "
             "its runtime's trivial server spent per request in the calibration, and by what its own HTTP framework "
             "(its floor: Tomcat, Akka HTTP) spent answering 202 with nothing behind it. db CPU µs/sale: the database's "
             "CPU per sale stored, and in brackets per row at the insert ceiling of the same kind (single-row or "
             "100-row statements, same connections) when the database had the cores nearly to itself.\n",
             SUMMARY_HEAD.rstrip("\n")]
    for r in doc["summary"]:
        cpu = " / ".join(fmt((r["cpuPercent"].get(g) or {}).get("median"), ".0f") for g in ("variant", "loadclient", "database"))
        notes = []
        if r["withinNoiseOf"]:
            notes.append("≈ " + ", ".join(r["withinNoiseOf"]))
        if r["driftFlagged"]:
            notes.append("⚠ drift")
        notes += jit_note(r)
        steady = {True: "yes", False: "no", None: "–"}[r["steady"]]
        if r.get("articleSalesPerMinute"):
            notes.append(f"article: {r['articleSalesPerMinute']:,} sales/min")
        lines.append(f"| {r['case'] or '–'} | {r['variant']} | {setting_text(r)} | {cell(r['salesPerMinute'])} "
                     f"| {cell(r['ordersPerSecond'])} | {cell(r['httpCeilingFraction'], '.1f', True)} "
                     f"| {cell(r['insertCeilingFraction'], '.1f', True)} | {cell(r['p99Ms'], '.2f')} | {cpu} | {cost_cell(r)} | {db_cost_cell(r)} | {steady} "
                     f"| {'; '.join(notes)} |")
    ratios = ratio_rows(doc)
    if ratios:
        lines += ["", "## The article's ratios beside ours", "", "| ratio | ours (min–max) | article | what it comes from |",
                  "| --- | ---: | ---: | --- |"]
        lines += ["| " + " | ".join(ratio_cells(r)) + " |" for r in ratios]
    budget = budget_rows(doc)
    if budget:
        lines += ["", "## Where an order's CPU goes", "", BUDGET_TEXT, "",
                  "| " + " | ".join(BUDGET_HEAD) + " |", "| " + " | ".join(["---"] * 2 + ["---:"] * 9) + " |"]
        lines += ["| " + " | ".join(budget_cells(b)) + " |" for b in budget]
    cal = doc.get("calibration") or {}
    if cal:
        lines += ["", "## This machine's ceilings", "", calibration_md(cal)]
    failed = [r for r in doc["runs"] if r.get("error")]
    if failed:
        lines += ["", "## Failed runs", ""] + [f"- {r['variant']} {r['case']} repeat {r['repeat']}: {r['error']}" for r in failed]
    e = doc["environment"]
    lines += ["", "## Environment", "",
              f"git {e.get('gitCommit')} (dirty: {e.get('gitDirty')}), {e.get('cpuModel')}, {e.get('cores')} cores, "
              f"{e.get('memoryGb')} GB, kernel {e.get('kernel')}, load before {e.get('loadAverageBefore')}, "
              f"{e.get('jdk')}, node {e.get('node')}, database {e.get('database')}"]
    return "\n".join(lines) + "\n"


def ratio_rows(doc: dict) -> list[dict]:
    """An experiment's ratios (experiments.ratios_of): ours as median ÷ median, with the range min ÷ max to
    max ÷ min of the repeats, beside the article's."""
    out = []
    rows = doc.get("summary") or []
    for r in (doc.get("experiment") or {}).get("ratios") or []:
        def find(ref):
            return next((x for x in rows if x["case"] == ref["case"] and x["variant"] == ref["variant"]), None)
        num, den = find(r["numerator"]), find(r["denominator"])
        ours = lo = hi = None
        if num and den and den["salesPerMinute"]["median"]:
            n, d = num["salesPerMinute"], den["salesPerMinute"]
            ours = n["median"] / d["median"]
            lo, hi = n["min"] / d["max"], n["max"] / d["min"]
        out.append({**r, "ours": ours, "oursMin": lo, "oursMax": hi})
    return out


def ratio_cells(r: dict) -> list[str]:
    ours = "–" if r["ours"] is None else f"{r['ours']:.2f}" + (
        f" ({r['oursMin']:.2f}–{r['oursMax']:.2f})" if r["oursMin"] is not None and r["oursMin"] != r["oursMax"] else "")
    return [r["name"], ours, fmt(r.get("article"), ".2f"), r.get("why") or ""]


def budget_rows(doc: dict) -> list[dict]:
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


BUDGET_HEAD = ["case", "variant", "variant µs/order", "of which its floor's", "its own work", "load client µs/order",
               "database µs/order", "all µs/order", "the cores used", "orders/s if its own work were free",
               "÷ HTTP ceiling"]


def budget_cells(b: dict) -> list[str]:
    floor = f"{fmt(b['floorUs'], '.1f')} ({b['floor'] or 'trivial server'})" if b["floorUs"] is not None else "–"
    variant = fmt(b["variantUs"], ".1f") + (f" (main process {b['rootUs']:.1f})" if b.get("rootUs") is not None else "")
    return [b["case"] or "–", b["variant"], variant, floor, fmt(b["ownUs"], ".1f"),
            fmt(b["loadclientUs"], ".1f"), fmt(b["databaseUs"], ".1f"), fmt(b["totalUs"], ".1f"),
            fmt(b["machinePercent"], ".0f") + (" %" if b["machinePercent"] is not None else ""),
            fmt(b["boundIfOwnWorkFree"]), fmt(b["boundFraction"] * 100 if b["boundFraction"] else None, ".0f")
            + (" %" if b["boundFraction"] else "")]


BUDGET_TEXT = ("Medians of CPU µs per order answered (a process group's CPU over the window ÷ orders/s); a variant of "
               "several processes also shows its main one's share (node-engine's HTTP parent). The floor is the "
               "variant's own HTTP framework answering 202 with nothing behind it, measured in the calibration "
               "(node-engine's: the trivial node:http server); its own work is the rest: validation, engine, "
               "storage. The cores used: all three groups together, of every core. Orders/s if its own work were "
               "free: the cores ÷ (floor + load client + database), at this run's per-order costs of those three — "
               "a bound for anything that keeps the framework, the load client and the database.")


def warmup_text(v: dict) -> str:
    """How a ceiling's warm-up ended: "steady after 15 s", "not steady (45 s)", "fixed 5 s" (older runs: –)."""
    w = v.get("warmup") or {}
    if w.get("mode") == "auto":
        return f"steady after {fmt(w.get('seconds'), '.0f')} s" if w.get("steady") else f"not steady ({fmt(w.get('seconds'), '.0f')} s)"
    return f"fixed {fmt(w.get('seconds'), '.0f')} s" if w.get("mode") == "fixed" else "–"


def calibration_md(cal: dict) -> str:
    out = ["| ceiling | figure | warm-up | CPU µs per request (row): server or database / load client |",
           "| --- | ---: | --- | --- |"]
    servers = [(f"HTTP, {rt} trivial server", f"HTTP, {rt}", v) for rt, v in (cal.get("http") or {}).items()]
    servers += [(f"floor: {name} answering 202", f"floor: {name}", v) for name, v in (cal.get("floors") or {}).items()]
    for label, short, v in servers:
        us = v.get("cpuUsPerRequest") or {}
        cost = f"{fmt(us.get('server'), '.1f')} / {fmt(us.get('loadclient'), '.1f')}"
        out.append(f"| {label} ({cal.get('concurrency')} connections) | "
                   f"{fmt(v.get('ordersPerSecond'))} orders/s | {warmup_text(v)} | {cost} |" if "error" not in v
                   else f"| {short} | {v['error']} | | |")
    ins = cal.get("insert") or {}
    if "error" in ins:
        out.append(f"| database inserts | {ins['error']} | |")
    else:
        for n, e in ins.items():
            for key, name in (("singleRow", "single-row autocommit"), ("multiRow", f"{cal.get('multiRowBatch')}-row statements")):
                v = e.get(key) or {}
                us = v.get("cpuUsPerRow") or {}
                cost = f"{fmt(us.get('database'), '.1f')} / {fmt(us.get('loadclient'), '.1f')}" if us else ""
                out.append(f"| inserts, {name}, {n} connections | "
                           + (f"{fmt(v.get('rowsPerSecond'))} rows/s | {warmup_text(v)} | {cost} |" if "error" not in v
                              else f"{v['error']} | | |"))
    return "\n".join(out)


CSV_FIELDS = ["case", "variant", "row", "repeat", "engines", "persist", "waitMs", "rate", "concurrency", "dbLatencyMs",
              "salesPerMinute", "ordersPerSecond", "p50Ms", "p99Ms", "p999Ms", "answers503", "errors", "warmupS",
              "steady", "drift", "httpCeilingFraction", "insertCeilingFraction", "cpuVariant", "cpuLoadclient",
              "cpuDatabase", "cpuUsPerOrderVariant", "cpuPerOrderVsTrivial", "cpuPerOrderVsFloor", "dbCpuUsPerSale", "rssVariantMb", "threadsVariant",
              "rttMs", "inFlight", "boundSalesPerMinute", "boundFraction", "error"]


def write_csv(path: Path, runs: list[dict]) -> None:
    with open(path, "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=CSV_FIELDS, extrasaction="ignore")
        w.writeheader()
        for r in runs:
            cpu = r.get("cpu") or {}
            row = dict(r)
            row["cpuVariant"] = (cpu.get("variant") or {}).get("cpuPercent")
            row["cpuLoadclient"] = (cpu.get("loadclient") or {}).get("cpuPercent")
            row["cpuDatabase"] = (cpu.get("database") or {}).get("cpuPercent")
            row["cpuUsPerOrderVariant"] = (r.get("cpuUsPerOrder") or {}).get("variant")
            row["rssVariantMb"] = (cpu.get("variant") or {}).get("rssMaxMb")
            row["threadsVariant"] = (cpu.get("variant") or {}).get("threadsMax")
            w.writerow(row)


def write_all(folder: Path, doc: dict) -> None:
    """results.json, runs.csv, summary.md and report.html of DOC into FOLDER."""
    from . import report
    if doc.get("cells"):         # a latency sweep or a map (cells.py): its own view (answer.py)
        from . import answer
        doc["summary"] = answer.points(doc)
        (folder / "results.json").write_text(json.dumps(doc, indent=1))
        write_csv(folder / "runs.csv", doc["runs"])
        (folder / "summary.md").write_text(answer.md(doc))
        drawn = answer.charts(doc)
        (folder / "report.html").write_text(answer.html(doc, drawn))
        import base64
        for name, (_, data) in drawn.items():      # each chart as a file too, for a README to show
            (folder / f"{name}.png").write_bytes(base64.b64decode(data))
        return
    doc["summary"] = summarize(doc["runs"])
    article = (doc.get("experiment") or {}).get("article") or {}
    for row in doc["summary"]:
        row["articleSalesPerMinute"] = (article.get(row["case"]) or {}).get(row["variant"])
    (folder / "results.json").write_text(json.dumps(doc, indent=1))
    write_csv(folder / "runs.csv", doc["runs"])
    (folder / "summary.md").write_text(summary_md(doc))
    (folder / "report.html").write_text(report.html(doc))


def link_latest(results_dir: Path, folder: Path) -> None:
    """results/latest: the newest run (when FOLDER is one of results/)."""
    if folder.parent != results_dir:
        return
    latest = results_dir / "latest"
    try:
        if latest.is_symlink() or latest.exists():
            latest.unlink()
        latest.symlink_to(folder.name)
    except OSError:
        pass


def load(ref: str, results_dir: Path) -> dict:
    """A results.json by run id, folder or file."""
    p = Path(ref)
    for cand in (p, p / "results.json", results_dir / ref / "results.json"):
        if cand.is_file():
            return json.loads(cand.read_text())
    raise FileNotFoundError(f"no results.json for {ref} (looked in {results_dir})")
