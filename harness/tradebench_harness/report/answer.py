"""The latency sweep's and the map's view of a results folder: per series (a variant with its row's
settings) and cell (a place on the axis of slow database, axis.py: a latency, the database's cores, or its
commits synced or not; and a load), the figures over the repeats, the design's bound, where two designs
cross (along the round trip), and which design stored the most sales in each cell of the map.

summary.md's and report.html's sections for a document with cells (doc["cells"], cli/measure.py)."""
from __future__ import annotations

import html as h
from collections.abc import Callable
from typing import Any, overload

from matplotlib.axes import Axes
from matplotlib.patches import Patch, Rectangle
from matplotlib.ticker import FixedLocator, FuncFormatter, NullLocator

from ..analysis import bounds, crowded, stats, verdict
from ..model import check
from ..record import Run, group_figure, per_order
from . import tables
from .axis import Axis, cores_of, durable_of, of_doc
from .page import COLORS, CSS, img, png, table
from .page import pyplot as plt

# CPU groups of a cell, in the order the tables show them
GROUPS = ("variant", "database", "link", "loadclient")
# a point measured once has no range of its own: for telling a tie from a lead it gets ±this share around its
# figure: an assumption the tables state (--repeat 2 or more measures the spread instead)
SINGLE_RUN_NOISE = 0.10


def noise_band(s: dict[str, Any] | None) -> dict[str, Any] | None:
    """S's min–max, at least ±SINGLE_RUN_NOISE around the median when it was measured once."""
    if not s or s.get("n", 1) > 1:
        return s
    m = s["median"]
    return {**s, "min": min(s["min"], m * (1 - SINGLE_RUN_NOISE)), "max": max(s["max"], m * (1 + SINGLE_RUN_NOISE))}


def band(s: dict[str, Any] | None) -> dict[str, Any] | None:
    """S's 95 % interval as its range where it has one (cells measured in two processes or more); else its
    noise_band (a crossing along the round trip is then unchecked, and said so)."""
    if s and s.get("low") is not None:
        return {**s, "min": s["low"], "max": s["high"]}
    return noise_band(s)


def against(a: dict[str, Any], b: dict[str, Any]) -> dict[str, Any] | None:
    """A's sales/min ÷ B's with its interval and verdict (analysis/verdict.py), from their windows by process."""
    return verdict.compare(a.get("salesByProcess") or [], b.get("salesByProcess") or [],
                           tag=f"{a['series']}/{b['series']}/{at(a)}/{a['load']}")


def checked(a: dict[str, Any], b: dict[str, Any]) -> bool:
    """Whether the two points' sales/min ratio has an interval (both measured in two processes or more)."""
    r = against(a, b)
    return r is not None and bool(r) and r["verdict"] != verdict.UNKNOWN


def tie(a: dict[str, Any], b: dict[str, Any]) -> bool:
    """No difference detected between two points' sales/min: the 95 % interval of their ratio holds 1. Points
    measured in one process have no interval: they tie when each within SINGLE_RUN_NOISE of the other (an
    unchecked tie, said so wherever it is shown)."""
    r = against(a, b)
    if r and r["verdict"] != verdict.UNKNOWN:
        return bool(r["verdict"] == verdict.SAME)
    return stats.overlaps(noise_band(a["salesPerMinute"]), noise_band(b["salesPerMinute"]))


def load_key(r: Run) -> str:
    return f"{r['rate']}/s" if r.get("rate") else f"{r.get('concurrency')} clients"


def at(p: dict[str, Any]) -> Any:
    """A point's (or a cell's) place on the axis; a point made before the axis was kept is at its latency."""
    return p["at"] if "at" in p else p.get("latencyMs")


def axis_of(pts: list[dict[str, Any]]) -> Axis:
    return Axis(pts[0].get("axis") or "far") if pts else Axis()


def places(pts: list[dict[str, Any]]) -> list[Any]:
    """The axis's places of PTS, from the least slow database to the slowest."""
    return axis_of(pts).ordered(at(p) for p in pts)


