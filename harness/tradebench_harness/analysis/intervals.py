"""A figure's 95 % interval from windows measured in several processes of a row, and the interval of the
ratio of two rows: what a verdict (analysis/verdict.py) is decided on.

The method, a bootstrap over windows nested in processes:

  1. the windows of a row are grouped by the process they were measured in (a fresh process each: its
     heap layout, JIT decisions and connection placement are its own);
  2. one resample draws as many processes as the row had, with replacement, and then, within each drawn
     process, as many of its windows as it had, with replacement; the resample's figure is the median of
     the windows drawn, as the table's figure is the median of the windows measured;
  3. RESAMPLES resamples (a fixed seed, so that a report drawn again says the same); the interval is their
     2.5th and 97.5th percentiles.

Drawing the processes first puts the spread between processes inside the interval; drawing the windows
inside each adds the spread within a process. With fewer than two processes there is no spread between
processes to draw from: the interval is unavailable (None), never a zero-width one. The ratio A ÷ B draws
A's and B's resamples independently and takes the percentiles of their quotients.
"""
from __future__ import annotations

import random
import statistics
import zlib
from collections.abc import Iterable
from typing import Any

CONFIDENCE = 0.95
RESAMPLES = 2000
SEED = 20261127
#: the fewest processes a row needs for an interval
MIN_PROCESSES = 2


def groups_of(values_by_process: Iterable[Iterable[float | None]]) -> list[list[float]]:
    """The processes' windows with their figures, the processes without a figure left out."""
    out = []
    for vals in values_by_process:
        got = [float(v) for v in vals if v is not None]
        if got:
            out.append(got)
    return out


def _rng(tag: str) -> random.Random:
    # the seed and the figure's own tag: two figures of a row do not draw the same indices, and a report drawn
    # again draws what it drew before
    return random.Random(SEED ^ zlib.crc32(tag.encode()))


def resamples(groups: list[list[float]], n: int = RESAMPLES, tag: str = "") -> list[float]:
    """N medians of nested resamples of GROUPS (processes, then windows within each)."""
    rng = _rng(tag)
    out = []
    k = len(groups)
    for _ in range(n):
        drawn: list[float] = []
        for _ in range(k):
            g = groups[rng.randrange(k)]
            drawn.extend(g[rng.randrange(len(g))] for _ in range(len(g)))
        out.append(statistics.median(drawn))
    return out


def percentile(sorted_vals: list[float], q: float) -> float:
    """The Q-th quantile (0..1) of SORTED_VALS, linear between neighbours."""
    if not sorted_vals:
        raise ValueError("no values")
    pos = q * (len(sorted_vals) - 1)
    lo = int(pos)
    hi = min(lo + 1, len(sorted_vals) - 1)
    return sorted_vals[lo] + (sorted_vals[hi] - sorted_vals[lo]) * (pos - lo)


def bounds_of(draws: list[float]) -> tuple[float, float]:
    s = sorted(draws)
    tail = (1 - CONFIDENCE) / 2
    return percentile(s, tail), percentile(s, 1 - tail)


def interval(values_by_process: Iterable[Iterable[float | None]], tag: str = "") -> dict[str, Any] | None:
    """{median, low, high, processes, windows} of a figure measured in windows of processes; None with no
    figure. low and high are None (unavailable) with fewer than MIN_PROCESSES processes."""
    groups = groups_of(values_by_process)
    if not groups:
        return None
    flat = [v for g in groups for v in g]
    out: dict[str, Any] = {"median": statistics.median(flat), "low": None, "high": None, "processes": len(groups),
           "windows": len(flat)}
    if len(groups) >= MIN_PROCESSES:
        out["low"], out["high"] = bounds_of(resamples(groups, tag=tag))
    return out


def available(ci: dict[str, Any] | None) -> bool:
    return ci is not None and bool(ci) and ci.get("low") is not None and ci.get("high") is not None


def half_width(ci: dict[str, Any] | None) -> float | None:
    """The interval's larger side as a share of its median (0.05: within ±5 %); None when unavailable."""
    if ci is None or not available(ci) or not ci["median"]:
        return None
    m: float = ci["median"]
    return float(max(ci["high"] - m, m - ci["low"]) / abs(m))


def ratio(a_by_process: Iterable[Iterable[float | None]], b_by_process: Iterable[Iterable[float | None]], tag: str = "") -> dict[str, Any] | None:
    """A ÷ B: {ratio (median ÷ median), low, high}; low and high None when either has fewer than
    MIN_PROCESSES processes; None when either has no figure or B's median is 0."""
    ga, gb = groups_of(a_by_process), groups_of(b_by_process)
    if not ga or not gb:
        return None
    ma = statistics.median(v for g in ga for v in g)
    mb = statistics.median(v for g in gb for v in g)
    if not mb:
        return None
    out = {"ratio": ma / mb, "low": None, "high": None, "processes": [len(ga), len(gb)]}
    if len(ga) >= MIN_PROCESSES and len(gb) >= MIN_PROCESSES:
        da, db = resamples(ga, tag=tag + "/a"), resamples(gb, tag=tag + "/b")
        if all(db):
            out["low"], out["high"] = bounds_of([x / y for x, y in zip(da, db)])
    return out
