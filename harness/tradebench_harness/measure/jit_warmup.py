"""Warming a JVM variant up until its JIT compiler is quiet, before the measured load starts.

Why: the load client's warm-up rule (two consecutive windows of equal orders/s) is met 10-20 s into a fresh
JVM, while HotSpot's C2 compiler is still using a fifth of a core (measured on java-threads, 24-34 s after
the load started; 1-2 % at 64-74 s). A window measured then charges the JIT's work to the orders. So before
the measured load, a JVM variant gets the same load (same case: concurrency, wait or rate) until its JIT
compiler threads used less than QUIET_PERCENT of a core over the last WINDOW_S seconds, or until MAX seconds.
The measured load then starts with its usual warm-up rule (it reconnects; its own warm-up absorbs that).

A process without HotSpot compiler threads (node: V8 compiles on its V8Worker threads, which also run its garbage
collector, so its JIT cannot be measured apart) gets the same load until its whole CPU is steady instead: two
consecutive WINDOW_S windows within STEADY_CHANGE of each other (after MIN_S), or MAX seconds. Without it,
node-engine's first two cells of a map read 22-32 % above the model's CPU, its later cells mostly within 15 %
(the project's Xeon, 2026-11-28); its record's jitWarmup says which rule ended the warm-up (`rule`)."""
from __future__ import annotations

import time
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any, Protocol

import psutil

from ..analysis import stats
from ..run import loadclient, process
from ..run.context import Context


class Started(Protocol):
    """A started variant, alone or as cluster members: its processes and the URLs the load goes to."""
    @property
    def urls(self) -> str: ...
    @property
    def pids(self) -> list[int]: ...

# the summary's '⚠ JIT' bar: under it, the compiler is no longer a cost to see in a window
QUIET_PERCENT = stats.JIT_FLAG
WINDOW_S = 5
# never call the JIT quiet before this: the compiler starts slowly under a load that is just ramping up
MIN_S = 10
# a process without compiler threads of its own: steady when a window's CPU is within this share of the one before
STEADY_CHANGE = 0.10


def jit_ticks_of(roots: Iterable[int]) -> tuple[int, int]:
    """(compiler threads found, their CPU ticks so far) over the process trees of ROOTS."""
    threads = ticks = 0
    for root in roots:
        for p in process.tree_of(root):
            n, t = process.jit_threads(p.pid)
            threads += n
            ticks += t
    return threads, ticks


def has_jit(roots: Iterable[int]) -> bool:
    return jit_ticks_of(roots)[0] > 0


def warm_until_quiet(roots: list[int], start_load: Callable[[], process.Running], max_s: float, *,
                     quiet_percent: float = QUIET_PERCENT, window_s: float = WINDOW_S, min_s: float = MIN_S,
                     poll_s: float = 1.0, say: Callable[[str], None] = lambda s: None) -> dict[str, Any]:
    """Runs START_LOAD's load against the processes of ROOTS until their JIT compiler threads used under
    QUIET_PERCENT % of a core over the last WINDOW_S seconds (after at least MIN_S), or for MAX_S seconds.
    Returns the record's jitWarmup: {seconds, quiet, jitCpuPercent (the last window), maxS, rule}."""
    def quiet(now: float, before: float | None) -> bool:
        return now < quiet_percent
    return {**_warm(lambda: jit_ticks_of(roots)[1], quiet, "the JIT compiler", "jitCpuPercent", start_load, max_s,
                    window_s, min_s, poll_s, say), "rule": "jit quiet"}


def warm_until_steady(roots: list[int], start_load: Callable[[], process.Running], max_s: float, *,
                      change: float = STEADY_CHANGE, window_s: float = WINDOW_S, min_s: float = MIN_S,
                      poll_s: float = 1.0, say: Callable[[str], None] = lambda s: None) -> dict[str, Any]:
    """Runs START_LOAD's load against the processes of ROOTS until their CPU over the last WINDOW_S seconds is within
    CHANGE of the WINDOW_S seconds before (after at least MIN_S), or for MAX_S seconds. Returns the record's
    jitWarmup: {seconds, quiet (steady), jitCpuPercent None, cpuPercent (the last window), maxS, rule}."""
    def steady(now: float, before: float | None) -> bool:
        return before is not None and abs(now - before) <= change * max(before, 1e-9)
    return {**_warm(lambda: cpu_ticks_of(roots), steady, "the process", "cpuPercent", start_load, max_s, window_s,
                    min_s, poll_s, say), "jitCpuPercent": None, "rule": "cpu steady"}


