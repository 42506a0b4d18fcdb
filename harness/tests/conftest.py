"""Shared fixtures: the harness's context as the launcher builds it, and one short real compare whose folder the
compare's tests (test_compare_e2e.py) and the profile's (test_profile.py) read."""
import os
import subprocess
import sys
from pathlib import Path

import pytest

from tradebench_harness.report import results
from tradebench_harness.run import context  # noqa: E402
from tradebench_harness.run import db as dbmod

ROOT = Path(__file__).resolve().parents[2]
#: the compared variants, in the order of their rows; node-engine's row is its WORKERS=processes one (every
#: process's --cpu-prof cut to the window): the map's test runs its WORKERS=threads row
COMPARED = ["java-threads", "node-engine"]
COMPARE_DB = "TRADER_COMPARE_TEST"   # its own: the SALES of its last window are counted again after it


@pytest.fixture(scope="session")
def ctx():
    env = dict(os.environ)
    env.setdefault("TB_ROOT", str(ROOT))
    return context.from_env(env)


@pytest.fixture(scope="session")
def compared(ctx, tmp_path_factory):
    """A short real compare of COMPARED against the private database: two fresh processes of each, one 3 s window
    each, no further round, a short calibration, and a CPU profile of each row over its windows (--profile).
    (folder, results as results.load reads them, stdout)."""
    out = tmp_path_factory.mktemp("compare") / "run"
    env = {k: v for k, v in os.environ.items() if not k.startswith("DB_")}   # the private database, sampled too
    dbmod.start_private(ctx)
    dbmod.create(ctx, COMPARE_DB)
    env.update(DB_NAME=COMPARE_DB, TB_ROOT=str(ctx.root), WORKERS="processes")
    r = subprocess.run([sys.executable, "-m", "tradebench_harness", "compare", "--variants", ",".join(COMPARED),
                        "--processes", "2", "--repeat", "1", "--budget", "0",
                        "--duration", "3", "--warmup", "1", "--concurrency", "16",
                        "--calibration-duration", "2", "--calibration-warmup", "auto", "--calibration-warmup-max", "6",
                        "--jit-warmup-max", "6", "--profile",
                        "--out", str(out)],
                       env=env, capture_output=True, text=True, timeout=1200)
    (out.parent / "compare.log").write_text(r.stdout + r.stderr)
    assert r.returncode == 0, f"compare failed:\n{(r.stdout + r.stderr)[-4000:]}"
    return out, results.load(str(out), out.parent), r.stdout
