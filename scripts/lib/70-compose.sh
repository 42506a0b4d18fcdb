# The static check of docker-compose.yml and the images' Dockerfiles (issue 9).
#
# There is no Docker engine on the project's machines, so `./tradebench test`
# checks the files themselves (compose_check, called by 50-test.sh):
#   - docker-compose.yml parses (PyYAML; duplicate keys are errors);
#   - the services mysql, loadclient and every variant exist, and what they refer
#     to does: build contexts, Dockerfiles, bind-mounted files, named volumes,
#     depends_on targets;
#   - every path a Dockerfile COPYs exists in its build context and is not
#     dropped by .dockerignore; every module of the root pom is in the Maven
#     images' build stage; base images carry a version; the final stage runs
#     as a user other than root;
#   - environment names are those of contract section 5 (the mysql service: the
#     mysql image's own MYSQL_* names);
#   - mysql is mysql:8.4 with schema.sql mounted into /docker-entrypoint-initdb.d,
#     a healthcheck and a named volume; each variant waits for a healthy mysql
#     and publishes its PORT; loadclient and toxiproxy sit behind profiles;
#   - no two services publish the same host port.
# Where a compose CLI is installed, `docker compose config -q` runs as well
# (it needs no engine).
#
# compose_check [ROOT]: ROOT defaults to the repository; the test
# (scripts/test/compose-check-test.sh) runs it on broken copies.

# compose_find_python: sets TB_COMPOSE_PY to a python3 that can import yaml;
# installs Debian's python3-yaml when none can (a fresh machine may have no PyYAML).
TB_COMPOSE_PY=""
compose_find_python() {
  [ -n "$TB_COMPOSE_PY" ] && return 0
  local py try
  for try in 1 2; do
    for py in python3 /usr/bin/python3; do
      py=$(command -v "$py" 2>/dev/null) || continue
      # the interpreter itself, not a wrapper such as a pyenv shim (slow to start)
      py=$("$py" -c 'import sys, yaml; print(sys.executable)' 2>/dev/null) || continue
      [ -x "$py" ] || continue
      TB_COMPOSE_PY="$py"; return 0
    done
    if [ "$try" = 1 ]; then apt_install python3-yaml >/dev/null || true; fi
  done
  say "the docker-compose check needs python3 with PyYAML: install python3-yaml (apt-get) or PyYAML (pip)"
  return 1
}

# compose_cli: prints the command of a compose v2 CLI, when there is one.
compose_cli() {
  if command -v docker >/dev/null 2>&1 && docker compose version >/dev/null 2>&1; then echo "docker compose"; return 0; fi
  if command -v docker-compose >/dev/null 2>&1 && docker-compose version 2>/dev/null | grep -q 'v2\.'; then echo "docker-compose"; return 0; fi
  return 1
}

