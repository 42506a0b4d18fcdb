"""A design's answer time below saturation: p50 and p99 (ms) as a line in the offered rate, fitted to its measured
windows so that no one window sets the figure.

A window's p99 is its 1 % slowest answers: at 300 orders/s over 7 s, the 21st slowest of 2,100, where one
collector's pause or one burst of the hypervisor's steal moves it three- to tenfold (java-akka's 300/s window at
5 ms read 5.5 ms in the calibration of 2026-11-28 23:30 UTC, its 300/s window next door 54.5 ms, left crowded).
The earlier curve went through each rate's median, so such a window was the prediction at its rate and, linearly,
at every rate near it. The line here is Theil and Sen's: the median of the slopes between every two windows at
different rates (at least 0: more orders never make the answer faster), then the median intercept; it stands
while fewer than about three in ten windows stray, whatever their size. A crowded window (others took over 10 %
of a core, run/process.py) is no measure of the design and is left out, as from the CPU fit.

The curve is kept as points at the measured rates ([[rate, p50, p99]], the line's values there), so that
predict.latency_at reads it as before: linear between them and beyond the last two.
"""
from __future__ import annotations

import statistics
from collections.abc import Sequence

#: (offered orders/s, p50 ms, p99 ms) of one window
Window = tuple[float, float, float]


def theil_sen(xs: Sequence[float], ys: Sequence[float]) -> tuple[float, float]:
    """(intercept, slope) of the median line through (XS, YS): the median slope over every pair of distinct x, not
    below 0; the median of y − slope × x. One x only: the median y, flat."""
    slopes = [(ys[j] - ys[i]) / (xs[j] - xs[i])
              for i in range(len(xs)) for j in range(i + 1, len(xs)) if xs[j] != xs[i]]
    slope = max(0.0, statistics.median(slopes)) if slopes else 0.0
    return statistics.median(y - slope * x for x, y in zip(xs, ys)), slope


def curve(windows: Sequence[Window]) -> list[list[float]] | None:
    """The p50 and p99 lines through WINDOWS, as [[rate, p50, p99]] at each measured rate (never below 0 or below a
    tenth of the least measured figure); None: fewer than two rates."""
    rates = sorted({w[0] for w in windows})
    if len(rates) < 2:
        return None
    xs = [w[0] for w in windows]
    out = []
    lines = [theil_sen(xs, [w[i] for w in windows]) for i in (1, 2)]
    floors = [0.1 * min(w[i] for w in windows) for i in (1, 2)]
    for rate in rates:
        p50, p99 = (max(floor, a + b * rate) for (a, b), floor in zip(lines, floors))
        out.append([rate, round(p50, 3), round(max(p50, p99), 3)])
    return out
