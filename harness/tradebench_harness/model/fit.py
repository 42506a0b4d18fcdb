"""Fitting the model's parameters from results folders (results.json of compare, sweep, map, bench).

What each figure is fitted from, per machine (a CPU model and core count; each machine's runs are
fitted apart):

- sales per order: the load's matching rate, sales/s ÷ orders accepted/s, the median over the runs
  that stored what they accepted (no 503, under any bound);
- one INSERT's own round trip: the sweep's or map's probe at +0 ms (`cells.rttMs["0"]`), the newest;
- CPU µs per order, per design and persist mode: the saturation runs (closed loop, no pause, no
  added latency: a compare, or a sweep's +0 ms cells), the newest folder that measured the design;
  a design it lacks comes from an older folder, scaled by the two folders' ratio over the designs
  both measured (a machine is not equally fast every hour);
- how CPU per order grows below saturation (β) and what an engine's cycle costs: the open-loop runs
  that stored their load (a map, `sweep --rates`), CPU µs/s = a × cycles/s + b × R^(1−β) fitted by least
  relative squares; the shape (β, a ÷ b) moves to any machine, whose own saturation figure sets the level;
- where the machine itself ran a design in an open loop at light loads (a map, `sweep --rates`): its cost
  below saturation from those runs, a fixed share, its cycles and each order (light.py); an order waiting
  in an inbox from those cells above its bound, a 503 from the machine's closed-loop cells refusing nearly
  all; this replaces the shape above for that design;
- what an order answered but not stored costs beside one stored (ρ): closed-loop cells that refused
  90 % of their load or more (a sweep behind a slow database), at most 1;
- each design's own time per insert, beyond the probe's round trip: the runs at their bound (a sweep or
  map cell above it, 0.75–1.25 of it, at least 1 ms added): in flight ÷ sales/s − round trip, the median;
- the database's CPU µs per sale stored, per persist mode (a busy database's capacity is its cores ÷ this):
  the saturation runs of the newest folder that measured the database's CPU in that mode, the median over
  its designs; the calibration's insert ceiling's CPU per row of the same kind is kept beside it;
- what an fsync adds to a commit (a durable database): the round-trip probe with and without every commit
  synced (fsync.py), a small file of its own given with `--fsync`;
- RSS: the median peak of the open-loop runs (the same runs as the shape: memory does not scale with a
  machine's speed), per engine from runs with two engine counts at the same latency; the saturation
  runs' peak is kept beside it, as the most a JVM grows to.

What no folder of a machine measured comes from another machine: a design's figures, CPU scaled by
the ratio of the two machines over the designs both measured; ρ and memory per engine as they are
(a ratio of two costs on one machine; memory). Every figure says where it came from.
"""
from __future__ import annotations

import statistics
from collections.abc import Iterable, Sequence
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

from .. import record
from ..analysis.crowded import crowded, database_busy
from ..record import Parameters, ParameterSet, Run
from . import latency, light, params
from .designs import Design, key_of

PERSISTS = ("per-sale", "batch")
#: per (design, persist): a design's margin ({"boundFraction", "cells", "from"})
ByDesign = dict[tuple[str, str], dict[str, Any]]
#: per (design, persist): β, the cycles' weight a ÷ b, and where they came from
Shapes = dict[tuple[str, str], tuple[float, float, str]]
#: per (design, persist): the peak RSS of its light-load runs, their engines, and where from
LightRss = dict[tuple[str, str], tuple[Any, int, str]]


def read(folder: str | Path) -> tuple[dict[str, Any], str]:
    """A results folder's results.json (or the file itself), and how to name it."""
    p = Path(folder)
    doc = record.plain(record.load_results(p, raw=False))
    return doc, (p.name if p.is_dir() else p.parent.name)


def machine_of(doc: dict[str, Any]) -> tuple[str | None, int | None]:
    env = doc.get("environment") or {}
    return env.get("cpuModel"), env.get("cores")


def _ok(run: Run) -> bool:
    return bool("error" not in run and run.get("salesPerSecond") is not None and run.get("ordersPerSecond")
            and record.group_figure(run, "variant", "cpuPercent") is not None)


def _rss_of(run: Run) -> float | None:
    """The variant's peak RSS (MB) over RUN's window; None where it was not sampled."""
    return record.group_figure(run, "variant", "rssMaxMb")


def _saturation(run: Run) -> bool:
    """A closed loop with no pause against a database next door: what the design stores at most."""
    return run["rate"] is None and not run["dbLatencyMs"] and not run["waitMs"]


def _median(xs: Iterable[Any]) -> Any:
    """The median of the figures of XS that are there (None: none is)."""
    got = [x for x in xs if x is not None]
    return statistics.median(got) if got else None


def _r(x: Any, nd: int = 3) -> Any:
    return None if x is None else round(x, nd)


class _Folder:
    """One results.json, its runs keyed by design."""

    def __init__(self, doc: dict[str, Any], name: str, designs: list[Design]) -> None:
        self.doc, self.name = doc, name
        self.started = doc.get("startedAt") or ""
        self.rtt0 = ((doc.get("cells") or {}).get("rttMs") or {}).get("0")
        self.runs: list[tuple[str, Run]] = []
        runs: list[Run] = doc.get("runs", [])
        for r in runs:
            if _ok(r):
                k = key_of(r, designs)
                if k:
                    self.runs.append((k, r))

    def source(self) -> dict[str, Any]:
        env = self.doc.get("environment") or {}
        return {"runId": self.doc.get("runId"), "folder": self.name, "command": self.doc.get("command"),
                "gitCommit": (env.get("gitCommit") or "")[:7], "startedAt": self.started}

    def cpus(self, run: Run) -> int:
        """The CPUs RUN's variant was pinned to; a run that does not say shared all the machine's."""
        return int(run.get("variantCpus") or (self.doc.get("environment") or {}).get("cores") or 1)

    def saturation_runs(self, key: str, persist: str) -> list[Run]:
        return [r for k, r in self.runs if k == key and r["persist"] == persist and _saturation(r)]

    def saturation(self, key: str, persist: str) -> dict[int, dict[str, Any]]:
        """Engines -> median cpu µs/s, orders/s, rss and DELAY_MS of its saturation runs of KEY in PERSIST, on the
        folder's reference CPUs (the machine's, shared; else the most a run of it had: sweep --cores)."""
        rs = self.saturation_runs(key, persist)
        cores = (self.doc.get("environment") or {}).get("cores")
        ref = [r for r in rs if self.cpus(r) == cores and layout_of(r) == "shared"]
        if not ref and rs:
            most = max(self.cpus(r) for r in rs)
            ref = [r for r in rs if self.cpus(r) == most]
        by: dict[int, list[Run]] = {}
        for r in ref:
            by.setdefault(r["engines"], []).append(r)
        out = {}
        for e, rs in by.items():
            # saturation: all the CPU the cores gave, the compiler's too (what is left of it is what the orders got)
            out[e] = {"cpuUsPerS": _median([light.cpu_us_per_s(r, compiled=False) for r in rs]),
                      "orders": _median([r["ordersPerSecond"] for r in rs]),
                      "sales": _median([r["salesPerSecond"] for r in rs]),
                      "rss": _median([_rss_of(r) for r in rs]),
                      "delay": _median([light.number(r["settings"].get("DELAY_MS"), 3) for r in rs])}
        return out


