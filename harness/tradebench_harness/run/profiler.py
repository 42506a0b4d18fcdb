"""The CPU profilers the harness runs, found or installed, and what they write turned into collapsed stacks.

  JVM   async-profiler (Maven Central's tools.profiler:async-profiler, its native library for linux-x64 inside
        the jar), loaded into the running JVM with `jcmd PID JVMTI.agent_load`, recording JFR; its converter
        (tools.profiler:jfr-converter) cuts the recording to a time range and writes collapsed stacks and the
        interactive flame graph.
  Node  `--cpu-prof` through NODE_OPTIONS, which every child process (fork) and worker thread inherits: each
        writes its .cpuprofile when it exits; the samples are cut to a time range by their timestamps here.

Both kinds of profile end as collapsed stacks (`frame;frame;...;leaf COUNT`, root first), the format every
flame graph tool reads, and the converter draws the flame graph of either from them.
"""
from __future__ import annotations

import json
import os
import re
import subprocess
import zipfile
from collections import Counter
from collections.abc import Callable
from pathlib import Path
from typing import Any

from . import build
from .context import Context

ASYNC_PROFILER_VERSION = "4.2"
#: the sampling interval of both profilers, µs of CPU time (JVM) or of the sampler's clock (Node)
INTERVAL_US = 1000
#: async-profiler's event: CPU time, sampled with perf events where the kernel allows them; where it does not
#: (perf_event_paranoid, seccomp), async-profiler falls back to a timer of its own (its recording says which)
JVM_EVENT = "cpu"


class ProfilerError(Exception):
    pass


def async_profiler(ctx: Context) -> tuple[Path, Path]:
    """(libasyncProfiler.so for this machine, jfr-converter.jar) in tools/async-profiler-VERSION, fetched with
    Maven from Maven Central when missing."""
    home = ctx.root / "tools" / f"async-profiler-{ASYNC_PROFILER_VERSION}"
    lib, conv = home / "libasyncProfiler.so", home / "jfr-converter.jar"
    if lib.exists() and conv.exists():
        return lib, conv
    home.mkdir(parents=True, exist_ok=True)
    for artifact in ("async-profiler", "jfr-converter"):
        # run where there is no pom.xml: at the repository root dependency:copy would run for every module
        rc = build.command(ctx, ["mvn", *build.MVN, "dependency:copy",
                                 f"-Dartifact=tools.profiler:{artifact}:{ASYNC_PROFILER_VERSION}",
                                 f"-DoutputDirectory={home}", "-Dmdep.stripVersion=true"], cwd=home)
        if rc != 0 or not (home / f"{artifact}.jar").exists():
            raise ProfilerError(f"could not fetch tools.profiler:{artifact}:{ASYNC_PROFILER_VERSION} with Maven")
    arch = {"x86_64": "linux-x64", "aarch64": "linux-arm64"}.get(os.uname().machine)
    if arch is None:
        raise ProfilerError(f"async-profiler's jar has no library for {os.uname().machine}")
    with zipfile.ZipFile(home / "async-profiler.jar") as z:
        lib.write_bytes(z.read(f"{arch}/libasyncProfiler.so"))
    return lib, conv


def jcmd(ctx: Context) -> str:
    return str(ctx.java_home / "bin" / "jcmd") if ctx.java_home else "jcmd"


def jvm_env() -> dict[str, str]:
    """What a JVM to be profiled gets at its start: without DebugNonSafepoints, a profiler attached later
    sees inlined methods only at safepoints, and the small methods of the hot path vanish from the stacks."""
    return {"JAVA_TOOL_OPTIONS": "-XX:+UnlockDiagnosticVMOptions -XX:+DebugNonSafepoints"}


def node_env(folder: Path) -> dict[str, str]:
    """NODE_OPTIONS for a Node process to be profiled: every process it forks and every worker thread it
    starts inherits them and writes its own profile into FOLDER when it exits."""
    folder.mkdir(parents=True, exist_ok=True)
    return {"NODE_OPTIONS": f"--cpu-prof --cpu-prof-dir={folder} --cpu-prof-interval={INTERVAL_US}"}


