"""The one parser of ./tradebench: every command dispatched by it, a command that hands its arguments on gets
them as they are (a leading --flag too), the measuring commands get their defaults, and a command whose output
pipe closes ends quietly."""
import dataclasses
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from tradebench_harness.cli import main, measure, options, sweep

ROOT = Path(__file__).resolve().parents[2]


@pytest.mark.parametrize("argv, func, rest", [
    (["load", "--url", "http://127.0.0.1:1", "--rate", "5"], "cmd_load", ("--url", "http://127.0.0.1:1", "--rate", "5")),
    (["verify", "--url", "http://127.0.0.1:1"], "cmd_verify", ("--url", "http://127.0.0.1:1")),
    (["db", "create", "X"], "cmd_db", ("create", "X")),
    (["build"], "cmd_build", ()),
])
def test_a_command_that_hands_its_arguments_on_gets_them_as_they_are(argv, func, rest):
    a = main.parse(argv)
    assert a.func.__name__ == func and a.options == main.Given(rest) and not a.owns_db


def test_the_tests_and_the_compose_check_are_parsed_here():
    t = main.parse(["test", "--tier", "unit"])
    assert t.func is main.cmd_test and t.options == main.Test("unit") and not t.owns_db
    assert main.parse(["test"]).options == main.Test(None)
    with pytest.raises(SystemExit) as e:
        main.parse(["test", "--tier", "nightly"])
    assert e.value.code == 2
    c = main.parse(["compose-check"])
    assert c.func is main.cmd_compose_check and c.options == main.Nothing() and c.owns_db


def test_the_measuring_commands_get_their_defaults_and_need_the_load_client():
    a = main.parse(["compare"]).options
    assert isinstance(a, options.Compare)
    assert (a.repeat, a.duration, a.engines, a.fresh, a.db_cpu, a.db_durable) == (2, 8, 4, False, None, False)
    assert (a.processes, a.target, a.budget, a.fail_above, a.all_rows) == (2, 5.0, 10.5, None, False)
    assert main.parse(["compare"]).needs_loadclient
    b = main.parse(["bench", "java-threads", "--db-cpu", "0.25", "--db-durable"]).options
    assert (b.repeat, b.duration, b.db_cpu, b.db_durable, b.pin) == (1, 30, 0.25, True, ())
    m = main.parse(["map"]).options
    assert (m.latencies, m.loads, m.duration, m.processes) == ((0, 2, 10, 50), (500, 2000, 8000), 10, 2)
    # every sweep's and map's figure has an interval by default: each series in two fresh processes
    assert main.parse(["sweep", "rates", "java-threads", "--rates", "100"]).options.processes == 2
    assert not main.parse(["variants"]).needs_loadclient


def test_the_options_object_is_frozen_and_holds_no_list():
    o = main.parse(["bench", "java-threads", "--pin", "variant=0", "--pin", "load=0"]).options
    with pytest.raises(dataclasses.FrozenInstanceError):
        o.duration = 5
    assert o.pin == (("variant", "0"), ("load", "0"))
    s = main.parse(["sweep", "latency", "all", "--db-latency", "5,0,5"]).options
    with pytest.raises(dataclasses.FrozenInstanceError):
        s.latencies = (1,)
    assert s.latencies == (0, 5)
    assert not [f.name for f in dataclasses.fields(s) if isinstance(getattr(s, f.name), (list, dict, set))]
    # what the results keep is a copy: adding to it leaves the options as they are
    kept = o.recorded(baseline_cases=["a", "b"])
    kept["duration"] = 1
    assert o.duration == 30 and "baseline_cases" not in o.recorded()
    # a sweep's record keeps its own axis, not the other kinds' empty ones
    assert s.recorded()["latencies"] == (0, 5) and not {"rates", "cores", "in_flight"} & set(s.recorded())


