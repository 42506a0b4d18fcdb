"""Where a design's CPU goes: a profile's samples sorted into named parts by the stack-frame rules of
profile_rules.py, and each part's CPU µs per order.

A sample belongs to the part of its innermost frame that a rule claims: the leaf is where the CPU was spent,
and walking from it towards the thread's root finds the first frame of code that a part owns (a socket write
under the database driver is the driver's; the same write under the HTTP connector is the framework's). A
sample no frame of which a rule claims is unclaimed, shown as its own share.

  part's µs per order = (part's samples ÷ all samples of the window) × the variant's CPU µs per order
                        measured in the same window (cpuUsPerOrder.variant, from the process samples)
"""
from __future__ import annotations

import re
from collections import Counter

from . import profile_rules

UNCLAIMED = "unclaimed"


def _compiled(runtime: str) -> list[tuple[str, re.Pattern, re.Pattern | None]]:
    return [(r[0], re.compile(r[2]), re.compile(r[3]) if len(r) > 3 else None)
            for r in profile_rules.RULES if r[1] in (None, runtime)]


_cache: dict[str, list] = {}


def rules_of(runtime: str) -> list[tuple[str, re.Pattern, re.Pattern | None]]:
    if runtime not in _cache:
        _cache[runtime] = _compiled(runtime)
    return _cache[runtime]


def part_of_frame(frame: str, runtime: str, above: str | None = None) -> str | None:
    """The part that claims FRAME; ABOVE: the nearest frame above it that a rule without a condition claims,
    else the stack's first (what a conditional rule's UNDER is held against)."""
    for part, rx, under in rules_of(runtime):
        if rx.search(frame) and (under is None or (above is not None and under.search(above))):
            return part
    return None


def _plain(frame: str, runtime: str) -> bool:
    return any(under is None and rx.search(frame) for _, rx, under in rules_of(runtime))


def part_of(stack: str, runtime: str) -> str:
    """The part a sample with STACK (collapsed: root first, frames separated by ';') belongs to."""
    frames = stack.split(";")
    for i in range(len(frames) - 1, -1, -1):
        above = None
        if any(under is not None and rx.search(frames[i]) for _, rx, under in rules_of(runtime)):
            above = next((f for f in reversed(frames[:i]) if _plain(f, runtime)), frames[0])
        part = part_of_frame(frames[i], runtime, above)
        if part:
            return part
    return UNCLAIMED


def counts(stacks: Counter, runtime: str) -> dict:
    """{"samples": all samples, "parts": {part: samples}} of STACKS ({collapsed stack: samples}); the
    unclaimed samples under UNCLAIMED."""
    parts: Counter = Counter()
    for stack, n in stacks.items():
        parts[part_of(stack, runtime)] += n
    return {"samples": sum(parts.values()), "parts": dict(parts)}


def shares(parts: dict) -> dict:
    total = sum(parts.values())
    return {p: n / total for p, n in parts.items()} if total else {}


def us_per_order(parts: dict, cpu_us_per_order: float | None) -> dict:
    """Each part's CPU µs per order: its share of the samples × the variant's CPU µs per order."""
    if cpu_us_per_order is None:
        return {}
    return {p: s * cpu_us_per_order for p, s in shares(parts).items()}


def rows(doc: dict) -> list[dict]:
    """Per row (series) of a run with profiles: its windows' sample counts summed, their shares, the median
    of its windows' CPU µs per order, and each part's µs per order; in the order of the runs."""
    by: dict[str, dict] = {}
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
        parts = dict(row["parts"])
        out.append({**row, "parts": parts, "samples": sum(parts.values()), "cpuUsPerOrder": med,
                    "shares": shares(parts), "usPerOrder": us_per_order(parts, med),
                    "unclaimedShare": shares(parts).get(UNCLAIMED, 0.0)})
    return out