def layout_of(run: Run) -> str:
    """How RUN's CPUs were laid out: "isolated" (the variant, the database and the load client each on CPUs of its
    own) or "shared" (all on all the machine's CPUs: every run that does not say)."""
    lay = run.get("layout")
    return (lay["kind"] if lay else None) or "shared"


def saturation_by_cpus(f: _Folder, key: str, persist: str, engines: int, ratio: float = 1.0) -> list[dict[str, Any]]:
    """What KEY's saturation runs in F at ENGINES stored per count of CPUs the variant had and layout (sweep
    --cores; a run that does not say: the machine's CPUs, shared), × RATIO where F's hour is scaled to another's."""
    by: dict[tuple[int, str], list[Run]] = {}
    for r in f.saturation_runs(key, persist):
        if r["engines"] == engines:
            by.setdefault((f.cpus(r), layout_of(r)), []).append(r)
    return [{"cpus": c, "layout": lay, "orders": _r(_median([r["ordersPerSecond"] for r in rs]) / ratio, 0),
             "sales": _r(_median([r["salesPerSecond"] for r in rs]) / ratio, 0), "runs": len(rs), "folder": f.name}
            for (c, lay), rs in sorted(by.items())]


#: a setting the answer names stored at least this share of its load in the measured runs
STORED_SHARE = 0.95


def margin_cells(folders: list[_Folder], key: str, persist: str, sales_per_order: float) -> list[tuple[float, float]]:
    """(the share of Little's law's bound N ÷ RTT its load asked, the share of that load it stored) of KEY's
    open-loop cells."""
    out = []
    for f in folders:
        for k, r in f.runs:
            n, rtt, rate = r["inFlight"], r["rttMs"], r["rate"]
            if (k == key and r["persist"] == persist and rate and n and rtt and not r.get("errors")
                    and sales_per_order):
                offered = rate * sales_per_order
                out.append((offered * rtt / 1000.0 / n, min(1.0, r["salesPerSecond"] / offered)))
    return out


#: cells asking less of their bound than this cannot lose load to it: their stored share is the matching's noise
#: (sales per order over a window of a few thousand orders, ± 5 %), left out
LEAST_ASKED = 0.1


def margin_of(cells: list[tuple[float, float]]) -> float | None:
    """The largest share of the bound below which every measured cell (asking at least LEAST_ASKED of it) stored
    STORED_SHARE of its load (None: no cell stored it)."""
    ok = None
    for bf, stored in sorted(c for c in cells if c[0] >= LEAST_ASKED):
        if stored < STORED_SHARE:
            break
        ok = bf
    return None if ok is None else min(1.0, ok)


def margins(own: list[_Folder], shape: list[_Folder], keys: list[str], sales_per_order: float | None) -> ByDesign:
    """Per (design, persist): {"boundFraction", "cells", "from"}: the share of Little's law's bound a setting may
    ask and still store STORED_SHARE of the load, from the design's open-loop cells on the machine (else those of
    the shape's folders, a ratio that moves between machines as ρ does; else the median of the designs')."""
    out: ByDesign = {}
    for persist in PERSISTS:
        for k in keys:
            for folders, where in ((own, "this machine's"), (shape, "the shape's")):
                cells = margin_cells(folders, k, persist, sales_per_order or 0.0)
                got = margin_of(cells)
                if got is not None and any(bf >= got for bf, _ in cells):
                    names = ", ".join(sorted(f.name for f in folders if margin_cells([f], k, persist,
                                                                                     sales_per_order or 0.0)))
                    out[(k, persist)] = {"boundFraction": _r(got), "cells": len(cells),
                                         "from": f"{where} open-loop cells ({names}): every one asking up to {got:.2f} "
                                                 f"of its bound stored ≥ {STORED_SHARE:.0%} of its load"}
                    break
        known = [v["boundFraction"] for (k, p), v in out.items() if p == persist]
        for k in keys:
            if (k, persist) not in out and known:
                out[(k, persist)] = {"boundFraction": _r(_median(known)), "cells": 0,
                                     "from": f"no open-loop cell of its own: the median of the {len(known)} designs' "
                                             f"with some"}
    return out


def latency_curve(folders: list[_Folder], key: str, persist: str) -> dict[str, Any] | None:
    """KEY's p50 and p99 (ms) per offered rate: the lines (latency.py) through its open-loop windows that stored
    their load and were not crowded, nor queued at a busy database (analysis.crowded.database_busy), in the newest
    folder with two rates or more, and the p99's ms per insert in flight at 1,000 orders/s and the power of the rate it grows by (latency.tail): {"points": [[rate, p50, p99]],
    "p99PerInFlightMs": ms or None, "p99TailRatePower", "from"}."""
    for f in folders:                                   # newest first
        windows = [(float(r["rate"]), float(r["p50Ms"]), float(r["p99Ms"]), _in_flight(r)) for k, r in f.runs
                   if (k == key and r["persist"] == persist and r["rate"] and light.carried(r) and not crowded(r)
                       and not database_busy(r)
                       and r.get("p50Ms") is not None and r.get("p99Ms") is not None)]
        got = latency.curve(windows)
        if got:
            pts, per = got
            many = sum(w[3] >= latency.TAIL_IN_FLIGHT for w in windows) if per is not None else 0
            tail = (f"; the p99's term (per insert in flight, growing as the rate to {latency.TAIL_RATE_POWER:g}) from its "
                    f"{many} with {latency.TAIL_IN_FLIGHT:g} inserts in flight or more") if many else ""
            return {"points": pts, "p99PerInFlightMs": per,
                    "p99TailRatePower": latency.TAIL_RATE_POWER if per is not None else None,
                    "from": f"{f.name}: lines in the rate through its {len(windows) - many} open-loop windows that "
                            f"stored their load, uncrowded, the database's CPUs not busy (the median of the slopes "
                            f"between every two, latency.py)"
                            f"{tail}"}
    return None


