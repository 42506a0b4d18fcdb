"""What a design costs below saturation, from its own open-loop runs on the machine predicted.

    CPU µs/s = K + a × cycles/s + m × X^γ,   X = orders stored/s + ρ_w × orders waiting/s + ρ × orders refused/s

K is what the process spends whatever its load (timers, the collector, the JIT, an event loop's ticks); a one
engine cycle (an engine waking every DELAY_MS); m the orders' cost at one order a second; ρ_w an order accepted
into an inbox and not stored yet, ρ a 503, each beside one stored (docs/model.md's terms). γ = ORDER_EXPONENT:
an order costs less the more of them arrive (a thread or an event loop woken once serves several; the collector
and the JIT amortised), so the orders' CPU grows as a power of their rate below one. A set fitted before γ was
in the form has none, and reads as γ = 1.

K, a and m come from the cells that stored what they were offered, by least relative squares (every cell weighs
alike, whatever its load), none of them below zero: where the full fit gives a negative term, the best fit
without it. ρ comes from closed-loop cells refusing nearly every order, ρ_w from the open-loop cells above the
design's bound (their inboxes filling): what such a cell spent beyond K, its cycles and its stored orders, over
m × the orders of that kind; least squares, within 0 and 1.

The saturation figure (CPU per order in a closed loop) says what the cores answer when they run out; it says
little of a light load, where the fixed cost and the wake-ups weigh most. A light-load run of the machine itself,
minutes from the prediction, carries both (docs/model.md, "Held against the map").
"""
from __future__ import annotations

import itertools
from collections.abc import Callable, Sequence
from typing import Any

from .. import record
from ..analysis.crowded import crowded
from ..record import Run
from .predict import cycles_per_s

#: the fewest cells that stored their load, at two rates or more, for the three terms
LEAST_POINTS = 3
#: γ, the orders' CPU growing as X^γ. Chosen on the project's Xeon (docs/model-accuracy.md, "The form"): with the cells of
#: 2026-11-27-held-out-c and -d (out of the tree since) as the check, γ from 0.4 to 0.6 put CPU within 20 % in
#: 59–60 of 70 cells, γ = 1 (the linear form) in 47; those two sittings are therefore in-sample for this choice,
#: and the form was held against the sittings of 2026-11-28, measured after it.
ORDER_EXPONENT = 0.5
#: a cell that stored what it was offered: under this share of its bound and no 503
CARRIED_BELOW = 0.8
#: a run without a probed round trip (`rttMs` null): the database on loopback, about this many ms away
LOOPBACK_RTT_MS = 0.1


def number(v: object, default: float) -> float:
    """A setting's value as a number (DELAY_MS "3"), DEFAULT when it is none."""
    if not isinstance(v, int | float | str):
        return default
    try:
        return float(v)
    except ValueError:
        return default


def compiled_cpu_percent(r: Run) -> float | None:
    """The variant's CPU % over run R's window less its JIT compiler threads' (`jitCpuPercent`, a JVM's C1 and C2):
    the CPU of its code once compiled, the figure the model predicts below saturation. The compiler's work is a
    transient of a load the process has not met before: on the project's Xeon it was 2.4-4.9 % of a core in a map's
    first cell and in the first cell whose inboxes filled (0-0.9 % in the others), a third of such a cell's CPU.
    A runtime whose compiler is not told apart (node's V8 compiles on its GC's threads) has it left in. None where
    the window has no CPU figure."""
    pct = record.group_figure(r, "variant", "cpuPercent")
    if pct is None:
        return None
    jit = record.group_figure(r, "variant", "jitCpuPercent") or 0.0
    return max(0.0, pct - jit)


def cpu_us_per_s(r: Run, compiled: bool = True) -> float:
    """The variant's CPU µs per second over run R's window (its CPU % × 10^4; COMPILED: less its JIT compiler's,
    compiled_cpu_percent). A window measured without it (a failed one) is no cell of the model's: an error naming
    it."""
    pct = compiled_cpu_percent(r) if compiled else record.group_figure(r, "variant", "cpuPercent")
    if pct is None:
        raise ValueError(f"a window without the variant's CPU: {r['variant']}, repeat {r['repeat']}")
    return pct * 1e4


def cycles_of(r: Run) -> float:
    """The engine cycles a second of run R: its engines, DELAY_MS, round trip and sales (predict.cycles_per_s)."""
    delay = number(r["settings"].get("DELAY_MS"), 3)
    rtt = r["rttMs"]
    return cycles_per_s(r["engines"], delay, LOOPBACK_RTT_MS if rtt is None else rtt, r["salesPerSecond"],
                        r["inFlight"])


def carried(r: Run) -> bool:
    """Run R stored what it was offered: no 503, no error, under CARRIED_BELOW of its bound."""
    bf = r.get("boundFraction")
    return not r.get("answers503") and not r.get("errors") and (bf is None or bf < CARRIED_BELOW)


def refusing(r: Run) -> bool:
    """Run R is a closed loop that refused 90 % of its orders or more: nearly every answer a 503."""
    return (r["rate"] is None and r["ordersPerSecond"] > 0
            and r["acceptedPerSecond"] <= 0.1 * r["ordersPerSecond"])


def _unstored(r: Run) -> tuple[Any, ...]:
    """(orders/s, sales/s, accepted orders/s, cycles/s, CPU µs/s) of a cell that did not store all it answered."""
    return (r["ordersPerSecond"], r["salesPerSecond"], r["acceptedPerSecond"], cycles_of(r), cpu_us_per_s(r))


