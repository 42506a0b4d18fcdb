"""How fast the machine ran while a run was measured, against the calibration a set was fitted from.

A virtual machine's CPUs are not the same speed from one hour to the next: on the project's Intel Xeon the same
45 cells of a map cost every process (the variant, the load client, the link) 17–19 % more CPU per order at
00:57 than at 02:35 UTC on 2026-11-28, nothing else running and no steal time reported (docs/model-accuracy.md,
"The machine's pace"). A figure measured then is a figure of that speed, and so is a calibration.

The gauge is the load client's own CPU per order: in an open loop it does the same work for every order
whatever the design behind it (one request, one answer), it runs in every window, during it, and its cost per
order falls with the rate (its fixed costs spread thin). A calibrated set keeps that cost per offered rate,
the median over its designs (`calibration.loadClientUsPerOrder`); a run's pace is its load client's cost over
the set's at the run's rate (log-log between the calibration's rates), the median over the windows of one
process. Where the set or the run has no such figure, the interpreter's probe before each window
(run/speed.py, `cpuProbeMs`) stands in: a weaker gauge (it said 6 % where the load client said 18 %).

The check puts a prediction's CPU and its p99 at the pace of the process held against: both are CPU work
(a tail is made of pauses and queued service). p50 is mostly the network's and is not scaled.
"""
from __future__ import annotations

import math
import statistics
from typing import Any

from ..record import ParameterSet, Run


def scale(now_ms: float | None, then_ms: float | None) -> float:
    """CPU time now against then for the same work (run/speed.py's probe before each window): the probes' ratio; 1
    where either is unknown."""
    if not now_ms or not then_ms:
        return 1.0
    return now_ms / then_ms


def load_client_us(r: Run) -> float | None:
    """The load client's CPU µs per order in run R's window; None where not measured."""
    v = (r.get("cpuUsPerOrder") or {}).get("loadclient")
    return float(v) if v else None


def load_client_curve(runs: list[Run]) -> list[list[float]]:
    """[[offered rate, µs per order]] from RUNS' open-loop windows: per rate, the median over the windows."""
    by: dict[float, list[float]] = {}
    for r in runs:
        us, rate = load_client_us(r), r.get("rate")
        if rate and us:
            by.setdefault(float(rate), []).append(us)
    return [[rate, round(statistics.median(v), 2)] for rate, v in sorted(by.items())]


def expected_us(curve: list[list[float]], rate: float) -> float | None:
    """The load client's µs per order at RATE by CURVE: log-log between its rates, along its last two beyond them
    (its first below the least: a single point is a level)."""
    if not curve or rate <= 0:
        return None
    pts = [(math.log(r), math.log(us)) for r, us in curve if r > 0 and us > 0]
    if len(pts) == 1:
        return math.exp(pts[0][1])
    x = math.log(rate)
    i = next((k for k in range(len(pts) - 1) if x <= pts[k + 1][0]), len(pts) - 2)
    (x0, y0), (x1, y1) = pts[i], pts[i + 1]
    return math.exp(y0 + (y1 - y0) * (x - x0) / (x1 - x0))


def process_paces(runs: list[Run], pset: ParameterSet) -> dict[Any, float]:
    """Each process's CPU time per unit of work in RUNS against the calibration of PSET (1.25: the same work cost
    25 % more): the load client's gauge where both have it, else the probes', else none (the process is absent)."""
    cal = pset.get("calibration") or {}
    curve, probe = cal.get("loadClientUsPerOrder"), cal.get("cpuProbeMs")
    gauged: dict[Any, list[float]] = {}
    probed: dict[Any, list[float]] = {}
    for r in runs:
        us, rate, probe_ms = load_client_us(r), r.get("rate"), r.get("cpuProbeMs")
        want = expected_us(curve, float(rate)) if curve and rate else None
        if us and want:
            gauged.setdefault(r.get("process"), []).append(us / want)
        if probe_ms and probe:
            probed.setdefault(r.get("process"), []).append(scale(probe_ms, probe))
    out = {k: statistics.median(v) for k, v in probed.items()}
    out.update({k: statistics.median(v) for k, v in gauged.items()})
    return out


def paired_pace(first: list[Run], second: list[Run]) -> float | None:
    """The second of two sittings' runs of one process against the first's, by the load client's cost in the
    cells both measured (the same rate: no curve needed): the median of first ÷ second."""
    ratios = [a / b for a, b in ((load_client_us(x), load_client_us(y)) for x, y in zip(first, second)) if a and b]
    return statistics.median(ratios) if ratios else None
