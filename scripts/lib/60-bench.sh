# `./tradebench bench` and `./tradebench compare`: the main job (contract section 7).
#
# bench: private database (or DB_HOST) -> SALES emptied -> variant built and
# started -> healthy (90 s limit) -> `loadclient verify` -> restarted (an empty
# market) -> warm-up + measured
# `loadclient load --db-url` while the variant's process tree is sampled every
# second -> one result row, kept as JSON under results/. Whatever it started is
# stopped, on success, failure or Ctrl-C.

TB_RESULTS="$TB_ROOT/results"
TOXIPROXY_VERSION=v2.12.0

bench_usage() {
  cat >&2 <<'TXT'
usage: ./tradebench bench VARIANT [--engines N] [--wait MS] [--concurrency N] [--duration S]
          [--warmup S] [--persist per-sale|batch] [--db-latency MS] [--rate R] [--label TEXT] [--no-verify]
       ./tradebench compare [same options] [--variants "v1 v2 ..."] [--experiment 2014]
Extra variant settings pass through the environment (e.g. THREADS=virtual, DISPATCHER=fork-join).
TXT
}

# bench options -> B_* globals
bench_parse() {
  B_ENGINES=4; B_WAIT=0; B_CONC=64; B_DURATION=30; B_WARMUP=10; B_PERSIST=per-sale
  B_DB_LATENCY=0; B_RATE=""; B_LABEL=""; B_VERIFY=1; B_VARIANTS=""; B_EXPERIMENT=""
  while [ $# -gt 0 ]; do
    case "$1" in
      --engines) B_ENGINES="$2"; shift ;;
      --wait) B_WAIT="$2"; shift ;;
      --concurrency) B_CONC="$2"; shift ;;
      --duration) B_DURATION="$2"; shift ;;
      --warmup) B_WARMUP="$2"; shift ;;
      --persist) B_PERSIST="$2"; shift ;;
      --db-latency) B_DB_LATENCY="$2"; shift ;;
      --rate) B_RATE="$2"; shift ;;
      --label) B_LABEL="$2"; shift ;;
      --no-verify) B_VERIFY=0 ;;
      --variants) B_VARIANTS="$2"; shift ;;
      --experiment) B_EXPERIMENT="$2"; shift ;;
      -h|--help) bench_usage; exit 0 ;;
      *) bench_usage; die "unknown option: $1" ;;
    esac
    shift
  done
  case "$B_PERSIST" in per-sale|batch) ;; *) die "--persist must be per-sale or batch" ;; esac
  local n
  for n in "$B_ENGINES" "$B_WAIT" "$B_CONC" "$B_DURATION" "$B_WARMUP" "$B_DB_LATENCY" ${B_RATE:+"$B_RATE"}; do
    [[ "$n" =~ ^[0-9]+$ ]] || die "options take whole numbers (got '$n')"
  done
}

python_check() { command -v python3 >/dev/null 2>&1 || apt_install python3 || die "bench needs python3 (for sampling and reports)"; }

# sql_on_db SQL: runs SQL on the benchmark database (private: root socket; else the DB_* user).
sql_on_db() {
  if [ "$B_PRIVATE_DB" = 1 ]; then db_root_sql "$DB_NAME" -e "$1"
  else "$(db_client_bin)" --no-defaults -h "$DB_HOST" -P "$DB_PORT" -u "$DB_USER" -p"$DB_PASSWORD" "$DB_NAME" -e "$1"; fi
}

# --- Toxiproxy: the slow database ------------------------------------------------

toxiproxy_bin() {
  command -v toxiproxy-server 2>/dev/null && return 0
  [ -x "$TB_TOOLS/toxiproxy-server" ] && { echo "$TB_TOOLS/toxiproxy-server"; return 0; }
  if command -v go >/dev/null 2>&1 || [ -x /usr/local/go/bin/go ]; then
    local go; go=$(command -v go || echo /usr/local/go/bin/go)
    say "installing toxiproxy-server $TOXIPROXY_VERSION with go install into tools/"
    mkdir -p "$TB_TOOLS/gobin"
    if GOBIN="$TB_TOOLS/gobin" "$go" install "github.com/Shopify/toxiproxy/v2/cmd/server@$TOXIPROXY_VERSION" >&2; then
      mv "$TB_TOOLS/gobin/server" "$TB_TOOLS/toxiproxy-server" && { echo "$TB_TOOLS/toxiproxy-server"; return 0; }
    fi
  fi
  die "--db-latency needs toxiproxy-server: none on PATH or in tools/, and 'go install github.com/Shopify/toxiproxy/v2/cmd/server@$TOXIPROXY_VERSION' was not possible (install Go 1.22+, or put toxiproxy-server on PATH)"
}

