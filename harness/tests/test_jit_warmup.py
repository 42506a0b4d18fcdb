"""jit_warmup.py on real processes: a thread named as HotSpot names its C2 compiler thread burns CPU for a
while; the warm-up must last until it stops (and no longer), give up at its bound while it does not, and stop
the warm-up load either way."""
import sys
import time

from tradebench_harness.measure import jit_warmup
from tradebench_harness.run import process

# burns CPU on a thread named like a JVM's C2 compiler thread for BURN seconds (-1: for ever), then idles
COMPILER_LIKE = """
import sys, threading, time
burn = float(sys.argv[1])
def compiler():
    open(f"/proc/self/task/{threading.get_native_id()}/comm", "w").write("C2 CompilerThread0")
    end = time.monotonic() + burn
    while burn < 0 or time.monotonic() < end:
        pass
    time.sleep(600)
threading.Thread(target=compiler, daemon=True).start()
time.sleep(600)
"""


def compiler_like(tmp_path, burn: float) -> process.Running:
    r = process.start("jvm-like", [sys.executable, "-c", COMPILER_LIKE, str(burn)], tmp_path / "jvm-like.log")
    deadline = time.time() + 10
    while not jit_warmup.has_jit([r.pid]) and time.time() < deadline:
        time.sleep(0.05)
    return r


def sleeping_load(tmp_path, loads: list):
    """A warm-up load that does nothing (a sleeping process), each one started kept in LOADS."""
    def start_load():
        r = process.start("load", ["sleep", "600"], tmp_path / "load.log")
        loads.append(r)
        return r
    return start_load


def warmed(tmp_path, burn: float, max_s: float) -> tuple[dict, list]:
    """warm_until_quiet against a compiler-like process burning BURN seconds (a 2 s window, 1 s minimum), with
    a sleeping process as the warm-up load: its result and the loads it started."""
    jvm = compiler_like(tmp_path, burn=burn)
    loads: list = []
    try:
        return jit_warmup.warm_until_quiet([jvm.pid], sleeping_load(tmp_path, loads), max_s=max_s, window_s=2, min_s=1,
                                           poll_s=0.25), loads
    finally:
        jvm.stop(2)


def test_only_a_process_with_compiler_threads_has_a_jit(tmp_path):
    jvm = compiler_like(tmp_path, burn=0)
    other = process.start("plain", ["sleep", "60"], tmp_path / "plain.log")
    try:
        assert jit_warmup.has_jit([jvm.pid])
        assert not jit_warmup.has_jit([other.pid])
    finally:
        jvm.stop(2)
        other.stop(2)


def test_the_warm_up_lasts_until_the_compiler_is_quiet(tmp_path):
    burn = 5.0
    got, loads = warmed(tmp_path, burn=burn, max_s=40)
    assert got["quiet"] is True, got
    # not before the compiler stopped burning (it started just before the warm-up), and soon after (a 2 s window,
    # coarse ticks, a busy machine)
    assert got["seconds"] >= burn - 1.0, got
    assert got["seconds"] < burn + 15, got
    assert got["jitCpuPercent"] < jit_warmup.QUIET_PERCENT, got
    assert len(loads) == 1 and not loads[0].alive(), "the warm-up load must be stopped"


def test_the_warm_up_gives_up_at_its_bound_while_the_compiler_keeps_busy(tmp_path):
    got, loads = warmed(tmp_path, burn=-1, max_s=4)
    assert got["quiet"] is False and got["maxS"] == 4, got
    assert 4 <= got["seconds"] < 10, got
    assert got["jitCpuPercent"] > jit_warmup.QUIET_PERCENT, got
    assert len(loads) == 1 and not loads[0].alive(), "the warm-up load must be stopped"


# a CPU that settles: its share of a core falls from all of it to 0.3 over BURN seconds (a duty cycle of 50 ms),
# then stays at 0.3
SETTLING = """
import sys, time
burn = float(sys.argv[1])
t0 = time.monotonic()
while True:
    duty = max(0.3, 1 - 0.7 * (time.monotonic() - t0) / burn)
    t = time.monotonic() + 0.05 * duty
    while time.monotonic() < t:
        pass
    time.sleep(0.05 * (1 - duty))
"""


def test_a_process_without_compiler_threads_warms_until_its_cpu_is_steady(tmp_path):
    burn = 8.0
    proc = process.start("settling", [sys.executable, "-c", SETTLING, str(burn)], tmp_path / "settling.log")
    loads: list = []
    try:
        assert not jit_warmup.has_jit([proc.pid])
        got = jit_warmup.warm_until_steady([proc.pid], sleeping_load(tmp_path, loads), max_s=40, window_s=2, min_s=1,
                                           poll_s=0.25)
    finally:
        proc.stop(2)
    assert got["quiet"] is True and got["rule"] == "cpu steady", got
    # while it falls, one window is a fifth of a core below the one before: steady only once it has settled
    assert got["seconds"] >= burn - 1.0, got
    assert got["seconds"] < burn + 20, got
    assert 20 <= got["cpuPercent"] <= 45, got
    assert len(loads) == 1 and not loads[0].alive(), "the warm-up load must be stopped"
