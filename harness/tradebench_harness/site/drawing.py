"""report.html of a results folder, drawn as `./tradebench report FOLDER` draws it (report/results.py
`write_all` on the document `load` reads back), into a scratch copy so that the folder stays as it is.

Drawing every committed folder's report takes matplotlib minutes of CPU, so each drawn page is kept in a cache
named by what it is drawn from: the folder's files and the code that draws (the rooms report.html depends on,
the pinned packages). The same inputs give the same page, so a page from the cache is the page a fresh drawing
would give; a change to either draws it again. Pages missing from the cache are drawn in parallel, one process
per CPU."""
from __future__ import annotations

import ast
import base64
import hashlib
import multiprocessing
import os
import shutil
import tempfile
from collections.abc import Callable
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

from ..record import plain
from ..report import page, results

PACKAGE = Path(__file__).resolve().parents[1]
#: what draws a report: report/results.py and every module of the package it imports; a table's report runs none
#: of the model's code (write_all draws the model beside a sweep's or a map's cells only)
DRAWN_BY = "report.results"
MODEL = "model"
#: what the site draws for an answer's run that keeps no chart of its own
SALES_CHART = "sales-per-minute.png"
#: drawn pages kept beyond those of the folders as they are now
KEPT_OLD = 100


def own_files(folder: Path, skip: set[Path]) -> list[Path]:
    """FOLDER's files, those of its folders too, but not those under SKIP (folders that are runs of their own)."""
    out: list[Path] = []
    for dirpath, dirnames, filenames in os.walk(folder):
        here = Path(dirpath)
        dirnames[:] = sorted(d for d in dirnames if here / d not in skip)
        out += [here / f for f in sorted(filenames)]
    return out


def module_file(name: str) -> Path | None:
    """The file of the package's module NAME (dotted, from the package: `report.page`), or None."""
    path = PACKAGE.joinpath(*name.split("."))
    for f in (path.with_suffix(".py"), path / "__init__.py"):
        if f.is_file():
            return f
    return None


def imported(start: str) -> set[Path]:
    """The files of START and of every module of the package it imports, directly or not (read from the source:
    an import inside a function counts too)."""
    seen: set[Path] = set()
    todo = [start]
    while todo:
        path = module_file(todo.pop())
        if path is None or path in seen:
            continue
        seen.add(path)
        package = list(path.relative_to(PACKAGE).parts[:-1])
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.ImportFrom):
                if node.level:
                    base = package[:len(package) - node.level + 1] + (node.module or "").split(".")
                elif (node.module or "").split(".")[0] == PACKAGE.name:
                    base = (node.module or "").split(".")[1:]
                else:
                    continue
                base = [b for b in base if b]
                todo += [".".join(base), *(".".join([*base, a.name]) for a in node.names)]
            elif isinstance(node, ast.Import):
                todo += [a.name.split(".", 1)[1] for a in node.names if a.name.startswith(PACKAGE.name + ".")]
    return seen


def code_digest(model: bool) -> str:
    """The code that draws a report (with the model's, and its data files, for a sweep's or a map's) and the
    pinned packages: a new version of either draws its pages again."""
    files = {f for f in imported(DRAWN_BY) if model or f.relative_to(PACKAGE).parts[0] != MODEL}
    if model:
        files |= set((PACKAGE / MODEL).glob("*.json"))
    h = hashlib.sha256()
    for f in sorted(files):
        h.update(str(f.relative_to(PACKAGE)).encode() + b"\0" + f.read_bytes())
    requirements = PACKAGE.parent / "requirements.txt"
    if requirements.is_file():
        h.update(requirements.read_bytes())
    return h.hexdigest()


def folder_digest(folder: Path, skip: set[Path], code: str) -> str:
    h = hashlib.sha256(code.encode())
    for f in own_files(folder, skip):
        h.update(str(f.relative_to(folder)).encode() + b"\0" + f.read_bytes() + b"\0")
    return h.hexdigest()


def scratch_copy(folder: Path, skip: set[Path], into: Path) -> Path:
    copy = into / folder.name
    for f in own_files(folder, skip):
        dest = copy / f.relative_to(folder)
        dest.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(f, dest)
    return copy


