"""`./tradebench site`: one static site of every run, committed and the user's, written from the templates of
this package (Jinja2, autoescaped) into one folder that opens from the file system or any static host.

  index.html                 the project's answer: the README's bullets and the charts of the runs they cite
  runs.html                  every run by question, by machine and by date, and the pairs side by side
  runs/SLUG/index.html       a run's page: its reading, its report.html (drawn, or the run's own), its tables, charts
  runs/SLUG/report.html      today's report.html of a results folder
  pairs/A--B.html            two runs side by side with diff's verdicts
  site.json                  what the site holds; it marks the folder as one a later build may replace

Every link is relative. A run's files are copied under runs/SLUG/ in their folder's layout, so that the links
its README and report make between them still hold."""
from __future__ import annotations

import functools
import json
import shutil
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from jinja2 import Environment, PackageLoader, StrictUndefined
from PIL import Image

from . import catalog, grouping, links, markdown, questions, sidebyside
from .catalog import NOTES, Entry
from .drawing import SALES_CHART, Drawer, own_files
from .grouping import Pair, SiteError

SITE_FILE = "site.json"
STYLE = "site.css"
STATIC = Path(__file__).resolve().parent / "static"
#: the user's run files a page shows or links (a run's logs and raw samples stay where they are)
YOURS_COPIED = (".png", ".md")


@dataclass(frozen=True)
class Chart:
    src: str               # from the site's root
    alt: str
    caption: str = ""
    width: int | None = None
    height: int | None = None


#: how much larger than drawn a chart is shown (the report's PNGs are drawn at 80-90 dpi: their labels are small)
ENLARGED = 1.35
WIDEST = 1100


def chart(png: Path, src: str, alt: str, caption: str = "") -> Chart:
    """A chart of the PNG file PNG, shown at ENLARGED its size up to the page's width."""
    with Image.open(png) as im:
        w, h = im.size
    shown = min(WIDEST, round(w * ENLARGED))
    return Chart(src, alt, caption, shown, round(h * shown / w))


@dataclass(frozen=True)
class Cited:
    """A run the answer cites: the lead of the bullet that cites it, its charts."""
    run: Entry
    lead: str
    charts: list[Chart]


@dataclass
class Built:
    out: Path
    entries: list[Entry]
    pairs: list[Pair]
    pages: list[str] = field(default_factory=list)


def environment() -> Environment:
    return Environment(loader=PackageLoader("tradebench_harness.site", "templates"), autoescape=True,
                       undefined=StrictUndefined, trim_blocks=True, lstrip_blocks=True, keep_trailing_newline=True)


def page_of(e: Entry) -> str:
    return f"runs/{e.slug}/index.html"


def report_of(e: Entry) -> str:
    return f"runs/{e.slug}/report.html"


def pair_page(p: Pair) -> str:
    return f"pairs/{p.slug}.html"


def prepare(out: Path) -> None:
    """OUT empty, or a site this command wrote before (replaced); a folder holding anything else is refused."""
    if out.is_dir() and any(out.iterdir()):
        if not (out / SITE_FILE).is_file():
            raise SiteError(f"{out} holds files this command did not write: give --out a new or empty folder")
        shutil.rmtree(out)
    out.mkdir(parents=True, exist_ok=True)