@pytest.mark.parametrize("old, new", [
    (["sweep", "all", "--db-latency", "0,1,5,20,50"], ["sweep", "latency", "all", "--db-latency", "0,1,5,20,50"]),
    (["sweep", "java-threads", "--db-latency", "0,20", "--rate", "4000", "--equal-in-flight", "0"],
     ["sweep", "latency", "java-threads", "--db-latency", "0,20", "--rate", "4000", "--equal-in-flight", "0"]),
    (["sweep", "java-threads", "--rates", "2000,4000"], ["sweep", "rates", "java-threads", "--rates", "2000,4000"]),
    (["sweep", "java-threads", "--rates=2000,4000", "--engines", "1,2"],
     ["sweep", "rates", "java-threads", "--rates", "2000,4000", "--engines", "1,2"]),
    (["sweep", "all", "--engines", "1,2,4,8"], ["sweep", "engines", "all", "--engines", "1,2,4,8"]),
    (["sweep", "all", "--in-flight", "4,16", "--db-latency", "5"],
     ["sweep", "in-flight", "all", "--in-flight", "4,16", "--db-latency", "5"]),
    (["sweep", "--cores", "1,2", "java-spray-async", "--duration", "10"],
     ["sweep", "cores", "java-spray-async", "--cores", "1,2", "--duration", "10"]),
    # an option the older parser took and the kind does nothing with is left out, and said
    (["sweep", "all", "--cores", "1", "--no-calibrate", "--calibration-duration", "4"],
     ["sweep", "cores", "all", "--cores", "1"]),
])
def test_the_older_sweep_form_is_refused_with_the_new_form_named(old, new, capsys):
    with pytest.raises(SystemExit) as e:
        main.parse(old)
    assert e.value.code == 2
    said = capsys.readouterr().err
    assert len(said.strip().splitlines()) == 1, said
    named = said.split("./tradebench ", 1)[1].split(" (")[0].split()
    # the form it names is the same sweep as the new form
    assert main.parse(named) == main.parse(new)
    got = main.parse(new)
    assert isinstance(got.options, options.Sweep) and got.options.kind == new[1]


def test_the_older_predict_flags_are_refused_with_their_subcommand(capsys):
    with pytest.raises(SystemExit) as e:
        main.parse(["predict", "--check", "RUN"])
    assert e.value.code == 2
    assert "predict --check is the older form: ./tradebench predict check RUN" in capsys.readouterr().err


def test_each_job_of_predict_is_a_subcommand_of_the_one_parser():
    from tradebench_harness.cli import predict
    got = {job: main.parse(["predict", *argv]) for job, argv in [
        ("fit", ["fit", "a", "b", "--out", "x"]), ("check", ["check", "RUN"]), ("probe-fsync", ["probe-fsync"]),
        ("hold-out", ["hold-out", "--params", "P", "--first", "a", "--second", "b"]),
        ("repeatability", ["repeatability", "a", "b"])]}
    assert {job: p.func for job, p in got.items()} == {job: spec[2] for job, spec in predict.JOBS.items()}
    assert got["fit"].options == options.FitOptions(("a", "b"), (), (), (), "x")
    assert got["hold-out"].options == options.HoldOutOptions("P", ("a",), ("b",), None)
    assert not any(p.owns_db for p in got.values())
    q = main.parse(["predict", "--db-latency", "7", "--rate", "3000"])
    assert q.func is predict.cmd_answer and q.options.rate == 3000.0 and not q.owns_db


def test_predict_without_a_question_or_a_subcommand_says_what_it_needs(capsys):
    with pytest.raises(SystemExit) as e:
        main.parse(["predict", "--rate", "3000"])
    assert e.value.code == 2 and "predict needs --db-latency MS and --rate N" in capsys.readouterr().err


def test_each_sweep_kind_runs_its_own_sweep_and_lists_only_its_options():
    from tradebench_harness.cli import docs
    assert {k: main.parse(argv).func for k, argv in [
        ("latency", ["sweep", "latency", "all", "--db-latency", "0"]), ("rates", ["sweep", "rates", "all", "--rates", "1"]),
        ("engines", ["sweep", "engines", "all", "--engines", "1"]),
        ("in-flight", ["sweep", "in-flight", "all", "--in-flight", "4"]), ("cores", ["sweep", "cores", "all", "--cores", "1"])]} \
        == sweep.SWEEP_COMMANDS
    latency, cores = docs.options_md("sweep latency"), docs.options_md("sweep cores")
    assert "--settle" in latency and "--rates" not in latency and "--cores" not in latency
    assert "--cores" in cores and "--settle" not in cores and "--calibration" not in cores
    with pytest.raises(SystemExit) as e:
        main.parse(["sweep", "cores", "all", "--cores", "1", "--rates", "5"])
    assert e.value.code == 2
    with pytest.raises(SystemExit) as e:
        main.parse(["sweep", "latency", "all"])      # its axis is required
    assert e.value.code == 2