def _agent(ctx: Context, lib: Path, pid: int, command: str) -> str:
    # jcmd reads an unquoted "a=b" as a named argument of its own: the agent's options go in quotes
    r = subprocess.run([jcmd(ctx), str(pid), "JVMTI.agent_load", str(lib), f'"{command}"'], capture_output=True,
                       text=True, timeout=60, env=ctx.java_env())
    out = (r.stdout + r.stderr).strip()
    if r.returncode != 0 or "[ERROR]" in out:
        raise ProfilerError(f"async-profiler {command.split(',')[0]} in JVM {pid}: {out[-300:]}")
    return out


def jvm_start(ctx: Context, pid: int, jfr: Path) -> None:
    """async-profiler sampling CPU in JVM PID, every thread, into the JFR recording JFR (each sample with its
    time, so that a window can be cut from it)."""
    lib, _ = async_profiler(ctx)
    jfr.parent.mkdir(parents=True, exist_ok=True)
    _agent(ctx, lib, pid, f"start,event={JVM_EVENT},interval={INTERVAL_US}us,file={jfr}")


def jvm_stop(ctx: Context, pid: int) -> None:
    lib, _ = async_profiler(ctx)
    _agent(ctx, lib, pid, "stop")


def jfr_engine(ctx: Context, jfr: Path) -> str | None:
    """How async-profiler really sampled (its recording's `engine` setting): `perf_events`, or the timer it
    fell back to where perf events are not allowed."""
    tool = str(ctx.java_home / "bin" / "jfr") if ctx.java_home else "jfr"
    try:
        r = subprocess.run([tool, "print", "--events", "jdk.ActiveSetting", str(jfr)], capture_output=True, text=True,
                           timeout=60)
    except (OSError, subprocess.TimeoutExpired):
        return None
    m = re.search(r'name = "engine"\s*\n\s*value = "([^"]+)"', r.stdout)
    return m.group(1) if m else None


def jfr_to(ctx: Context, jfr: list[Path], out: Path, start_ms: int, end_ms: int, title: str = "") -> None:
    """The samples of the JFR recordings between START_MS and END_MS (ms since the epoch) as OUT: collapsed
    stacks or a flame graph, by OUT's suffix (.collapsed, .html)."""
    _, conv = async_profiler(ctx)
    argv = [ctx.java, "-jar", str(conv), "--cpu", "--from", str(start_ms), "--to", str(end_ms)]
    if title:
        argv += ["--title", title]
    _convert(ctx, argv + [*map(str, jfr), str(out)], out)


def collapsed_to_html(ctx: Context, collapsed: Path, html: Path, title: str = "") -> None:
    """The interactive flame graph of COLLAPSED, drawn by async-profiler's converter."""
    _, conv = async_profiler(ctx)
    _convert(ctx, [ctx.java, "-jar", str(conv), *(["--title", title] if title else []), str(collapsed), str(html)],
             html)


def _convert(ctx: Context, argv: list[str], out: Path) -> None:
    r = subprocess.run(argv, capture_output=True, text=True, timeout=300, env=ctx.java_env())
    if r.returncode != 0 or not out.exists():
        raise ProfilerError(f"jfr-converter failed ({r.returncode}): {(r.stdout + r.stderr)[-300:]}")


# --- Node's .cpuprofile --------------------------------------------------------------------------------

_PROFILE_NAME = re.compile(r"CPU\.\d+\.\d+\.(\d+)\.(\d+)\.\d+\.cpuprofile$")
#: V8's own pseudo-frames: (idle) is a thread waiting, not CPU; (root) is the tree's top, no frame of code
IDLE, ROOT = "(idle)", "(root)"


def short_url(url: str) -> str:
    """A script's URL as a frame shows it: node's own modules as they are (node:internal/...), a package's
    file from its package on (express/lib/router.js), the variant's files from its folder on."""
    if not url:
        return ""
    url = url.removeprefix("file://")
    if "/node_modules/" in url:
        return url.rsplit("/node_modules/", 1)[1]
    m = re.search(r"/([^/]+/src/.*)$", url)
    return m.group(1) if m else url


def frame_name(call_frame: dict[str, Any]) -> str:
    name = call_frame.get("functionName") or "(anonymous)"
    url = short_url(call_frame.get("url", ""))
    return f"{name} {url}:{call_frame.get('lineNumber', -1) + 1}" if url else name


