"""Running the Java load client (loadclient/target/loadclient.jar)."""
from __future__ import annotations

import subprocess
from pathlib import Path

from . import layout, process
from .context import Context


def argv(ctx: Context, sub: str, *args: object) -> list[str]:
    return ctx.placed("load", [ctx.java, *ctx.loadclient_opts, "-jar", str(ctx.loadclient_jar()), sub,
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


def start(ctx: Context, sub: str, *args: object, log: Path) -> process.Running:
    """Starts `loadclient SUB ARGS` in the background."""
    r = process.start(f"loadclient {sub}", argv(ctx, sub, *args), log, cwd=ctx.root)
    if ctx.layout is not None and ctx.layout.load_yields:
        layout.yield_group(r.pid)     # its session is its own scheduling group where the kernel's autogroup is on
    return r


