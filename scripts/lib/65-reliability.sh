# The reliability suite (issue 10): bad input, overload, database outage, crash
# isolation, shutdown — for every variant, on a private database of its own.
#
# `./tradebench test` runs it (rel_test, one step per variant and phase); alone:
#   bash scripts/lib/65-reliability.sh [VARIANT...]
#
# This file is the launcher's part: it starts and stops the variants, the
# database (a second private instance under .tradebench/reliability, never the
# shared one on 3307), Toxiproxy, the RSS sampler, sends SIGTERM and the
# database stop. The checks are `loadclient reliability PHASE` (loadclient/,
# package tradebench.loadclient.reliability). Per variant:
#
#   run A  ENGINES=4, database direct: bad-input -> outage (the database
#          stopped 2 s into a load that goes on until 4 s after it is back,
#          started again 10 s after the stop; audit) -> SIGTERM 2 s into a 4 s
#          load: exit 0 within 10 s, audit over every order of the run, SALES =
#          exactly the exit line's sales, its accepted = the 202s received
#   run B  ENGINES=2 INBOX_LIMIT=10 FAULTS=on, database behind Toxiproxy
#          (+REL_DB_LATENCY_MS per round trip): overload (capacity measured, 5x
#          offered for 20 s, recovery, /stats accepted = the client's 202s,
#          audit; peak RSS sampled) -> crash (engine 1, 2 s into a 7 s load)
#          -> SIGTERM: exit 0 within 10 s, audit, SALES >= the exit line's sales
#          (a killed Node child may have stored a sale it could not report)
#
# Figures: .tradebench/reliability/runs/<stamp>/<variant>/*.json, and a table in
# results/reliability-<stamp>.md (docs/reliability.md quotes the last run).

REL_DB_LATENCY_MS="${REL_DB_LATENCY_MS:-50}"
REL_INBOX_LIMIT="${REL_INBOX_LIMIT:-10}"
# memory stays bounded: the peak RSS of the variant's process tree during the overload, at most this
REL_RSS_LIMIT_MB="${REL_RSS_LIMIT_MB:-1024}"

# rel_java PHASE ARGS...: one phase of the loadclient's reliability checks.
rel_java() {
  local phase="$1"; shift
  tb_loadclient reliability "$phase" "$@"
}

rel_sql() { db_root_sql TRADER -N -e "$1"; }

# rel_jdbc: the JDBC URL of the suite's database (its own instance, not DB_HOST/DB_PORT).
rel_jdbc() { echo "jdbc:mysql://127.0.0.1:$TB_DB_PORT/TRADER?user=$TB_DB_USER&password=$TB_DB_PASSWORD"; }

# rel_start_variant VARIANT LOG ENV...: starts it in the background; sets REL_PID, REL_URL.
rel_start_variant() {
  local v="$1" log="$2"; shift 2
  local port; port=$(free_port)
  # shellcheck disable=SC2046,SC2086
  (export PORT="$port" DB_HOST=127.0.0.1 DB_PORT="$TB_DB_PORT" DB_NAME=TRADER DB_USER="$TB_DB_USER" \
     DB_PASSWORD="$TB_DB_PASSWORD" "$@"; exec $(variant_cmd "$v")) >"$log" 2>&1 &
  REL_PID=$!
  REL_URL="http://127.0.0.1:$port"
  if ! wait_http "$REL_URL/health" 90; then
    tail -n 20 "$log" >&2
    return 1
  fi
}

