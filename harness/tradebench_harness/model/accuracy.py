"""How sure the model is: its score on runs a parameter set was not fitted on, the intervals those runs' residuals
give every prediction, and how often such intervals cover what was measured.

A residual is a check row's relative error, e = predicted ÷ measured − 1 (check.against), per design and figure,
and its interval is drawn on its logarithm, ln(1 + e): the errors are of ratios (a CPU figure at another hour's
pace, a p99 that one pause triples), symmetric there and not in e. A design's interval is its own bias, the median
of its log residuals, ± the split-conformal half-width of every design's log residuals about their own design's
median (a design's dozen cells are too few for a spread of their own): the k-th least of those n distances,
k = ⌈(n + 1) × 0.95⌉, which one more cell like them stays within with 95 % odds whatever their distribution
(conformal). Measured = predicted ÷ (1 + e), so a prediction P has the interval [P ÷ (1 + e_hi), P ÷ (1 + e_lo)].
A design with fewer than MIN_CELLS residuals of a figure takes the normal prediction interval of every design's
log residuals (pooled). The earlier form, the empirical 2.5 % and 97.5 % quantiles about the bias (a set's record
that carries them is still read), is a sitting's second-most extreme cells: it covered 24 of 30 of a later
sitting's CPU figures (2026-11-28 night, docs/model.md), where the conformal band covered 29; a normal band on the
log residuals covered 30 at half as wide again, its standard deviation taken by a few cells far out.

p50 and memory are the exceptions (POOLED). p50: most of a median answer is the loopback exchange every design
shares (0.6-0.8 ms next door on the project's Xeon, whatever the design), and its error moves with the rate, not
the design (the calibration's curve read 14 % low at 800/s and 3-6 % low at 2,500-3,000/s in one sitting, every
design alike): a design's median residual from a sitting's few cells is a bias of that sitting's rates, not of the
design. Its interval is the normal prediction interval of every design's residuals: mean ± t(0.975, n − 1) × s ×
√(1 + 1/n), which stays honest with the 10-20 cells a sitting has, where 2.5 % and 97.5 % quantiles would be its
extremes. Memory: a process's peak RSS grows with the cells it has run (more of its fixed heap touched, the peak
kept), so a sitting's memory bias is the order of its cells, every design alike, not a design's. The set declared
on 2026-11-29, held against held-out-n and then -o (9 and 6 cells a process), read every design's later cells
8-30 % low in n and was within 20 % in every cell of o; each design's bias from n set o's intervals off, covering
25 of 30, where the normal prediction interval of every design's log residuals covered 29 at the same width (a
choice made on o: the sittings measured after it are its check, docs/model.md).

Coverage is counted on cells whose residuals did not make the interval: a folder the intervals were drawn from
is counted leave one cell out (each cell's interval from the others' residuals), any other folder as it is.
"""
from __future__ import annotations

import math
import statistics
from typing import Any

from ..record import ParameterSet

#: the figures a check row carries: (its key in a row's errors, the measured field, the predicted field)
FIGURES = {"sales": ("salesPerMinute", "predictedSalesPerMinute"),
           "cpu": ("cpuPercent", "predictedCpuPercent"),
           "rss": ("rssMb", "predictedRssMb"),
           "p50": ("p50Ms", "predictedP50Ms"),
           "p99": ("p99Ms", "predictedP99Ms")}
#: the error within which a prediction of each figure counts as right (the done-when of the model's protocol)
TOLERANCE = {"sales": 0.10, "cpu": 0.20, "rss": 0.20, "p50": 0.30, "p99": 0.30}
#: the interval's quantiles: a 95 % interval
LOW, HIGH = 0.025, 0.975
#: residuals a design needs of a figure for a bias of its own; fewer: every design's residuals
MIN_CELLS = 3
#: the standard normal's 97.5 % quantile
Z_975 = 1.959964
NAMES = {"sales": "sales", "cpu": "CPU", "rss": "memory", "p50": "p50", "p99": "p99"}


