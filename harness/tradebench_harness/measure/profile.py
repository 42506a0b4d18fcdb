"""A CPU profile of the variant's process group over each measured window (bench --profile, compare --profile,
./tradebench profile), taken on the one measurement path: Instance.measure opens and closes it around the load
client, and the unit ends it after the variant has stopped.

Why the whole load client run is profiled and the window cut by timestamps: the window's start is known
only once the load client's warm-up has decided it is steady, and only to the load client; its JSON says
afterwards when the window was (windowStartMs, windowEndMs, the clock of SALES.CREATED). Every sample of both
profilers carries its time, so the samples inside that range are exactly the window's, with no start or
stop of a profiler to time against the load client's phases.

  JVM   async-profiler attached before the load client starts, stopped after it ends; its JFR recording cut
        to the window by async-profiler's converter.
  Node  --cpu-prof in every process and worker thread from the variant's start (a profile is written only
        when a process or thread exits): after the unit's variant has stopped, every profile's samples cut
        to each window.

The row's profile is written to the results folder as profile/<row>.html (its flame graph) and
profile/<row>.collapsed.gz (the windows' stacks, every window of the row summed, pruned to the frames of at
least 0.5 % of the samples so that a folder fits in a repository: analysis/stacks.py, prune); each window's
run record gets its sample counts per named part (analysis/profile_rules.py) under "profile".
"""
from __future__ import annotations

import gzip
import subprocess
import time
from collections import Counter
from collections.abc import Callable
from pathlib import Path
from typing import Any

from ..analysis import stacks as stack_parts
from ..run import profiler
from ..run.context import Context


class Profiling:
    """The profile of one unit (a process of a variant row) over its measured windows."""

    def __init__(self, ctx: Context, runtime: str, out: Path, row: str, say: Callable[[str], None] = lambda m: None) -> None:
        self.ctx, self.runtime, self.out, self.row, self.say = ctx, runtime, out, row, say
        self.node_dir = out / "node-profiles"
        self.jfr: dict[int, list[Path]] = {}        # a window's index -> its JFR recordings (one per JVM)
        self.clock: dict[int, float] = {}           # a window's index -> time.time() - time.monotonic(), ms
        self.pids: list[int] = []
        self._open: list[int] = []
        self.failed: dict[int, str] = {}            # a window's index -> why it has no profile
        self.broken: str | None = None              # why nothing can be profiled (the run is measured anyway)
        self.event = "v8-cpu-prof"
        if runtime == "java":
            self.event = profiler.JVM_EVENT
            try:
                profiler.async_profiler(ctx)         # fetched before the variant starts, not in a window
            except (profiler.ProfilerError, OSError) as e:
                self.broken = str(e)
                say(f"profile: {e}: measured without a profile")

    def env(self) -> dict[str, Any]:
        """What the variant's processes get at their start."""
        if self.broken:
            return {}
        return profiler.jvm_env() if self.runtime == "java" else profiler.node_env(self.node_dir)

    def start_window(self, index: int, pids: list[int], out: Path) -> None:
        """Just before the load client starts: profiling on (a JVM), the clocks' offset noted (Node)."""
        self.clock[index] = time.time() * 1000 - time.monotonic() * 1000
        self.pids = list(pids)
        if self.runtime != "java" or self.broken:
            return
        self.jfr[index] = []
        for pid in pids:
            jfr = out / f"profile-{pid}.jfr"
            try:
                profiler.jvm_start(self.ctx, pid, jfr)
            except (profiler.ProfilerError, OSError, subprocess.SubprocessError) as e:
                self.failed[index] = str(e)
                self.say(f"profile: {e}: this window is measured without one")
                return
            self._open.append(pid)
            self.jfr[index].append(jfr)

    def stop_window(self) -> None:
        """Just after the load client ended (or failed): profiling off."""
        while self._open:
            pid = self._open.pop()
            try:
                profiler.jvm_stop(self.ctx, pid)
            except (profiler.ProfilerError, OSError, subprocess.SubprocessError) as e:
                self.say(f"profile: {e}")

    def window_stacks(self, index: int, rec: dict[str, Any]) -> Counter[str]:
        start, end = rec.get("windowStartMs"), rec.get("windowEndMs")
        if start is None or end is None:
            return Counter()
        if self.runtime == "java":
            files = [f for f in self.jfr.get(index, []) if f.exists()]
            if not files:
                return Counter()
            out = files[0].with_suffix(".collapsed")
            if index == 1:
                engine = profiler.jfr_engine(self.ctx, files[0])
                self.event = f"{profiler.JVM_EVENT} ({engine})" if engine else self.event
            profiler.jfr_to(self.ctx, files, out, int(start), int(end))
            stacks = stack_parts.read_collapsed(out)
            for f in [*files, out]:
                f.unlink()                           # the row's collapsed stacks are what is kept
            return stacks
        stacks = Counter()
        root = self.pids[0] if self.pids else None
        for p in profiler.node_profiles(self.node_dir):
            stacks += profiler.cpuprofile_stacks(p, start, end, self.clock[index], root)
        return stacks

    def record_profile(self, index: int, rec: dict[str, Any]) -> Counter[str]:
        """Window INDEX's stacks, its breakdown in its record REC (or why there is none: `profileError`)."""
        why = self.broken or self.failed.get(index) or (None if index in self.clock else "not profiled")
        if why:
            rec["profileError"] = why
            return Counter()
        try:
            stacks = self.window_stacks(index, rec)
        except (profiler.ProfilerError, OSError, ValueError, subprocess.SubprocessError) as e:
            rec["profileError"] = str(e)
            self.say(f"profile: {e}")
            return Counter()
        if not stacks:
            rec["profileError"] = ("no sample in the window" + (" (a Node process writes its profile only when it "
                                                                "exits cleanly)" if self.runtime == "node" else ""))
            return Counter()
        rec["profile"] = {"event": self.event, "intervalUs": profiler.INTERVAL_US,
                          **stack_parts.counts(stacks, self.runtime)}
        return stacks

    def finish(self, records: list[dict[str, Any]], folder: Path) -> None:
        """After the unit's variant has stopped (Node wrote its profiles): each window's stacks, its record's
        breakdown, and the row's files in FOLDER/profile/ (added to what an earlier unit of the row wrote)."""
        total: Counter[str] = Counter()
        for index, rec in enumerate(records, 1):
            if not rec.get("error"):
                total += self.record_profile(index, rec)
        if self.runtime != "java":
            for p in profiler.node_profiles(self.node_dir):
                p.unlink()                           # raw V8 profiles are large; the collapsed stacks stay
        if not total:
            return
        pdir = folder / "profile"
        pdir.mkdir(parents=True, exist_ok=True)
        collapsed, html = pdir / f"{self.row}.collapsed.gz", pdir / f"{self.row}.html"
        if collapsed.exists():                       # compare --fresh: another process of the same row
            total += stack_parts.read_collapsed(collapsed)
        # the flame graph from every stack; the file kept beside the results pruned (analysis/stacks.py, prune)
        profiler.flame_graph(self.ctx, total, html, self.row, self.say)
        collapsed.write_bytes(gzip.compress(profiler.collapsed_text(stack_parts.prune(total, self.runtime)).encode(),
                                            mtime=0))
        for rec in records:
            if rec.get("profile"):
                rec["profile"].update(flameGraph=f"profile/{html.name}", collapsed=f"profile/{collapsed.name}")