@pytest.mark.parametrize("argv, why", [
    (["sweep", "all"], "sweep needs a kind"),
    (["sweep", "cores", "all", "--cores", "1", "--layout", "shared"], "not with --layout shared or --pin"),
    (["sweep", "cores", "all", "--cores", "4096"], "this machine lets the harness use"),
    (["bench", "java-threads", "--duration", "0"], "--duration 0: a window of at least one second"),
    (["bench", "java-threads", "--max-error-rate", "2"], "--max-error-rate 2: a share between 0 and 1"),
    (["bench", "java-threads", "--pin", "variant=4096"], "4096"),
    (["compare", "--experiment", "2014", "--cases", "a"], "compare --experiment is the older form: ./tradebench "
                                                          "compare experiment 2014 --cases a"),
    (["compare", "--duration", "5", "--baseline=main"], "./tradebench compare baseline main --duration 5"),
    (["fuzz", "--max-examples", "0"], "--max-examples 0"),
    (["calibrate", "--loads", "300"], "two light loads or more"),
    (["calibrate", "--far-load", "2000", "--far-latency", "1"], "the held-out window must differ"),
    (["calibrate", "--waiting-load", "2000", "--waiting-latency", "1"], "the held-out window must differ"),
    (["calibrate", "--waiting-latency", "-1"], "positive loads"),
    (["calibrate", "--busy-load", "2000", "--busy-latency", "1"], "the held-out window must differ"),
    (["calibrate", "--busy-latency", "-1"], "positive loads"),
    (["map", "--db-kind", "busy", "--latencies", "0,10"], "--latencies is the far map's axis"),
    (["map", "--db-cpus", "0.5"], "--db-cpus is the busy map's axis"),
    (["map", "--db-kind", "durable", "--db-cpus", "0.5"], "--db-cpus is the busy map's axis"),
    (["map", "--db-kind", "busy", "--db-cpu", "0.5"], "--db-cpu (the whole run's) does not go with it"),
    (["map", "--db-kind", "durable", "--db-durable"], "--db-durable (the whole run's) does not go with it"),
])
def test_options_that_cannot_be_run_exit_2_with_the_reason_before_anything_starts(argv, why, capsys):
    with pytest.raises(SystemExit) as e:
        main.parse(argv)
    assert e.value.code == 2
    err = capsys.readouterr().err
    assert why in err and "tradebench: error:" in err and "Traceback" not in err


def test_the_whole_runs_other_kind_of_slow_database_goes_with_a_map_along_one():
    assert main.parse(["map", "--db-kind", "busy", "--db-durable"]).options.db_durable
    assert main.parse(["map", "--db-kind", "durable", "--db-cpu", "0.5"]).options.db_cpu == 0.5


def test_no_command_is_help_and_a_wrong_one_is_refused(capsys):
    assert main.parse([]).command == "help"
    with pytest.raises(SystemExit):
        main.parse(["no-such-command"])
    with pytest.raises(SystemExit):
        main.parse(["bench", "java-threads", "--db-cpu", "0"])


def test_the_map_is_drawn_along_the_kind_of_slow_database_asked_for():
    far = main.parse(["map"]).options
    assert far.db_kind == "far" and far.db_cpus == (1, 0.5, 0.25, 0.1)
    grid, axis = measure.map_grid(far)
    assert axis == {"axis": "far"} and len(grid) == 12 and {w.database for w in grid} == {(lat, None, None)
                                                                                         for lat in (0, 2, 10, 50)}
    busy = main.parse(["map", "--db-kind", "busy", "--db-cpus", "0.25,2,0.25,1", "--loads", "500,2000"]).options
    grid, axis = measure.map_grid(busy)
    # the rows from the least held database to the busiest, each with every load, no latency added
    assert busy.db_cpus == (2, 1, 0.25) and axis == {"axis": "busy", "dbCpus": [2, 1, 0.25]}
    assert [(w.latency_ms, w.db_cpu, w.db_durable, w.rate) for w in grid] == [
        (0, c, None, r) for c in (2, 1, 0.25) for r in (500, 2000)]
    durable = main.parse(["map", "--db-kind", "durable", "--loads", "500"]).options
    grid, axis = measure.map_grid(durable)
    assert axis == {"axis": "durable", "durable": [False, True]}
    assert [(w.latency_ms, w.db_cpu, w.db_durable) for w in grid] == [(0, None, False), (0, None, True)]


