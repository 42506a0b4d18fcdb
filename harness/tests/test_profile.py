"""The CPU profile's breakdown: the stack-frame rules (analysis/profile_rules.py) on recorded profiles, the
arithmetic of µs per order, the cut of Node's samples to a window; and the real profile of each row of one short
compare (conftest.py's `compared`).

The fixtures are real collapsed stacks, trimmed to their heaviest stacks plus a few of every part:
fixtures/profiles/java-threads.collapsed.gz (async-profiler, event cpu, 1 ms, the measured window of
java-threads at saturation, per-sale, 4 engines, 64 clients) and fixtures/profiles/node-engine.collapsed.gz
(--cpu-prof in every process of node-engine, WORKERS=processes, the same load)."""
import gzip
import json
import os
import shutil
import subprocess
import sys
from collections import Counter
from pathlib import Path

import pytest

from tradebench_harness.analysis import profile_rules
from tradebench_harness.analysis import stacks as stack_parts
from tradebench_harness.report import breakdown
from tradebench_harness.run import profiler

ROOT = Path(__file__).resolve().parents[2]
FIXTURES = Path(__file__).parent / "fixtures" / "profiles"


def recorded(name: str) -> Counter:
    return stack_parts.read_collapsed(FIXTURES / f"{name}.collapsed.gz")


def parts_of(stacks: Counter, runtime: str, where) -> Counter:
    """The parts the samples of the stacks for which WHERE(stack) holds went to."""
    out: Counter = Counter()
    for s, n in stacks.items():
        if where(s):
            out[stack_parts.part_of(s, runtime)] += n
    return out


def only(parts: Counter) -> str:
    assert len(parts) == 1, f"claimed by more than one part: {dict(parts)}"
    return next(iter(parts))


# --- the rules on the recorded JVM profile ----------------------------------------------------------------

def test_the_jvm_profile_leaves_under_15_percent_unclaimed():
    c = stack_parts.counts(recorded("java-threads"), "java")
    assert c["samples"] > 2000
    assert c["parts"].get(stack_parts.UNCLAIMED, 0) / c["samples"] < 0.15
    assert set(c["parts"]) <= {*profile_rules.PARTS, stack_parts.UNCLAIMED}


def test_connector_j_and_its_socket_writes_are_the_database_driver():
    st = recorded("java-threads")
    assert only(parts_of(st, "java", lambda s: "com/mysql/cj/" in s and "SocketDispatcher.write0" in s)) == "database driver"


def test_tomcat_and_its_sockets_are_the_http_framework():
    st = recorded("java-threads")
    http = parts_of(st, "java", lambda s: "org/apache/tomcat/util/net/NioEndpoint$Poller" in s)
    assert only(http) == "HTTP framework"
    # a worker of Tomcat's pool waiting for its next request parks: Tomcat's hand-off, not the design's messaging
    assert only(parts_of(st, "java", lambda s: s.split(";")[-1] != "" and "TaskQueue.poll" in s
                         and "tradebench/" not in s)) == "HTTP framework"


def test_the_market_the_registry_and_the_handler_claim_their_frames():
    st = recorded("java-threads")
    def leaf_java(s, frame):        # the innermost frame of Java code is FRAME's
        java = [f for f in s.split(";") if f.endswith(("_[j]", "_[i]", "_[0]", "_[1]"))]
        return bool(java) and java[-1].startswith(frame)
    assert only(parts_of(st, "java", lambda s: leaf_java(s, "tradebench/model/ProductBook"))) == "matching"
    assert only(parts_of(st, "java", lambda s: leaf_java(s, "tradebench/engine/OrderRegistry"))) == "order registry and inbox"
    assert only(parts_of(st, "java", lambda s: "tradebench/wire/OrderParams" in s
                         and "com/mysql" not in s)) == "request parsing and validation"
    assert only(parts_of(st, "java", lambda s: "CompileBroker::compiler_thread_loop" in s)) == "other"


def test_an_engines_sleep_between_cycles_is_its_cycle_not_messaging():
    st = recorded("java-threads")
    assert only(parts_of(st, "java", lambda s: "EngineThread.sleepUnlessStopping" in s)) == "matching"


