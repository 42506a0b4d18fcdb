"""What a design costs below saturation, from its own open-loop runs on the machine predicted.

    CPU µs/s = F + a × cycles/s + m × (orders stored/s + ρ × orders answered but not stored/s)

F is what the process spends whatever its load (timers, the collector, the JIT, an event loop's ticks); a one
engine cycle (an engine waking every DELAY_MS); m one order answered and stored at a light load; ρ an order it
answers but does not store (it waits in an inbox, or gets a 503) beside one stored.

F, a and m come from the cells that stored what they were offered, by least relative squares (every cell weighs
alike, whatever its load), none of them below zero: where the full fit gives a negative term, the best fit
without it. ρ comes from the cells above the design's bound, where orders wait: what such a cell spent beyond F,
its cycles and its stored orders, per order not stored, over m; the median, within 0 and 1.

The saturation figure (CPU per order in a closed loop) says what the cores answer when they run out; it says
little of a light load, where the fixed cost and the wake-ups weigh most. A light-load run of the machine itself,
minutes from the prediction, carries both (docs/model.md, "Held against the map").
"""
from __future__ import annotations

import itertools
import statistics

from .predict import cycles_per_s

#: the fewest cells that stored their load, at two rates or more, for the three terms
LEAST_POINTS = 3
#: a cell that stored what it was offered: under this share of its bound and no 503
CARRIED_BELOW = 0.8


def _num(v, default):
    try:
        return float(v)
    except (TypeError, ValueError):
        return default


def _cycles(r: dict) -> float:
    delay = _num((r.get("settings") or {}).get("DELAY_MS"), 3)
    return cycles_per_s(int(r.get("engines") or 1), delay, r["rttMs"], r["salesPerSecond"], r.get("inFlight"))


def carried(r: dict) -> bool:
    bf = r.get("boundFraction")
    return not r.get("answers503") and not r.get("errors") and (bf is None or bf < CARRIED_BELOW)


def cells(runs: list[dict]) -> tuple[list[tuple], list[tuple]]:
    """(carried, above the bound) open-loop cells: (orders/s, cycles/s, CPU µs/s) and (orders/s, sales/s, cycles/s,
    CPU µs/s)."""
    below, above = [], []
    for r in runs:
        if not r.get("rate") or r.get("rttMs") is None or r.get("errors"):
            continue
        cpu = r["cpu"]["variant"]["cpuPercent"] * 1e4
        if carried(r):
            below.append((r["ordersPerSecond"], _cycles(r), cpu))
        else:
            above.append((r["ordersPerSecond"], r["salesPerSecond"], _cycles(r), cpu))
    return below, above


def _solve(rows: list[list[float]]) -> list[float] | None:
    """Least squares of rows · x = 1 (each row already divided by its measurement), by the normal equations."""
    n = len(rows[0])
    a = [[sum(r[i] * r[j] for r in rows) for j in range(n)] for i in range(n)]
    b = [sum(r[i] for r in rows) for i in range(n)]
    # Gauss-Jordan with partial pivoting: three unknowns at most
    for c in range(n):
        p = max(range(c, n), key=lambda i: abs(a[i][c]))
        if abs(a[p][c]) < 1e-18:
            return None
        a[c], a[p], b[c], b[p] = a[p], a[c], b[p], b[c]
        for i in range(n):
            if i != c:
                f = a[i][c] / a[c][c]
                a[i] = [x - f * y for x, y in zip(a[i], a[c])]
                b[i] -= f * b[c]
    return [b[i] / a[i][i] for i in range(n)]


def fit_terms(points: list[tuple]) -> dict | None:
    """F, a and m from (orders/s, cycles/s, CPU µs/s) of cells that stored their load; None with too few."""
    if len(points) < LEAST_POINTS or len({round(p[0]) for p in points}) < 2:
        return None
    columns = {"fixedUsPerS": lambda r, c: 1.0, "cycleUs": lambda r, c: c, "orderUs": lambda r, c: r}
    best = None
    # m is always in: the cost of an order is what the load adds
    for k in (2, 1, 0):
        for extra in itertools.combinations(("fixedUsPerS", "cycleUs"), k):
            names = [*extra, "orderUs"]
            rows = [[columns[n](r, c) / y for n in names] for r, c, y in points if y > 0]
            x = _solve(rows)
            if x is None or any(v < 0 for v in x) or x[-1] <= 0:
                continue
            err = sum((sum(v * w for v, w in zip(x, row)) - 1) ** 2 for row in rows)
            if best is None or err < best[0] - 1e-12:
                best = (err, dict(zip(names, x)))
        if best:
            break
    if not best:
        return None
    terms = {"fixedUsPerS": 0.0, "cycleUs": 0.0, **best[1]}
    terms["rmsRelativeError"] = (best[0] / len(points)) ** 0.5
    return terms


def refused_cost(terms: dict, above: list[tuple], sales_per_order: float) -> float | None:
    """ρ from cells above the bound: (CPU − F − a × cycles − m × stored) ÷ (m × not stored), the median, 0..1."""
    out = []
    for orders, sales, cyc, cpu in above:
        stored = sales / sales_per_order if sales_per_order else orders
        rest = orders - stored
        if rest <= 0.05 * orders:
            continue
        left = cpu - terms["fixedUsPerS"] - terms["cycleUs"] * cyc - terms["orderUs"] * stored
        out.append(left / (terms["orderUs"] * rest))
    return None if not out else min(1.0, max(0.0, statistics.median(out)))


def light_cost(runs: list[dict], sales_per_order: float | None) -> dict | None:
    """The four terms from one folder's open-loop runs of one design in one persist mode (None: too few cells)."""
    below, above = cells(runs)
    terms = fit_terms(below)
    if terms is None:
        return None
    rho = refused_cost(terms, above, sales_per_order or 0.0)
    return {**terms, "refusedCost": rho, "cells": len(below), "cellsAboveBound": len(above)}