# toxiproxy_start LATENCY_MS: a proxy in front of the database; sets DB_HOST/DB_PORT to it.
toxiproxy_start() {
  local bin api listen
  bin=$(toxiproxy_bin)
  api=$(free_port); listen=$(free_port)
  "$bin" -host 127.0.0.1 -port "$api" >"$B_DIR/toxiproxy.log" 2>&1 &
  B_TOXI_PID=$!
  echo "$B_TOXI_PID" >>"$B_DIR/pids"
  wait_http "http://127.0.0.1:$api/version" 20 || die "toxiproxy did not start (see $B_DIR/toxiproxy.log)"
  curl -fsS -X POST "http://127.0.0.1:$api/proxies" -d \
    "{\"name\":\"mysql\",\"listen\":\"127.0.0.1:$listen\",\"upstream\":\"$DB_HOST:$DB_PORT\",\"enabled\":true}" >/dev/null \
    || die "could not create the toxiproxy proxy"
  # latency on what the database sends back: each round trip gets +LATENCY ms
  curl -fsS -X POST "http://127.0.0.1:$api/proxies/mysql/toxics" -d \
    "{\"name\":\"slow-db\",\"type\":\"latency\",\"stream\":\"downstream\",\"attributes\":{\"latency\":$1,\"jitter\":0}}" >/dev/null \
    || die "could not add the latency toxic"
  say "slow database: 127.0.0.1:$listen -> $DB_HOST:$DB_PORT with +$1 ms per round trip (toxiproxy)"
  B_VARIANT_DB_HOST=127.0.0.1; B_VARIANT_DB_PORT=$listen
}

# --- one bench run --------------------------------------------------------------

# bench_stop_variant: SIGTERM (its drain), SIGKILL after 15 s.
bench_stop_variant() {
  if [ -n "${B_VARIANT_PID:-}" ] && kill -0 "$B_VARIANT_PID" 2>/dev/null; then
    kill -TERM "$B_VARIANT_PID" 2>/dev/null
    local i; for ((i = 0; i < 150; i++)); do kill -0 "$B_VARIANT_PID" 2>/dev/null || break; sleep 0.1; done
    if kill -0 "$B_VARIANT_PID" 2>/dev/null; then
      pkill -KILL -P "$B_VARIANT_PID" 2>/dev/null; kill -KILL "$B_VARIANT_PID" 2>/dev/null
    fi
    wait "$B_VARIANT_PID" 2>/dev/null
  fi
  B_VARIANT_PID=""
}

# bench_start_variant VARIANT PORT: starts it (log appended to variant.log) and waits until healthy.
bench_start_variant() {
  local v="$1" port="$2"
  # shellcheck disable=SC2046
  (export PORT="$port" ENGINES="$B_ENGINES" PERSIST="$B_PERSIST" DB_HOST="$B_VARIANT_DB_HOST" DB_PORT="$B_VARIANT_DB_PORT";
   exec $(variant_cmd "$v")) >>"$B_DIR/variant.log" 2>&1 &
  B_VARIANT_PID=$!
  echo "$B_VARIANT_PID" >>"$B_DIR/pids"
  if ! wait_http "http://127.0.0.1:$port/health" 90; then
    tail -n 20 "$B_DIR/variant.log" >&2
    die "$v was not healthy within 90 s (log: $B_DIR/variant.log)"
  fi
}

bench_cleanup() {
  [ -n "${B_SAMPLER_PID:-}" ] && kill "$B_SAMPLER_PID" 2>/dev/null
  bench_stop_variant
  [ -n "${B_TOXI_PID:-}" ] && { kill "$B_TOXI_PID" 2>/dev/null; wait "$B_TOXI_PID" 2>/dev/null; }
  B_SAMPLER_PID=""; B_VARIANT_PID=""; B_TOXI_PID=""
}

