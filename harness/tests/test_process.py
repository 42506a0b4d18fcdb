"""process.py on real processes: a whole tree is stopped; the sampler sees CPU, RSS and threads."""
import sys
import time

import psutil
import pytest

from tradebench_harness.run import process


def test_stop_ends_the_whole_tree_even_when_the_parent_ignores_sigterm(tmp_path):
    # a parent that ignores SIGTERM with two children: stop() must SIGKILL all three
    script = "trap '' TERM; sleep 300 & sleep 300 & wait"
    r = process.start("tree", ["bash", "-c", script], tmp_path / "tree.log")
    deadline = time.time() + 10
    while len(r.tree()) < 3 and time.time() < deadline:
        time.sleep(0.05)
    pids = [p.pid for p in r.tree()]
    assert len(pids) == 3
    code = r.stop(timeout=1)
    assert code == "killed"
    assert not any(psutil.pid_exists(p) and psutil.Process(p).status() != psutil.STATUS_ZOMBIE for p in pids)


def test_stop_reports_a_clean_exit_code(tmp_path):
    r = process.start("clean", [sys.executable, "-u", "-c", "import signal,sys,time\n"
                                "signal.signal(signal.SIGTERM, lambda *a: sys.exit(0))\nprint('ready')\ntime.sleep(60)"],
                      tmp_path / "clean.log")
    deadline = time.monotonic() + 30     # its handler is in place once it says so
    while "ready" not in (tmp_path / "clean.log").read_text() and time.monotonic() < deadline:
        time.sleep(0.05)
    assert r.stop(timeout=10) == 0
    assert r.exit_ms is not None and r.exit_ms < 10000


def test_say_writes_lines_to_the_stdin_of_a_process_started_with_one(tmp_path):
    # the process echoes what it reads: each line said arrives at once, in order, and stop() closes its stdin
    r = process.start("echo", [sys.executable, "-u", "-c", "import sys\nfor l in sys.stdin: print('got', l.strip())"],
                      tmp_path / "echo.log", stdin=True)
    r.say("db-killed 17")
    r.say("db-back 42")
    deadline = time.monotonic() + 30
    while "got db-back 42" not in (tmp_path / "echo.log").read_text() and time.monotonic() < deadline:
        time.sleep(0.05)
    assert (tmp_path / "echo.log").read_text().splitlines() == ["got db-killed 17", "got db-back 42"]
    r.stop(timeout=5)
    r.say("after the end")   # a process gone misses the line, the caller goes on
    quiet = process.start("quiet", ["sleep", "60"], tmp_path / "quiet.log")
    try:
        with pytest.raises(ValueError):
            quiet.say("nobody reads this")
    finally:
        quiet.stop(timeout=2)


def sample_beside(tmp_path, second: list[str], groups: tuple[str, ...], machine: bool = False):
    """A busy loop ("busy") and SECOND ("other") started, GROUPS of them sampled every 0.5 s for 3 s (and the
    machine, with MACHINE): (the samples, the % of a core the kernel gave the busy loop meanwhile)."""
    procs = {"busy": process.start("busy", [sys.executable, "-c", "while True: pass"], tmp_path / "busy.log"),
             "other": process.start("other", second, tmp_path / "other.log")}
    try:
        s = process.Sampler(interval=0.5)
        for name in groups:
            s.add(name, procs[name].pid)
        if machine:
            s.add_machine()
        cpu0, t0 = sum(psutil.Process(procs["busy"].pid).cpu_times()[:2]), time.monotonic()
        s.start()
        time.sleep(3)
        samples = s.stop()
        cpu1, t1 = sum(psutil.Process(procs["busy"].pid).cpu_times()[:2]), time.monotonic()
    finally:
        for r in procs.values():
            r.stop(2)
    return samples, (cpu1 - cpu0) / (t1 - t0) * 100


def test_sampler_sees_a_busy_tree_and_an_idle_one_apart(tmp_path):
    samples, got = sample_beside(tmp_path, ["sleep", "60"], ("busy", "other"))
    samples["idle"] = samples.pop("other")
    b, i = process.summarize(samples["busy"]), process.summarize(samples["idle"])
    assert b["samples"] >= 3 and i["samples"] >= 3
    # what the kernel says the busy loop got (a crowded machine gives it less than a core): the
    # sampler must report about that, and the sleeping process about nothing
    assert got > 1, f"the busy loop got no CPU at all ({got:.1f} %)"
    assert b["cpuPercent"] == pytest.approx(got, abs=max(10.0, 0.35 * got)), (b, got)
    assert i["cpuPercent"] < 5 and b["cpuPercent"] > i["cpuPercent"]
    assert b["rssMaxMb"] > 1 and b["threadsMax"] >= 1


