"""Where things are: the repository, the state folder, the JDK, the database.

The launcher (./tradebench, scripts/lib/bootstrap.sh) finds Java and Node and passes
them in the environment (JAVA_HOME, TB_NODE); this module reads them once. The JVM flags
every Java process of the harness gets are said here, once (JVM_OPTS).
"""
from __future__ import annotations

import os
import re
import shlex
import shutil
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path

from .layout import Layout

#: the flags of every JVM the harness starts (variants, load client, replay, JMH)
JVM_OPTS = ["-XX:+UseParallelGC", "-Xss512k"]
#: the heap policy of every variant's JVM (and its framework floor's), the same for all: a fixed heap of 512 MB,
#: reserved and committed up front (-Xms = -Xmx), so that a row's RSS is what its design needs beside one heap
#: of the same size, not how far ParallelGC chose to grow the heap (toward a quarter of the machine's memory:
#: 1.5-2.5 GB at saturation). 512 MB is over six times the largest live heap after a collection measured
#: at saturation (78 MB; docs/contract-running.md, "Memory"). TB_JAVA_OPTS comes after it and may override it.
VARIANT_HEAP = ["-Xms512m", "-Xmx512m"]
#: the flags of every Node process started from a manifest: a line per collection to its log, from which the
#: heap after a full collection is read (measure/memory.py)
NODE_OPTS = ["--trace-gc"]
#: JDK 24+ warns about sun.misc.Unsafe (Akka, Maven's Guava): harmless, silenced
UNSAFE_OPT = "--sun-misc-unsafe-memory-access=allow"


def java_major(java_home: Path | None) -> int:
    """The JDK's major version (its release file), 0 when unknown."""
    try:
        text = (java_home / "release").read_text() if java_home else ""
    except OSError:
        return 0
    m = re.search(r'^JAVA_VERSION="(\d+)', text, re.M)
    return int(m.group(1)) if m else 0


@dataclass
class Context:
    root: Path
    state: Path
    java_home: Path | None
    jvm_opts: list[str]
    loadclient_opts: list[str]
    db_port: int
    db_dir: Path
    env: dict[str, str] = field(default_factory=dict)
    #: where a measurement's processes run (run/layout.py); None: wherever the kernel puts them
    layout: Layout | None = None

    @property
    def laid_out(self) -> Layout:
        """The layout the processes run in, as recorded: the context's, else every process on every CPU."""
        return self.layout or Layout("shared")

    def placed(self, party: str, argv: list[str]) -> list[str]:
        """ARGV started on PARTY's CPUs (variant, database or load) when a layout pins them."""
        return (self.layout.taskset(party) if self.layout else []) + argv

    @property
    def java(self) -> str:
        if self.java_home:
            return str(self.java_home / "bin" / "java")
        return shutil.which("java") or "java"

    @property
    def variant_jvm_opts(self) -> list[str]:
        """A variant's (and its floor's) JVM flags: the harness's, the heap policy, then TB_JAVA_OPTS."""
        given = shlex.split(self.env.get("TB_JAVA_OPTS", ""))
        base = self.jvm_opts[:len(self.jvm_opts) - len(given)] if given else self.jvm_opts
        return [*base, *VARIANT_HEAP, *given]

    @property
    def results(self) -> Path:
        return Path(self.env.get("TB_RESULTS") or self.root / "results")

    @property
    def logs(self) -> Path:
        p = self.state / "logs"
        p.mkdir(parents=True, exist_ok=True)
        return p

    @property
    def node(self) -> str:
        return self.env.get("TB_NODE") or shutil.which("node") or "node"

    def java_env(self) -> dict[str, str]:
        """The environment of a Maven or Java child: this JDK first on PATH (MAVEN_OPTS silenced on JDK 24+)."""
        env = dict(os.environ)
        if self.java_home:
            env["JAVA_HOME"] = str(self.java_home)
            env["PATH"] = f"{self.java_home / 'bin'}{os.pathsep}{env.get('PATH', '')}"
        if java_major(self.java_home) >= 24 and UNSAFE_OPT not in env.get("MAVEN_OPTS", ""):
            env["MAVEN_OPTS"] = f"{env.get('MAVEN_OPTS', '')} {UNSAFE_OPT}".strip()
        return env

    def loadclient_jar(self) -> Path:
        return self.root / "loadclient" / "target" / "loadclient.jar"


def find_java_home(env: Mapping[str, str]) -> Path | None:
    """JAVA_HOME as the launcher exported it; run without the launcher (pytest alone), the newest JDK 21+
    of /usr/lib/jvm, as the launcher would choose."""
    if env.get("JAVA_HOME") and java_major(Path(env["JAVA_HOME"])) >= 21:
        return Path(env["JAVA_HOME"])
    jdks = [p for p in Path("/usr/lib/jvm").glob("*") if (p / "bin" / "javac").exists() and java_major(p) >= 21]
    if jdks:
        return max(jdks, key=java_major)
    return Path(env["JAVA_HOME"]) if env.get("JAVA_HOME") else None


def from_env(env: Mapping[str, str] | None = None) -> Context:
    env = dict(os.environ if env is None else env)
    root = Path(env.get("TB_ROOT") or Path(__file__).resolve().parents[3])
    state = Path(env.get("TB_STATE") or root / ".tradebench")
    java_home = find_java_home(env)
    jvm = ([UNSAFE_OPT] if java_major(java_home) >= 24 else []) + JVM_OPTS
    return Context(
        root=root,
        state=state,
        java_home=java_home,
        jvm_opts=jvm + shlex.split(env.get("TB_JAVA_OPTS", "")),
        loadclient_opts=jvm + shlex.split(env.get("TB_LOADCLIENT_OPTS", "")),
        db_port=int(env.get("TB_DB_PORT") or 3307),
        db_dir=Path(env.get("TB_DB_DIR") or state / "db"),
        env=env,
    )
