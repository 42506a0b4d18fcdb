# The load client (loadclient/): `./tradebench load ARGS`, `./tradebench verify ARGS`.

tb_loadclient() {
  local sub="$1"; shift
  ensure_jar loadclient
  # shellcheck disable=SC2046
  "$JAVA_HOME/bin/java" $(java_run_opts) ${TB_LOADCLIENT_OPTS:-} -jar "$(jar_of loadclient)" "$sub" "$@"
}
