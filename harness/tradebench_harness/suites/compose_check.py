"""The static check of docker-compose.yml and the images' Dockerfiles.

There is no Docker engine on the project's machines, so the check reads the
files themselves:

- docker-compose.yml is resolved by the official Compose CLI,
  ``docker-compose config --format json`` (it needs no engine): the YAML
  (duplicate keys are errors), anchors, merge keys, profiles (every one on),
  interpolation (no variable of the caller's shell), env files, and Compose's
  own schema and references (``depends_on`` targets, named volumes, env
  files), exactly as Compose reads them. A file the CLI rejects is a problem,
  in the CLI's words. The harness installs the pinned CLI
  (tools.py, ``compose``) and names it in ``TB_COMPOSE``; without
  ``TB_COMPOSE`` the check runs ``tools/bin/docker-compose`` of the
  repository, and without either it fails.
- On the resolved file, the project's rules, which Compose does not check:
  - the services mysql, loadclient and every variant (a folder holding a
    variant.yaml) exist; each service's build context and Dockerfile, as the
    file names them, and each bind-mounted path exist (Compose would create a
    missing one as an empty folder);
  - every path a Dockerfile COPYs, with the ARGs the Dockerfile declares and
    the service's build args, exists in its build context and is not dropped
    by .dockerignore; every module of the root pom is in the Maven images'
    build stage, with the sources of the module built and of those it
    depends on (with ``COPY . .``: in the context, not ignored); base images carry a version; the final stage (or the
    service's build target) runs as a user other than root. Compose reads a
    Dockerfile and .dockerignore only when it builds, through the engine's
    BuildKit; here the Dockerfile's instructions, the ARGs and ENVs in scope at
    each and their expansion (``$X``, ``${X}``) are PyPI's dockerfile-parse's,
    and .dockerignore's patterns are matched by pathspec (git's wildmatch,
    anchored at the context's root as Docker anchors them);
  - build arguments: a Dockerfile shared by several services (the Java
    images' docker/java.Dockerfile, ``ARG MODULE``) is checked once per
    service, with that service's build args; an argument a COPY source or
    ``mvn -pl`` uses must be declared by an ARG of its stage and have a
    value; every build arg a service passes (Docker's proxy arguments aside)
    must be declared by an ARG of the Dockerfile; a variant's image builds
    the variant's own Maven module;
  - environment names are those of contract section 5 (the mysql service:
    the mysql image's own MYSQL_* names);
  - mysql is mysql:8.4 with schema.sql mounted into
    /docker-entrypoint-initdb.d, a healthcheck and a named volume; each variant
    waits for a healthy mysql and publishes its PORT; loadclient and toxiproxy
    sit behind profiles;
  - no two services publish the same host port.

``check(root)`` returns the problems found (an empty list: the file is fine).
``python -m tradebench_harness.compose_check [--variants a,b] [--compose CLI] [ROOT]``
prints them and exits 1 when there are any.
"""

from __future__ import annotations

import argparse
import glob
import io
import json
import os
import re
import subprocess
import sys
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pathspec
from dockerfile_parse import DockerfileParser
from dockerfile_parse.parser import image_from
from dockerfile_parse.util import WordSplitter

from ..run import variants as variants_mod

#: The repository this module lives in (harness/tradebench_harness/suites/compose_check.py).
REPO = Path(__file__).resolve().parents[3]
#: Where the harness puts the Compose CLI it builds (tools.py).
TOOLS_COMPOSE = Path("tools") / "bin" / "docker-compose"

CONTRACT_ENV = {"PORT", "ENGINES", "DELAY_MS", "TIMEOUT_MS", "PRODUCTS", "INBOX_LIMIT", "PERSIST",
                "DB_HOST", "DB_PORT", "DB_NAME", "DB_USER", "DB_PASSWORD", "DB_POOL",
                # java-spray-async's cluster mode (contract sections 5 and 9)
                "CLUSTER_HOST", "CLUSTER_PORT", "CLUSTER_SEEDS"}
