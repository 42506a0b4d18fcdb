"""Where a measurement's processes run (run/layout.py): the default split of a machine's cores, the options,
and processes really held to their CPUs, read back from /proc."""
import os
import subprocess
import sys
import time

import pytest

from tradebench_harness.cli import measure
from tradebench_harness.run import layout, loadclient
from tradebench_harness.run.context import from_env


@pytest.fixture
def no_smt(monkeypatch):
    monkeypatch.setattr(layout, "siblings", lambda c: (c,))


def counts(lay: layout.Layout) -> tuple[int, int, int]:
    return len(lay.variant), len(lay.database), len(lay.load)


@pytest.mark.parametrize("n, split", [(3, (1, 1, 1)), (4, (2, 1, 1)), (8, (4, 3, 1)), (16, (9, 5, 2)), (64, (35, 20, 9))])
def test_the_default_splits_the_cores_by_what_each_party_costs_an_order(no_smt, n, split):
    lay = layout.default(range(n))
    assert counts(lay) == split and lay.isolated and lay.kind == "isolated"
    # no CPU twice, every CPU used, the variant on the last ones and the database on the first
    used = lay.variant + lay.database + lay.load
    assert sorted(used) == list(range(n))
    assert lay.variant[-1] == n - 1 and lay.database[0] == 0


def test_two_cpus_put_the_variant_alone_on_one(no_smt):
    lay = layout.default([0, 1])
    assert (lay.variant, lay.database, lay.load) == ((1,), (0,), (0,))
    assert lay.isolated, "the variant shares its CPU with nobody; the database and the load client share theirs"


def test_one_cpu_cannot_be_split(no_smt):
    lay = layout.default([0])
    assert lay.kind == "shared" and not lay.isolated and lay.taskset("variant") == []


def test_smt_siblings_stay_with_one_party(monkeypatch):
    # 8 logical CPUs on 4 cores: 0 and 4 are one core's two threads, 1 and 5 the next, ...
    monkeypatch.setattr(layout, "siblings", lambda c: (c % 4, c % 4 + 4))
    lay = layout.default(range(8))
    assert counts(lay) == (4, 2, 2)
    for a, b in [(lay.variant, lay.database), (lay.variant, lay.load), (lay.database, lay.load)]:
        assert not {c % 4 for c in a} & {c % 4 for c in b}, (a, b)


def test_the_cores_axis_sets_the_variants_count(no_smt):
    base = layout.default(range(4))
    one = base.with_variant_cpus(1)
    assert one.variant == (3,) and one.database == (0, 1) and one.load == (2,) and one.isolated
    every = base.with_variant_cpus(4)
    assert every.variant == (0, 1, 2, 3) and every.database == every.load == (0,) and not every.isolated
    with pytest.raises(layout.LayoutError, match="lets the harness use 4"):
        base.with_variant_cpus(5)


def test_cpu_lists_read_and_write_as_taskset_does():
    assert layout.parse_cpus("0-2,5, 7-8") == (0, 1, 2, 5, 7, 8)
    assert layout.cpus_text((8, 0, 1, 2, 5, 7)) == "0-2,5,7-8"
    for bad in ("", "a", "3-1", "1-"):
        with pytest.raises(layout.LayoutError):
            layout.parse_cpus(bad)


def test_the_options_build_the_layout(monkeypatch, no_smt):
    monkeypatch.setattr(layout, "available", lambda: (0, 1, 2, 3))
    assert layout.build("shared").kind == "shared"
    pinned = layout.build("isolated", {"variant": "2-3"})
    assert pinned.variant == (2, 3) and pinned.database == (0,) and pinned.load == (1,)
    three = layout.build("isolated", {"variant": "1", "database": "0", "load": "1"})
    assert (three.variant, three.database, three.load) == ((1,), (0,), (1,)) and not three.isolated
    with pytest.raises(layout.LayoutError, match="not among"):
        layout.build("isolated", {"variant": "9"})
    with pytest.raises(layout.LayoutError, match="shared"):
        layout.build("shared", {"variant": "1"})
    with pytest.raises(layout.LayoutError, match="PARTY one of"):
        layout.pin_option("server=1")


def test_the_parser_refuses_a_bad_pin_and_defaults_to_the_isolated_layout():
    import argparse
    p = argparse.ArgumentParser()
    sub = p.add_subparsers()
    measure.add(sub)
    a = p.parse_args(["bench", "java-threads"])
    assert a.layout == "isolated" and a.pin is None
    with pytest.raises(SystemExit):
        p.parse_args(["bench", "java-threads", "--pin", "variant=x"])


def test_an_older_folder_without_a_layout_reads_as_the_shared_one():
    assert layout.describe(None).startswith("shared")
    rec = layout.Layout("isolated", (1,), (0,), (0,), (0, 1)).record()
    assert layout.describe(rec).startswith("isolated: variant on CPU 1; database and load client on CPU 0")
    assert layout.read_back_matches(rec, {"variant": ["1"], "database": ["0"], "loadclient": ["0"], "link": ["0"]})
    assert not layout.read_back_matches(rec, {"variant": ["1", "0-1"], "database": ["0"]})


needs_two = pytest.mark.skipif(len(os.sched_getaffinity(0)) < 2, reason="a layout needs two CPUs to pin anything")


