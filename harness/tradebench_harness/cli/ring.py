"""./tradebench ring: the 2010 thread ring on every concurrency model the designs use (docs/ring.md)."""
from __future__ import annotations

import argparse
import os
import platform
import shlex
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

from ..measure import ring
from ..measure.execute import human
from ..record import new_run_id
from ..report import ring as report
from ..run import layout
from ..run.context import Context
from .options import OptionsError


def counts(text: str, what: str) -> tuple[int, ...]:
    try:
        out = tuple(int(x) for x in text.split(",") if x.strip())
    except ValueError as e:
        raise OptionsError(f"{what} {text}: comma-separated whole numbers") from e
    if any(n < 1 for n in out):
        raise OptionsError(f"{what} {text}: each at least 1")
    return out


def layouts_of(sizes: tuple[int, ...]) -> tuple[tuple[int, ...], ...]:
    """Each size's CPUs: the last ones the harness may use (CPU 0 takes the machine's interrupts)."""
    cpus = layout.available()
    for n in sizes:
        if n > len(cpus):
            raise OptionsError(f"--cpus {n}: this machine lets the harness use {len(cpus)} CPU(s)")
    return tuple(tuple(cpus[len(cpus) - n:]) for n in sizes)


def options(ns: argparse.Namespace) -> ring.Plan:
    rows = tuple(x for x in (ns.rows or "").split(",") if x) or ring.ROWS
    unknown = [r for r in rows if r not in ring.ROWS]
    if unknown:
        raise OptionsError(f"--rows {','.join(unknown)}: not a ring row ({', '.join(ring.ROWS)})")
    for name in ("members", "messages", "forks", "rounds", "thread_members"):
        if getattr(ns, name) < 1:
            raise OptionsError(f"--{name.replace('_', '-')} {getattr(ns, name)}: at least 1")
    if ns.threads is not None and ns.threads < 1:
        raise OptionsError(f"--threads {ns.threads}: at least 1")
    return ring.Plan(rows=rows, members=ns.members, messages=ns.messages, layouts=layouts_of(counts(ns.cpus, "--cpus")),
                     threads=ns.threads, forks=ns.forks, rounds=ns.rounds, thread_members=ns.thread_members,
                     sweep=counts(ns.sweep, "--sweep") if ns.sweep else ())


def machine() -> dict[str, Any]:
    model = "?"
    try:
        model = next(l.split(":", 1)[1].strip() for l in Path("/proc/cpuinfo").read_text().splitlines()
                     if l.startswith("model name"))
    except (OSError, StopIteration):
        pass
    return {"cpuModel": model, "cpus": os.cpu_count(), "kernel": platform.release(), "allowed": list(layout.available())}


def commit_of(root: Path) -> str:
    p = subprocess.run(["git", "-C", str(root), "rev-parse", "--short", "HEAD"], capture_output=True, text=True)
    return p.stdout.strip() or "?"


def plan_record(plan: ring.Plan) -> dict[str, Any]:
    return {"rows": list(plan.rows), "members": plan.members, "messages": plan.messages,
            "layouts": [list(c) for c in plan.layouts], "threads": plan.threads, "forks": plan.forks,
            "warmups": plan.warmups, "rounds": plan.rounds, "threadMembers": plan.thread_members,
            "sweep": list(plan.sweep), "nodeMessages": ring.NODE_MESSAGES}


def cmd_ring(ctx: Context, plan: ring.Plan, out: str | None = None) -> int:
    folder = Path(out) if out else ctx.results / new_run_id("ring")
    print(f"tradebench: ring: {len(plan.rows)} row(s) on {len(plan.layouts)} layout(s), {plan.forks} fork(s) each"
          f"{', the dispatcher sweep at ' + ','.join(map(str, plan.sweep)) + ' threads' if plan.sweep else ''}: "
          f"about {human(plan.estimate_s())} (builds not counted); results in {folder}", file=sys.stderr, flush=True)
    started = time.strftime("%Y-%m-%dT%H:%M:%S%z")
    scratch = folder / "raw"
    scratch.mkdir(parents=True, exist_ok=True)
    rounds = ring.run(ctx, plan, scratch)
    doc: dict[str, Any] = {"command": "ring", "commandLine": "./tradebench ring " + " ".join(shlex.quote(a) for a in sys.argv[2:]),
           "startedAt": started, "finishedAt": time.strftime("%Y-%m-%dT%H:%M:%S%z"), "commit": commit_of(ctx.root),
           "machine": machine(), "plan": plan_record(plan), "then": {"ms": report.THEN_MS,
                                                                       "handovers": report.THEN_HANDOVERS},
           "rows": report.rows_of(rounds), "rounds": rounds}
    report.write(folder, doc)
    print((folder / "summary.md").read_text(), flush=True)
    measured = {r["ring"] for r in doc["rows"]}
    missing = [r for r in plan.rows if r not in measured]
    if missing:
        print(f"tradebench: ring: not measured: {', '.join(missing)}", file=sys.stderr)
        return 1
    return 0


def run_command(ctx: Context, o: tuple[ring.Plan, str | None]) -> int:
    return cmd_ring(ctx, *o)


def add(sub: Any, add_command: Any) -> None:
    p = add_command(sub, "ring", run_command, "the thread ring (2010): what one hand-over costs in every concurrency "
                    "model the designs use, on 1 and 2 CPUs, beside the 2010 figures (docs/ring.md)",
                    lambda ns: (options(ns), ns.out), owns_db=False)
    p.add_argument("--members", type=int, default=10_000, help="ring members (default 10,000, as in 2010)")
    p.add_argument("--messages", type=int, default=500, help="messages sent to member 0 (default 500, as in 2010)")
    p.add_argument("--threads", type=int, default=None, help="pool threads of the pooled rows (default: one per CPU "
                   "of the layout)")
    p.add_argument("--forks", type=int, default=3, help="fresh processes per row; the interval is over them "
                   "(default 3)")
    p.add_argument("--rounds", type=int, default=1, help="measured rounds per fork, after one warm-up (default 1)")
    p.add_argument("--rows", default=None, help=f"comma-separated rows (default: all: {','.join(ring.ROWS)})")
    p.add_argument("--cpus", default="1,2", help="the layouts: CPUs of its own for each run (default 1,2)")
    p.add_argument("--sweep", default="1,2,4,8", help="pool sizes for the Akka dispatcher sweep on the largest "
                   "layout ('' : none; default 1,2,4,8)")
    p.add_argument("--thread-members", type=int, default=100, help="members of the platform-thread-per-member row "
                   "(default 100: 10,000 platform threads do not fit a small machine)")
    p.add_argument("--out", default=None, help="the results folder (default: results/<run-id>)")