def test_a_busy_loop_outside_the_parties_is_counted_as_others_and_a_party_is_not(tmp_path):
    # the busy loop is measured by nobody; the other, as busy, is a party
    samples, got = sample_beside(tmp_path, [sys.executable, "-c", "while True: pass"], ("other",), machine=True)
    samples["party"] = samples.pop("other")
    m = process.summarize_machine(samples[process.MACHINE])
    mine = process.summarize(samples["party"])["cpuPercent"]
    assert m is not None and m["samples"] >= 3
    # others hold the unmeasured loop, and not the party's loop beside it (both got about as much)
    assert m["othersPercent"] == pytest.approx(got, abs=max(10.0, 0.35 * got)), (m, got)
    assert m["othersPercent"] < got + 0.5 * mine, (m, got, mine)
    assert 0 <= m["stealPercent"] <= 100 * psutil.cpu_count()


def test_the_machines_window_is_the_mean_of_its_samples_inside_it():
    samples = [{"t": 1000, "cpuPercent": 50.0, "stealPercent": 2.0}, {"t": 2000, "cpuPercent": 30.0, "stealPercent": 0.0},
               {"t": 9000, "cpuPercent": 20.0, "stealPercent": 0.0}]
    assert process.summarize_machine(samples, start_ms=1000, end_ms=2000) == {
        "othersPercent": 40.0, "stealPercent": 1.0, "samples": 2}
    assert process.summarize_machine(samples, start_ms=20_000) is None


def sampled(tmp_path, **argvs) -> dict:
    """Starts each named command line, samples the groups every 0.5 s for 3 s, stops them: their summaries."""
    procs = {name: process.start(name, argv, tmp_path / f"{name}.log") for name, argv in argvs.items()}
    try:
        time.sleep(0.5)
        s = process.Sampler(interval=0.5)
        for name, r in procs.items():
            s.add(name, r.pid)
        s.start()
        time.sleep(3)
        samples = s.stop()
    finally:
        for r in procs.values():
            r.stop(2)
    return {name: process.summarize(samples[name]) for name in argvs}


def test_the_root_processes_share_is_told_apart_from_their_childrens(tmp_path):
    """node-engine's HTTP parent and its engine children: an idle root (a shell waiting) with a busy child."""
    t = sampled(tmp_path, tree=["bash", "-c", f"{sys.executable} -c 'while True: pass' & wait"])["tree"]
    assert t["processes"] == 2 and t["cpuPercent"] > 1, t
    assert t["rootCpuPercent"] < 5 and t["rootCpuPercent"] < t["cpuPercent"] / 2, t


JIT_LIKE = """
import threading, time
def busy():
    # this thread takes the name HotSpot gives its JIT compiler threads
    open(f"/proc/self/task/{threading.get_native_id()}/comm", "w").write("C2 CompilerThread0")
    while True:
        pass
threading.Thread(target=busy, daemon=True).start()
time.sleep(60)
"""


def test_the_jit_compiler_threads_cpu_is_told_apart(tmp_path):
    """A process whose busy thread is named as a JVM's C2 compiler thread: its CPU is the group's JIT CPU; a busy
    thread of another name is not."""
    got = sampled(tmp_path, jit=[sys.executable, "-c", JIT_LIKE],
                  other=[sys.executable, "-c", JIT_LIKE.replace("C2 CompilerThread0", "worker")])
    j, o = got["jit"], got["other"]
    assert j["cpuPercent"] > 1 and o["cpuPercent"] > 1, (j, o)
    # the compiler-named thread is nearly all of its process's CPU (ticks are coarse: a wide margin)
    assert j["jitCpuPercent"] == pytest.approx(j["cpuPercent"], abs=max(10.0, 0.4 * j["cpuPercent"])), j
    assert o["jitCpuPercent"] < 2, o


def test_start_variant_gives_up_when_the_process_dies(ctx, tmp_path):
    from tradebench_harness.run.variants import Variant
    v = Variant(name="dies", folder=tmp_path, runtime="java", description="", build={},
                run=["bash", "-c", "echo no database; exit 3"], settings={}, db_connections="1")
    t0 = time.time()
    try:
        process.start_variant(ctx, v, {}, tmp_path / "dies.log", health_timeout=60)
        raise AssertionError("start_variant returned for a dead process")
    except process.NotHealthy as e:
        assert "no database" in str(e)
    assert time.time() - t0 < 30
