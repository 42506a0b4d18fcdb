"""The harness's modules import each other without a cycle: each module has one job, and a module's job
never needs one that needs it back. The graph is read from the source with ast (nothing is imported), and
counts every import, also those inside a function: a cycle hidden in a function is still a cycle."""
import ast
from pathlib import Path

PACKAGE = Path(__file__).resolve().parents[1] / "tradebench_harness"


def imports_of(path: Path, package: str, modules: set[str]) -> set[str]:
    """The modules of PACKAGE (MODULES: their names) that the module at PATH imports, wherever it does."""
    out = set()
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.ImportFrom):
            if node.level == 1 or node.module == package or (node.module or "").startswith(package + "."):
                base = (node.module or "") if node.level == 1 else (node.module or "")[len(package) + 1:]
                if base:                             # from .x import y / from package.x import y
                    out.add(base.split(".")[0])
                else:                                # from . import x, y / from package import x, y
                    out.update(a.name for a in node.names)
        elif isinstance(node, ast.Import):
            out.update(a.name.split(".")[1] for a in node.names if a.name.startswith(package + "."))
    return {m for m in out if m in modules and m != path.stem}


def import_graph(folder: Path) -> dict[str, set[str]]:
    """Module name -> the package's modules it imports, for the package in FOLDER."""
    modules = {p.stem for p in folder.glob("*.py")}
    return {p.stem: imports_of(p, folder.name, modules) for p in sorted(folder.glob("*.py"))}


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
            group = set()
            while True:
                w = stack.pop()
                on_stack.discard(w)
                group.add(w)
                if w == v:
                    break
            if len(group) > 1:
                groups.append(group)

    for v in sorted(graph):
        if v not in index:
            visit(v)
    return [cycle_in(graph, g) for g in groups]


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
    assert {"results", "report", "stats", "tables", "figures"} <= set(graph)
    found = cycles(graph)
    assert not found, "import cycles among the harness's modules: " + "; ".join(" → ".join(c) for c in found)


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
             "f.py": "from . import a, f\nimport os\n"}          # importing itself is no cycle among modules
    for name, text in files.items():
        (pkg / name).write_text(text)
    graph = import_graph(pkg)
    assert graph["f"] == {"a"}
    assert sorted(cycles(graph)) == [["a", "b", "c", "a"], ["d", "e", "d"]]
    (pkg / "c.py").write_text("import os\n")
    assert cycles(import_graph(pkg)) == [["d", "e", "d"]]
