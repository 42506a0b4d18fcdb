"""Leads, ties and regressions, decided by the 95 % interval of the ratio of two rows (analysis/intervals.py):

  the interval lies entirely above 1   A is ahead of B: "A stores 1.18× B [1.09–1.27]"
  the interval lies entirely below 1   A is behind B
  the interval holds 1                 "no difference detected (0.96–1.05)"
  no interval (a row measured in fewer than two processes)   no verdict: the ratio of the medians is said,
                                       marked as unchecked

A regression of this tree against a baseline (compare baseline) is a detected difference in the worse
direction; `--fail-above PCT` fails the command when one is detected AND its point estimate (the ratio of the
medians) is worse than the baseline's by more than PCT %.
"""
from __future__ import annotations

from typing import Any

from . import intervals

AHEAD, BEHIND, SAME, UNKNOWN = "ahead", "behind", "no difference", "unavailable"


def decide(r: dict[str, Any] | None) -> str:
    """AHEAD, BEHIND, SAME or UNKNOWN for a ratio interval (intervals.ratio)."""
    if not r or r.get("low") is None or r.get("high") is None:
        return UNKNOWN
    if r["low"] > 1:
        return AHEAD
    if r["high"] < 1:
        return BEHIND
    return SAME


def compare(a_by_process: list[list[float]], b_by_process: list[list[float]], tag: str = "") -> dict[str, Any] | None:
    """A ÷ B with its interval and its verdict: {ratio, low, high, verdict}; None when either has no figure."""
    r = intervals.ratio(a_by_process, b_by_process, tag=tag)
    if r is None:
        return None
    return {**r, "verdict": decide(r)}


def bracket(r: dict[str, Any]) -> str:
    return f"{r['low']:.2f}–{r['high']:.2f}"


def text(a: str, b: str, r: dict[str, Any] | None, verb: str = "stores") -> str:
    """One sentence of a verdict of A against B (the ratio A ÷ B)."""
    if not r:
        return f"{a} against {b}: no figure"
    v = r.get("verdict") or decide(r)
    if v == SAME:
        return f"no difference detected between {a} and {b} ({bracket(r)})"
    if v == UNKNOWN:
        return f"{a} {verb} {r['ratio']:.2f}× {b} (no interval: fewer than {intervals.MIN_PROCESSES} processes each)"
    return f"{a} {verb} {r['ratio']:.2f}× {b} [{bracket(r)}]"


def short(r: dict[str, Any] | None) -> str:
    """A verdict in a table's cell: "1.18× [1.09–1.27]", "no difference (0.96–1.05)", "1.18× (no interval)"."""
    if not r:
        return "–"
    v = r.get("verdict") or decide(r)
    if v == SAME:
        return f"no difference ({bracket(r)})"
    if v == UNKNOWN:
        return f"{r['ratio']:.2f}× (no interval)"
    return f"{r['ratio']:.2f}× [{bracket(r)}]"


def regression(r: dict[str, Any] | None, higher_is_better: bool = True) -> bool:
    """A detected change for the worse of this tree ÷ the baseline."""
    v = decide(r)
    return v == (BEHIND if higher_is_better else AHEAD)


def worse_by(r: dict[str, Any] | None, higher_is_better: bool = True) -> float | None:
    """How much worse the point estimate is, as a share (0.07: 7 % worse); negative when better."""
    if not r or not r.get("ratio"):
        return None
    ratio = float(r["ratio"])
    return 1 - ratio if higher_is_better else ratio - 1


def fails(r: dict[str, Any] | None, above_pct: float, higher_is_better: bool = True) -> bool:
    """--fail-above: a regression detected (the ratio's interval entirely on the worse side of 1) and its point
    estimate worse by more than ABOVE_PCT %."""
    w = worse_by(r, higher_is_better)
    return regression(r, higher_is_better) and w is not None and w * 100 > above_pct
