# node-engine: npm install and the node commands of the launcher.

node_check() {
  command -v node >/dev/null 2>&1 || apt_install nodejs npm || die "node-engine needs Node.js 20+: install it"
  local major; major=$(node -p 'process.versions.node.split(".")[0]')
  [ "$major" -ge 20 ] || die "node-engine needs Node.js 20 or newer (found $(node --version))"
}

# node_install: npm ci when node_modules is missing or older than the lock file.
node_install() {
  node_check
  local d="$TB_ROOT/node-engine"
  [ -f "$d/package-lock.json" ] || die "node-engine/package-lock.json is missing"
  if [ ! -d "$d/node_modules" ] || [ "$d/package-lock.json" -nt "$d/node_modules/.package-lock.json" ]; then
    say "installing node-engine's packages (npm ci)"
    (cd "$d" && npm ci --no-audit --no-fund --loglevel=error) >&2 || die "npm ci failed in node-engine"
  fi
}

node_replay() {
  node_install
  exec node "$TB_ROOT/node-engine/src/replay.js" "$1"
}

# node_test: the node-engine's own tests (node:test). One file at a time: the
# files share one test database, and database.test.js counts SALES rows that
# another file's service would otherwise be adding meanwhile (node runs files
# in parallel on machines with more than two cores).
node_test() {
  node_install
  (cd "$TB_ROOT/node-engine" && node --test --test-concurrency=1 --test-reporter=spec test/) || return 1
}
