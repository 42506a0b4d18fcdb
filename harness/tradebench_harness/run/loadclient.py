"""Running the Java load client (loadclient/target/loadclient.jar)."""
from __future__ import annotations

import subprocess
from pathlib import Path

from . import layout, process
from .context import Context

#: the load's JVM compiles with C1 only. Each window starts a fresh load client, and where it yields a CPU it
#: shares (run/layout.py, Layout.load_yields) its C2 compiler threads run at its low priority too: beside a busy
#: variant the load ramped up through the whole window, its second half storing 24-56 % more than its first
#: (java-threads, 3 s of warm-up, 8 s windows, three windows), and C2's compiling was counted in the load's CPU.
#: With C1 alone the same windows were steady after the first (+0.3 %, +2 %) at 8.0-9.1 µs of the load's CPU an
#: order against 10.3-11.1 (docs/layout.md). TB_LOADCLIENT_OPTS comes after it and may override it.
LOAD_JIT = ["-XX:TieredStopAtLevel=1"]


def argv(ctx: Context, sub: str, *args: object) -> list[str]:
    jit = LOAD_JIT if sub == "load" else []
    return ctx.placed("load", [ctx.java, *jit, *ctx.loadclient_opts, "-jar", str(ctx.loadclient_jar()), sub,
                               *[str(a) for a in args]])


def run(ctx: Context, sub: str, *args: object, log: Path, timeout: float | None = None) -> int:
    """Runs `loadclient SUB ARGS` to its end with its output in LOG; returns its exit code."""
    log.parent.mkdir(parents=True, exist_ok=True)
    with open(log, "wb") as fh:
        try:
            return subprocess.run(argv(ctx, sub, *args), stdout=fh, stderr=subprocess.STDOUT,
                                  stdin=subprocess.DEVNULL, timeout=timeout, cwd=ctx.root).returncode
        except subprocess.TimeoutExpired:
            return 124


def start(ctx: Context, sub: str, *args: object, log: Path, stdin: bool = False) -> process.Running:
    """Starts `loadclient SUB ARGS` in the background; with STDIN the caller talks to it with .say(line)
    (the reliability phases that wait on what the harness did to the database)."""
    r = process.start(f"loadclient {sub}", argv(ctx, sub, *args), log, cwd=ctx.root, stdin=stdin)
    if ctx.layout is not None and ctx.layout.load_yields:
        layout.yield_group(r.pid)     # its session is its own scheduling group where the kernel's autogroup is on
    return r


