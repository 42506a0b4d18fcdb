"""Verdicts from real measurements: `compare baseline HEAD` of node-engine from the same code must say "no
difference detected", and from a tree whose node-engine spends 100 µs of CPU more on every order (its test
knob TEST_WORK_US, set in that tree's manifest) it must detect the regression, and `--fail-above 5` must then
fail the command. Short windows, fresh processes, no calibration and no warm-up before the measured load (both
sides alike): about three minutes on 2 cores."""
import os
import subprocess
import sys
from pathlib import Path

import pytest

from tradebench_harness.analysis import verdict
from tradebench_harness.report import results, tables
from tradebench_harness.run import db as dbmod

pytestmark = pytest.mark.system   # real compares of node-engine on the private database

ROOT = Path(__file__).resolve().parents[2]
TEST_DB = "TRADER_VERDICT_TEST"
SHORT = ["--variants", "node-engine", "--repeat", "1", "--duration", "4", "--warmup", "2", "--concurrency", "16",
         "--no-calibrate", "--budget", "0", "--target", "50", "--jit-warmup-max", "0"]


def compare(ctx, root: Path, out: Path, *extra: str) -> tuple[int, dict, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("DB_")}
    env.update(DB_NAME=TEST_DB, TB_ROOT=str(root), TB_STATE=str(ctx.state), WORKERS="processes")
    r = subprocess.run([sys.executable, "-m", "tradebench_harness", "compare", "baseline", "HEAD", *SHORT, *extra,
                        "--out", str(out)], env=env, capture_output=True, text=True, timeout=900)
    (out.parent / f"{out.name}.log").write_text(r.stdout + r.stderr)
    assert (out / "results.json").exists(), f"compare wrote no results:\n{(r.stdout + r.stderr)[-4000:]}"
    return r.returncode, results.load(str(out), out.parent), r.stdout + r.stderr


@pytest.fixture(scope="module")
def database(ctx):
    dbmod.start_private(ctx)
    dbmod.create(ctx, TEST_DB)


@pytest.fixture(scope="module")
def slowed_tree(ctx, tmp_path_factory):
    """A worktree at HEAD whose node-engine spends 100 µs more CPU per order: its manifest's TEST_WORK_US."""
    where = tmp_path_factory.mktemp("slowed") / "tree"
    subprocess.run(["git", "-C", str(ROOT), "worktree", "add", "--detach", str(where), "HEAD"], check=True,
                   capture_output=True)
    manifest = where / "node-engine" / "variant.yaml"
    text = manifest.read_text()
    assert "  TEST_WORK_US: 0 " in text
    manifest.write_text(text.replace("  TEST_WORK_US: 0 ", "  TEST_WORK_US: 100 "))
    # the load client as this tree built it
    (where / "loadclient" / "target").symlink_to(ROOT / "loadclient" / "target")
    yield where
    subprocess.run(["git", "-C", str(ROOT), "worktree", "remove", "--force", str(where)], capture_output=True)


def rows(doc):
    return {x["variant"]: x for x in tables.baseline_rows(doc)}


def test_the_same_code_measured_twice_gives_no_difference_detected(ctx, database, tmp_path):
    # three fresh processes of each side, interleaved (A B A B A B): the code is the same at HEAD and here
    rc, doc, log = compare(ctx, ROOT, tmp_path / "same", "--processes", "3", "--fail-above", "5")
    assert rc == 0, log[-4000:]
    got = rows(doc)
    assert set(got) == {"node-engine"}
    for v, x in got.items():
        r = x["sales"]
        assert r and r["low"] is not None, (v, r)
        assert r["verdict"] == verdict.SAME, f"{v}: {verdict.short(r)}\n{log[-3000:]}"
        assert f"{v}: no difference detected (" in log
    text = (tmp_path / "same" / "summary.md").read_text()
    assert "## This tree against the baseline" in text and "no difference detected (" in text


def test_a_variant_slowed_on_purpose_is_a_detected_regression_and_fails_the_gate(ctx, database, slowed_tree,
                                                                                 tmp_path):
    rc, doc, log = compare(ctx, slowed_tree, tmp_path / "slowed", "--processes", "2", "--fail-above", "5")
    x = rows(doc)["node-engine"]
    settings = {r["case"]: r["settings"]["TEST_WORK_US"] for r in doc["runs"]}
    assert sorted(settings.values()) == ["0", "100"], settings        # the baseline's 0, this tree's 100
    r = x["sales"]
    assert r["verdict"] == verdict.BEHIND and r["high"] < 1 and r["ratio"] < 0.95, verdict.short(r)
    assert "node-engine: regression: " in log and "beyond --fail-above 5 %" in log
    assert rc == 1, log[-3000:]
    # this tree's CPU per order is up: the knob's work is in the variant's process group
    assert x["cpu"]["verdict"] == verdict.AHEAD
