"""compare: a compare that stops when it is sure.

Each row runs in fresh processes, the rows round-robin (A B C, A B C, ...), each process measuring WINDOWS
windows. After MIN_PROCESSES rounds, and after each round after them, every row's sales/min interval
(analysis/intervals.py, over the windows the summary counts: a drifting window is set aside, analysis/stats.py)
is held against the target (±TARGET of its median): the rows within it are done; the others get one more
process in the next round, as long as that round's estimated time fits in what is left of the time budget
(counted from the command's start, builds included). A row still outside its target when the budget is
spent, or at MAX_PROCESSES, stopped short: the summary says so, with its interval.

A window whose halves drift is set aside (analysis/stats.py, counted) and measured again: its row is not done
until it has the windows of MIN_PROCESSES processes besides the ones set aside.

A row's first process is verified (`loadclient verify`, then a restart); its later ones run the same build
and are not verified again.
"""
from __future__ import annotations

import dataclasses
import sys
import time
from typing import Any

from .. import record
from ..analysis import intervals, stats
from ..record import Run
from .plan import Series, Timing, Unit, Window, estimate_seconds

TARGET = 0.05
MIN_PROCESSES = intervals.MIN_PROCESSES
MAX_PROCESSES = 8
#: the whole compare's default time budget, builds included: the first answer in 12 minutes
BUDGET_S = 10.5 * 60


def say(msg: str) -> None:
    print(f"tradebench: {msg}", file=sys.stderr, flush=True)


def first_rows(rows: list[tuple[Series, Window]]) -> list[tuple[Series, Window]]:
    """Each design's first row of its manifest per case (compare's default; --all-rows: every row)."""
    seen, out = set(), []
    for s, w in rows:
        k = (s.variant.name, s.case)
        if k not in seen:
            seen.add(k)
            out.append((s, w))
    return out


@dataclasses.dataclass
class Goal:
    target: float = TARGET
    min_processes: int = MIN_PROCESSES
    max_processes: int = MAX_PROCESSES
    budget_s: float = BUDGET_S
    windows: int = 2


class Adaptive:
    """The units of an adaptive compare: the first rounds up front (initial()), then each next round when the
    last is measured (more(), execute's MORE), and what the results document says of the rounds (section())."""

    def __init__(self, rows: list[tuple[Series, Window]], t: Timing, goal: Goal, env: dict[str, Any],
                 started: float | None = None) -> None:
        self.rows, self.t, self.goal, self.env = rows, t, goal, env
        self.started = time.monotonic() if started is None else started
        self.processes = {s.name: 0 for s, _ in rows}
        self.rounds = 0
        self.chosen: record.Adaptive | None = None

    def unit(self, s: Series, w: Window) -> Unit:
        n = self.processes[s.name] = self.processes[s.name] + 1
        timing = self.t if n == 1 else dataclasses.replace(self.t, verify=False)
        first = (n - 1) * self.goal.windows
        return Unit(s, [(first + k, w) for k in range(1, self.goal.windows + 1)], timing)

    def round(self, rows: list[tuple[Series, Window]]) -> list[Unit]:
        self.rounds += 1
        return [self.unit(s, w) for s, w in rows]

    def initial(self) -> list[Unit]:
        return [u for _ in range(max(1, self.goal.min_processes)) for u in self.round(self.rows)]

    def state(self, runs: list[Run]) -> dict[str, Any]:
        """Per row: its processes, its sales/min interval's half width, whether it is within the target."""
        out = {}
        for s, _ in self.rows:
            rs = [r for r in runs if r.get("series") == s.name and not r.get("error")
                  and r.get("salesPerMinute") is not None]
            counted, aside = stats.counted(rs)
            ci = intervals.interval(stats.by_process(counted, lambda r: r["salesPerMinute"]), tag=s.name)
            hw = intervals.half_width(ci)
            key = f"{s.case}|{stats.shown(rs[0])}" if rs else f"{s.case}|{s.name}"
            out[key] = {"series": s.name, "processes": (ci or {}).get("processes", 0), "windows": len(counted),
                        "windowsSetAside": len(aside), "halfWidth": hw,
                        "withinTarget": hw is not None and hw <= self.goal.target,
                        # a drifting window set aside is measured again: the row has not the windows it planned
                        "enoughWindows": len(counted) >= self.goal.min_processes * self.goal.windows}
        return out

    @staticmethod
    def failing(runs: list[Run], s: Series) -> bool:
        """Every window of S's latest process failed: it is not measured again (its errors are in the summary)."""
        mine = [r for r in runs if r["series"] == s.name]
        last = max((record.process_number(r) for r in mine), default=None)
        latest = [r for r in mine if record.process_number(r) == last]
        return bool(latest) and all(r.get("error") for r in latest)

    def section(self) -> record.Adaptive | None:
        """The document's `adaptive`: the target, the budget, each row's interval after the last round, the rows
        that stopped short of the target (None before the first rounds are measured)."""
        return self.chosen

    def more(self, runs: list[Run]) -> list[Unit]:
        rows = self.state(runs)
        left = self.goal.budget_s - (time.monotonic() - self.started)
        by_series = {v["series"]: v for v in rows.values()}
        needy = [(s, w) for s, w in self.rows
                 if not (by_series[s.name]["withinTarget"] and by_series[s.name]["enoughWindows"])
                 and self.processes[s.name] < self.goal.max_processes
                 and not self.failing(runs, s)]
        # the least sure first: when the budget holds only part of a round, they get it
        needy.sort(key=lambda sw: -(by_series[sw[0].name]["halfWidth"] or 1.0))
        chosen = []
        for s, w in needy:
            trial = [Unit(s, [(0, w)] * self.goal.windows, dataclasses.replace(self.t, verify=False))]
            cost = estimate_seconds(trial, self.t, self.env)
            if cost <= left:
                chosen.append((s, w))
                left -= cost
        self.chosen = {"target": self.goal.target, "budgetS": self.goal.budget_s,
                           "minProcesses": self.goal.min_processes, "maxProcesses": self.goal.max_processes,
                           "windowsPerProcess": self.goal.windows, "rows": rows, "rounds": self.rounds,
                           "stoppedShort": sorted(k for k, v in rows.items() if not v["withinTarget"])}
        if chosen:
            say(f"round {self.rounds + 1}: another process for " + ", ".join(s.name for s, _ in chosen)
                + f" (its sales/min interval wider than ±{self.goal.target * 100:g} %, or drifting windows set aside)")
            return self.round(chosen)
        short = self.chosen["stoppedShort"]
        if short:
            say("stopped short of ±{:g} % (budget or process limit): {}".format(
                self.goal.target * 100, "; ".join(
                    f"{k.split('|', 1)[1]} ±{rows[k]['halfWidth'] * 100:.1f} %" if rows[k]["halfWidth"] is not None
                    else f"{k.split('|', 1)[1]} (no interval)" for k in short)))
        else:
            say(f"every row's sales/min interval is within ±{self.goal.target * 100:g} %")
        return []
