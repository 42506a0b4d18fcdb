# Finding a JDK 21+ and building the Maven modules.

# java_major BIN: the major version of a java binary (17, 21, 25 ...), or 0.
java_major() {
  local v
  v=$("$1" -XshowSettings:properties -version 2>&1 | sed -n 's/^ *java.specification.version = //p' | head -n 1)
  case "$v" in 1.*) echo "${v#1.}" ;; "") echo 0 ;; *) echo "$v" ;; esac
}

# find_java: sets and exports JAVA_HOME to a JDK 21 or newer (JAVA_HOME, PATH, /usr/lib/jvm/*).
TB_JAVA_FOUND=""
find_java() {
  [ -n "$TB_JAVA_FOUND" ] && return 0
  local cand best="" best_v=0 v
  local cands=()
  [ -n "${JAVA_HOME:-}" ] && cands+=("$JAVA_HOME")
  if command -v javac >/dev/null 2>&1; then cands+=("$(dirname "$(dirname "$(readlink -f "$(command -v javac)")")")"); fi
  for cand in /usr/lib/jvm/*; do [ -d "$cand" ] && cands+=("$cand"); done
  for cand in "${cands[@]}"; do
    [ -x "$cand/bin/java" ] && [ -x "$cand/bin/javac" ] || continue
    v=$(java_major "$cand/bin/java")
    if [ "$v" -ge 21 ] && [ "$v" -gt "$best_v" ]; then best="$cand"; best_v="$v"; fi
    # a JAVA_HOME the user chose wins when it is new enough
    if [ "$cand" = "${JAVA_HOME:-}" ] && [ "$v" -ge 21 ]; then best="$cand"; best_v="$v"; break; fi
  done
  if [ -z "$best" ]; then
    say "no JDK 21 or newer found (JAVA_HOME, PATH, /usr/lib/jvm); trying the system's packages"
    apt_install openjdk-21-jdk-headless >/dev/null 2>&1 || apt_install openjdk-25-jdk-headless || true
    for cand in /usr/lib/jvm/*; do
      [ -x "$cand/bin/javac" ] || continue
      v=$(java_major "$cand/bin/java"); if [ "$v" -ge 21 ]; then best="$cand"; best_v="$v"; fi
    done
    [ -n "$best" ] || die "tradebench needs a JDK 21 or newer: install one (e.g. Temurin 21) and set JAVA_HOME"
  fi
  export JAVA_HOME="$best"
  export PATH="$JAVA_HOME/bin:$PATH"
  TB_JAVA_FOUND=1
  TB_JAVA_MAJOR="$best_v"
}

# java_run_opts: JVM flags every Java command of ours gets.
java_run_opts() {
  find_java
  # JDK 24+ warns about sun.misc.Unsafe from Akka: harmless, silenced.
  if [ "${TB_JAVA_MAJOR:-0}" -ge 24 ]; then printf '%s ' --sun-misc-unsafe-memory-access=allow; fi
  printf '%s ' -XX:+UseParallelGC -Xss512k
}

mvn_cmd() {
  find_java
  command -v mvn >/dev/null 2>&1 || apt_install maven || die "tradebench needs Maven: install it (apt-get install maven)"
  # JDK 24+ warns about sun.misc.Unsafe from Maven's own Guava: harmless, silenced.
  [ "${TB_JAVA_MAJOR:-0}" -ge 24 ] && export MAVEN_OPTS="${MAVEN_OPTS:-} --sun-misc-unsafe-memory-access=allow"
  mvn -B -q -Dstyle.color=never "$@"
}

# jar_of MODULE: the runnable jar of a Java module.
jar_of() { echo "$TB_ROOT/$1/target/$1.jar"; }

# The shared Java modules every variant builds on (engine-model, engine-wire,
# engine-jdbc, engine-servlet): their sources and poms.
engine_module_paths() {
  local d
  for d in "$TB_ROOT"/engine-*/; do
    [ -f "$d/pom.xml" ] && printf '%s\n' "$d/src/main" "$d/pom.xml"
  done
}