def quantile(xs: list[float], q: float) -> float:
    """The Q quantile of XS, linear between order statistics (numpy's default)."""
    s = sorted(xs)
    if len(s) == 1:
        return s[0]
    pos = q * (len(s) - 1)
    lo = math.floor(pos)
    hi = min(lo + 1, len(s) - 1)
    return s[lo] + (pos - lo) * (s[hi] - s[lo])


def residual(row: dict[str, Any], fig: str) -> float | None:
    """FIG's relative error in a check ROW; None where either figure is missing or the window was crowded (its
    figures are a busy machine's, check.against)."""
    if row.get("crowded"):
        return None
    meas, pred = FIGURES[fig]
    m, p = row.get(meas), row.get(pred)
    if m is None or p is None or m <= 0 or p <= 0:
        return None
    return float(p / m - 1.0)


def residuals(rows: list[dict[str, Any]]) -> dict[str, Any]:
    """{figure: {design: [residuals]}}."""
    out: dict[str, Any] = {f: {} for f in FIGURES}
    for r in rows:
        for f in FIGURES:
            e = residual(r, f)
            if e is not None:
                out[f].setdefault(r["design"], []).append(e)
    return out


def _band(xs: list[float]) -> dict[str, Any]:
    return {"low": round(quantile(xs, LOW), 4), "high": round(quantile(xs, HIGH), 4), "n": len(xs)}


#: Student's t 97.5 % quantiles for few degrees of freedom (the tables'), where the expansion below reads low
T_975_FEW = {1: 12.706, 2: 4.303, 3: 3.182, 4: 2.776, 5: 2.571, 6: 2.447, 7: 2.365, 8: 2.306, 9: 2.262}


def t_975(df: int) -> float:
    """Student's t 97.5 % quantile with DF degrees of freedom: the tables' under 10, else Cornish-Fisher to 1/df²
    (2.225 at 10, the tables' 2.228; 2.119 at 16, the tables' 2.120)."""
    if df in T_975_FEW:
        return T_975_FEW[df]
    z = Z_975
    return z + (z ** 3 + z) / (4 * df) + (5 * z ** 5 + 16 * z ** 3 + 3 * z) / (96 * df ** 2)


def _normal(xs: list[float]) -> tuple[float, float]:
    """The mean of XS and the half-width of the 95 % normal prediction interval of one more like them:
    t × s × √(1 + 1/n)."""
    n = len(xs)
    return statistics.fmean(xs), t_975(n - 1) * statistics.stdev(xs) * math.sqrt(1 + 1 / n)


def prediction_band(xs: list[float]) -> dict[str, Any]:
    """The 95 % normal prediction interval of one more residual like XS: mean ± t × s × √(1 + 1/n); the quantiles'
    band under three residuals."""
    if len(xs) < 3:
        return _band(xs)
    mean, half = _normal(xs)
    return {"low": round(mean - half, 4), "high": round(mean + half, 4), "n": len(xs), "form": "normal"}


def log_prediction_band(xs: list[float]) -> dict[str, Any]:
    """prediction_band of the residuals XS on a log scale (ln(1 + e)), as residuals: exp(mean ± half) − 1."""
    if len(xs) < 3:
        return _band(xs)
    mean, half = _normal([math.log1p(e) for e in xs])
    return {"low": round(math.expm1(mean - half), 4), "high": round(math.expm1(mean + half), 4), "n": len(xs),
            "form": "log-normal"}


def conformal(about: list[float]) -> dict[str, Any]:
    """The half-width, on a log scale, that one more cell's distance from its design's bias stays within with 95 %
    odds where cells are alike (split conformal prediction): the k-th least of the ABOUT distances, k = ⌈(n + 1) ×
    0.95⌉, at most n (with fewer than 19 cells the largest, and odds of n ÷ (n + 1) only)."""
    n = len(about)
    k = min(n, math.ceil((n + 1) * (1 - 2 * LOW) - 1e-9))
    return {"halfLog": round(sorted(abs(x) for x in about)[k - 1], 4), "n": n, "rank": k, "form": "conformal"}