def _in_flight(r: Run) -> float:
    """The inserts a window kept in flight (Little's law: its sales/s × its round trip); a window whose round trip
    was not probed (a folder older than the probe) counts among those with few."""
    rtt = r.get("rttMs")
    return 0.0 if rtt is None else float(r["salesPerSecond"]) * float(rtt) / 1000.0


def domain(own: list[_Folder], shape: list[_Folder]) -> dict[str, Any]:
    """What a set's runs measured, for the answer to say where it extrapolates: the open-loop rates, the round trips,
    the variant's CPU counts and layouts, the persist modes with saturation runs."""
    rates = sorted({rate for f in own for _, r in f.runs if (rate := r["rate"])})
    rates_from = "this machine's open-loop runs"
    if not rates:
        rates = sorted({rate for f in shape for _, r in f.runs if (rate := r["rate"])})
        rates_from = "the shape's open-loop runs (another machine's, or none of this one)"
    rtts: list[float] = [rtt for f in own for _, r in f.runs if (rtt := r["rttMs"]) is not None]
    rtts += [v for f in own for v in ((f.doc.get("cells") or {}).get("rttMs") or {}).values() if v is not None]
    sat = [(f, r) for f in own for _, r in f.runs if _saturation(r)]
    return {"rates": [min(rates), max(rates)] if rates else None, "ratesFrom": rates_from,
            "roundTripMs": [_r(min(rtts)), _r(max(rtts))] if rtts else None,
            "variantCpus": sorted({f.cpus(r) for f, r in sat}),
            "layouts": sorted({layout_of(r) for _, r in sat}),
            "persist": sorted({r.get("persist") for _, r in sat if r.get("persist")})}


def add_measured(s: dict[str, Any], own: list[_Folder], shape: list[_Folder], keys: list[str]) -> None:
    """A set's domain, and per design the margin its named settings keep and its latency curve."""
    own = sorted(own, key=lambda f: f.started, reverse=True)
    s["measured"] = domain(own, shape)
    got = margins(own, shape, keys, s["salesPerOrder"]["value"])
    for k, modes in s["designs"].items():
        for persist, e in modes.items():
            m = got.get((k, persist))
            e["marginBoundFraction"] = m["boundFraction"] if m else None
            e["from"]["marginBoundFraction"] = m["from"] if m else "no open-loop cell: Little's law's least"
            lat = latency_curve(own, k, persist)
            e["latency"] = lat["points"] if lat else None
            e["p99PerInFlightMs"] = lat["p99PerInFlightMs"] if lat else None
            e["p99TailRatePower"] = lat["p99TailRatePower"] if lat else None
            e["from"]["latency"] = lat["from"] if lat else "no open-loop cell of its own on this machine"


def _ratio(newer: dict[str, float], older: dict[str, float]) -> tuple[float | None, list[str]]:
    both = sorted(set(newer) & set(older))
    r = _median([newer[k] / older[k] for k in both if older[k]])
    return r, both


def fit_machine(folders: list[_Folder], designs: list[Design], shapes: Shapes, light_rss: LightRss) -> dict[str, Any]:
    """One parameter set from the folders of one machine."""
    folders = sorted(folders, key=lambda f: f.started, reverse=True)      # newest first
    env = folders[0].doc.get("environment") or {}
    keys = [d.key for d in designs]
    out: dict[str, Any] = {"machine": {"cpuModel": env.get("cpuModel"), "cores": env.get("cores"),
                             "memoryGb": env.get("memoryGb")},
                 "fittedAt": datetime.now(timezone.utc).isoformat(timespec="seconds"),
                 "sources": [f.source() for f in folders]}
    out["salesPerOrder"] = _sales_per_order(folders)
    rtt_folder = next((f for f in folders if f.rtt0), None)
    out["dbOwnMs"] = ({"value": rtt_folder.rtt0, "from": f"{rtt_folder.name}: the probe at +0 ms"}
                      if rtt_folder else {"value": None, "from": "no probe in these folders"})
    out["database"] = {persist: {**_db_cpu(folders, designs, persist), **beside_the_database(folders, persist)}
                       for persist in PERSISTS}
    figs: dict[str, Any] = {k: {} for k in keys}
    for persist in PERSISTS:
        for k, c in _saturation_per_design(folders, designs, persist).items():
            figs[k][persist] = _design_figures(folders, k, persist, c, shapes, light_rss)
    _insert_overheads(folders, designs, figs)
    _own_light_cost(folders, figs, out["salesPerOrder"]["value"], {d.key: d.variant.name for d in designs})
    out["designs"] = {k: v for k, v in figs.items() if v}
    return out


def _sales_per_order(folders: list[_Folder]) -> dict[str, Any]:
    """The load's matching rate, from the runs that stored what they accepted: a run that refused, erred, drifted
    or neared its bound stored less than its orders matched."""
    spo, spo_from = [], set()
    for f in folders:
        for _, r in f.runs:
            bf = r.get("boundFraction")
            accepted = r.get("acceptedPerSecond")     # a window's figure: every run a _Folder keeps has it
            if (not r.get("answers503") and not r.get("errors") and accepted is not None and accepted > 0
                    and not r.get("driftFlagged") and (bf is None or bf < 0.5)):
                spo.append(r["salesPerSecond"] / accepted)
                spo_from.add(f.name)
    return {"value": _r(_median(spo)), "n": len(spo), "from": sorted(spo_from)}


def _saturation_points(f: _Folder, designs: list[Design], persist: str) -> dict[str, dict[str, Any]]:
    """Per design F ran to saturation in PERSIST: CPU µs per order at its default engines (else the fewest), the
    engines and the point measured."""
    got = {}
    for k in [d.key for d in designs]:
        pts = f.saturation(k, persist)
        if pts:
            e = min(pts, key=lambda n: (n != _default_engines(designs, k), n))
            got[k] = {"order": pts[e]["cpuUsPerS"] / pts[e]["orders"], "engines": e, "point": pts[e]}
    return got