# The names the mysql image's entrypoint reads (each also as NAME_FILE).
MYSQL_ENV = {"MYSQL_ROOT_PASSWORD", "MYSQL_ALLOW_EMPTY_PASSWORD", "MYSQL_RANDOM_ROOT_PASSWORD",
             "MYSQL_ONETIME_PASSWORD", "MYSQL_DATABASE", "MYSQL_USER", "MYSQL_PASSWORD",
             "MYSQL_ROOT_HOST", "MYSQL_INITDB_SKIP_TZINFO"}
# What a build context at the root must keep out (sample paths).
MUST_IGNORE = ["engine-model/target", "node-engine/node_modules", ".tradebench", "results", "tools", ".git"]
# The build arguments Docker knows without an ARG (the proxy settings).
PREDEFINED_ARGS = {n for name in ("HTTP_PROXY", "HTTPS_PROXY", "FTP_PROXY", "NO_PROXY", "ALL_PROXY")
                   for n in (name, name.lower())}


def discover_variants(root: Path) -> list[str]:
    """The variants of a tree: the folders holding a variant.yaml (variants.py), whatever their images."""
    return sorted(v.name for v in variants_mod.discover(Path(root)))


# ---------------------------------------------------------------------------------------------
# The Compose CLI
# ---------------------------------------------------------------------------------------------

def compose_cli(repo: Path | None = None) -> str | None:
    """The Compose CLI to run: TB_COMPOSE (set by tools.compose), else tools/bin/docker-compose of REPO."""
    named = os.environ.get("TB_COMPOSE")
    if named:
        return named
    local = (Path(repo) if repo is not None else REPO) / TOOLS_COMPOSE
    return str(local) if os.access(local, os.X_OK) else None


def compose_config(cli: str, root: Path) -> tuple[dict[str, Any] | None, str]:
    """(the resolved file, "") or (None, the CLI's complaint). Every profile on; no variable of the caller's shell."""
    env = {k: os.environ[k] for k in ("PATH", "HOME", "TMPDIR") if k in os.environ}
    env["COMPOSE_PROFILES"] = "*"
    try:
        r = subprocess.run([cli, "-f", "docker-compose.yml", "--profile", "*", "config", "--format", "json"],
                           cwd=root, env=env, capture_output=True, text=True, timeout=120)
    except (OSError, subprocess.TimeoutExpired) as e:
        return None, str(e)
    if r.returncode != 0:
        return None, " ".join((r.stderr or r.stdout).strip().splitlines()) or f"exit {r.returncode}"
    try:
        return json.loads(r.stdout), ""
    except ValueError as e:
        return None, f"its output is not JSON: {e}"


# ---------------------------------------------------------------------------------------------
# .dockerignore and Dockerfiles
# ---------------------------------------------------------------------------------------------

def _read_ignore(context: str, dockerfile: str) -> pathspec.PathSpec[pathspec.Pattern]:
    """The .dockerignore BuildKit uses (DOCKERFILE.dockerignore beside the Dockerfile, else the context's):
    Docker anchors every pattern at the context's root, and cleans it as a path (a trailing / is dropped)."""
    lines = []
    for cand in (dockerfile + ".dockerignore", os.path.join(context, ".dockerignore")):
        if os.path.isfile(cand):
            with open(cand) as f:
                lines = [line.strip() for line in f]
            break
    patterns = []
    for line in lines:
        if not line or line.startswith("#"):
            continue
        neg = line.startswith("!")
        pat = os.path.normpath(line[1:].strip() if neg else line).lstrip("/")
        if pat not in ("", "."):
            patterns.append(("!/" if neg else "/") + pat)
    return pathspec.PathSpec.from_lines("gitignore", patterns)


def _ignored(spec: pathspec.PathSpec[pathspec.Pattern], path: str) -> bool:
    return spec.match_file(os.path.normpath(path).lstrip("/"))


def image_pinned(ref: str) -> bool:
    """A digest, or a tag other than latest."""
    parts = ref.split("@", 1)
    if len(parts) == 2:
        return True
    name = parts[0]
    tag = name.rsplit(":", 1)[1] if ":" in name.rsplit("/", 1)[-1] else ""
    return bool(tag) and tag != "latest"


def _pom(path: str) -> str:
    if not os.path.isfile(path):
        return ""
    with open(path) as f:
        return re.sub(r"<!--.*?-->", "", f.read(), flags=re.S)