class Site:
    def __init__(self, root: Path, out: Path, entries: list[Entry], pairs: list[Pair], order: list[str],
                 drawer: Drawer, committed_reports: bool = True) -> None:
        self.root, self.out, self.entries, self.pairs, self.order = root, out, entries, pairs, order
        self.committed_reports = committed_reports      # False: only the user's runs' report.html
        self.by_slug = {e.slug: e for e in entries}
        self.drawer = drawer
        self.files: dict[Path, str] = {}            # a repository (or results) file -> its path on the site
        self.pages: list[str] = []
        self.env = environment()
        self.md = markdown.Renderer(root, self.resolve)

    # --- what a link points at -----------------------------------------------------------------------------------

    def resolve(self, target: Path) -> str | None:
        return self.files.get(target)

    def link_runs(self) -> None:
        """A run's README (or note, or folder) -> its page; its summary.md -> its page's tables."""
        self.files[self.root / "README.md"] = "index.html"
        self.files[self.root / "docs" / "results" / "README.md"] = "runs.html"
        for e in self.entries:
            self.files[e.source] = page_of(e)
            if e.source.is_dir():
                self.files[e.source / "README.md"] = page_of(e)
                if (e.source / "summary.md").is_file():
                    self.files[e.source / "summary.md"] = page_of(e) + "#summary"

    def skip_of(self, e: Entry) -> set[Path]:
        return {self.by_slug[c].source for c in e.children}

    # --- files ---------------------------------------------------------------------------------------------------

    def copy(self, src: Path, dest: str) -> None:
        path = self.out / dest
        path.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(src, path)
        self.files.setdefault(src, dest)

    def copy_runs(self) -> None:
        """Each committed folder's files (a dated folder is small: docs/results holds 3 MiB in all); of a run of
        the user's, its charts and tables."""
        for e in self.entries:
            if not e.source.is_dir():
                continue
            if e.yours:
                files = [f for f in sorted(e.source.iterdir()) if f.is_file() and f.suffix in YOURS_COPIED]
            else:
                files = own_files(e.source, self.skip_of(e))
            for f in files:
                self.copy(f, f"runs/{e.slug}/{f.relative_to(e.source).as_posix()}")

    def charts_of(self, e: Entry) -> list[Path]:
        """E's own PNG charts (not those of the runs in its folder)."""
        if not e.source.is_dir():
            return []
        skip = self.skip_of(e)
        return [f for f in own_files(e.source, skip) if f.suffix == ".png" and f.parent == e.source]

    # --- rendering -----------------------------------------------------------------------------------------------

    def render(self, template: str, page: str, **data: Any) -> None:
        html = self.env.get_template(template).render(
            url=lambda target: markdown.relative(target, page), page=page, style=STYLE, **data)
        path = self.out / page
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(html)
        self.pages.append(page)

    def reports(self) -> dict[str, str]:
        """Each results folder's report.html: a run of the user's own where it has one, else drawn (a committed run's
        only when committed_reports)."""
        have: dict[str, str] = {}
        todo: dict[Path, tuple[set[Path], bool]] = {}
        for e in self.entries:
            if not e.drawable or not (e.yours or self.committed_reports):
                continue
            own = e.source / "report.html"
            if e.yours and own.is_file():
                have[e.slug] = own.read_text()
            else:
                todo[e.source] = (self.skip_of(e), e.cells)
        drawn = self.drawer.reports(todo) if todo else {}
        for e in self.entries:
            if e.drawable and e.slug not in have and e.source in drawn:
                have[e.slug] = drawn[e.source]
        return have

    def write_reports(self) -> set[str]:
        out: set[str] = set()
        for slug, html in self.reports().items():
            e = self.by_slug[slug]
            path = self.out / report_of(e)
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(html)
            self.pages.append(report_of(e))
            self.complete(e, html)
            out.add(slug)
        return out

    def complete(self, e: Entry, html: str) -> None:
        """What E's report links beside it: copied from its folder, or (a flame graph a committed folder keeps
        as stacks only) a page saying how to draw it."""
        base = f"runs/{e.slug}"
        for url in links.of(html):
            rel = links.local(url)
            dest = links.within(base, rel) if rel else None
            if rel is None or dest is None or (self.out / dest).is_file():
                continue
            src = e.source / rel
            if src.is_file():
                self.copy(src, dest)
            else:
                self.render("missing.html", dest, run=e, target=rel, run_page=page_of(e),
                            folder=self.shown(e.source))

    def shown(self, path: Path) -> str:
        """PATH as the user would type it: from the repository's root when it is in it."""
        try:
            return path.relative_to(self.root).as_posix()
        except ValueError:
            return str(path)

    # --- the pages -----------------------------------------------------------------------------------------------

    def answer(self) -> None:
        readme = (self.root / "README.md").read_text()
        section = markdown.section(readme, "The answer")
        said = markdown.bullets(section)
        cited = self.cited(said)
        self.render("answer.html", "index.html", lede=self.md.block(markdown.lede(readme), self.root / "README.md", "index.html"),
                    bullets=self.md.block(said, self.root / "README.md", "index.html"),
                    cited=[Cited(e, lead, self.answer_charts(e, section)) for e, lead in cited],
                    yours=grouping.newest_first(e for e in self.entries if e.yours),
                    count=len(self.entries), run_page=page_of)

    def cited(self, text: str) -> list[tuple[Entry, str]]:
        """The runs TEXT (the README's answer) links, in the order it first links them, each with the bold lead
        of the first bullet that links it."""
        out: dict[str, tuple[Entry, str]] = {}
        md = markdown.Renderer(self.root, lambda p: None).md
        by_path = {p.resolve(): e for e in self.entries for p in (e.source, e.source / "README.md")}
        for t in md.parse(text):
            children = t.children or []
            lead = markdown.lead(children)
            for c in children:
                href = str(c.attrGet("href") or "") if c.type == "link_open" else ""
                hit = by_path.get((self.root / href.partition("#")[0]).resolve()) if href else None
                if hit is not None and hit.slug not in out:
                    out[hit.slug] = (hit, lead)
        return list(out.values())

    def answer_charts(self, e: Entry, section: str) -> list[Chart]:
        """E's charts for the answer's page: those the README's answer shows first, with its caption; then those
        E's README shows, with its alt text; a results table that keeps none gets its sales/min drawn."""
        shown = {str((self.root / t).resolve()): (alt, caption) for alt, t, caption in captions(section)}
        readme = e.source / "README.md"
        alts = {str((e.source / t).resolve()): alt for alt, t in markdown.images(readme.read_text())} if readme.is_file() else {}
        charts = self.charts_of(e)
        charts.sort(key=lambda f: (str(f.resolve()) not in shown, str(f.resolve()) not in alts, f.name))
        out = []
        for f in charts:
            alt, caption = shown.get(str(f.resolve()), (alts.get(str(f.resolve()), f.stem.replace("-", " ")), ""))
            said = self.md.line(caption, self.root / "README.md", "index.html") if caption else ""
            out.append(chart(f, self.files[f], alt, said))
        if not out and e.drawable and not e.cells:
            dest = f"runs/{e.slug}/{SALES_CHART}"
            (self.out / dest).write_bytes(self.drawer.sales(e.source, self.skip_of(e)))
            out.append(chart(self.out / dest, dest, "sales/min of each design",
                             "each design's median with its 95 % interval, drawn by the site from the run's "
                             "results.json as its report draws it"))
        return out

    def index(self) -> None:
        qs = grouping.by_question(self.entries, self.order)
        self.render("runs.html", "runs.html", by_question=qs, by_machine=grouping.by_machine(self.entries),
                    by_date=grouping.by_date(self.entries), pairs=self.pairs, run_page=page_of, pair_page=pair_page,
                    anchor=markdown.slug, answers=self.answers)

    def answers(self, e: Entry, page: str) -> Any:
        if e.yours or not e.answers:
            return e.command or ""
        return self.md.line(e.answers, self.root / "docs" / "results" / "README.md", page)

    def run_pages(self, reported: set[str]) -> None:
        for e in self.entries:
            page = page_of(e)
            text = e.source.read_text() if e.kind == NOTES and e.source.is_file() else \
                (e.source / "README.md").read_text() if (e.source / "README.md").is_file() else None
            source = e.source if e.source.is_file() else e.source / "README.md"
            readme = self.md.block(text, source, page, below=1) if text is not None else None
            summary_md = e.folder / "summary.md" if e.source.is_dir() else None
            summary = (self.md.block(summary_md.read_text(), summary_md, page, below=2)
                       if summary_md is not None and summary_md.is_file() else None)
            embedded = {str((e.source / t).resolve()) for _, t in markdown.images(text or "")}
            charts = [] if e.slug in reported else [
                chart(f, self.files[f], f.name) for f in self.charts_of(e) if str(f.resolve()) not in embedded]
            self.render("run.html", page, run=e, parent=self.by_slug.get(e.parent or ""),
                        children=[self.by_slug[c] for c in e.children], readme=readme, summary=summary,
                        charts=charts, report=report_of(e) if e.slug in reported else None,
                        pairs=[p for p in self.pairs if e in (p.a, p.b)], run_page=page_of, pair_page=pair_page,
                        anchor=markdown.slug, folder=self.shown(e.source), machine=grouping.machine_title)

    def pair_pages(self, reported: set[str]) -> None:
        load = functools.cache(lambda slug: sidebyside.document(self.by_slug[slug]))
        for p in self.pairs:
            v = sidebyside.verdicts(p.a, p.b, lambda e: load(e.slug))
            self.render("pair.html", pair_page(p), pair=p, verdicts=v, run_page=page_of,
                        reports={s: report_of(self.by_slug[s]) for s in (p.a.slug, p.b.slug) if s in reported},
                        charts={e.slug: [chart(f, self.files[f], f.name) for f in self.charts_of(e)] for e in (p.a, p.b)},
                        machine=grouping.machine_title, folders={e.slug: self.shown(e.source) for e in (p.a, p.b)})

    def finish(self) -> None:
        shutil.copyfile(STATIC / STYLE, self.out / STYLE)
        manifest = {"generator": "./tradebench site", "pages": sorted(self.pages),
                    "runs": [{"slug": e.slug, "source": self.shown(e.source), "kind": e.kind, "question": e.question,
                              "machine": e.machine.label if e.machine else None, "started": e.started,
                              "yours": e.yours} for e in self.entries],
                    "pairs": [{"a": p.a.slug, "b": p.b.slug, "why": p.why} for p in self.pairs]}
        (self.out / SITE_FILE).write_text(json.dumps(manifest, indent=1) + "\n")


