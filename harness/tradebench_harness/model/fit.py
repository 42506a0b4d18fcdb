"""Fitting the model's parameters from results folders (results.json of compare, sweep, map, bench).

What each figure is fitted from, per machine (a CPU model and core count; runs of other machines
are fitted apart and never mixed in):

- sales per order: the load's matching rate, sales/s ÷ orders accepted/s, the median over the runs
  that stored what they accepted (no 503, under any bound);
- one INSERT's own round trip: the sweep's or map's probe at +0 ms (`cells.rttMs["0"]`), the newest;
- CPU µs per order, per design and persist mode: the saturation runs (closed loop, no pause, no
  added latency: a compare, or a sweep's +0 ms cells), the newest folder that measured the design;
  a design it lacks comes from an older folder, scaled by the two folders' ratio over the designs
  both measured (a machine is not equally fast every hour);
- CPU µs per engine cycle: where one folder measured a design at saturation with two engine counts
  (the sweep's equal in-flight rows), the two equations cpu = engines × cycles/s × cycle + orders × order;
- each design's own time per insert, beyond the probe's round trip: the runs at their bound (a sweep or
  map cell above it, 0.75–1.25 of it, at least 1 ms added): in flight ÷ sales/s − round trip, the median;
- RSS: the saturation runs' peak, and per engine from runs with two engine counts at the same latency.

A design no folder of a machine measured gets another machine's figures, CPU scaled by the ratio of
the two machines over the designs both measured; every figure says where it came from.
"""
from __future__ import annotations

import json
import statistics
from datetime import datetime, timezone
from pathlib import Path

from . import params
from .designs import Design, key_of
from .predict import cycles_per_s

PERSISTS = ("per-sale", "batch")


def read(folder: str | Path) -> tuple[dict, str]:
    """A results folder's results.json (or the file itself), and how to name it."""
    p = Path(folder)
    f = p / "results.json" if p.is_dir() else p
    doc = json.loads(f.read_text())
    return doc, (p.name if p.is_dir() else p.parent.name)


def machine_of(doc: dict) -> tuple[str | None, int | None]:
    env = doc.get("environment") or {}
    return env.get("cpuModel"), env.get("cores")


def _ok(run: dict) -> bool:
    return ("error" not in run and run.get("salesPerSecond") is not None and run.get("ordersPerSecond")
            and (run.get("cpu") or {}).get("variant", {}).get("cpuPercent") is not None)


def _saturation(run: dict) -> bool:
    return run.get("rate") is None and not (run.get("dbLatencyMs") or 0) and not (run.get("waitMs") or 0)


def _median(xs):
    xs = [x for x in xs if x is not None]
    return statistics.median(xs) if xs else None


def _r(x, nd=3):
    return None if x is None else round(x, nd)


class _Folder:
    """One results.json, its runs keyed by design."""

    def __init__(self, doc: dict, name: str, designs: list[Design]):
        self.doc, self.name = doc, name
        self.started = doc.get("startedAt") or ""
        self.rtt0 = ((doc.get("cells") or {}).get("rttMs") or {}).get("0")
        self.runs = []
        for r in doc.get("runs", []):
            if _ok(r):
                k = key_of(r, designs)
                if k:
                    self.runs.append((k, r))

    def source(self) -> dict:
        env = self.doc.get("environment") or {}
        return {"runId": self.doc.get("runId"), "folder": self.name, "command": self.doc.get("command"),
                "gitCommit": (env.get("gitCommit") or "")[:7], "startedAt": self.started}

    def saturation(self, key: str, persist: str) -> dict[int, dict]:
        """Engines -> median cpu µs/s, orders/s, rss and DELAY_MS of its saturation runs of KEY in PERSIST."""
        by: dict[int, list] = {}
        for k, r in self.runs:
            if k == key and r.get("persist") == persist and _saturation(r):
                by.setdefault(int(r.get("engines") or 0), []).append(r)
        out = {}
        for e, rs in by.items():
            out[e] = {"cpuUsPerS": _median([r["cpu"]["variant"]["cpuPercent"] * 1e4 for r in rs]),
                      "orders": _median([r["ordersPerSecond"] for r in rs]),
                      "rss": _median([r["cpu"]["variant"].get("rssMaxMb") for r in rs]),
                      "delay": _median([_num((r.get("settings") or {}).get("DELAY_MS"), 3) for r in rs])}
        return out


