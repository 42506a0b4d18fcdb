"""The options tables of the options pages (PAGES: every command's but sweep's in docs/harness-options.md, the
sweeps' in docs/harness-options-sweep.md), made from the parser itself so that they cannot drift from it.

A table sits between `<!-- options: COMMAND -->` (a subcommand: `<!-- options: sweep KIND -->`, `<!-- options: compare
baseline -->`) and `<!-- /options -->`;
`python -m tradebench_harness.cli.docs` writes every such table of the pages again (given paths: of those files;
harness/tests/test_docs.py fails while one differs from the parser)."""
from __future__ import annotations

import argparse
import re
import sys
from pathlib import Path
from typing import Any

from .main import parser

#: the pages that hold options tables, from the repository's root
PAGES = ("docs/harness-options.md", "docs/harness-options-sweep.md")
ROOT = Path(__file__).resolve().parents[3]

BLOCK = re.compile(r"(<!-- options: (?P<command>[a-z0-9-]+(?: [a-z0-9-]+)?) -->\n)(?P<body>.*?)(<!-- /options -->)", re.S)


def _shown(d: Any) -> str:
    return ",".join(map(_number, d)) if isinstance(d, (list, tuple)) else str(d)


def _number(x: Any) -> str:
    return f"{x:g}" if isinstance(x, float) else str(x)


def _default(a: argparse.Action) -> str:
    if isinstance(a, (argparse._StoreTrueAction, argparse._StoreFalseAction)) or a.default in (None, argparse.SUPPRESS):
        return ""
    return _shown(a.default)


def command_parser(command: str) -> argparse.ArgumentParser:
    """COMMAND's parser: a command's (`map`), or a subcommand's (`sweep latency`, `compare baseline`)."""
    _, commands, _ = parser()
    name, _, job = command.partition(" ")
    p = commands[name]
    if not job:
        return p
    (jobs,) = [a for a in p._actions if isinstance(a, argparse._SubParsersAction)]
    chosen: argparse.ArgumentParser = jobs.choices[job]
    return chosen


def options_md(command: str) -> str:
    """The Markdown table of COMMAND's options: flag, default, what it does (its help text). A subcommand that
    takes its command's options too (compare's: their default left out, cli/measure.py) lists its own."""
    sub = command_parser(command)
    rows = ["| option | default | what |", "| --- | --- | --- |"]
    for a in sub._actions:
        if isinstance(a, (argparse._HelpAction, argparse._SubParsersAction)) or a.default is argparse.SUPPRESS:
            continue
        name = ", ".join(a.option_strings) if a.option_strings else str(a.metavar or a.dest.upper())
        if a.option_strings and a.nargs != 0:
            name += " " + str(a.metavar or a.dest.upper())
        what = (a.help or "").replace("%%", "%").replace("|", "\\|")
        default = sub.get_default(a.dest) if a.option_strings else None
        shown = _default(a) if default is None or default == a.default else _shown(default)
        rows.append(f"| `{name}` | {shown} | {what} |")
    return "\n".join(rows) + "\n"


def refresh(text: str) -> str:
    def table(m: re.Match[str]) -> str:
        return m.group(1) + options_md(m.group("command")) + m.group(4)
    return BLOCK.sub(table, text)


def main(argv: list[str]) -> int:
    for path in map(Path, argv) if argv else (ROOT / p for p in PAGES):
        path.write_text(refresh(path.read_text()))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
