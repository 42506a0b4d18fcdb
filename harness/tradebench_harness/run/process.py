"""The one place that starts and stops a variant (and the harness's other
servers), and samples process trees with psutil.

A started process runs in a session of its own, so that stopping it reaches
its children (node-engine's engine processes) even when the parent is gone.
"""
from __future__ import annotations

import os
import signal
import socket
import subprocess
import threading
import time
import urllib.request
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, Any

import psutil

from .context import Context
from .variants import Variant

#: after a signal (SIGTERM, Ctrl-C) everything the command started is stopped within this many seconds
STOP_WITHIN_S = 8.0
_interrupted_at: float | None = None


def interrupt() -> None:
    """A signal arrived: from now on every stop gets only what is left of STOP_WITHIN_S (then SIGKILL), so the
    command exits within seconds of the signal instead of waiting for each process to drain."""
    global _interrupted_at
    if _interrupted_at is None:
        _interrupted_at = time.monotonic()


def grace(timeout: float) -> float:
    """TIMEOUT, or what is left of the stop budget after a signal (at least a moment for a clean exit)."""
    if _interrupted_at is None:
        return timeout
    return max(0.3, min(timeout, STOP_WITHIN_S - (time.monotonic() - _interrupted_at)))


def free_port(start: int | None = None) -> int:
    """A TCP port nobody listens on (the kernel's pick)."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port: int = s.getsockname()[1]
        return port


def http_ok(url: str, timeout: float = 2.0) -> bool:
    try:
        with urllib.request.urlopen(url, timeout=timeout) as r:
            return bool(r.status == 200)
    except Exception:
        return False


def wait_http(url: str, seconds: float, proc: subprocess.Popen[bytes] | None = None) -> bool:
    """Waits until URL answers 200; False after SECONDS or when PROC has exited."""
    end = time.monotonic() + seconds
    while time.monotonic() < end:
        if http_ok(url):
            return True
        if proc is not None and proc.poll() is not None:
            return False
        time.sleep(0.2)
    return False


@dataclass
class Running:
    """A process the harness started: its Popen, log file and what it is."""
    name: str
    popen: subprocess.Popen[bytes]
    log: Path
    port: int | None = None
    exit_code: int | str | None = None
    exit_ms: int | None = None
    _log_fh: IO[bytes] | None = None
    host: str = "127.0.0.1"   # where its HTTP port is reached (a member in a network namespace: its address there)

    @property
    def pid(self) -> int:
        return self.popen.pid

    @property
    def url(self) -> str:
        return f"http://{self.host}:{self.port}"

    def alive(self) -> bool:
        return self.popen.poll() is None

    def say(self, line: str) -> None:
        """Writes LINE to the process's stdin (started with stdin=True): how the harness tells a process it
        started what it did meanwhile, with no file between them. A process already gone misses the line; its
        exit code tells the rest."""
        if self.popen.stdin is None:
            raise ValueError(f"{self.name} was started without a stdin to write to")
        try:
            self.popen.stdin.write(line.encode() + b"\n")
            self.popen.stdin.flush()
        except (BrokenPipeError, ValueError):
            pass

    def tree(self) -> list[psutil.Process]:
        return tree_of(self.pid)

    def stop(self, timeout: float = 15.0) -> int | str:
        """SIGTERM (the variant drains), SIGKILL of the whole tree after TIMEOUT seconds.
        Sets exit_code (an int, or 'killed') and exit_ms."""
        t0 = time.monotonic()
        members = self.tree()
        if self.alive():
            try:
                self.popen.send_signal(signal.SIGTERM)
            except ProcessLookupError:
                pass
            try:
                self.popen.wait(grace(timeout))
                self.exit_code = self.popen.returncode
            except subprocess.TimeoutExpired:
                self.exit_code = "killed"
        else:
            self.exit_code = self.popen.returncode
        kill_all(members + self.tree())
        try:
            os.killpg(self.pid, signal.SIGKILL)   # anything left in its session
        except (ProcessLookupError, PermissionError):
            pass
        if self.popen.poll() is None:
            self.popen.wait(5)
        if self.popen.stdin is not None:
            try:
                self.popen.stdin.close()
            except BrokenPipeError:
                pass
        self.exit_ms = int((time.monotonic() - t0) * 1000)
        if self._log_fh:
            self._log_fh.close()
            self._log_fh = None
        return self.exit_code


def tree_of(pid: int) -> list[psutil.Process]:
    try:
        p = psutil.Process(pid)
        procs: list[psutil.Process] = [p, *p.children(recursive=True)]
        return procs
    except psutil.NoSuchProcess:
        return []


def kill_all(procs: list[psutil.Process]) -> None:
    for p in procs:
        try:
            p.kill()
        except psutil.NoSuchProcess:
            pass
    psutil.wait_procs(procs, timeout=5)


def start(name: str, argv: list[str], log: Path, env: Mapping[str, object] | None = None, cwd: Path | None = None,
          port: int | None = None, append: bool = False, stdin: bool = False) -> Running:
    """Starts ARGV in the background, in a session of its own, output in LOG; with STDIN its stdin is a pipe
    that Running.say writes to (otherwise empty)."""
    log.parent.mkdir(parents=True, exist_ok=True)
    fh = open(log, "ab" if append else "wb")
    full_env = dict(os.environ)
    full_env.update({k: str(v) for k, v in (env or {}).items()})
    popen = subprocess.Popen(argv, stdout=fh, stderr=subprocess.STDOUT, stdin=subprocess.PIPE if stdin else subprocess.DEVNULL,
                             env=full_env, cwd=cwd, start_new_session=True)
    return Running(name=name, popen=popen, log=log, port=port, _log_fh=fh)


class NotHealthy(Exception):
    pass


def start_variant(ctx: Context, variant: Variant, settings: Mapping[str, object], log: Path, port: int | None = None,
                  health_timeout: float = 90.0, append: bool = False) -> Running:
    """Starts VARIANT with SETTINGS (+PORT) in its environment and waits until /health answers 200."""
    variant = variant.for_settings(settings)   # the build that SETTINGS pick (STACK=pekko: the Pekko jar)
    port = port or free_port()
    env = {k: str(v) for k, v in settings.items()}
    env["PORT"] = str(port)
    r = start(variant.name, ctx.placed("variant", variant.command(ctx)), log, env=env, cwd=variant.home(ctx), port=port,
              append=append)
    try:
        healthy = wait_http(f"{r.url}/health", health_timeout, r.popen)
    except BaseException:   # Ctrl-C or SIGTERM while it starts: the caller has no handle on it yet
        r.stop(5)
        raise
    if not healthy:
        r.stop(5)
        tail = "\n".join(log.read_text(errors="replace").splitlines()[-20:])
        raise NotHealthy(f"{variant.name} was not healthy within {health_timeout:.0f} s (log: {log})\n{tail}")
    return r


# --- sampling -----------------------------------------------------------------

@dataclass
class Group:
    """A named group of processes sampled together: a root pid and its descendants."""
    name: str
    pid: int
    samples: list[dict[str, Any]] = field(default_factory=list)
    more: tuple[int, ...] = ()          # further root pids sampled as the same group (a variant's cluster members)
    _procs: dict[int, psutil.Process] = field(default_factory=dict)
    _jit: int | None = None       # the JIT threads' CPU ticks at the previous sample
    _jit_ms: int | None = None


JIT_THREADS = ("C1 CompilerThre", "C2 CompilerThre")   # HotSpot's JIT compiler threads (comm is cut at 15 chars)
CLOCK_TICKS = os.sysconf("SC_CLK_TCK") if hasattr(os, "sysconf") else 100


def jit_ticks(pid: int) -> int:
    """CPU time (clock ticks, user + system) the JIT compiler threads of process PID have used so far: a JVM
    still compiling in the measured window spends part of the cores on warming up, not on orders."""
    return jit_threads(pid)[1]


def jit_threads(pid: int) -> tuple[int, int]:
    """(how many JIT compiler threads process PID has, their CPU ticks so far); (0, 0) for a process that is
    not a HotSpot JVM or is gone."""
    count = total = 0
    try:
        tids = os.listdir(f"/proc/{pid}/task")
    except OSError:
        return 0, 0
    for tid in tids:
        try:
            with open(f"/proc/{pid}/task/{tid}/stat") as f:
                stat = f.read()
        except OSError:
            continue
        comm = stat[stat.index("(") + 1:stat.rindex(")")]
        if comm.startswith(JIT_THREADS):
            fields = stat[stat.rindex(")") + 2:].split()
            count += 1
            total += int(fields[11]) + int(fields[12])      # utime, stime
    return count, total


def connections_to(roots: Iterable[int], ports: Iterable[int | str | None]) -> int:
    """The established TCP connections of the process trees of ROOTS to any of PORTS (on this machine): a
    variant's open database connections, counted from the kernel, not from its settings."""
    wanted = {int(x) for x in ports if x}
    n = 0
    for p in [q for root in roots for q in tree_of(root)]:
        try:
            n += sum(1 for c in p.net_connections(kind="tcp")
                     if c.raddr and c.raddr.port in wanted and c.status == psutil.CONN_ESTABLISHED)
        except (psutil.NoSuchProcess, psutil.AccessDenied):
            continue
    return n