def test_the_collectors_work_is_garbage_collection_and_allocating_is_the_allocators():
    gc = ("clone3;start_thread;thread_native_entry;Thread::call_run;WorkerThread::run;"
          "ParallelScavengeHeap::collect;PSScavenge::invoke;PSPromotionManager::drain_stacks_depth")
    alloc = ("java/lang/Thread.run_[j];tradebench/wire/OrderParams.plainQuery_[j];java/lang/String.substring_[i];"
             "C2 Runtime new_array_nozero;OptoRuntime::new_array_nozero_C;MemAllocator::allocate")
    assert stack_parts.part_of(gc, "java") == "garbage collection"
    assert stack_parts.part_of(alloc, "java") == "request parsing and validation"


def test_akka_and_pekko_frames_go_to_the_same_parts():
    for pkg in ("akka", "org/apache/pekko"):
        def part(frame):
            return stack_parts.part_of(f"java/lang/Thread.run_[j];java/util/concurrent/ForkJoinWorkerThread.run_[j];{frame}", "java")
        assert part(f"{pkg}/http/impl/engine/parsing/HttpHeaderParser.parseHeaderLine_[j]") == "HTTP framework"
        assert part(f"{pkg}/stream/impl/fusing/GraphInterpreter.execute_[j]") == "HTTP framework"
        assert part(f"{pkg}/dispatch/Mailbox.run_[j]") == "messaging"
        assert part(f"{pkg}/actor/LightArrayRevolverScheduler.waitNanos_[j]") == "other"
        assert part(f"{pkg}/dispatch/Mailbox.run_[j];tradebench/akka/engine/EngineActor.onOrders_[j]") == "matching"


def test_a_stack_no_rule_owns_is_unclaimed():
    assert stack_parts.part_of("java/lang/Thread.run_[j];java/util/HashMap.get_[i];do_syscall_64_[k]", "java") == \
        stack_parts.UNCLAIMED
    assert stack_parts.part_of("[main process];(anonymous) node:internal/buffer:1081", "node") == stack_parts.UNCLAIMED


# --- the rules on the recorded Node profile ---------------------------------------------------------------

def test_the_node_profile_leaves_under_15_percent_unclaimed():
    c = stack_parts.counts(recorded("node-engine"), "node")
    assert c["samples"] > 1000
    assert c["parts"].get(stack_parts.UNCLAIMED, 0) / c["samples"] < 0.15


def test_a_socket_write_belongs_to_whoever_writes():
    st = recorded("node-engine")
    writes = lambda s, owner: s.endswith(tuple("0123456789")) and "handleWriteReq" in s and owner in s  # noqa: E731
    assert only(parts_of(st, "node", lambda s: writes(s, "mysql2/lib/base/connection.js"))) == "database driver"
    assert only(parts_of(st, "node", lambda s: writes(s, "node:_http_outgoing"))) == "HTTP framework"


def test_a_socket_read_from_the_event_loop_goes_by_its_process():
    st = recorded("node-engine")
    owned = ("mysql2/", "node:_http", "child_process", "node-engine/src/")
    bare = lambda s, root: s.startswith(root) and "onStreamRead" in s and not any(o in s for o in owned)  # noqa: E731
    main, child = (parts_of(st, "node", lambda s: bare(s, "[main process]")),
                   parts_of(st, "node", lambda s: bare(s, "[child process]")))
    assert main or child, "the recorded profile holds no socket read with no owner above it"
    assert set(main) <= {"HTTP framework"} and set(child) <= {"database driver"}


def test_a_worker_threads_bare_socket_read_goes_by_its_script_and_a_builtin_json_call_is_json():
    read = "onStreamRead node:internal/stream_base_commons:166;Readable.push node:internal/streams/readable:394"
    assert stack_parts.part_of(f"[worker thread: engine-child.js];{read}", "node") == "database driver"
    assert stack_parts.part_of(f"[worker thread: http-thread.js];{read}", "node") == "HTTP framework"
    assert stack_parts.part_of(f"[main process];{read}", "node") == "HTTP framework"
    assert stack_parts.part_of(f"[worker thread];{read}", "node") == stack_parts.UNCLAIMED     # its script unknown
    # a timer's tick under the database driver is the driver's; alone on the event loop, it is nobody's order
    tick = "processTicksAndRejections node:internal/process/task_queues:72"
    assert stack_parts.part_of(f"[worker thread];{tick};insertEach node-engine/src/sales-store.js:62", "node") == \
        "database driver"
    assert stack_parts.part_of(f"[worker thread: engine-child.js];{tick}", "node") == "other"
    assert stack_parts.part_of("[main process];answerJson node-engine/src/handlers/answers.js:23;stringify", "node") == "JSON"
    # a function called parse in a package is that package's, not JSON's
    assert stack_parts.part_of("[main process];parserOnIncoming node:_http_server:1167;parse qs/lib/parse.js:1", "node") == \
        "HTTP framework"


