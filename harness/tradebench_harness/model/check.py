"""The model held against a measurement: per cell of a map (or sweep), prediction beside measurement.

Each run is predicted from a parameter set and what the run was asked to do (its design, settings,
offered rate, its database: the probe's round trip at its setting, the cores its server was held to), never
from what the variant measured; its CPU and p99 at the machine's pace while the run's process was measured,
gauged by the load client's cost per order against a calibrated set's (model/pace.py), else at the set's. A run's database is its own
(`dbCpuCores`, `dbDurable`: a map along a busy or a durable database sets it per cell), else, in a folder made
before runs carried it, the whole run's. A map calls `held_against(doc, root)` (or `against(doc, pset,
designs)`) and prints `table(...)` and `summary(...)`.
"""
from __future__ import annotations

from pathlib import Path
from typing import Any

from .. import record
from ..analysis.crowded import crowded
from ..record import Parameters, ParameterSet, Run
from . import pace, params
from .designs import Design, all_designs, key_of
from .light import compiled_cpu_percent
from .plan import predict_design
from .predict import Database, inserts_in_flight, latency_at

#: a prediction within this share of the measurement counts as right
WITHIN = 0.15
#: orders waiting per engine before a 503 where a manifest does not say (the contract's default)
INBOX_LIMIT = 10_000


def _err(pred: float | None, meas: float | None) -> float | None:
    if pred is None or not meas:
        return None
    return pred / meas - 1.0


def against(doc: dict[str, Any], pset: ParameterSet, designs: list[Design]) -> list[dict[str, Any]]:
    """One row per open-loop run of DOC: measured and predicted sales/min, variant CPU % and RSS, and the errors."""
    by_key = {d.key: d for d in designs}
    env = doc.get("environment") or {}
    cores = env.get("cores")
    rtts = (doc.get("cells") or {}).get("rttMs") or {}
    out = []
    runs: list[Run] = doc.get("runs", [])
    paces = pace.process_paces(runs, pset)
    for r in runs:
        if "error" in r or r["rate"] is None or r.get("salesPerSecond") is None:
            continue
        key = key_of(r, designs)
        if key not in by_key:
            continue
        d = by_key[key]
        lat = r["dbLatencyMs"]
        db_cores, durable = _cores(r, env), _durable(r, env)
        rtt = r.get("rttMs") or rtts.get(str(lat))
        if rtt is None:
            continue
        overrides = {k: v for k, v in r["settings"].items() if k in d.variant.settings and k != "PERSIST"}
        persist = r["persist"]
        # a durable database's fsync is in the probe's round trip already (the probe runs with the cell's
        # database: docs/model.md's RTT + F, F measured in the same hour); a busy one's capacity is not, and is
        # added from the cores the cell held it to, and so is the bound of the CPUs it had in an isolated layout
        db = _database_of(pset, persist, db_cores, env, linked=bool(lat) or "link" in (r.get("cpu") or {}))
        p = predict_design(d, persist, pset, float(r["rate"]), float(rtt), cores, overrides, db=db)
        stored = p.sales * p.rate / p.offered_sales if p.offered_sales else p.rate     # orders whose sales it stores
        share = waiting_share(d, overrides, p.rate, stored, doc.get("options"))
        if share:
            p = predict_design(d, persist, pset, float(r["rate"]), float(rtt), cores, overrides, db=db,
                               waiting_share=share)
        # the CPU of the variant's compiled code: the JIT compiler's transient is not the model's (light.py)
        cpu_pct, rss = compiled_cpu_percent(r), record.group_figure(r, "variant", "rssMaxMb")
        cpu_pct = None if cpu_pct is None else round(cpu_pct, 1)
        # the set's CPU is of the pace its machine had when calibrated; this process's may differ (model/pace.py)
        slower = paces.get(r.get("process"), 1.0)
        used = None if p.cores is None else p.cores * slower
        row = {"design": key, "latencyMs": lat, "dbCpuCores": db_cores, "dbDurable": durable, "rttMs": rtt,
               "rate": r["rate"],
               "salesPerMinute": r["salesPerMinute"], "predictedSalesPerMinute": round(p.sales_per_minute),
               "limit": p.limit, "salesError": _err(p.sales_per_minute, r["salesPerMinute"]),
               "cpuPercent": cpu_pct,
               "predictedCpuPercent": None if used is None else round(used * 100, 1),
               "cpuError": _err(None if used is None else used * 100, cpu_pct), "speedScale": round(slower, 3),
               "rssMb": rss, "predictedRssMb": None if p.rss_mb is None else round(p.rss_mb),
               "rssError": _err(p.rss_mb, rss),
               # a window others crowded (processes, or the hypervisor's other guests) is no measure of the model
               "crowded": crowded(r)}
        # latency below saturation only: a cell that carries its load, from the design's measured curve
        fig = params.figures(pset, key, persist)
        curve = (latency_at(fig.latency, float(r["rate"]), inserts_in_flight(p), fig.p99_per_in_flight_ms,
                            fig.p99_tail_rate_power)
                 if fig is not None and p.carries else None)
        # a tail is CPU work (pauses, queued service): it stretches with the pace; p50 is mostly the network's
        for name, i, measured, k in (("p50", 0, r.get("p50Ms"), 1.0), ("p99", 1, r.get("p99Ms"), slower)):
            pred = None if curve is None else round(float(curve[i]) * k, 3)
            row[f"{name}Ms"], row[f"predicted{name.upper()}Ms"] = measured, pred
            row[f"{name}Error"] = _err(pred, measured)
        out.append(row)
    return out


