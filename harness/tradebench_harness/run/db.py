"""The database the harness measures against: the project's private MariaDB/MySQL, or the one
DB_HOST/DB_PORT/DB_USER/DB_PASSWORD name. This module owns the private database's life
(`./tradebench db start|stop|status|create|sql`):

  data folder  .tradebench/db/data (git-ignored; another instance: TB_DB_DIR, as the reliability suite's)
  port         TB_DB_PORT, default 3307 (beside a system server on 3306)
  credentials  trader / trader (schema.sql), root over the socket only

Durability: innodb_flush_log_at_trx_commit=2 by default: every commit reaches the OS (a crash of the
server loses nothing), the disk is synced once a second; a benchmark then measures the engines, not this
machine's fsync. TB_DB_DURABLE=1 makes every commit sync to disk, which a crash of the machine or its
power needs (contract section 4). Never 0: a server crash would lose up to a second of acknowledged
commits (the reliability suite kills the server with SIGKILL and finds them missing).
"""
from __future__ import annotations

import contextlib
import os
import re
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from . import process, tools
from .context import Context

USER = PASSWORD = "trader"


class DbError(Exception):
    pass


def say(msg: str) -> None:
    print(f"tradebench: {msg}", file=sys.stderr, flush=True)
@dataclass
class Database:
    host: str
    port: int
    user: str
    password: str
    name: str
    private: bool           # the project's private instance: root over its socket, pid file known
    socket: Path | None
    pid_file: Path | None

    def jdbc(self, name: str | None = None, host: str | None = None, port: int | None = None) -> str:
        return (f"jdbc:mysql://{host or self.host}:{port or self.port}/{name or self.name}"
                f"?user={self.user}&password={self.password}")

    def variant_env(self, name: str | None = None) -> dict[str, str]:
        return {"DB_HOST": self.host, "DB_PORT": str(self.port), "DB_USER": self.user,
                "DB_PASSWORD": self.password, "DB_NAME": name or self.name}

    def client(self) -> str:
        found = tools.which("mariadb", "mysql")
        if not found:
            raise DbError("no mariadb/mysql client on PATH")
        return found

    def sql(self, statement: str, name: str | None = None) -> str:
        """Runs STATEMENT; returns the rows as tab-separated text (no header)."""
        if self.private:
            argv = [self.client(), "--no-defaults", "-uroot", f"--socket={self.socket}", "-N", "-B"]
        else:
            argv = [self.client(), "--no-defaults", "-h", self.host, "-P", str(self.port), "-u", self.user,
                    f"-p{self.password}", "-N", "-B"]
        argv += [name or self.name, "-e", statement]
        r = subprocess.run(argv, capture_output=True, text=True)
        if r.returncode != 0:
            raise DbError(f"SQL failed ({statement[:60]}...): {r.stderr.strip()}")
        return r.stdout

    def scalar(self, statement: str, name: str | None = None) -> str:
        return self.sql(statement, name).strip().split("\n")[0]

    def pid(self) -> int | None:
        if self.pid_file and self.pid_file.exists():
            try:
                return int(self.pid_file.read_text().strip())
            except ValueError:
                return None
        return None

    def version(self) -> str | None:
        try:
            return self.scalar("SELECT VERSION()")
        except DbError:
            return None


def private(ctx: Context, name: str = "TRADER", db_dir: Path | None = None, port: int | None = None) -> Database:
    d = db_dir or ctx.db_dir
    return Database(host="127.0.0.1", port=port or ctx.db_port, user=USER, password=PASSWORD, name=name,
                    private=True, socket=d / "mysqld.sock", pid_file=d / "mysqld.pid")


def running(ctx: Context, db_dir: Path | None = None, port: int | None = None) -> bool:
    """The private instance's server process is alive (its pid file names a live process)."""
    pid = private(ctx, db_dir=db_dir, port=port).pid()
    if not pid:
        return False
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def _root_argv(db: Database) -> list[str]:
    return [tools.mariadb()[1], "--no-defaults", "-uroot", f"--socket={db.socket}"]


