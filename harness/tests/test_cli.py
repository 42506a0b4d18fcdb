"""The one parser of ./tradebench: every command dispatched by it, a command that hands its arguments on gets
them as they are (a leading --flag too), the measuring commands get their defaults, and a command whose output
pipe closes ends quietly."""
import os
import subprocess
import sys
from pathlib import Path

import pytest

from tradebench_harness.cli import main

ROOT = Path(__file__).resolve().parents[2]


@pytest.mark.parametrize("argv, func, rest", [
    (["test", "--tier", "unit"], "cmd_test", ["--tier", "unit"]),
    (["load", "--url", "http://127.0.0.1:1", "--rate", "5"], "cmd_loadclient", ["--url", "http://127.0.0.1:1", "--rate", "5"]),
    (["db", "create", "X"], "cmd_db", ["create", "X"]),
    (["predict", "--db-latency", "7", "--rate", "3000"], "cmd_predict", ["--db-latency", "7", "--rate", "3000"]),
    (["build"], "cmd_build", []),
])
def test_a_command_that_hands_its_arguments_on_gets_them_as_they_are(argv, func, rest):
    a = main.parse(argv)
    assert a.func.__name__ == func and a.args == rest and a.raw


def test_the_measuring_commands_get_their_defaults_and_need_the_load_client():
    a = main.parse(["compare"])
    assert (a.repeat, a.duration, a.engines, a.fresh, a.db_cpu, a.db_durable) == (2, 8, 4, False, None, False)
    assert (a.processes, a.target, a.budget, a.fail_above, a.all_rows) == (2, 5.0, 10.5, None, False)
    assert a.needs_loadclient and not a.raw
    b = main.parse(["bench", "java-threads", "--db-cpu", "0.25", "--db-durable"])
    assert (b.repeat, b.duration, b.db_cpu, b.db_durable) == (1, 30, 0.25, True)
    m = main.parse(["map"])
    assert (m.latencies, m.loads, m.duration) == ([0, 2, 10, 50], [500, 2000, 8000], 10)
    assert not main.parse(["variants"]).needs_loadclient


def test_no_command_is_help_and_a_wrong_one_is_refused(capsys):
    assert main.parse([]).command == "help"
    with pytest.raises(SystemExit):
        main.parse(["no-such-command"])
    with pytest.raises(SystemExit):
        main.parse(["bench", "java-threads", "--db-cpu", "0"])


def test_the_map_is_drawn_along_the_kind_of_slow_database_asked_for():
    from tradebench_harness.cli import measure
    far = main.parse(["map"])
    assert far.db_kind == "far" and far.db_cpus == [1, 0.5, 0.25, 0.1] and measure.map_refusal(far) is None
    grid, axis = measure.map_grid(far)
    assert axis == {"axis": "far"} and len(grid) == 12 and {w.database for w in grid} == {(lat, None, None)
                                                                                         for lat in (0, 2, 10, 50)}
    busy = main.parse(["map", "--db-kind", "busy", "--db-cpus", "0.25,2,0.25,1", "--loads", "500,2000"])
    grid, axis = measure.map_grid(busy)
    # the rows from the least held database to the busiest, each with every load, no latency added
    assert busy.db_cpus == [2, 1, 0.25] and axis == {"axis": "busy", "dbCpus": [2, 1, 0.25]}
    assert [(w.latency_ms, w.db_cpu, w.db_durable, w.rate) for w in grid] == [
        (0, c, None, r) for c in (2, 1, 0.25) for r in (500, 2000)]
    durable = main.parse(["map", "--db-kind", "durable", "--loads", "500"])
    grid, axis = measure.map_grid(durable)
    assert axis == {"axis": "durable", "durable": [False, True]}
    assert [(w.latency_ms, w.db_cpu, w.db_durable) for w in grid] == [(0, None, False), (0, None, True)]


@pytest.mark.parametrize("argv, why", [
    (["map", "--db-kind", "busy", "--latencies", "0,10"], "--latencies is the far map's axis"),
    (["map", "--db-cpus", "0.5"], "--db-cpus is the busy map's axis"),
    (["map", "--db-kind", "durable", "--db-cpus", "0.5"], "--db-cpus is the busy map's axis"),
    (["map", "--db-kind", "busy", "--db-cpu", "0.5"], "--db-cpu (the whole run's) does not go with it"),
    (["map", "--db-kind", "durable", "--db-durable"], "--db-durable (the whole run's) does not go with it"),
])
def test_a_map_whose_options_do_not_go_together_is_refused_before_it_starts(argv, why, capsys):
    from tradebench_harness.cli import measure
    a = main.parse(argv)
    assert why in measure.map_refusal(a)
    assert measure.cmd_map(None, a) == 2 and why in capsys.readouterr().err
    # the whole run's other kind goes with a map along one: a busy map of a durable database, and the reverse
    assert measure.map_refusal(main.parse(["map", "--db-kind", "busy", "--db-durable"])) is None
    assert measure.map_refusal(main.parse(["map", "--db-kind", "durable", "--db-cpu", "0.5"])) is None


@pytest.mark.parametrize("argv", [["map", "--db-kind", "slow"], ["map", "--db-kind", "busy", "--db-cpus", "0"],
                                  ["map", "--db-kind", "busy", "--db-cpus", "x"], ["map", "--db-cpus", ","]])
def test_a_wrong_kind_or_core_count_is_refused(argv):
    with pytest.raises(SystemExit):
        main.parse(argv)


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
