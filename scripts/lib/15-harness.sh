# The harness (harness/tradebench_harness, Python): its virtual environment and
# how the launcher hands a command over to it.
#
# The venv lives in .tradebench/venv; harness/requirements.txt is installed
# into it again whenever the file changes (a stamp of its hash).

TB_VENV="$TB_STATE/venv"

harness_venv() {
  local req="$TB_ROOT/harness/requirements.txt" stamp="$TB_VENV/.requirements.sha256" want
  command -v python3 >/dev/null 2>&1 || apt_install python3 || die "the harness needs Python 3.10+: install python3"
  want=$(sha256sum "$req" | cut -d' ' -f1)
  if [ -x "$TB_VENV/bin/python" ] && [ "$(cat "$stamp" 2>/dev/null)" = "$want" ]; then return 0; fi
  if [ ! -x "$TB_VENV/bin/python" ]; then
    # Debian's python3 has venv without ensurepip until python3-venv is installed
    python3 -c 'import venv, ensurepip' >/dev/null 2>&1 || apt_install python3-venv \
      || die "the harness needs Python's venv module: install python3-venv"
    say "creating the harness's Python environment in $TB_VENV"
    rm -rf "$TB_VENV"
    python3 -m venv "$TB_VENV" >&2 || die "python3 -m venv $TB_VENV failed"
  fi
  say "installing the harness's Python packages (harness/requirements.txt)"
  "$TB_VENV/bin/pip" install -q --disable-pip-version-check -r "$req" >&2 \
    || die "pip install -r harness/requirements.txt failed"
  echo "$want" >"$stamp"
}

# harness_env: what the harness reads from the environment (context.py).
harness_env() {
  find_java
  TB_JVM_RUN_OPTS="$(java_run_opts)"
  export TB_ROOT TB_STATE TB_DB_PORT TB_DB_DIR TB_JVM_RUN_OPTS JAVA_HOME
  export PYTHONPATH="$TB_ROOT/harness${PYTHONPATH:+:$PYTHONPATH}"
  # the harness builds variants with Maven (their manifests' build command)
  command -v mvn >/dev/null 2>&1 || apt_install maven || die "tradebench needs Maven: install it (apt-get install maven)"
  # JDK 24+ warns about sun.misc.Unsafe from Maven's own Guava: harmless, silenced.
  if [ "${TB_JAVA_MAJOR:-0}" -ge 24 ] && [[ "${MAVEN_OPTS:-}" != *sun-misc-unsafe* ]]; then
    export MAVEN_OPTS="${MAVEN_OPTS:-} --sun-misc-unsafe-memory-access=allow"
  fi
  find_node   # exports TB_NODE (the manifests' {node}) and puts it first on PATH (npm ci)
}

# harness_run ARGS: python -m tradebench_harness ARGS (returns its exit code).
harness_run() {
  harness_venv
  harness_env
  "$TB_VENV/bin/python" -m tradebench_harness "$@"
}

# harness_exec ARGS: the same, in place of the launcher's shell (serve: a SIGTERM sent to
# ./tradebench reaches the harness, which stops what it started; alone, the variant itself).
harness_exec() {
  harness_venv
  harness_env
  exec "$TB_VENV/bin/python" -m tradebench_harness "$@"
}

# harness_steps FILE: adds the PASS/FAIL/SKIP lines the harness wrote to FILE to the launcher's count.
harness_steps() {
  local word rest
  [ -f "$1" ] || return 0
  while read -r word rest; do
    case "$word" in
      PASS) TB_PASSED=$((TB_PASSED + 1)) ;;
      FAIL) TB_FAILED=$((TB_FAILED + 1)); TB_FAILURES+=("$rest") ;;
      SKIP) TB_SKIPPED=$((TB_SKIPPED + 1)) ;;
    esac
  done <"$1"
}
