"""The static check of docker-compose.yml and the images' Dockerfiles.

There is no Docker engine on the project's machines, so the check reads the
files themselves:

- docker-compose.yml is resolved by the official Compose CLI,
  ``docker compose config --format json`` (it needs no engine): anchors, merge
  keys, profiles, interpolation and env files exactly as Compose reads them,
  and the CLI's own validation. The CLI is ``docker compose`` when installed,
  else a ``docker-compose`` v2 on the PATH, else ``tools/bin/docker-compose``
  of the repository, built there with ``go install`` (Compose is a Go module)
  when it is missing and Go is installed. Without any of these the file is
  parsed with PyYAML instead (duplicate keys are errors; ``${X:-default}``
  interpolated as with every variable unset), and a note says so. When the
  CLI rejects the file, its message is a problem and the rules below are
  applied to the PyYAML reading, so the report still says what is wrong.
- On the resolved file, the project's rules:
  - the services mysql, loadclient and every variant exist, and what they
    refer to does: build contexts, Dockerfiles, bind-mounted files, named
    volumes, depends_on targets;
  - every path a Dockerfile COPYs exists in its build context and is not
    dropped by .dockerignore; every module of the root pom is in the Maven
    images' build stage; base images carry a version; the final stage runs
    as a user other than root;
  - build arguments: a Dockerfile shared by several services (the servlet
    variants' docker/servlet.Dockerfile, ``ARG MODULE``) is checked once per
    service with that service's ``build: args``, ``${NAME}`` in COPY and in
    ``mvn -pl`` replaced as Docker does; an argument used there must be
    declared by an ARG of its stage and have a value; every argument a
    service passes must be declared; a variant's image builds the variant's
    own Maven module;
  - environment names are those of contract section 5 (the mysql service:
    the mysql image's own MYSQL_* names);
  - mysql is mysql:8.4 with schema.sql mounted into
    /docker-entrypoint-initdb.d, a healthcheck and a named volume; each variant
    waits for a healthy mysql and publishes its PORT; loadclient and toxiproxy
    sit behind profiles;
  - no two services publish the same host port.

``check(root)`` returns the problems found (an empty list: the file is fine).
``python -m tradebench_harness.compose_check [--variants a,b] [--no-cli] [ROOT]``
prints them and exits 1 when there are any.
"""

from __future__ import annotations

import argparse
import glob
import json
import os
import re
import shutil
import subprocess
import sys
from dataclasses import dataclass, field
from pathlib import Path

import yaml

#: The repository this module lives in (harness/tradebench_harness/compose_check.py).
REPO = Path(__file__).resolve().parents[2]
#: The Compose release built with ``go install`` when no CLI is installed.
COMPOSE_MODULE = "github.com/docker/compose/v2/cmd@v2.29.7"
#: Where the Compose binary keeps its version (set at link time, else it says "dev").
COMPOSE_VERSION_SYMBOL = "github.com/docker/compose/v2/internal.Version"
#: How long ``go install`` of Compose may take (a first build downloads its modules).
GO_INSTALL_TIMEOUT_S = 1800

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


def discover_variants(root: Path) -> list[str]:
    """The variants of a tree: its top-level folders with a variant.yaml (as the harness finds them)."""
    return sorted(p.parent.name for p in Path(root).glob("*/variant.yaml"))


# ---------------------------------------------------------------------------------------------
# The Compose CLI
# ---------------------------------------------------------------------------------------------

def _works(cmd: list[str]) -> bool:
    try:
        r = subprocess.run(cmd + ["version"], capture_output=True, text=True, timeout=60)
    except (OSError, subprocess.TimeoutExpired):
        return False
    # v2 says "Docker Compose version v2.29.7" (the old Python docker-compose 1.x: "docker-compose version 1...")
    return r.returncode == 0 and r.stdout.startswith("Docker Compose version")


def _go() -> str | None:
    return shutil.which("go") or next((g for g in ("/usr/local/go/bin/go",) if os.access(g, os.X_OK)), None)


