"""Where things are: the repository, the state folder, the JDK, the database.

The launcher (./tradebench, scripts/lib/15-harness.sh) finds Java, Node and the
database and passes them in the environment; this module reads them once.
"""
from __future__ import annotations

import os
import shlex
import shutil
from dataclasses import dataclass, field
from pathlib import Path


@dataclass
class Context:
    root: Path
    state: Path
    java_home: Path | None
    jvm_opts: list[str]
    loadclient_opts: list[str]
    db_port: int
    db_dir: Path
    launcher: Path
    env: dict = field(default_factory=dict)

    @property
    def java(self) -> str:
        if self.java_home:
            return str(self.java_home / "bin" / "java")
        return shutil.which("java") or "java"

    @property
    def results(self) -> Path:
        return Path(self.env.get("TB_RESULTS") or self.root / "results")

    @property
    def logs(self) -> Path:
        p = self.state / "logs"
        p.mkdir(parents=True, exist_ok=True)
        return p

    def loadclient_jar(self) -> Path:
        return self.root / "loadclient" / "target" / "loadclient.jar"


def from_env(env: dict | None = None) -> Context:
    env = dict(os.environ if env is None else env)
    root = Path(env.get("TB_ROOT") or Path(__file__).resolve().parents[2])
    state = Path(env.get("TB_STATE") or root / ".tradebench")
    java_home = Path(env["JAVA_HOME"]) if env.get("JAVA_HOME") else None
    jvm = shlex.split(env.get("TB_JVM_RUN_OPTS", "-XX:+UseParallelGC -Xss512k"))
    return Context(
        root=root,
        state=state,
        java_home=java_home,
        jvm_opts=jvm + shlex.split(env.get("TB_JAVA_OPTS", "")),
        loadclient_opts=jvm + shlex.split(env.get("TB_LOADCLIENT_OPTS", "")),
        db_port=int(env.get("TB_DB_PORT") or 3307),
        db_dir=Path(env.get("TB_DB_DIR") or state / "db"),
        launcher=root / "tradebench",
        env=env,
    )