def _answers(db: Database) -> bool:
    return subprocess.run([*_root_argv(db), "-e", "SELECT 1"], capture_output=True).returncode == 0


def _port_in_use(port: int) -> bool:
    with socket.socket() as s:
        s.settimeout(1)
        return s.connect_ex(("127.0.0.1", port)) == 0


def apply_schema(ctx: Context, name: str, db_dir: Path | None = None, port: int | None = None) -> None:
    """schema.sql, with the database TRADER renamed NAME (created when missing; tables kept)."""
    if not re.fullmatch(r"[A-Za-z0-9_]+", name):
        raise DbError(f"bad database name: {name}")
    sql = re.sub(r"\bTRADER\b", name, (ctx.root / "schema.sql").read_text())
    r = subprocess.run(_root_argv(private(ctx, db_dir=db_dir, port=port)), input=sql, capture_output=True, text=True)
    if r.returncode != 0:
        raise DbError(f"applying schema.sql to {name} failed: {r.stderr.strip()}")


def _initialise(server: str, d: Path, user: list[str]) -> None:
    """A new data folder in D/data, by MariaDB's install program, else by MySQL's server itself."""
    say(f"initialising the private database in {d / 'data'}")
    init = tools.which("mariadb-install-db", "mysql_install_db")
    argv = ([init, "--no-defaults", f"--datadir={d / 'data'}", *user, "--auth-root-authentication-method=socket",
             "--skip-test-db"] if init else
            # MySQL 8: the server initialises its own data folder
            [server, "--no-defaults", "--initialize-insecure", f"--datadir={d / 'data'}", *user])
    with open(d / "init.log", "wb") as log:
        if subprocess.run(argv, stdout=log, stderr=subprocess.STDOUT).returncode != 0:
            raise DbError(f"database initialisation failed: see {d / 'init.log'}")


def start_private(ctx: Context, db_dir: Path | None = None, port: int | None = None, quiet: bool = True) -> None:
    """Starts the private instance (initialised first when its data folder is new) and applies schema.sql;
    nothing but the schema when it already runs."""
    d, port = db_dir or ctx.db_dir, port or ctx.db_port
    db = private(ctx, db_dir=d, port=port)
    if running(ctx, d, port) and _answers(db):
        apply_schema(ctx, "TRADER", d, port)
        if not quiet:
            say(f"private database already running on 127.0.0.1:{port}")
        return
    try:
        server, _client = tools.mariadb()
    except tools.ToolError as e:
        raise DbError(str(e)) from e
    if _port_in_use(port):
        raise DbError(f"port {port} is taken by another program: stop it, or choose another port with TB_DB_PORT=NNNN")
    d.mkdir(parents=True, exist_ok=True)
    user = ["--user=root"] if os.geteuid() == 0 else []   # the server refuses root unless told
    if not (d / "data" / "mysql").is_dir():
        _initialise(server, d, user)
    durable = 1 if ctx.env.get("TB_DB_DURABLE") == "1" else 2
    if not quiet:
        say(f"starting the private database on 127.0.0.1:{port}")
    # started through sh's `&`: the server is nobody's child here, so it outlives this command and its death
    # (the reliability suite kills it) leaves no zombie that would still look alive
    subprocess.run(
        ["sh", "-c", 'exec "$@" </dev/null >/dev/null 2>&1 &', "sh", server, "--no-defaults", f"--datadir={d / 'data'}", *user, f"--port={port}", "--bind-address=127.0.0.1",
         f"--socket={db.socket}", f"--pid-file={db.pid_file}", f"--log-error={d / 'mysqld.log'}",
         "--skip-name-resolve", "--max-connections=1000", "--innodb-buffer-pool-size=512M",
         f"--innodb-flush-log-at-trx-commit={durable}", "--innodb-log-file-size=256M", "--character-set-server=utf8mb4"],
        start_new_session=True, check=True)
    deadline = time.monotonic() + 60
    while not _answers(db):
        if time.monotonic() > deadline:
            raise DbError(f"the private database did not start: see {d / 'mysqld.log'}")
        time.sleep(0.2)
    apply_schema(ctx, "TRADER", d, port)
    if not quiet:
        say(f"private database up: DB_HOST=127.0.0.1 DB_PORT={port} DB_USER={USER} DB_PASSWORD={PASSWORD}")