def _num(v, default):
    try:
        return float(v)
    except (TypeError, ValueError):
        return default


def _cycle_and_order(points: dict[int, dict], rtt: float) -> tuple[float, float, int]:
    """From saturation runs at one or two engine counts: CPU µs per cycle, per order, and the engines used.

    Two counts give two equations, cpu = engines × cycles/s × cycle + orders × order; a negative solution
    (the JVMs: more engines parked on a lock cost nothing) says the cycles cost nothing measurable."""
    engines = sorted(points)
    e1 = engines[0]
    p1 = points[e1]
    if len(engines) >= 2:
        e2 = engines[-1]
        p2 = points[e2]
        a1, a2 = e1 * cycles_per_s(p1["delay"], rtt), e2 * cycles_per_s(p2["delay"], rtt)
        det = a2 * p1["orders"] - a1 * p2["orders"]
        if det:
            cyc = (p2["cpuUsPerS"] * p1["orders"] - p1["cpuUsPerS"] * p2["orders"]) / det
            order = (p1["cpuUsPerS"] - a1 * cyc) / p1["orders"]
            if cyc > 0 and order > 0:
                return cyc, order, e1
    return 0.0, p1["cpuUsPerS"] / p1["orders"], e1


def _ratio(newer: dict[str, float], older: dict[str, float]) -> tuple[float | None, list[str]]:
    both = sorted(set(newer) & set(older))
    r = _median([newer[k] / older[k] for k in both if older[k]])
    return r, both