def _saturation_per_design(folders: list[_Folder], designs: list[Design], persist: str) -> dict[str, dict[str, Any]]:
    """Per design, the saturation point its figures come from: the newest folder with saturation runs; a design
    only an older folder has, scaled by that folder's ratio to the newest (a machine is not equally fast every
    hour)."""
    chosen: dict[str, dict[str, Any]] = {}
    newest = None
    for f in folders:
        got = _saturation_points(f, designs, persist)
        if not got:
            continue
        if newest is None:
            newest = f
            for k, g in got.items():
                chosen[k] = {**g, "folder": f, "ratio": 1.0,
                             "from": f"{f.name}: saturation, {g['engines']} engines"}
            continue
        ratio, both = _ratio({k: c["order"] for k, c in chosen.items() if "×" not in c["from"]},
                             {k: g["order"] for k, g in got.items()})
        if ratio is None:
            continue
        for k, g in got.items():
            if k in chosen:
                continue
            # a machine this much slower per order saturated at this many fewer orders
            chosen[k] = {**g, "order": g["order"] * ratio, "folder": f, "ratio": ratio,
                         "point": {**g["point"], "orders": g["point"]["orders"] / ratio,
                                   "sales": g["point"]["sales"] / ratio},
                         "from": f"{f.name}: saturation, {g['engines']} engines, × {ratio:.2f} (its ratio "
                                 f"to {newest.name} over {', '.join(both)})"}
    return chosen


def _design_figures(folders: list[_Folder], k: str, persist: str, c: dict[str, Any], shapes: Shapes, light_rss: LightRss) -> dict[str, Any]:
    """K's figures in PERSIST from its saturation point C: the shape below saturation, ρ and memory, each with
    where it came from (the own time per insert and the light-load terms come after)."""
    e, p = c["engines"], c["point"]
    beta, factor, shape_from = _shape_for(shapes, k, persist)
    cycle = factor * c["order"] * p["orders"] ** beta
    rho, rho_from = _refused_cost(folders, k, persist, c["order"], p["orders"], beta)
    per_engine, rss_from = _rss_per_engine(folders, k, persist)
    light_load = light_rss.get((k, persist))
    if light_load:
        rss, rss_e, base_from = light_load[0], light_load[1], light_load[2]
    else:
        # never another design's figure, nor the saturation peak (a heap grown towards its limit)
        rss, rss_e, base_from = None, e, "no open-loop runs of its own: no memory figure"
    return {
        "cpuUsPerOrder": _r(c["order"], 2), "saturationOrders": _r(p["orders"], 0),
        "saturationSales": _r(p["sales"], 0),
        "loadExponent": _r(beta), "cycleUs": _r(cycle, 2), "refusedCost": _r(rho),
        "insertOverheadMs": None,
        "rssBaseMb": None if rss is None else _r(max(0.0, rss - per_engine * rss_e), 1),
        "rssPerEngineMb": _r(per_engine, 2), "rssEngines": rss_e,
        "rssSaturationMb": None if p["rss"] is None else _r(p["rss"], 1),
        "saturationByCpus": saturation_by_cpus(c["folder"], k, persist, e, c["ratio"]),
        "from": {"cpuUsPerOrder": c["from"], "loadExponent and cycleUs": shape_from,
                 "refusedCost": rho_from,
                 "rssBaseMb": base_from, "rssPerEngineMb": rss_from,
                 "rssSaturationMb": f"the saturation runs' peak at {e} engines"}}


def _own_time_at_its_bound(r: Run, designs: list[Design], k: str) -> float | None:
    """In a per-sale cell that Little's law holds to its in-flight bound (0.75–1.25 of it, at least 1 ms added, a
    closed loop or refusing), where the round trip and the design's own time per insert set its sales: that own
    time, in flight ÷ sales/s − the round trip (ms). None in any other cell."""
    bf, n, rtt = r.get("boundFraction"), r["inFlight"], r["rttMs"]
    if (r["persist"] == "per-sale" and n and rtt and r["dbLatencyMs"] >= 1 and bf
            and 0.75 <= bf <= 1.25 and (r["rate"] is None or r.get("answers503"))
            and r["salesPerSecond"] > 0 and r["engines"] == _default_engines(designs, k)):
        return n * 1000.0 / r["salesPerSecond"] - rtt
    return None


def _insert_overheads(folders: list[_Folder], designs: list[Design], figs: dict[str, Any]) -> None:
    """Each design's own time per insert, beyond the probe's round trip, from its cells at its bound; a design
    without such a cell takes the median of those with one."""
    overhead: dict[str, list[Any]] = {}
    for f in folders:
        for k, r in f.runs:
            own = _own_time_at_its_bound(r, designs, k)
            if own is not None:
                overhead.setdefault(k, []).append((own, f.name))
    everyone = _median([x for xs in overhead.values() for x, _ in xs])
    for k in [d.key for d in designs]:
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


def refusing_runs(folders: list[_Folder], key: str, persist: str) -> list[Run]:
    """KEY's closed-loop runs in PERSIST that refused 90 % of their load or more (a sweep behind a slow database:
    nearly every order a 503), in the newest folder of the machine with some."""
    for f in folders:
        rs = [r for k, r in f.runs if k == key and r["persist"] == persist and light.refusing(r)]
        if rs:
            return rs
    return []


def _own_light_cost(folders: list[_Folder], figs: dict[str, Any], sales_per_order: float | None, variants: dict[str, Any]) -> None:
    """Where the machine ran a design in an open loop at light loads (a map, `sweep --rates`), its cost below
    saturation from those runs (light.py), the newest folder with enough cells; the saturation-shaped form
    stays for the others. ρ (a 503) and ρ_w (an order waiting in an inbox) a design has no cell for are the
    median of its variant's other rows with one (the same code answers the 503: java-akka on Pekko takes java-akka's
    on Akka), else of all the machine's designs with one."""
    costs: dict[tuple[str, str], dict[str, Any]] = {}
    for k, modes in figs.items():
        for persist, entry in modes.items():
            got = _light_cost_of_newest(folders, k, persist, entry, sales_per_order)
            if got is None:
                continue
            for name in ("refusedCost", "waitingCost"):
                costs.setdefault((persist, name), {})[k] = got[name]
    _costs_without_cells(figs, costs, variants)


