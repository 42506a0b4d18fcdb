"""The harness's modules import each other without a cycle, and its rooms are layered: each module has one
job, and a module's job never needs one that needs it back. The graph is read from the source with ast
(nothing is imported), and counts every import, also those inside a function: a cycle hidden in a function
is still a cycle."""
import ast
from pathlib import Path

PACKAGE = Path(__file__).resolve().parents[1] / "tradebench_harness"

#: the rooms of the package and the rooms each may import; none imports one that imports it
ROOMS = {
    "record": set(),                                # the results record and parameter file: types, read, write
    "run": {"record"},                              # processes, the database, tools, builds, the variants as run
    "analysis": {"run", "record"},                  # intervals, verdicts, a document's rows, Little's law's bound
    "model": {"record", "analysis"},                # the model: predictions from records; it starts and measures nothing
    "report": {"run", "model", "record", "analysis"},  # results documents, tables, charts, the answer
    "measure": {"run", "model", "record", "analysis"},  # one measurement path: start, verify, warm, windows
    "suites": {"run", "record"},                    # the test suites: e2e, fuzz, reliability, cluster, ...
    "site": {"report", "analysis", "record"},       # every run on one static site: the answer, indexes, pairs
    "cli": {"run", "report", "measure", "model", "suites", "record", "analysis", "site"},
}


def module_names(folder: Path) -> dict[str, Path]:
    """Dotted module name (relative to the package) -> its file; a package's __init__ by the package's name."""
    out = {}
    for p in folder.rglob("*.py"):
        parts = list(p.relative_to(folder).with_suffix("").parts)
        if parts[-1] == "__init__":
            parts = parts[:-1]
        if parts:
            out[".".join(parts)] = p
    return out


def imports_of(path: Path, folder: Path, modules: set[str]) -> set[str]:
    """The modules of the package in FOLDER (MODULES: their dotted names) that the module at PATH imports."""
    package = folder.name
    me = list(path.relative_to(folder).with_suffix("").parts)
    here = me[:-1]                                   # the package the module is in
    out = set()

    def add(base: list[str], names):
        target = ".".join(base)
        for n in names:                              # from x import name: a module, or a name of module x
            sub = ".".join([*base, n])
            out.add(sub if sub in modules else target)

    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.ImportFrom):
            if node.level:
                base = here[:len(here) - (node.level - 1)] + ((node.module or "").split(".") if node.module else [])
            elif node.module == package or (node.module or "").startswith(package + "."):
                base = node.module.split(".")[1:]
            else:
                continue
            add(base, [a.name for a in node.names])
        elif isinstance(node, ast.Import):
            out.update(a.name.split(".", 1)[1] for a in node.names if a.name.startswith(package + "."))
    name = ".".join(me[:-1] if me[-1] == "__init__" else me)
    return {m for m in out if m in modules and m != name}


def import_graph(folder: Path) -> dict[str, set[str]]:
    """Dotted module name -> the package's modules it imports, for the package in FOLDER."""
    mods = module_names(folder)
    return {name: imports_of(p, folder, set(mods)) for name, p in sorted(mods.items())}


def cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """One cycle ([a, b, ..., a]) through each strongly connected group of modules that has one (Tarjan)."""
    index, low, stack, on_stack, groups = {}, {}, [], set(), []

    def visit(v):
        index[v] = low[v] = len(index)
        stack.append(v)
        on_stack.add(v)
        for w in sorted(graph.get(v, ())):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            group = pop_group(stack, on_stack, v)
            if len(group) > 1:
                groups.append(group)

    for v in sorted(graph):
        if v not in index:
            visit(v)
    return [cycle_in(graph, g) for g in groups]


def pop_group(stack: list[str], on_stack: set[str], v: str) -> set[str]:
    """The strongly connected group whose root is V: the STACK's modules down to V, taken off it."""
    group = set()
    while True:
        w = stack.pop()
        on_stack.discard(w)
        group.add(w)
        if w == v:
            return group


def cycle_in(graph: dict[str, set[str]], group: set[str]) -> list[str]:
    """A shortest cycle through the first module (by name) of GROUP, a strongly connected group (breadth first)."""
    start = min(group)
    paths = {start: [start]}
    queue = [start]
    while queue:
        v = queue.pop(0)
        for w in sorted(graph[v] & group):
            if w == start:
                return paths[v] + [start]
            if w not in paths:
                paths[w] = paths[v] + [w]
                queue.append(w)
    raise AssertionError(f"{sorted(group)} is not strongly connected")


def test_the_harness_modules_import_each_other_without_a_cycle():
    graph = import_graph(PACKAGE)
    assert {"report.results", "report.page", "analysis.stats", "measure.figures", "run.process"} <= set(graph)
    found = cycles(graph)
    assert not found, "import cycles among the harness's modules: " + "; ".join(" → ".join(c) for c in found)


def test_the_package_holds_only_rooms_and_its_entry_point():
    top = {p.name for p in PACKAGE.iterdir() if not p.name.startswith((".", "__pycache__"))}
    assert top - {"__init__.py", "__main__.py"} <= set(ROOMS), "the package's top level: rooms and the entry point only"


def test_each_room_imports_only_the_rooms_below_it():
    wrong = []
    for mod, deps in import_graph(PACKAGE).items():
        room = mod.split(".")[0]
        if room not in ROOMS:
            continue
        for d in deps:
            other = d.split(".")[0]
            if other != room and other not in ROOMS[room]:
                wrong.append(f"{mod} → {d}")
    assert not wrong, "imports against the rooms' layering: " + "; ".join(sorted(wrong))


def test_the_check_names_a_cycle_however_it_is_imported(tmp_path):
    """A package whose cycles go through every form of import, one of them inside a function."""
    pkg = tmp_path / "pkg"
    pkg.mkdir()
    files = {"__init__.py": "",
             "a.py": "from . import b\n",
             "b.py": "def f():\n    from .c import g\n",
             "c.py": "import pkg.a\n",
             "d.py": "from pkg import e\n",
             "e.py": "from pkg.d import x\n",
             "f.py": "from . import a, f\nimport os\n",         # importing itself is no cycle among modules
             "r/__init__.py": "",
             "r/x.py": "from ..a import thing\nfrom . import y\n",
             "r/y.py": "from pkg.r import x\n"}
    (pkg / "r").mkdir()
    for name, text in files.items():
        (pkg / name).write_text(text)
    graph = import_graph(pkg)
    assert graph["f"] == {"a"}
    assert graph["r.x"] == {"a", "r.y"}
    assert sorted(cycles(graph)) == [["a", "b", "c", "a"], ["d", "e", "d"], ["r.x", "r.y", "r.x"]]
    (pkg / "c.py").write_text("import os\n")
    assert cycles(import_graph(pkg)) == [["d", "e", "d"], ["r.x", "r.y", "r.x"]]


def test_the_package_finds_the_repository_without_tb_root():
    """A module that finds the tree from its own file (the context, the compose check) names the repository's
    root wherever its room puts it."""
    from tradebench_harness.run import context
    from tradebench_harness.suites import compose_check
    root = context.from_env({}).root
    assert (root / "pom.xml").is_file() and (root / "docker-compose.yml").is_file(), root
    assert compose_check.REPO == root
