# Running a variant: `./tradebench serve VARIANT`, and the pieces bench and test share.

# variant_cmd VARIANT: prints the command line that runs the variant in the foreground.
variant_cmd() {
  local v="$1"
  case "$v" in
    java-threads|java-akka|java-spray-async)
      find_java
      # shellcheck disable=SC2046
      echo "$JAVA_HOME/bin/java" $(java_run_opts) ${TB_JAVA_OPTS:-} -jar "$(jar_of "$v")" ;;
    node-engine)
      find_node
      echo "$TB_NODE" "$TB_ROOT/node-engine/src/server.js" ;;
    *) die "unknown variant: $v (one of: ${VARIANTS[*]})" ;;
  esac
}

# ensure_variant_built VARIANT
ensure_variant_built() {
  local v="$1"
  [ -d "$TB_ROOT/$v" ] || die "variant $v is not in this tree yet"
  case "$v" in
    node-engine) node_install ;;
    *) ensure_jar "$v" ;;
  esac
}

tb_serve() {
  local v="${1:-}"
  variant_known "$v" || die "usage: ./tradebench serve VARIANT (one of: ${VARIANTS[*]})"
  ensure_variant_built "$v"
  db_env
  say "serving $v on port ${PORT:-3000} (database ${DB_HOST}:${DB_PORT:-3306}/${DB_NAME:-TRADER})"
  # shellcheck disable=SC2046
  exec $(variant_cmd "$v")
}