def test_ipc_the_collector_the_market_and_validation_in_node():
    st = recorded("node-engine")
    assert only(parts_of(st, "node", lambda s: "writeChannelMessage" in s)) == "messaging"
    assert only(parts_of(st, "node", lambda s: s.split(";")[-1] == "(garbage collector)")) == "garbage collection"
    assert only(parts_of(st, "node", lambda s: s.split(";")[-1].endswith(tuple(
        f"node-engine/src/market.js:{n}" for n in range(1000))))) == "matching"
    assert only(parts_of(st, "node", lambda s: s.split(";")[-1].startswith("parse")
                         and "validation.js" in s.split(";")[-1])) == "request parsing and validation"


# --- every part has rules, every rule a part ----------------------------------------------------------------

def test_every_rule_names_a_part_and_every_part_has_its_meaning():
    assert {r[0] for r in profile_rules.RULES} == set(profile_rules.PARTS)
    assert set(profile_rules.MEANING) == set(profile_rules.PARTS)
    assert all(r[1] in (None, "java", "node") for r in profile_rules.RULES)


# --- the arithmetic -------------------------------------------------------------------------------------

def test_shares_and_us_per_order():
    stacks = Counter({"java/lang/Thread.run_[j];tradebench/model/ProductBook.trade_[j]": 30,
                      "java/lang/Thread.run_[j];com/mysql/cj/NativeSession.execSQL_[j]": 50,
                      "java/lang/Thread.run_[j];java/util/HashMap.get_[i]": 20})
    c = stack_parts.counts(stacks, "java")
    assert c == {"samples": 100, "parts": {"matching": 30, "database driver": 50, stack_parts.UNCLAIMED: 20}}
    assert stack_parts.shares(c["parts"]) == {"matching": 0.3, "database driver": 0.5, stack_parts.UNCLAIMED: 0.2}
    us = stack_parts.us_per_order(c["parts"], 80.0)
    assert us == pytest.approx({"matching": 24.0, "database driver": 40.0, stack_parts.UNCLAIMED: 16.0})
    assert sum(us.values()) == pytest.approx(80.0)
    assert stack_parts.us_per_order(c["parts"], None) == {}


def test_a_rows_windows_are_summed_and_its_cpu_per_order_is_their_median():
    def run(repeat, parts, cpu, series="java-threads"):
        return {"variant": "java-threads", "series": series, "runtime": "java", "repeat": repeat,
                "cpuUsPerOrder": {"variant": cpu}, "profile": {"parts": parts, "flameGraph": "profile/x.html"}}
    doc = {"runs": [run(1, {"matching": 10, "HTTP framework": 30}, 60.0),
                    run(2, {"matching": 30, "HTTP framework": 10}, 100.0),
                    run(3, {"matching": 0, "HTTP framework": 20}, 70.0),
                    {**run(4, {"matching": 999}, 1.0), "error": "failed"},
                    run(1, {"JSON": 5}, 10.0, series="other row")]}
    rows = breakdown.rows(doc)
    assert [r["series"] for r in rows] == ["java-threads", "other row"]
    r = rows[0]
    assert r["samples"] == 100 and r["parts"] == {"matching": 40, "HTTP framework": 60}
    assert r["cpuUsPerOrder"] == 70.0
    assert r["usPerOrder"] == pytest.approx({"matching": 28.0, "HTTP framework": 42.0})
    assert r["unclaimedShare"] == 0.0


