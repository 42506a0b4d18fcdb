# `./tradebench test`: every test of the project, on the private database.
#
# 1. the Java modules' tests (Maven; unit tests and tests against the database),
# 2. node-engine's tests (node:test),
# 3. end to end: each variant started on its own database and checked with
#    `loadclient verify`, once per line of VARIANT/e2e.env,
# 4. the static check of docker-compose.yml.
# Each database test uses a database of its own (TRADER_TEST_<MODULE>,
# TRADER_E2E), created here from schema.sql.

TB_TEST_DBS=(TRADER_TEST_ENGINE_MODEL TRADER_TEST_JAVA_THREADS TRADER_TEST_JAVA_AKKA
             TRADER_TEST_JAVA_SPRAY_ASYNC TRADER_TEST_NODE_ENGINE TRADER_TEST_LOADCLIENT TRADER_E2E)

TB_PASSED=0; TB_FAILED=0; TB_FAILURES=()
step_ok()   { TB_PASSED=$((TB_PASSED + 1)); say "PASS $*"; }
step_fail() { TB_FAILED=$((TB_FAILED + 1)); TB_FAILURES+=("$*"); say "FAIL $*"; }

# free_port: a TCP port nobody listens on.
free_port() {
  local p
  for ((p = 3100 + RANDOM % 800; ; p++)); do port_in_use "$p" || { echo "$p"; return; }; done
}

test_db_env() {
  db_start
  local n
  for n in "${TB_TEST_DBS[@]}"; do db_apply_schema "$n"; done
  export DB_HOST=127.0.0.1 DB_PORT="$TB_DB_PORT" DB_USER="$TB_DB_USER" DB_PASSWORD="$TB_DB_PASSWORD"
  export TB_REQUIRE_DB=1   # database tests fail, rather than skip, when the database is missing
}

# e2e_variant VARIANT: start it once per configuration line, verify, stop.
e2e_variant() {
  local v="$1" conf line
  conf="$TB_ROOT/$v/e2e.env"
  local lines=("PERSIST=per-sale" "PERSIST=batch")
  if [ -f "$conf" ]; then mapfile -t lines < <(grep -v '^\s*#' "$conf" | grep -v '^\s*$'); fi
  ensure_variant_built "$v" || { step_fail "$v: build"; return; }
  for line in "${lines[@]}"; do
    e2e_one "$v" "$line"
  done
}

e2e_one() {
  local v="$1" settings="$2" port log pid rc
  port=$(free_port)
  log="$TB_STATE/logs/e2e-$v-$(echo "$settings" | tr ' =' '_-').log"
  mkdir -p "$TB_STATE/logs"
  db_root_sql -e "DELETE FROM TRADER_E2E.SALES" >/dev/null
  # shellcheck disable=SC2046,SC2086
  (export PORT="$port" DB_NAME=TRADER_E2E ENGINES=4 $settings; exec $(variant_cmd "$v")) >"$log" 2>&1 &
  pid=$!
  if ! wait_http "http://127.0.0.1:$port/health" 90; then
    kill -9 "$pid" 2>/dev/null; wait "$pid" 2>/dev/null
    step_fail "$v [$settings]: not healthy within 90 s (log: $log)"; tail -n 30 "$log" >&2; return
  fi
  if tb_loadclient verify --url "http://127.0.0.1:$port" --db-url "$(jdbc_url_for TRADER_E2E)" >>"$log.verify" 2>&1; then
    rc=0
  else
    rc=1; tail -n 40 "$log.verify" >&2
  fi
  kill -TERM "$pid" 2>/dev/null
  local exit_rc=0; wait "$pid" || exit_rc=$?
  if [ "$rc" -eq 0 ] && [ "$exit_rc" -eq 0 ]; then step_ok "$v [$settings]: loadclient verify, clean SIGTERM exit"
  elif [ "$rc" -ne 0 ]; then step_fail "$v [$settings]: loadclient verify (log: $log.verify)"
  else step_fail "$v [$settings]: exit code $exit_rc after SIGTERM (log: $log)"; fi
}

tb_test() {
  find_java
  local db_was_running=0
  db_running && db_was_running=1
  test_db_env
  say "Java modules: build and test (Maven)"
  if (cd "$TB_ROOT" && mvn_cmd --fail-at-end install); then step_ok "Maven tests"; else step_fail "Maven tests"; fi
  if [ -d "$TB_ROOT/node-engine" ]; then
    say "node-engine: node --test"
    if node_test; then step_ok "node-engine tests"; else step_fail "node-engine tests"; fi
  fi
  local v
  if [ -f "$(jar_of loadclient)" ]; then
    for v in "${VARIANTS[@]}"; do
      [ -f "$TB_ROOT/$v/e2e.env" ] && e2e_variant "$v"
    done
  fi
  if [ -f "$(jar_of loadclient)" ]; then rel_test || step_fail "reliability suite (scripts/lib/65-reliability.sh) stopped early"; fi
  if [ -f "$(jar_of loadclient)" ]; then
    if bench_selftest; then step_ok "bench/compare end to end"; else step_fail "bench/compare end to end"; fi
  fi
  if declare -F compose_check >/dev/null; then
    if compose_check; then step_ok "docker-compose static check"; else step_fail "docker-compose static check"; fi
    if bash "$TB_ROOT/scripts/test/compose-check-test.sh"; then step_ok "docker-compose check catches broken copies"; else step_fail "docker-compose check test (scripts/test/compose-check-test.sh)"; fi
  fi
  echo
  local f; for f in "${TB_FAILURES[@]}"; do echo "failed: $f"; done
  # what the tests started, they stop
  [ "$db_was_running" = 1 ] || db_stop >/dev/null 2>&1 || true
  echo "tradebench: $TB_PASSED passed, $TB_FAILED failed"
  [ "$TB_FAILED" -eq 0 ]
}