def captions(section: str) -> list[tuple[str, str, str]]:
    """(alt, target, caption) of each image of the README's answer: the caption is the italic paragraph under it."""
    out: list[tuple[str, str, str]] = []
    paragraphs = [p.strip() for p in section.split("\n\n")]
    for i, p in enumerate(paragraphs):
        for alt, target in markdown.images(p):
            after = paragraphs[i + 1] if i + 1 < len(paragraphs) else ""
            caption = after.strip("*_ \n") if after.startswith(("*", "_")) else ""
            out.append((alt, target, caption))
    return out


def build(root: Path, out: Path, dirs: Iterable[Path], names: Iterable[tuple[str, str]], cache: Path,
          say: Callable[[str], None] = lambda m: None, jobs: int | None = None, committed_reports: bool = True) -> Built:
    """The site of ROOT's docs/results and the runs in DIRS into OUT (the pairs NAMES names beside each run and
    its previous one); reports drawn before are taken from CACHE."""
    order = questions.read(root / "docs" / "results" / "README.md")
    entries = catalog.every(root, order, list(dirs), skip=[out])
    pairs = grouping.pairs(entries, names)         # a name that is no run: refused before anything is written
    prepare(out)
    site = Site(root, out, entries, pairs, [q.title for q in order], Drawer(root, cache, jobs, say), committed_reports)
    site.link_runs()
    site.copy_runs()
    reported = site.write_reports()
    site.answer()
    site.index()
    site.run_pages(reported)
    site.pair_pages(reported)
    site.finish()
    if committed_reports:           # a build that drew no committed report leaves their cache as it is
        site.drawer.prune()
    return Built(out, entries, pairs, site.pages)