def test_profiles_sort_the_rows_file_again_with_the_rules_of_now(tmp_path):
    (tmp_path / "profile").mkdir()
    text = "java/lang/Thread.run_[j];tradebench/model/ProductBook.trade_[j] 3\njava/lang/Thread.run_[j];x_[j] 1\n"
    (tmp_path / "profile" / "r.collapsed.gz").write_bytes(gzip.compress(text.encode()))
    doc = {"runs": [{"variant": "v", "series": "v", "runtime": "java", "cpuUsPerOrder": {"variant": 8.0},
                     "profile": {"parts": {"HTTP framework": 4}, "collapsed": "profile/r.collapsed.gz"}}]}
    doc["profiles"] = breakdown.profiles(doc, tmp_path)
    (row,) = doc["profiles"]
    assert row["parts"] == {"matching": 3, stack_parts.UNCLAIMED: 1}
    assert row["usPerOrder"] == pytest.approx({"matching": 6.0, stack_parts.UNCLAIMED: 2.0})
    assert breakdown.rows(doc) is doc["profiles"]
    md = "\n".join(breakdown.md(doc))
    assert "| v | 4 | 8.0 |" in md and "6.0 (75%)" in md and "2.0 (25%)" in md


# --- Node's samples cut to the window -----------------------------------------------------------------------

@pytest.mark.parametrize("name,runtime", [("java-threads", "java"), ("node-engine", "node")])
def test_pruned_stacks_keep_the_breakdown_and_every_wide_frame(name, runtime):
    whole = recorded(name)
    pruned = stack_parts.prune(whole, runtime, min_share=0.01)
    assert len(pruned) < len(whole)
    assert sum(pruned.values()) == sum(whole.values())
    assert stack_parts.counts(pruned, runtime) == stack_parts.counts(whole, runtime)

    def through(stacks):
        out = Counter()
        for s, n in stacks.items():
            frames = s.split(";")
            for i in range(1, len(frames) + 1):
                out[";".join(frames[:i])] += n
        return out
    wide = {k: n for k, n in through(whole).items() if n >= 0.01 * sum(whole.values())}
    kept = through(pruned)
    assert all(kept[k] == n for k, n in wide.items()), "a frame of 1 % or more changed width"
    assert any("[smaller stacks: " in s for s in pruned)


def test_a_cpuprofile_is_cut_to_the_window_by_its_timestamps(tmp_path):
    """Three nodes under (root): idle, a function of the market, and one of the HTTP parser; samples 1 ms apart
    from the monotonic instant 1,000,000,000 µs, mapped to epoch ms by an offset of 5,000 ms."""
    prof = {"nodes": [{"id": 1, "callFrame": {"functionName": "(root)", "url": "", "lineNumber": -1}, "children": [2, 3, 4]},
                      {"id": 2, "callFrame": {"functionName": "(idle)", "url": "", "lineNumber": -1}},
                      {"id": 3, "callFrame": {"functionName": "trade", "url": "file:///w/node-engine/src/market.js",
                                              "lineNumber": 144}},
                      {"id": 4, "callFrame": {"functionName": "parserOnIncoming", "url": "node:_http_server",
                                              "lineNumber": 1166}}],
            "startTime": 1_000_000_000, "endTime": 1_000_010_000,
            "samples": [3, 3, 2, 4, 3, 4, 2, 3, 3, 4], "timeDeltas": [1000] * 10}
    f = tmp_path / "CPU.20261125.120000.4242.0.001.cpuprofile"
    f.write_text(json.dumps(prof))
    offset = 5_000.0                 # epoch ms = monotonic ms + offset
    # samples at monotonic 1,000,001..1,000,010 ms; the window [1,000,003 ms, 1,000,007 ms) + offset
    got = profiler.cpuprofile_stacks(f, 1_000_003 + offset, 1_000_007 + offset, offset, root_pid=4242)
    assert got == Counter({"[main process];parserOnIncoming node:_http_server:1167": 2,
                           "[main process];trade node-engine/src/market.js:145": 1})
    child = profiler.cpuprofile_stacks(f, 0, 1e15, offset, root_pid=1)
    assert sum(child.values()) == 8 and all(s.startswith("[child process];") for s in child)
    worker = tmp_path / "CPU.20261125.120000.4242.3.002.cpuprofile"
    worker.write_text(json.dumps(prof))
    assert all(s.startswith("[worker thread];") for s in profiler.cpuprofile_stacks(worker, 0, 1e15, offset, 4242))
    # a worker whose start the profile caught: its script's module body (no name, line 0) nearest the root,
    # beside a module it required
    prof["nodes"][0]["children"].append(5)
    prof["nodes"] += [{"id": 5, "callFrame": {"functionName": "", "url": "file:///w/node-engine/src/engine-child.js",
                                              "lineNumber": 0}, "children": [6]},
                      {"id": 6, "callFrame": {"functionName": "", "url": "file:///w/node-engine/src/market.js",
                                              "lineNumber": 0}}]
    worker.write_text(json.dumps(prof))
    assert all(s.startswith("[worker thread: engine-child.js];")
               for s in profiler.cpuprofile_stacks(worker, 0, 1e15, offset, 4242))