def draw(folder: str, skip: list[str], root: str) -> str:
    """FOLDER's report.html as `./tradebench report` writes it (a sweep's or map's model from ROOT's code)."""
    with tempfile.TemporaryDirectory(prefix="tradebench-site-") as tmp:
        copy = scratch_copy(Path(folder), {Path(s) for s in skip}, Path(tmp))
        results.write_all(copy, results.load(str(copy), copy), Path(root))
        return (copy / "report.html").read_text()


def sales_chart(folder: str, skip: list[str], root: str) -> bytes:
    """The sales/min of each row of FOLDER's table with its 95 % interval, as the report draws it."""
    with tempfile.TemporaryDirectory(prefix="tradebench-site-") as tmp:
        copy = scratch_copy(Path(folder), {Path(s) for s in skip}, Path(tmp))
        doc = plain(results.load(str(copy), copy))
    return base64.b64decode(page.bar_chart(doc["summary"], "salesPerMinute", "Sales stored per minute, with the "
                                           "95 % interval (none drawn: one process)", "sales/min"))


class Drawer:
    """Reports and charts of results folders, from CACHE when they were drawn from the same inputs before."""

    def __init__(self, root: Path, cache: Path, jobs: int | None = None,
                 say: Callable[[str], None] = lambda m: None) -> None:
        self.root, self.say = root, say
        self.jobs = jobs or os.cpu_count() or 1
        self.cache = cache
        self.code = {False: code_digest(model=False), True: code_digest(model=True)}
        self.used: set[str] = set()

    def key(self, folder: Path, skip: set[Path], cells: bool) -> str:
        return folder_digest(folder, skip, self.code[cells])

    def cached(self, key: str, suffix: str) -> Path:
        return self.cache / f"{key}{suffix}"

    def reports(self, folders: dict[Path, tuple[set[Path], bool]]) -> dict[Path, str]:
        """Each folder's report.html (FOLDERS: each folder, the folders in it that are runs of their own, and
        whether it is a sweep's or a map's)."""
        keys = {f: self.key(f, skip, cells) for f, (skip, cells) in folders.items()}
        self.used |= set(keys.values())
        missing = [f for f in folders if not self.cached(keys[f], ".html").is_file()]
        if missing:
            self.say(f"drawing {len(missing)} report(s) of {len(folders)}, {min(self.jobs, len(missing))} at once "
                     f"(the others from {self.cache})")
            self.cache.mkdir(parents=True, exist_ok=True)
            for f, html in zip(missing, self.run(draw, missing, {f: skip for f, (skip, _) in folders.items()})):
                self.store(self.cached(keys[f], ".html"), html.encode())
        return {f: self.cached(keys[f], ".html").read_text() for f in folders}

    def prune(self) -> None:
        """What this build did not use (drawn from an older version of a folder or of the code) goes, but the
        KEPT_OLD newest: switching between two trees does not draw everything each time."""
        if not self.cache.is_dir():
            return
        old = sorted((p for p in self.cache.iterdir() if p.is_file() and p.name[:64] not in self.used),
                     key=lambda p: p.stat().st_mtime)
        for p in old[:max(0, len(old) - KEPT_OLD)]:
            p.unlink(missing_ok=True)

    def sales(self, folder: Path, skip: set[Path]) -> bytes:
        key = self.key(folder, skip, False)
        self.used.add(key)
        path = self.cached(key, "-" + SALES_CHART)
        if not path.is_file():
            self.cache.mkdir(parents=True, exist_ok=True)
            self.store(path, sales_chart(str(folder), [str(s) for s in skip], str(self.root)))
        return path.read_bytes()

    def run(self, func: Callable[[str, list[str], str], str], todo: list[Path],
            folders: dict[Path, set[Path]]) -> list[str]:
        args = [(str(f), [str(s) for s in folders[f]], str(self.root)) for f in todo]
        if self.jobs == 1 or len(todo) == 1:
            return [func(*a) for a in args]
        # forked: a spawned worker would run the entry point's module again (python -m tradebench_harness has no
        # main guard); this process has started no thread a fork could catch holding a lock
        with ProcessPoolExecutor(min(self.jobs, len(todo)), mp_context=multiprocessing.get_context("fork")) as pool:
            return list(pool.map(func, *zip(*args)))

    @staticmethod
    def store(path: Path, data: bytes) -> None:
        """PATH written whole or not at all: a build stopped halfway leaves no torn page in the cache."""
        tmp = path.with_suffix(path.suffix + f".{os.getpid()}.tmp")
        tmp.write_bytes(data)
        tmp.replace(path)
