"""The tools the harness runs, found on this machine or installed: from Debian's packages (Maven,
MariaDB, Chromium, iptables, ShellCheck, Go), from the Go module proxy into the git-ignored tools/ folder
(the Compose CLI, Toxiproxy, a newer Go toolchain), and npm.

Each function returns the tool's path, or raises ToolError saying what to install by hand.
"""
from __future__ import annotations

import json
import os
import platform
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

from .context import Context

COMPOSE_VERSION = "v2.29.7"                      # the pinned Compose release (the compose check)
COMPOSE_MODULE = "github.com/docker/compose/v2"
TOXIPROXY_VERSION = "v2.12.0"                    # the slow database's proxy
TOXIPROXY_MODULE = "github.com/Shopify/toxiproxy/v2"
GO_MIN = 22                                      # Go 1.22 or newer builds both modules
GO_TOOLCHAIN = "1.22.12"                         # fetched when the system's Go is older than GO_MIN


class ToolError(Exception):
    pass


def say(msg: str) -> None:
    print(f"tradebench: {msg}", file=sys.stderr, flush=True)


_apt_updated = False


def apt_install(*packages: str) -> bool:
    """Debian's PACKAGES, when this user may install them (root, or sudo without a password)."""
    global _apt_updated
    if not shutil.which("apt-get"):
        say(f"no apt-get on this machine: install {' '.join(packages)} with your package manager")
        return False
    sudo: list[str] = []
    if os.geteuid() != 0:
        if shutil.which("sudo") and subprocess.run(["sudo", "-n", "true"], capture_output=True).returncode == 0:
            sudo = ["sudo", "-n"]
        else:
            say(f"installing {' '.join(packages)} needs root: run 'sudo apt-get install {' '.join(packages)}'")
            return False
    say(f"installing {' '.join(packages)} from the system's packages (apt-get)")
    apt = [*sudo, "env", "DEBIAN_FRONTEND=noninteractive", "apt-get"]
    # its output on file descriptor 2: sys.stderr may be a stream without one (pytest's capture)
    if not _apt_updated:
        subprocess.run([*apt, "update", "-qq"], stdout=2)
        _apt_updated = True
    return subprocess.run([*apt, "install", "-y", "-qq", "--no-install-recommends", *packages],
                          stdout=2).returncode == 0


def which(*names: str, dirs: tuple[str, ...] = ()) -> str | None:
    """The first of NAMES on PATH, or in DIRS."""
    for n in names:
        found = shutil.which(n) or next((f"{d}/{n}" for d in dirs if os.access(f"{d}/{n}", os.X_OK)), None)
        if found:
            return found
    return None


def package(command: str, *packages: str, why: str) -> str:
    """COMMAND on PATH, installed from PACKAGES when missing."""
    found = which(command, dirs=("/usr/sbin", "/sbin"))
    if not found and apt_install(*packages):
        found = which(command, dirs=("/usr/sbin", "/sbin"))
    if not found:
        raise ToolError(f"{why} needs {command}: install it (apt-get install {' '.join(packages)})")
    return found


def maven() -> str:
    return package("mvn", "maven", why="building the Java modules")


def chromium() -> str:
    """Headless Chromium (the report test looks at report.html), with a font to draw it."""
    return package("chromium", "chromium", "fonts-dejavu-core", why="the report test")


def shellcheck() -> str:
    """The unit tier's linter of the launcher and the project's shell scripts."""
    return package("shellcheck", "shellcheck", why="the shell scripts' linter")


def iptables() -> str:
    """The cluster test cuts a member off with iptables inside a network namespace (netcut.py)."""
    return package("iptables", "iptables", why="the cluster test's partition scenario")


DB_DIRS = ("/usr/sbin", "/usr/local/sbin", "/usr/local/mysql/bin", "/usr/libexec")


def mariadb() -> tuple[str, str]:
    """(server, client) of MariaDB or MySQL; mariadb-server installed when there is none."""
    def found() -> tuple[str | None, str | None]:
        return which("mariadbd", "mysqld", dirs=DB_DIRS), which("mariadb", "mysql")
    server, client = found()
    if server and client:
        return server, client
    say("no MariaDB/MySQL server found on this machine")
    # policy-rc.d keeps the package from starting the system-wide service: the project runs its own
    policy = Path("/usr/sbin/policy-rc.d")
    created = os.geteuid() == 0 and not policy.exists()
    if created:
        policy.write_text("#!/bin/sh\nexit 101\n")
        policy.chmod(0o755)
    try:
        apt_install("mariadb-server", "mariadb-client")
    finally:
        if created:
            policy.unlink()
    server, client = found()
    if not (server and client):
        raise ToolError("no MariaDB/MySQL server: install one ('sudo apt-get install mariadb-server', or MySQL 8.x), "
                        "or point DB_HOST/DB_PORT/DB_USER/DB_PASSWORD at a server where schema.sql was applied")
    return server, client


def _go_minor(go: str) -> int:
    try:
        v = subprocess.run([go, "env", "GOVERSION"], capture_output=True, text=True, timeout=30).stdout
    except (OSError, subprocess.TimeoutExpired):
        return 0
    m = re.match(r"go1\.(\d+)", v.strip())
    return int(m.group(1)) if m else 0


