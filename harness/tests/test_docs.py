"""The options pages' tables are the parser's (docs/harness-options.md, docs/harness-options-sweep.md: cli/docs.py
PAGES): each table between `<!-- options: COMMAND -->` and `<!-- /options -->` is what cli/docs.py makes from the
parser now, and every measuring command has one, on one page."""
from collections import Counter
from pathlib import Path

from tradebench_harness.cli import docs, options

ROOT = Path(__file__).resolve().parents[2]


def tables() -> list[tuple[str, str, str]]:
    """(page, command, body) of every options table of the pages."""
    return [(page, m.group("command"), m.group("body"))
            for page in docs.PAGES for m in docs.BLOCK.finditer((ROOT / page).read_text())]


def test_every_options_table_of_the_pages_is_the_parsers():
    stale = [f"{page}: {command}" for page, command, body in tables() if body != docs.options_md(command)]
    assert not stale, (f"options tables that differ from the parser: {', '.join(stale)}; run "
                       "`.tradebench/venv/bin/python -m tradebench_harness.cli.docs`")


def test_the_pages_have_the_options_of_every_measuring_command_once():
    have = Counter(command for _, command, _ in tables())
    sweeps = {f"sweep {k}" for k in options.SWEEPS}
    assert {"bench", "compare", "map", "fuzz", "e2e", *sweeps} <= set(have)
    assert not [c for c, n in have.items() if n > 1], f"a command's table on more than one page: {have}"


def test_the_generator_writes_every_page_and_its_root_is_the_repositorys():
    assert all((docs.ROOT / page).is_file() for page in docs.PAGES)
    assert docs.ROOT == ROOT


def test_a_changed_option_is_found():
    table = docs.options_md("map")
    assert "`--loads LOADS` | 500,2000,8000 |" in table
    text = f"<!-- options: map -->\n{table.replace('500,2000,8000', '1,2')}<!-- /options -->"
    assert docs.refresh(text) == f"<!-- options: map -->\n{table}<!-- /options -->"
