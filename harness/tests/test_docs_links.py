"""Every relative link and #anchor of every tracked Markdown file resolves: the file or folder exists, and
the anchor names a heading of the target (GitHub's slugs) or an explicit id. Web links are not followed:
this is the unit tier, without network."""
import re
import subprocess
import unicodedata
from pathlib import Path
from urllib.parse import unquote

import pytest

ROOT = Path(__file__).resolve().parents[2]

FENCE = re.compile(r"^\s*(```|~~~)")
INLINE_CODE = re.compile(r"(`+)(.+?)\1")
# [text](target) and ![alt](target); the target may be <bracketed> and followed by a "title"
INLINE_LINK = re.compile(r"!?\[(?:[^\[\]]|\[[^\[\]]*\])*\]\(\s*(<[^>]*>|[^)\s]+)(?:\s+(?:\"[^\"]*\"|'[^']*'))?\s*\)")
REFERENCE_DEF = re.compile(r"^\s{0,3}\[[^\]]+\]:\s*(<[^>]*>|\S+)")
HTML_LINK = re.compile(r"<(?:a|img)\b[^>]*?\b(?:href|src)\s*=\s*[\"']([^\"']+)[\"']", re.I)
HTML_ID = re.compile(r"<[a-z][^>]*?\b(?:id|name)\s*=\s*[\"']([^\"']+)[\"']", re.I)
HEADING = re.compile(r"^\s{0,3}(#{1,6})\s+(.*?)\s*#*\s*$")
SETEXT = re.compile(r"^\s{0,3}(=+|-+)\s*$")
# a scheme (http:, mailto:, ...) or a protocol-relative address: not a file of the repository
EXTERNAL = re.compile(r"^([a-z][a-z0-9+.-]*:|//)", re.I)
LINE_ANCHOR = re.compile(r"^L\d+(C\d+)?(-L\d+(C\d+)?)?$")


def tracked_markdown() -> list[Path]:
    out = subprocess.run(["git", "ls-files", "-z", "--", "*.md"], cwd=ROOT, capture_output=True, check=True)
    return [ROOT / p for p in out.stdout.decode().split("\0") if p]


def prose_lines(text: str):
    """(line number, line, line with its inline code spans blanked out) outside fenced code blocks: a link
    shown as code is an example, not a link, but a heading's code is part of its anchor."""
    fence = None
    for n, line in enumerate(text.splitlines(), 1):
        m = FENCE.match(line)
        if m:
            if fence is None:
                fence = m.group(1)
            elif line.strip().startswith(fence):
                fence = None
            continue
        if fence is None:
            yield n, line, INLINE_CODE.sub(lambda c: " " * len(c.group(0)), line)


def slug(heading: str) -> str:
    """GitHub's anchor for a heading: its rendered text lower-cased, every character that is not a letter,
    a digit, a space, '-' or '_' dropped, spaces turned into '-'."""
    text = re.sub(r"!?\[((?:[^\[\]]|\[[^\[\]]*\])*)\]\([^)]*\)", r"\1", heading)   # a link shows its text
    text = re.sub(r"<[^>]+>", "", text)                                            # HTML tags show nothing
    text = text.replace("`", "")
    text = re.sub(r"(\*+|(?<!\w)_+|_+(?!\w))", "", text)                          # emphasis marks
    text = text.lower()
    kept = "".join(ch for ch in text
                   if ch in " -_" or unicodedata.category(ch)[0] in ("L", "N") or unicodedata.category(ch) == "Mn")
    return kept.replace(" ", "-")


def anchors(path: Path) -> set[str]:
    """The anchors a Markdown file offers: its headings' slugs (a repeated one gets -1, -2, ... as on GitHub)
    and the ids and names of its HTML elements."""
    seen: dict[str, int] = {}
    out: set[str] = set()
    previous = ""
    for _, line, _ in prose_lines(path.read_text(encoding="utf-8")):
        m = HEADING.match(line)
        title = m.group(2) if m else previous.strip() if previous.strip() and SETEXT.match(line) and \
            not previous.lstrip().startswith(("|", "-", "*", ">")) else None
        if title is not None:
            base = slug(title)
            k = seen.get(base, 0)
            out.add(base if k == 0 else f"{base}-{k}")
            seen[base] = k + 1
        out.update(HTML_ID.findall(line))
        previous = line
    return out


