"""The cluster launcher's pieces that need no JVM: each member's environment, the sampler over several
processes, --nodes on the bench command line (the three-member runs themselves are cluster_test.py's)."""
import sys
import time

from tradebench_harness.cli import measure as bench_cli
from tradebench_harness.cli.options import Measure
from tradebench_harness.run import members, process


def test_every_member_is_a_seed_with_its_own_ports():
    envs = members.member_env(3, [3100, 3101, 3102], [25520, 25521, 25522])
    seeds = "127.0.0.1:25520,127.0.0.1:25521,127.0.0.1:25522"
    assert [e["PORT"] for e in envs] == ["3100", "3101", "3102"]
    assert [e["CLUSTER_PORT"] for e in envs] == ["25520", "25521", "25522"]
    assert all(e["CLUSTER_SEEDS"] == seeds and e["CLUSTER_HOST"] == "127.0.0.1" for e in envs)
    # each member's own address is in the seeds (the variant refuses to start otherwise)
    assert all(f"{e['CLUSTER_HOST']}:{e['CLUSTER_PORT']}" in seeds.split(",") for e in envs)


def test_up_members_counts_only_up_and_reachable():
    h = {"members": [{"status": "Up", "reachable": True}, {"status": "Up", "reachable": False},
                     {"status": "Joining", "reachable": True}]}
    assert members.up_members(h) == 1
    assert members.up_members(None) == 0


def test_the_sampler_adds_up_every_member(tmp_path):
    burn = "import time\nt=time.time()\nwhile time.time()-t<3: pass\n"
    rs = [process.start(f"m{i}", [sys.executable, "-c", burn], tmp_path / f"m{i}.log") for i in range(2)]
    s = process.Sampler(0.5)
    s.add("variant", rs[0].pid, rs[1].pid)
    s.start()
    time.sleep(2)
    samples = s.stop()["variant"]
    for r in rs:
        r.stop(1)
    assert samples and max(x["processes"] for x in samples) == 2
    assert max(x["cpuPercent"] for x in samples) > 0   # both busy processes are in the group's figures


def test_nodes_makes_a_labelled_case():
    p = bench_cli.argparse.ArgumentParser()
    bench_cli.common(p, repeat=1)
    c = bench_cli.case_of(Measure.of(p.parse_args(["--nodes", "3", "--engines", "6"])))
    assert (c.nodes, c.engines, c.label) == (3, 6, "3-members")
    c = bench_cli.case_of(Measure.of(p.parse_args([])))
    assert (c.nodes, c.label) == (1, "")