def stop_private(ctx: Context, db_dir: Path | None = None, port: int | None = None) -> bool:
    """Stops the private instance (SIGTERM, SIGKILL after 30 s); False when it was not running."""
    if not running(ctx, db_dir, port):
        return False
    pid = private(ctx, db_dir=db_dir, port=port).pid()
    if pid is None:   # it stopped, its pid file gone, since running() read it
        return True
    with contextlib.suppress(ProcessLookupError):
        os.kill(pid, signal.SIGTERM)
    deadline = time.monotonic() + process.grace(30)
    while running(ctx, db_dir, port) and time.monotonic() < deadline:
        time.sleep(0.1)
    if running(ctx, db_dir, port):
        with contextlib.suppress(ProcessLookupError):
            os.kill(pid, signal.SIGKILL)
    return True


def create(ctx: Context, name: str) -> None:
    """An extra database NAME with the TRADER schema on the private instance (started when needed)."""
    start_private(ctx)
    apply_schema(ctx, name)


@contextlib.contextmanager
def owned(ctx: Context) -> Iterator[None]:
    """What runs inside may start the private database; it is stopped at the end unless it ran before."""
    was_running = running(ctx)
    try:
        yield
    finally:
        if not was_running and running(ctx):
            say("stopping the private database (this command started it)")
            stop_private(ctx)


def command(ctx: Context, argv: list[str]) -> int:
    """./tradebench db start|stop|status|create NAME|sql [NAME]"""
    sub, rest = (argv[0] if argv else "status"), argv[1:]
    db = private(ctx)
    try:
        if sub == "start" and not rest:
            start_private(ctx, quiet=False)
        elif sub == "stop" and not rest:
            say("private database stopped" if stop_private(ctx) else "private database not running")
        elif sub == "status" and not rest:
            if not (running(ctx) and _answers(db)):
                print("stopped")
                return 3
            print(f"running: 127.0.0.1:{ctx.db_port} pid {db.pid()} data {ctx.db_dir / 'data'}")
            print(f"DB_HOST=127.0.0.1 DB_PORT={ctx.db_port} DB_USER={USER} DB_PASSWORD={PASSWORD} DB_NAME=TRADER")
        elif sub == "create" and len(rest) == 1:
            create(ctx, rest[0])
            say(f"database {rest[0]} ready")
        elif sub == "sql" and len(rest) <= 1:
            if not running(ctx):
                start_private(ctx, quiet=False)
            argv = [*_root_argv(db), rest[0] if rest else "TRADER"]
            os.execv(argv[0], argv)
        else:
            say("usage: ./tradebench db start|stop|status|create NAME|sql [NAME]")
            return 2
    except (DbError, tools.ToolError) as e:
        say(f"error: {e}")
        return 1
    return 0


def open_db(ctx: Context, name: str | None = None) -> Database:
    """DB_HOST set: that server (as DB_USER). Otherwise the private database, started when needed."""
    env = ctx.env
    name = name or env.get("DB_NAME") or "TRADER"
    if env.get("DB_HOST"):
        return Database(host=env["DB_HOST"], port=int(env.get("DB_PORT") or 3306), user=env.get("DB_USER", USER),
                        password=env.get("DB_PASSWORD", PASSWORD), name=name, private=False, socket=None,
                        pid_file=None)
    start_private(ctx)
    return private(ctx, name)