def cells(runs: list[Run]) -> tuple[list[tuple[Any, ...]], list[tuple[Any, ...]]]:
    """(carried, above the bound) open-loop cells: (orders/s, cycles/s, CPU µs/s) and _unstored's. A window other
    processes crowded is left out (analysis/crowded.py): a neighbour costs the variant more CPU per order than
    its own share, caches (and a host's hyperthreads) being shared."""
    below, above = [], []
    for r in runs:
        if not r["rate"] or r["rttMs"] is None or r.get("errors") or crowded(r):
            continue
        if carried(r):
            below.append((r["ordersPerSecond"], cycles_of(r), cpu_us_per_s(r)))
        else:
            above.append(_unstored(r))
    return below, above


def _solve(rows: list[list[float]]) -> list[float] | None:
    """Least squares of rows · x = 1 (each row already divided by its measurement), by the normal equations."""
    return _solve_target(rows, [1.0] * len(rows))


def _solve_target(rows: list[list[float]], target: list[float]) -> list[float] | None:
    """Least squares of rows · x = target, by the normal equations."""
    n = len(rows[0])
    a = [[sum(r[i] * r[j] for r in rows) for j in range(n)] for i in range(n)]
    b = [sum(r[i] * t for r, t in zip(rows, target)) for i in range(n)]
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


def fit_terms(points: list[tuple[Any, ...]], exponent: float = ORDER_EXPONENT) -> dict[str, Any] | None:
    """K, a and m from (orders/s, cycles/s, CPU µs/s) of cells that stored their load, the orders' CPU growing as
    their rate to EXPONENT (γ); None with too few."""
    if len(points) < LEAST_POINTS or len({round(p[0]) for p in points}) < 2:
        return None
    columns: dict[str, Callable[[float, float], float]] = {"fixedUsPerS": lambda r, c: 1.0, "cycleUs": lambda r, c: c,
                                                           "orderUs": lambda r, c: r ** exponent}
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
    terms = {"fixedUsPerS": 0.0, "cycleUs": 0.0, **best[1], "orderExponent": exponent}
    terms["rmsRelativeError"] = (best[0] / len(points)) ** 0.5
    return terms


def _split(terms: dict[str, Any], cell: tuple[Any, ...], sales_per_order: float) -> tuple[float, float, float] | None:
    """(waiting, refused, the stored orders' worth of them) of a cell that answered more than it stored, in
    orders/s: what the cell spent beyond K and its cycles is m × X^γ, so X = that ÷ m to 1/γ, and X less its stored
    orders is what its waiting and refused orders weigh (ρ_w × waiting + ρ × refused)."""
    orders, sales, accepted, cyc, cpu = cell
    stored = min(sales / sales_per_order if sales_per_order else orders, orders)
    waiting, refused = max(0.0, accepted - stored), max(0.0, orders - max(accepted, stored))
    if waiting + refused <= 0.05 * orders or cpu <= 0:
        return None
    spent = max(0.0, cpu - terms["fixedUsPerS"] - terms["cycleUs"] * cyc)
    weighed = (spent / terms["orderUs"]) ** (1.0 / terms["orderExponent"])
    return waiting, refused, weighed - stored


def _ratio(pairs: list[tuple[float, float]]) -> float | None:
    """The least squares x of x × a = b over (a, b), within 0 and 1."""
    den = sum(a * a for a, _ in pairs)
    return None if den <= 0 else min(1.0, max(0.0, sum(a * b for a, b in pairs) / den))


def unstored_costs(terms: dict[str, Any], above: list[tuple[Any, ...]], refusing: list[tuple[Any, ...]],
                   sales_per_order: float) -> tuple[float | None, float | None]:
    """(ρ_w, ρ): an order waiting in an inbox (accepted, not stored) and a 503, each beside a stored one.

    What a cell spent beyond K and its cycles is m × (stored + ρ_w × waiting + ρ × refused)^γ. ρ comes from
    REFUSING, closed-loop cells where nearly every order is a 503; then ρ_w from ABOVE, the open-loop cells above the
    bound (orders filling the inboxes), their 503s at that ρ. Each is a least squares figure within 0 and 1, None
    where no cell says it."""
    rows = [x for x in (_split(terms, c, sales_per_order) for c in refusing) if x]
    rho = _ratio([(f, left) for _, f, left in rows if f > 0])      # the few waiting there: left in
    rows = [x for x in (_split(terms, c, sales_per_order) for c in above) if x]
    # a cell mostly of 503s says little of ρ_w, and nothing where ρ is unknown
    usable = [(w, left - (rho or 0.0) * f) for w, f, left in rows if w > 0 and (rho is not None or f <= 0.1 * w)]
    return _ratio(usable), rho


def light_cost(runs: list[Run], sales_per_order: float | None, refusing: Sequence[Run] = ()) -> dict[str, Any] | None:
    """The terms from one folder's open-loop runs of one design in one persist mode (None: too few cells); ρ_w and
    ρ from its cells above its bound and REFUSING, the machine's closed-loop runs of it that refused nearly every
    order (503s beside a few stored: the stored orders' share, whose cost the light runs set, is small there)."""
    below, above = cells(runs)
    terms = fit_terms(below)
    if terms is None:
        return None
    rho_w, rho = unstored_costs(terms, above, [_unstored(r) for r in refusing], sales_per_order or 0.0)
    return {**terms, "waitingCost": rho_w, "refusedCost": rho, "cells": len(below), "cellsAboveBound": len(above),
            "refusingRuns": len(refusing)}
