"""How well a measurement agrees with itself: the same cells measured in two sittings, one beside the other.

A prediction is held against one sitting's measurement, and that measurement strays from what the cell costs
"on average" by the hour (the machine's pace, docs/model-accuracy.md) and by the window (a collector's pause in the
tail). Two sittings of the same grid (a map measured again, the same design, load and database in every cell)
say how far. Per figure:

- within: the cells whose first measurement is within the figure's tolerance of the second (accuracy.TOLERANCE,
  e = first ÷ second − 1, as a prediction from an earlier sitting is scored);
- σ: how far one sitting's measurement strays, on a log scale, √(mean of ln(first ÷ second)²) ÷ √2 (the two
  sittings stray alike and apart; a shift of the whole hour counts too);
- ceiling: the share of cells a prediction without any error of its own would have within the tolerance of one
  sitting that strays by σ (lognormally): Φ(−ln(1 − tol) ÷ σ) − Φ(−ln(1 + tol) ÷ σ). No model scores above it
  on such sittings but by chance; a goal above it asks the measurement for more than it holds.

CPU and p99 are compared as measured and at the first sitting's pace (the second's CPU × the ratio of the load client's
cost per order in the cells both processes measured, model/pace.py), the latencies only where both sittings
stored their load (light.carried).
"""
from __future__ import annotations

import math
import statistics
import sys
from pathlib import Path
from typing import Any, TextIO

from .. import record
from ..record import Run, results_folder
from . import accuracy, fit, pace
from .designs import all_designs, key_of
from .light import carried, compiled_cpu_percent

#: the figures compared, with the tolerance they are scored at; "…AtPace": the second's at the first sitting's pace
FIGURES = ("sales", "cpu", "cpuAtPace", "rss", "p50", "p99", "p99AtPace")


def tolerance(fig: str) -> float:
    return accuracy.TOLERANCE[fig.removesuffix("AtPace")]


def _cell(r: Run, key: str) -> tuple[Any, ...]:
    return key, r["persist"], r["dbLatencyMs"], r.get("dbCpuCores"), bool(r.get("dbDurable")), r["rate"]


def _values(r: Run, pace: float) -> dict[str, float | None]:
    cpu = compiled_cpu_percent(r)
    p99 = r.get("p99Ms") if carried(r) else None
    return {"sales": r.get("salesPerMinute"), "cpu": cpu, "cpuAtPace": None if cpu is None else cpu * pace,
            "rss": record.group_figure(r, "variant", "rssMaxMb"), "p50": r.get("p50Ms") if p99 else None,
            "p99": p99, "p99AtPace": None if p99 is None else p99 * pace}


def _open_loop(doc: dict[str, Any], keys: dict[int, str]) -> dict[tuple[Any, ...], Run]:
    return {_cell(r, keys[id(r)]): r for r in doc.get("runs", [])
            if id(r) in keys and "error" not in r and r.get("rate") and r.get("salesPerSecond") is not None}


def pairs(first: dict[str, Any], second: dict[str, Any], root: Path) -> list[dict[str, Any]]:
    """The cells FIRST and SECOND both measured (one window each; a cell measured more than once in a sitting: its
    last), each {"cell": its key, fig: (first, second)} for the figures both have."""
    designs = all_designs(root)
    keys: dict[int, str] = {}
    for doc in (first, second):
        for r in doc.get("runs", []):
            k = key_of(r, designs)
            if k is not None:
                keys[id(r)] = k
    a, b = _open_loop(first, keys), _open_loop(second, keys)
    both = sorted(set(a) & set(b), key=str)
    # the second's CPU at the first's pace: the load client's cost in the cells both processes measured
    by_process: dict[tuple[Any, Any], list[tuple[Run, Run]]] = {}
    for cell in both:
        by_process.setdefault((a[cell].get("process"), b[cell].get("process")), []).append((a[cell], b[cell]))
    paces = {k: pace.paired_pace([x for x, _ in v], [y for _, y in v]) or 1.0 for k, v in by_process.items()}
    out = []
    for cell in both:
        ra, rb = a[cell], b[cell]
        va = _values(ra, 1.0)
        vb = _values(rb, paces[(ra.get("process"), rb.get("process"))])
        row: dict[str, Any] = {"cell": cell}
        for f in FIGURES:
            x, y = va[f], vb[f]
            if x and y and x > 0 and y > 0:
                row[f] = (float(x), float(y))
        out.append(row)
    return out


def normal_cdf(z: float) -> float:
    return 0.5 * (1.0 + math.erf(z / math.sqrt(2.0)))


def ceiling(sigma: float, tol: float) -> float:
    """The share of cells a prediction without error of its own has within TOL of a measurement straying
    lognormally by SIGMA."""
    if sigma <= 0:
        return 1.0
    return normal_cdf(-math.log(1.0 - tol) / sigma) - normal_cdf(-math.log(1.0 + tol) / sigma)


def agreement(rows: list[dict[str, Any]]) -> dict[str, dict[str, Any]]:
    """Per figure: {"within", "of", "tolerance", "sigma", "ceiling", "medianRatio"} over ROWS (pairs())."""
    out = {}
    for f in FIGURES:
        xy = [r[f] for r in rows if f in r]
        if not xy:
            out[f] = {"within": 0, "of": 0, "tolerance": tolerance(f)}
            continue
        tol = tolerance(f)
        logs = [math.log(x / y) for x, y in xy]
        sigma = math.sqrt(sum(v * v for v in logs) / len(logs) / 2.0)
        out[f] = {"within": sum(abs(x / y - 1.0) <= tol for x, y in xy), "of": len(xy), "tolerance": tol,
                  "sigma": sigma, "ceiling": ceiling(sigma, tol),
                  "medianRatio": statistics.median(x / y for x, y in xy)}
    return out


NAMES = {**accuracy.NAMES, "cpuAtPace": "CPU at the first's pace", "p99AtPace": "p99 at the first's pace"}


def do_repeatability(first: str, second: str, root: Path, out: TextIO | None = None) -> int:
    """`predict repeatability FIRST SECOND`: the agreement of two sittings of the same cells, per figure."""
    out = out or sys.stdout
    (a, name_a), (b, name_b) = (fit.read(results_folder(root, f)) for f in (first, second))
    rows = pairs(a, b, root)
    if not rows:
        print(f"tradebench: {name_a} and {name_b} measured no open-loop cell alike (design, load, database)",
              file=sys.stderr)
        return 2
    print(f"{name_a} ({a.get('startedAt')}) beside {name_b} ({b.get('startedAt')}): {len(rows)} cells measured in "
          f"both", file=out)
    for f, s in agreement(rows).items():
        if not s["of"]:
            continue
        print(f"- {NAMES[f]}: {s['within']} of {s['of']} within {s['tolerance']:.0%} of each other (first ÷ second: "
              f"median {s['medianRatio']:.2f}); one sitting strays by σ = {s['sigma']:.3f}, so a prediction without "
              f"error of its own would be within {s['tolerance']:.0%} of {s['ceiling']:.0%} of such cells", file=out)
    return 0
