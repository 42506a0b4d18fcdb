#!/usr/bin/env bash
# java-spray-async/bench.sh: one short measured run of java-spray-async, with its CPU use.
#
#   java-spray-async/bench.sh ENGINES WAIT_MS CONCURRENCY [VAR=VALUE ...]
#   e.g. java-spray-async/bench.sh 6 0 64 PERSIST=batch
#
# Starts the jar on PORT (3103) and database TRADER_SPRAY (emptied first; make it
# once with ./tradebench db create TRADER_SPRAY), primes it with an unmeasured
# `./tradebench load` of PRIME seconds (default 10: on a busy 2-core machine the
# JIT compilers are still at work after a 5 s warm-up, and their CPU would count
# as the service's), then runs `./tradebench load` (5 s warm-up, 15 s measured),
# reads the service's CPU time from /proc over the measured window, then
# SIGTERMs it. Prints one result line. Build the jar first:
# mvn -B -q -pl .,java-spray-async package -DskipTests
set -euo pipefail
cd "$(dirname "$0")/.."
engines="$1" wait_ms="$2" conc="$3"; shift 3
port="${PORT:-3103}" db="${BENCH_DB:-TRADER_SPRAY}" warmup=5 duration=15
: "${JAVA_HOME:=/usr/lib/jvm/temurin-25-jdk-amd64}"; export JAVA_HOME PATH="$JAVA_HOME/bin:$PATH"
db_url="jdbc:mysql://127.0.0.1:3307/$db?user=trader&password=trader"
mysql_cmd() { mariadb -h127.0.0.1 -P3307 -utrader -ptrader "$db" -e "$1" 2>/dev/null || mysql -h127.0.0.1 -P3307 -utrader -ptrader "$db" -e "$1"; }
mysql_cmd "TRUNCATE TABLE SALES" || mysql_cmd "DELETE FROM SALES"
log=$(mktemp /tmp/spray-bench.XXXX.log)
(export PORT="$port" DB_HOST=127.0.0.1 DB_PORT=3307 DB_NAME="$db" ENGINES="$engines" "$@"
 exec "$JAVA_HOME/bin/java" --sun-misc-unsafe-memory-access=allow -XX:+UseParallelGC -Xss512k ${JAVA_OPTS:-} -jar java-spray-async/target/java-spray-async.jar) >"$log" 2>&1 &
pid=$!
trap 'kill -TERM $pid 2>/dev/null || true' EXIT
for _ in $(seq 1 120); do curl -sf "http://127.0.0.1:$port/health" >/dev/null && break; sleep 0.5; done
ticks() { awk '{print $14 + $15}' "/proc/$pid/stat"; }
# the JIT compilers' share: on a crowded machine they are still at work long after the warm-up
jit_ticks() { local t n=0; for t in /proc/$pid/task/*; do grep -q "CompilerThre" "$t/comm" 2>/dev/null && n=$((n + $(awk '{print $14 + $15}' "$t/stat"))); done; echo $n; }
threads() { awk '/^Threads:/ {print $2}' "/proc/$pid/status"; }
hz=$(getconf CLK_TCK)
if [ "${PRIME:-10}" -gt 0 ]; then
  ./tradebench load --url "http://127.0.0.1:$port" --concurrency "$conc" --wait "$wait_ms" --warmup 0 \
    --duration "${PRIME:-10}" --progress 100 >"$log.prime" 2>&1 || { tail -20 "$log.prime"; exit 1; }
fi
json=$(mktemp /tmp/spray-bench.XXXX.json)
./tradebench load --url "http://127.0.0.1:$port" --concurrency "$conc" --wait "$wait_ms" --warmup "$warmup" \
  --duration "$duration" --db-url "$db_url" --json "$json" --progress 100 >"$log.load" 2>&1 &
lpid=$!
sleep "$warmup"; c0=$(ticks); j0=$(jit_ticks); t0=$(date +%s.%N)
sleep "$duration"; c1=$(ticks); j1=$(jit_ticks); t1=$(date +%s.%N); th=$(threads)
wait "$lpid" || { tail -20 "$log.load"; exit 1; }
kill -TERM "$pid"; rc=0; wait "$pid" || rc=$?; trap - EXIT
cpu=$(echo "($c1 - $c0) * 100 / $hz / ($t1 - $t0)" | bc -l)
jit=$(echo "($j1 - $j0) * 100 / $hz / ($t1 - $t0)" | bc -l)
echo "engines=$engines wait=$wait_ms concurrency=$conc $* | $(grep -E 'sales|orders/s' "$log.load" | tr '\n' ' ' | tr -s ' ') | cpu=$(printf '%.0f' "$cpu")% (of it JIT $(printf '%.0f' "$jit")%) | load $(cut -d' ' -f1 /proc/loadavg) | threads=$th | exit=$rc | $(grep "^exit variant" "$log" || echo "no exit line")"
echo "json: $json  log: $log"