def find_compose_cli(install: bool = True, repo: Path | None = None, notes: list[str] | None = None) -> list[str] | None:
    """The command of a Compose v2 CLI, or None. May build one into ``repo/tools/bin`` (repo: this repository)."""
    notes = notes if notes is not None else []
    repo = Path(repo) if repo is not None else REPO
    if shutil.which("docker") and _works(["docker", "compose"]):
        return ["docker", "compose"]
    if shutil.which("docker-compose") and _works(["docker-compose"]):
        return ["docker-compose"]
    local = repo / "tools" / "bin" / "docker-compose"
    if local.is_file() and _works([str(local)]):
        return [str(local)]
    go = _go()
    if not install or go is None:
        notes.append("no Compose CLI (docker compose, docker-compose, tools/bin/docker-compose)"
                     + ("" if go else " and no Go to build one") + ": docker-compose.yml read with PyYAML instead")
        return None
    print(f"compose check: building the Compose CLI into {local.parent} (go install {COMPOSE_MODULE})",
          file=sys.stderr)
    local.parent.mkdir(parents=True, exist_ok=True)
    env = dict(os.environ, GOBIN=str(local.parent))
    try:
        r = subprocess.run([go, "install", "-ldflags", "-X " + COMPOSE_VERSION_SYMBOL + "=" + COMPOSE_MODULE.split("@")[1],
                            COMPOSE_MODULE], env=env, capture_output=True, text=True,
                           timeout=GO_INSTALL_TIMEOUT_S)
    except (OSError, subprocess.TimeoutExpired) as e:
        notes.append(f"building the Compose CLI failed ({e}): docker-compose.yml read with PyYAML instead")
        return None
    built = local.parent / "cmd"
    if r.returncode != 0 or not built.is_file():
        tail = " ".join((r.stderr or "").strip().splitlines()[-3:])
        notes.append(f"building the Compose CLI failed ({tail}): docker-compose.yml read with PyYAML instead")
        return None
    built.replace(local)
    return [str(local)] if _works([str(local)]) else None