def fit_machine(folders: list[_Folder], designs: list[Design]) -> dict:
    """One parameter set from the folders of one machine."""
    folders = sorted(folders, key=lambda f: f.started, reverse=True)      # newest first
    env = folders[0].doc.get("environment") or {}
    keys = [d.key for d in designs]
    out: dict = {"machine": {"cpuModel": env.get("cpuModel"), "cores": env.get("cores"),
                             "memoryGb": env.get("memoryGb")},
                 "fittedAt": datetime.now(timezone.utc).isoformat(timespec="seconds"),
                 "sources": [f.source() for f in folders]}

    # the load's matching rate: runs that stored what they accepted
    spo, spo_from = [], set()
    for f in folders:
        for _, r in f.runs:
            bf = r.get("boundFraction")
            if (not r.get("answers503") and not r.get("errors") and (r.get("acceptedPerSecond") or 0) > 0
                    and not r.get("driftFlagged") and (bf is None or bf < 0.5)):
                spo.append(r["salesPerSecond"] / r["acceptedPerSecond"])
                spo_from.add(f.name)
    out["salesPerOrder"] = {"value": _r(_median(spo)), "n": len(spo), "from": sorted(spo_from)}

    rtt_folder = next((f for f in folders if f.rtt0), None)
    out["dbOwnMs"] = ({"value": rtt_folder.rtt0, "from": f"{rtt_folder.name}: the probe at +0 ms"}
                      if rtt_folder else {"value": None, "from": "no probe in these folders"})
    rtt0 = rtt_folder.rtt0 if rtt_folder else 0.15

    figs: dict = {k: {} for k in keys}
    for persist in PERSISTS:
        # per folder: design -> (cycle µs, order µs, engines, rss points)
        per_folder = []
        for f in folders:
            got = {}
            for k in keys:
                pts = f.saturation(k, persist)
                if pts:
                    cyc, order, e = _cycle_and_order(pts, f.rtt0 or rtt0)
                    got[k] = {"cycle": cyc, "order": order, "engines": e, "points": pts}
            per_folder.append((f, got))
        chosen: dict[str, dict] = {}
        for f, got in per_folder:
            if not got:
                continue
            if not chosen:
                for k, g in got.items():
                    chosen[k] = {**g, "from": f"{f.name}: saturation, {g['engines']} engines"}
                newest = f
                continue
            ratio, both = _ratio({k: chosen[k]["order"] for k in chosen if chosen[k].get("scale", 1) == 1},
                                 {k: g["order"] for k, g in got.items()})
            for k, g in got.items():
                if k in chosen or ratio is None:
                    continue
                chosen[k] = {**g, "order": g["order"] * ratio, "cycle": g["cycle"] * ratio, "scale": ratio,
                             "from": f"{f.name}: saturation, {g['engines']} engines, × {ratio:.2f} (its ratio "
                                     f"to {newest.name} over {', '.join(both)})"}
        for k, c in chosen.items():
            pts, e = c["points"], c["engines"]
            p = pts[e]
            raw = c["order"] + e * cycles_per_s(p["delay"], rtt0) * c["cycle"] / p["orders"]   # all CPU ÷ orders
            cyc, cyc_from = c["cycle"], "one engine count measured: 0"
            if not cyc:
                pair = _cycle_from_pairs(folders, k, persist, rtt0)
                if pair:
                    pcyc, praw, pname = pair
                    cyc = pcyc * raw / praw
                    cyc_from = (f"{pname}: two engine counts at saturation"
                                + (f", × {raw / praw:.2f} (this design's ratio to it)" if abs(raw / praw - 1) > 0.005 else ""))
            elif len(pts) >= 2:
                cyc_from = f"{c['from']}: two engine counts at saturation, {sorted(pts)}"
            if cyc == 0 and _has_pairs(folders, k, persist):
                cyc_from = "two engine counts measured: the cycles cost nothing measurable (the solution is not positive)"
            order = raw - e * cycles_per_s(p["delay"], rtt0) * cyc / p["orders"]
            per_engine, rss_from = _rss_per_engine(folders, k, persist)
            rss = p["rss"]
            figs[k][persist] = {
                "cpuUsPerOrder": _r(order, 2), "cycleUs": _r(cyc, 2),
                "insertOverheadMs": None,
                "rssBaseMb": None if rss is None else _r(rss - per_engine * e, 1),
                "rssPerEngineMb": _r(per_engine, 2),
                "from": {"cpuUsPerOrder": c["from"], "cycleUs": cyc_from,
                         "rss": f"the saturation runs' peak at {e} engines; per engine: {rss_from}"}}

    # each design's own time per insert, from the cells at its bound
    overhead: dict[str, list] = {}
    for f in folders:
        for k, r in f.runs:
            bf, n, rtt = r.get("boundFraction"), r.get("inFlight"), r.get("rttMs")
            if (r.get("persist") == "per-sale" and n and rtt and (r.get("dbLatencyMs") or 0) >= 1 and bf
                    and 0.75 <= bf <= 1.25 and (r.get("rate") is None or r.get("answers503"))
                    and r["salesPerSecond"] > 0 and int(r.get("engines") or 0) == _default_engines(designs, k)):
                overhead.setdefault(k, []).append((n * 1000.0 / r["salesPerSecond"] - rtt, f.name))
    everyone = _median([x for xs in overhead.values() for x, _ in xs])
    for k in keys:
        entry = figs[k].get("per-sale")
        if entry is None:
            continue
        mine = overhead.get(k)
        if mine:
            entry["insertOverheadMs"] = _r(max(0.0, _median([x for x, _ in mine])))
            entry["from"]["insertOverheadMs"] = (f"median of {len(mine)} cells at its bound in "
                                                 f"{', '.join(sorted({n for _, n in mine}))}")
        elif everyone is not None:
            entry["insertOverheadMs"] = _r(max(0.0, everyone))
            entry["from"]["insertOverheadMs"] = "no cell of its own at its bound: the median of the designs with one"
    out["designs"] = {k: v for k, v in figs.items() if v}
    return out


def _pairs(f: _Folder, key: str, persist: str) -> dict:
    """Latency -> engines -> runs of KEY in PERSIST in folder F, closed loop (where the equal in-flight rows are)."""
    by: dict = {}
    for k, r in f.runs:
        if k == key and r.get("persist") == persist and r.get("rate") is None and not (r.get("waitMs") or 0):
            by.setdefault(r.get("dbLatencyMs") or 0, {}).setdefault(int(r.get("engines") or 0), []).append(r)
    return {lat: es for lat, es in by.items() if len(es) >= 2}


