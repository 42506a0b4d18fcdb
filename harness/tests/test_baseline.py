"""compare --baseline REF: REF's variants come from a worktree of that commit and run from there, and the
summary divides this tree's figures by the baseline's."""
import subprocess
from pathlib import Path

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


def spread(m):
    return {"median": m, "min": m * 0.98, "max": m * 1.02, "n": 3}


def row(case, variant, sales, cpu, floor):
    return {"case": case, "variant": variant, "salesPerMinute": spread(sales), "cpuUsPerOrderVariant": spread(cpu),
            "cpuUsPerOrder": {"variant": spread(cpu), "loadclient": spread(10.0), "database": spread(12.0)},
            "floorCpuUsPerRequest": spread(floor), "ordersPerSecond": spread(sales / 60), "floor": "tomcat"}


def test_the_summary_divides_this_trees_figures_by_the_baselines():
    doc = {"options": {"baseline_cases": ["aaa", "bbb"]}, "environment": {"cores": 2},
           "summary": [row("aaa", "java-threads", 600_000, 40.0, 15.0), row("bbb", "java-threads", 900_000, 30.0, 15.0),
                       row("aaa", "java-virtual", 500_000, 50.0, 15.0)]}
    text = "\n".join(tables.baseline_md(doc))
    line = next(x for x in text.splitlines() if x.startswith("| java-threads"))
    cells = [c.strip() for c in line.strip("|").split("|")]
    assert cells[3] == "1.50"                # sales B ÷ A
    assert cells[4] == "no"                  # 588,000–612,000 and 882,000–918,000 are apart
    assert cells[6] == "25.0 → 15.0"         # own work: CPU per order less the floor
    assert cells[7] == "0.60"
    assert "java-virtual" not in text        # measured at the baseline only: no pair
    assert tables.baseline_md({"options": {}, "summary": []}) == []
