"""What a row's load needs in memory: its live heap after a collection, read after each window (the peak RSS
is sampled with the CPU, run/process.py).

  JVM      `jcmd PID GC.run` (a full collection, after the window's load, before the next window's drain),
           then `jcmd PID GC.heap_info`: the used bytes of every generation, added up.
  Node.js  every Node process the harness starts from a manifest runs with `--trace-gc` (run/variants.py): V8
           prints a line per collection to the variant's log; the live heap is the heap after the latest
           full collection (Mark-Compact) of each isolate of the variant's processes (the main thread, each
           worker thread, each child process), added up. Nothing is forced and nothing is attached: V8 only
           writes the line of a collection it made anyway, so the figure is the heap after the last full
           collection up to the window's end (none yet: no figure).

Both are read from outside the process: the JVM row pays one full collection between windows, the Node row
a line of log per collection.
"""
from __future__ import annotations

import re
import subprocess
from collections.abc import Iterable
from pathlib import Path
from typing import Any

import psutil

from ..run import profiler
from ..run.context import Context

# "PSYoungGen      total 152576K, used 5242K [" / "ParOldGen       total 349696K, used 12345K [" (ParallelGC), and
# "garbage-first heap   total 262144K, used 12345K [" (G1), " def new generation   total ..." (Serial)
_GEN = re.compile(r"^\s*(\S.*?)\s+total (\d+)K, used (\d+)K", re.M)
# "[1234:0x55d5c0a1e000]     5012 ms: Mark-Compact 45.2 (60.1) -> 30.3 (58.0) MB, ..."
_MARK_COMPACT = re.compile(r"^\[(\d+):(0x[0-9a-f]+)\]\s+[\d.]+ ms: Mark-Compact[^\d]*([\d.]+) \(([\d.]+)\) -> "
                           r"([\d.]+) \(([\d.]+)\) MB", re.M)
JCMD_TIMEOUT_S = 20


def jvm_live_heap_mb(ctx: Context, pid: int) -> float | None:
    """The JVM's heap in use right after a full collection, MB."""
    jcmd = profiler.jcmd(ctx)
    try:
        subprocess.run([jcmd, str(pid), "GC.run"], capture_output=True, text=True, timeout=JCMD_TIMEOUT_S,
                       check=True)
        out = subprocess.run([jcmd, str(pid), "GC.heap_info"], capture_output=True, text=True,
                             timeout=JCMD_TIMEOUT_S, check=True).stdout
    except (OSError, subprocess.SubprocessError):
        return None
    return heap_info_used_mb(out)


def heap_info_used_mb(text: str) -> float | None:
    """The used KB of every generation (or of G1's one heap) of `jcmd GC.heap_info`, in MB."""
    used = [int(m.group(3)) for m in _GEN.finditer(text)
            if not m.group(1).lower().startswith(("metaspace", "class space"))]
    return round(sum(used) / 1024, 1) if used else None


def node_live_heap_mb(log_text: str, pids: set[int]) -> float | None:
    """The heap after the latest Mark-Compact of each isolate of PIDS in a `--trace-gc` log, added up, MB."""
    last: dict[tuple[int, str], float] = {}
    for m in _MARK_COMPACT.finditer(log_text):
        pid = int(m.group(1))
        if pid in pids:
            last[(pid, m.group(2))] = float(m.group(5))
    return round(sum(last.values()), 1) if last else None


def tree_pids(pids: Iterable[int]) -> set[int]:
    out: set[int] = set()
    for pid in pids:
        try:
            p = psutil.Process(pid)
            out |= {p.pid, *(c.pid for c in p.children(recursive=True))}
        except psutil.Error:
            continue
    return out


def after_window(ctx: Context, runtime: str, pids: list[int], logs: list[Path]) -> dict[str, Any]:
    """{liveHeapMb, liveHeapHow} of a variant after a window (liveHeapMb None when it could not be read)."""
    if runtime == "java":
        got = [jvm_live_heap_mb(ctx, p) for p in pids]
        known = [g for g in got if g is not None]
        live = round(sum(known), 1) if got and len(known) == len(got) else None
        return {"liveHeapMb": live, "liveHeapHow": "jcmd GC.run, then GC.heap_info (used)"}
    if runtime == "node":
        text = "".join(p.read_text(errors="replace") for p in logs if p.exists())
        return {"liveHeapMb": node_live_heap_mb(text, tree_pids(pids)),
                "liveHeapHow": "--trace-gc: the heap after the latest Mark-Compact of each isolate"}
    return {"liveHeapMb": None, "liveHeapHow": None}
