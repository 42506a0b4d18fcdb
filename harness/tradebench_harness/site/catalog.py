"""The runs the site shows: every dated folder and note of docs/results (a folder's own folders that hold a
record of their own are runs too, under it) and each folder of the user's results directories that holds one.

A run's machine is read from its record: a results document's and the isolation experiment's `environment`
(cpuModel, cores), the thread ring's `machine` (cpuModel, cpus). A folder that only has a README says its
machine in prose: "not recorded". Its question is the docs/results/README.md heading that lists it (a folder's
own runs take the folder's); a run of the user's takes the question its command's committed runs are listed
under most often."""
from __future__ import annotations

import gzip
import json
import re
from collections import Counter
from dataclasses import dataclass, field, replace
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

from ..record import RESULTS_FILE, SchemaError, load_results, plain
from ..record import isolation as isolation_record
from .questions import Question

RESULTS, ISOLATION, RING, NOTES = "results", "isolation", "ring", "notes"
RING_FILES = ("results.json.gz", RESULTS_FILE)
DATED = re.compile(r"^(\d{4}-\d{2}-\d{2})-")
RUN_ID = re.compile(r"^(\d{4})(\d{2})(\d{2})-(\d{2})(\d{2})(\d{2})")
#: a question for a run of the user's whose command no committed run has
OTHER = "Other runs"


@dataclass(frozen=True, order=True)
class Machine:
    """A CPU model and how many cores the run had: what two runs must share to be set side by side."""
    cpu: str
    cores: int | None

    @property
    def label(self) -> str:
        return f"{self.cpu}, {self.cores} cores" if self.cores else self.cpu


@dataclass(frozen=True)
class Record:
    """What a folder's record says of its run."""
    kind: str
    machine: Machine | None
    started: str | None
    command: str | None
    commit: str | None
    run_id: str | None
    cells: bool = False


@dataclass(frozen=True)
class Entry:
    """A run on the site. SLUG: its path under runs/ (`2026-11-26-profile/batch`, `yours/<run-id>`)."""
    slug: str
    source: Path
    kind: str
    title: str
    question: str
    machine: Machine | None
    started: str
    answers: str = ""
    yours: bool = False
    current: bool = False
    parent: str | None = None
    command: str | None = None
    commit: str | None = None
    run_id: str | None = None
    cells: bool = False
    children: tuple[str, ...] = field(default=())

    @property
    def date(self) -> str:
        return self.started[:10]

    @property
    def folder(self) -> Path:
        """The folder the run's files are in (a note's: docs/results)."""
        return self.source if self.source.is_dir() else self.source.parent

    @property
    def drawable(self) -> bool:
        """A results document: report.html can be drawn from it, and diff reads it."""
        return self.kind == RESULTS


def machine_of(cpu: Any, cores: Any) -> Machine | None:
    if not cpu:
        return None
    name = re.sub(r"\s+", " ", re.sub(r"\((R|TM)\)", "", str(cpu))).strip()
    return Machine(name, int(cores) if isinstance(cores, (int, float)) else None)


def utc(stamp: Any) -> str | None:
    """An ISO 8601 time as UTC, `2026-11-24T21:11:16`, so that runs sort by when they ran."""
    if not isinstance(stamp, str):
        return None
    for fmt in ("%Y-%m-%dT%H:%M:%S%z", "%Y-%m-%dT%H:%M:%S.%f%z"):
        try:
            return datetime.strptime(stamp, fmt).astimezone(timezone.utc).strftime("%Y-%m-%dT%H:%M:%S")
        except ValueError:
            continue
    return stamp[:19] if re.match(r"\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}", stamp) else None


def ring_document(folder: Path) -> dict[str, Any] | None:
    """The thread ring's document (report/ring.py writes it; docs/results keeps it gzip'd), or None."""
    for name in RING_FILES:
        path = folder / name
        if not path.is_file():
            continue
        data = path.read_bytes()
        doc = json.loads(gzip.decompress(data) if name.endswith(".gz") else data)
        if isinstance(doc, dict) and doc.get("command") == "ring" and "rows" in doc:
            return doc
    return None


def record_of(folder: Path) -> Record | None:
    """The record in FOLDER (a results document, the isolation experiment's or the thread ring's), or None."""
    if (folder / isolation_record.FILE).is_file():
        doc = isolation_record.read(folder)
        env = doc.get("environment") or {}
        return Record(ISOLATION, machine_of(env.get("cpuModel"), env.get("cores")), utc(doc.get("startedAt")),
                      doc.get("command") or "isolation", env.get("gitCommit"), None)
    ring = ring_document(folder)
    if ring is not None:
        m = ring.get("machine") or {}
        return Record(RING, machine_of(m.get("cpuModel"), m.get("cpus")), utc(ring.get("startedAt")), "ring",
                      ring.get("commit"), None)
    if not (folder / RESULTS_FILE).is_file():
        return None
    try:
        doc = plain(load_results(folder, raw=False))
    except SchemaError:
        return None
    env = doc.get("environment") or {}
    return Record(RESULTS, machine_of(env.get("cpuModel"), env.get("cores")), utc(doc.get("startedAt")),
                  doc.get("command"), env.get("gitCommit"), doc.get("runId"), bool(doc.get("cells")))


def heading(md: Path) -> str | None:
    """The first heading of a Markdown file."""
    if not md.is_file():
        return None
    for line in md.read_text().splitlines():
        if line.startswith("#"):
            return line.lstrip("#").strip()
    return None