def root_modules(context: str) -> list[str]:
    return re.findall(r"<module>\s*([^<\s]+)\s*</module>", _pom(os.path.join(context, "pom.xml")))


def pom_text(context: str, module: str) -> str:
    """MODULE's pom without its comments ('' when it has none)."""
    return _pom(os.path.join(context, module, "pom.xml"))


def artifact_id(pom_text: str) -> str | None:
    """A pom's own artifactId (not its parent's, nor a dependency's or a plugin's)."""
    own = re.sub(r"<(parent|dependencies|dependencyManagement|build|profiles)>.*?</\1>", "", pom_text, flags=re.S)
    name = re.search(r"<artifactId>\s*([^<\s]+)\s*</artifactId>", own)
    return name.group(1) if name else None


def _module_dependencies(context: str, module: str, modules: list[str]) -> list[str]:
    """The modules of the root pom that MODULE depends on, directly or through another (what -am builds);
    a dependency names a module by its artifactId (java-spray-async/pekko's is java-spray-async-pekko)."""
    folder_of: dict[str, str] = {}
    for m in modules:
        folder_of.setdefault(artifact_id(pom_text(context, m)) or m, m)
    found: list[str] = []
    todo = [module]
    while todo:
        text = pom_text(context, todo.pop())
        for block in re.findall(r"<dependency>(.*?)</dependency>", text, flags=re.S):
            name = re.search(r"<artifactId>\s*([^<\s]+)\s*</artifactId>", block)
            dep = folder_of.get(name.group(1)) if name else None
            if dep and dep not in found and dep != module:
                found.append(dep)
                todo.append(dep)
    return found


def _module_sources(context: str, module: str) -> str:
    """Where MODULE's sources are: its src, or for a build that generates its sources from its parent folder's
    module (a pekko/ build: its pom's sourceDirectory is under its target), that module's src."""
    text = _pom(os.path.join(context, module, "pom.xml"))
    if "/" in module and re.search(r"<sourceDirectory>\s*\$\{project\.build\.directory\}", text):
        return module.rsplit("/", 1)[0] + "/src"
    return module + "/src"


def _expand(text: object) -> list[int]:
    text = str(text).strip()
    if not text:
        return []
    if "-" in text:
        a, b = text.split("-", 1)
        return list(range(int(a), int(b) + 1))
    return [int(text)]


_REF = re.compile(r"\$(?:\{([A-Za-z_][A-Za-z0-9_]*)(?:(:?[-+])([^}]*))?\}|([A-Za-z_][A-Za-z0-9_]*))")


def references(text: str) -> list[tuple[str, str | None]]:
    """The variables TEXT refers to, as (name, operator): operator None, ":-", "-", ":+" or "+"."""
    return [(m.group(1) or m.group(4), m.group(2)) for m in _REF.finditer(text)]


def _remote(src: str) -> bool:
    """A heredoc or a URL: nothing of the build context."""
    return src.startswith("<<") or re.match(r"^(https?://|git@)", src) is not None


@dataclass
class _Line:
    """One instruction of a Dockerfile and the ARGs and ENVs in scope at it (dockerfile-parse's context)."""
    op: str
    value: str
    args: dict[str, str]
    envs: dict[str, str]

    @property
    def scope(self) -> dict[str, str]:
        return {**self.args, **self.envs}

    def expanded(self, text: str) -> str:
        """TEXT with the variables in scope replaced, quotes consumed, as the builder does."""
        out: str = WordSplitter(text, args=self.args, envs=self.envs).dequote()
        return out

    def copy_parts(self, expand: bool) -> tuple[dict[str, str], list[str] | None]:
        """(flags, sources) of a COPY/ADD, its variables expanded or as written; sources None: unreadable."""
        m = re.match(r"((?:--\S+\s+)*)(.*)", self.value, flags=re.S)
        assert m is not None   # both groups match the empty string: every text matches
        flags: dict[str, str] = {}
        for word in m.group(1).split():
            k, _, v = word[2:].partition("=")
            flags[k] = self.expanded(v) if expand else v
        rest = m.group(2).strip()
        if rest.startswith("["):
            try:
                items = [str(i) for i in json.loads(rest)]
            except ValueError:
                return flags, None
            items = [self.expanded(i) for i in items] if expand else items
        else:
            items = list(WordSplitter(rest, args=self.args, envs=self.envs).split() if expand else rest.split())
        return flags, (items[:-1] if len(items) >= 2 else None)