#: the samples of the whole machine beside the groups', under this name
MACHINE = "machine"
def stolen_ticks() -> int:
    """Clock ticks of every CPU the hypervisor gave to others so far (/proc/stat's steal)."""
    with open("/proc/stat") as f:
        fields = f.readline().split()
    return int(fields[8]) if len(fields) > 8 else 0


class Sampler:
    """Every INTERVAL seconds: CPU % (100 = one core), RSS MB and threads of each group's tree; and, with
    add_machine, what every other process on the machine took and what the hypervisor stole.

    Others' CPU is counted per process, as the groups' is (the system-wide tick counts of /proc/stat miss part
    of a light load's short bursts: 13.9 % busy against 15.2 % in the parties' own times, java-virtual at
    300/s); a process that lives less than a sample interval is missed."""

    def __init__(self, interval: float = 1.0):
        self.interval = interval
        self.groups: dict[str, Group] = {}
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        self.machine: list[dict[str, Any]] | None = None
        self._others: dict[int, float] = {}        # pid: CPU seconds at the previous sample
        self._previous: tuple[int, int] | None = None    # (stolen ticks, at ms)

    def add_machine(self) -> None:
        self.machine = []

    def _sample_machine(self, now_ms: int) -> None:
        if self.machine is None:
            return
        parties = {pid for g in self.groups.values() for pid in g._procs} | {os.getpid()}
        seen: dict[int, float] = {}
        took = 0.0
        for p in psutil.process_iter():
            if p.pid in parties:
                continue
            try:
                t = p.cpu_times()
                seconds = t.user + t.system
            except (psutil.NoSuchProcess, psutil.AccessDenied, psutil.ZombieProcess):
                continue
            seen[p.pid] = seconds
            took += seconds - self._others.get(p.pid, seconds if self._previous is None else 0.0)
        try:
            stolen = stolen_ticks()
        except OSError:
            stolen = 0
        if self._previous is not None and now_ms > self._previous[1]:
            ms = now_ms - self._previous[1]
            self.machine.append({"t": now_ms, "cpuPercent": round(max(0.0, took) * 100_000 / ms, 1),
                                 "stealPercent": round((stolen - self._previous[0]) / CLOCK_TICKS * 100_000 / ms, 1)})
        self._others, self._previous = seen, (stolen, now_ms)

    def add(self, name: str, pid: int | None, *more: int) -> None:
        if pid:
            self.groups[name] = Group(name, pid, more=tuple(more))

    def _sample(self, g: Group, now_ms: int) -> None:
        cpu = rss = threads = 0.0
        jit = 0
        root_cpu = 0.0     # the root processes' own share: node-engine's HTTP parent without its engine children
        roots = (g.pid, *g.more)
        n = 0
        seen: dict[int, psutil.Process] = {}
        for p in [q for root in roots for q in tree_of(root)]:
            proc = g._procs.get(p.pid) or p
            try:
                with proc.oneshot():
                    c = proc.cpu_percent(None)   # since this process's previous sample
                    rss += proc.memory_info().rss
                    threads += proc.num_threads()
                cpu += c
                jit += jit_ticks(p.pid)
                if p.pid in roots:
                    root_cpu += c
                n += 1
                seen[p.pid] = proc
            except (psutil.NoSuchProcess, psutil.AccessDenied):
                continue
        first = not g._procs
        g._procs = seen
        jit_percent = None
        if g._jit is not None and g._jit_ms is not None and now_ms > g._jit_ms:
            jit_percent = max(0.0, (jit - g._jit) / CLOCK_TICKS * 100_000 / (now_ms - g._jit_ms))
        g._jit, g._jit_ms = jit, now_ms
        if not first:
            g.samples.append({"t": now_ms, "cpuPercent": round(cpu, 1), "rootCpuPercent": round(root_cpu, 1),
                              "jitCpuPercent": round(jit_percent, 1) if jit_percent is not None else None,
                              "rssMb": round(rss / 1048576, 1),
                              "threads": int(threads), "processes": n})

    def _run(self) -> None:
        while not self._stop.is_set():
            now = int(time.time() * 1000)
            for g in list(self.groups.values()):
                self._sample(g, now)
            self._sample_machine(now)
            self._stop.wait(self.interval)

    def start(self) -> Sampler:
        self._thread = threading.Thread(target=self._run, name="sampler", daemon=True)
        self._thread.start()
        return self

    def stop(self) -> dict[str, list[dict[str, Any]]]:
        self._stop.set()
        if self._thread:
            self._thread.join(5)
        out = {name: g.samples for name, g in self.groups.items()}
        if self.machine is not None:
            out[MACHINE] = self.machine
        return out


