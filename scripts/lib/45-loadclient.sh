# The load client (loadclient/): `./tradebench load ARGS`, `./tradebench verify ARGS`.

tb_loadclient() {
  local sub="$1"; shift
  ensure_jar loadclient
  # shellcheck disable=SC2046
  "$JAVA_HOME/bin/java" $(java_run_opts) ${TB_LOADCLIENT_OPTS:-} -jar "$(jar_of loadclient)" "$sub" "$@"
}

# jdbc_url_for NAME: the JDBC URL of database NAME on the current DB_* settings.
jdbc_url_for() {
  echo "jdbc:mysql://${DB_HOST:-127.0.0.1}:${DB_PORT:-3306}/$1?user=${DB_USER:-trader}&password=${DB_PASSWORD:-trader}"
}