@needs_two
def test_a_started_process_runs_on_its_partys_cpus_read_back_from_proc():
    ctx = from_env()
    cpus = layout.available()
    ctx.layout = layout.Layout("isolated", cpus[-1:], cpus[:1], cpus[:1], cpus)
    p = subprocess.Popen(ctx.placed("variant", [sys.executable, "-c", "import time; time.sleep(30)"]))
    try:
        deadline = time.monotonic() + 10
        while time.monotonic() < deadline and layout.allowed(p.pid) != str(cpus[-1]):
            time.sleep(0.05)
        with open(f"/proc/{p.pid}/status") as f:
            status = dict(line.split(":", 1) for line in f if ":" in line)
        assert status["Cpus_allowed_list"].strip() == str(cpus[-1])
    finally:
        p.kill()
        p.wait()


@needs_two
def test_a_running_process_is_moved_with_every_thread():
    """The database server is running when a measurement starts: every thread of it moves (taskset -a)."""
    code = "import threading, time\nfor _ in range(4): threading.Thread(target=time.sleep, args=(30,)).start()\n" \
           "print('up', flush=True); time.sleep(30)"
    p = subprocess.Popen([sys.executable, "-c", code], stdout=subprocess.PIPE, text=True)
    try:
        assert p.stdout.readline().strip() == "up"
        first = layout.available()[:1]
        assert layout.pin_running(p.pid, first)
        tids = os.listdir(f"/proc/{p.pid}/task")
        assert len(tids) >= 5
        assert {layout.allowed(int(t)) for t in tids} == {str(first[0])}
        assert layout.allowed_of_tree([p.pid]) == [str(first[0])]
    finally:
        p.kill()
        p.wait()


def test_a_cores_sweep_says_what_each_cpu_added():
    from tradebench_harness.report import tables
    iso = {"isolated": True}
    runs = [{"variant": "a", "variantCpus": 1, "salesPerMinute": 100.0, "layout": iso},
            {"variant": "a", "variantCpus": 2, "salesPerMinute": 150.0, "layout": {"isolated": False}},
            {"variant": "b", "variantCpus": 1, "salesPerMinute": 80.0, "layout": iso},
            {"variant": "b", "variantCpus": 2, "salesPerMinute": 160.0, "layout": {"isolated": False}},
            {"variant": "b", "variantCpus": 2, "error": "died", "layout": iso}]
    text = "\n".join(tables.cores_md({"command": "sweep-cores", "runs": runs}))
    assert "| a | 100 | 150 | 100, 75 | 0.75 |" in text
    assert "| b | 80 | 160 | 80, 80 | 1.00 |" in text
    assert "2 CPUs ◐" in text and "shared a CPU with the variant" in text
    assert tables.cores_md({"command": "compare", "runs": runs}) == []


def test_the_load_client_yields_the_cpu_it_shares_with_the_database_or_the_variant(no_smt):
    two = layout.default([0, 1])
    assert two.load_yields and two.taskset("load")[-3:] == ["nice", "-n", str(layout.LOAD_NICE)]
    assert "nice" not in two.taskset("variant") and "nice" not in two.taskset("database")
    beside_variant = layout.Layout("isolated", (1,), (0,), (1,), (0, 1))
    assert beside_variant.load_yields and "nice" in beside_variant.taskset("load")
    four = layout.default(range(4))
    assert not four.load_yields and "nice" not in four.taskset("load")


@needs_two
def test_a_yielding_load_client_runs_at_its_lower_priority_read_back_from_proc(no_smt):
    ctx = from_env()
    cpus = layout.available()
    ctx.layout = layout.Layout("isolated", cpus[-1:], cpus[:1], cpus[:1], cpus)
    p = subprocess.Popen(ctx.placed("load", [sys.executable, "-c", "import time; time.sleep(30)"]),
                         start_new_session=True)
    # `nice -n 10` adds to the caller's niceness (capped at 19): a test run at nice 5 sees 15
    want = min(19, os.getpriority(os.PRIO_PROCESS, 0) + layout.LOAD_NICE)
    try:
        layout.yield_group(p.pid)
        deadline = time.monotonic() + 10
        while time.monotonic() < deadline and os.getpriority(os.PRIO_PROCESS, p.pid) != want:
            time.sleep(0.05)
        assert os.getpriority(os.PRIO_PROCESS, p.pid) == want
        if os.path.exists(f"/proc/{p.pid}/autogroup"):
            with open(f"/proc/{p.pid}/autogroup") as f:
                assert f.read().split()[-1] == str(layout.LOAD_NICE)    # "/autogroup-N nice 10"
    finally:
        p.kill()
        p.wait()


def test_the_load_compiles_with_c1_alone_and_the_users_flags_come_after(no_smt):
    ctx = from_env({**os.environ, "TB_LOADCLIENT_OPTS": "-XX:TieredStopAtLevel=4"})
    ctx.layout = layout.default([0, 1])
    load = loadclient.argv(ctx, "load", "--url", "http://x")
    assert load.index("-XX:TieredStopAtLevel=1") < load.index("-XX:TieredStopAtLevel=4") < load.index("-jar")
    assert "-XX:TieredStopAtLevel=1" not in loadclient.argv(ctx, "ceiling-http")
