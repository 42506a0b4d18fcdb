"""SIGTERM (what timeout, CI runners and service managers send) stops everything the harness started, as
Ctrl-C does, within 10 s of the signal: the variant, the load client, the slow link, and the private database
when the command started it (serve too)."""
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import psutil
import pytest

from tradebench_harness.run import context, process
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


#: what a command may take from a SIGTERM to its exit, everything it started stopped
STOP_WITHIN_S = 10


def stop_and_check(p: subprocess.Popen, started: dict[int, str]) -> float:
    """SIGTERM to P; asserts it exits within STOP_WITHIN_S leaving none of STARTED running; the seconds it took."""
    assert p.poll() is None, "the command ended before it could be stopped"
    t0 = time.monotonic()
    p.send_signal(signal.SIGTERM)
    try:
        rc = p.wait(timeout=STOP_WITHIN_S)
    except subprocess.TimeoutExpired:
        p.kill()
        raise AssertionError(f"still running {STOP_WITHIN_S} s after SIGTERM") from None
    took = time.monotonic() - t0
    assert rc != 0 or took < STOP_WITHIN_S
    left = [f"{pid} {cmd}" for pid, cmd in started.items()
            if psutil.pid_exists(pid) and psutil.Process(pid).status() != psutil.STATUS_ZOMBIE]
    assert not left, f"left running after SIGTERM: {left}"
    return took


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


def test_sigterm_to_serve_stops_the_variant_and_the_database_it_started(tmp_path):
    """`./tradebench serve` with no DB_HOST starts the private database; a SIGTERM drains the variant and stops
    that database too (an instance of its own: its own data folder and port)."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("DB_")}
    env.update(TB_ROOT=str(ROOT), TB_DB_DIR=str(tmp_path / "db"), TB_DB_PORT=str(process.free_port()),
               PORT=str(process.free_port()))
    own = context.from_env(env)
    p = subprocess.Popen([sys.executable, "-m", "tradebench_harness", "serve", "java-threads"], env=env,
                         stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        started: dict[int, str] = {}
        deadline = time.monotonic() + 180
        while time.monotonic() < deadline and p.poll() is None:
            children(p, started)
            if process.http_ok(f"http://127.0.0.1:{env['PORT']}/health"):
                break
            time.sleep(0.5)
        children(p, started)
        assert process.http_ok(f"http://127.0.0.1:{env['PORT']}/health"), "serve never answered /health"
        assert dbmod.running(own), "serve did not start the private database"
        stop_and_check(p, started)
        assert not dbmod.running(own), "serve left running the database it started"
    finally:
        if p.poll() is None:
            p.kill()
        dbmod.stop_private(own)