def _has_pairs(folders, key, persist) -> bool:
    return any(_pairs(f, key, persist) for f in folders)


def _cycle_from_pairs(folders, key, persist, rtt0):
    """The newest folder with saturation runs of KEY at two engine counts: (cycle µs, all CPU ÷ orders, name)."""
    for f in folders:
        pts = f.saturation(key, persist)
        if len(pts) >= 2:
            cyc, _, e = _cycle_and_order(pts, f.rtt0 or rtt0)
            if cyc:
                return cyc, pts[e]["cpuUsPerS"] / pts[e]["orders"], f.name
    return None


def _rss_per_engine(folders, key, persist) -> tuple[float, str]:
    """RSS per engine: the newest folder with runs at two engine counts, the slope at each latency, the median."""
    for f in folders:
        slopes = []
        for es in _pairs(f, key, persist).values():
            lo, hi = min(es), max(es)
            a = _median([r["cpu"]["variant"].get("rssMaxMb") for r in es[lo]])
            b = _median([r["cpu"]["variant"].get("rssMaxMb") for r in es[hi]])
            if a is not None and b is not None:
                slopes.append((b - a) / (hi - lo))
        if slopes:
            return max(0.0, _median(slopes)), f"{f.name}, the median slope over {len(slopes)} latencies"
    return 0.0, "one engine count measured: 0"


def _default_engines(designs: list[Design], key: str) -> int:
    d = next(d for d in designs if d.key == key)
    return d.number("ENGINES") or 0


def fill_from_other_machines(sets: list[dict]) -> None:
    """A design or figure one machine lacks, from another machine: CPU scaled by the machines' ratio."""
    for s in sets:
        for other in sets:
            if other is s:
                continue
            for persist in PERSISTS:
                mine = {k: v[persist]["cpuUsPerOrder"] for k, v in s["designs"].items()
                        if persist in v and "×" not in v[persist]["from"]["cpuUsPerOrder"]}
                theirs = {k: v[persist]["cpuUsPerOrder"] for k, v in other["designs"].items() if persist in v}
                ratio, both = _ratio(mine, theirs)
                if ratio is None:
                    continue
                for k, v in other["designs"].items():
                    if persist in v and persist not in s["designs"].get(k, {}):
                        e = dict(v[persist])
                        e["from"] = dict(e["from"])
                        e["cpuUsPerOrder"] = _r(e["cpuUsPerOrder"] * ratio, 2)
                        e["cycleUs"] = _r((e.get("cycleUs") or 0) * ratio, 2)
                        theirs_name = other["machine"]["cpuModel"]
                        e["from"] = {name: f"not measured on this machine: {theirs_name}'s ({how})"
                                     for name, how in e["from"].items()}
                        e["from"]["cpuUsPerOrder"] = (f"not measured on this machine: {theirs_name}'s "
                                                      f"({v[persist]['from']['cpuUsPerOrder']}) × {ratio:.2f}, the "
                                                      f"machines' ratio over {', '.join(both)}")
                        s["designs"].setdefault(k, {})[persist] = e
        if s["dbOwnMs"]["value"] is None:
            known = [o for o in sets if o["dbOwnMs"]["value"] is not None]
            if known:
                s["dbOwnMs"] = {"value": known[0]["dbOwnMs"]["value"],
                                "from": f"not probed on this machine: {known[0]['machine']['cpuModel']}'s"}
        if s["salesPerOrder"]["value"] is None:
            known = [o for o in sets if o["salesPerOrder"]["value"] is not None]
            if known:
                s["salesPerOrder"] = dict(known[0]["salesPerOrder"])


def fit(folders: list[str | Path], designs: list[Design]) -> list[dict]:
    """One parameter set per machine found in FOLDERS."""
    by_machine: dict = {}
    for folder in folders:
        doc, name = read(folder)
        by_machine.setdefault(machine_of(doc), []).append(_Folder(doc, name, designs))
    sets = [fit_machine(fs, designs) for fs in by_machine.values()]
    fill_from_other_machines(sets)
    return sets


def fit_document(folders: list[str | Path], designs: list[Design]) -> dict:
    return params.document(fit(folders, designs),
                           about="the model's parameters (docs/model.md), fitted by ./tradebench predict --fit")
