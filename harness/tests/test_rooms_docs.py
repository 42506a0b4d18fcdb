"""The rooms as the docs tell them are the rooms the layering test enforces (test_imports.py ROOMS): every room has a
row in harness/README.md's table, whose last column names the rooms it may import (record, which every room may
read and write through, left unsaid), and README.md's layout names every room."""
import re
from pathlib import Path

from tests.test_imports import ROOMS

ROOT = Path(__file__).resolve().parents[2]


def harness_table(text: str) -> dict[str, str]:
    """Room -> the last cell of its row in harness/README.md's "Layout: a package in rooms"."""
    section = text.split("## Layout: a package in rooms", 1)[1].split("\n## ", 1)[0]
    rows = {}
    for line in section.splitlines():
        m = re.match(r"\| `(\w+)/` \|.*\| ([^|]+) \|$", line)
        if m:
            rows[m.group(1)] = m.group(2).strip()
    return rows


def said_imports(cell: str, room: str) -> set[str]:
    """The rooms a cell says ROOM may import: "all" (every other), "–" or "imports nothing of the others" (none),
    else the rooms it names; record with each, as every room may import it."""
    if cell == "all":
        return set(ROOMS) - {room}
    if cell in ("–", "imports nothing of the others"):
        return set()
    return set(re.findall(r"`(\w+)`", cell)) | {"record"}


def test_every_room_has_its_row_and_its_row_names_what_it_may_import():
    rows = harness_table((ROOT / "harness" / "README.md").read_text())
    assert set(rows) == set(ROOMS), "harness/README.md's rooms differ from the layering test's"
    wrong = {room: (rows[room], sorted(allowed)) for room, allowed in ROOMS.items()
             if said_imports(rows[room], room) != allowed}
    assert not wrong, f"rows that say other imports than the layering test allows: {wrong}"


def test_the_front_doors_layout_names_every_room():
    row = next(line for line in (ROOT / "README.md").read_text().splitlines() if line.startswith("| `harness/` |"))
    named = set(re.findall(r"`(\w+)`", row.split("rooms:", 1)[1].split(")", 1)[0]))
    assert named == set(ROOMS), f"README.md's layout names the rooms {sorted(named)}"


def test_a_row_that_says_another_import_is_found():
    text = (ROOT / "harness" / "README.md").read_text()
    changed = re.sub(r"(\| `suites/` \|.*\| )`run`( \|)", r"\1`run`, `model`\2", text)
    assert changed != text
    assert said_imports(harness_table(changed)["suites"], "suites") != ROOMS["suites"]


def test_the_model_reads_nothing_of_run_or_measure():
    """model/ predicts from records (the manifests too, record/manifest.py): it starts and measures nothing (the
    fsync probe is measure/'s, predict's text cli/'s)."""
    from tests.test_imports import PACKAGE, import_graph
    wrong = sorted(f"{mod} → {d}" for mod, deps in import_graph(PACKAGE).items() if mod.split(".")[0] == "model"
                   for d in deps if d.split(".")[0] in ("run", "measure"))
    assert not wrong, "model/ imports what starts or measures: " + "; ".join(wrong)


#: a module of the package named by its room's path (`report/tables.py`), as the docs and the comments name them
MODULE_PATH = re.compile(r"\b((?:" + "|".join(ROOMS) + r")/[a-z_]+\.py)\b")


def named_modules(text: str) -> set[str]:
    return set(MODULE_PATH.findall(text))


def test_every_module_the_docs_and_the_code_name_exists():
    """A comment, a docstring or a living doc that names a module names one that is there (the dated results
    keep the names of their day)."""
    package = ROOT / "harness" / "tradebench_harness"
    sources = [*package.rglob("*.py"), *(ROOT / "harness" / "tests").glob("*.py"), ROOT / "README.md",
               ROOT / "harness" / "README.md", *(ROOT / "docs").glob("*.md")]
    missing = sorted(f"{src.relative_to(ROOT)}: {m}" for src in sources for m in named_modules(src.read_text())
                     if not (package / m).is_file())
    assert not missing, "modules named that do not exist: " + "; ".join(missing)


def test_the_rule_above_reads_a_module_named_in_a_sentence():
    assert named_modules("as report/tables.py draws it, and analysis/bounds.py's bound; not runs.csv") == {
        "report/tables.py", "analysis/bounds.py"}