def points(doc: dict[str, Any]) -> list[dict[str, Any]]:
    """One point per (series, place on the axis, load): medians and ranges over its repeats, the bound, its
    fraction."""
    ax, env = of_doc(doc), doc.get("environment") or {}
    groups: dict[tuple[Any, ...], list[Run]] = {}
    failed: dict[tuple[Any, ...], str] = {}

    def key_of(r: Run) -> tuple[Any, ...]:
        return r["series"], ax.of(r, env), load_key(r)

    for r in doc["runs"]:
        key = key_of(r)
        if r.get("error") or r.get("salesPerMinute") is None:
            failed.setdefault(key, r.get("error") or "no figures")
            continue
        groups.setdefault(key, []).append(r)
    out = []
    for key in sorted(set(groups) | set(failed), key=lambda k: (k[0], ax.rank(k[1]), k[2])):
        rs, aside = stats.counted(groups.get(key, []))
        tag = "/".join(map(str, key))
        series, place, load = key
        first = rs[0] if rs else next(r for r in doc["runs"] if key_of(r) == key)
        bound = first.get("boundSalesPerMinute")
        p = {"series": series, "variant": first["variant"], "axis": ax.kind, "at": place,
             "latencyMs": first["dbLatencyMs"], "dbCpuCores": cores_of(first, env), "dbDurable": durable_of(first, env),
             "load": load,
             "rate": first.get("rate"), "concurrency": first.get("concurrency"), "rttMs": first.get("rttMs"),
             "inFlight": first.get("inFlight"), "engines": first.get("engines"), "persist": first.get("persist"),
             "bound": bound, "repeats": len(rs), "error": None if rs else failed.get(key),
             "measuredProcesses": len(stats.by_process(rs, lambda r: 1)), "windowsSetAside": len(aside),
             "salesByProcess": stats.by_process(rs, lambda r: r["salesPerMinute"]),
             "salesPerMinute": stats.figure(rs, lambda r: r["salesPerMinute"], tag + "/sales"),
             "ordersPerSecond": stats.figure(rs, lambda r: r.get("ordersPerSecond"), tag + "/orders"),
             "p50Ms": stats.spread(r.get("p50Ms") for r in rs),
             "p99Ms": stats.figure(rs, lambda r: r.get("p99Ms"), tag + "/p99"),
             "p999Ms": stats.spread(r.get("p999Ms") for r in rs),
             "dbConnectionsOpen": stats.spread(r.get("dbConnectionsOpen") for r in rs),
             "cpuPercent": {g: stats.spread(group_figure(r, g, "cpuPercent") for r in rs)
                            for g in GROUPS},
             "cpuUsPerOrder": stats.figure(rs, lambda r: per_order(r, "variant"), tag + "/cpu"),
             "rssMb": stats.figure(rs, lambda r: group_figure(r, "variant", "rssMaxMb"), tag + "/rss"),
             "liveHeapMb": stats.figure(rs, stats.live_heap, tag + "/heap"),
             "threads": stats.spread(group_figure(r, "variant", "threadsMax") for r in rs),
             "processes": stats.spread(group_figure(r, "variant", "processes") for r in rs),
             "othersCpuPercent": stats.spread(crowded.others_percent(r) for r in rs),
             "stolenCpuPercent": stats.spread(crowded.stolen_percent(r) for r in rs)}
        s = p["salesPerMinute"]
        p["boundFraction"] = bounds.fraction(s["median"], bound) if s else None
        p["atBound"] = bounds.at_bound(s["median"], bound) if s else False
        out.append(p)
    for p in out:
        p["withinNoiseOf"] = sorted(o["series"] for o in out if o is not p and o["at"] == p["at"]
                                    and o["load"] == p["load"] and o["salesPerMinute"] and p["salesPerMinute"]
                                    and tie(p, o))
    return out


def crossovers(pts: list[dict[str, Any]]) -> dict[str, list[dict[str, Any]]]:
    """Per load: where two series swap places along the round trip (bounds.crossovers); none along a busy or a
    durable database's axis, whose cells differ in what the database does, not in how far it is."""
    out: dict[str, list[dict[str, Any]]] = {}
    if not axis_of(pts).far:
        return out
    for load in sorted({p["load"] for p in pts}):
        series: dict[str, dict[int, dict[str, Any]]] = {}
        for p in pts:
            if p["load"] == load and p["salesPerMinute"]:
                series.setdefault(p["series"], {})[p["latencyMs"]] = {"rttMs": p["rttMs"],
                                                                      **(band(p["salesPerMinute"]) or {})}
        out[load] = bounds.crossovers(series)
    return out