def waiting_share(d: Design, overrides: dict[str, Any], rate: float, stored: float, options: dict[str, Any] | None) -> float:
    """Of the orders a map's cell answers but does not store, the share its inboxes still accept in its window.

    Every cell starts drained: the inboxes (ENGINES × INBOX_LIMIT orders) fill at the orders it does not store
    and take all of them until full, then each is a 503. The window is the cell's --duration after its --settle."""
    rest = rate - stored
    if rest <= 0:
        return 0.0
    o = options or {}
    settle, window = float(o.get("settle") or 5), float(o.get("duration") or 10)
    room = (d.number("ENGINES", overrides) or 1) * (d.number("INBOX_LIMIT", overrides) or INBOX_LIMIT)
    full_at = room / rest
    return min(1.0, max(0.0, (full_at - settle) / window))


def _cores(run: Run, env: dict[str, Any]) -> float | None:
    v = run["dbCpuCores"] if "dbCpuCores" in run else env.get("databaseCpuCores")
    return float(v) if v else None


def _durable(run: Run, env: dict[str, Any]) -> bool:
    return bool(run["dbDurable"] if "dbDurable" in run else env.get("databaseDurable"))


def _database_of(pset: ParameterSet, persist: str, db_cores: float | None, env: dict[str, Any],
              linked: bool) -> Database | None:
    """The cell's database as the model sees it: busy when held to DB_CORES, and in an isolated layout on the CPUs
    the folder gave it, shared with the link when LINKED and with the load client where the layout put it there
    (the set's figures, never the checking machine's; None: neither bounds it)."""
    cpus = ((env.get("layout") or {}).get("cpus")) or {}
    own = set(cpus.get("database") or ()) if (env.get("layout") or {}).get("kind") == "isolated" else set()
    if not db_cores and not own:
        return None
    try:
        return params.database(pset, persist, float(db_cores) if db_cores else None,
                               own_cpus=float(len(own)) if own else None, linked=linked,
                               load_beside=bool(own & set(cpus.get("load") or ())))
    except ValueError:
        return None


def summary(rows: list[dict[str, Any]]) -> dict[str, Any]:
    """How many cells the model has within WITHIN, per figure."""
    out: dict[str, Any] = {"cells": len(rows)}
    for fig in ("sales", "cpu", "rss"):
        errs = [r[f"{fig}Error"] for r in rows if r.get(f"{fig}Error") is not None]
        out[fig] = {"within": sum(abs(e) <= WITHIN for e in errs), "of": len(errs)}
    return out