def _light_cost_of_newest(folders: list[_Folder], k: str, persist: str, entry: dict[str, Any],
                          sales_per_order: float | None) -> dict[str, Any] | None:
    """K's light-load terms in PERSIST from the newest folder with enough open-loop cells, set in ENTRY (with ρ and
    ρ_w where that folder measured them); None where no folder has enough."""
    refusing = refusing_runs(folders, k, persist)
    for f in folders:
        runs = [r for kk, r in f.runs if kk == k and r["persist"] == persist]
        got = light.light_cost(runs, sales_per_order, refusing)
        if got is None:
            continue
        entry.update(fixedUsPerS=_r(got["fixedUsPerS"], 0), cycleUs=_r(got["cycleUs"], 2),
                     orderUs=_r(got["orderUs"], 2), orderExponent=got["orderExponent"])
        entry["from"]["fixedUsPerS, cycleUs and orderUs"] = (
            f"{f.name}: its {got['cells']} open-loop cells that stored their load, least relative squares "
            f"(rms {got['rmsRelativeError']:.0%}), the orders' CPU as their rate to {got['orderExponent']:g}")
        why = {"refusedCost": f"{got['refusingRuns']} closed-loop runs refusing 90 % or more (nearly every "
                              f"order a 503) in the newest folder of the machine with some",
               "waitingCost": f"{f.name}: its {got['cellsAboveBound']} open-loop cells above its bound "
                              f"(orders filling its inboxes)"}
        for name in ("refusedCost", "waitingCost"):
            if got[name] is not None:
                entry[name] = _r(got[name])
                entry["from"][name] = why[name]
        return got
    return None


def _costs_without_cells(figs: dict[str, Any], costs: dict[tuple[str, str], dict[str, Any]], variants: dict[str, Any]) -> None:
    """ρ and ρ_w of the designs COSTS has none for: the median of the variant's other rows with one (the same code
    answers the 503), else of all the machine's designs with one."""
    for (persist, name), by in costs.items():
        for k, v in by.items():
            if v is not None:
                continue
            mine = [x for kk, x in by.items() if x is not None and variants.get(kk) == variants.get(k)]
            known = mine or [x for x in by.values() if x is not None]
            if known:
                figs[k][persist][name] = _r(_median(known))
                figs[k][persist]["from"][name] = (f"no cell of its own: the median of the {len(known)} "
                                                  f"{f'other rows of {variants.get(k)}' if mine else 'designs'} "
                                                  f"of the machine with one")


def _db_cpu_of(run: Run) -> float | None:
    """The database's CPU µs per sale stored in a run's window (a compare records it; a sweep's CPU samples say it)."""
    us = run.get("dbCpuUsPerSale")
    if us is not None:
        return us
    pct = record.group_figure(run, "database", "cpuPercent")
    sales = run.get("salesPerSecond")
    return pct * 1e4 / sales if pct is not None and sales else None


def _db_cpu(folders: list[_Folder], designs: list[Design], persist: str) -> dict[str, Any]:
    """The database's CPU µs per sale in PERSIST: the newest folder's saturation runs, per design at its default
    engines (else the fewest), the median over the designs. The newest, as for the designs' own CPU: the
    database shares the machine, and its cost per sale moves with the machine's speed that hour."""
    for f in folders:                                       # newest first
        per_design, ceilings = {}, []
        for k in {k for k, _ in f.runs}:
            rs = [r for kk, r in f.runs if kk == k and r.get("persist") == persist and _saturation(r)]
            if not rs:
                continue
            want = _default_engines(designs, k)
            e = min({r["engines"] for r in rs}, key=lambda n: (n != want, n))
            xs = [_db_cpu_of(r) for r in rs if r["engines"] == e]
            if _median(xs) is not None:
                per_design[k] = _median(xs)
                ceilings += [r.get("insertCeilingDbCpuUsPerRow") for r in rs if r["engines"] == e]
        if per_design:
            ceiling = _median(ceilings)
            shown = ", ".join(f"{k} {v:.1f}" for k, v in sorted(per_design.items()))
            return {"cpuUsPerSale": _r(_median(list(per_design.values())), 1),
                    "insertCeilingCpuUsPerRow": _r(ceiling, 2),
                    "from": f"{f.name}: the database's CPU per sale in the saturation runs, the median over "
                            f"{len(per_design)} designs ({shown})"
                            + ("" if ceiling is None else
                               f"; at the calibration's insert ceiling ({'multi' if persist == 'batch' else 'single'}"
                               f"-row) a row cost it {ceiling:.1f}")}
    return {"cpuUsPerSale": None, "insertCeilingCpuUsPerRow": None,
            "from": f"no saturation run in {persist} with the database's CPU"}


#: the runs a figure of Beside is read from: those that did at least this share of the most work any run of the
#: folders did (beside_the_database)
BUSIEST_SHARE = 0.5


def beside_the_database(folders: list[_Folder], persist: str) -> dict[str, Any]:
    """What the link (Toxiproxy, in front of the database) costs a sale stored, the database a sale that came
    through it (more than one next door: each insert wakes its connection's thread after the wait), and the load
    client an order sent, in PERSIST: the CPUs the database shares with them in the isolated layout pay all three
    (Beside). Each is the CPU over the work of the busiest runs of the folders that sampled the group (the link and
    the database from runs through the link, at any added latency; BUSIEST_SHARE): the bound is met at high rates,
    and a process's CPU per unit of work falls with the rate, as its fixed cost a second is spread thin and a busy
    process wakes once for several requests (on the Intel Xeon, 2026-12-03: the link 257 µs a sale at 250 sales/s,
    60 at 5,300; the load client 207 µs an order at 300/s, 14 at 11,000). A process's own CPU per unit of its work,
    which the layout it ran in does not change."""
    linked: list[tuple[float, float, float]] = []            # (sales/s, link CPU µs/s, database CPU µs/s)
    loads: list[tuple[float, float]] = []                    # (orders/s, load client CPU µs/s)
    for f in folders:
        for _, r in f.runs:
            if r.get("persist") != persist:
                continue
            sales, orders = r.get("salesPerSecond"), r.get("ordersPerSecond")
            lk = record.group_figure(r, "link", "cpuPercent")
            db = record.group_figure(r, "database", "cpuPercent")
            if lk is not None and db is not None and sales:
                linked.append((float(sales), lk * 1e4, db * 1e4))
            lc = record.group_figure(r, "loadclient", "cpuPercent")
            if lc is not None and orders:
                loads.append((float(orders), lc * 1e4))
    linked, loads = _busiest(linked), _busiest(loads)
    link_sales = sum(x[0] for x in linked)
    load_orders = sum(x[0] for x in loads)
    names = ", ".join(f.name for f in folders)
    return {"linkCpuUsPerSale": _r(sum(x[1] for x in linked) / link_sales, 1) if link_sales else None,
            "linkedCpuUsPerSale": _r(sum(x[2] for x in linked) / link_sales, 1) if link_sales else None,
            "loadClientCpuUsPerOrder": _r(sum(x[1] for x in loads) / load_orders, 1) if load_orders else None,
            "besideFrom": f"the database's and the link's CPU over the sales of the {len(linked)} busiest runs through "
                          f"the link, the load client's over the orders of its {len(loads)} busiest runs ({names})"}


