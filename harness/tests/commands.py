"""A command of ./tradebench run in this process, as the launcher runs it: parsed by the one parser (cli/main.py),
its options checked (SystemExit 2 where they cannot be run), then run in the checkout's context."""
import dataclasses
from pathlib import Path

from tradebench_harness.cli import main
from tradebench_harness.run import context


def run(argv: list[str], root: Path | None = None) -> int:
    """ARGV's command in the context of the launcher's environment, its repository ROOT when given."""
    c = main.parse(argv)
    ctx = context.from_env()
    return c.func(dataclasses.replace(ctx, root=root) if root is not None else ctx, c.options)


def predict(argv: list[str], root: Path | None = None) -> int:
    """./tradebench predict ARGV."""
    return run(["predict", *argv], root)