def _pct(e: float | None) -> str:
    return "" if e is None else f"{e * 100:+.0f} %"


def _database(r: dict[str, Any]) -> str:
    """A row's database beyond its latency: "0.25 cores", "synced", both, or "" (free, not synced)."""
    parts = ([f"{r['dbCpuCores']:g} cores"] if r.get("dbCpuCores") else []) + (["synced"] if r.get("dbDurable") else [])
    return ", ".join(parts)


def table(rows: list[dict[str, Any]]) -> str:
    """The rows as a Markdown table, prediction beside measurement, a miss marked ✗, a crowded window's row (left
    out of every score) marked ⚠; the database's column where a row's database was busy or durable."""
    db_col = any(_database(r) for r in rows)
    lines = ["| design | +ms | " + ("database | " if db_col else "") + "round trip ms | load | sales/min | predicted "
             "| error | limit | variant CPU % | predicted | error | RSS MB | predicted | error |",
             "| --- | ---: | " + ("--- | " if db_col else "") + "---: | ---: | ---: | ---: | ---: | --- | ---: | ---: "
             "| ---: | ---: | ---: | ---: |"]

    def mark(e: float | None) -> str:
        return _pct(e) + (" ✗" if e is not None and abs(e) > WITHIN else "")

    def order(r: dict[str, Any]) -> tuple[Any, ...]:
        return r["design"], r["latencyMs"], -(r.get("dbCpuCores") or float("inf")), bool(r.get("dbDurable")), r["rate"]

    for r in sorted(rows, key=order):
        busy = " ⚠ crowded, left out" if r.get("crowded") else ""
        lines.append(f"| {r['design']}{busy} | {r['latencyMs']} | " + (f"{_database(r) or 'free'} | " if db_col else "")
                     + f"{r['rttMs']:.3g} | {r['rate']:,}/s | "
                     f"{r['salesPerMinute']:,.0f} | {r['predictedSalesPerMinute']:,.0f} | {mark(r['salesError'])} | "
                     f"{r['limit']} | {r['cpuPercent'] if r['cpuPercent'] is not None else ''} | "
                     f"{r['predictedCpuPercent'] if r['predictedCpuPercent'] is not None else ''} | "
                     f"{mark(r['cpuError'])} | {r['rssMb'] if r['rssMb'] is not None else ''} | "
                     f"{r['predictedRssMb'] if r['predictedRssMb'] is not None else ''} | {mark(r['rssError'])} |")
    return "\n".join(lines)


def held_against(doc: dict[str, Any], root: Path, param_doc: Parameters | None = None) -> dict[str, Any] | None:
    """DOC (a map's results.json) against the parameter set of its machine (PARAM_DOC, by default the committed set
    of its machine in its layout, params.committed): {"parameters", "otherMachine", "inSample", "rows", "summary"}.
    With no set for its machine, the newest set of another machine, said so (sales, bound by what is offered or kept
    in flight, hardly depend on it; CPU does). inSample: DOC is one of the runs the set was fitted from, so the check
    is no check."""
    env = doc.get("environment") or {}
    pdoc = param_doc or params.load(params.COMMITTED)
    kind = (env.get("layout") or {}).get("kind") or "shared"
    found = (params.for_machine(pdoc, env.get("cpuModel"), env.get("cores")) if param_doc
             else params.committed(env.get("cpuModel"), env.get("cores"), kind))
    other = found is None
    pset = found if found is not None else max(pdoc["sets"], key=params.newest_source)
    rows = against(doc, pset, all_designs(root))
    return {"parameters": ("another machine's: " if other else "") + params.describe(pset), "otherMachine": other,
            "inSample": doc.get("runId") in params.fitted_from(pset),
            "rows": rows, "summary": summary(rows)}