compose_check() {
  local root="${1:-$TB_ROOT}" py rc=0 cli
  [ -f "$root/docker-compose.yml" ] || { say "compose check: $root/docker-compose.yml is missing"; return 1; }
  compose_find_python || return 1
  py="$TB_COMPOSE_PY"
  "$py" - "$root" "$(variant_names | tr "\n" " ")" <<'PY' || rc=1
import glob, os, re, sys
import yaml

ROOT = os.path.abspath(sys.argv[1])
VARIANTS = sys.argv[2].split()
COMPOSE = os.path.join(ROOT, "docker-compose.yml")

CONTRACT_ENV = {"PORT", "ENGINES", "DELAY_MS", "TIMEOUT_MS", "PRODUCTS", "INBOX_LIMIT", "PERSIST",
            "DB_HOST", "DB_PORT", "DB_NAME", "DB_USER", "DB_PASSWORD", "DB_POOL"}
# The names the mysql image's entrypoint reads (each also as NAME_FILE).
MYSQL_ENV = {"MYSQL_ROOT_PASSWORD", "MYSQL_ALLOW_EMPTY_PASSWORD", "MYSQL_RANDOM_ROOT_PASSWORD",
             "MYSQL_ONETIME_PASSWORD", "MYSQL_DATABASE", "MYSQL_USER", "MYSQL_PASSWORD",
             "MYSQL_ROOT_HOST", "MYSQL_INITDB_SKIP_TZINFO"}
REQUIRED = ["mysql", "loadclient"] + VARIANTS
# What a build context at the root must keep out (sample paths).
MUST_IGNORE = ["engine-model/target", "node-engine/node_modules", ".tradebench", "results", "tools", ".git"]

problems = []
def bad(msg):
    problems.append(msg)

def rel(p):
    return os.path.relpath(p, ROOT)

# ---- YAML, with duplicate keys as errors (compose rejects them; PyYAML keeps the last) ----
class Loader(yaml.SafeLoader):
    pass

def construct_mapping(loader, node, deep=False):
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

Loader.add_constructor(yaml.resolver.BaseResolver.DEFAULT_MAPPING_TAG, construct_mapping)

# ---- interpolation, as with every variable unset: ${X:-d} -> d, ${X} -> "" ----
VAR = re.compile(r"\$(?:(\$)|\{([A-Za-z_][A-Za-z0-9_]*)(?:(:?[-?+])((?:[^{}]|\{[^{}]*\})*))?\}|([A-Za-z_][A-Za-z0-9_]*))")

def interpolate(value):
    if isinstance(value, str):
        def rep(m):
            if m.group(1):
                return "$"
            op, arg = m.group(3), m.group(4) or ""
            return interpolate(arg) if op in (":-", "-") else ""
        return VAR.sub(rep, value)
    if isinstance(value, list):
        return [interpolate(v) for v in value]
    if isinstance(value, dict):
        return {k: interpolate(v) for k, v in value.items()}
    return value

# ---- .dockerignore (Docker's rules: ** any depth, a match on a folder covers its content, ! re-includes) ----
def ignore_regex(pattern):
    out, i = "", 0
    while i < len(pattern):
        c = pattern[i]
        if pattern.startswith("**/", i):
            out += "(?:.*/)?"; i += 3; continue
        if pattern.startswith("**", i):
            out += ".*"; i += 2; continue
        if c == "*":
            out += "[^/]*"
        elif c == "?":
            out += "[^/]"
        elif c == "[":
            j = pattern.find("]", i)
            if j < 0:
                out += re.escape(c)
            else:
                out += pattern[i:j + 1].replace("[!", "[^"); i = j
        elif c == "\\" and i + 1 < len(pattern):
            i += 1; out += re.escape(pattern[i])
        else:
            out += re.escape(c)
        i += 1
    return re.compile("^" + out + "$")

def read_ignore(context, dockerfile):
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
                    rules.append((neg, ignore_regex(pat)))
            break
    return rules

def ignored(rules, path):
    path = os.path.normpath(path).lstrip("/")
    parts = path.split("/")
    prefixes = ["/".join(parts[:n]) for n in range(1, len(parts) + 1)]
    result = False
    for neg, rx in rules:
        if any(rx.match(p) for p in prefixes):
            result = not neg
    return result

# ---- Dockerfiles ----
def dockerfile_instructions(text):
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

def copy_args(rest):
    """(flags, sources, dest) of a COPY/ADD."""
    flags = {}
    tokens = rest.split()
    while tokens and tokens[0].startswith("--"):
        k, _, v = tokens.pop(0)[2:].partition("=")
        flags[k] = v
    rest = " ".join(tokens)
    if rest.startswith("["):
        try:
            import json
            items = json.loads(rest)
        except ValueError:
            return flags, None, None
    else:
        items = rest.split()
    if len(items) < 2:
        return flags, None, None
    return flags, items[:-1], items[-1]

def image_pinned(ref):
    ref = ref.split("@", 1)
    if len(ref) == 2:
        return True             # a digest
    name = ref[0]
    tag = name.rsplit(":", 1)[1] if ":" in name.rsplit("/", 1)[-1] else ""
    return bool(tag) and tag != "latest"

def root_modules(context):
    pom = os.path.join(context, "pom.xml")
    if not os.path.isfile(pom):
        return []
    with open(pom) as f:
        text = re.sub(r"<!--.*?-->", "", f.read(), flags=re.S)
    return re.findall(r"<module>\s*([^<\s]+)\s*</module>", text)

def check_dockerfile(service, context, dockerfile):
    where = "%s (%s)" % (rel(dockerfile), service)
    with open(dockerfile) as f:
        instructions = dockerfile_instructions(f.read())
    rules = read_ignore(context, dockerfile)
    if os.path.abspath(context) == ROOT:
        for p in MUST_IGNORE:
            if not ignored(rules, p):
                bad("%s: build context is the repository root but .dockerignore does not exclude %s" % (where, p))
    global_args, stages, users, copied = {}, [], {}, []
    runs = []
    for op, rest in instructions:
        if op == "ARG" and not stages:
            k, _, v = rest.partition("=")
            global_args[k.strip()] = v.strip().strip('"')
        elif op == "FROM":
            words = [w for w in rest.split() if not w.startswith("--")]
            if not words:
                bad("%s: FROM without an image" % where); continue
            image = re.sub(r"\$\{?([A-Za-z_][A-Za-z0-9_]*)\}?", lambda m: global_args.get(m.group(1), ""), words[0])
            name = words[2] if len(words) >= 3 and words[1].upper() == "AS" else None
            if image not in [s for s in stages if s] and image != "scratch" and not image_pinned(image):
                bad("%s: base image %s has no version tag (pin it)" % (where, image))
            stages.append(name)
            users[len(stages) - 1] = None
        elif op in ("COPY", "ADD"):
            if not stages:
                bad("%s: %s before FROM" % (where, op)); continue
            flags, sources, _ = copy_args(rest)
            if sources is None:
                if "<<" not in rest:
                    bad("%s: cannot read '%s %s'" % (where, op, rest))
                continue
            if "from" in flags:
                src_stage = flags["from"]
                if src_stage not in [s for s in stages[:-1] if s] and not src_stage.isdigit() and not image_pinned(src_stage):
                    bad("%s: COPY --from=%s names no earlier stage" % (where, src_stage))
                continue
            for src in sources:
                if src.startswith("<<") or re.match(r"^(https?://|git@)", src):
                    continue
                path = os.path.normpath(os.path.join(context, src.lstrip("/")))
                if not os.path.abspath(path).startswith(os.path.abspath(context)):
                    bad("%s: %s %s leaves the build context %s" % (where, op, src, rel(context))); continue
                matches = glob.glob(path)
                if not matches:
                    bad("%s: %s %s: no such path in the build context %s" % (where, op, src, rel(context) if rel(context) != "." else "(repository root)"))
                    continue
                if all(ignored(rules, os.path.relpath(m, context)) for m in matches):
                    bad("%s: %s %s: excluded by .dockerignore" % (where, op, src))
                copied.append(os.path.normpath(src.lstrip("/")).rstrip("/"))
        elif op == "USER":
            if stages:
                users[len(stages) - 1] = rest.strip()
        elif op == "RUN":
            runs.append(rest)
    if not stages:
        bad("%s: no FROM" % where)
        return
    last_user = users.get(len(stages) - 1)
    if not last_user or last_user.split(":")[0] in ("root", "0"):
        bad("%s: the final stage runs as root (add USER)" % where)
    # Maven images: every reactor module's pom must be in the build stage, and
    # the module built (-pl) must be one of them, with its sources.
    mvn = [r for r in runs if re.search(r"\bmvn\b", r)]
    modules = root_modules(context)
    if mvn and modules:
        for m in modules:
            if not any(c in (".", m, m + "/pom.xml") for c in copied):
                bad("%s: the build stage does not COPY %s/pom.xml (Maven needs every module of the root pom)" % (where, m))
        for run in mvn:
            for pl in re.findall(r"-pl\s+(\S+)", run):
                for m in pl.split(","):
                    if m not in modules:
                        bad("%s: mvn -pl %s: not a module of the root pom" % (where, m))
                    elif not any(c in (".", m, m + "/src") for c in copied):
                        bad("%s: the build stage does not COPY %s/src" % (where, m))

# ---- ports ----
def expand(text):
    text = str(text).strip()
    if not text:
        return []
    if "-" in text:
        a, b = text.split("-", 1)
        return list(range(int(a), int(b) + 1))
    return [int(text)]

def published_ports(service, spec):
    """[(host_ip, host_port, container_port, protocol)]"""
    out = []
    for p in spec or []:
        try:
            if isinstance(p, dict):
                hosts, targets = expand(p.get("published", "")), expand(p.get("target", ""))
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
                hosts, targets = expand(host), expand(target)
            if not targets:
                bad("service %s: port %r has no container port" % (service, p)); continue
            if hosts and len(hosts) != len(targets) and len(targets) != 1:
                bad("service %s: port %r: ranges of different sizes" % (service, p)); continue
            for i, h in enumerate(hosts):
                out.append((ip, h, targets[i] if len(targets) > 1 else targets[0], proto))
            if not hosts:
                out.extend((ip, None, t, proto) for t in targets)
        except ValueError:
            bad("service %s: cannot read port %r" % (service, p))
    return out

def env_names(service, svc):
    env = svc.get("environment") or {}
    names = {}
    if isinstance(env, dict):
        names = {str(k): (None if v is None else str(v)) for k, v in env.items()}
    elif isinstance(env, list):
        for item in env:
            k, eq, v = str(item).partition("=")
            names[k] = v if eq else None
    else:
        bad("service %s: environment is neither a map nor a list" % service)
    files = svc.get("env_file") or []
    for f in [files] if isinstance(files, (str, dict)) else files:
        path = f.get("path") if isinstance(f, dict) else f
        full = os.path.join(ROOT, path)
        if not os.path.isfile(full):
            if not (isinstance(f, dict) and f.get("required") is False):
                bad("service %s: env_file %s does not exist" % (service, path))
            continue
        with open(full) as fh:
            for line in fh:
                line = line.strip()
                if line and not line.startswith("#"):
                    k, _, v = line.partition("=")
                    names[k.replace("export ", "").strip()] = v
    return names

def volume_mounts(service, svc):
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

# ---- the compose file ----
try:
    with open(COMPOSE) as f:
        doc = yaml.load(f, Loader=Loader)
except yaml.YAMLError as e:
    print("compose check: docker-compose.yml does not parse: %s" % e)
    sys.exit(1)
if not isinstance(doc, dict) or not isinstance(doc.get("services"), dict):
    print("compose check: docker-compose.yml has no services map")
    sys.exit(1)
doc = interpolate(doc)
services = doc["services"]
top_volumes = doc.get("volumes") or {}

for name in REQUIRED:
    if name not in services:
        bad("service %s is missing" % name)

dockerfiles = 0
ports_seen = {}
for name, svc in services.items():
    if not isinstance(svc, dict):
        bad("service %s is not a map" % name); continue
    build = svc.get("build")
    if build is None and not svc.get("image"):
        bad("service %s has neither build nor image" % name)
    if build is not None:
        if isinstance(build, str):
            build = {"context": build}
        context = os.path.normpath(os.path.join(ROOT, str(build.get("context", "."))))
        if not os.path.isdir(context):
            bad("service %s: build context %s does not exist" % (name, rel(context)))
        else:
            dockerfile = os.path.normpath(os.path.join(context, str(build.get("dockerfile", "Dockerfile"))))
            if "dockerfile_inline" in build:
                bad("service %s: dockerfile_inline: keep the Dockerfile in a file" % name)
            elif not os.path.isfile(dockerfile):
                bad("service %s: Dockerfile %s does not exist" % (name, rel(dockerfile)))
            else:
                dockerfiles += 1
                check_dockerfile(name, context, dockerfile)
    elif svc.get("image") and not image_pinned(str(svc["image"])):
        bad("service %s: image %s has no version tag (pin it)" % (name, svc["image"]))

    env = env_names(name, svc)
    allowed = MYSQL_ENV | {n + "_FILE" for n in MYSQL_ENV} if name == "mysql" else CONTRACT_ENV
    for k in sorted(env):
        if k not in allowed:
            bad("service %s: environment name %s is not %s" % (
                name, k, "one of the mysql image's MYSQL_* names" if name == "mysql" else "one of contract section 5"))

    deps = svc.get("depends_on") or []
    for d in (deps if isinstance(deps, list) else list(deps)):
        if d not in services:
            bad("service %s depends on %s, which is not a service" % (name, d))

    for kind, src, tgt in volume_mounts(name, svc):
        if kind == "bind" and src:
            if not os.path.exists(os.path.join(ROOT, os.path.expanduser(src))):
                bad("service %s: mounted path %s does not exist" % (name, src))
        elif kind == "volume" and src and src not in top_volumes:
            bad("service %s: named volume %s is not declared under volumes:" % (name, src))

    for ip, host, target, proto in published_ports(name, svc.get("ports")):
        if host is None:
            continue
        for (oip, oproto, ohost), owner in ports_seen.items():
            if ohost == host and oproto == proto and (not ip or not oip or ip in ("0.0.0.0", "::") or oip in ("0.0.0.0", "::") or ip == oip):
                bad("host port %d/%s is published by both %s and %s" % (host, proto, owner, name))
        ports_seen[(ip, proto, host)] = name

# mysql: the image, the schema, the data volume, the healthcheck
mysql = services.get("mysql")
if isinstance(mysql, dict):
    if not str(mysql.get("image", "")).startswith("mysql:8.4"):
        bad("service mysql: image is %r, not mysql:8.4" % mysql.get("image"))
    mounts = volume_mounts("mysql", mysql)
    schema = os.path.join(ROOT, "schema.sql")
    init = [(k, s, t) for k, s, t in mounts if str(t).startswith("/docker-entrypoint-initdb.d")]
    if not any(k == "bind" and s and os.path.abspath(os.path.join(ROOT, s)) == schema and str(t).endswith(".sql")
               for k, s, t in init):
        bad("service mysql: schema.sql is not mounted as a .sql file in /docker-entrypoint-initdb.d")
    for k, s, t in init:
        if k == "bind" and s and os.path.abspath(os.path.join(ROOT, s)) != schema:
            bad("service mysql: %s mounted into /docker-entrypoint-initdb.d is not schema.sql" % s)
    if not any(k == "volume" and s and str(t).rstrip("/") == "/var/lib/mysql" for k, s, t in mounts):
        bad("service mysql: no named volume at /var/lib/mysql")
    hc = mysql.get("healthcheck") or {}
    if not hc.get("test") or hc.get("disable"):
        bad("service mysql: no healthcheck (the variants wait for a healthy mysql)")
    menv = env_names("mysql", mysql)
    if not any(menv.get(k) for k in ("MYSQL_ROOT_PASSWORD", "MYSQL_ROOT_PASSWORD_FILE", "MYSQL_ALLOW_EMPTY_PASSWORD", "MYSQL_RANDOM_ROOT_PASSWORD")):
        bad("service mysql: the mysql image needs MYSQL_ROOT_PASSWORD (or MYSQL_RANDOM_ROOT_PASSWORD)")

# the variants: built, waiting for a healthy mysql, publishing their PORT
for v in VARIANTS:
    svc = services.get(v)
    if not isinstance(svc, dict):
        continue
    if svc.get("build") is None:
        bad("service %s: not built from its Dockerfile" % v)
    if svc.get("profiles"):
        bad("service %s: behind a profile, so `docker compose up %s` needs --profile" % (v, v))
    deps = svc.get("depends_on") or {}
    if not (isinstance(deps, dict) and isinstance(deps.get("mysql"), dict)
            and deps["mysql"].get("condition") == "service_healthy"):
        bad("service %s: does not depend on mysql with condition: service_healthy" % v)
    env = env_names(v, svc)
    port = int(env.get("PORT") or 3000) if str(env.get("PORT") or "3000").isdigit() else None
    if port is None:
        bad("service %s: PORT is not a number" % v)
    elif not any(t == port and h is not None for _, h, t, _ in published_ports(v, svc.get("ports"))):
        bad("service %s: its PORT %d is not published on a host port" % (v, port))
    for k in ("DB_HOST", "DB_NAME", "DB_USER", "DB_PASSWORD"):
        if not env.get(k):
            bad("service %s: %s is not set (the variants default to 127.0.0.1, not the mysql service)" % (v, k))

lc = services.get("loadclient")
if isinstance(lc, dict):
    if not lc.get("profiles"):
        bad("service loadclient: not behind a profile (`docker compose up` would start it)")
    if "loadclient.jar" not in " ".join(map(str, lc.get("entrypoint") or [])) and lc.get("build") is None:
        bad("service loadclient: neither built nor run with loadclient.jar")

tp = services.get("toxiproxy")
if isinstance(tp, dict) and not tp.get("profiles"):
    bad("service toxiproxy: not behind a profile")

for p in problems:
    print("compose check: " + p)
if problems:
    sys.exit(1)
print("compose check: docker-compose.yml OK (%d services, %d Dockerfiles)" % (len(services), dockerfiles), file=sys.stderr)
PY
  if cli=$(compose_cli); then
    # shellcheck disable=SC2086
    if (cd "$root" && $cli -f docker-compose.yml config -q); then
      say "compose check: '$cli config -q' OK"
    else
      say "compose check: '$cli config -q' rejects docker-compose.yml"; rc=1
    fi
  fi
  return "$rc"
}
