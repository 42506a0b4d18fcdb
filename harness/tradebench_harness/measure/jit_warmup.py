"""Warming a JVM variant up until its JIT compiler is quiet, before the measured load starts.

Why: the load client's warm-up rule (two consecutive windows of equal orders/s) is met 10-20 s into a fresh
JVM, while HotSpot's C2 compiler is still using a fifth of a core (measured on java-threads, 24-34 s after
the load started; 1-2 % at 64-74 s). A window measured then charges the JIT's work to the orders. So before
the measured load, a JVM variant gets the same load (same case: concurrency, wait or rate) until its JIT
compiler threads used less than QUIET_PERCENT of a core over the last WINDOW_S seconds, or until MAX seconds.
The measured load then starts with its usual warm-up rule (it reconnects; its own warm-up absorbs that).

Only processes with HotSpot compiler threads take part: node's V8 compiles on its V8Worker threads, which
also run its garbage collector, so its JIT cannot be measured apart and a node variant skips this phase (its
run record has no jitWarmup)."""
from __future__ import annotations

import time
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any, Protocol

from ..report import stats
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
    Returns the record's jitWarmup: {seconds, quiet, jitCpuPercent (the last window), maxS}."""
    history: list[tuple[float, int]] = []          # (monotonic seconds, JIT ticks)
    min_s = min(min_s, max_s)                        # a bound below MIN_S: quiet may still be seen at it
    t0 = time.monotonic()
    load = start_load()
    quiet = False
    last = None
    try:
        while True:
            now = time.monotonic()
            history.append((now, jit_ticks_of(roots)[1]))
            # the window: the oldest sample at least WINDOW_S old
            older = [h for h in history if now - h[0] >= window_s]
            if older:
                t_then, ticks_then = older[-1]
                last = (history[-1][1] - ticks_then) / process.CLOCK_TICKS * 100 / (now - t_then)
                say(f"JIT warm-up {now - t0:.0f} s: the JIT compiler used {last:.1f} % of a core over the last {window_s:.0f} s")
                if now - t0 >= min_s and last < quiet_percent:
                    quiet = True
                    break
            if now - t0 >= max_s or not load.alive():
                break
            time.sleep(poll_s)
    finally:
        load.stop(5)
    return {"seconds": round(time.monotonic() - t0, 1), "quiet": quiet,
            "jitCpuPercent": round(last, 1) if last is not None else None, "maxS": max_s}


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
    quiet, at most MAX_S seconds; the record's jitWarmup."""
    say("warming up until the JIT compiler is quiet")
    argv = load_argv(variant.urls, concurrency, wait_ms, rate, max_s)
    return warm_until_quiet(variant.pids, lambda: loadclient.start(ctx, "load", *argv, log=log), max_s, say=say)