def _lines(path: str, build_args: Mapping[str, str | None]) -> tuple[list[_Line], list[str]]:
    """The instructions of the Dockerfile at PATH with their scopes, and the base image of each FROM, with the
    BUILD_ARGS given (an argument without a value: None, as Compose writes it)."""
    given = {k: v for k, v in build_args.items() if v is not None}
    with open(path, "rb") as f:
        parser = DockerfileParser(fileobj=io.BytesIO(f.read()), build_args=given, env_replace=True)
        lines = [_Line(i["instruction"], i["value"], dict(c.args), dict(c.envs))
                 for i, c in zip(parser.structure, parser.context_structure) if i["instruction"] != "COMMENT"]
        return lines, list(parser.parent_images)


class _Dockerfile:
    """One Dockerfile as one service builds it: in CONTEXT, with its BUILD_ARGS, up to its TARGET stage."""

    def __init__(self, checker: _Checker, service: str, context: str, path: str, build_args: Mapping[str, str | None]):
        self.checker, self.service, self.context, self.path = checker, service, context, path
        self.where = "%s (%s)" % (checker.rel(path), service)
        self.lines, self.images = _lines(path, build_args)
        self.rules = _read_ignore(context, path)
        self.stages: list[str | None] = []       # each FROM's name (None: unnamed)
        self.users: dict[int, str | None] = {}   # each stage's last USER
        self.copied: list[str] = []               # the context's paths the stages COPY
        self.mvn: list[_Line] = []                # the RUNs that call Maven

    def bad(self, msg: str) -> None:
        self.checker.bad("%s: %s" % (self.where, msg))

    def read(self) -> None:
        ops = {"FROM": self.on_from, "COPY": self.on_copy, "ADD": self.on_copy, "USER": self.on_user, "RUN": self.on_run}
        for line in self.lines:
            if line.op in ops:
                ops[line.op](line)

    def uses(self, line: _Line, text: str, what: str) -> None:
        """The variables of TEXT (a COPY source, an mvn -pl) must be in scope with a value; Docker would put an
        empty string in their place. A default is written in the ARG (``ARG X=word``): ``${X:-word}`` and its
        kin are not expanded here (dockerfile-parse expands ``$X`` and ``${X}``), so they are refused."""
        scope = line.scope
        for name, op in references(text):
            if op is not None:
                self.bad("%s uses ${%s%s...}: give %s its default in its ARG (ARG %s=...)" % (what, name, op, name, name))
            elif name not in scope:
                self.bad("%s uses ${%s}, which no ARG of its stage declares (it would be empty)" % (what, name))
            elif not scope[name]:
                self.bad("%s uses ${%s}, which has no value: pass it (build: args: {%s: ...})" % (what, name, name))

    def on_from(self, line: _Line) -> None:
        image, name = image_from(line.value)
        if image is None:
            self.bad("FROM without an image")
            return
        image = self.images[len(self.stages)]
        if image not in [s for s in self.stages if s] and image != "scratch" and not image_pinned(image):
            self.bad("base image %s has no version tag (pin it)" % image)
        self.stages.append(name)
        self.users[len(self.stages) - 1] = None

    def on_user(self, line: _Line) -> None:
        if self.stages:
            self.users[len(self.stages) - 1] = line.expanded(line.value.strip())

    def on_run(self, line: _Line) -> None:
        if re.search(r"\bmvn\b", line.value):
            self.mvn.append(line)

    def on_copy(self, line: _Line) -> None:
        if not self.stages:
            self.bad("%s before FROM" % line.op)
            return
        self.copy_variables(line)
        flags, sources = line.copy_parts(expand=True)
        if sources is None:
            if "<<" not in line.value:
                self.bad("cannot read '%s %s'" % (line.op, line.value))
        elif "from" in flags:
            src_stage = flags["from"]
            if src_stage not in [s for s in self.stages[:-1] if s] and not src_stage.isdigit() and not image_pinned(src_stage):
                self.bad("COPY --from=%s names no earlier stage" % src_stage)
        else:
            for src in sources:
                if not _remote(src):
                    self.copy_source(line.op, src)

    def copy_variables(self, line: _Line) -> None:
        """The variables a COPY/ADD's --from and sources use, as written."""
        raw_flags, raw_sources = line.copy_parts(expand=False)
        if "from" in raw_flags:
            self.uses(line, raw_flags["from"], "%s --from=%s" % (line.op, raw_flags["from"]))
        for src in raw_sources or []:
            if not _remote(src):
                self.uses(line, src, "%s %s" % (line.op, src))

    def copy_source(self, op: str, src: str) -> None:
        rel_context = self.checker.rel(self.context)
        path = os.path.normpath(os.path.join(self.context, src.lstrip("/")))
        if not os.path.abspath(path).startswith(os.path.abspath(self.context)):
            self.bad("%s %s leaves the build context %s" % (op, src, rel_context))
            return
        matches = glob.glob(path)
        if not matches:
            self.bad("%s %s: no such path in the build context %s" % (
                op, src, rel_context if rel_context != "." else "(repository root)"))
            return
        if all(_ignored(self.rules, os.path.relpath(m, self.context)) for m in matches):
            self.bad("%s %s: excluded by .dockerignore" % (op, src))
        self.copied.append(os.path.normpath(src.lstrip("/")).rstrip("/"))

    def check_build_args(self, build_args: Mapping[str, str | None]) -> None:
        declared = {k for line in self.lines if line.op == "ARG" for k in line.args}
        for k in sorted(build_args):
            if k not in declared and k not in PREDEFINED_ARGS:
                self.checker.bad("%s: service %s passes the build argument %s, which no ARG declares"
                                 % (self.where, self.service, k))

    def check_final_user(self, target: str | None) -> bool:
        """The stage the service gets (its TARGET, else the last) runs as a user other than root; False: no
        such stage."""
        if not self.stages:
            self.bad("no FROM")
            return False
        final = len(self.stages) - 1
        if target:
            if target not in self.stages:
                self.bad("build target %s is not a stage of the Dockerfile" % target)
                return False
            final = self.stages.index(target)
        last_user = self.users.get(final)
        if not last_user or last_user.split(":")[0] in ("root", "0"):
            self.bad("the final stage runs as root (add USER)")
        return True

    def in_context(self, rel: str, why: str) -> None:
        if not os.path.exists(os.path.join(self.context, rel)):
            self.bad("%s needs %s: no such path in the build context" % (why, rel))
        elif _ignored(self.rules, rel):
            self.bad("%s needs %s: excluded by .dockerignore" % (why, rel))

    def check_maven(self) -> list[str]:
        """Maven images: every reactor module's pom is in the build stage, and each module built (-pl) is one of
        them, with its sources (and, with ``COPY . .``, those of the modules it depends on). Returns them."""
        modules = root_modules(self.context)
        if not (self.mvn and modules):
            return []
        whole = "." in self.copied   # COPY . .: every path the build needs must be in the context, and not ignored
        for m in modules:
            if whole:
                self.in_context(m + "/pom.xml", "Maven (every module of the root pom)")
            elif not any(c in (m, m + "/pom.xml") for c in self.copied):
                self.bad("the build stage does not COPY %s/pom.xml (Maven needs every module of the root pom)" % m)
        built = []
        for line in self.mvn:
            for raw in re.findall(r"-pl\s+(\S+)", line.value):
                self.uses(line, raw, "mvn -pl %s" % raw)
                for m in line.expanded(raw).split(","):
                    if m:
                        built.append(m)
                        self.check_built(m, modules, whole)
        return built

    def check_built(self, m: str, modules: list[str], whole: bool) -> None:
        if m not in modules:
            self.bad("mvn -pl %s: not a module of the root pom" % m)
        elif whole:
            for d in [m, *_module_dependencies(self.context, m, modules)]:
                self.in_context(_module_sources(self.context, d), "mvn -pl %s -am" % m)
        elif not any(c in (m, m + "/src") for c in self.copied):
            self.bad("the build stage does not COPY %s/src" % m)