# bench_one VARIANT: one run with the B_* settings; prints the row; sets B_LAST_RESULT.
bench_one() {
  local v="$1"
  variant_known "$v" || die "unknown variant: $v (one of: $(variant_names | tr "\n" " "))"
  [ -d "$TB_ROOT/$v" ] || die "variant $v is not in this tree yet"
  python_check
  local stamp; stamp=$(date +%Y%m%d-%H%M%S)
  B_DIR="$TB_RESULTS/runs/$stamp-$v"
  mkdir -p "$B_DIR"
  trap 'bench_cleanup' EXIT
  trap 'bench_cleanup; exit 130' INT TERM

  ensure_variant_built "$v"
  ensure_jar loadclient
  B_PRIVATE_DB=0; [ -z "${DB_HOST:-}" ] && B_PRIVATE_DB=1
  db_env
  export DB_NAME="${DB_NAME:-TRADER}"
  sql_on_db "DELETE FROM SALES" || die "could not empty SALES in $DB_NAME"
  B_VARIANT_DB_HOST="$DB_HOST"; B_VARIANT_DB_PORT="$DB_PORT"
  [ "$B_DB_LATENCY" -gt 0 ] && toxiproxy_start "$B_DB_LATENCY"

  B_T0=$SECONDS
  local port; port=$(free_port)
  say "starting $v on port $port (engines=$B_ENGINES persist=$B_PERSIST)"
  : >"$B_DIR/variant.log"
  bench_start_variant "$v" "$port"
  local url="http://127.0.0.1:$port" dburl; dburl=$(jdbc_url_for "$DB_NAME")
  if [ "$B_VERIFY" = 1 ]; then
    say "verifying $v before measuring it"
    # behind a slow database a cycle's sales take seconds to store: verify with
    # fewer random orders, and give the market longer to go quiet
    local verify_args=()
    [ "$B_DB_LATENCY" -gt 0 ] && verify_args=(--orders 300 --quiet-timeout 90)
    tb_loadclient verify --url "$url" --db-url "$dburl" "${verify_args[@]}" >"$B_DIR/verify.log" 2>&1 \
      || { tail -n 30 "$B_DIR/verify.log" >&2; die "$v failed loadclient verify: not benchmarked (log: $B_DIR/verify.log)"; }
    # verify leaves orders in the market (two of 1,000,000 units, open until
    # TIMEOUT_MS) that would trade with the load: measure a fresh market.
    say "restarting $v: the measured run starts with an empty market"
    bench_stop_variant
    bench_start_variant "$v" "$port"
  fi
  python3 "$TB_ROOT/scripts/bench/sample.py" "$B_VARIANT_PID" "$B_DIR/samples.jsonl" &
  B_SAMPLER_PID=$!
  echo "$B_SAMPLER_PID" >>"$B_DIR/pids"
  say "load: warm-up ${B_WARMUP}s, measured ${B_DURATION}s"
  local load_args=(--url "$url" --concurrency "$B_CONC" --duration "$B_DURATION" --warmup "$B_WARMUP"
                   --db-url "$dburl" --json "$B_DIR/load.json")
  if [ -n "$B_RATE" ]; then load_args+=(--rate "$B_RATE"); else load_args+=(--wait "$B_WAIT"); fi
  tb_loadclient load "${load_args[@]}" 2>&1 | tee "$B_DIR/load.log" | bench_progress "$v" "$url" \
    || die "the load client failed (log: $B_DIR/load.log)"
  [ -f "$B_DIR/load.json" ] || die "the load client wrote no result (log: $B_DIR/load.log)"
  bench_cleanup
  trap - EXIT INT TERM
  local extra=""
  [ -n "${THREADS:-}" ] && extra+="THREADS=$THREADS "
  [ -n "${DISPATCHER:-}" ] && extra+="DISPATCHER=$DISPATCHER "
  cat >"$B_DIR/meta.json" <<JSON
{"variant": "$v", "engines": $B_ENGINES, "persist": "$B_PERSIST", "waitMs": $B_WAIT, "concurrency": $B_CONC,
 "rate": ${B_RATE:-null}, "durationS": $B_DURATION, "warmupS": $B_WARMUP, "dbLatencyMs": $B_DB_LATENCY,
 "label": "$B_LABEL", "extraEnv": "${extra% }", "startedAt": "$stamp",
 "machine": "$(nproc) cores, $(awk '/MemTotal/ {printf "%.0f GB", $2/1048576}' /proc/meminfo)"}
JSON
  B_LAST_RESULT="$TB_RESULTS/bench-$stamp-$v.json"
  python3 "$TB_ROOT/scripts/bench/report.py" row "$B_DIR/meta.json" "$B_DIR/load.json" "$B_DIR/samples.jsonl" "$B_LAST_RESULT"
  say "result: $B_LAST_RESULT"
  echo "$B_LAST_RESULT" >"$TB_RESULTS/.last-result"
}