#: figures whose interval pools every design's residuals (no design's bias), and the band drawn from them: p50's
#: errors are of an answer every design shares, memory's are ratios (on a log scale)
POOLED = {"p50": prediction_band, "rss": log_prediction_band}


def intervals(rows: list[dict[str, Any]]) -> dict[str, Any]:
    """{figure: {"pooled": band, "spread": {"halfLog", "n", "rank", "form"}, "designs": {design: {"median",
    "logMedian", "n"}}}}, a band being {"low", "high", "n"} of residuals. A design's interval is its own median log
    residual (its bias) and the spread of every design's log residuals about its own design's median (band_for)."""
    out = {}
    for f, by in residuals(rows).items():
        every = [e for xs in by.values() for e in xs]
        if not every:
            continue
        if f in POOLED:
            out[f] = {"pooled": POOLED[f](every), "spread": None, "designs": {}}
            continue
        mids = {d: statistics.median(math.log1p(e) for e in xs) for d, xs in by.items() if len(xs) >= MIN_CELLS}
        about = [math.log1p(e) - mids[d] for d, xs in by.items() if d in mids for e in xs]
        spread = conformal(about) if len(about) >= MIN_CELLS else None
        out[f] = {"pooled": log_prediction_band(every), "spread": spread,
                  "designs": {d: {"median": round(math.expm1(m), 4), "logMedian": round(m, 4), "n": len(by[d])}
                              for d, m in sorted(mids.items())}}
    return out


def band_for(bands: dict[str, Any] | None, design: str, fig: str) -> tuple[dict[str, Any], str] | None:
    """The residual band of FIG for DESIGN ("its own": its bias and the spread; "every design's": the pooled
    residuals), None where there is none."""
    f = (bands or {}).get(fig)
    if not f:
        return None
    mine, spread = f.get("designs", {}).get(design), f.get("spread")
    if mine and spread and "halfLog" in spread:
        return {"low": math.expm1(mine["logMedian"] - spread["halfLog"]),
                "high": math.expm1(mine["logMedian"] + spread["halfLog"]), "n": mine["n"]}, "its own"
    if mine and spread:             # a record of the earlier form: the quantiles of the spread about the bias
        return {"low": mine["median"] + spread["low"], "high": mine["median"] + spread["high"],
                "n": mine["n"]}, "its own"
    return f["pooled"], "every design's"


def interval(predicted: float | None, band: dict[str, Any] | None) -> tuple[float, float] | None:
    """The measured figure's interval around PREDICTED from a residual BAND."""
    if predicted is None or not band or 1 + band["high"] <= 0 or 1 + band["low"] <= 0:
        return None
    return predicted / (1 + band["high"]), predicted / (1 + band["low"])


def score(rows: list[dict[str, Any]]) -> dict[str, Any]:
    """{figure: {"within", "of", "tolerance", "medianError"}}: cells within the figure's tolerance."""
    out = {}
    for f in FIGURES:
        errs = [e for e in (residual(r, f) for r in rows) if e is not None]
        out[f] = {"within": sum(abs(e) <= TOLERANCE[f] + 1e-12 for e in errs), "of": len(errs),
                  "tolerance": TOLERANCE[f],
                  "medianError": round(statistics.median(abs(e) for e in errs), 4) if errs else None}
    return out


def crowded_cells(rows: list[dict[str, Any]]) -> int:
    """How many of ROWS were left out of every score: their window others crowded (model/check.py marks them)."""
    return sum(bool(r.get("crowded")) for r in rows)