@dataclass
class _Checker:
    root: str
    variants: list[str]
    problems: list[str] = field(default_factory=list)
    #: the Maven modules each service's image builds (its mvn -pl, build args replaced)
    built: dict[str, list[str]] = field(default_factory=dict)

    def bad(self, msg: str) -> None:
        self.problems.append(msg)

    def rel(self, p: str) -> str:
        return os.path.relpath(p, self.root)

    def path(self, p: object) -> str:
        """A path of the resolved file (the CLI writes them absolute; relative ones are to the root)."""
        return os.path.normpath(os.path.join(self.root, str(p)))

    # ---- Dockerfiles ----
    def check_dockerfile(self, service: str, context: str, dockerfile: str, build_args: Mapping[str, str | None],
                         target: str | None) -> list[str]:
        """DOCKERFILE as the service builds it: in CONTEXT, with its BUILD_ARGS, up to its TARGET stage.
        Returns the Maven modules it builds (mvn -pl)."""
        d = _Dockerfile(self, service, context, dockerfile, build_args)
        if os.path.abspath(context) == self.root:
            for p in MUST_IGNORE:
                if not _ignored(d.rules, p):
                    d.bad("build context is the repository root but .dockerignore does not exclude %s" % p)
        d.read()
        d.check_build_args(build_args)
        if not d.check_final_user(target):
            return []
        return d.check_maven()

    # ---- service parts, in the long syntax the CLI writes ----
    def published_ports(self, service: str, spec: list[dict[str, Any]] | None) -> list[tuple[str, int | None, int, str]]:
        """[(host_ip, host_port, container_port, protocol)]"""
        out: list[tuple[str, int | None, int, str]] = []
        for p in spec or []:
            try:
                hosts, targets = _expand(p.get("published", "") or ""), _expand(p.get("target", ""))
                ip, proto = str(p.get("host_ip", "") or ""), str(p.get("protocol", "tcp") or "tcp")
                if hosts and len(hosts) != len(targets) and len(targets) != 1:
                    self.bad("service %s: port %r: ranges of different sizes" % (service, p))
                    continue
                for i, h in enumerate(hosts):
                    out.append((ip, h, targets[i] if len(targets) > 1 else targets[0], proto))
                if not hosts:
                    out.extend((ip, None, t, proto) for t in targets)
            except ValueError:
                self.bad("service %s: cannot read port %r" % (service, p))
        return out

    @staticmethod
    def env_names(svc: dict[str, Any]) -> dict[str, str | None]:
        """The service's environment (its env files already in it): name -> value (None: from the shell)."""
        return {str(k): (None if v is None else str(v)) for k, v in (svc.get("environment") or {}).items()}

    @staticmethod
    def volume_mounts(svc: dict[str, Any]) -> list[tuple[str, str | None, str | None]]:
        """[(type, source, target)]"""
        return [(v.get("type", "volume"), v.get("source"), v.get("target")) for v in svc.get("volumes") or []]

    # ---- the file ----
    def check(self, doc: dict[str, Any]) -> None:
        services = doc.get("services") or {}
        for name in ["mysql", "loadclient"] + self.variants:
            if name not in services:
                self.bad("service %s is missing" % name)
        ports_seen: dict[tuple[str, str, int], str] = {}
        for name, svc in services.items():
            self.check_build(name, svc)
            self.check_env(name, svc)
            for kind, src, _ in self.volume_mounts(svc):
                if kind == "bind" and src and not os.path.exists(self.path(src)):
                    self.bad("service %s: mounted path %s does not exist" % (name, self._shown(src)))
            self.check_ports(name, svc, ports_seen)
        self.check_mysql(services.get("mysql"))
        self.check_variants(services)
        self.check_profiles(services)

    def check_build(self, name: str, svc: dict[str, Any]) -> None:
        """A service is built from a Dockerfile in a file of its context (checked), or runs a pinned image."""
        build = svc.get("build")
        if build is None:
            if not svc.get("image"):
                self.bad("service %s has neither build nor image" % name)
            elif not image_pinned(str(svc["image"])):
                self.bad("service %s: image %s has no version tag (pin it)" % (name, svc["image"]))
            return
        context = self.path(build.get("context", "."))
        if not os.path.isdir(context):
            self.bad("service %s: build context %s does not exist" % (name, self.rel(context)))
            return
        if "dockerfile_inline" in build:
            self.bad("service %s: dockerfile_inline: keep the Dockerfile in a file" % name)
            return
        dockerfile = os.path.normpath(os.path.join(context, str(build.get("dockerfile", "Dockerfile"))))
        if not os.path.isfile(dockerfile):
            self.bad("service %s: Dockerfile %s does not exist" % (name, self.rel(dockerfile)))
            return
        args = {str(k): (None if v is None else str(v)) for k, v in (build.get("args") or {}).items()}
        self.built[name] = self.check_dockerfile(name, context, dockerfile, args, build.get("target"))

    def check_env(self, name: str, svc: dict[str, Any]) -> None:
        env = self.env_names(svc)
        allowed = MYSQL_ENV | {n + "_FILE" for n in MYSQL_ENV} if name == "mysql" else CONTRACT_ENV
        for k in sorted(env):
            if k not in allowed:
                self.bad("service %s: environment name %s is not %s" % (
                    name, k, "one of the mysql image's MYSQL_* names" if name == "mysql" else "one of contract section 5"))

    def check_ports(self, name: str, svc: dict[str, Any], seen: dict[tuple[str, str, int], str]) -> None:
        """No host port published twice on one address (SEEN: (ip, protocol, port) -> the service so far)."""
        for ip, host, _, proto in self.published_ports(name, svc.get("ports")):
            if host is None:
                continue
            for (oip, oproto, ohost), owner in seen.items():
                if ohost == host and oproto == proto and _same_address(ip, oip):
                    first, second = sorted((owner, name))
                    self.bad("host port %d/%s is published by both %s and %s" % (host, proto, first, second))
            seen[(ip, proto, host)] = name

    def check_profiles(self, services: dict[str, Any]) -> None:
        """loadclient and toxiproxy sit behind profiles: `docker compose up` starts neither."""
        lc = services.get("loadclient")
        if lc is not None:
            if not lc.get("profiles"):
                self.bad("service loadclient: not behind a profile (`docker compose up` would start it)")
            if "loadclient.jar" not in " ".join(map(str, lc.get("entrypoint") or [])) and lc.get("build") is None:
                self.bad("service loadclient: neither built nor run with loadclient.jar")
        tp = services.get("toxiproxy")
        if tp is not None and not tp.get("profiles"):
            self.bad("service toxiproxy: not behind a profile")

    def _shown(self, src: object) -> str:
        """A path as the file wrote it: the CLI makes bind sources absolute; show them relative to the root."""
        s = str(src)
        if os.path.isabs(s) and os.path.normpath(s).startswith(self.root + os.sep):
            return "./" + self.rel(s)
        return s

    def check_mysql(self, mysql: dict[str, Any] | None) -> None:
        if mysql is None:
            return
        if not str(mysql.get("image", "")).startswith("mysql:8.4"):
            self.bad("service mysql: image is %r, not mysql:8.4" % mysql.get("image"))
        mounts = self.volume_mounts(mysql)
        schema = os.path.join(self.root, "schema.sql")
        init = [(k, s, t) for k, s, t in mounts if str(t).startswith("/docker-entrypoint-initdb.d")]
        if not any(k == "bind" and s and self.path(s) == schema and str(t).endswith(".sql") for k, s, t in init):
            self.bad("service mysql: schema.sql is not mounted as a .sql file in /docker-entrypoint-initdb.d")
        for k, s, _ in init:
            if k == "bind" and s and self.path(s) != schema:
                self.bad("service mysql: %s mounted into /docker-entrypoint-initdb.d is not schema.sql" % self._shown(s))
        if not any(k == "volume" and s and str(t).rstrip("/") == "/var/lib/mysql" for k, s, t in mounts):
            self.bad("service mysql: no named volume at /var/lib/mysql")
        hc = mysql.get("healthcheck") or {}
        if not hc.get("test") or hc.get("disable"):
            self.bad("service mysql: no healthcheck (the variants wait for a healthy mysql)")
        menv = self.env_names(mysql)
        if not any(menv.get(k) for k in ("MYSQL_ROOT_PASSWORD", "MYSQL_ROOT_PASSWORD_FILE",
                                         "MYSQL_ALLOW_EMPTY_PASSWORD", "MYSQL_RANDOM_ROOT_PASSWORD")):
            self.bad("service mysql: the mysql image needs MYSQL_ROOT_PASSWORD (or MYSQL_RANDOM_ROOT_PASSWORD)")

    def check_variants(self, services: dict[str, Any]) -> None:
        """The variants: built, waiting for a healthy mysql, publishing their PORT."""
        for v in self.variants:
            svc = services.get(v)
            if svc is not None:
                self.check_variant(v, svc)

    def check_variant(self, v: str, svc: dict[str, Any]) -> None:
        if svc.get("build") is None:
            self.bad("service %s: not built from a Dockerfile" % v)
        modules = self.built.get(v) or []
        if modules and v not in modules:
            self.bad("service %s: its image builds %s, not %s (build: args: MODULE?)" % (v, ",".join(modules), v))
        if svc.get("profiles"):
            self.bad("service %s: behind a profile, so `docker compose up %s` needs --profile" % (v, v))
        if ((svc.get("depends_on") or {}).get("mysql") or {}).get("condition") != "service_healthy":
            self.bad("service %s: does not depend on mysql with condition: service_healthy" % v)
        env = self.env_names(svc)
        port_text = str(env.get("PORT") or "3000")
        if not port_text.isdigit():
            self.bad("service %s: PORT is not a number" % v)
        elif not any(t == int(port_text) and h is not None for _, h, t, _ in self.published_ports(v, svc.get("ports"))):
            self.bad("service %s: its PORT %d is not published on a host port" % (v, int(port_text)))
        for k in ("DB_HOST", "DB_NAME", "DB_USER", "DB_PASSWORD"):
            if not env.get(k):
                self.bad("service %s: %s is not set (the variants default to 127.0.0.1, not the mysql service)" % (v, k))