def summarize_machine(samples: list[dict[str, Any]], start_ms: int | None = None,
                      end_ms: int | None = None) -> dict[str, Any] | None:
    """What processes other than the measured parties and the harness took over [start, end] (100 = one core:
    whatever else ran), and what the hypervisor stole. A busy neighbour costs the measured
    parties more than its own share: caches, and a host's hyperthreads, are shared (docs/layout.md)."""
    inside = [s for s in samples if (start_ms is None or s["t"] >= start_ms) and (end_ms is None or s["t"] <= end_ms + 1000)]
    if not inside:
        return None
    return {"othersPercent": round(sum(s["cpuPercent"] for s in inside) / len(inside), 1),
            "stealPercent": round(sum(s["stealPercent"] for s in inside) / len(inside), 1), "samples": len(inside)}


def summarize(samples: list[dict[str, Any]], start_ms: int | None = None, end_ms: int | None = None) -> dict[str, Any]:
    """Mean CPU %, peak RSS and threads of the samples inside [start, end] (all of them when none is)."""
    inside = [s for s in samples if (start_ms is None or s["t"] >= start_ms) and (end_ms is None or s["t"] <= end_ms + 1000)]
    inside = inside or samples
    if not inside:
        return {"cpuPercent": None, "rootCpuPercent": None, "jitCpuPercent": None, "rssMaxMb": None, "threadsMax": None, "processes": None, "samples": 0}
    roots = [s["rootCpuPercent"] for s in inside if "rootCpuPercent" in s]
    jits = [s["jitCpuPercent"] for s in inside if s.get("jitCpuPercent") is not None]
    return {
        "cpuPercent": round(sum(s["cpuPercent"] for s in inside) / len(inside), 1),
        "rootCpuPercent": round(sum(roots) / len(roots), 1) if roots else None,
        "jitCpuPercent": round(sum(jits) / len(jits), 1) if jits else None,
        "rssMaxMb": max(s["rssMb"] for s in inside),
        "threadsMax": max(s["threads"] for s in inside),
        "processes": max(s["processes"] for s in inside),
        "samples": len(inside),
    }
