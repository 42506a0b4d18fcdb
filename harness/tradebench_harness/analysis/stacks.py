"""A profile's stacks sorted into the named parts of profile_rules.py: which part a sample belongs to, the
samples per part, and the stacks pruned small enough to keep with a results folder.

A sample belongs to the part of its innermost frame that a rule claims: the leaf is where the CPU was spent,
and walking from it towards the thread's root finds the first frame of code that a part owns (a socket write
under the database driver is the driver's; the same write under the HTTP connector is the framework's). A
sample no frame of which a rule claims is unclaimed, shown as its own share.

  part's µs per order = (part's samples ÷ all samples of the window) × the variant's CPU µs per order
                        measured in the same window (cpuUsPerOrder.variant, from the process samples)
"""
from __future__ import annotations

import gzip
import re
from collections import Counter
from pathlib import Path
from typing import Any

from . import profile_rules

UNCLAIMED = "unclaimed"

def _compiled(runtime: str) -> list[tuple[str, re.Pattern[str], re.Pattern[str] | None]]:
    return [(r[0], re.compile(r[2]), re.compile(r[3]) if len(r) > 3 else None)
            for r in profile_rules.RULES if r[1] in (None, runtime)]


_cache: dict[str, list[Any]] = {}


def rules_of(runtime: str) -> list[tuple[str, re.Pattern[str], re.Pattern[str] | None]]:
    if runtime not in _cache:
        _cache[runtime] = _compiled(runtime)
    return _cache[runtime]


def part_of_frame(frame: str, runtime: str) -> str | None:
    """The part a rule of the first tier claims FRAME for."""
    for part, rx, under in rules_of(runtime):
        if under is None and rx.search(frame):
            return part
    return None


#: the leaf prune() puts where it cut a stack, naming the part its samples belonged to
SMALLER = re.compile(r"^\[smaller stacks: (.+)\]$")


def part_of(stack: str, runtime: str) -> str:
    """The part a sample with STACK (collapsed: root first, frames separated by ';') belongs to: its innermost
    frame a first-tier rule claims; where none does, the outermost frame a fallback rule of its thread's kind
    claims (the event the thread was handling: a socket's read, a timer). A stack prune() cut keeps the part
    its samples had."""
    frames = stack.split(";")
    cut = SMALLER.match(frames[-1])
    if cut:
        return cut.group(1)
    for f in reversed(frames):
        part = part_of_frame(f, runtime)
        if part:
            return part
    for f in frames:
        for part, rx, under in rules_of(runtime):
            if under is not None and under.search(frames[0]) and rx.search(f):
                return part
    return UNCLAIMED


def counts(stacks: Counter[str], runtime: str) -> dict[str, Any]:
    """{"samples": all samples, "parts": {part: samples}} of STACKS ({collapsed stack: samples}); the
    unclaimed samples under UNCLAIMED."""
    parts: Counter[str] = Counter()
    for stack, n in stacks.items():
        parts[part_of(stack, runtime)] += n
    return {"samples": sum(parts.values()), "parts": dict(parts)}


def prune(stacks: Counter[str], runtime: str, min_share: float = 0.005) -> Counter[str]:
    """STACKS small enough to keep with a results folder: every stack cut below its deepest frame that at
    least MIN_SHARE of all samples pass through, its cut-off samples under one leaf per part there,
    `[smaller stacks: PART]`, PART as part_of gave it on the whole stack. A flame graph of the pruned stacks
    has every frame of at least that width exactly as wide, and the breakdown of them is the breakdown of the
    whole stacks (a 45 s window of a JVM: about 5,000 stacks, 6 MB as text; pruned at 0.5 %: about 800 stacks, 16 kB gzipped)."""
    total = sum(stacks.values())
    through: Counter[str] = Counter()
    for stack, n in stacks.items():
        frames = stack.split(";")
        for i in range(1, len(frames) + 1):
            through[";".join(frames[:i])] += n
    least = total * min_share
    out: Counter[str] = Counter()
    for stack, n in stacks.items():
        frames = stack.split(";")
        keep = len(frames)
        while keep > 1 and through[";".join(frames[:keep])] < least:
            keep -= 1
        if keep == len(frames):
            out[stack] += n
        else:
            out[";".join(frames[:keep]) + f";[smaller stacks: {part_of(stack, runtime)}]"] += n
    return out


def shares(parts: dict[str, Any]) -> dict[str, Any]:
    total = sum(parts.values())
    return {p: n / total for p, n in parts.items()} if total else {}


def us_per_order(parts: dict[str, Any], cpu_us_per_order: float | None) -> dict[str, Any]:
    """Each part's CPU µs per order: its share of the samples × the variant's CPU µs per order."""
    if cpu_us_per_order is None:
        return {}
    return {p: s * cpu_us_per_order for p, s in shares(parts).items()}


def read_collapsed(path: Path) -> Counter[str]:
    """A collapsed-stacks file (gzipped when its name ends in .gz) as {stack: samples}."""
    text = gzip.decompress(path.read_bytes()).decode() if path.suffix == ".gz" else path.read_text()
    out: Counter[str] = Counter()
    for line in text.splitlines():
        stack, _, n = line.rpartition(" ")
        if stack and n.isdigit():
            out[stack] += int(n)
    return out