# bench_progress VARIANT URL: the load client's progress as one live line, with
# the variant's own sales of the last minute and where compare stands.
bench_progress() {
  local v="$1" url="$2" line live
  while IFS= read -r line; do
    case "$line" in
      progress*)
        live=$(curl -fsS --max-time 1 "$url/stats" 2>/dev/null | sed -n 's/.*"salesLastMinute":\([0-9]*\).*/\1/p')
        printf '\r%s[%s] %ss elapsed | live sales/min %s | %s' "${B_COMPARE_POS:-}" "$v" "$((SECONDS - B_T0))" \
          "${live:-?}" "${line:0:110}" >&2 ;;
      *) printf '\n%s' "$line" >&2 ;;
    esac
  done
  printf '\n' >&2
}

tb_bench() {
  local v="${1:-}"
  [ -n "$v" ] && [ "${v#-}" = "$v" ] || { bench_usage; die "bench needs a VARIANT"; }
  shift
  bench_parse "$@"
  bench_one "$v"
}

# --- compare ----------------------------------------------------------------------

# compare_run LABEL VARIANT...: bench each variant with the current B_* settings,
# each in a subshell (a failing variant is reported, the others still run).
# Appends result files to COMPARE_ROWS.
compare_run() {
  local label="$1"; shift
  local v i=0 n=$#
  for v in "$@"; do
    i=$((i + 1))
    rm -f "$TB_RESULTS/.last-result"
    B_LABEL="$label"
    if ( B_COMPARE_POS="[$label $i/$n, ~$(( (n - i + 1) * (B_DURATION + B_WARMUP + 25) ))s left] "; bench_one "$v" ); then
      COMPARE_ROWS+=("$(cat "$TB_RESULTS/.last-result")")
    else
      say "$v failed: left out of the table"
      COMPARE_FAILED+=("$v ($label)")
    fi
  done
}

present_variants() {
  local v
  for v in ${B_VARIANTS:-$(variant_names | tr "\n" " ")}; do
    variant_known "$v" || die "unknown variant: $v"
    if [ -d "$TB_ROOT/$v/src" ]; then echo "$v"; else say "variant $v is not in this tree yet: skipped"; fi
  done
}

