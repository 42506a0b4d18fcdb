"""The thread ring (docs/ring.md): every ring row run on each CPU layout, its rounds read back as records.

Java rows run under JMH (bench-ring's RingJmh, single shot: one round per iteration, FORKS fresh JVMs), Node rows
as bench-ring/node/ring.js, one process per fork; both write one JSON line per measured round (ring, threads,
members, messages, handovers, wallNs, cpuNs, cpus, pid), which is all the report reads. A layout is a set of CPUs
the whole run is pinned to with taskset (the JMH forks and the Node workers and children inherit it).
"""
from __future__ import annotations

import json
import subprocess
import sys
import tempfile
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..run import build
from ..run.context import Context

JAVA_ROWS = ("akka-fj", "akka-tp", "akka-affinity", "pekko-fj", "pekko-tp", "jetlang", "threads", "virtual", "future")
NODE_ROWS = ("node-loop-immediate", "node-loop-microtask", "node-workers", "node-children")
ROWS = JAVA_ROWS + NODE_ROWS
#: the rows whose pool size the dispatcher sweep varies (java-spray-async's question)
SWEPT = ("akka-tp", "akka-fj")
#: per Node row, the most messages a round carries: a hand-over across a port or a pipe costs microseconds, and
#: the 2010 shape's 5 million of them would take minutes
NODE_MESSAGES = {"node-workers": 50, "node-children": 5}
#: a rough cost per hand-over (ns) for the estimate printed before the run: this machine's 2-CPU figures
GUESS_NS = {"akka-fj": 300, "akka-tp": 400, "akka-affinity": 400, "pekko-fj": 300, "pekko-tp": 400, "jetlang": 500,
            "threads": 10_000, "virtual": 800, "future": 500, "node-loop-immediate": 120, "node-loop-microtask": 80,
            "node-workers": 2_000, "node-children": 20_000}
JVM_START_S = 2.0


class RingError(Exception):
    pass


@dataclass(frozen=True)
class Plan:
    rows: tuple[str, ...]
    members: int
    messages: int
    layouts: tuple[tuple[int, ...], ...]
    threads: int | None = None
    forks: int = 3
    warmups: int = 1
    rounds: int = 1
    thread_members: int = 100
    sweep: tuple[int, ...] = ()
    sweep_cpus: tuple[int, ...] = field(default=())

    def size(self, row: str) -> tuple[int, int]:
        """ROW's members and messages as it runs them."""
        members = min(self.members, self.thread_members) if row == "threads" else self.members
        return members, min(self.messages, NODE_MESSAGES.get(row, self.messages))

    def pool(self, cpus: tuple[int, ...]) -> int:
        return self.threads or len(cpus)

    def estimate_s(self) -> float:
        rounds = self.forks * (self.warmups + self.rounds)
        total = 0.0
        for row in self.rows:
            m, n = self.size(row)
            total += len(self.layouts) * (self.forks * JVM_START_S + rounds * m * n * GUESS_NS[row] / 1e9)
        for row in (r for r in SWEPT if r in self.rows):
            m, n = self.size(row)
            total += len(self.sweep) * (self.forks * JVM_START_S + rounds * m * n * GUESS_NS[row] / 1e9 * 1.5)
        return total


def taskset(cpus: tuple[int, ...]) -> list[str]:
    return ["taskset", "-c", ",".join(str(c) for c in cpus)]


def jmh_classpath(ctx: Context) -> str:
    """bench-ring built when stale (its JMH harness generated at compile); its class path."""
    t = "bench-ring/target"
    # classpath.txt is written at every package, the jar and the generated harness only when their sources
    # changed: the newest output decides, or a root pom edited since would rebuild at every call
    build.ensure(ctx, "bench-ring", ["mvn", *build.MVN, "-DskipTests", "-f", "bench-ring/pom.xml", "package"],
                 [f"{t}/classpath.txt"], ["bench-ring/src/main", "bench-ring/pom.xml", "pom.xml"])
    if not (ctx.root / t / "classes" / "META-INF" / "BenchmarkList").is_file():
        raise build.BuildError("bench-ring: no JMH harness generated (target/classes/META-INF/BenchmarkList)")
    target = ctx.root / t
    return f"{target}/bench-ring.jar:{(target / 'classpath.txt').read_text().strip()}"