def coverage(rows: list[dict[str, Any]], bands: dict[str, Any] | None, leave_one_out: bool = False) -> dict[str, Any]:
    """{figure: {"covered", "of", "medianWidth"}}: how many ROWS' measured figure lies in the interval around their
    prediction (from BANDS; LEAVE_ONE_OUT: from the other rows' residuals, for rows BANDS were drawn from), and the
    median width of those intervals as a share of the prediction."""
    out = {}
    for f, (meas, pred) in FIGURES.items():
        covered, widths = 0, []
        for i, r in enumerate(rows):
            if residual(r, f) is None:
                continue
            b = intervals(rows[:i] + rows[i + 1:]) if leave_one_out else bands
            got = band_for(b, r["design"], f)
            iv = interval(r[pred], got[0] if got else None)
            if iv is None:
                continue
            widths.append((iv[1] - iv[0]) / r[pred])
            covered += iv[0] <= r[meas] <= iv[1]
        out[f] = {"covered": covered, "of": len(widths),
                  "medianWidth": round(statistics.median(widths), 4) if widths else None}
    return out


def held_out(rows: list[dict[str, Any]], folders: list[str], checked_at: str) -> dict[str, Any]:
    """What a set keeps of its check on FOLDERS (runs it was not fitted on): the score, the residual bands its
    intervals come from, and their leave-one-cell-out coverage."""
    return {"folders": folders, "checkedAt": checked_at, "cells": len(rows), "score": score(rows),
            "intervals": intervals(rows), "coverage": coverage(rows, None, leave_one_out=True)}


def _pct(x: float) -> str:
    return f"{x * 100:.0f} %"


def sentence(pset: ParameterSet, borrowed: dict[str, Any] | None = None) -> str:
    """The answer's closing sentence on accuracy, from the set in use: its score on the runs it was not fitted on
    and its intervals' coverage there; without such a check, said so (and whose intervals are shown instead)."""
    h = pset.get("heldOut")
    if not h:
        tail = ""
        if borrowed:
            tail = (f" The intervals shown are another set's ({borrowed['machine']}, from "
                    f"{', '.join(borrowed['heldOut']['folders'])}), not this one's.")
        return ("Accuracy: this parameter set has not been held against runs it was not fitted on, so how close its "
                "figures are here is not known; ./tradebench calibrate measures this machine and scores itself on a "
                "run it did not fit." + tail)
    s, c = h["score"], h.get("coverage") or {}
    parts = [f"{NAMES[f]} within {_pct(s[f]['tolerance'])} in {s[f]['within']} of {s[f]['of']} cells"
             for f in FIGURES if s.get(f, {}).get("of")]
    cov = [f"{NAMES[f]} {c[f]['covered']} of {c[f]['of']} (median width {_pct(c[f]['medianWidth'])})"
           for f in FIGURES if (c.get(f) or {}).get("of")]
    crowded = h.get("crowdedCells")
    left = f" ({crowded} of them left out: a crowded machine's)" if crowded else ""
    head = (f"Accuracy, held against {h['cells']} cells of {', '.join(h['folders'])}{left}, which these parameters were "
            f"not fitted on: {'; '.join(parts) or 'no figure measured there'}.")
    if h.get("coverageOn"):        # two held-out sittings (model/holdout.py)
        return (f"{head} The ranges are 95 % intervals from the residuals of {h['intervalsFrom']}; on "
                f"{h['coverageOn']}, a later sitting they were not drawn from, they covered {'; '.join(cov) or 'no cell'} "
                f"(docs/model-accuracy.md).")
    if h.get("intervalsFrom"):
        return (f"{head} The ranges are 95 % intervals from the residuals of {h['intervalsFrom']} (too few cells "
                f"here for quantiles of their own); here they covered {'; '.join(cov) or 'no cell'} (docs/model-accuracy.md).")
    return (f"{head} The ranges are 95 % intervals from those cells' residuals; each covered its cell, counted "
            f"leaving that cell out: {'; '.join(cov)} (docs/model-accuracy.md).")
