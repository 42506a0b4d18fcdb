"""The questions of the committed runs, read from docs/results/README.md: it is organised by question (a `###`
heading each) with a table of the runs answering it (date, a link to the run's README, what it answers), the
current run marked `(current)`. The tables are read from the Markdown's parse, not from its lines, so that a
cell holding a `|` or a code span reads as the README shows it."""
from __future__ import annotations

import posixpath
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from markdown_it import MarkdownIt
from markdown_it.token import Token

CURRENT = "(current)"


@dataclass(frozen=True)
class Listed:
    """One row of a question's table: the run it links (a folder or a note of docs/results, relative to it)."""
    target: str
    title: str
    answers: str          # the third cell, as Markdown
    current: bool


@dataclass(frozen=True)
class Question:
    title: str
    listed: tuple[Listed, ...]


def target_of(href: str) -> str | None:
    """The folder (or note) of docs/results a row's link names: `2026-11-24-map/README.md` -> `2026-11-24-map`;
    None for a link out of the folder (the superseded runs name a commit instead)."""
    path = posixpath.normpath(href.split("#", 1)[0])
    if path.startswith("..") or path.startswith("/") or "://" in href:
        return None
    if posixpath.basename(path) == "README.md":
        path = posixpath.dirname(path)
    return path or None


def row_of(cells: list[Token]) -> Listed | None:
    """A table row's (date, run, what it answers) cells as a listed run, or None when the run cell links nothing."""
    if len(cells) < 3:
        return None
    children = cells[1].children or []
    link = next((c for c in children if c.type == "link_open"), None)
    target = target_of(str(link.attrGet("href") or "")) if link else None
    if link is None or target is None:
        return None
    start = children.index(link)
    end = next(i for i in range(start, len(children)) if children[i].type == "link_close")
    title = "".join(c.content for c in children[start + 1:end] if c.type in ("text", "code_inline"))
    return Listed(target=target, title=title.strip(), answers=cells[2].content.strip(),
                  current=CURRENT in cells[1].content)


def rows(tokens: list[Token]) -> Iterator[tuple[str | None, list[Token]]]:
    """(the `###` heading it is under, None under a `##` one; its cells) of each body row of each table."""
    heading: str | None = None
    cells: list[Token] | None = None
    for i, t in enumerate(tokens):
        if t.type == "heading_open" and t.tag in ("h2", "h3"):
            heading = tokens[i + 1].content.strip() if t.tag == "h3" else None
        elif t.type == "tr_open":
            cells = []
        elif t.type == "inline" and cells is not None and tokens[i - 1].type == "td_open":
            cells.append(t)
        elif t.type == "tr_close":
            if cells:                  # a header row has th cells only
                yield heading, cells
            cells = None


def parse(text: str) -> list[Question]:
    """Each `###` question of TEXT with the runs its tables link, in the README's order; a question none of whose
    rows links a run of the folder (the superseded runs, out of the tree) is left out."""
    tokens = MarkdownIt("commonmark", {"html": False}).enable("table").parse(text)
    found: dict[str, list[Listed]] = {}
    for heading, cells in rows(tokens):
        listed = row_of(cells)
        if heading is not None and listed is not None:
            found.setdefault(heading, []).append(listed)
    return [Question(title, tuple(listed)) for title, listed in found.items()]


def read(readme: Path) -> list[Question]:
    return parse(readme.read_text()) if readme.is_file() else []