def _busiest(rows: list[Any]) -> list[Any]:
    """The ROWS (work a second first) that did at least BUSIEST_SHARE of the most work of any."""
    most = max((x[0] for x in rows), default=0.0)
    return [x for x in rows if x[0] >= BUSIEST_SHARE * most]


def beside_of(docs: list[tuple[dict[str, Any], str]], designs: list[Design], persist: str) -> dict[str, Any]:
    """beside_the_database of results documents DOCS, each with its name (newest first)."""
    return beside_the_database([_Folder(doc, name, designs) for doc, name in docs], persist)


def _fsync_for(machine: dict[str, Any], probes: list[dict[str, Any]]) -> dict[str, Any] | None:
    """F of the newest probe on MACHINE (its CPU model and cores), as a parameter with where it came from."""
    mine = [p for p in probes if params.same_machine(machine, (p.get("machine") or {}).get("cpuModel"),
                                                     (p.get("machine") or {}).get("cores"))]
    if not mine:
        return None
    p = max(mine, key=lambda p: p.get("measuredAt") or "")
    f = p["fsyncMs"]
    return {"value": f["value"], "probeMs": f.get("probeMs"), "durableProbeMs": f.get("durableProbeMs"),
            "from": f"{p.get('measuredAt')}, {(p.get('machine') or {}).get('cpuModel')}, "
                    f"{(p.get('machine') or {}).get('cores')} cores: `{p.get('command')}`: one commit's round trip "
                    f"{f.get('durableProbeMs')} ms with every commit synced, {f.get('probeMs')} ms without "
                    f"(one connection, single rows; medians of {len((f.get('probesMs') or {}).get('plain') or [])} "
                    f"probes each way)"
                    + ("".join(f"; an earlier probe: {o['fsyncMs']['value']} ms ({o.get('measuredAt')})"
                               for o in sorted(mine, key=lambda o: o.get("measuredAt") or "") if o is not p)
                       if len(mine) > 1 else "")}


def _pairs(f: _Folder, key: str, persist: str) -> dict[float, dict[int, list[Run]]]:
    """Latency -> engines -> runs of KEY in PERSIST in folder F, closed loop (where the equal in-flight rows are)."""
    by: dict[float, dict[int, list[Run]]] = {}
    for k, r in f.runs:
        if k == key and r["persist"] == persist and r["rate"] is None and not r["waitMs"]:
            by.setdefault(r["dbLatencyMs"], {}).setdefault(r["engines"], []).append(r)
    return {lat: es for lat, es in by.items() if len(es) >= 2}


#: the memory per engine of a design measured at one engine count (another machine's slope then stands in)
ONE_ENGINE_COUNT = "one engine count measured"


def _rss_per_engine(folders: list[_Folder], key: str, persist: str) -> tuple[float, str]:
    """RSS per engine: the newest folder with runs at two engine counts, the slope at each latency, the median."""
    for f in folders:
        slopes = []
        for es in _pairs(f, key, persist).values():
            lo, hi = min(es), max(es)
            a = _median([_rss_of(r) for r in es[lo]])
            b = _median([_rss_of(r) for r in es[hi]])
            if a is not None and b is not None:
                slopes.append((b - a) / (hi - lo))
        if slopes:
            return max(0.0, _median(slopes)), f"{f.name}, the median slope over {len(slopes)} latencies"
    return 0.0, ONE_ENGINE_COUNT + ": 0"


def shape_points(folders: list[_Folder], key: str, persist: str) -> list[tuple[Any, ...]]:
    """Open-loop runs of KEY that stored what they were offered: (orders/s, engine cycles/s, CPU µs/s)."""
    out = []
    for f in folders:
        for k, r in f.runs:
            if (k == key and r["persist"] == persist and r["rate"] and light.carried(r)
                    and r["rttMs"] is not None):
                out.append((r["ordersPerSecond"], light.cycles_of(r), light.cpu_us_per_s(r)))
    return out


def _weights_at(points: list[tuple[Any, ...]], beta: float) -> tuple[float, float]:
    """At a given β: the least relative squared error of CPU µs/s = a × cycles/s + b × R^(1−β), and a ÷ b."""
    rows = [(cyc / y, r ** (1 - beta) / y) for r, cyc, y in points]    # relative: each point weighs alike
    saa = sum(x * x for x, _ in rows)
    sbb = sum(z * z for _, z in rows)
    sab = sum(x * z for x, z in rows)
    sa1, sb1 = sum(x for x, _ in rows), sum(z for _, z in rows)
    det = saa * sbb - sab * sab
    a, b = ((sa1 * sbb - sb1 * sab) / det, (sb1 * saa - sa1 * sab) / det) if det else (0.0, 0.0)
    if a < 0 or b <= 0 or not det:
        a, b = 0.0, sb1 / sbb
    return sum((a * x + b * z - 1) ** 2 for x, z in rows), a / b


def fit_shape(points: dict[str, list[tuple[Any, ...]]]) -> tuple[float, dict[str, float]] | None:
    """One β for every design, and each design's a ÷ b, from its open-loop runs (orders/s, cycles/s, CPU µs/s).

    A map has three or four cells per design that stored their load, too few to tell β from the cycles'
    cost design by design (the two trade off); β, how a wake-up's cost spreads over more orders, is
    fitted once over all of them (on a grid of 0.01), and only the cycles' weight per design. A design
    whose runs are all at one rate says nothing of β and is left out. Returns None without two such designs'
    worth of runs.

    A machine with its own saturation figure c at rate S then has b = c × S^β, so its CPU per cycle is
    (a ÷ b) × c × S^β: the shape moves between machines, the level does not."""
    usable = {k: p for k, p in points.items() if len(p) >= 3 and len({round(x[0]) for x in p}) >= 2}
    if not usable:
        return None
    beta = min((i / 100 for i in range(91)), key=lambda bt: sum(_weights_at(p, bt)[0] for p in usable.values()))
    return beta, {k: _weights_at(p, beta)[1] for k, p in usable.items()}