def winners(pts: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Per cell (place on the axis, load): the series that stored the most sales, by how much over the next one,
    the series within noise of it (a tie), and by how much the tied series' least is over the best of the rest
    (overRest: a tie of the leaders can still be far ahead of the others; None when every series ties)."""
    out = []
    for place in places(pts):
        for load in loads_of(pts):
            cell = sorted((p for p in pts if at(p) == place and p["load"] == load and p["salesPerMinute"]),
                          key=lambda p: -p["salesPerMinute"]["median"])
            if not cell:
                continue
            best = cell[0]
            verdicts = {p["series"]: against(best, p) for p in cell[1:]}
            tied = [p for p in cell[1:] if tie(best, p)]
            rest = [p for p in cell[1:] if p not in tied]
            nxt = cell[1]["salesPerMinute"]["median"] if len(cell) > 1 else None
            least = min([best, *tied], key=lambda p: p["salesPerMinute"]["median"])
            over_rest = least["salesPerMinute"]["median"] / rest[0]["salesPerMinute"]["median"] if tied and rest else None
            # the least of the tied over the best of the rest, with its interval (None: one process each)
            rest_interval = against(least, rest[0]) if tied and rest else None
            out.append({"at": place, "latencyMs": best.get("latencyMs"), "load": load, "rttMs": best["rttMs"],
                        "winner": best["series"],
                        "salesPerMinute": best["salesPerMinute"]["median"],
                        "overNext": best["salesPerMinute"]["median"] / nxt if nxt else None,
                        "ties": [p["series"] for p in tied], "overRest": over_rest, "series": len(cell),
                        "overRestInterval": rest_interval,
                        # the verdict of the winner over the next: its ratio's interval (None: one process each)
                        "overNextInterval": verdicts.get(cell[1]["series"]) if len(cell) > 1 else None,
                        "unchecked": [s for s, r in verdicts.items() if (r or {}).get("verdict", verdict.UNKNOWN)
                                      == verdict.UNKNOWN]})
    return out


def median(s: dict[str, Any] | None) -> Any:
    return (s or {}).get("median")


def cheapest(pts: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Per cell, among the series that carry its load (within noise of the most sales: the winner and its
    ties): the one whose process group used the least CPU and the one with the lowest p99, each with by how much
    the next carrier is above it (None: the only carrier). Where every design stores the offered load, this
    is what decides between them."""
    out = []
    for w in winners(pts):
        names = [w["winner"], *w["ties"]]
        carriers = [p for p in pts if p["series"] in names and at(p) == w["at"] and p["load"] == w["load"]]

        def least(key: Callable[[dict[str, Any]], Any],
                  carriers: list[dict[str, Any]] = carriers) -> tuple[Any, Any, Any]:
            got = sorted((p for p in carriers if median(key(p)) is not None), key=lambda p: median(key(p)))
            if not got:
                return None, None, None
            nxt = median(key(got[1])) / median(key(got[0])) if len(got) > 1 and median(key(got[0])) else None
            return got[0]["series"], median(key(got[0])), nxt

        cpu_s, cpu, cpu_next = least(lambda p: p["cpuPercent"].get("variant"))
        p99_s, p99, p99_next = least(lambda p: p["p99Ms"])
        out.append({"at": w["at"], "latencyMs": w["latencyMs"], "load": w["load"], "rttMs": w["rttMs"], "carriers": names,
                    "leastCpu": cpu_s, "cpuPercent": cpu, "cpuNextOver": cpu_next,
                    "lowestP99": p99_s, "p99Ms": p99, "p99NextOver": p99_next})
    return out


def cheapest_text(c: dict[str, Any]) -> str:
    def part(what: str, series: str, figure: str, nxt: float | None) -> str:
        return f"{what} {series} ({figure}{f', next ×{nxt:.1f}' if nxt else ', the only carrier' if nxt is None else ''})"
    if not c["leastCpu"]:
        return "–"
    return (part("least CPU:", c["leastCpu"], f"{c['cpuPercent'] / 100:.2f} cores", c["cpuNextOver"]) + "; "
            + part("lowest p99:", c["lowestP99"], f"{c['p99Ms']:.1f} ms", c["p99NextOver"]))


def loads_of(pts: list[dict[str, Any]]) -> list[str]:
    def order(load: str) -> tuple[int, int]:
        n = load.split("/")[0].split()[0]
        return (0 if "/s" in load else 1, int(n) if n.isdigit() else 0)
    return sorted({p["load"] for p in pts}, key=order)


def fmt_rtt(ms: float | None) -> str:
    return "–" if ms is None else (f"{ms:.2f}" if ms < 10 else f"{ms:.1f}")


def cpu_text(p: dict[str, Any]) -> str:
    return " / ".join(tables.fmt((p["cpuPercent"].get(g) or {}).get("median"), ".0f") for g in GROUPS)


def point_cells(p: dict[str, Any]) -> list[str]:
    bound = p["bound"]
    frac = p["boundFraction"]
    notes = []
    if p["atBound"]:
        notes.append(f"at its bound (within {bounds.AT_BOUND:.0%})")
    if p["withinNoiseOf"]:
        notes.append("≈ " + ", ".join(p["withinNoiseOf"]))
    if p["error"]:
        notes.append(f"failed: {p['error'][:120]}")
    notes += tables.busy_note(p.get("othersCpuPercent"), p.get("stolenCpuPercent"))
    res = p["rssMb"], p["threads"], p["processes"]
    return [p["series"], Axis(p.get("axis") or "far").name(at(p)), fmt_rtt(p["rttMs"]), p["load"],
            tables.cell(p["salesPerMinute"]),
            (f"{tables.fmt(bound)} ({p['inFlight']} in flight)" if bound else "– (none declared)"),
            f"{frac:.2f}" if frac is not None else "–", tables.cell(p["ordersPerSecond"]),
            " / ".join([tables.fmt(median(p["p50Ms"]), ".1f"), tables.cell(p["p99Ms"], ".1f"),
                        tables.fmt(median(p["p999Ms"]), ".1f")]),
            cpu_text(p), tables.cell(p["cpuUsPerOrder"], ".1f"),
            " / ".join([tables.cell(p["rssMb"], ",.0f"), tables.cell(p.get("liveHeapMb"), ",.0f")]
                       + [tables.fmt((x or {}).get("median"), ".0f") for x in res[1:]]),
            tables.fmt(median(p["dbConnectionsOpen"]), ".0f"),
            "; ".join(notes)]


def head(ax: Axis) -> list[str]:
    """The columns of the table of every point, the axis's second."""
    return ["series", ax.head, "round trip ms", "load", "sales/min", "bound sales/min (inserts in flight)", "÷ bound",
            "orders/s", "p50 / p99 / p99.9 ms", "CPU % variant / db / link / load client", "variant CPU µs/order",
            "RSS MB / live heap MB (after a collection) / threads / processes", "database connections open", "notes"]



def explain(ax: Axis) -> str:
    """What the tables' figures mean, along AX."""
    return (f"{ax.explain}; round trip: one INSERT on one connection through that link, with the cell's database, "
            "measured before the series. A design's bound is the "
            "inserts it keeps in flight (its manifest's inFlight) ÷ the round trip (Little's law), in sales/min; "
            "none for a multi-row INSERT per cycle, whose bound is in cycles, not sales. Each series runs in "
            "--processes fresh processes, round-robin with the other series, each process --repeat passes over "
            "every cell, so a cell's windows are interleaved in time with the other cells'. "
            f"{tables.INTERVAL_TEXT} ≈ and a tie: no difference in sales/min detected (the 95 % interval of the ratio of "
            "the two holds 1); a lead is a ratio whose interval lies above 1; a cell measured in one process has no "
            "interval, so its lead is unchecked (said so). Crossings along the round trip use the intervals where the "
            f"cells have them, else each figure ±{SINGLE_RUN_NOISE:.0%}. "
            "CPU %: 100 = one core; link: the Toxiproxy process.")



def every_point_title(ax: Axis) -> str:
    return "Every series at every latency" if ax.far else "Every series in every cell"


def crossover_text(c: dict[str, Any]) -> str:
    return (f"{c['below']} ahead below, {c['above']} ahead above about {fmt_rtt(c['rttMs'])} ms round trip "
            f"(they cross between {fmt_rtt(c['between'][0])} and {fmt_rtt(c['between'][1])} ms)")


def grid_rows(cells: list[dict[str, Any]], pts: list[dict[str, Any]], ax: Axis,
              text: Callable[[dict[str, Any]], str]) -> list[str]:
    """A map table's rows: one per place on the axis (its round trip beside it), a cell per load, TEXT of each."""
    lines = []
    for place in ax.ordered(c["at"] for c in cells):
        row = [ax.name(place), fmt_rtt(next(c["rttMs"] for c in cells if c["at"] == place))]
        for load in loads_of(pts):
            c = next((c for c in cells if c["at"] == place and c["load"] == load), None)
            row.append(text(c) if c else "–")
        lines.append("| " + " | ".join(row) + " |")
    return lines


def map_md(pts: list[dict[str, Any]], ax: Axis) -> list[str]:
    """The map's first table: which design stored the most sales in each cell."""
    lines = ["## The map: which design stored the most sales", "",
             f"| {ax.head} | round trip ms | " + " | ".join(loads_of(pts)) + " |",
             "| ---: | ---: | " + " | ".join("---" for _ in loads_of(pts)) + " |"]
    return lines + grid_rows(winners(pts), pts, ax, winner_text)


def cheapest_md(pts: list[dict[str, Any]], ax: Axis) -> list[str]:
    """The map's second table: the cheapest carrier of each cell, in cores and in p99."""
    lines = ["## What carrying the load costs: the cheapest carrier of each cell", "",
             "Among the designs that carry a cell's load (within noise of the most sales), the one whose process "
             "group used the least CPU (in cores) and the one with the lowest p99, and how far the next carrier "
             "is above it. Where a cell is a tie, this decides.", "",
             f"| {ax.head} | round trip ms | " + " | ".join(loads_of(pts)) + " |",
             "| ---: | ---: | " + " | ".join("---" for _ in loads_of(pts)) + " |"]
    return lines + grid_rows(cheapest(pts), pts, ax, cheapest_text) + [""]


def md(doc: dict[str, Any]) -> str:
    pts = points(doc)
    kind = doc["cells"]["kind"]
    ax = of_doc(doc)
    lines = [f"# tradebench {doc['command']} {doc['runId']}\n"]
    # the first table opens the summary; how to read it, and where the processes ran, follow it
    reading = ["", explain(ax) + " The rest: docs/reading-a-run.md in the repository.", "", *tables.layout_lines(doc), ""]
    if kind == "map":
        lines += map_md(pts, ax) + reading + cheapest_md(pts, ax)
    lines += [f"## {every_point_title(ax)}", "", "| " + " | ".join(head(ax)) + " |",
              "| " + " | ".join(["---"] * 4 + ["---:"] * 4 + ["---"] * 4 + ["---:", "---"]) + " |"]
    lines += ["| " + " | ".join(point_cells(p)) + " |" for p in pts]
    if kind != "map":
        lines += reading
    if ax.far:
        lines += ["", "## Where two designs cross", ""]
        any_cross = False
        for load, cs in crossovers(pts).items():
            for c in cs:
                any_cross = True
                lines.append(f"- {load}: {crossover_text(c)}")
        if not any_cross:
            lines.append("- none: no pair was clearly ahead on one side of a latency and clearly behind on the other")
    lines += model_md(doc)
    lines += ["", "## Round trips", ""] + round_trips_md(doc)
    lines += ["", "## Environment", "", environment_text(doc)]
    return "\n".join(lines) + "\n"


def round_trips_md(doc: dict[str, Any]) -> list[str]:
    """The probe's round trip of every database setting of the cells (cells.rttMs): by added latency, or, where a
    cell had a database of its own, by "latency, cores" or "latency, synced"."""
    rtt = doc["cells"].get("rttMs") or {}
    if all(k.isdigit() for k in rtt):
        return (["| +ms | one INSERT's round trip ms |", "| ---: | ---: |"]
                + [f"| {k} | {fmt_rtt(v)} |" for k, v in sorted(rtt.items(), key=lambda kv: int(kv[0]))])
    return (["| +ms, the cell's database | one INSERT's round trip ms |", "| --- | ---: |"]
            + [f"| {k} | {fmt_rtt(v)} |" for k, v in rtt.items()])


def model_md(doc: dict[str, Any]) -> list[str]:
    """The model (docs/model.md) beside every cell: how many it has within 15 %, and each cell's errors."""
    m = doc.get("model")
    if not m or not m["rows"]:
        return []     # a closed-loop sweep: the model predicts open-loop cells only
    s = m["summary"]
    counts = ", ".join(f"{name} {s[key]['within']} of {s[key]['of']}" for key, name in
                       (("sales", "sales"), ("cpu", "variant CPU"), ("rss", "RSS")) if s.get(key))
    return ["", "## The model beside the measurement", "",
            f"Each open-loop cell predicted by `./tradebench predict`'s model ({m['parameters']}) from what the cell "
            f"was asked to do, not from what it measured; within {check.WITHIN:.0%}: {counts} "
            f"(cells {s['cells']}).{' The parameters were fitted from this run: no check.' if m.get('inSample') else ''} "
            "Why a cell misses: docs/model.md in the repository.", "", check.table(m["rows"])]


def ahead_of_rest(w: dict[str, Any]) -> str:
    """"×N over the rest" for a tie of leaders whose least is ahead of the best of the others: by the interval of
    that ratio where the cells have one ("×N [low–high] over the rest"), else by over 5 % (one process); "" when
    every series tied or the rest is not told apart."""
    r, ci = w.get("overRest"), w.get("overRestInterval")
    if ci and ci.get("low") is not None:
        return f"×{ci['ratio']:.1f} [{verdict.bracket(ci)}] over the rest" if ci["verdict"] == verdict.AHEAD else ""
    return f"×{r:.1f} over the rest" if r and r >= 1.05 else ""


def winner_text(w: dict[str, Any]) -> str:
    if w["ties"]:
        ahead = ahead_of_rest(w)
        unchecked = any(t in w.get("unchecked", []) for t in w["ties"])
        return (("tie: " if unchecked else "no difference detected: ") + ", ".join([w["winner"], *w["ties"]])
                + (f" ({ahead})" if ahead else "")
                + (f" (one process: within ±{SINGLE_RUN_NOISE * 100:.0f} %)" if unchecked else ""))
    r = w.get("overNextInterval")
    if r and r.get("low") is not None:
        return f"{w['winner']} ×{r['ratio']:.2f} [{verdict.bracket(r)}]"
    by = f" ×{w['overNext']:.1f}" if w["overNext"] else ""
    return f"{w['winner']}{by}" + (" (no interval: one process)" if w.get("unchecked") else "")


def environment_text(doc: dict[str, Any]) -> str:
    e = doc.get("environment") or {}
    return (f"git {e.get('gitCommit')} (dirty: {e.get('gitDirty')}), {e.get('cpuModel')}, {e.get('cores')} cores, "
            f"{e.get('memoryGb')} GB, kernel {e.get('kernel')}, load before {e.get('loadAverageBefore')}, "
            f"{e.get('jdk')}, node {e.get('node')}, database {e.get('database')}; started {doc.get('startedAt')}, "
            f"{tables.fmt(doc.get('elapsedS'), '.0f')} s")


# --- charts -------------------------------------------------------------------------------------------------

def colours(pts: list[dict[str, Any]]) -> dict[str, str]:
    return {s: COLORS[i % len(COLORS)] for i, s in enumerate(sorted({p["series"] for p in pts}))}


def x_of(p: dict[str, Any], ax: Axis) -> Any:
    """Where a point sits on a chart of sales along AX: its round trip (far), its database's cores (busy), 0 or 1
    (durable: commits not synced, synced); None where it has no place on a log scale (no round trip measured, a
    database not held)."""
    if ax.kind == "busy":
        return at(p) or None
    if ax.kind == "durable":
        return 1 if at(p) else 0
    return p["rttMs"] or None


def along(ax: Axis) -> str:
    """What a chart of sales/min is drawn against."""
    return {"busy": "the database's cores", "durable": "commits not synced and synced"}.get(ax.kind, "the round trip")


@overload
def sweep_chart(pts: list[dict[str, Any]], load: str | None = None, ax: None = None, title: str | None = None) -> str: ...
@overload
def sweep_chart(pts: list[dict[str, Any]], load: str | None, ax: Axes, title: str | None = None) -> None: ...
def sweep_chart(pts: list[dict[str, Any]], load: str | None = None, ax: Axes | None = None,
                title: str | None = None) -> str | None:
    """sales/min along the axis (far: against the round trip, log-log; busy: the database's cores, fewer to the
    right; durable: not synced, synced), a line per series with its 95 % interval, its bound dashed."""
    own = ax is None
    if ax is None:
        fig, ax = plt.subplots(figsize=(9, 5.5))
    axis = axis_of(pts)
    col = colours(pts)
    load = load or loads_of(pts)[0]
    top = max((p["salesPerMinute"]["max"] for p in pts if p["load"] == load and p["salesPerMinute"]), default=None)
    for s in sorted(col):
        ps = sorted((p for p in pts if p["series"] == s and p["load"] == load and x_of(p, axis) is not None),
                    key=lambda p: axis.rank(at(p)))
        got = [p for p in ps if p["salesPerMinute"]]
        if got:
            x = [x_of(p, axis) for p in got]
            med = [p["salesPerMinute"]["median"] for p in got]
            # the 95 % interval where the cell has one (none drawn: one process); an older folder: min–max
            lo = [m - (p["salesPerMinute"]["low"] if p["salesPerMinute"].get("low") is not None else
                       m if "low" in p["salesPerMinute"] else p["salesPerMinute"]["min"]) for m, p in zip(med, got)]
            hi = [(p["salesPerMinute"]["high"] if p["salesPerMinute"].get("high") is not None else
                   m if "high" in p["salesPerMinute"] else p["salesPerMinute"]["max"]) - m for m, p in zip(med, got)]
            ax.errorbar(x, med, yerr=[lo, hi], marker="o", capsize=3, color=col[s], label=s, lw=1.8)
        bs = [p for p in ps if p["bound"]]
        if bs:
            ax.plot([x_of(p, axis) for p in bs], [p["bound"] for p in bs], "--", color=col[s], lw=1, alpha=0.8)
    ax.set_yscale("log")
    if top:
        ax.set_ylim(top=top * 3)     # the bounds run far above what the cores allow at a fast database
    if axis.kind == "busy":
        cores = sorted({at(p) for p in pts if at(p)})
        ax.set_xscale("log")
        ax.xaxis.set_major_locator(FixedLocator(cores))
        ax.xaxis.set_major_formatter(FuncFormatter(lambda v, _: f"{v:g}"))
        ax.xaxis.set_minor_locator(NullLocator())
        ax.invert_xaxis()            # a busier database to the right, as a farther one is
        ax.set_xlabel("the database's cores (log; a CPU quota on its server)")
    elif axis.kind == "durable":
        ax.set_xticks([0, 1], ["not synced", "every commit synced"])
        ax.set_xlim(-0.5, 1.5)
        ax.set_xlabel("the database's commits")
    else:
        ax.set_xscale("log")
        ax.set_xlabel("database round trip, ms (log): one INSERT, added latency + the database's own time" if own
                      else "database round trip, ms (log)")
    ax.set_ylabel("sales stored per minute (log)")
    ax.set_title(title or f"Sales/min against {along(axis)} ({load}); dashed: each design's bound")
    ax.grid(which="both", alpha=0.3)
    ax.legend(fontsize=7)
    if own:
        return png(fig)
    return None


TIE, TIE_AHEAD = "#d0d0d0", "#a9cce3"   # the map's cells: every design within noise; the leaders within noise


def cell_ticks(ax: Axis, cells: list[dict[str, Any]], order: list[Any]) -> list[str]:
    """A map's row labels: each place on the axis with its round trip."""
    rtt = {c["at"]: c["rttMs"] for c in cells}
    return [f"{ax.text(v)}\n({fmt_rtt(rtt.get(v))} ms)" for v in order]


def map_chart(pts: list[dict[str, Any]]) -> str:
    """The winner of each cell (place on the axis × load) in its colour, ties grey, the ratio over the next
    written in."""
    ws = winners(pts)
    axis = axis_of(pts)
    order = axis.ordered(w["at"] for w in ws)
    loads = loads_of(pts)
    col = colours(pts)
    fig, axes = plt.subplots(1, 1 + len(loads), figsize=(5 + 4.2 * len(loads), 4.6),
                             gridspec_kw={"width_ratios": [1.3] + [1] * len(loads)})
    ax = axes[0]
    for w in ws:
        x, y = loads.index(w["load"]), order.index(w["at"])
        ahead = ahead_of_rest(w)   # a tie of the leaders says by how much they are ahead of the rest
        face = (TIE_AHEAD if ahead else TIE) if w["ties"] else col[w["winner"]]
        ax.add_patch(Rectangle((x - 0.5, y - 0.5), 1, 1, facecolor=face, edgecolor="white", lw=2))
        tied = [w["winner"], *w["ties"]]
        # a tie of every design is said so: six names do not fit in a cell
        text = ("tie\n" + ("every design" if len(tied) == len(col) > 2 else "\n".join(tied)) +
                (f"\n{ahead}" if ahead else "")) if w["ties"] else \
            (w["winner"].replace(" ", "\n", 1) + (f"\n×{w['overNext']:.1f}" if w["overNext"] else ""))
        ax.text(x, y, text, ha="center", va="center", fontsize=6.5 if len(tied) <= 4 or not w["ties"] else 5.5,
                color="black" if w["ties"] else "white")
    ax.set_xlim(-0.5, len(loads) - 0.5)
    ax.set_ylim(-0.5, len(order) - 0.5)
    ax.set_xticks(range(len(loads)), loads, fontsize=8)
    ax.set_yticks(range(len(order)), cell_ticks(axis, ws, order), fontsize=8)
    ax.set_xlabel("offered load")
    ax.set_ylabel(axis.title)
    ax.set_title("Most sales stored (×: over the next)")
    ax.legend(handles=[Patch(color=c, label=s) for s, c in col.items()] + [Patch(color=TIE, label="tie (within noise)"),
              Patch(color=TIE_AHEAD, label="tie, ahead of the rest")],
              fontsize=6, loc="upper center", bbox_to_anchor=(0.5, -0.18), ncol=2)
    for ax, load in zip(axes[1:], loads):
        sweep_chart(pts, load, ax=ax, title=f"{load}: sales/min against {along(axis)}")
    fig.tight_layout()
    return png(fig)


def cheapest_chart(pts: list[dict[str, Any]]) -> str:
    """The map's second view: per cell, the carrier that used the least CPU and the one with the lowest p99."""
    cs = cheapest(pts)
    axis = axis_of(pts)
    order = axis.ordered(c["at"] for c in cs)
    loads = loads_of(pts)
    col = colours(pts)
    fig, axes = plt.subplots(1, 2, figsize=(4 + 3.2 * len(loads), 4.4))
    for ax, key, fig_key, nxt_key, title, unit in (
            (axes[0], "leastCpu", "cpuPercent", "cpuNextOver", "Least CPU among the carriers", "cores"),
            (axes[1], "lowestP99", "p99Ms", "p99NextOver", "Lowest p99 among the carriers", "ms")):
        for c in cs:
            if not c[key]:
                continue
            x, y = loads.index(c["load"]), order.index(c["at"])
            ax.add_patch(Rectangle((x - 0.5, y - 0.5), 1, 1, facecolor=col[c[key]], edgecolor="white", lw=2))
            figure = c[fig_key] / 100 if unit == "cores" else c[fig_key]
            nxt = f"\nnext ×{c[nxt_key]:.1f}" if c[nxt_key] else "\nonly carrier"
            ax.text(x, y, c[key].replace(" ", "\n", 1) + f"\n{figure:.2f} {unit}{nxt}", ha="center", va="center",
                    fontsize=6.5, color="white")
        ax.set_xlim(-0.5, len(loads) - 0.5)
        ax.set_ylim(-0.5, len(order) - 0.5)
        ax.set_xticks(range(len(loads)), loads, fontsize=8)
        ax.set_yticks(range(len(order)), cell_ticks(axis, cs, order), fontsize=8)
        ax.set_xlabel("offered load")
        ax.set_title(title, fontsize=10)
    axes[0].set_ylabel(axis.title)
    fig.tight_layout()
    return png(fig)


def cost_chart(pts: list[dict[str, Any]]) -> str:
    """What carrying the load costs: the variant's cores and RSS against the offered load, a line per series, a
    panel per place on the axis (cores on top, memory below)."""
    axis = axis_of(pts)
    order = places(pts)
    rates = sorted({p["rate"] for p in pts if p["rate"]})
    col = colours(pts)
    carries = {(s, c["at"], c["load"]) for c in cheapest(pts) for s in c["carriers"]}
    fig, axes = plt.subplots(2, len(order), figsize=(3.4 * len(order) + 1, 6.4), squeeze=False, sharex=True)
    for j, place in enumerate(order):
        for s in sorted(col):
            ps = sorted((p for p in pts if p["series"] == s and at(p) == place and p["rate"]
                         and p["salesPerMinute"]), key=lambda p: p["rate"])
            if not ps:
                continue
            x = [p["rate"] for p in ps]
            for row, ys in ((0, [(median(p["cpuPercent"].get("variant")) or 0) / 100 for p in ps]),
                            (1, [median(p["rssMb"]) or 0 for p in ps])):
                axes[row][j].plot(x, ys, color=col[s], label=s, lw=1.6)
                # filled: the design carries the cell's load; hollow: it falls short of the most sales
                for p, y in zip(ps, ys):
                    full = (s, place, p["load"]) in carries
                    axes[row][j].plot([p["rate"]], [y], "o", color=col[s], mfc=col[s] if full else "white")
        rtt = next((p["rttMs"] for p in pts if at(p) == place), None)
        axes[0][j].set_title(f"{axis.text(place)} ({fmt_rtt(rtt)} ms round trip)", fontsize=9)
        axes[1][j].set_xlabel("offered orders/s")
        for ax in (axes[0][j], axes[1][j]):
            ax.set_xscale("log")
            ax.xaxis.set_major_locator(FixedLocator(rates))
            ax.xaxis.set_major_formatter(FuncFormatter(lambda v, _: f"{v:,.0f}"))
            ax.xaxis.set_minor_locator(NullLocator())
            ax.grid(which="both", alpha=0.3)
    axes[0][0].set_ylabel("variant's cores")
    axes[1][0].set_ylabel("variant's RSS, MB")
    axes[0][0].legend(fontsize=6)
    fig.suptitle("What carrying the load costs: cores and memory against the offered load (hollow: it does not "
                 "carry that load)", fontsize=10)
    fig.tight_layout()
    return png(fig)


def panel_of(ax: Axis) -> str:
    return {"busy": "a panel per database's cores", "durable": "a panel for commits not synced and synced"}.get(
        ax.kind, "a panel per round trip")


def charts(doc: dict[str, Any]) -> dict[str, tuple[str, str]]:
    """Every chart of a sweep or a map: id -> (caption, PNG as base64), in the report's order."""
    pts = points(doc)
    ax = of_doc(doc)
    out = {}
    if pts and doc["cells"]["kind"] == "map":
        out["map"] = ("the map: which design stored the most sales per cell; each design's curves beside it",
                      map_chart(pts))
        out["map-cost"] = ("the carriers of each cell: the least CPU and the lowest p99 among the designs that "
                           "carry its load", cheapest_chart(pts))
        if any(p["rate"] for p in pts):
            out["cost"] = ("what carrying the load costs: each design's cores and memory against the offered load, "
                           f"{panel_of(ax)}", cost_chart(pts))
    for i, load in enumerate(loads_of(pts)):
        out[ax.chart if i == 0 else f"{ax.chart}-{load.split()[0].replace('/', '-')}"] = (
            f"sales/min against {along(ax)}, {load}; dashed: each design's bound", sweep_chart(pts, load))
    return out


def html(doc: dict[str, Any], drawn: dict[str, Any] | None = None) -> str:
    """report.html of a sweep or a map (DRAWN: its charts, when already drawn)."""
    pts = points(doc)
    ax = of_doc(doc)
    parts = [f"<!DOCTYPE html><html><head><meta charset='utf-8'><title>tradebench {h.escape(doc['runId'])}</title>"
             f"<style>{CSS}</style></head><body>",
             f"<h1>tradebench {h.escape(doc['command'])} <code>{h.escape(doc['runId'])}</code></h1>",
             f"<p>{h.escape(explain(ax))}</p>"]
    for name, (caption, data) in (drawn if drawn is not None else charts(doc)).items():
        parts.append(img(name, caption, data))
    attrs = [f'class="point{" at-bound" if p["atBound"] else ""}" data-series="{h.escape(p["series"])}"' for p in pts]
    parts.append(f"<h2>{every_point_title(ax)}</h2>" + table(head(ax), [point_cells(p) for p in pts], "points", attrs))
    if ax.far:
        items = [f"<li>{h.escape(load)}: {h.escape(crossover_text(c))}</li>" for load, cs in crossovers(pts).items()
                 for c in cs]
        parts.append("<h2>Where two designs cross</h2><ul class='crossovers'>" + ("".join(items) or
                     "<li>none: no pair was clearly ahead on one side of a latency and clearly behind on the other</li>")
                     + "</ul>")
    env = doc.get("environment") or {}
    parts.append("<h2>Environment</h2>" + table(["item", "value"], [[k, v] for k, v in env.items()], "environment"))
    parts.append("<h2>Harness options</h2>" + table(["option", "value"], [[k, v] for k, v in (doc.get("options") or {}).items()], "options"))
    parts.append("</body></html>")
    return "\n".join(parts)
