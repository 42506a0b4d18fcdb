"""The rule for a crowded window, which measure, model, report and cli all apply: a window whose machine was busy
with other work (other processes, or the hypervisor's other guests) measured that machine's figures, not the
design's. The sampler (run/process.py) records what others took in a window (`machineCpu`); this says when it was
too much, and how often a crowded window is measured again.
"""
from __future__ import annotations

from collections.abc import Mapping
from typing import Any, cast

from ..record import Run, group_figure

#: other processes took more than this share of a core (%) in a window: its figures are a crowded machine's
CROWDED_PERCENT = 10.0


def _machine_figure(run: Mapping[str, Any], key: str) -> float | None:
    m = run.get("machineCpu")
    v = m.get(key) if m else None
    return None if v is None else float(v)


def others_percent(run: Mapping[str, Any]) -> float | None:
    """What processes other than the measured parties took in RUN's window, % of one core (None: not sampled)."""
    return _machine_figure(run, "othersPercent")


#: the hypervisor gave more than this share of a core (%) to other guests in a window: its figures are a crowded
#: host's. On the project's Xeon steal came in bursts of a minute or so under load (up to 77 % of a core while the
#: variant, the database and the load client were busy; none with the same cores spinning in a loop), every
#: process then paying more per order (the load client 2.6 times its cost of the minute before)
STOLEN_PERCENT = 10.0


def stolen_percent(run: Mapping[str, Any]) -> float | None:
    """What the hypervisor gave to other guests in RUN's window, % of one core (None: not sampled)."""
    return _machine_figure(run, "stealPercent")


def crowded(run: Mapping[str, Any]) -> bool:
    """Other processes took more than CROWDED_PERCENT of a core in RUN's window, or the hypervisor more than
    STOLEN_PERCENT (False: not sampled)."""
    others, stolen = others_percent(run), stolen_percent(run)
    return (others is not None and others > CROWDED_PERCENT) or (stolen is not None and stolen > STOLEN_PERCENT)


#: how many times calibrate and the map measure a crowded window again, by default: steal came in bursts of a minute
#: or so on the project's Xeon, and a window left out instead took a design's light-load terms with it
#: (node-engine kept 2 of its 5 light windows on 2026-11-28 evening, its CPU then predicted 37-67 % low)
REMEASURE = 2


#: the database's CPUs were this busy (%, of all of them) with the database, the link and a load client sharing them:
#: a window's answers then wait in the database's queue. On the project's AMD EPYC (2026-12-04, the database, the link
#: and the load client on CPU 0) java-spray-async answered 3,000 orders/s next door with a p99 of 179 ms at 85 %,
#: and 3,500/s behind +3 ms with 534 ms at 94 %, where at 72 % java-virtual's p99 read 25 ms
DATABASE_BUSY_PERCENT = 80.0


def database_busy(run: Mapping[str, Any]) -> bool:
    """RUN's database CPUs (a layout that gives it CPUs of its own) were DATABASE_BUSY_PERCENT busy or more with
    the database, the link and the load client where it shares them: its latency is the database's queue, not the
    design's (False: no such layout, or not sampled)."""
    cpus = ((run.get("layout") or {}).get("cpus") or {})
    db, load = set(cpus.get("database") or ()), set(cpus.get("load") or ())
    if not db or group_figure(cast(Run, run), "database", "cpuPercent") is None:
        return False
    parties = ["database", "link"] + (["loadclient"] if db & load else [])
    figures = [group_figure(cast(Run, run), p, "cpuPercent") for p in parties]
    # a party not sampled (no link next door without one) spent nothing on the database's CPUs
    used = sum(x for x in figures if x is not None)
    return used >= DATABASE_BUSY_PERCENT * len(db)