def thread_of(path: Path, prof: dict[str, Any], root_pid: int | None) -> str:
    """The flame graph's bottom frame of a profile: which process or thread of the design it is, a worker
    thread named by its script (`[worker thread: engine-child.js]`) where its profile shows it."""
    m = _PROFILE_NAME.search(path.name)
    if not m:
        return "[node]"
    pid, tid = int(m.group(1)), int(m.group(2))
    if tid:
        script = entry_script(prof)
        return f"[worker thread: {script}]" if script else "[worker thread]"
    return "[main process]" if pid == root_pid else "[child process]"


def entry_script(prof: dict[str, Any]) -> str | None:
    """The file a thread started with: of the module bodies its profile caught being evaluated (a CommonJS
    module's wrapper: no name, line 0), the one nearest the root; the others are what it required. None when
    the profile caught none (a module's evaluation takes milliseconds, the sampler's interval one)."""
    parent = {c: n["id"] for n in prof["nodes"] for c in n.get("children", ())}

    def depth(nid: int) -> int:
        d = 0
        while nid in parent:
            nid, d = parent[nid], d + 1
        return d
    bodies = [(depth(n["id"]), n["callFrame"]["url"]) for n in prof["nodes"]
              if not n["callFrame"].get("functionName") and n["callFrame"].get("lineNumber") == 0
              and n["callFrame"].get("url", "").startswith("file://")]
    return min(bodies)[1].rsplit("/", 1)[-1] if bodies else None


def cpuprofile_stacks(path: Path, start_ms: float, end_ms: float, epoch_minus_monotonic_ms: float,
                      root_pid: int | None = None) -> Counter[str]:
    """The non-idle samples of a .cpuprofile between START_MS and END_MS (ms since the epoch), as collapsed
    stacks with their sample counts. V8 stamps its samples with the monotonic clock (µs), the clock of
    Python's time.monotonic(): EPOCH_MINUS_MONOTONIC_MS maps one to the other. A sample counts as one
    interval of CPU: a thread waiting for a core is sampled when it runs again, not while it waits."""
    prof = json.loads(path.read_text())
    nodes = {n["id"]: n for n in prof["nodes"]}
    parent = {c: n["id"] for n in prof["nodes"] for c in n.get("children", ())}
    stacks: dict[int, str | None] = {}

    def stack(nid: int) -> str | None:
        if nid not in stacks:
            names: list[str] = []
            k: int | None = nid
            while k is not None:
                f = nodes[k]["callFrame"]
                if f.get("functionName") == IDLE:
                    stacks[nid] = None
                    return None
                if f.get("functionName") != ROOT:
                    names.append(frame_name(f).replace(";", ","))
                k = parent.get(k)
            stacks[nid] = ";".join([thread, *reversed(names)])
        return stacks[nid]

    thread = thread_of(path, prof, root_pid)
    out: Counter[str] = Counter()
    t_us = prof["startTime"]
    lo, hi = (start_ms - epoch_minus_monotonic_ms) * 1000, (end_ms - epoch_minus_monotonic_ms) * 1000
    for nid, delta in zip(prof["samples"], prof["timeDeltas"], strict=False):
        t_us += delta
        if lo <= t_us < hi:
            s = stack(nid)
            if s:
                out[s] += 1
    return out


def node_profiles(folder: Path) -> list[Path]:
    return sorted(folder.glob("*.cpuprofile"))


# --- collapsed stacks ----------------------------------------------------------------------------------

def collapsed_text(stacks: Counter[str]) -> str:
    return "".join(f"{s} {n}\n" for s, n in sorted(stacks.items()))


def flame_graph(ctx: Context, stacks: Counter[str], html: Path, row: str, say: Callable[[str], None] = lambda m: None) -> None:
    """The interactive flame graph of STACKS as HTML (async-profiler's converter)."""
    plain = html.with_suffix(".collapsed")
    plain.write_text(collapsed_text(stacks))
    try:
        collapsed_to_html(ctx, plain, html, title=f"{row}: CPU of the measured window "
                                                           f"({sum(stacks.values()):,} samples)")
    except ProfilerError as e:
        say(f"profile: no flame graph: {e}")
    finally:
        plain.unlink()
