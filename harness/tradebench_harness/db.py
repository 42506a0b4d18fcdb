"""The database the harness measures against: the project's private MariaDB
(started by the launcher's `./tradebench db start`, scripts/lib/20-db.sh) or
the one DB_HOST/DB_PORT/DB_USER/DB_PASSWORD name."""
from __future__ import annotations

import os
import shutil
import subprocess
from dataclasses import dataclass
from pathlib import Path

from .context import Context


class DbError(Exception):
    pass


@dataclass
class Database:
    host: str
    port: int
    user: str
    password: str
    name: str
    private: bool           # the launcher's private instance: root over its socket, pid file known
    socket: Path | None
    pid_file: Path | None

    def jdbc(self, name: str | None = None, host: str | None = None, port: int | None = None) -> str:
        return (f"jdbc:mysql://{host or self.host}:{port or self.port}/{name or self.name}"
                f"?user={self.user}&password={self.password}")

    def variant_env(self, name: str | None = None) -> dict:
        return {"DB_HOST": self.host, "DB_PORT": str(self.port), "DB_USER": self.user,
                "DB_PASSWORD": self.password, "DB_NAME": name or self.name}

    def client(self) -> str:
        for b in ("mariadb", "mysql"):
            p = shutil.which(b)
            if p:
                return p
        raise DbError("no mariadb/mysql client on PATH")

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


def launcher(ctx: Context, *args: str, db_dir: Path | None = None, port: int | None = None,
             quiet: bool = True) -> subprocess.CompletedProcess:
    """./tradebench db ARGS, optionally on another instance (its own folder and port)."""
    env = dict(os.environ)
    env["TB_DB_PORT"] = str(port or ctx.db_port)
    env["TB_DB_DIR"] = str(db_dir or ctx.db_dir)
    return subprocess.run([str(ctx.launcher), "db", *args], env=env, capture_output=quiet, text=True)


def private(ctx: Context, name: str = "TRADER", db_dir: Path | None = None, port: int | None = None) -> Database:
    d = db_dir or ctx.db_dir
    return Database(host="127.0.0.1", port=port or ctx.db_port, user="trader", password="trader", name=name,
                    private=True, socket=d / "mysqld.sock", pid_file=d / "mysqld.pid")


def start_private(ctx: Context, db_dir: Path | None = None, port: int | None = None) -> None:
    r = launcher(ctx, "start", db_dir=db_dir, port=port)
    if r.returncode != 0:
        raise DbError(f"the private database did not start: {(r.stderr or '').strip()}")


def stop_private(ctx: Context, db_dir: Path | None = None, port: int | None = None) -> None:
    launcher(ctx, "stop", db_dir=db_dir, port=port)


def create(ctx: Context, name: str) -> None:
    r = launcher(ctx, "create", name)
    if r.returncode != 0:
        raise DbError(f"could not create database {name}: {(r.stderr or '').strip()}")


def open_db(ctx: Context, name: str | None = None) -> Database:
    """DB_HOST set: that server (as DB_USER). Otherwise the private database, started when needed."""
    env = ctx.env
    name = name or env.get("DB_NAME") or "TRADER"
    if env.get("DB_HOST"):
        return Database(host=env["DB_HOST"], port=int(env.get("DB_PORT") or 3306), user=env.get("DB_USER", "trader"),
                        password=env.get("DB_PASSWORD", "trader"), name=name, private=False, socket=None, pid_file=None)
    start_private(ctx)
    return private(ctx, name)
