"""The statistics of a run's records: per (case, variant) the median, min and max of each figure over the
repeats, which variants' ranges overlap (a difference within noise), an experiment's ratios, and where an
order's CPU goes. Plain figures in, plain figures out: nothing here formats, draws or writes."""
from __future__ import annotations

import statistics

# a measured window whose two halves differ by more than this share is flagged (drift)
DRIFT_FLAG = 0.10
# the JVM's JIT compiler threads using more than this (% of a core) in the measured window: still warming up
JIT_FLAG = 5.0


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
            # what the row cost to run: its process group's memory, threads and processes, the database
            # connections it kept open, and the inserts it keeps in flight (its manifest's inFlight)
            "rssMb": spread(((r.get("cpu") or {}).get("variant") or {}).get("rssMaxMb") for r in rs),
            "threads": spread(((r.get("cpu") or {}).get("variant") or {}).get("threadsMax") for r in rs),
            "processes": spread(((r.get("cpu") or {}).get("variant") or {}).get("processes") for r in rs),
            "dbConnectionsOpen": spread(r.get("dbConnectionsOpen") for r in rs),
            "dbConnections": rs[0].get("dbConnections"),
            "inFlight": rs[0].get("inFlight"),
        })
    for row in rows:
        row["withinNoiseOf"] = sorted(
            o["variant"] for o in rows
            if o is not row and o["case"] == row["case"] and o["rate"] == row["rate"] and o["engines"] == row["engines"]
            and overlaps(row["salesPerMinute"], o["salesPerMinute"]))
    return rows


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