def shapes_of(folders: list[_Folder], keys: list[str]) -> Shapes:
    """Per (design, persist): (β, a ÷ b, where from), from the open-loop runs of FOLDERS (any machine)."""
    out: Shapes = {}
    for persist in PERSISTS:
        points = {k: shape_points(folders, k, persist) for k in keys}
        got = fit_shape(points)
        if not got:
            continue
        beta, factors = got
        names = ", ".join(sorted({f.name for f in folders}))
        for k, factor in factors.items():
            out[(k, persist)] = (beta, factor, f"β over the {len(factors)} designs' open-loop runs that stored their "
                                               f"load in {names}; its cycles' weight from its {len(points[k])}")
    return out


def light_rss_of(folders: list[_Folder], keys: list[str]) -> LightRss:
    """Per (design, persist): the median peak RSS of its open-loop runs below saturation, their engines, whence.

    Below saturation a JVM keeps a small heap; at saturation its collector grows the heap towards its limit
    (a quarter of the memory by default), so the saturation peak says little about a light load."""
    out: LightRss = {}
    for k in keys:
        for persist in PERSISTS:
            rs = [(r, f.name) for f in folders for kk, r in f.runs
                  if kk == k and r["persist"] == persist and r["rate"] and _rss_of(r) is not None]
            if rs:
                engines = int(_median([r["engines"] for r, _ in rs]))
                out[(k, persist)] = (_median([_rss_of(r) for r, _ in rs]), engines,
                                     f"the median peak of {len(rs)} open-loop runs in "
                                     f"{', '.join(sorted({n for _, n in rs}))}, {engines} engines")
    return out


def _shape_for(shapes: Shapes, key: str, persist: str) -> tuple[float, float, str]:
    if (key, persist) in shapes:
        return shapes[(key, persist)]
    same = [v for (k, p), v in shapes.items() if p == persist] or list(shapes.values())
    if not same:
        return 0.0, 0.0, "no open-loop runs: the saturation figure at every rate, no cost per cycle"
    beta, factor = _median([v[0] for v in same]), _median([v[1] for v in same])
    return beta, factor, (f"no open-loop runs of its own in {persist}: β and the median cycles' weight of the "
                          f"designs with some")


def _refused_cost(folders: list[_Folder], key: str, persist: str, order_us: float, sat_orders: float,
                  beta: float) -> tuple[float, str]:
    """ρ: an answered order's CPU beside a stored one's at the same rate, from closed-loop cells refusing 90 % or more."""
    ratios, names = [], set()
    for f in folders:
        for k, r in f.runs:
            if k == key and r["persist"] == persist and light.refusing(r):
                per_answer = light.cpu_us_per_s(r) / r["ordersPerSecond"]
                taken = order_us * (sat_orders / r["ordersPerSecond"]) ** beta if r["ordersPerSecond"] < sat_orders \
                    else order_us
                ratios.append(per_answer / taken)
                names.add(f.name)
    if not ratios:
        return 1.0, "no cell that refused most of its load: an order answered costs as much as one stored"
    rho = _median(ratios)
    return min(1.0, rho), (f"median of {len(ratios)} cells refusing ≥ 90 % in {', '.join(sorted(names))}: "
                           f"{rho:.2f}" + (", at most 1 (a 503 skips the engine and the insert)" if rho > 1 else ""))


def _default_engines(designs: list[Design], key: str) -> int:
    d = next(d for d in designs if d.key == key)
    return d.number("ENGINES") or 0


def fill_from_other_machines(sets: list[dict[str, Any]]) -> None:
    """A design or figure one machine lacks, from another machine: CPU scaled by the machines' ratio."""
    for s in sets:
        for other in sets:
            if other is s:
                continue
            for persist in PERSISTS:
                _designs_from(s, other, persist)
            _ratios_from(s, other)
        _machine_figures_from(s, sets)


def _designs_from(s: dict[str, Any], other: dict[str, Any], persist: str) -> None:
    """The designs in PERSIST that OTHER measured and S did not, their CPU scaled by the machines' ratio over the
    designs both measured (none without such a ratio)."""
    mine = {k: v[persist]["cpuUsPerOrder"] for k, v in s["designs"].items()
            if persist in v and "×" not in v[persist]["from"]["cpuUsPerOrder"]}
    theirs = {k: v[persist]["cpuUsPerOrder"] for k, v in other["designs"].items() if persist in v}
    ratio, both = _ratio(mine, theirs)
    if ratio is None:
        return
    for k, v in other["designs"].items():
        if persist in v and persist not in s["designs"].get(k, {}):
            s["designs"].setdefault(k, {})[persist] = _scaled_entry(v[persist], ratio, both,
                                                                    other["machine"]["cpuModel"])


def _scaled_entry(theirs: record.DesignFigures, ratio: float, both: list[str], theirs_name: str) -> dict[str, Any]:
    """Another machine's figures of a design as this machine's: every µs × RATIO, every saturation ÷ it, no latency,
    each figure saying whose it is."""
    e: dict[str, Any] = {**theirs}
    e["from"] = dict(theirs["from"])
    e["cpuUsPerOrder"] = _r(e["cpuUsPerOrder"] * ratio, 2)
    e["cycleUs"] = _r(record.cost_term(theirs, "cycleUs") * ratio, 2)
    for us in ("fixedUsPerS", "orderUs"):      # the light-load terms are µs too
        if e.get(us) is not None:
            e[us] = _r(e[us] * ratio, 2)
    if e.get("saturationOrders"):
        # a machine this much slower per order saturates at this many fewer orders
        e["saturationOrders"] = _r(e["saturationOrders"] / ratio, 0)
        if e.get("saturationSales"):
            e["saturationSales"] = _r(e["saturationSales"] / ratio, 0)
    e["saturationByCpus"] = [{**pt, "orders": _r(pt["orders"] / ratio, 0),
                              "sales": _r(pt["sales"] / ratio, 0)}
                             for pt in e.get("saturationByCpus") or []]
    # a latency is the machine's own answer time: another machine's is no figure of this one
    e["latency"] = None
    e["p99PerInFlightMs"] = None
    e["p99TailRatePower"] = None
    e["from"] = {name: f"not measured on this machine: {theirs_name}'s ({how})"
                 for name, how in e["from"].items()}
    e["from"]["cpuUsPerOrder"] = (f"not measured on this machine: {theirs_name}'s "
                                  f"({theirs['from']['cpuUsPerOrder']}) × {ratio:.2f}, the "
                                  f"machines' ratio over {', '.join(both)}")
    e["from"]["latency"] = "not measured on this machine: no latency figure"
    return e