def _warm(ticks: Callable[[], int], settled: Callable[[float, float | None], bool], what: str, figure: str,
          start_load: Callable[[], process.Running], max_s: float, window_s: float, min_s: float, poll_s: float,
          say: Callable[[str], None]) -> dict[str, Any]:
    """The warm-up loop: START_LOAD's load until SETTLED(the CPU % TICKS grew by over the last WINDOW_S seconds, the
    same over the WINDOW_S before that or None) after MIN_S, or MAX_S seconds. The last window's CPU % is kept
    under FIGURE."""
    history: list[tuple[float, int]] = []          # (monotonic seconds, CPU ticks)
    min_s = min(min_s, max_s)                        # a bound below MIN_S: settled may still be seen at it
    t0 = time.monotonic()
    load = start_load()
    done = False
    last = None

    def percent_since(now: float, back: float) -> float | None:
        # the oldest sample at least BACK old, against the newest sample at least BACK - WINDOW_S old
        end = [h for h in history if now - h[0] >= back - window_s]
        older = [h for h in history if now - h[0] >= back]
        if not older or not end:
            return None
        (t1, k1), (t2, k2) = older[-1], end[-1]
        return (k2 - k1) / process.CLOCK_TICKS * 100 / (t2 - t1) if t2 > t1 else None
    try:
        while True:
            now = time.monotonic()
            history.append((now, ticks()))
            last = percent_since(now, window_s)
            if last is not None:
                say(f"warm-up {now - t0:.0f} s: {what} used {last:.1f} % of a core over the last {window_s:.0f} s")
                if now - t0 >= min_s and settled(last, percent_since(now, 2 * window_s)):
                    done = True
                    break
            if now - t0 >= max_s or not load.alive():
                break
            time.sleep(poll_s)
    finally:
        load.stop(5)
    return {"seconds": round(time.monotonic() - t0, 1), "quiet": done,
            figure: round(last, 1) if last is not None else None, "maxS": max_s}


def cpu_ticks_of(roots: Iterable[int]) -> int:
    """The CPU ticks (user + system) the process trees of ROOTS used so far."""
    total = 0.0
    for root in roots:
        for p in process.tree_of(root):
            try:
                t = p.cpu_times()
            except (psutil.NoSuchProcess, psutil.AccessDenied, psutil.ZombieProcess):    # gone since the listing
                continue
            total += t.user + t.system
    return int(total * process.CLOCK_TICKS)


def load_argv(url: str, concurrency: int, wait_ms: int, rate: int | None, max_s: float) -> list[Any]:
    """The warm-up's `loadclient load` arguments: the case's load, no measured window worth keeping (it is
    stopped as soon as the JIT is quiet), nothing counted in the database."""
    args = ["--url", url, "--concurrency", concurrency, "--warmup", 0, "--duration", int(max_s) + 30,
            "--progress", 5, "--max-error-rate", 1]
    args += ["--rate", rate] if rate else ["--wait", wait_ms]
    return args


def warm(ctx: Context, variant: Started, concurrency: int, wait_ms: int, rate: int | None, max_s: float, log: Path,
         say: Callable[[str], None] = lambda s: None) -> dict[str, Any]:
    """A running VARIANT (its pids and urls) gets the load (closed loop, or RATE) until its JIT compiler is
    quiet (a JVM), else until its CPU is steady, at most MAX_S seconds; the record's jitWarmup."""
    argv = load_argv(variant.urls, concurrency, wait_ms, rate, max_s)
    start = lambda: loadclient.start(ctx, "load", *argv, log=log)    # noqa: E731
    if has_jit(variant.pids):
        say("warming up until the JIT compiler is quiet")
        return warm_until_quiet(variant.pids, start, max_s, say=say)
    say("warming up until the CPU is steady (no compiler threads of its own to watch)")
    return warm_until_steady(variant.pids, start, max_s, say=say)
