"""A cluster on loopback: N members of one variant, each its own JVM with its
own HTTP port and Akka remoting port, every member a seed (contract section 9).
A variant has a cluster mode when its manifest has a `cluster` key: the build
and the command that run its members (java-spray-async's: java-spray-cluster's
jar; java-spray-cluster/README.md).

`./tradebench serve` (NODES=N), `bench --nodes N` and the cluster test
(cluster_test.py) start members through here.
"""
from __future__ import annotations

import json
import signal
import subprocess
import sys
import threading
import time
import urllib.request
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from types import FrameType
from typing import Any

from . import process
from .context import Context
from .variants import ManifestError, Variant


def member(variant: Variant) -> Variant:
    """What runs VARIANT's members: the variant with its manifest's cluster build and command."""
    if variant.cluster is None:
        raise ManifestError(f"{variant.name} has no cluster mode (its variant.yaml has no cluster key)")
    return variant.cluster


def member_env(n: int, ports: list[int], cluster_ports: list[int], host: str = "127.0.0.1") -> list[dict[str, str]]:
    """The environment of each of N members: PORT, CLUSTER_HOST, CLUSTER_PORT and the common CLUSTER_SEEDS."""
    seeds = ",".join(f"{host}:{p}" for p in cluster_ports)
    return [{"PORT": str(ports[i]), "CLUSTER_HOST": host, "CLUSTER_PORT": str(cluster_ports[i]), "CLUSTER_SEEDS": seeds}
            for i in range(n)]


def health(url: str, timeout: float = 2.0) -> dict[str, Any] | None:
    """GET /health's JSON when it answers 200, else None."""
    try:
        with urllib.request.urlopen(f"{url}/health", timeout=timeout) as r:
            doc: dict[str, Any] | None = json.loads(r.read()) if r.status == 200 else None
            return doc
    except Exception:
        return None


def up_members(h: dict[str, Any] | None) -> int:
    return sum(1 for m in (h or {}).get("members", []) if m.get("status") == "Up" and m.get("reachable"))


@dataclass
class Members:
    """The running members, in seed order (member 0 first)."""
    members: list[process.Running]
    cluster_ports: list[int]

    @property
    def url(self) -> str:
        return self.members[0].url

    @property
    def urls(self) -> str:
        """Every member's base URL, comma-separated (loadclient load --url spreads its connections over them)."""
        return ",".join(m.url for m in self.members)

    @property
    def pids(self) -> list[int]:
        return [m.pid for m in self.members]

    def alive(self) -> bool:
        return all(m.alive() for m in self.members)

    def stop(self, timeout: float = 90.0) -> list[int | str]:
        """SIGTERM one member at a time, the last first: each hands its partitions to those still up."""
        codes = []
        for m in reversed(self.members):
            codes.append(m.stop(timeout))
        return list(reversed(codes))


def wait_up(urls: list[str], n: int, seconds: float, procs: list[subprocess.Popen[bytes]] | None = None) -> bool:
    """True once every URL answers /health 200 and sees N members Up and reachable."""
    end = time.monotonic() + seconds
    while time.monotonic() < end:
        if all(up_members(health(u)) >= n for u in urls):
            return True
        if procs and any(p.poll() is not None for p in procs):
            return False
        time.sleep(0.5)
    return False


def listening(logs: list[Path], seconds: float, procs: list[subprocess.Popen[bytes]] | None = None) -> bool:
    """Waits until every log holds the variant's "listening on port" line (HTTP server and database up), or a
    process ended."""
    end = time.monotonic() + seconds
    while time.monotonic() < end:
        if all(l.exists() and "listening on port" in l.read_text(errors="replace") for l in logs):
            return True
        if procs and any(p.poll() is not None for p in procs):
            return False
        time.sleep(0.25)
    return False


def start(ctx: Context, variant: Variant, settings: Mapping[str, object], logs: list[Path], ports: list[int] | None = None,
          cluster_ports: list[int] | None = None, health_timeout: float = 150.0, append: bool = False) -> Members:
    """Starts len(LOGS) members of VARIANT with SETTINGS, and waits until each sees all of them Up. Their build
    (member(VARIANT)) is the caller's, before: a measurement's plan builds it with the rest (measure/plan.py
    builds_of), the cluster suite before its scenarios."""
    m = member(variant)
    n = len(logs)
    ports = ports or [process.free_port() for _ in range(n)]
    cluster_ports = cluster_ports or [process.free_port() for _ in range(n)]
    # the other members first, the first seed (which forms the cluster) once they listen: a member whose shard
    # region registers more than 10 s after the first member was up gets no partition (the others placed them all)
    envs = member_env(n, ports, cluster_ports)
    started: dict[int, process.Running] = {}
    for i in reversed(range(n)):
        if i == 0:
            listening(logs[1:], 120, [m.popen for m in started.values()])
        full = {k: str(v) for k, v in settings.items()}
        full.update(envs[i])
        started[i] = process.start(f"{variant.name}-{i}", ctx.placed("variant", m.command(ctx)), logs[i], env=full, cwd=ctx.root,
                                   port=ports[i], append=append)
    running = [started[i] for i in range(n)]
    ms = Members(running, cluster_ports)
    if not wait_up([m.url for m in running], n, health_timeout, [m.popen for m in running]):
        for r in running:
            r.stop(5)
        tails = "\n".join(f"--- {l}\n" + "\n".join(l.read_text(errors="replace").splitlines()[-15:]) for l in logs)
        raise process.NotHealthy(f"{n} members of {variant.name} did not all come up within {health_timeout:.0f} s\n{tails}")
    return ms


