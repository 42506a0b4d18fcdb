"""Building what the harness runs: Maven's modules and the Node.js variants' packages.

One rule decides when to build: an output is stale when it is missing or older than a file of its inputs
(files, folders, globs relative to the repository root). The variants say their build in variant.yaml; the
load client and engine-model (the replay and its JMH benchmark) are said here.
"""
from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path
from typing import IO

from . import tools
from .context import Context

MVN = ["-B", "-q", "-Dstyle.color=never"]
#: the shared Java modules every Java module builds on, and the size rules every build checks
SHARED_INPUTS = ["engine-*/src/main", "engine-*/pom.xml", "pom.xml", "scripts/checkstyle*.xml"]


class BuildError(Exception):
    pass


def say(msg: str) -> None:
    print(f"tradebench: {msg}", file=sys.stderr, flush=True)


def stale(root: Path, outputs: list[str], inputs: list[str]) -> bool:
    """An output is missing, or a file of the INPUTS (globs under ROOT) changed after the oldest output."""
    paths = [root / o for o in outputs]
    if not all(p.exists() for p in paths):
        return True
    t = min(p.stat().st_mtime for p in paths)
    for pattern in inputs:
        for p in sorted(root.glob(pattern)):
            if p.is_file():
                if p.stat().st_mtime > t:
                    return True
                continue
            for dirpath, _dirs, files in os.walk(p):
                if any(os.stat(os.path.join(dirpath, f)).st_mtime > t for f in files):
                    return True
    return False


def command(ctx: Context, argv: list[str], cwd: Path | None = None, log: IO[bytes] | None = None) -> int:
    """ARGV with the JDK first on PATH; `mvn` is Maven, `npm` the one beside Node.js (each installed when missing)."""
    if argv and argv[0] == "mvn":
        argv = [tools.maven(), *argv[1:]]
    elif argv and argv[0] == "npm":
        argv = [tools.npm(ctx), *argv[1:]]
    return subprocess.run(argv, cwd=cwd or ctx.root, env=ctx.java_env(), stdout=log or sys.stderr,
                          stderr=subprocess.STDOUT if log else None).returncode


def mvn(ctx: Context, *args: str, log: IO[bytes] | None = None) -> int:
    return command(ctx, ["mvn", *MVN, *args], log=log)


def ensure(ctx: Context, name: str, argv: list[str], outputs: list[str], inputs: list[str], cwd: Path | None = None,
           log: IO[bytes] | None = None, root: Path | None = None) -> None:
    """Runs ARGV when the OUTPUTS are stale; raises BuildError when it fails or leaves an output missing.
    OUTPUTS and INPUTS are relative to ROOT (default: the repository's; a baseline's worktree)."""
    root = root or ctx.root
    if not stale(root, outputs, inputs):
        return
    say(f"building {name}: {' '.join(argv)}")
    try:
        rc = command(ctx, argv, cwd, log)
    except tools.ToolError as e:
        raise BuildError(f"the build of {name} failed: {e}") from e
    missing = [o for o in outputs if not (root / o).exists()]
    if rc != 0 or missing:
        raise BuildError(f"the build of {name} failed (exit {rc}{', missing ' + ', '.join(missing) if missing else ''})")


def module(ctx: Context, name: str, log: IO[bytes] | None = None) -> Path:
    """A Maven module's runnable jar (NAME/target/NAME.jar), built with what it needs when stale."""
    jar = f"{name}/target/{name}.jar"
    ensure(ctx, name, ["mvn", *MVN, "-DskipTests", "-pl", name, "-am", "package"], [jar],
           [f"{name}/src/main", f"{name}/pom.xml", *SHARED_INPUTS], log=log)
    return ctx.root / jar


def loadclient(ctx: Context) -> Path:
    return module(ctx, "loadclient")


def model_classpath(ctx: Context, bench: bool = False) -> str:
    """engine-model alone (the market, the replay; BENCH: its JMH benchmark in src/test too), built when stale;
    its class path."""
    t = "engine-model/target"
    outputs = [f"{t}/engine-model.jar", f"{t}/classpath.txt"]
    inputs = ["engine-model/src/main", "engine-model/pom.xml", "pom.xml"]
    if bench:
        outputs += [f"{t}/test-classpath.txt", f"{t}/test-classes/META-INF/BenchmarkList"]
        inputs += ["engine-model/src/test"]
    ensure(ctx, "engine-model", ["mvn", *MVN, "-DskipTests", "-pl", "engine-model", "package"], outputs, inputs)
    target = ctx.root / t
    if bench:
        return f"{target}/test-classes:{target}/classes:{(target / 'test-classpath.txt').read_text().strip()}"
    return f"{target}/engine-model.jar:{(target / 'classpath.txt').read_text().strip()}"
