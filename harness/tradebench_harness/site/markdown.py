"""The project's Markdown (a run's README and summary, the README's answer) as HTML for the site, with
markdown-it-py: raw HTML in the Markdown is escaped, not passed on.

Every link and image is resolved against the file it is written in and pointed at the site's copy of its
target (a run's README: that run's page; a chart: the copied PNG), relative to the page it lands on, so that
the site opens from the file system and from any static host. A target the site does not hold (a source file,
a page of docs/) is left as its text, the repository's path beside it as a title: a site with no dead link."""
from __future__ import annotations

import os
import posixpath
import re
import unicodedata
from collections.abc import Callable
from pathlib import Path
from urllib.parse import unquote

from markdown_it import MarkdownIt
from markdown_it.token import Token
from markupsafe import Markup

#: a repository file -> its path on the site (from the site's root, `#fragment` allowed), or None
Resolve = Callable[[Path], "str | None"]
WEB = re.compile(r"^https?://", re.I)
SCHEME = re.compile(r"^[a-z][a-z0-9+.-]*:", re.I)


def slug(text: str) -> str:
    """A heading's anchor as GitHub makes it: lower case, punctuation dropped, spaces to hyphens."""
    kept = "".join(c for c in text.lower() if c in " -_" or unicodedata.category(c)[0] in "LN")
    return kept.replace(" ", "-")


def relative(target: str, page: str) -> str:
    """TARGET (a path from the site's root, maybe with a #fragment) as a link from PAGE (also from the root)."""
    path, _, fragment = target.partition("#")
    rel = posixpath.relpath(path, posixpath.dirname(page) or ".") if path else ""
    return rel + (f"#{fragment}" if fragment else "")


class Renderer:
    def __init__(self, root: Path, resolve: Resolve) -> None:
        self.root = root
        self.resolve = resolve
        self.md = MarkdownIt("commonmark", {"html": False}).enable("table")

    def href(self, url: str, source: Path, page: str) -> str | None:
        """URL, written in SOURCE, as a link from PAGE; None when the site does not hold its target."""
        if url.startswith("#") or WEB.match(url):
            return url
        if SCHEME.match(url) or url.startswith("//"):
            return None
        path, _, fragment = url.partition("#")
        target = self.resolve(Path(os.path.normpath(source.parent / unquote(path))))
        if target is None:
            return None
        if fragment:
            target = target.partition("#")[0] + "#" + fragment
        return relative(target, page)

    def elsewhere(self, url: str, source: Path) -> str:
        """The title of a link the site does not hold: where it points in the repository."""
        if SCHEME.match(url):
            return url
        where = Path(os.path.normpath(source.parent / unquote(url.partition("#")[0])))
        try:
            return f"{where.relative_to(self.root)} in the repository"
        except ValueError:
            return str(where)

    def rewrite(self, tokens: list[Token], source: Path, page: str, below: int = 0) -> None:
        """Links, images and headings of TOKENS (and their children) made the site's, in place; each heading BELOW
        levels lower (a README's title under the page's)."""
        seen: dict[str, int] = {}
        for i, t in enumerate(tokens):
            if t.type in ("heading_open", "heading_close") and below:
                t.tag = f"h{min(6, int(t.tag[1]) + below)}"
            if t.type == "heading_open" and i + 1 < len(tokens):
                name = slug("".join(c.content for c in tokens[i + 1].children or [] if c.type in ("text", "code_inline")))
                n = seen.get(name, 0)
                seen[name] = n + 1
                t.attrSet("id", name if not n else f"{name}-{n}")
            if t.children:
                self.inline(t.children, source, page)

    def inline(self, children: list[Token], source: Path, page: str) -> None:
        opened: list[Token] = []
        for c in children:
            if c.type == "link_open":
                url = str(c.attrGet("href") or "")
                href = self.href(url, source, page)
                if href is None:
                    c.tag, c.attrs = "span", {"class": "elsewhere", "title": self.elsewhere(url, source)}
                else:
                    c.attrSet("href", href)
                opened.append(c)
            elif c.type == "link_close" and opened:
                c.tag = opened.pop().tag
            elif c.type == "image":
                src = self.href(str(c.attrGet("src") or ""), source, page)
                if src is None:            # its alt text in its place
                    c.type, c.tag, c.children = "text", "", None
                else:
                    c.attrSet("src", src)

    def block(self, text: str, source: Path, page: str, below: int = 0) -> Markup:
        """TEXT, a Markdown file's (SOURCE's), as HTML for PAGE, its headings BELOW levels lower."""
        tokens = self.md.parse(text)
        self.rewrite(tokens, source, page, below)
        return Markup(self.md.renderer.render(tokens, self.md.options, {}))

    def line(self, text: str, source: Path, page: str) -> Markup:
        """TEXT, one line of Markdown (a table's cell), as inline HTML for PAGE."""
        tokens = self.md.parseInline(text)
        self.rewrite(tokens, source, page)
        return Markup(self.md.renderer.render(tokens, self.md.options, {}))


def section(text: str, title: str) -> str:
    """The Markdown under the `## TITLE` heading of TEXT, up to the next heading of that level or above."""
    out: list[str] = []
    inside = False
    for line in text.splitlines():
        m = re.match(r"^(#{1,2})\s+(.*?)\s*$", line)
        if m:
            if inside:
                break
            inside = m.group(2) == title and len(m.group(1)) == 2
            continue
        if inside:
            out.append(line)
    return "\n".join(out).strip("\n")


def bullets(text: str) -> str:
    """The bulleted list of a section (its first list, each item with its continuation lines)."""
    out: list[str] = []
    for line in text.splitlines():
        if line.startswith(("- ", "* ")) or (out and line.startswith((" ", "\t")) and line.strip()):
            out.append(line)
        elif out:
            break
    return "\n".join(out)


def lede(text: str) -> str:
    """The first paragraph after a file's title."""
    paragraph: list[str] = []
    for line in text.splitlines():
        if line.startswith("#"):
            if paragraph:
                break
            continue
        if not line.strip():
            if paragraph:
                break
            continue
        paragraph.append(line)
    return "\n".join(paragraph)


def lead(children: list[Token]) -> str:
    """The bold words an inline run of Markdown opens with (a bullet's claim), or ''."""
    start = next((i for i, c in enumerate(children) if c.type == "strong_open"), None)
    if start is None:
        return ""
    words: list[str] = []
    for c in children[start + 1:]:
        if c.type == "strong_close":
            break
        words.append(c.content)
    return "".join(words).strip()


def images(text: str) -> list[tuple[str, str]]:
    """(alt, target) of every image of a Markdown text, in its order."""
    out: list[tuple[str, str]] = []
    md = MarkdownIt("commonmark", {"html": False}).enable("table")
    for t in md.parse(text):
        for c in t.children or []:
            if c.type == "image":
                out.append((c.content, str(c.attrGet("src") or "")))
    return out
