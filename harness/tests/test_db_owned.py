"""A command stops the private database it started, and leaves running one it found running (a bench on an
instance of its own: its own data folder and port)."""
import os
import subprocess
import sys
from pathlib import Path

import pytest

from tradebench_harness.run import context, process
from tradebench_harness.run import db as dbmod

pytestmark = pytest.mark.system   # a real bench of java-threads

ROOT = Path(__file__).resolve().parents[2]


def bench(env: dict, out: Path) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "tradebench_harness", "bench", "java-threads", "--duration", "1",
                           "--warmup", "0", "--no-verify", "--no-calibrate", "--jit-warmup-max", "0",
                           "--concurrency", "4", "--out", str(out)],
                          env=env, capture_output=True, text=True, timeout=600)


def test_a_command_stops_the_database_it_started_and_not_one_it_found(tmp_path):
    env = {k: v for k, v in os.environ.items() if not k.startswith("DB_")}
    env.update(TB_ROOT=str(ROOT), TB_DB_DIR=str(tmp_path / "db"),
               TB_DB_PORT=str(process.free_port()))
    own = context.from_env(env)
    try:
        assert not dbmod.running(own)
        r = bench(env, tmp_path / "run1")
        assert r.returncode == 0, r.stderr[-3000:]
        assert (tmp_path / "run1" / "results.json").exists()
        assert (tmp_path / "db" / "data" / "mysql").is_dir(), "the bench did not use the instance it was given"
        assert not dbmod.running(own), "the bench left running the database it started"

        dbmod.start_private(own)
        pid = dbmod.private(own).pid()
        r = bench(env, tmp_path / "run2")
        assert r.returncode == 0, r.stderr[-3000:]
        assert dbmod.running(own) and dbmod.private(own).pid() == pid, "the bench stopped a database it found running"
    finally:
        dbmod.stop_private(own)
