"""SIGTERM (what timeout, CI runners and service managers send) stops everything the harness started, as
Ctrl-C does: the variant, the load client and the slow link."""
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import psutil
import pytest

from tradebench_harness.run import db as dbmod

pytestmark = pytest.mark.system   # a real bench of java-threads on the private database

ROOT = Path(__file__).resolve().parents[2]
TEST_DB = "TRADER_HARNESS_TEST"


def start_bench(ctx, tmp_path) -> subprocess.Popen:
    dbmod.start_private(ctx)
    dbmod.create(ctx, TEST_DB)
    env = {k: v for k, v in os.environ.items() if not k.startswith("DB_")}
    env.update(DB_NAME=TEST_DB, TB_ROOT=str(ctx.root))
    p = subprocess.Popen([sys.executable, "-m", "tradebench_harness", "bench", "java-threads", "--db-latency", "5",
                          "--duration", "60", "--warmup", "1", "--no-verify", "--no-calibrate", "--jit-warmup-max", "0",
                          "--concurrency", "8", "--out", str(tmp_path / "run")],
                         env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    return p


def children(p: subprocess.Popen, seen: dict[int, str]) -> None:
    for c in psutil.Process(p.pid).children(recursive=True):
        try:
            seen[c.pid] = " ".join(c.cmdline())
        except psutil.NoSuchProcess:
            pass


def stop_and_check(p: subprocess.Popen, started: dict[int, str]) -> None:
    assert p.poll() is None, "the bench ended before it could be stopped"
    p.send_signal(signal.SIGTERM)
    assert p.wait(timeout=60) != 0
    time.sleep(1)
    left = [f"{pid} {cmd}" for pid, cmd in started.items()
            if psutil.pid_exists(pid) and psutil.Process(pid).status() != psutil.STATUS_ZOMBIE]
    assert not left, f"left running after SIGTERM: {left}"


def test_sigterm_mid_run_leaves_nothing_running(ctx, tmp_path):
    p = start_bench(ctx, tmp_path)
    started: dict[int, str] = {}
    deadline = time.monotonic() + 120
    # the measured load is under way: the link, the variant and the load client all run
    while time.monotonic() < deadline and p.poll() is None:
        children(p, started)
        if (tmp_path / "run").exists() and any("toxiproxy" in c for c in started.values()) \
                and any("java-threads.jar" in c for c in started.values()) \
                and any(" load " in f" {c} " for c in started.values()):
            break
        time.sleep(0.5)
    assert len(started) >= 3, started
    stop_and_check(p, started)


def test_sigterm_while_the_variant_starts_leaves_nothing_running(ctx, tmp_path):
    """SIGTERM while the harness waits for the variant's /health: the variant, not yet handed to the bench, is
    stopped too."""
    p = start_bench(ctx, tmp_path)
    started: dict[int, str] = {}
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline and p.poll() is None:
        children(p, started)
        if any("java-threads.jar" in c for c in started.values()):
            break
        time.sleep(0.05)
    assert any("java-threads.jar" in c for c in started.values()), started
    stop_and_check(p, started)
