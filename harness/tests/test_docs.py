"""docs/harness-options.md's tables are the parser's: each table between `<!-- options: COMMAND -->` and
`<!-- /options -->` is what cli/docs.py makes from the parser now, and every measuring command has one."""
from pathlib import Path

from tradebench_harness.cli import docs, options

OPTIONS = Path(__file__).resolve().parents[2] / "docs" / "harness-options.md"


def test_every_options_table_of_the_readme_is_the_parsers():
    text = OPTIONS.read_text()
    stale = [m.group("command") for m in docs.BLOCK.finditer(text)
             if m.group("body") != docs.options_md(m.group("command"))]
    assert not stale, (f"docs/harness-options.md's options of {', '.join(stale)} differ from the parser: run "
                       "`.tradebench/venv/bin/python -m tradebench_harness.cli.docs docs/harness-options.md`")


def test_the_page_has_the_options_of_every_measuring_command():
    have = {m.group("command") for m in docs.BLOCK.finditer(OPTIONS.read_text())}
    sweeps = {f"sweep {k}" for k in options.SWEEPS}
    assert {"bench", "compare", "map", "fuzz", "e2e", *sweeps} <= have


def test_a_changed_option_is_found():
    table = docs.options_md("map")
    assert "`--loads LOADS` | 500,2000,8000 |" in table
    text = f"<!-- options: map -->\n{table.replace('500,2000,8000', '1,2')}<!-- /options -->"
    assert docs.refresh(text) == f"<!-- options: map -->\n{table}<!-- /options -->"