def restart_one(ctx: Context, variant: Variant, settings: Mapping[str, object], ms: Members, i: int, log: Path,
                health_timeout: float = 150.0) -> process.Running:
    """Starts member I again (same ports) after it stopped; waits until every member sees all of them Up."""
    n = len(ms.members)
    env = member_env(n, [port_of(m) for m in ms.members], ms.cluster_ports)[i]
    full = {k: str(v) for k, v in settings.items()}
    full.update(env)
    r = process.start(f"{variant.name}-{i}", ctx.placed("variant", member(variant).command(ctx)), log, env=full, cwd=ctx.root, port=ms.members[i].port,
                      append=True)
    ms.members[i] = r
    if not wait_up([m.url for m in ms.members], n, health_timeout, [m.popen for m in ms.members]):
        raise process.NotHealthy(f"member {i} did not rejoin within {health_timeout:.0f} s (log: {log})")
    return r


def port_of(r: process.Running) -> int:
    """A member's HTTP port (every member is started on one)."""
    if r.port is None:
        raise ValueError(f"{r.name} was started without an HTTP port")
    return r.port


def _started(argv: list[str], env: dict[str, str], cwd: Path, tag: str) -> subprocess.Popen[bytes]:
    """A member in a process group of its own (a Ctrl-C reaches this command only), its output lines printed with
    TAG in front."""
    p = subprocess.Popen(argv, env=env, cwd=cwd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                         stdin=subprocess.DEVNULL, start_new_session=True)

    out = p.stdout
    assert out is not None   # stdout=PIPE

    def pump() -> None:
        for line in iter(out.readline, b""):
            sys.stdout.write(tag + line.decode(errors="replace"))
            sys.stdout.flush()
    threading.Thread(target=pump, daemon=True).start()
    return p


def _stopped(p: subprocess.Popen[bytes]) -> int:
    """P's exit code, after a SIGTERM (and a kill 90 s later) when it still runs."""
    if p.poll() is None:
        p.send_signal(signal.SIGTERM)
        try:
            p.wait(90)
        except subprocess.TimeoutExpired:
            p.kill()
            p.wait(5)
    return p.returncode


def serve(ctx: Context, variant: Variant, env: Mapping[str, str], n: int) -> int:
    """`NODES=N ./tradebench serve VARIANT`: N members in the foreground on PORT, PORT+1, ... (remoting on
    CLUSTER_PORT, CLUSTER_PORT+1, ..., default 25520), their output prefixed [m0], [m1], ...; SIGTERM or
    Ctrl-C stops them one at a time (each hands its partitions over) and returns the worst exit code."""
    m = member(variant)
    m.ensure_built(ctx)
    base = int(env.get("PORT") or 3000)
    cbase = int(env.get("CLUSTER_PORT") or 25520)
    host = env.get("CLUSTER_HOST") or "127.0.0.1"
    envs = member_env(n, [base + i for i in range(n)], [cbase + i for i in range(n)], host)
    procs = [_started(m.command(ctx), {**env, **e}, ctx.root, f"[m{i}] ") for i, e in enumerate(envs)]
    stopping = threading.Event()

    def on_signal(signum: int, frame: FrameType | None) -> None:
        stopping.set()
    signal.signal(signal.SIGTERM, on_signal)
    signal.signal(signal.SIGINT, on_signal)
    said: set[int] = set()
    while not stopping.is_set() and any(p.poll() is None for p in procs):
        for i, p in enumerate(procs):
            if p.poll() is not None and i not in said:
                said.add(i)
                print(f"tradebench: member {i} exited ({p.returncode}); the others go on", file=sys.stderr, flush=True)
        stopping.wait(0.5)
    codes = [_stopped(p) for p in reversed(procs)]
    time.sleep(0.2)   # the last lines of the pumps
    worst = max((abs(c) for c in codes), default=0)
    print(f"tradebench: {n} members stopped (exit codes, last member first: {codes})", file=sys.stderr, flush=True)
    return worst