# rel_stop_variant: SIGTERM, 10 s, then SIGKILL (children too). Sets REL_EXIT_RC, REL_EXIT_MS.
rel_stop_variant() {
  REL_EXIT_RC=""; REL_EXIT_MS=""
  [ -n "${REL_PID:-}" ] || return 0
  local t0 t1 i
  t0=$(date +%s%N)
  kill -TERM "$REL_PID" 2>/dev/null
  for ((i = 0; i < 100; i++)); do kill -0 "$REL_PID" 2>/dev/null || break; sleep 0.1; done
  if kill -0 "$REL_PID" 2>/dev/null; then
    # a variant still running after 10 s: killed, its children first
    pkill -KILL -P "$REL_PID" 2>/dev/null; kill -KILL "$REL_PID" 2>/dev/null
    wait "$REL_PID" 2>/dev/null
    REL_EXIT_RC=killed
  else
    local rc=0; wait "$REL_PID" || rc=$?
    REL_EXIT_RC=$rc
  fi
  t1=$(date +%s%N)
  REL_EXIT_MS=$(( (t1 - t0) / 1000000 ))
  REL_PID=""
}

rel_cleanup() {
  [ -n "${REL_BG_PID:-}" ] && { kill "$REL_BG_PID" 2>/dev/null; wait "$REL_BG_PID" 2>/dev/null; }
  [ -n "${REL_SAMPLER_PID:-}" ] && { kill "$REL_SAMPLER_PID" 2>/dev/null; wait "$REL_SAMPLER_PID" 2>/dev/null; }
  if [ -n "${REL_PID:-}" ] && kill -0 "$REL_PID" 2>/dev/null; then
    pkill -KILL -P "$REL_PID" 2>/dev/null; kill -KILL "$REL_PID" 2>/dev/null; wait "$REL_PID" 2>/dev/null
  fi
  [ -n "${REL_TOXI_PID:-}" ] && { kill "$REL_TOXI_PID" 2>/dev/null; wait "$REL_TOXI_PID" 2>/dev/null; }
  REL_BG_PID=""; REL_SAMPLER_PID=""; REL_PID=""; REL_TOXI_PID=""
}

# rel_toxiproxy_start LATENCY_MS DIR: a slow link in front of the reliability database; sets REL_TOXI_PORT.
rel_toxiproxy_start() {
  local bin api listen
  bin=$(toxiproxy_bin) || return 1
  api=$(free_port)
  "$bin" -host 127.0.0.1 -port "$api" >"$2/toxiproxy.log" 2>&1 &
  REL_TOXI_PID=$!
  wait_http "http://127.0.0.1:$api/version" 20 || return 1
  listen=$(free_port)
  curl -fsS -X POST "http://127.0.0.1:$api/proxies" -d \
    "{\"name\":\"mysql\",\"listen\":\"127.0.0.1:$listen\",\"upstream\":\"127.0.0.1:$TB_DB_PORT\",\"enabled\":true}" >/dev/null || return 1
  curl -fsS -X POST "http://127.0.0.1:$api/proxies/mysql/toxics" -d \
    "{\"name\":\"slow-db\",\"type\":\"latency\",\"stream\":\"downstream\",\"attributes\":{\"latency\":$1,\"jitter\":0}}" >/dev/null || return 1
  REL_TOXI_PORT=$listen
}

# rel_exit_line LOG: "accepted sales" of the variant's exit line (docs/contract.md), or nothing.
rel_exit_line() {
  grep -a '^exit variant=' "$1" | tail -n 1 | sed -n 's/.*accepted=\([0-9]*\) sales=\([0-9]*\).*/\1 \2/p'
}

# rel_step NAME LOG CMD...: runs CMD with its output in LOG; PASS/FAIL step.
rel_step() {
  local name="$1" log="$2"; shift 2
  if "$@" >"$log" 2>&1; then step_ok "$name"; return 0; fi
  grep -E '^FAIL|^loadclient:' "$log" | head -n 15 >&2
  step_fail "$name (log: $log)"
  return 1
}

