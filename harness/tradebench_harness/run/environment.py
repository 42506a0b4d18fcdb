"""The environment block of every result: what a reader needs to reproduce
or discount a figure (git state, machine, load, versions, flags)."""
from __future__ import annotations

import os
import platform
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import psutil

from . import context
from .context import Context
from .db import Database


def _out(argv: list[str], cwd: Path | None = None) -> str | None:
    try:
        r = subprocess.run(argv, capture_output=True, text=True, cwd=cwd, timeout=30)
    except (OSError, subprocess.TimeoutExpired):
        return None
    text = (r.stdout or "") + (r.stderr or "")
    return text.strip() if r.returncode == 0 else None


def cpu_model() -> str | None:
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or None


def java_version(ctx: Context) -> str | None:
    text = _out([ctx.java, "-version"])
    return text.splitlines()[0] if text else None


def autogroup() -> bool | None:
    """Whether the kernel's scheduler shares a CPU between sessions before threads (sched_autogroup): two
    processes the harness starts on one CPU, each in a session of its own, then get half each whatever their
    thread counts; without it, each runnable thread gets its share. It matters wherever two parties of a layout
    share a CPU (on 2 CPUs: the database and the load client)."""
    try:
        with open("/proc/sys/kernel/sched_autogroup_enabled") as f:
            return f.read().strip() == "1"
    except OSError:
        return None


def collect(ctx: Context, db: Database | None = None) -> dict[str, Any]:
    """Everything but the variant settings (each run carries its own) and the harness options."""
    status = _out(["git", "status", "--porcelain", "--untracked-files=no"], cwd=ctx.root)
    node = shutil.which(ctx.env.get("TB_NODE") or "node")
    mem = psutil.virtual_memory().total
    return {
        "gitCommit": _out(["git", "rev-parse", "HEAD"], cwd=ctx.root),
        "gitDirty": bool(status) if status is not None else None,
        "cpuModel": cpu_model(),
        "cores": os.cpu_count(),
        "memoryGb": round(mem / 1024 ** 3, 1),
        "kernel": platform.release(),
        "os": platform.platform(),
        "loadAverageBefore": [round(x, 2) for x in os.getloadavg()],
        "jdk": java_version(ctx),
        "javaHome": str(ctx.java_home) if ctx.java_home else None,
        "node": _out([node, "--version"]) if node else None,
        "database": db.version() if db is not None else None,
        "databaseDurable": ctx.env.get("TB_DB_DURABLE") == "1",
        "jvmFlags": ctx.jvm_opts,
        # the heap policy every variant's JVM runs under, and the flags of its Node processes (context.py)
        "variantJvmFlags": ctx.variant_jvm_opts,
        "heapPolicy": " ".join(context.VARIANT_HEAP) + " (every variant's JVM)",
        "nodeFlags": context.NODE_OPTS,
        "loadclientJvmFlags": ctx.loadclient_opts,
        "python": sys.version.split()[0],
        "hostname": platform.node(),
        "schedAutogroup": autogroup(),
    }
