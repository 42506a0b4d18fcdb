"""The one parser of ./tradebench: every command dispatched by it, a command that hands its arguments on gets
them as they are (a leading --flag too), and the measuring commands get their defaults."""
import pytest

from tradebench_harness.cli import main


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
    assert (a.repeat, a.duration, a.engines, a.fresh, a.db_cpu, a.db_durable) == (3, 15, 4, False, None, False)
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
