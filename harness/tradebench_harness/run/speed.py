"""How fast the machine runs right now: a fixed piece of CPU work, timed.

A virtual machine's CPUs are not the same speed from one hour to the next (its host's other tenants, the
host's clock): on the project's Intel Xeon the same calibration measured every party's CPU per order 20–30 %
higher at 23:30 than at 20:22 UTC the same day (the variant's, the database's, the load client's alike),
with no steal time reported. A CPU figure measured then is a figure of that speed. Each window records this
probe, taken just before its load, and each calibration the median of its windows', so that the model's check
can put a prediction at the speed of the window it is held against (model/check.py) and a reader can tell a
slower hour from a costlier design.

The work: an integer recurrence in the interpreter (branches, the interpreter's dispatch) and a sort of a
shuffled list (memory), each timed three times, the least kept (what the CPU does when nothing interrupts
it); about 0.1 s.
"""
from __future__ import annotations

import random
import time

REPEATS = 3
LOOP = 200_000
SORTED = 100_000


def _loop() -> float:
    t = time.perf_counter()
    x = 0
    for i in range(LOOP):
        x = (x * 31 + i) % 1_000_003
    return time.perf_counter() - t


def _sort(items: list[float]) -> float:
    a = list(items)
    t = time.perf_counter()
    a.sort()
    return time.perf_counter() - t


def probe_ms() -> float:
    """The probe's time in ms (less is faster): the least of REPEATS timings of each half, summed."""
    r = random.Random(7)
    items = [r.random() for _ in range(SORTED)]
    return round(1000 * (min(_loop() for _ in range(REPEATS)) + min(_sort(items) for _ in range(REPEATS))), 2)


