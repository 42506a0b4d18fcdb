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

The tail also grows with the inserts in flight and, far away, with the rate, which the line next door does not
say. Behind a far database a design that keeps many inserts in flight has as many of them waking when their answers
come back (java-virtual's lanes are virtual threads on the carriers its requests run on), and the database and the
link that answer them share a CPU with the load client, which spends more on each order there than next door (the
link's timers, the database's many connections: 30-60 % more CPU per order at the same rate, AMD EPYC, 2026-11-29):
more work lies ahead of an answer, and a queue's wait grows faster than its load (the likely reason, not measured
apart). Measured on the AMD EPYC on 2026-11-29 its p99 was 2.0-3.7 ms next door at 300-3,000/s and 3.5-22.8 ms
behind 7-50 ms at 800-3,600/s. So the lines are drawn through the windows with few inserts in flight (under
TAIL_IN_FLIGHT, Little's law: sales/s × round trip), and the p99 gains a term (tail()) per insert in flight that
grows as the rate's square (TAIL_RATE_POWER): the median over the windows with more of (p99 − the line at their
rate) ÷ (their inserts in flight × (rate / 1,000)²), never below 0, so the term is in ms per insert in flight at
1,000 orders/s. A design with few in flight (java-threads' 4) never reaches TAIL_IN_FLIGHT and has no such term; for
the others calibrate's waiting window measures it (1,800/s behind 25 ms: some 40 in flight).

The rate's power was chosen on the sittings of 2026-11-29 (docs/model-accuracy.md, "Latency"): over four calibrations and the
held-out sittings each was checked on (126 cells), the p99 within 30 % in 69 with a term per insert in flight alone
(power 0, the sets made before it, which carry no power and are read so), 73 with power 1, 78 with power 2: an
in-sample choice, held since against sittings that were not run when it was made.
"""
from __future__ import annotations

import statistics
from collections.abc import Sequence

#: (offered orders/s, p50 ms, p99 ms, inserts in flight) of one window
Window = tuple[float, float, float, float]

#: a window with this many inserts in flight or more measures the tail's term, not the lines: below it a lane's
#: wake-ups are too few to queue (java-threads keeps 4; a window next door keeps under 1)
TAIL_IN_FLIGHT = 8.0

#: the term grows as (rate / TAIL_RATE_UNIT) to this power; a set records it (p99TailRatePower), and a set without
#: it was fitted with none (0)
TAIL_RATE_POWER = 2.0
TAIL_RATE_UNIT = 1000.0


def tail(per_in_flight_ms: float | None, in_flight: float, rate: float, power: float) -> float:
    """What the p99 gains at RATE orders/s with IN_FLIGHT inserts in flight: PER_IN_FLIGHT_MS (ms per insert in flight
    at TAIL_RATE_UNIT orders/s; None: no term) × IN_FLIGHT × (RATE / TAIL_RATE_UNIT) ** POWER."""
    if not per_in_flight_ms or in_flight <= 0 or rate <= 0:
        return 0.0
    return per_in_flight_ms * in_flight * float((rate / TAIL_RATE_UNIT) ** power)


def theil_sen(xs: Sequence[float], ys: Sequence[float]) -> tuple[float, float]:
    """(intercept, slope) of the median line through (XS, YS): the median slope over every pair of distinct x, not
    below 0; the median of y − slope × x. One x only: the median y, flat."""
    slopes = [(ys[j] - ys[i]) / (xs[j] - xs[i])
              for i in range(len(xs)) for j in range(i + 1, len(xs)) if xs[j] != xs[i]]
    slope = max(0.0, statistics.median(slopes)) if slopes else 0.0
    return statistics.median(y - slope * x for x, y in zip(xs, ys)), slope


def curve(windows: Sequence[Window]) -> tuple[list[list[float]], float | None] | None:
    """The p50 and p99 lines through the WINDOWS with few inserts in flight, as [[rate, p50, p99]] at each measured
    rate (never below 0 or below a tenth of the least measured figure), and the p99's ms per insert in flight at
    TAIL_RATE_UNIT orders/s from the windows with many (tail(), at TAIL_RATE_POWER; None: no such window); None:
    fewer than two rates with few in flight (then every window's rate draws the lines, and no term)."""
    near = [w for w in windows if w[3] < TAIL_IN_FLIGHT]
    if len({w[0] for w in near}) < 2:
        near = list(windows)
    if len({w[0] for w in near}) < 2:
        return None
    xs = [w[0] for w in near]
    lines = [theil_sen(xs, [w[i] for w in near]) for i in (1, 2)]
    floors = [0.1 * min(w[i] for w in windows) for i in (1, 2)]

    def at(rate: float) -> tuple[float, float]:
        p50, p99 = (max(floor, a + b * rate) for (a, b), floor in zip(lines, floors))
        return p50, max(p50, p99)

    points = [[rate, *(round(x, 3) for x in at(rate))] for rate in sorted({w[0] for w in windows})]
    far = [(w[2] - at(w[0])[1]) / tail(1.0, w[3], w[0], TAIL_RATE_POWER)
           for w in windows if w[3] >= TAIL_IN_FLIGHT and w not in near]
    return points, (round(max(0.0, statistics.median(far)), 5) if far else None)