def link_targets(path: Path):
    """(line number, target) of every link of a Markdown file: inline, reference definitions, HTML."""
    after_paragraph = False
    for n, _, line in prose_lines(path.read_text(encoding="utf-8")):
        for m in INLINE_LINK.finditer(line):
            yield n, m.group(1)
        m = REFERENCE_DEF.match(line)
        if m and not after_paragraph:      # a definition cannot interrupt a paragraph (CommonMark)
            yield n, m.group(1)
        after_paragraph = bool(line.strip()) and not m
        for target in HTML_LINK.findall(line):
            yield n, target


def broken_links(files: list[Path], root: Path = ROOT) -> list[str]:
    """'file:line: target (why)' for every relative link of FILES that does not resolve."""
    cache: dict[Path, set[str]] = {}
    problems = []
    for md in files:
        for n, raw in link_targets(md):
            why = link_problem(md, raw, root, cache)
            if why:
                problems.append(f"{md.relative_to(root)}:{n}: {raw} ({why})")
    return problems


def link_problem(md: Path, raw: str, root: Path, cache: dict[Path, set[str]]) -> str | None:
    """Why link RAW of file MD does not resolve, or None (CACHE: the anchors of the files read so far)."""
    target = raw[1:-1] if raw.startswith("<") and raw.endswith(">") else raw
    if not target or EXTERNAL.match(target):
        return None
    path_part, _, anchor = target.partition("#")
    path_part = unquote(path_part.split("?", 1)[0])
    anchor = unquote(anchor)
    if path_part:
        dest = (root / path_part.lstrip("/")) if path_part.startswith("/") else (md.parent / path_part)
    else:
        dest = md
    if not dest.exists():
        return "no such file"
    if not anchor or dest.is_dir():
        return None
    if dest.suffix.lower() != ".md":
        return None if LINE_ANCHOR.match(anchor) else "an anchor into a file that is not Markdown"
    if dest not in cache:
        cache[dest] = anchors(dest)
    return None if anchor in cache[dest] else f"no heading gives #{anchor}"


def test_every_relative_link_and_anchor_of_the_markdown_files_resolves():
    files = tracked_markdown()
    assert len(files) > 10, "git ls-files found hardly any Markdown: not a checkout?"
    problems = broken_links(files)
    assert not problems, "broken links:\n" + "\n".join(problems)


@pytest.mark.parametrize("heading,expected", [
    ("The answer", "the-answer"),
    ("5. Configuration", "5-configuration"),
    ("`results.json` and `runs[]`", "resultsjson-and-runs"),
    ("Is it reproducible?", "is-it-reproducible"),
    ("Java threads vs Akka — the 2014 question", "java-threads-vs-akka--the-2014-question"),
    ("[The contract](docs/contract.md): *storage*", "the-contract-storage"),
    ("snake_case_name and __init__", "snake_case_name-and-init"),
    ("Sales ÷ minute, 4 × RTT", "sales--minute-4--rtt"),
])
def test_slugs_follow_github(heading, expected):
    assert slug(heading) == expected


def test_the_check_finds_a_missing_file_a_missing_anchor_and_ignores_code(tmp_path):
    (tmp_path / "a.md").write_text(
        "# Top\n\n## Top\n\n## The `code` part\n\n<a id=\"here\"></a>\n\nSetext heading\n---\n\n"
        "[ok](b.md#second-part) [ok](#top-1) [ok](#here) [ok](#setext-heading) [ok](#the-code-part) [ok](sub/) "
        "[ok](https://example.com/x.md#nope) [ok](c.txt#L10-L12)\n"
        "[gone](missing.md) [bad anchor](b.md#third-part) ![gone](img/none.png)\n"
        "`[not a link](missing-in-code.md)`\n\n"
        "```\n[not a link](missing-in-fence.md)\n```\n\n"
        "[ref]: b.md#nowhere\n", encoding="utf-8")
    (tmp_path / "b.md").write_text("# First\n\n## Second part\n", encoding="utf-8")
    (tmp_path / "c.txt").write_text("x\n", encoding="utf-8")
    (tmp_path / "sub").mkdir()
    problems = broken_links([tmp_path / "a.md"], root=tmp_path)
    found = sorted(p.split(": ", 1)[1] for p in problems)
    assert found == ["b.md#nowhere (no heading gives #nowhere)",
                     "b.md#third-part (no heading gives #third-part)",
                     "img/none.png (no such file)",
                     "missing.md (no such file)"], problems
