# The project's private MariaDB/MySQL: its own data folder, port and credentials.
#
#   data folder  .tradebench/db/data (git-ignored)
#   port         TB_DB_PORT, default 3307 (beside a system server on 3306)
#   credentials  trader / trader (schema.sql), root over the socket only
#
# Durability: innodb_flush_log_at_trx_commit=2 by default: every commit reaches
# the OS (a crash of the server loses nothing), the disk is synced once a
# second. A benchmark then measures the engines, not this machine's fsync.
# TB_DB_DURABLE=1 makes every commit sync to disk, which a crash of the machine
# or its power needs (contract section 4). Never 0: a server crash would lose
# up to a second of acknowledged commits (the reliability suite kills the
# server with SIGKILL and finds them missing).

TB_DB_DIR="${TB_DB_DIR:-$TB_STATE/db}"   # another instance: TB_DB_DIR and TB_DB_PORT (the reliability suite)
TB_DB_PORT="${TB_DB_PORT:-3307}"
TB_DB_USER=trader
TB_DB_PASSWORD=trader

db_server_bin() {
  local b
  for b in mariadbd mysqld; do
    command -v "$b" >/dev/null 2>&1 && { command -v "$b"; return 0; }
    for d in /usr/sbin /usr/local/sbin /usr/local/mysql/bin /usr/libexec; do
      [ -x "$d/$b" ] && { echo "$d/$b"; return 0; }
    done
  done
  return 1
}
db_client_bin() {
  local b
  for b in mariadb mysql; do command -v "$b" >/dev/null 2>&1 && { command -v "$b"; return 0; }; done
  return 1
}

# db_ensure_installed: finds a server, or installs mariadb-server where possible.
db_ensure_installed() {
  if db_server_bin >/dev/null && db_client_bin >/dev/null; then return 0; fi
  say "no MariaDB/MySQL server found on this machine"
  # policy-rc.d stops the package from starting the system-wide service: we run our own.
  local policy=/usr/sbin/policy-rc.d created=""
  if [ "$(id -u)" -eq 0 ] && [ ! -e "$policy" ]; then printf '#!/bin/sh\nexit 101\n' > "$policy"; chmod +x "$policy"; created=1; fi
  apt_install mariadb-server mariadb-client || true
  [ -n "$created" ] && rm -f "$policy"
  db_server_bin >/dev/null && db_client_bin >/dev/null && return 0
  die "no MariaDB/MySQL server: install one ('sudo apt-get install mariadb-server', or MySQL 8.x), or point DB_HOST/DB_PORT/DB_USER/DB_PASSWORD at a server where schema.sql was applied"
}

db_pid() { [ -f "$TB_DB_DIR/mysqld.pid" ] && cat "$TB_DB_DIR/mysqld.pid" 2>/dev/null; }
db_running() { local p; p=$(db_pid) && [ -n "$p" ] && kill -0 "$p" 2>/dev/null; }

# db_root_sql [ARGS]: the client as root over the private socket.
db_root_sql() { "$(db_client_bin)" --no-defaults -uroot --socket="$TB_DB_DIR/mysqld.sock" "$@"; }