def jmh_argv(ctx: Context, plan: Plan, rows: list[str], threads: list[int], cpus: tuple[int, ...], log: Path,
             out: Path) -> list[str]:
    return [*taskset(cpus), ctx.java, *ctx.jvm_opts, "-cp", jmh_classpath(ctx), "org.openjdk.jmh.Main",
            r"tradebench\.ring\.RingJmh", "-f", str(plan.forks), "-wi", str(plan.warmups), "-i", str(plan.rounds),
            "-p", "ring=" + ",".join(rows), "-p", f"members={plan.members}", "-p", f"messages={plan.messages}",
            "-p", "threads=" + ",".join(str(t) for t in threads), "-p", f"threadMembers={plan.thread_members}",
            "-jvmArgsAppend", f"-Dring.log={log}", "-rf", "json", "-rff", str(out)]


def run_jmh(ctx: Context, plan: Plan, rows: list[str], threads: list[int], cpus: tuple[int, ...], scratch: Path,
            tag: str) -> list[dict[str, Any]]:
    """ROWS at each of THREADS on CPUS; the measured rounds' records (a failed row leaves none: said)."""
    log, out = scratch / f"{tag}.jsonl", scratch / f"{tag}.json"
    with open(scratch / f"{tag}.out", "wb") as sink:
        rc = subprocess.run(jmh_argv(ctx, plan, rows, threads, cpus, log, out), stdout=sink,
                            stderr=subprocess.STDOUT, env=ctx.java_env()).returncode
    if rc != 0:
        say(f"ring: JMH exited {rc} on CPUs {cpus} (its output: {scratch / (tag + '.out')})")
    return read_lines(log)


def run_node(ctx: Context, plan: Plan, row: str, cpus: tuple[int, ...]) -> list[dict[str, Any]]:
    """A Node row's forks, one process each."""
    members, messages = plan.size(row)
    argv = [*taskset(cpus), ctx.node, str(ctx.root / "bench-ring" / "node" / "ring.js"),
            "--ring", row.removeprefix("node-"), "--members", str(members), "--messages", str(messages),
            "--threads", str(max(2, plan.pool(cpus))), "--warmups", str(plan.warmups), "--rounds", str(plan.rounds)]
    out: list[dict[str, Any]] = []
    for _ in range(plan.forks):
        p = subprocess.run(argv, capture_output=True, text=True)
        if p.returncode != 0:
            say(f"ring: {row} on CPUs {cpus} failed: {p.stderr.strip()[-300:]}")
            return []
        out += parse_lines(p.stdout)
    return out


def parse_lines(text: str) -> list[dict[str, Any]]:
    """The round records of a ring's output: one JSON object a line; other lines (JMH's) are not records."""
    out = []
    for line in text.splitlines():
        line = line.strip()
        if line.startswith("{") and '"handovers"' in line:
            out.append(json.loads(line))
    return out


def read_lines(path: Path) -> list[dict[str, Any]]:
    return parse_lines(path.read_text()) if path.is_file() else []


def run(ctx: Context, plan: Plan, scratch: Path | None = None) -> list[dict[str, Any]]:
    """Every round of every row on every layout, then the sweep; each record with its layout's CPUs."""
    scratch = scratch or Path(tempfile.mkdtemp(prefix="ring-"))
    rounds: list[dict[str, Any]] = []
    java = [r for r in plan.rows if r in JAVA_ROWS]
    for cpus in plan.layouts:
        tag = f"cpus{len(cpus)}"
        if java:
            say(f"ring: {', '.join(java)} on CPUs {cpus}, {plan.pool(cpus)} thread(s)")
            rounds += tagged(run_jmh(ctx, plan, java, [plan.pool(cpus)], cpus, scratch, tag), cpus, "rows")
        for row in (r for r in plan.rows if r in NODE_ROWS):
            say(f"ring: {row} on CPUs {cpus}")
            rounds += tagged(run_node(ctx, plan, row, cpus), cpus, "rows")
    swept = [r for r in SWEPT if r in plan.rows]
    if plan.sweep and swept:
        cpus = plan.sweep_cpus or plan.layouts[-1]
        say(f"ring: the dispatcher sweep, {', '.join(swept)} at {plan.sweep} threads on CPUs {cpus}")
        rounds += tagged(run_jmh(ctx, plan, swept, list(plan.sweep), cpus, scratch, "sweep"), cpus, "sweep")
    return rounds


def tagged(records: list[dict[str, Any]], cpus: tuple[int, ...], part: str) -> list[dict[str, Any]]:
    return [{**r, "layout": list(cpus), "part": part} for r in records]


def say(msg: str) -> None:
    print(f"tradebench: {msg}", file=sys.stderr, flush=True)
