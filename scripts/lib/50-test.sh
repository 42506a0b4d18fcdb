# `./tradebench test`: every test of the project, on the private database.
#
# 1. the Java modules' tests (Maven; unit tests and tests against the database),
# 2. node-engine's tests (node:test),
# 3. end to end: each variant started on its own database and checked with
#    `loadclient verify`, once per e2e configuration of its variant.yaml
#    (harness/tradebench_harness/e2e.py),
# 4. the HTTP API fuzzed: Schemathesis against every variant with
#    docs/openapi.yaml, a fixed seed (harness/tradebench_harness/fuzz.py),
# 5. the cluster test: java-spray-async as three cluster members on loopback
#    (cross-member trade, verify, kill -9 and SIGTERM under load, and one
#    member cut off from the others in a network namespace of its own;
#    harness/tradebench_harness/cluster_test.py),
# 6. the reliability suite,
# 7. the static check of docker-compose.yml and the Dockerfiles (the official
#    Compose CLI resolves the file: scripts/lib/30-compose.sh installs it),
# 8. the harness's own tests (pytest, harness/tests), among them the
#    compose check's test on broken copies of the tree, and the
#    bench/compare end-to-end check: a short real compare of two variants
#    (--repeat 2), its results folder, and report.html in headless Chromium.
# `--tier unit|integration|system` runs one tier of these (see TB_TIERS below):
# Java *Test and *IT, node-engine's files that start a service, pytest's markers.
# Each database test uses a database of its own (TRADER_TEST_<MODULE>,
# TRADER_E2E, TRADER_FUZZ_<VARIANT>), created here from schema.sql.

TB_TEST_DBS=(TRADER_TEST_ENGINE_MODEL TRADER_TEST_LOADCLIENT TRADER_E2E TRADER_CLUSTER)

# test_dbs: the databases above, and TRADER_TEST_<VARIANT> (TestDatabase.forModule) and
# TRADER_FUZZ_<VARIANT> (fuzz.py) for every variant
test_dbs() {
  local v V
  printf '%s\n' "${TB_TEST_DBS[@]}"
  for v in $(variant_names); do
    V=$(echo "$v" | tr 'a-z-' 'A-Z_')
    echo "TRADER_TEST_$V"
    echo "TRADER_FUZZ_$V"
  done
}

# cluster_test_tools: the cluster test cuts a member off with iptables inside a network namespace
# (harness/tradebench_harness/netcut.py); installed from the system's packages when we may.
cluster_test_tools() {
  command -v iptables >/dev/null 2>&1 || apt_install iptables \
    || say "no iptables: the cluster test's partition scenario will fail"
}

TB_PASSED=0; TB_FAILED=0; TB_SKIPPED=0; TB_FAILURES=()
step_ok()   { TB_PASSED=$((TB_PASSED + 1)); say "PASS $*"; }
step_fail() { TB_FAILED=$((TB_FAILED + 1)); TB_FAILURES+=("$*"); say "FAIL $*"; }
step_skip() { TB_SKIPPED=$((TB_SKIPPED + 1)); say "SKIP $*"; }

test_db_env() {
  db_start
  local n
  for n in $(test_dbs); do db_apply_schema "$n"; done
  export DB_HOST=127.0.0.1 DB_PORT="$TB_DB_PORT" DB_USER="$TB_DB_USER" DB_PASSWORD="$TB_DB_PASSWORD"
  export TB_REQUIRE_DB=1   # node-engine's database tests fail, rather than skip, when the database is missing
}

# The tiers (./tradebench test --tier T; without --tier: all three, what CI runs):
#   unit         Maven's *Test (surefire, -DskipITs), node-engine's test files
#                that start no service, the harness's tests marked neither
#                integration nor system; no database is started
#   integration  Maven's *IT (failsafe, -DskipUTs) and node-engine's test
#                files that start the service, on the private database
#   system       the variants started and checked: end to end, fuzz, cluster
#                test, reliability suite, compose check, the harness's tests
#                marked system
TB_TIERS="unit integration system"
tier_on() { case " $TB_TIERS " in *" $1 "*) return 0 ;; *) return 1 ;; esac; }