# port_in_use PORT: something accepts connections on 127.0.0.1:PORT (the probe's
# connection lives and dies in a subshell).
port_in_use() { (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null; }

db_start() {
  if db_running; then
    db_root_sql -e 'SELECT 1' >/dev/null 2>&1 && { db_apply_schema TRADER; say "private database already running on 127.0.0.1:$TB_DB_PORT"; return 0; }
  fi
  db_ensure_installed
  local server; server=$(db_server_bin)
  if port_in_use "$TB_DB_PORT"; then
    die "port $TB_DB_PORT is taken by another program: stop it, or choose another port with TB_DB_PORT=NNNN"
  fi
  mkdir -p "$TB_DB_DIR"
  local user_opt=()
  [ "$(id -u)" -eq 0 ] && user_opt=(--user=root)   # the server refuses root unless told
  if [ ! -d "$TB_DB_DIR/data/mysql" ]; then
    say "initialising the private database in $TB_DB_DIR/data"
    local init
    if init=$(command -v mariadb-install-db || command -v mysql_install_db); then
      "$init" --no-defaults --datadir="$TB_DB_DIR/data" "${user_opt[@]}" \
        --auth-root-authentication-method=socket --skip-test-db >"$TB_DB_DIR/init.log" 2>&1 \
        || die "database initialisation failed: see $TB_DB_DIR/init.log"
    else
      # MySQL 8: the server initialises its own data folder
      "$server" --no-defaults --initialize-insecure --datadir="$TB_DB_DIR/data" "${user_opt[@]}" >"$TB_DB_DIR/init.log" 2>&1 \
        || die "database initialisation failed: see $TB_DB_DIR/init.log"
    fi
  fi
  local durable=2; [ "${TB_DB_DURABLE:-0}" = 1 ] && durable=1
  say "starting the private database on 127.0.0.1:$TB_DB_PORT"
  nohup "$server" --no-defaults --datadir="$TB_DB_DIR/data" "${user_opt[@]}" \
    --port="$TB_DB_PORT" --bind-address=127.0.0.1 --socket="$TB_DB_DIR/mysqld.sock" \
    --pid-file="$TB_DB_DIR/mysqld.pid" --log-error="$TB_DB_DIR/mysqld.log" \
    --skip-name-resolve --max-connections=1000 --innodb-buffer-pool-size=512M \
    --innodb-flush-log-at-trx-commit="$durable" --innodb-log-file-size=256M \
    --character-set-server=utf8mb4 >/dev/null 2>&1 </dev/null &
  local i
  for ((i = 0; i < 300; i++)); do
    db_root_sql -e 'SELECT 1' >/dev/null 2>&1 && break
    sleep 0.2
  done
  db_root_sql -e 'SELECT 1' >/dev/null 2>&1 || die "the private database did not start: see $TB_DB_DIR/mysqld.log"
  db_apply_schema TRADER
  say "private database up: DB_HOST=127.0.0.1 DB_PORT=$TB_DB_PORT DB_USER=$TB_DB_USER DB_PASSWORD=$TB_DB_PASSWORD"
}

# db_apply_schema NAME: schema.sql, with the database TRADER renamed NAME.
db_apply_schema() {
  local name="$1"
  [[ "$name" =~ ^[A-Za-z0-9_]+$ ]] || die "bad database name: $name"
  sed "s/\bTRADER\b/$name/g" "$TB_ROOT/schema.sql" | db_root_sql || die "applying schema.sql to $name failed"
}

db_stop() {
  if ! db_running; then say "private database not running"; return 0; fi
  local p; p=$(db_pid)
  kill "$p" 2>/dev/null || true
  local i
  for ((i = 0; i < 300; i++)); do kill -0 "$p" 2>/dev/null || break; sleep 0.1; done
  kill -0 "$p" 2>/dev/null && { kill -9 "$p" 2>/dev/null || true; }
  say "private database stopped"
}

db_status() {
  if db_running && db_root_sql -e 'SELECT 1' >/dev/null 2>&1; then
    echo "running: 127.0.0.1:$TB_DB_PORT pid $(db_pid) data $TB_DB_DIR/data"
    echo "DB_HOST=127.0.0.1 DB_PORT=$TB_DB_PORT DB_USER=$TB_DB_USER DB_PASSWORD=$TB_DB_PASSWORD DB_NAME=TRADER"
  else
    echo "stopped"; return 3
  fi
}

# db_env: exports the contract section 5 names for the private database unless DB_HOST is set.
db_env() {
  if [ -z "${DB_HOST:-}" ]; then
    db_start
    export DB_HOST=127.0.0.1 DB_PORT="$TB_DB_PORT" DB_USER="$TB_DB_USER" DB_PASSWORD="$TB_DB_PASSWORD"
    export DB_NAME="${DB_NAME:-TRADER}"
  fi
}

tb_db() {
  case "${1:-status}" in
    start)  db_start ;;
    stop)   db_stop ;;
    status) db_status ;;
    create) [ -n "${2:-}" ] || die "usage: ./tradebench db create NAME"; db_start >/dev/null 2>&1 || db_start; db_apply_schema "$2"; say "database $2 ready" ;;
    sql)    db_running || db_start; db_root_sql "${2:-TRADER}" ;;
    *) die "usage: ./tradebench db start|stop|status|create NAME|sql [NAME]" ;;
  esac
}