# rel_sigterm_check NAME D LOG: SIGTERM now; exit 0 within 10 s with an exit line; sets REL_ACCEPTED,
# REL_SALES; writes D/shutdown-<run>.json. Fails the step (and returns 1) otherwise.
rel_sigterm_check() {
  local name="$1" d="$2" log="$3" run="$4"
  REL_ACCEPTED=""; REL_SALES=""
  if ! kill -0 "$REL_PID" 2>/dev/null; then
    step_fail "$name (the variant was gone before SIGTERM; log: $log)"; return 1
  fi
  rel_stop_variant
  local counts; counts=$(rel_exit_line "$log")
  REL_ACCEPTED=${counts% *}; REL_SALES=${counts#* }
  echo "{\"exitCode\": \"$REL_EXIT_RC\", \"exitMs\": $REL_EXIT_MS, \"accepted\": ${REL_ACCEPTED:-null}, \"sales\": ${REL_SALES:-null}}" >"$d/shutdown-$run.json"
  if [ "$REL_EXIT_RC" != 0 ]; then
    step_fail "$name (exit code $REL_EXIT_RC after SIGTERM, ${REL_EXIT_MS} ms; log: $log)"; return 1
  elif [ "$REL_EXIT_MS" -gt 10000 ]; then
    step_fail "$name (exit after ${REL_EXIT_MS} ms, more than 10 s; log: $log)"; return 1
  elif [ -z "$counts" ]; then
    step_fail "$name (no 'exit variant=V accepted=N sales=N' line; log: $log)"; return 1
  fi
}

# rel_run_a VARIANT DIR: bad input, database outage, shutdown on one process (database direct, ENGINES=4).
rel_run_a() {
  local v="$1" d="$2" name="reliability $1"
  rel_sql "DELETE FROM SALES"
  if ! rel_start_variant "$v" "$d/run-a.log" ENGINES=4 PERSIST=per-sale; then
    step_fail "$name: not healthy within 90 s (log: $d/run-a.log)"; rel_cleanup; return
  fi
  local common=(--url "$REL_URL" --db-url "$(rel_jdbc)" --prefix "r$RANDOM-" --engines 4)

  rel_step "$name: bad input" "$d/bad-input.log" rel_java bad-input "${common[@]}" --orders-out "$d/orders-bad-input.tsv" \
    --json "$d/bad-input.json"

  # outage: the database stopped 2 s into the load, started again 10 s later; the load ends 4 s after
  rm -f "$d/db-back"
  rel_java outage "${common[@]}" --duration 40 --connections 16 --wait 5 --seed 7 --db-back-file "$d/db-back" \
    --orders "$d/orders-bad-input.tsv" --orders-out "$d/orders-outage.tsv" --json "$d/outage.json" >"$d/outage.log" 2>&1 &
  REL_BG_PID=$!
  sleep 2
  db_stop >>"$d/db.log" 2>&1
  local down_at; down_at=$(date +%s%N)
  sleep 10
  db_start >>"$d/db.log" 2>&1
  touch "$d/db-back"
  echo "database down for $(( ($(date +%s%N) - down_at) / 1000000 )) ms" >>"$d/db.log"
  local rc=0; wait "$REL_BG_PID" || rc=$?; REL_BG_PID=""
  if [ "$rc" -eq 0 ] && kill -0 "$REL_PID" 2>/dev/null; then
    step_ok "$name: database outage"
  else
    kill -0 "$REL_PID" 2>/dev/null || echo "FAIL outage: the variant died (log: $d/run-a.log)" >>"$d/outage.log"
    grep -E '^FAIL|^loadclient:' "$d/outage.log" | head -n 15 >&2
    step_fail "$name: database outage (log: $d/outage.log)"
  fi

  # shutdown: SIGTERM 2 s into a 4 s load; exit 0 within 10 s; SALES = exactly the sales it made
  rel_java load "${common[@]}" --duration 4 --connections 16 --wait 5 --seed 9 \
    --orders-out "$d/orders-shutdown.tsv" --json "$d/shutdown-load.json" >"$d/shutdown.log" 2>&1 &
  REL_BG_PID=$!
  sleep 2
  local ok=0
  rel_sigterm_check "$name: shutdown" "$d" "$d/run-a.log" a || ok=1
  wait "$REL_BG_PID" 2>/dev/null; REL_BG_PID=""
  [ "$ok" -eq 0 ] && rel_step "$name: shutdown (exit 0 in ${REL_EXIT_MS} ms; sales=$REL_SALES all in SALES, once)" "$d/audit-a.log" \
      rel_java audit "${common[@]}" --orders "$d/orders-bad-input.tsv,$d/orders-outage.tsv,$d/orders-shutdown.tsv" \
      --expect-sales "$REL_SALES" --expect-accepted "$REL_ACCEPTED" --json "$d/audit-a.json"
}

# rel_run_b VARIANT DIR: overload on a small, known capacity (slow database, small inbox), then
# crash isolation (FAULTS=on) and SIGTERM on the same process.
rel_run_b() {
  local v="$1" d="$2" name="reliability $1"
  rel_sql "DELETE FROM SALES"
  if ! rel_toxiproxy_start "$REL_DB_LATENCY_MS" "$d"; then
    step_fail "$name: overload (toxiproxy did not start; log: $d/toxiproxy.log)"; rel_cleanup; return
  fi
  if ! TB_DB_PORT="$REL_TOXI_PORT" rel_start_variant "$v" "$d/run-b.log" ENGINES=2 INBOX_LIMIT="$REL_INBOX_LIMIT" \
       PERSIST=per-sale FAULTS=on; then
    step_fail "$name: overload (not healthy within 90 s; log: $d/run-b.log)"; rel_cleanup; return
  fi
  local common=(--url "$REL_URL" --db-url "$(rel_jdbc)" --prefix "o$RANDOM-" --engines 2)
  python3 "$TB_ROOT/scripts/bench/sample.py" "$REL_PID" "$d/samples.jsonl" &
  REL_SAMPLER_PID=$!
  local ok=0
  rel_java overload "${common[@]}" --factor 5 --measure 4 --duration 20 --recovery 10 \
    --orders-out "$d/orders-overload.tsv" --json "$d/overload.json" >"$d/overload.log" 2>&1 || ok=1
  kill "$REL_SAMPLER_PID" 2>/dev/null; wait "$REL_SAMPLER_PID" 2>/dev/null; REL_SAMPLER_PID=""
  local peak; peak=$(python3 -c 'import json,sys; print(max((json.loads(l)["rssKb"] for l in open(sys.argv[1]) if l.strip()), default=0)//1024)' "$d/samples.jsonl")
  echo "{\"peakRssMb\": $peak}" >"$d/rss.json"
  if [ "$peak" -gt "$REL_RSS_LIMIT_MB" ]; then
    echo "FAIL overload-memory: peak RSS $peak MB, above REL_RSS_LIMIT_MB=$REL_RSS_LIMIT_MB" >>"$d/overload.log"; ok=1
  fi
  if [ "$ok" -eq 0 ]; then
    step_ok "$name: overload (peak RSS $peak MB; $(sed -n 's/^ok   overload: //p' "$d/overload.log"))"
  else
    grep -E '^FAIL|^loadclient:' "$d/overload.log" | head -n 15 >&2
    step_fail "$name: overload (log: $d/overload.log)"
  fi

  rel_step "$name: crash isolation" "$d/crash.log" rel_java crash "${common[@]}" --engine 1 --crash-at 2 --duration 7 \
    --connections 16 --wait 5 --orders-out "$d/orders-crash.tsv" --json "$d/crash.json"

  # SIGTERM right after: every sale it counted is stored (a killed engine may have stored one it never reported)
  if rel_sigterm_check "$name: shutdown after overload and crash" "$d" "$d/run-b.log" b; then
    rel_step "$name: shutdown after overload and crash (exit 0 in ${REL_EXIT_MS} ms; sales=$REL_SALES all in SALES)" "$d/audit-b.log" \
      rel_java audit "${common[@]}" --orders "$d/orders-overload.tsv,$d/orders-crash.tsv" \
      --min-sales "$REL_SALES" --expect-accepted "$REL_ACCEPTED" --json "$d/audit-b.json"
  fi
  kill "$REL_TOXI_PID" 2>/dev/null; wait "$REL_TOXI_PID" 2>/dev/null; REL_TOXI_PID=""
}

# rel_report DIR: the figures of every variant as a Markdown table.
rel_report() {
  python3 - "$1" "$TB_RESULTS/reliability-$(basename "$1").md" <<'PY'
import json, os, sys
root, out = sys.argv[1], sys.argv[2]
def load(v, name):
    try:
        with open(os.path.join(root, v, name + ".json")) as f: return json.load(f)
    except (OSError, ValueError): return {}
def f(d, k, suf=""):
    return ("%s%s" % (d[k], suf)) if d.get(k) is not None else "—"
rows = []
for v in sorted(d for d in os.listdir(root) if os.path.isdir(os.path.join(root, d))):
    b, c, o, aa, ab, sa, sb, ov, rss = (load(v, n) for n in
        ("bad-input", "crash", "outage", "audit-a", "audit-b", "shutdown-a", "shutdown-b", "overload", "rss"))
    if c.get("faultInjection") is False: crash = "FAILED: no fault injection"
    elif c: crash = "replaced, first new sale +%s ms; others %s sales in 3 s" % (f(c, "replacedAfterMs"), f(c, "othersSalesDuring3s"))
    else: crash = "—"
    phases = (b, c, o, aa, ab, ov)
    ok = all(p and p.get("failures", 1) == 0 for p in phases) and sa.get("exitCode") == "0" and sb.get("exitCode") == "0"
    checked = sum(p.get("salesChecked", 0) for p in (aa, ab))
    rows.append("| %s | %s | %s orders/s (%s sales/s) | %s/s | %s | %s s | %s | %s ms; 200 %s ms after the db is back | %s | %s | %s ms / %s ms | %s |" % (
        v, f(b, "inputsTried"), f(ov, "capacityPerS"), f(ov, "capacitySalesPerS"), f(ov, "offeredPerS"), f(ov, "served503"),
        f(ov, "recoveryS"), f(rss, "peakRssMb", " MB"), f(o, "healthDownMs"), f(o, "recoveryMs"), crash,
        checked, f(sa, "exitMs"), f(sb, "exitMs"), "pass" if ok else "FAIL"))
head = ("| variant | bad inputs tried | capacity | offered (5x, 20 s) | 503s served | full speed again after | peak RSS (overload) "
        "| /health 503 during the outage | crash isolation | sales checked | SIGTERM to exit 0 (run A / B) | result |\n"
        "| --- | ---: | ---: | ---: | ---: | ---: | ---: | --- | --- | ---: | ---: | --- |\n")
with open(out, "w") as fh:
    fh.write("# Reliability suite, %s\n\n" % os.path.basename(root) + head + "\n".join(rows) + "\n")
print(out)
PY
}

# rel_lock BASE: takes BASE/lock.d (holding the shell's pid); waits while a live run holds it
# (15 min at most); a lock left by a dead run is taken over.
rel_lock() {
  local dir="$1/lock.d" i holder
  for ((i = 0; i < 450; i++)); do
    if mkdir "$dir" 2>/dev/null; then echo "$BASHPID" >"$dir/pid"; return 0; fi
    holder=$(cat "$dir/pid" 2>/dev/null || true)
    if [ -n "$holder" ] && ! kill -0 "$holder" 2>/dev/null; then rm -rf "$dir"; continue; fi
    [ "$i" -eq 0 ] && say "reliability: another run of the suite in this tree (pid ${holder:-?}) holds $dir: waiting"
    sleep 2
  done
  return 1
}
rel_unlock() { [ "$(cat "$1/lock.d/pid" 2>/dev/null)" = "$BASHPID" ] && rm -rf "$1/lock.d"; return 0; }

# rel_test [VARIANT...]: the suite; each variant and phase is a step (step_ok/step_fail).
# Written for a caller without errexit (50-test.sh calls it as `rel_test || ...`).
rel_test() {
  local variants=("$@") v
  if [ ${#variants[@]} -eq 0 ]; then
    for v in ${TB_REL_VARIANTS:-$(variant_names | tr "\n" " ")}; do [ -f "$TB_ROOT/$v/variant.yaml" ] && variants+=("$v"); done
  fi
  [ ${#variants[@]} -gt 0 ] || { say "reliability: no variant yet"; return 0; }
  python_check
  ensure_jar loadclient
  for v in "${variants[@]}"; do ensure_variant_built "$v"; done
  local stamp; stamp=$(date +%Y%m%d-%H%M%S)
  local base="$TB_STATE/reliability"
  local root="$base/runs/$stamp"
  mkdir -p "$root" "$TB_RESULTS"
  # one suite at a time per tree: a second `./tradebench test` in the same tree waits for the first
  # (they would share the database's data folder, and the outage stops it)
  if ! rel_lock "$base"; then
    step_fail "reliability: another run of the suite in this tree kept $base/lock.d for 15 min"; return
  fi
  # the suite's own database instance: its own data folder and port; the shared one is never touched
  local saved_dir="$TB_DB_DIR" saved_port="$TB_DB_PORT"
  TB_DB_DIR="$base/db"
  TB_DB_PORT=$(free_port)
  db_running && db_stop >/dev/null 2>&1   # left over from an interrupted run, maybe on another port
  if ! db_start >"$root/db.log" 2>&1; then
    cat "$root/db.log" >&2
    step_fail "reliability: its private database did not start (log: $root/db.log)"
    TB_DB_DIR="$saved_dir"; TB_DB_PORT="$saved_port"; rel_unlock "$base"; return
  fi
  trap 'rel_cleanup; db_stop >/dev/null 2>&1; rel_unlock "'"$base"'"' EXIT
  trap 'rel_cleanup; db_stop >/dev/null 2>&1; rel_unlock "'"$base"'"; exit 130' INT TERM
  local t0=$SECONDS
  for v in "${variants[@]}"; do
    mkdir -p "$root/$v"
    say "reliability: $v (run A: bad input, database outage, shutdown)"
    rel_run_a "$v" "$root/$v"
    rel_cleanup
    say "reliability: $v (run B: overload, crash isolation, shutdown)"
    rel_run_b "$v" "$root/$v"
    rel_cleanup
  done
  db_stop >/dev/null 2>&1
  trap - EXIT INT TERM
  TB_DB_DIR="$saved_dir"; TB_DB_PORT="$saved_port"
  rel_unlock "$base"
  local table; table=$(rel_report "$root")
  say "reliability: ${#variants[@]} variants in $((SECONDS - t0)) s; figures: $table"
  cat "$table" >&2
}

# `./tradebench reliability [VARIANT...]`: the suite alone, with its own summary line.
tb_reliability() {
  find_java
  rel_test "$@"
  echo
  local f
  for f in "${TB_FAILURES[@]}"; do echo "failed: $f"; done
  echo "reliability: $TB_PASSED passed, $TB_FAILED failed"
  [ "$TB_FAILED" -eq 0 ]
}

# Run directly: bash scripts/lib/65-reliability.sh [VARIANT...] (the same as ./tradebench reliability)
if [ "${BASH_SOURCE[0]}" = "$0" ]; then
  set -uo pipefail
  TB_ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
  export TB_ROOT
  for lib in "$TB_ROOT"/scripts/lib/*.sh; do [ "$lib" = "$TB_ROOT/scripts/lib/65-reliability.sh" ] || . "$lib"; done
  tb_reliability "$@"
fi