def compose_config(cli: list[str], root: Path) -> tuple[dict | None, str]:
    """(the resolved file, "") or (None, the CLI's complaint). Every profile on; no variable of the caller's shell."""
    env = {k: os.environ[k] for k in ("PATH", "HOME", "TMPDIR") if k in os.environ}
    env["COMPOSE_PROFILES"] = "*"
    try:
        r = subprocess.run(cli + ["-f", "docker-compose.yml", "--profile", "*", "config", "--format", "json"],
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
# PyYAML reading (the fallback, and the reading when the CLI rejects the file)
# ---------------------------------------------------------------------------------------------

class _Loader(yaml.SafeLoader):
    """PyYAML with duplicate keys as errors (Compose rejects them; PyYAML would keep the last)."""


def _construct_mapping(loader, node, deep=False):
    seen = set()
    for key_node, _ in node.value:
        if key_node.tag == "tag:yaml.org,2002:merge":
            continue
        key = loader.construct_object(key_node, deep=True)
        if key in seen:
            raise yaml.constructor.ConstructorError(None, None, "duplicate key %r" % (key,), key_node.start_mark)
        seen.add(key)
    loader.flatten_mapping(node)
    return {loader.construct_object(k, deep=deep): loader.construct_object(v, deep=deep) for k, v in node.value}


_Loader.add_constructor(yaml.resolver.BaseResolver.DEFAULT_MAPPING_TAG, _construct_mapping)

_VAR = re.compile(r"\$(?:(\$)|\{([A-Za-z_][A-Za-z0-9_]*)(?:(:?[-?+])((?:[^{}]|\{[^{}]*\})*))?\}|([A-Za-z_][A-Za-z0-9_]*))")


def interpolate(value):
    """Compose interpolation with every variable unset: ``${X:-d}`` -> d, ``${X}`` -> "", ``$$`` -> ``$``."""
    if isinstance(value, str):
        def rep(m):
            if m.group(1):
                return "$"
            op, arg = m.group(3), m.group(4) or ""
            return interpolate(arg) if op in (":-", "-") else ""
        return _VAR.sub(rep, value)
    if isinstance(value, list):
        return [interpolate(v) for v in value]
    if isinstance(value, dict):
        return {k: interpolate(v) for k, v in value.items()}
    return value


def yaml_config(root: Path) -> tuple[dict | None, str]:
    try:
        with open(root / "docker-compose.yml") as f:
            doc = yaml.load(f, Loader=_Loader)
    except yaml.YAMLError as e:
        return None, "docker-compose.yml does not parse: %s" % e
    if not isinstance(doc, dict) or not isinstance(doc.get("services"), dict):
        return None, "docker-compose.yml has no services map"
    return interpolate(doc), ""


# ---------------------------------------------------------------------------------------------
# .dockerignore and Dockerfiles
# ---------------------------------------------------------------------------------------------

def _ignore_regex(pattern: str):
    """Docker's .dockerignore rules: ** any depth, a match on a folder covers its content."""
    out, i = "", 0
    while i < len(pattern):
        c = pattern[i]
        if pattern.startswith("**/", i):
            out += "(?:.*/)?"
            i += 3
            continue
        if pattern.startswith("**", i):
            out += ".*"
            i += 2
            continue
        if c == "*":
            out += "[^/]*"
        elif c == "?":
            out += "[^/]"
        elif c == "[":
            j = pattern.find("]", i)
            if j < 0:
                out += re.escape(c)
            else:
                out += pattern[i:j + 1].replace("[!", "[^")
                i = j
        elif c == "\\" and i + 1 < len(pattern):
            i += 1
            out += re.escape(pattern[i])
        else:
            out += re.escape(c)
        i += 1
    return re.compile("^" + out + "$")


def _read_ignore(context: str, dockerfile: str):
    rules = []
    for cand in (dockerfile + ".dockerignore", os.path.join(context, ".dockerignore")):
        if os.path.isfile(cand):
            with open(cand) as f:
                for line in f:
                    line = line.strip()
                    if not line or line.startswith("#"):
                        continue
                    neg = line.startswith("!")
                    pat = line[1:].strip() if neg else line
                    pat = os.path.normpath(pat).lstrip("/")
                    if pat in ("", "."):
                        continue
                    rules.append((neg, _ignore_regex(pat)))
            break
    return rules


def _ignored(rules, path: str) -> bool:
    path = os.path.normpath(path).lstrip("/")
    parts = path.split("/")
    prefixes = ["/".join(parts[:n]) for n in range(1, len(parts) + 1)]
    result = False
    for neg, rx in rules:
        if any(rx.match(p) for p in prefixes):
            result = not neg
    return result


def _dockerfile_instructions(text: str):
    lines, cur = [], ""
    for raw in text.splitlines():
        s = raw.strip()
        if not cur and (not s or s.startswith("#")):
            continue
        if cur and s.startswith("#"):
            continue
        if s.endswith("\\"):
            cur += s[:-1] + " "
            continue
        cur += s
        if cur.strip():
            lines.append(cur.strip())
        cur = ""
    if cur.strip():
        lines.append(cur.strip())
    out = []
    for line in lines:
        parts = line.split(None, 1)
        out.append((parts[0].upper(), parts[1] if len(parts) > 1 else ""))
    return out


def _copy_args(rest: str):
    """(flags, sources, dest) of a COPY/ADD."""
    flags = {}
    tokens = rest.split()
    while tokens and tokens[0].startswith("--"):
        k, _, v = tokens.pop(0)[2:].partition("=")
        flags[k] = v
    rest = " ".join(tokens)
    if rest.startswith("["):
        try:
            items = json.loads(rest)
        except ValueError:
            return flags, None, None
    else:
        items = rest.split()
    if len(items) < 2:
        return flags, None, None
    return flags, items[:-1], items[-1]


def image_pinned(ref: str) -> bool:
    """A digest, or a tag other than latest."""
    parts = ref.split("@", 1)
    if len(parts) == 2:
        return True
    name = parts[0]
    tag = name.rsplit(":", 1)[1] if ":" in name.rsplit("/", 1)[-1] else ""
    return bool(tag) and tag != "latest"


def _root_modules(context: str):
    pom = os.path.join(context, "pom.xml")
    if not os.path.isfile(pom):
        return []
    with open(pom) as f:
        text = re.sub(r"<!--.*?-->", "", f.read(), flags=re.S)
    return re.findall(r"<module>\s*([^<\s]+)\s*</module>", text)


#: ${NAME}, ${NAME:-default}, ${NAME-default} and $NAME, as Dockerfiles write build arguments.
_VAR = re.compile(r"\$(?:\{([A-Za-z_][A-Za-z0-9_]*)(?::?-([^}]*))?\}|([A-Za-z_][A-Za-z0-9_]*))")


def _variables(text: str) -> list[str]:
    """The names of the variables TEXT refers to."""
    return [m.group(1) or m.group(3) for m in _VAR.finditer(text)]


def _substitute(text: str, values: dict) -> str:
    """TEXT with every variable replaced by its value in VALUES (unset or None: empty, or the default given)."""
    def rep(m):
        value = values.get(m.group(1) or m.group(3))
        if value in (None, "") and m.group(2) is not None:
            return m.group(2)
        return "" if value is None else str(value)
    return _VAR.sub(rep, text)


def build_args(build) -> dict:
    """A service's ``build: args`` as a map (the file may write a list of NAME=value)."""
    args = (build or {}).get("args") or {}
    if isinstance(args, list):
        out = {}
        for item in args:
            k, eq, v = str(item).partition("=")
            out[k] = v if eq else None
        return out
    return {str(k): (None if v is None else str(v)) for k, v in args.items()}


def _expand(text):
    text = str(text).strip()
    if not text:
        return []
    if "-" in text:
        a, b = text.split("-", 1)
        return list(range(int(a), int(b) + 1))
    return [int(text)]


@dataclass
class _Checker:
    root: str
    variants: list[str]
    problems: list[str] = field(default_factory=list)
    #: the Maven modules each service's image builds (mvn -pl, its build arguments replaced)
    built: dict = field(default_factory=dict)

    def bad(self, msg: str) -> None:
        self.problems.append(msg)

    def rel(self, p: str) -> str:
        return os.path.relpath(p, self.root)

    def path(self, p) -> str:
        """A path of the compose file (relative to the root, or absolute as the CLI writes it)."""
        return os.path.normpath(os.path.join(self.root, os.path.expanduser(str(p))))

    # ---- Dockerfiles ----
    def check_dockerfile(self, service: str, context: str, dockerfile: str, args: dict | None = None) -> list[str]:
        """The problems of DOCKERFILE built for SERVICE with its build ARGS; returns the Maven modules it builds."""
        args = args or {}
        where = "%s (%s)" % (self.rel(dockerfile), service)
        with open(dockerfile) as f:
            instructions = _dockerfile_instructions(f.read())
        rules = _read_ignore(context, dockerfile)
        if os.path.abspath(context) == self.root:
            for p in MUST_IGNORE:
                if not _ignored(rules, p):
                    self.bad("%s: build context is the repository root but .dockerignore does not exclude %s" % (where, p))
        global_args, stages, users, copied, runs = {}, [], {}, [], []
        declared = set()        # every ARG name of the file
        scope: dict = {}        # the ARGs of the current stage and their values (None: no value)

        def resolve(text: str, what: str, scope: dict) -> str:
            """TEXT with the build arguments of a stage (SCOPE) replaced, as Docker replaces them in COPY."""
            for name in _variables(text):
                if name not in scope:
                    self.bad("%s: %s uses ${%s}, which no ARG of its stage declares (it would be empty)"
                             % (where, what, name))
                elif scope[name] in (None, ""):
                    self.bad("%s: %s uses ${%s}, which has no value: pass it (build: args: {%s: ...})"
                             % (where, what, name, name))
            return _substitute(text, scope)

        for op, rest in instructions:
            if op == "ARG":
                k, eq, v = rest.partition("=")
                k = k.strip()
                declared.add(k)
                if not stages:
                    global_args[k] = v.strip().strip('"') if eq else None
                else:
                    # a service's value wins over the default; a bare ARG in a stage inherits the global default
                    default = v.strip().strip('"') if eq else global_args.get(k)
                    scope[k] = args[k] if args.get(k) not in (None, "") else default
            elif op == "FROM":
                words = [w for w in rest.split() if not w.startswith("--")]
                if not words:
                    self.bad("%s: FROM without an image" % where)
                    continue
                image = _substitute(words[0], {k: (args[k] if args.get(k) not in (None, "") else v)
                                               for k, v in global_args.items()})
                name = words[2] if len(words) >= 3 and words[1].upper() == "AS" else None
                if image not in [s for s in stages if s] and image != "scratch" and not image_pinned(image):
                    self.bad("%s: base image %s has no version tag (pin it)" % (where, image))
                stages.append(name)
                users[len(stages) - 1] = None
                scope = {}
            elif op in ("COPY", "ADD"):
                if not stages:
                    self.bad("%s: %s before FROM" % (where, op))
                    continue
                flags, sources, _ = _copy_args(rest)
                if sources is None:
                    if "<<" not in rest:
                        self.bad("%s: cannot read '%s %s'" % (where, op, rest))
                    continue
                if "from" in flags:
                    src_stage = resolve(flags["from"], "%s --from" % op, scope)
                    if src_stage not in [s for s in stages[:-1] if s] and not src_stage.isdigit() and not image_pinned(src_stage):
                        self.bad("%s: COPY --from=%s names no earlier stage" % (where, src_stage))
                    continue
                for src in sources:
                    if src.startswith("<<") or re.match(r"^(https?://|git@)", src):
                        continue
                    src = resolve(src, "%s %s" % (op, src), scope)
                    path = os.path.normpath(os.path.join(context, src.lstrip("/")))
                    if not os.path.abspath(path).startswith(os.path.abspath(context)):
                        self.bad("%s: %s %s leaves the build context %s" % (where, op, src, self.rel(context)))
                        continue
                    matches = glob.glob(path)
                    if not matches:
                        self.bad("%s: %s %s: no such path in the build context %s" % (
                            where, op, src, self.rel(context) if self.rel(context) != "." else "(repository root)"))
                        continue
                    if all(_ignored(rules, os.path.relpath(m, context)) for m in matches):
                        self.bad("%s: %s %s: excluded by .dockerignore" % (where, op, src))
                    copied.append(os.path.normpath(src.lstrip("/")).rstrip("/"))
            elif op == "USER":
                if stages:
                    users[len(stages) - 1] = rest.strip()
            elif op == "RUN":
                runs.append((rest, dict(scope)))
        for k in sorted(args):
            if k not in declared:
                self.bad("%s: service %s passes the build argument %s, which no ARG declares" % (where, service, k))
        if not stages:
            self.bad("%s: no FROM" % where)
            return []
        last_user = users.get(len(stages) - 1)
        if not last_user or last_user.split(":")[0] in ("root", "0"):
            self.bad("%s: the final stage runs as root (add USER)" % where)
        # Maven images: every reactor module's pom must be in the build stage, and
        # the module built (-pl) must be one of them, with its sources.
        mvn = [(r, values) for r, values in runs if re.search(r"\bmvn\b", r)]
        modules = _root_modules(context)
        built = []
        if mvn and modules:
            for m in modules:
                if not any(c in (".", m, m + "/pom.xml") for c in copied):
                    self.bad("%s: the build stage does not COPY %s/pom.xml (Maven needs every module of the root pom)" % (where, m))
            for run, values in mvn:
                for pl in re.findall(r"-pl\s+(\S+)", run):
                    pl = resolve(pl, "mvn -pl %s" % pl, values).strip("'\"")
                    for m in pl.split(","):
                        built.append(m)
                        if not m:
                            continue
                        if m not in modules:
                            self.bad("%s: mvn -pl %s: not a module of the root pom" % (where, m))
                        elif not any(c in (".", m, m + "/src") for c in copied):
                            self.bad("%s: the build stage does not COPY %s/src" % (where, m))
        return built

    # ---- service parts, in the short syntax of the file and the long syntax of the CLI ----
    def published_ports(self, service: str, spec):
        """[(host_ip, host_port, container_port, protocol)]"""
        out = []
        for p in spec or []:
            try:
                if isinstance(p, dict):
                    hosts, targets = _expand(p.get("published", "") or ""), _expand(p.get("target", ""))
                    ip, proto = str(p.get("host_ip", "") or ""), str(p.get("protocol", "tcp") or "tcp")
                else:
                    s = str(p)
                    s, _, proto = s.partition("/")
                    proto = proto or "tcp"
                    if s.startswith("["):                     # [::1]:3000:3000
                        ip, _, s = s[1:].partition("]:")
                        host, _, target = s.rpartition(":")
                    else:
                        parts = s.split(":")
                        if len(parts) == 1:
                            ip, host, target = "", "", parts[0]
                        elif len(parts) == 2:
                            ip, (host, target) = "", parts
                        else:
                            ip, host, target = ":".join(parts[:-2]), parts[-2], parts[-1]
                    hosts, targets = _expand(host), _expand(target)
                if not targets:
                    self.bad("service %s: port %r has no container port" % (service, p))
                    continue
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

    def env_names(self, service: str, svc: dict):
        env = svc.get("environment") or {}
        names = {}
        if isinstance(env, dict):
            names = {str(k): (None if v is None else str(v)) for k, v in env.items()}
        elif isinstance(env, list):
            for item in env:
                k, eq, v = str(item).partition("=")
                names[k] = v if eq else None
        else:
            self.bad("service %s: environment is neither a map nor a list" % service)
        files = svc.get("env_file") or []
        for f in [files] if isinstance(files, (str, dict)) else files:
            path = f.get("path") if isinstance(f, dict) else f
            full = self.path(path)
            if not os.path.isfile(full):
                if not (isinstance(f, dict) and f.get("required") is False):
                    self.bad("service %s: env_file %s does not exist" % (service, path))
                continue
            with open(full) as fh:
                for line in fh:
                    line = line.strip()
                    if line and not line.startswith("#"):
                        k, _, v = line.partition("=")
                        names[k.replace("export ", "").strip()] = v
        return names

    @staticmethod
    def volume_mounts(svc: dict):
        """[(type, source, target)] from short or long syntax."""
        out = []
        for v in svc.get("volumes") or []:
            if isinstance(v, dict):
                out.append((v.get("type", "volume"), v.get("source"), v.get("target")))
                continue
            parts = str(v).split(":")
            if len(parts) == 1:
                out.append(("volume", None, parts[0]))
            else:
                src, tgt = parts[0], parts[1]
                kind = "bind" if src.startswith((".", "/", "~")) else "volume"
                out.append((kind, src, tgt))
        return out

    # ---- the file ----
    def check(self, doc: dict) -> None:
        services = doc.get("services") or {}
        top_volumes = doc.get("volumes") or {}
        for name in ["mysql", "loadclient"] + self.variants:
            if name not in services:
                self.bad("service %s is missing" % name)

        ports_seen = {}
        for name, svc in services.items():
            if not isinstance(svc, dict):
                self.bad("service %s is not a map" % name)
                continue
            build = svc.get("build")
            if build is None and not svc.get("image"):
                self.bad("service %s has neither build nor image" % name)
            if build is not None:
                if isinstance(build, str):
                    build = {"context": build}
                context = self.path(build.get("context", "."))
                if not os.path.isdir(context):
                    self.bad("service %s: build context %s does not exist" % (name, self.rel(context)))
                else:
                    dockerfile = os.path.normpath(os.path.join(context, str(build.get("dockerfile", "Dockerfile"))))
                    if "dockerfile_inline" in build:
                        self.bad("service %s: dockerfile_inline: keep the Dockerfile in a file" % name)
                    elif not os.path.isfile(dockerfile):
                        self.bad("service %s: Dockerfile %s does not exist" % (name, self.rel(dockerfile)))
                    else:
                        self.built[name] = self.check_dockerfile(name, context, dockerfile, build_args(build))
            elif svc.get("image") and not image_pinned(str(svc["image"])):
                self.bad("service %s: image %s has no version tag (pin it)" % (name, svc["image"]))

            env = self.env_names(name, svc)
            allowed = MYSQL_ENV | {n + "_FILE" for n in MYSQL_ENV} if name == "mysql" else CONTRACT_ENV
            for k in sorted(env):
                if k not in allowed:
                    self.bad("service %s: environment name %s is not %s" % (
                        name, k, "one of the mysql image's MYSQL_* names" if name == "mysql" else "one of contract section 5"))

            deps = svc.get("depends_on") or []
            for d in (deps if isinstance(deps, list) else list(deps)):
                if d not in services:
                    self.bad("service %s depends on %s, which is not a service" % (name, d))

            for kind, src, tgt in self.volume_mounts(svc):
                if kind == "bind" and src:
                    if not os.path.exists(self.path(src)):
                        self.bad("service %s: mounted path %s does not exist" % (name, self._shown(src)))
                elif kind == "volume" and src and src not in top_volumes:
                    self.bad("service %s: named volume %s is not declared under volumes:" % (name, src))

            for ip, host, target, proto in self.published_ports(name, svc.get("ports")):
                if host is None:
                    continue
                for (oip, oproto, ohost), owner in ports_seen.items():
                    if ohost == host and oproto == proto and (not ip or not oip or ip in ("0.0.0.0", "::")
                                                              or oip in ("0.0.0.0", "::") or ip == oip):
                        first, second = sorted((owner, name))
                        self.bad("host port %d/%s is published by both %s and %s" % (host, proto, first, second))
                ports_seen[(ip, proto, host)] = name

        self.check_mysql(services.get("mysql"))
        self.check_variants(services)
        lc = services.get("loadclient")
        if isinstance(lc, dict):
            if not lc.get("profiles"):
                self.bad("service loadclient: not behind a profile (`docker compose up` would start it)")
            if "loadclient.jar" not in " ".join(map(str, lc.get("entrypoint") or [])) and lc.get("build") is None:
                self.bad("service loadclient: neither built nor run with loadclient.jar")
        tp = services.get("toxiproxy")
        if isinstance(tp, dict) and not tp.get("profiles"):
            self.bad("service toxiproxy: not behind a profile")

    def _shown(self, src) -> str:
        """A path as the file wrote it: the CLI makes bind sources absolute; show them relative to the root."""
        s = str(src)
        if os.path.isabs(s) and os.path.normpath(s).startswith(self.root + os.sep):
            return "./" + self.rel(s)
        return s

    def check_mysql(self, mysql) -> None:
        if not isinstance(mysql, dict):
            return
        if not str(mysql.get("image", "")).startswith("mysql:8.4"):
            self.bad("service mysql: image is %r, not mysql:8.4" % mysql.get("image"))
        mounts = self.volume_mounts(mysql)
        schema = os.path.join(self.root, "schema.sql")
        init = [(k, s, t) for k, s, t in mounts if str(t).startswith("/docker-entrypoint-initdb.d")]
        if not any(k == "bind" and s and self.path(s) == schema and str(t).endswith(".sql") for k, s, t in init):
            self.bad("service mysql: schema.sql is not mounted as a .sql file in /docker-entrypoint-initdb.d")
        for k, s, t in init:
            if k == "bind" and s and self.path(s) != schema:
                self.bad("service mysql: %s mounted into /docker-entrypoint-initdb.d is not schema.sql" % self._shown(s))
        if not any(k == "volume" and s and str(t).rstrip("/") == "/var/lib/mysql" for k, s, t in mounts):
            self.bad("service mysql: no named volume at /var/lib/mysql")
        hc = mysql.get("healthcheck") or {}
        if not hc.get("test") or hc.get("disable"):
            self.bad("service mysql: no healthcheck (the variants wait for a healthy mysql)")
        menv = self.env_names("mysql", mysql)
        if not any(menv.get(k) for k in ("MYSQL_ROOT_PASSWORD", "MYSQL_ROOT_PASSWORD_FILE",
                                         "MYSQL_ALLOW_EMPTY_PASSWORD", "MYSQL_RANDOM_ROOT_PASSWORD")):
            self.bad("service mysql: the mysql image needs MYSQL_ROOT_PASSWORD (or MYSQL_RANDOM_ROOT_PASSWORD)")

    def check_variants(self, services: dict) -> None:
        """The variants: built, waiting for a healthy mysql, publishing their PORT."""
        for v in self.variants:
            svc = services.get(v)
            if not isinstance(svc, dict):
                continue
            if svc.get("build") is None:
                self.bad("service %s: not built from its Dockerfile" % v)
            modules = [m for m in self.built.get(v, []) if m]
            if modules and v not in modules:
                self.bad("service %s: its image builds %s, not %s (build: args: MODULE?)" % (v, ",".join(modules), v))
            if svc.get("profiles"):
                self.bad("service %s: behind a profile, so `docker compose up %s` needs --profile" % (v, v))
            deps = svc.get("depends_on") or {}
            if not (isinstance(deps, dict) and isinstance(deps.get("mysql"), dict)
                    and deps["mysql"].get("condition") == "service_healthy"):
                self.bad("service %s: does not depend on mysql with condition: service_healthy" % v)
            env = self.env_names(v, svc)
            port_text = str(env.get("PORT") or "3000")
            port = int(port_text) if port_text.isdigit() else None
            if port is None:
                self.bad("service %s: PORT is not a number" % v)
            elif not any(t == port and h is not None for _, h, t, _ in self.published_ports(v, svc.get("ports"))):
                self.bad("service %s: its PORT %d is not published on a host port" % (v, port))
            for k in ("DB_HOST", "DB_NAME", "DB_USER", "DB_PASSWORD"):
                if not env.get(k):
                    self.bad("service %s: %s is not set (the variants default to 127.0.0.1, not the mysql service)" % (v, k))


@dataclass
class Report:
    problems: list[str]
    #: What the check could not do as usual (no CLI: PyYAML instead).
    notes: list[str]
    #: "cli" (the Compose CLI resolved the file) or "pyyaml".
    source: str
    services: int = 0


def run(root: Path, variants: list[str] | None = None, cli: list[str] | None | bool = True) -> Report:
    """The whole check. ``cli``: True = find (or build) the Compose CLI; False = PyYAML only; a list = that command."""
    root = Path(root).resolve()
    notes: list[str] = []
    problems: list[str] = []
    if not (root / "docker-compose.yml").is_file():
        return Report(["%s/docker-compose.yml is missing" % root], notes, "none")
    if variants is None:
        variants = discover_variants(root)
    command = find_compose_cli(notes=notes) if cli is True else (cli or None)
    doc, source = None, "pyyaml"
    if command:
        doc, complaint = compose_config(command, root)
        if doc is not None:
            source = "cli"
        else:
            problems.append("'%s config' rejects docker-compose.yml: %s" % (" ".join(Path(command[0]).name.split()
                                                                               + command[1:]), complaint))
    if doc is None:
        doc, complaint = yaml_config(root)
        if doc is None:
            return Report(problems + [complaint], notes, source)
    checker = _Checker(str(root), list(variants))
    checker.check(doc)
    return Report(problems + checker.problems, notes, source, len(doc.get("services") or {}))


def check(root: Path, variants: list[str] | None = None, cli: list[str] | None | bool = True) -> list[str]:
    """The problems of ROOT's docker-compose.yml and Dockerfiles (empty: none)."""
    return run(root, variants, cli).problems


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m tradebench_harness.compose_check",
                                     description="static check of docker-compose.yml and the Dockerfiles")
    parser.add_argument("root", nargs="?", default=str(REPO), help="the tree to check (default: this repository)")
    parser.add_argument("--variants", help="comma-separated variant services (default: folders with a variant.yaml)")
    parser.add_argument("--no-cli", action="store_true", help="read the file with PyYAML, not the Compose CLI")
    args = parser.parse_args(argv)
    variants = [v for v in args.variants.split(",") if v] if args.variants else None
    report = run(Path(args.root), variants, cli=not args.no_cli)
    for n in report.notes:
        print("compose check: note: " + n, file=sys.stderr)
    for p in report.problems:
        print("compose check: " + p)
    if report.problems:
        return 1
    print("compose check: docker-compose.yml OK (%d services, read by %s)"
          % (report.services, "the Compose CLI" if report.source == "cli" else "PyYAML"), file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