def _same_address(ip: str, other: str) -> bool:
    """Two host addresses that collide on one port: equal, or either one all of the host's (unset, 0.0.0.0, ::)."""
    return not ip or not other or ip in ("0.0.0.0", "::") or other in ("0.0.0.0", "::") or ip == other


@dataclass
class Report:
    problems: list[str]
    services: int = 0


def run(root: Path, variants: list[str] | None = None, cli: str | None = None) -> Report:
    """The whole check of ROOT. CLI: the Compose CLI to run (default: compose_cli())."""
    root = Path(root).resolve()
    if not (root / "docker-compose.yml").is_file():
        return Report(["%s/docker-compose.yml is missing" % root])
    if variants is None:
        variants = discover_variants(root)
    cli = cli or compose_cli()
    if cli is None:
        return Report(["no Compose CLI: TB_COMPOSE is not set and %s is missing (./tradebench compose-check "
                       "installs it)" % (REPO / TOOLS_COMPOSE)])
    doc, complaint = compose_config(cli, root)
    if doc is None:
        return Report(["'%s config' rejects docker-compose.yml: %s" % (Path(cli).name, complaint)])
    checker = _Checker(str(root), list(variants))
    checker.check(doc)
    return Report(checker.problems, len(doc.get("services") or {}))


def check(root: Path, variants: list[str] | None = None, cli: str | None = None) -> list[str]:
    """The problems of ROOT's docker-compose.yml and Dockerfiles (empty: none)."""
    return run(root, variants, cli).problems


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m tradebench_harness.compose_check",
                                     description="static check of docker-compose.yml and the Dockerfiles")
    parser.add_argument("root", nargs="?", default=str(REPO), help="the tree to check (default: this repository)")
    parser.add_argument("--variants", help="comma-separated variant services (default: folders holding a variant.yaml)")
    parser.add_argument("--compose", help="the Compose CLI (default: $TB_COMPOSE, else tools/bin/docker-compose)")
    args = parser.parse_args(argv)
    variants = [v for v in args.variants.split(",") if v] if args.variants else None
    report = run(Path(args.root), variants, cli=args.compose)
    for p in report.problems:
        print("compose check: " + p)
    if report.problems:
        return 1
    print("compose check: docker-compose.yml OK (%d services, resolved by the Compose CLI)" % report.services,
          file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
