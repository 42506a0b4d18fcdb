"""Where a design's CPU goes, per row of a results document: its windows' samples per part (analysis/stacks.py
sorts them), their shares and each part's CPU µs per order, as a table; and the flame graphs a committed folder
keeps as stacks, drawn again."""
from __future__ import annotations

from collections import Counter
from collections.abc import Callable
from pathlib import Path
from typing import Any

from ..analysis import profile_rules
from ..analysis.stacks import UNCLAIMED, counts, read_collapsed, shares, us_per_order
from ..run import profiler
from ..run.context import Context

#: the stacked bars of every profiled row, beside the summary (report/results.py writes it)
CHART = "breakdown.png"


def profiles(doc: dict[str, Any], folder: Path) -> list[dict[str, Any]]:
    """A document's `profiles`: the breakdown of every profiled row, its samples sorted again by the rules as
    they are now from the row's collapsed stacks in FOLDER (so that `./tradebench report` applies refined
    rules), from its windows' records where the file is missing; [] when no row was profiled."""
    out = []
    for row in rows(doc, from_records=True):
        f = folder / (row.get("collapsed") or "")
        if row.get("collapsed") and f.is_file():
            row = _with_parts(row, counts(read_collapsed(f), row.get("runtime") or "java")["parts"])
        # a folder as committed keeps the stacks, not the page (`./tradebench report` draws it): no dead link
        row["flameGraphDrawn"] = bool(row.get("flameGraph")) and (folder / row["flameGraph"]).is_file()
        out.append(row)
    return out


def _with_parts(row: dict[str, Any], parts: dict[str, Any]) -> dict[str, Any]:
    cpu = row.get("cpuUsPerOrder")
    sh = shares(parts)
    return {**row, "parts": parts, "samples": sum(parts.values()), "shares": sh,
            "usPerOrder": us_per_order(parts, cpu), "unclaimedShare": sh.get(UNCLAIMED, 0.0)}


def rows(doc: dict[str, Any], from_records: bool = False) -> list[dict[str, Any]]:
    """Per row (series) of a run with profiles: its windows' sample counts summed, their shares, the median
    of its windows' CPU µs per order, and each part's µs per order; in the order of the runs. The document's
    `profiles` when it has them (FROM_RECORDS: never)."""
    if doc.get("profiles") and not from_records:
        kept: list[dict[str, Any]] = doc["profiles"]
        return kept
    by: dict[str, dict[str, Any]] = {}
    for r in doc.get("runs", []):
        prof = r.get("profile")
        if not prof or r.get("error"):
            continue
        row = by.setdefault(r.get("series") or r["variant"], {"series": r.get("series") or r["variant"],
                                                              "runtime": r.get("runtime"), "parts": Counter(),
                                                              "cpu": [], "flameGraph": prof.get("flameGraph"),
                                                              "collapsed": prof.get("collapsed")})
        row["parts"].update(prof.get("parts") or {})
        cpu = (r.get("cpuUsPerOrder") or {}).get("variant")
        if cpu is not None:
            row["cpu"].append(cpu)
    out = []
    for row in by.values():
        cpu = sorted(row.pop("cpu"))
        med = (cpu[len(cpu) // 2] if len(cpu) % 2 else (cpu[len(cpu) // 2 - 1] + cpu[len(cpu) // 2]) / 2) if cpu else None
        out.append(_with_parts({**row, "cpuUsPerOrder": med}, dict(row["parts"])))
    return out


TEXT = ("Where each row's CPU went in its measured windows, from a CPU profile of its process group "
        "(async-profiler; Node: --cpu-prof in every process and worker thread): each sample goes to the part that "
        "owns the innermost frame of its stack a rule claims (harness/tradebench_harness/analysis/profile_rules.py); "
        "a part's CPU µs per order is its share of the samples × the row's CPU µs per order measured in the same "
        "windows. Unclaimed: the samples no rule claims. The profiler's own cost is in the figures: they were "
        "measured with it on.")


def head() -> list[str]:
    return ["row", "samples", "CPU µs/order", *profile_rules.PARTS, UNCLAIMED, "flame graph"]


def cells(row: dict[str, Any], link: Callable[[str], str] = lambda href: href) -> list[str]:
    """A row's cells: each part's µs per order with its share of the samples."""
    def part(p: str) -> str:
        share = row["shares"].get(p)
        if not share:
            return "–"
        us = row["usPerOrder"].get(p)
        return (f"{us:.1f} ({share:.0%})" if us is not None else f"({share:.0%})")
    cpu = row["cpuUsPerOrder"]
    return [row["series"], f"{row['samples']:,}", f"{cpu:.1f}" if cpu is not None else "–",
            *[part(p) for p in profile_rules.PARTS], part(UNCLAIMED),
            link(row["flameGraph"]) if row.get("flameGraph") else "–"]


def md(doc: dict[str, Any]) -> list[str]:
    """The summary's section (lines), or none when the run has no profile."""
    rs = rows(doc)
    if not rs:
        return []
    out = ["", "## Where the CPU goes: the profile", "", TEXT, "",
           "| " + " | ".join(head()) + " |", "| " + " | ".join(["---"] + ["---:"] * (len(head()) - 2) + ["---"]) + " |"]
    out += ["| " + " | ".join(cells(r, (lambda href: f"[{href}]({href})") if r.get("flameGraphDrawn", True)
                                   else (lambda href: f"`{href}`"))) + " |" for r in rs]
    out += ["", f"![CPU µs per order by part]({CHART})"]
    return out


def redraw_flame_graphs(ctx: Context, doc: dict[str, Any], folder: Path, say: Callable[[str], None] = lambda m: None) -> None:
    """`./tradebench report`: the flame graph of every profiled row whose HTML is missing (a folder as
    committed keeps the pruned stacks, not the pages), drawn from its collapsed stacks."""
    for row in rows(doc, from_records=True):
        collapsed, html = row.get("collapsed"), row.get("flameGraph")
        if collapsed and html and (folder / collapsed).is_file() and not (folder / html).is_file():
            profiler.flame_graph(ctx, read_collapsed(folder / collapsed), folder / html, row["series"], say)