tb_test() {
  local tier=""
  while [ "$#" -gt 0 ]; do
    case "$1" in
      --tier) tier="${2:-}"; shift 2 || shift ;;
      --tier=*) tier="${1#--tier=}"; shift ;;
      *) die "test: unknown argument $1 (usage: ./tradebench test [--tier unit|integration|system])" ;;
    esac
  done
  case "$tier" in
    "") TB_TIERS="unit integration system" ;;
    unit|integration|system) TB_TIERS="$tier" ;;
    *) die "test: --tier is unit, integration or system (not '$tier')" ;;
  esac
  find_java
  local db_was_running=0
  db_running && db_was_running=1
  if tier_on integration || tier_on system; then test_db_env; else unset DB_HOST DB_PORT DB_USER DB_PASSWORD TB_REQUIRE_DB; fi
  local mvn_tests
  if tier_on unit && tier_on integration; then mvn_tests=()
  elif tier_on unit; then mvn_tests=(-DskipITs)
  elif tier_on integration; then mvn_tests=(-DskipUTs)
  else mvn_tests=(-DskipTests)
  fi
  say "Java modules: build and test (Maven${mvn_tests:+ ${mvn_tests[*]}})"
  if tier_on unit || tier_on integration; then
    if (cd "$TB_ROOT" && mvn_cmd --fail-at-end "${mvn_tests[@]}" install); then step_ok "Maven tests (${tier:-all})"; else step_fail "Maven tests (${tier:-all})"; fi
  else
    # the system tier tests the built jars: a failed build fails the tier
    (cd "$TB_ROOT" && mvn_cmd "${mvn_tests[@]}" install) || step_fail "Maven build (-DskipTests)"
  fi
  if [ -d "$TB_ROOT/node-engine" ] && { tier_on unit || tier_on integration; }; then
    local w files=()
    if ! tier_on integration; then mapfile -t files < <(node_test_files unit)
    elif ! tier_on unit; then mapfile -t files < <(node_test_files integration)
    fi
    for w in processes threads; do
      say "node-engine: node --test (WORKERS=$w)"
      if node_test "$w" "${files[@]}"; then step_ok "node-engine tests (WORKERS=$w)"; else step_fail "node-engine tests (WORKERS=$w)"; fi
    done
  fi
  local steps="$TB_STATE/logs/test-steps.txt"
  mkdir -p "$TB_STATE/logs"
  harness_venv
  if tier_on system; then
    if [ -f "$(jar_of loadclient)" ]; then
      say "end to end: every variant once per e2e configuration of its variant.yaml (loadclient verify)"
      : >"$steps"
      harness_run e2e --steps-file "$steps" || grep -q '^FAIL' "$steps" || step_fail "end to end (the harness stopped early)"
      harness_steps "$steps"
    else
      step_skip "end to end (no loadclient jar)"
    fi
    say "the HTTP API fuzzed: Schemathesis against every variant with docs/openapi.yaml (harness/tradebench_harness/fuzz.py)"
    : >"$steps"
    harness_run fuzz --steps-file "$steps" || grep -q '^FAIL' "$steps" || step_fail "fuzz (the harness stopped early)"
    harness_steps "$steps"
    if [ -f "$(jar_of loadclient)" ]; then
      say "the cluster test: java-spray-async as three members (harness/tradebench_harness/cluster_test.py)"
      cluster_test_tools
      : >"$steps"
      harness_run cluster-test --steps-file "$steps" || grep -q '^FAIL' "$steps" || step_fail "cluster test (the harness stopped early)"
      harness_steps "$steps"
    else
      step_skip "cluster test (no loadclient jar)"
    fi
    if [ -f "$(jar_of loadclient)" ]; then
      say "the reliability suite (harness/tradebench_harness/reliability.py)"
      : >"$steps"
      harness_run reliability --steps-file "$steps" || grep -q '^FAIL' "$steps" || step_fail "reliability suite (the harness stopped early)"
      harness_steps "$steps"
    else
      step_skip "reliability suite (no loadclient jar)"
    fi
    say "docker-compose static check (harness/tradebench_harness/compose_check.py)"
    # the Compose CLI the check runs, and the harness's tests after it (TB_COMPOSE)
    compose_install || step_fail "installing the Compose CLI (scripts/lib/30-compose.sh)"
    if harness_run compose-check; then step_ok "docker-compose static check"; else step_fail "docker-compose static check"; fi
  fi
  # the harness's tests by marker (harness/pytest.ini); none is marked integration today
  local marks=()
  if tier_on unit; then marks+=("not integration and not system"); fi
  if tier_on integration; then marks+=("integration"); fi
  if tier_on system; then marks+=("system"); fi
  local expr; expr=$(printf '(%s) or ' "${marks[@]}"); expr=${expr% or }
  say "the harness's own tests (pytest harness/tests -m '$expr')"
  harness_pytest -m "$expr"
  echo
  local f; for f in "${TB_FAILURES[@]}"; do echo "failed: $f"; done
  # what the tests started, they stop
  [ "$db_was_running" = 1 ] || db_stop >/dev/null 2>&1 || true
  echo "tradebench: $TB_PASSED passed, $TB_FAILED failed, $TB_SKIPPED skipped"
  [ "$TB_FAILED" -eq 0 ]
}

# harness_pytest: the harness's tests, one step. pytest's exit 5 (no test collected) is a failure here:
# the folder has tests, so collecting none means they were lost.
harness_pytest() {
  local rc=0
  harness_env
  # the report test looks at report.html in headless Chromium (Debian's chromium package)
  if tier_on system; then
    command -v chromium >/dev/null 2>&1 || apt_install chromium fonts-dejavu-core || say "no chromium: the report test will fail"
  fi
  (cd "$TB_ROOT/harness" && "$TB_VENV/bin/python" -m pytest -q -p no:cacheprovider tests "$@") || rc=$?
  case "$rc" in
    0) step_ok "harness tests (pytest)" ;;
    5) if [ "$TB_TIERS" = integration ]; then step_skip "harness tests (pytest: none is marked integration)"
       else step_fail "harness tests: pytest collected no test in harness/tests"; fi ;;
    *) step_fail "harness tests (pytest exit $rc)" ;;
  esac
}