def test_calibrate_fits_light_loads_next_door_one_far_away_one_waiting_and_one_busy_scores_its_held_out_window_and_saturates_last():
    from tradebench_harness.cli import calibrate
    o = main.parse(["calibrate"]).options
    cells = [(w.latency_ms, w.rate) for w in calibrate.windows(o)]
    assert cells == [(0, 300), (0, 1000), (0, 3000), (5, 300), (25, 1800), (3, 3500), (1, 2000), (0, None)]
    near = main.parse(["calibrate", "--far-latency", "0", "--waiting-latency", "0", "--busy-latency", "0"]).options
    assert [(w.latency_ms, w.rate) for w in calibrate.windows(near)] == [(0, 300), (0, 1000), (0, 3000), (1, 2000),
                                                                          (0, None)]


def test_the_jit_is_warmed_at_the_heaviest_open_loop_window_where_a_unit_has_one():
    from tradebench_harness.cli import calibrate
    from tradebench_harness.measure.instance import jit_window
    from tradebench_harness.measure.plan import Window
    assert jit_window(calibrate.windows(main.parse(["calibrate"]).options)) == Window(3, rate=3500)
    # closed loops only (a compare): the heaviest of them
    assert jit_window([Window(0, wait_ms=10), Window(0, concurrency=128)]) == Window(0, concurrency=128)


def test_a_budget_of_nothing_gives_each_row_its_processes_and_no_more():
    assert main.parse(["compare", "--budget", "0", "--processes", "2"]).options.budget == 0


@pytest.mark.parametrize("argv", [["map", "--db-kind", "slow"], ["map", "--db-kind", "busy", "--db-cpus", "0"],
                                  ["map", "--db-kind", "busy", "--db-cpus", "x"], ["map", "--db-cpus", ","],
                                  ["compare", "--budget", "-1"], ["compare", "--target", "0"]])
def test_a_wrong_kind_or_core_count_is_refused(argv):
    with pytest.raises(SystemExit) as e:
        main.parse(argv)
    assert e.value.code == 2


def test_nothing_below_the_command_line_changes_its_options():
    """The namespace is made into the options object at the edge: no module below cli/ assigns to one."""
    pkg = Path(main.__file__).resolve().parents[1]
    found = [f"{p.relative_to(pkg)}:{i}" for p in pkg.rglob("*.py") if p.parent.name != "cli"
             for i, line in enumerate(p.read_text().splitlines(), 1)
             if re.search(r"\b(args|a)\.[a-z_]+ = |setattr\((args|a|o),", line)]
    assert not found, found


@pytest.mark.parametrize("argv", [["predict", "--db-latency", "7", "--rate", "3000"], ["variants"], ["help"]])
def test_a_command_whose_reader_stops_reading_ends_quietly_with_exit_0(argv):
    """`./tradebench predict ... | head -3`: the pipe closed before the command writes its first line."""
    read, write = os.pipe()
    os.close(read)
    try:
        r = subprocess.run([sys.executable, "-m", "tradebench_harness", *argv], stdout=write, stderr=subprocess.PIPE,
                           text=True, env={**os.environ, "TB_ROOT": str(ROOT)}, timeout=120)
    finally:
        os.close(write)
    assert r.returncode == 0 and "Error" not in r.stderr and "Traceback" not in r.stderr, r.stderr


def test_each_job_of_compare_is_a_subcommand_that_takes_every_option_of_compare():
    plain, before, after, exp = (main.parse(a) for a in (
        ["compare"], ["compare", "--duration", "5", "baseline", "HEAD~1"],
        ["compare", "baseline", "HEAD~1", "--duration", "5", "--fail-above", "3"],
        ["compare", "experiment", "2014", "--cases", "x", "--fresh"]))
    assert (plain.func, before.func, exp.func) == (measure.cmd_compare, measure.cmd_compare_baseline,
                                                   measure.cmd_compare_experiment)
    # compare's own defaults (8 s windows) stay, and an option given before the subcommand's word is kept
    assert plain.options.duration == 8 and exp.options.duration == 8
    assert before.options.duration == 5 and before.options.baseline == "HEAD~1" and before.options.fail_above is None
    assert after.options.duration == 5 and after.options.fail_above == 3.0
    assert exp.options.experiment == "2014" and exp.options.cases == "x" and exp.options.fresh
    assert all(p.needs_loadclient for p in (plain, before, after, exp))
    with pytest.raises(SystemExit):
        main.parse(["compare", "--cases", "x"])          # an experiment's option, without the experiment