def go(ctx: Context) -> str:
    """A Go of 1.GO_MIN or newer: the system's, else Debian's golang-go, else the toolchain
    golang.org/toolchain@GO_TOOLCHAIN from the Go module proxy (as `go` itself fetches one) into tools/."""
    local = ctx.root / "tools" / f"go-{GO_TOOLCHAIN}" / "bin" / "go"
    for g in (shutil.which("go"), "/usr/local/go/bin/go", "/usr/lib/go/bin/go", str(local)):
        if g and os.access(g, os.X_OK) and _go_minor(g) >= GO_MIN:
            return g
    if not os.access("/usr/bin/go", os.X_OK) and not apt_install("golang-go"):
        raise ToolError(f"Go 1.{GO_MIN}+ is needed to build the Go tools: install it")
    if _go_minor("/usr/bin/go") >= GO_MIN:
        return "/usr/bin/go"
    if platform.system() != "Linux" or platform.machine() != "x86_64":
        raise ToolError(f"Go 1.{GO_MIN}+ is needed (only the linux-amd64 toolchain is fetched): install it")
    mod = f"golang.org/toolchain@v0.0.1-go{GO_TOOLCHAIN}.linux-amd64"
    say(f"fetching the Go {GO_TOOLCHAIN} toolchain ({mod}) into tools/")
    with tempfile.TemporaryDirectory() as tmp:
        r = subprocess.run(["/usr/bin/go", "mod", "download", "-json", mod], cwd=tmp, capture_output=True, text=True,
                           env={**os.environ, "GOFLAGS": "-modcacherw", "GOMODCACHE": f"{tmp}/mod"})
        src = Path(json.loads(r.stdout or "{}").get("Dir", "/nonexistent"))
        if not (src / "bin" / "go").exists():
            raise ToolError(f"could not fetch {mod} from the Go module proxy: {r.stderr.strip()}")
        dest = local.parents[1]
        shutil.rmtree(dest, ignore_errors=True)
        shutil.copytree(src, dest)
    # a module keeps no file modes: the toolchain's programs are made executable again, as go does
    for p in [*(dest / "bin").iterdir(), *(dest / "pkg" / "tool").glob("*/*")]:
        p.chmod(0o755)
    if _go_minor(str(local)) < GO_MIN:
        raise ToolError(f"{local} does not run")
    return str(local)


def go_install(ctx: Context, package_path: str, version: str, dest: Path, ldflags: str = "") -> None:
    """`go install PACKAGE_PATH@VERSION`, its binary moved to DEST."""
    g = go(ctx)
    say(f"building {package_path}@{version} into {dest.relative_to(ctx.root)} (go install)")
    with tempfile.TemporaryDirectory() as tmp:
        argv = [g, "install", *(["-ldflags", ldflags] if ldflags else []), f"{package_path}@{version}"]
        r = subprocess.run(argv, env={**os.environ, "GOBIN": tmp, "GOFLAGS": "-buildvcs=false"}, stdout=2)
        built = Path(tmp) / package_path.rsplit("/", 1)[-1]
        if r.returncode != 0 or not built.exists():
            raise ToolError(f"go install {package_path}@{version} failed")
        dest.parent.mkdir(parents=True, exist_ok=True)
        shutil.move(str(built), dest)


def _compose_is(binary: str, version: str = "v2.") -> bool:
    try:
        out = subprocess.run([binary, "version"], capture_output=True, text=True, timeout=30).stdout
    except (OSError, subprocess.TimeoutExpired):
        return False
    return out.startswith(f"Docker Compose version {version}")


def compose(ctx: Context) -> str:
    """The Compose CLI the static check runs: TB_COMPOSE, else the pinned release built into tools/bin
    (it needs no Docker engine for `config`). Sets TB_COMPOSE for the harness's tests."""
    named = ctx.env.get("TB_COMPOSE")
    if named:
        if not _compose_is(named):
            raise ToolError(f"TB_COMPOSE={named} is not a Compose v2 CLI")
        return named
    local = ctx.root / "tools" / "bin" / "docker-compose"
    if not _compose_is(str(local), COMPOSE_VERSION):
        # Compose's release builds set their version at link time; without it, it says "dev"
        go_install(ctx, f"{COMPOSE_MODULE}/cmd", COMPOSE_VERSION, local,
                   ldflags=f"-X {COMPOSE_MODULE}/internal.Version={COMPOSE_VERSION}")
        if not _compose_is(str(local), COMPOSE_VERSION):
            raise ToolError(f"{local} does not say {COMPOSE_VERSION}")
    os.environ["TB_COMPOSE"] = ctx.env["TB_COMPOSE"] = str(local)
    return str(local)


def toxiproxy(ctx: Context) -> str:
    """toxiproxy-server: on PATH, else tools/toxiproxy-server, built there when missing."""
    found = shutil.which("toxiproxy-server")
    if found:
        return found
    local = ctx.root / "tools" / "toxiproxy-server"
    if not local.exists():
        go_install(ctx, f"{TOXIPROXY_MODULE}/cmd/server", TOXIPROXY_VERSION, local)
    return str(local)


def npm(ctx: Context) -> str:
    """npm: the one beside Node.js, else on PATH, else Debian's."""
    return shutil.which("npm", path=str(Path(ctx.node).parent)) or package("npm", "npm", why="a Node.js variant's packages")