def _ratios_from(s: dict[str, Any], other: dict[str, Any]) -> None:
    """Memory per engine and ρ where S had no runs to measure them and OTHER had: a ratio of two costs on one
    machine (and an engine's memory) holds on another, unlike a time."""
    for k, v in s["designs"].items():
        for persist, e in v.items():
            o = other["designs"].get(k, {}).get(persist)
            # once: a slope already taken from a machine starts "one engine count on this machine", and taking
            # one from the next machine too subtracted the engines' memory from the base again (node-engine's base
            # of 511 MB at 4 engines left at 0 by two other machines, its memory then predicted 304 MB)
            if (o and e["from"].get("rssPerEngineMb", "").startswith(ONE_ENGINE_COUNT)
                    and not o["from"].get("rssPerEngineMb", "").startswith(("one engine count", "not measured"))):
                e["rssPerEngineMb"] = o["rssPerEngineMb"]
                e["rssBaseMb"] = None if e.get("rssBaseMb") is None else _r(
                    max(0.0, e["rssBaseMb"] - o["rssPerEngineMb"] * record.rss_engines(e)), 1)
                e["from"]["rssPerEngineMb"] = f"one engine count on this machine: {other['machine']['cpuModel']}'s, " \
                                              f"{o['from']['rssPerEngineMb']}"
            if (o and e["from"].get("refusedCost", "").startswith("no cell that refused")
                    and not o["from"].get("refusedCost", "").startswith(("no cell", "not measured"))):
                e["refusedCost"] = o["refusedCost"]
                e["from"]["refusedCost"] = f"no cell on this machine: {other['machine']['cpuModel']}'s, " \
                                           f"{o['from']['refusedCost']}"


def _machine_figures_from(s: dict[str, Any], sets: list[dict[str, Any]]) -> None:
    """The probe's round trip, F and sales per order where S's folders had none: the first set with one."""
    if s["dbOwnMs"]["value"] is None:
        known = [o for o in sets if o["dbOwnMs"]["value"] is not None]
        if known:
            s["dbOwnMs"] = {"value": known[0]["dbOwnMs"]["value"],
                            "from": f"not probed on this machine: {known[0]['machine']['cpuModel']}'s"}
    if s.get("fsyncMs") is None:
        known = [o for o in sets if o.get("fsyncMs") and "not measured" not in o["fsyncMs"]["from"]]
        if known:
            # an fsync is the disk's time, not the CPU's: another machine's is a guess, said to be one
            s["fsyncMs"] = {**known[0]["fsyncMs"], "from": f"not measured on this machine: "
                            f"{known[0]['machine']['cpuModel']}'s ({known[0]['fsyncMs']['from']})"}
    if s["salesPerOrder"]["value"] is None:
        known = [o for o in sets if o["salesPerOrder"]["value"] is not None]
        if known:
            s["salesPerOrder"] = dict(known[0]["salesPerOrder"])


def slowed_database(doc: dict[str, Any]) -> bool:
    """The run's database was held to a share of the cores or synced every commit: for the whole run (--db-cpu,
    --db-durable) or in some of its cells (a map along a busy or a durable database, its runs' dbCpuCores and
    dbDurable). A folder with such cells is left out whole: its other cells share their process and hour."""
    env = doc.get("environment") or {}
    return bool(env.get("databaseCpuCores")) or bool(env.get("databaseDurable")) or any(
        r.get("dbCpuCores") or r.get("dbDurable") for r in doc.get("runs") or [])


def fit(folders: Sequence[str | Path], designs: list[Design], shape_from: Sequence[str | Path] | None = None,
        fsync_probes: list[dict[str, Any]] | None = None) -> list[ParameterSet]:
    """One parameter set per machine found in FOLDERS; how CPU per order grows below saturation (β and the
    cycles' cost) from the open-loop runs of SHAPE_FROM (any machine), by default of FOLDERS; a durable
    database's fsync time from FSYNC_PROBES (fsync.read), each on its own machine."""
    by_machine: dict[tuple[str | None, int | None], list[_Folder]] = {}
    loaded, slowed = [], []
    for folder in folders:
        doc, name = read(folder)
        if slowed_database(doc):
            # a run against a busy or durable database is what the model predicts from a free one's figures
            slowed.append(name)
            continue
        loaded.append(_Folder(doc, name, designs))
        by_machine.setdefault(machine_of(doc), []).append(loaded[-1])
    shape_folders = [_Folder(*read(f), designs) for f in shape_from] if shape_from else loaded
    keys = [d.key for d in designs]
    shapes = shapes_of(shape_folders, keys)
    light_rss = light_rss_of(shape_folders, keys)
    if not by_machine:
        raise ValueError(f"no run against a free database among {', '.join(slowed) or 'the folders given'}")
    # memory from the design's own open-loop runs: the machine's first, else the shape's (the same design)
    sets = [fit_machine(fs, designs, shapes, {**light_rss, **light_rss_of(fs, keys)}) for fs in by_machine.values()]
    for s, fs in zip(sets, by_machine.values()):
        add_measured(s, fs, shape_folders, keys)
    for s in sets:
        s["fsyncMs"] = _fsync_for(s["machine"], fsync_probes or [])
        if slowed:
            s["leftOut"] = {"folders": slowed, "why": "run against a busy or durable database"}
    for s in sets:
        # the runs β, the cycles' cost and memory below saturation came from, whichever machine ran them
        s["shapeSources"] = [{**f.source(), "cpuModel": machine_of(f.doc)[0]} for f in shape_folders
                             if any(r.get("rate") for _, r in f.runs)]
    fill_from_other_machines(sets)
    return [record.parameter_set(s) for s in sets]


def fit_document(folders: Sequence[str | Path], designs: list[Design], shape_from: Sequence[str | Path] | None = None,
                 fsync_probes: list[dict[str, Any]] | None = None) -> Parameters:
    return params.document(fit(folders, designs, shape_from, fsync_probes),
                           about="the model's parameters (docs/model.md), fitted by ./tradebench predict fit")