def question_of(questions: list[Question]) -> dict[str, tuple[Question, int]]:
    """The question (and the row of its table) of each folder or note the README lists."""
    return {l.target: (q, i) for q in questions for i, l in enumerate(q.listed)}


@dataclass(frozen=True)
class Listing:
    """What docs/results/README.md says of a folder or note: its question, title, what it answers, current."""
    question: str
    title: str
    answers: str = ""
    current: bool = False


def listing_of(path: Path, listed: dict[str, tuple[Question, int]]) -> Listing:
    q, i = listed.get(path.name, (None, 0))
    title = heading(path / "README.md" if path.is_dir() else path) or path.stem
    if q is None:
        return Listing(OTHER, title)
    row = q.listed[i]
    return Listing(q.title, row.title or title, row.answers, row.current)


def committed(docs_results: Path, questions: list[Question]) -> list[Entry]:
    """Every dated folder and note of DOCS_RESULTS, and each folder of theirs that holds a record of its own."""
    listed = question_of(questions)
    out: list[Entry] = []
    for path in sorted(docs_results.iterdir()):
        m = DATED.match(path.name)
        if not m or not (path.is_dir() or path.suffix == ".md"):
            continue
        about = listing_of(path, listed)
        if not path.is_dir():
            out.append(Entry(slug=path.stem, source=path, kind=NOTES, title=about.title, question=about.question,
                             machine=None, started=m.group(1), answers=about.answers, current=about.current))
            continue
        part = replace(about, current=False)        # the folder is current, not each of its parts
        children = [e for e in (folder_entry(sub, f"{path.name}/{sub.name}", m.group(1), part, parent=path.name,
                                             title=f"{about.title}: {sub.name}")
                                for sub in sorted(p for p in path.iterdir() if p.is_dir())) if e is not None]
        slugs = tuple(c.slug for c in children)
        top = folder_entry(path, path.name, m.group(1), about, children=slugs)
        if top is None:        # a folder with only a README (its figures in prose, or in the folders it holds)
            machines = {c.machine for c in children}
            # as late as its last part: listed newest first, it comes just above its parts
            top = Entry(slug=path.name, source=path, kind=NOTES, title=about.title, question=about.question,
                        machine=machines.pop() if len(machines) == 1 else None,
                        started=max((c.started for c in children), default=m.group(1)),
                        answers=about.answers, current=about.current, children=slugs)
        out.append(top)
        out.extend(children)
    return out


def folder_entry(folder: Path, slug: str, date: str, about: Listing, parent: str | None = None,
                 title: str | None = None, children: tuple[str, ...] = ()) -> Entry | None:
    """FOLDER's run when it holds a record, else None."""
    r = record_of(folder)
    if r is None:
        return None
    return Entry(slug=slug, source=folder, kind=r.kind, title=title or about.title, question=about.question,
                 machine=r.machine, started=r.started or date, answers=about.answers, current=about.current,
                 parent=parent, command=r.command, commit=r.commit, run_id=r.run_id, cells=r.cells,
                 children=children)


def started_of_id(name: str) -> str | None:
    """A run id's time (`20261203-101500-compare`), for a folder whose record does not say when it started."""
    m = RUN_ID.match(name)
    return f"{m[1]}-{m[2]}-{m[3]}T{m[4]}:{m[5]}:{m[6]}" if m else None


def usual_questions(entries: list[Entry], questions: list[Question]) -> dict[str, str]:
    """Each command's question: the one its committed runs are listed under most often (the README's earlier
    question on a tie)."""
    order = {q.title: i for i, q in enumerate(questions)}
    counts: dict[str, Counter[str]] = {}
    for e in entries:
        if e.command and not e.yours and e.question in order:
            counts.setdefault(e.command, Counter())[e.question] += 1
    return {c: min(n, key=lambda q: (-n[q], order[q])) for c, n in counts.items()}


def yours(dirs: list[Path], skip: list[Path], usual: dict[str, str]) -> list[Entry]:
    """The runs in DIRS (each a folder of runs, or one run's folder), but SKIP's folders (the site itself) and
    results/latest (a link to the newest run, which is listed already)."""
    out: list[Entry] = []
    taken: set[str] = set()
    for d in dirs:
        candidates = [d] if record_of(d) else sorted(p for p in d.iterdir() if p.is_dir()) if d.is_dir() else []
        for folder in candidates:
            if folder.is_symlink() or any(folder.resolve() == s.resolve() for s in skip):
                continue
            r = record_of(folder)
            if r is None:
                continue
            slug = f"yours/{folder.name}"
            while slug in taken:
                slug += "-2"
            taken.add(slug)
            started = r.started or started_of_id(folder.name) or "?"
            command = r.command or "run"
            out.append(Entry(slug=slug, source=folder, kind=r.kind, title=folder.name,
                             question=usual.get(command, OTHER), machine=r.machine, started=started, yours=True,
                             command=command, commit=r.commit, run_id=r.run_id, cells=r.cells))
    return out


def every(root: Path, questions: list[Question], dirs: list[Path], skip: list[Path]) -> list[Entry]:
    """The committed runs of ROOT/docs/results, then the user's in DIRS."""
    mine = committed(root / "docs" / "results", questions)
    return mine + yours(dirs, skip, usual_questions(mine, questions))