tb_compare() {
  bench_parse "$@"
  python_check
  mkdir -p "$TB_RESULTS"
  COMPARE_ROWS=(); COMPARE_FAILED=()
  local stamp; stamp=$(date +%Y%m%d-%H%M%S)
  if [ "$B_EXPERIMENT" = 2014 ]; then
    compare_2014 "$stamp"
  elif [ -n "$B_EXPERIMENT" ]; then
    die "--experiment knows 2014 only"
  else
    # shellcheck disable=SC2046
    compare_run "" $(present_variants)
    [ ${#COMPARE_ROWS[@]} -gt 0 ] || die "no variant produced a result"
    python3 "$TB_ROOT/scripts/bench/report.py" table "$TB_RESULTS/compare-$stamp.md" "$TB_RESULTS/compare-$stamp.svg" "${COMPARE_ROWS[@]}"
    say "table: results/compare-$stamp.md  chart: results/compare-$stamp.svg"
  fi
  [ ${#COMPARE_FAILED[@]} -eq 0 ] || { say "failed: ${COMPARE_FAILED[*]}"; return 1; }
}

# The 2014 article's settings. Its slow database was another, slower machine;
# we put Toxiproxy in front of ours. The latency: in case 1 threads and Akka
# stored 5,100 and 5,000 sales/min with 4 engines, each storing its sales one
# INSERT after another - about 4 x 60,000 ms / 5,100 = 47 ms per insert round
# trip. So 50 ms (B_SLOW_DB_MS to change it).
compare_2014() {
  local stamp="$1" slow="${B_SLOW_DB_MS:-50}"
  local base_variants; base_variants=$(present_variants | grep -v java-spray-async | tr '\n' ' ')
  local spray; spray=$(present_variants | grep -x java-spray-async || true)
  local node; node=$(present_variants | grep -x node-engine || true)
  local threads; threads=$(present_variants | grep -x java-threads || true)
  B_PERSIST=per-sale
  B_ENGINES=4; B_CONC=50; B_WAIT=200; B_DB_LATENCY="$slow"; B_RATE=""
  # shellcheck disable=SC2086
  compare_run case1-slow-db $base_variants $spray
  B_ENGINES=2; B_CONC=50; B_WAIT=50; B_DB_LATENCY=0
  # shellcheck disable=SC2086
  compare_run case2-fast-db $base_variants $spray
  B_ENGINES=6; B_CONC=80; B_WAIT=60
  [ -n "$spray" ] && compare_run followup-spray java-spray-async
  B_ENGINES=25; B_CONC=80; B_WAIT=60
  [ -n "$node" ] && compare_run followup-node node-engine
  B_ENGINES=4; B_CONC=30; B_WAIT=150
  [ -n "$threads" ] && compare_run followup-tomcat java-threads
  [ ${#COMPARE_ROWS[@]} -gt 0 ] || die "no variant produced a result"
  python3 "$TB_ROOT/scripts/bench/report.py" experiment "$TB_RESULTS/experiment-2014-$stamp.md" "${COMPARE_ROWS[@]}"
  python3 "$TB_ROOT/scripts/bench/report.py" table "$TB_RESULTS/experiment-2014-$stamp-all.md" "$TB_RESULTS/experiment-2014-$stamp.svg" "${COMPARE_ROWS[@]}" >/dev/null
  say "table: results/experiment-2014-$stamp.md  chart: results/experiment-2014-$stamp.svg"
}

# --- the end-to-end check of bench/compare that `./tradebench test` runs -----------

# bench_selftest: a few-second compare of one variant; checks that the result row
# and the table come from real SALES rows and that nothing is left running.
bench_selftest() {
  local v="" c
  for c in ${TB_SELFTEST_VARIANT:-java-threads node-engine java-akka java-spray-async}; do
    [ -f "$TB_ROOT/$c/variant.yaml" ] && { v="$c"; break; }
  done
  [ -n "$v" ] || { say "bench self-test: no variant yet"; return 0; }
  mkdir -p "$TB_RESULTS"
  local before; before=$(find "$TB_RESULTS" -maxdepth 1 -name 'compare-*.md' | wc -l)
  if ! (export DB_NAME=TRADER_E2E; tb_compare --variants "$v" --duration 4 --warmup 1 --concurrency 16) >"$TB_STATE/logs/bench-selftest.log" 2>&1; then
    tail -n 30 "$TB_STATE/logs/bench-selftest.log" >&2; say "bench self-test: compare failed"; return 1
  fi
  local md row
  md=$(ls -t "$TB_RESULTS"/compare-*.md | head -n 1)
  [ "$(find "$TB_RESULTS" -maxdepth 1 -name 'compare-*.md' | wc -l)" -gt "$before" ] || { say "bench self-test: no table written"; return 1; }
  [ -f "${md%.md}.svg" ] || { say "bench self-test: no chart written"; return 1; }
  row=$(cat "$TB_RESULTS/.last-result")
  grep -q "| $v |" "$md" || { say "bench self-test: the table has no row for $v"; return 1; }
  # the row's figure is the SALES rows stored in the measured window: count them again here
  local start end sales counted
  read -r start end sales < <(python3 -c 'import json,sys; r=json.load(open(sys.argv[1])); print(r["load"]["windowStartMs"], r["load"]["windowEndMs"], r["salesInWindow"])' "$row")
  counted=$(db_root_sql -N -e "SELECT COUNT(*) FROM TRADER_E2E.SALES WHERE CREATED >= $start AND CREATED < $end")
  if [ "$sales" -le 0 ] || [ "$sales" != "$counted" ]; then
    say "bench self-test: the row says $sales sales in the window, SALES has $counted"; return 1
  fi
  # every process the run started (variant, sampler, toxiproxy) and the variant's children are gone
  local run pid
  run=$(ls -td "$TB_RESULTS"/runs/*-"$v" | head -n 1)
  for pid in $(cat "$run/pids"); do
    if kill -0 "$pid" 2>/dev/null || pgrep -P "$pid" >/dev/null; then
      say "bench self-test: process $pid started by the run is still there"; return 1
    fi
  done
  say "bench self-test: $v stored $sales sales in the window; table $md"
}
