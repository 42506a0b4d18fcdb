"""compare baseline REF: REF's variants come from a worktree of that commit and run from there, and the
summary divides this tree's figures by the baseline's."""
import subprocess
from pathlib import Path

from tradebench_harness.analysis import stats, verdict
from tradebench_harness.report import tables
from tradebench_harness.run import baseline, context, variants

ROOT = Path(__file__).resolve().parents[2]


def git(cwd, *args):
    subprocess.run(["git", "-C", str(cwd), *args], check=True, capture_output=True)


def test_a_baselines_variants_are_built_and_run_from_its_own_worktree(tmp_path):
    repo = tmp_path / "repo"
    (repo / "java-threads").mkdir(parents=True)
    manifest = (ROOT / "java-threads" / "variant.yaml").read_text()
    (repo / "java-threads" / "variant.yaml").write_text(manifest)
    git(repo, "init", "-q")
    git(repo, "-c", "user.email=t@t", "-c", "user.name=t", "add", ".")
    git(repo, "-c", "user.email=t@t", "-c", "user.name=t", "commit", "-qm", "one")
    first = subprocess.run(["git", "-C", str(repo), "rev-parse", "HEAD"], capture_output=True, text=True).stdout.strip()
    (repo / "java-threads" / "variant.yaml").write_text(manifest.replace("Tomcat + a thread", "Tomcat and a thread"))
    assert baseline.this_tree(repo).endswith("+changes")

    ctx = context.from_env({"TB_ROOT": str(repo), "TB_STATE": str(tmp_path / "state")})
    short, (v,) = baseline.variants(ctx, first, ["java-threads"])
    where = tmp_path / "state" / "baseline" / first
    assert short == first[:10]
    assert v.root == where and v.home(ctx) == where
    assert "Tomcat + a thread" in v.description          # the manifest as that commit has it
    jar = v.command(ctx)[-1]
    assert jar == "java-threads/target/java-threads.jar"  # not built yet: the token as written
    (where / "java-threads" / "target").mkdir(parents=True)
    (where / "java-threads" / "target" / "java-threads.jar").write_text("")
    assert v.command(ctx)[-1] == str(where / "java-threads" / "target" / "java-threads.jar")
    # this tree's variant is still this tree's
    (mine,) = variants.by_name(repo, ["java-threads"])
    assert mine.home(ctx) == repo
    # asked again, the same worktree
    assert baseline.checkout(ctx, first) == (first, where)


def test_an_unknown_ref_is_a_clear_error(tmp_path):
    ctx = context.from_env({"TB_ROOT": str(ROOT), "TB_STATE": str(tmp_path)})
    try:
        baseline.variants(ctx, "no-such-ref-anywhere", ["java-threads"])
    except baseline.BaselineError as e:
        assert "no-such-ref-anywhere" in str(e)
    else:
        raise AssertionError("an unknown ref was accepted")


def windows(case, variant, sales, cpu, floor, spread=0.01):
    """Two processes of two windows each of a row: sales/min and CPU µs/order within ±SPREAD."""
    out = []
    for proc, k in ((1, 1), (1, 2), (2, 1), (2, 2)):
        f = 1 + spread * (1 if (proc + k) % 2 else -1) * (0.5 if k == 2 else 1)
        out.append({"case": case, "variant": variant, "runtime": "java", "engines": 4, "persist": "per-sale",
                    "rate": None, "settings": {}, "dbConnections": 8, "repeat": k, "process": f"{case}{variant}{proc}",
                    "salesPerMinute": sales * f, "ordersPerSecond": sales * f / 60, "p50Ms": 1.0, "p99Ms": 5.0,
                    "cpu": {"variant": {"cpuPercent": 100.0}, "loadclient": {"cpuPercent": 10.0},
                            "database": {"cpuPercent": 10.0}},
                    "cpuUsPerOrder": {"variant": cpu * f, "loadclient": 10.0, "database": 12.0},
                    "floorCpuUsPerRequest": floor, "floor": "tomcat", "steady": True, "driftFlagged": False})
    return out


def test_the_summary_gives_this_trees_figures_over_the_baselines_with_a_verdict():
    runs = (windows("aaa", "java-threads", 600_000, 40.0, 15.0) + windows("bbb", "java-threads", 900_000, 30.0, 15.0)
            + windows("aaa", "java-virtual", 500_000, 50.0, 15.0)
            + windows("aaa", "node-engine", 300_000, 80.0, 15.0) + windows("bbb", "node-engine", 301_000, 80.0, 15.0)
            + windows("aaa", "java-akka", 300_000, 80.0, 15.0) + windows("bbb", "java-akka", 240_000, 95.0, 15.0))
    doc = {"options": {"baseline_cases": ["aaa", "bbb"]}, "environment": {"cores": 2}, "runs": runs,
           "summary": stats.summarize(runs)}
    text = "\n".join(tables.baseline_md(doc))

    def cells(variant):
        line = next(x for x in text.splitlines() if x.startswith(f"| {variant} "))
        return [c.strip() for c in line.strip("|").split("|")]
    c = cells("java-threads")
    assert c[3].startswith("1.50× [") and c[4].startswith("improvement: 1.50×")
    assert c[5].startswith("0.75× [")                  # CPU per order B ÷ A
    assert c[6] == "25.0 → 15.0"                       # own work: CPU per order less the floor
    assert cells("node-engine")[4].startswith("no difference detected (")
    assert cells("java-akka")[4].startswith("regression: 0.80×")
    assert "java-virtual" not in text                  # measured at the baseline only: no pair
    rows = {x["variant"]: x for x in tables.baseline_rows(doc)}
    assert verdict.fails(rows["java-akka"]["sales"], 5) and not verdict.fails(rows["java-akka"]["sales"], 25)
    assert not verdict.fails(rows["node-engine"]["sales"], 5) and not verdict.fails(rows["java-threads"]["sales"], 5)
    assert tables.baseline_md({"options": {}, "summary": []}) == []