# ensure_jar MODULE: builds the module (and what it needs) when its jar is missing
# or older than its sources or the shared engine-* modules' sources.
ensure_jar() {
  find_java
  local m="$1" jar; jar=$(jar_of "$m")
  local shared=(); mapfile -t shared < <(engine_module_paths)
  if [ -f "$jar" ] && [ -z "$(find "$TB_ROOT/$m/src/main" "${shared[@]}" "$TB_ROOT/pom.xml" "$TB_ROOT/$m/pom.xml" -newer "$jar" -print -quit 2>/dev/null)" ]; then
    return 0
  fi
  say "building $m"
  (cd "$TB_ROOT" && mvn_cmd -DskipTests -pl "$m" -am package) >&2 || die "build of $m failed"
}

tb_build_all() {
  (cd "$TB_ROOT" && mvn_cmd -DskipTests install) || die "Maven build failed"
  [ -d "$TB_ROOT/node-engine" ] && node_install
  return 0
}

tb_replay() {
  local lang="${1:-}" file="${2:-}"
  [ -n "$file" ] || die "usage: ./tradebench replay java|node SCENARIO.json"
  [ -f "$file" ] || die "no such scenario file: $file"
  case "$lang" in
    java)
      ensure_model_jar
      # shellcheck disable=SC2046
      exec "$JAVA_HOME/bin/java" $(java_run_opts) -cp "$(model_classpath)" tradebench.model.replay.ReplayMain "$file" ;;
    node)
      node_replay "$file" ;;
    *) die "usage: ./tradebench replay java|node SCENARIO.json" ;;
  esac
}

tb_bench_model() {
  ensure_model_bench
  local m="$TB_ROOT/engine-model/target"
  # JMH (org.openjdk.jmh.Main): the arguments are JMH's, e.g. -f 1 -wi 2 -i 3, -p orders=1000000, -rf json
  # shellcheck disable=SC2046
  exec "$JAVA_HOME/bin/java" $(java_run_opts) -cp "$m/test-classes:$m/classes:$(cat "$m/test-classpath.txt")" \
    org.openjdk.jmh.Main 'tradebench\.model\.bench\.MarketJmh' "$@"
}

# ensure_model_bench: engine-model with its test classes (the JMH benchmark is in
# src/test) and their class path, built when missing or older than its sources.
ensure_model_bench() {
  find_java
  local t="$TB_ROOT/engine-model/target"
  if [ ! -f "$t/test-classpath.txt" ] || [ ! -f "$t/test-classes/META-INF/BenchmarkList" ] \
     || [ -n "$(find "$TB_ROOT/engine-model/src" "$TB_ROOT/engine-model/pom.xml" "$TB_ROOT/pom.xml" -newer "$t/test-classpath.txt" -print -quit)" ]; then
    say "building engine-model and its JMH benchmark"
    (cd "$TB_ROOT" && mvn_cmd -DskipTests -pl engine-model package) >&2 || die "build of engine-model failed"
  fi
}

# ensure_model_jar: engine-model alone (the market, the replay and its benchmark:
# no database driver, no HTTP server), built when missing or older than its sources.
ensure_model_jar() {
  find_java
  local jar="$TB_ROOT/engine-model/target/engine-model.jar"
  if [ ! -f "$jar" ] || [ ! -f "$TB_ROOT/engine-model/target/classpath.txt" ] \
     || [ -n "$(find "$TB_ROOT/engine-model/src/main" "$TB_ROOT/engine-model/pom.xml" "$TB_ROOT/pom.xml" -newer "$jar" -print -quit)" ]; then
    say "building engine-model"
    (cd "$TB_ROOT" && mvn_cmd -DskipTests -pl engine-model package) >&2 || die "build of engine-model failed"
  fi
}

# model_classpath: engine-model's classes and its runtime dependencies (written by its build).
model_classpath() { echo "$TB_ROOT/engine-model/target/engine-model.jar:$(cat "$TB_ROOT/engine-model/target/classpath.txt")"; }