# --- the real profile of each row of a short compare -----------------------------------------------------------

@pytest.mark.system
@pytest.mark.parametrize("row,own", [
    ("java-threads", "tradebench/"),
    # node-engine's child processes (its WORKERS=processes row): every process's --cpu-prof, cut to the window
    ("node-engine", "node-engine/src/"),
])
def test_profile_writes_a_flame_graph_and_a_breakdown(compared, tmp_path, row, own):
    """The session's compare (conftest.py) profiled each row over its windows, as ./tradebench profile does its
    one (the profile command is bench with --profile: the last test here)."""
    folder, doc, _ = compared
    html = folder / "profile" / f"{row}.html"
    assert html.is_file() and html.stat().st_size > 10_000
    stacks = stack_parts.read_collapsed(folder / "profile" / f"{row}.collapsed.gz")
    assert any(own in s for s in stacks), "no frame of the variant's own code in its profile"
    runs = [r for r in json.loads((folder / "results.json").read_text())["runs"] if r["series"] == row]
    assert len(runs) == 2
    for run in runs:
        # the window is 3 s of a process group using at least a tenth of a core: hundreds of 1 ms samples
        assert run["profile"]["samples"] > 300, run["profile"]
    (prof,) = [p for p in doc["profiles"] if p["series"] == row]
    assert prof["unclaimedShare"] < 0.15
    # the row's CPU per order is the median of its windows' (here two: their mean), and the parts add up to it
    cpu = sorted(r["cpuUsPerOrder"]["variant"] for r in runs)
    assert prof["cpuUsPerOrder"] == pytest.approx(sum(cpu) / 2)
    assert sum(prof["usPerOrder"].values()) == pytest.approx(prof["cpuUsPerOrder"])
    assert "Where the CPU goes" in (folder / "summary.md").read_text()
    assert (folder / "breakdown.png").read_bytes()[:4] == b"\x89PNG"
    assert f'href="profile/{row}.html"' in (folder / "report.html").read_text()
    # a folder as committed keeps the pruned stacks, not the page: the report draws the page again (on a copy:
    # the compare's other tests read the folder)
    out = tmp_path / "run"
    shutil.copytree(folder, out)
    html = out / "profile" / f"{row}.html"
    html.unlink()
    env = {k: v for k, v in os.environ.items() if not k.startswith("DB_")}
    env.update(TB_ROOT=str(ROOT))
    r = subprocess.run([sys.executable, "-m", "tradebench_harness", "report", str(out)], env=env,
                       capture_output=True, text=True, timeout=300)
    assert r.returncode == 0, (r.stdout + r.stderr)[-3000:]
    assert html.is_file() and html.stat().st_size > 10_000


def test_profile_is_bench_with_a_profile_and_no_calibration_and_compare_takes_the_option():
    from tradebench_harness.cli import main, measure
    p = main.parse(["profile", "java-threads", "--duration", "3"])
    a = p.options
    assert p.func is measure.cmd_profile and a.profile and a.no_calibrate and p.needs_loadclient
    assert measure.timing_of(a).profile and measure.timing_of(a).window == 3
    assert measure.timing_of(main.parse(["compare", "--profile"]).options).profile
    assert measure.timing_of(main.parse(["bench", "java-akka", "--profile"]).options).profile
    assert not measure.timing_of(main.parse(["bench", "java-akka"]).options).profile
