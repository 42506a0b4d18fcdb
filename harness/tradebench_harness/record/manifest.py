"""Variant manifests: every folder of the repository holding a variant.yaml, read and checked.

A manifest says the variant's runtime, how it is built and run, the settings it reads (contract section 5) with
their defaults and the arithmetic between them (`evaluate`), how many database connections it opens, its rows
and its end-to-end configurations. Adding a variant is adding a folder with one; nothing here names a variant.
How a variant is built and started from its manifest is run/variants.py's.
"""
from __future__ import annotations

import ast
import dataclasses
import operator
import os
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TypeVar

import yaml
from typing_extensions import Self, TypedDict

MANIFEST = "variant.yaml"
RUNTIMES = ("java", "node")
#: the suites of ./tradebench test whose rows a manifest chooses (its `suites` key); e2e has its own lines
SUITES = ("fuzz", "reliability", "cluster-test")


class ManifestError(Exception):
    pass


M = TypeVar("M", bound="Manifest")

#: the settings a variant runs with: name -> value, a string as the environment gives it or a manifest's default
#: evaluated (a number, a word; evaluate)
Settings = dict[str, Any]


class Floor(TypedDict):
    """A manifest's floor key: its HTTP framework answering 202 with nothing behind it."""
    name: str
    command: list[str]


@dataclass
class Manifest:
    """A variant.yaml as read and checked: what a variant is, runs with and reads (run/variants.py `Variant`
    adds how it is built and started)."""
    name: str
    folder: Path
    runtime: str
    description: str
    build: dict[str, Any]          # the manifest's build key: command, output, inputs, cwd
    run: list[str]
    settings: dict[str, object]    # name -> its default as the manifest says it (a number, a word, an expression)
    db_connections: str
    e2e: list[dict[str, str]] = field(default_factory=list)
    floor: Floor | None = None      # {name, command}: its HTTP framework answering 202 with nothing behind it
    in_flight: dict[str, str | None] = field(default_factory=dict)   # persist mode -> inserts kept in flight (an expression; bounds.py)
    rows: list[dict[str, str]] = field(default_factory=lambda: [{}])   # the settings of each row it shows in compare and sweeps
    test_dbs: list[str] = field(default_factory=list)   # testDatabases: the databases its own tests use
    # what runs it as cluster members (the manifest's cluster key): the variant with that build and run command;
    # None: it has no cluster mode
    cluster: Self | None = None
    # the manifest's `when` key: (setting, value) -> the variant with that value's own build, run, floor and cluster
    # (java-akka's STACK=pekko runs another jar of the same sources)
    when: dict[tuple[str, str], Self] = field(default_factory=dict)
    # the manifest's `suites` key: a suite of ./tradebench test (fuzz, reliability, cluster-test) -> the rows it runs
    suites: dict[str, list[dict[str, str]]] = field(default_factory=dict)
    label: str = ""   # a value of its `when` key: that row's label (STACK=pekko), shown beside its name
    # the repository it is built and run from: None, this one; a baseline's worktree (run/baseline.py)
    root: Path | None = None

    @property
    def slug(self) -> str:
        """Its title as a file name: java-akka-stack-pekko."""
        return self.name + (f"-{self.label.replace('=', '-').lower()}" if self.label else "")

    @property
    def title(self) -> str:
        """Its name, and the row of its `when` key it runs as: "java-akka (STACK=pekko)"."""
        return f"{self.name} ({self.label})" if self.label else self.name

    @property
    def row_keys(self) -> set[str]:
        """The settings that tell its rows apart (WORKERS for node-engine)."""
        return {k for row in self.rows for k in row}

    def rows_given(self, pinned: Mapping[str, object]) -> list[dict[str, str]]:
        """Its rows, unless PINNED (the caller's environment, a case's settings) names a setting that tells them
        apart: `WORKERS=threads ./tradebench compare` shows node-engine once, as asked."""
        if any(pinned.get(k) not in (None, "") for k in self.row_keys):
            return [{}]
        return self.rows

    def for_settings(self, settings: Mapping[str, object]) -> Self:
        """The variant as SETTINGS run it: where a setting has a value the manifest's `when` key names, that
        value's build, run command, floor and cluster (java-akka with STACK=pekko: its Pekko jar)."""
        chosen = self.effective_settings(settings)
        for (name, value), v in self.when.items():
            if str(chosen.get(name)) == value:
                return v
        return self

    def row_of(self, settings: Mapping[str, object]) -> str:
        """The label of the row SETTINGS run (the settings telling its rows apart that differ from their defaults),
        however they were given: a row of compare, or the caller's environment (`STACK=pekko ./tradebench bench`)."""
        defaults = self.effective_settings({})
        chosen = self.effective_settings(settings)
        return row_label({k: chosen[k] for k in self.row_keys if str(chosen.get(k)) != str(defaults.get(k))})

    def suite_rows(self, suite: str, pinned: Mapping[str, str] | None = None) -> list[dict[str, str]]:
        """The rows SUITE runs it with (the manifest's `suites` key; default its default row alone), unless PINNED
        (the caller's environment) names a setting that tells its rows apart: `STACK=pekko ./tradebench fuzz
        java-akka` runs that row alone."""
        pinned = pinned or {}
        given = {k: pinned[k] for k in self.row_keys if pinned.get(k) not in (None, "")}
        return [given] if given else [dict(r) for r in self.suites.get(suite, [{}])]

    def effective_settings(self, env: Mapping[str, object]) -> Settings:
        """Every setting the variant reads, as it will see it: env wins, else the manifest's default (evaluated)."""
        out: Settings = {}
        for name, default in self.settings.items():
            if env.get(name) not in (None, ""):
                out[name] = env[name]
            else:
                out[name] = evaluate(default, out)
        return out

    def db_connection_count(self, env: Mapping[str, object]) -> int:
        return int(evaluate(self.db_connections, self.effective_settings(env)))

    @property
    def test_databases(self) -> list[str]:
        """The databases its tests use (the manifest's testDatabases; by default TestDatabase.ofThisModule's name,
        TRADER_TEST_<NAME>)."""
        return self.test_dbs or [test_database(self.name)]


def test_database(module: str) -> str:
    """A Maven module's test database, as TestDatabase.ofThisModule names it from its artifact id: java-threads ->
    TRADER_TEST_JAVA_THREADS."""
    return "TRADER_TEST_" + module.upper().replace("-", "_")


_OPS: dict[type[ast.operator], Callable[[Any, Any], Any]] = {ast.Add: operator.add, ast.Sub: operator.sub, ast.Mult: operator.mul, ast.FloorDiv: operator.floordiv,
        ast.Div: operator.floordiv}
_FUNCS: dict[str, Callable[..., Any]] = {"min": min, "max": max}


def evaluate(value: object, names: Mapping[str, object]) -> Any:
    """A default: a number, a word, or arithmetic on earlier settings (ENGINES + 4, min(DB_POOL, 2), cores)."""
    if isinstance(value, (int, float)) or value is None:
        return value
    text = str(value).strip()
    scope: dict[str, object] = {k: v for k, v in names.items()}
    scope["cores"] = os.cpu_count() or 1
    try:
        return _evaluate_node(ast.parse(text, mode="eval"), scope)
    except (SyntaxError, KeyError, ValueError):
        return text


def _evaluate_node(node: ast.AST, scope: Mapping[str, object]) -> Any:
    """The value of an expression's NODE: numbers, names of SCOPE, + - * // /, min and max; else KeyError (a name
    not in SCOPE) or ValueError."""
    if isinstance(node, ast.Expression):
        return _evaluate_node(node.body, scope)
    if isinstance(node, ast.Constant) and isinstance(node.value, (int, float)):
        return node.value
    if isinstance(node, ast.Name):
        v = scope[node.id]
        return int(v) if isinstance(v, str) and v.isdigit() else v
    if isinstance(node, ast.BinOp) and type(node.op) in _OPS:
        return _OPS[type(node.op)](_evaluate_node(node.left, scope), _evaluate_node(node.right, scope))
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id in _FUNCS:
        return _FUNCS[node.func.id](*[_evaluate_node(a, scope) for a in node.args])
    raise ValueError(node)


def load(path: Path, kind: type[M]) -> M:
    """The manifest at PATH, as KIND (Manifest, or run/variants.py's Variant)."""
    doc = _read_manifest(path)
    build, run = doc["build"], doc["run"]["command"]
    e2e, in_flight, rows, test_dbs, suites = _settings_lists(path, doc)
    v = kind(
        name=doc["name"], folder=path.parent, runtime=doc["runtime"], description=doc.get("description", ""),
        build=build, run=[str(t) for t in run], settings=doc.get("settings") or {},
        db_connections=str(doc.get("dbConnections", "DB_POOL")),
        e2e=[{str(k): str(v) for k, v in c.items()} for c in e2e],
        in_flight={str(k): (None if v is None else str(v)) for k, v in in_flight.items()},
        rows=rows, test_dbs=test_dbs,
        suites={k: [{str(a): str(b) for a, b in r.items()} for r in rows] for k, rows in suites.items()},
    )
    with_builds(path, v, doc, "")
    _with_when(path, v, doc.get("when") or {})
    return v


def _read_manifest(path: Path) -> dict[str, Any]:
    """The manifest at PATH, its required keys there: name (its folder's), runtime, build and run commands."""
    try:
        doc = yaml.safe_load(path.read_text())
    except yaml.YAMLError as e:
        raise ManifestError(f"{path}: not YAML: {e}") from e
    if not isinstance(doc, dict):
        raise ManifestError(f"{path}: not a mapping")
    folder = path.parent
    missing = [k for k in ("name", "runtime", "build", "run") if k not in doc]
    if missing:
        raise ManifestError(f"{path}: missing {', '.join(missing)}")
    if doc["name"] != folder.name:
        raise ManifestError(f"{path}: name {doc['name']!r} is not the folder's name {folder.name!r}")
    if doc["runtime"] not in RUNTIMES:
        raise ManifestError(f"{path}: runtime must be one of {RUNTIMES} (got {doc['runtime']!r})")
    build = doc["build"]
    if not isinstance(build, dict) or not build.get("command") or not build.get("output"):
        raise ManifestError(f"{path}: build needs command and output")
    doc = {**doc, "run": doc["run"] or {}}
    if not doc["run"].get("command"):
        raise ManifestError(f"{path}: run needs command")
    return doc


def _settings_lists(path: Path, doc: dict[str, Any]) -> tuple[list[dict[str, Any]], dict[str, Any], list[dict[str, str]],
                                                         list[str], dict[str, list[dict[str, Any]]]]:
    """The manifest's e2e, inFlight, rows (as strings), testDatabases and suites, each checked."""
    e2e = doc.get("e2e") or []
    if not isinstance(e2e, list) or not all(isinstance(c, dict) for c in e2e):
        raise ManifestError(f"{path}: e2e must be a list of settings mappings")
    in_flight = doc.get("inFlight") or {}
    if not isinstance(in_flight, dict) or not set(in_flight) <= {"per-sale", "batch"}:
        raise ManifestError(f"{path}: inFlight maps per-sale and batch to an expression of the settings (or null)")
    rows = doc.get("rows") or [{}]
    if not isinstance(rows, list) or not all(isinstance(r, dict) for r in rows):
        raise ManifestError(f"{path}: rows must be a list of settings mappings")
    rows = [{str(k): str(v) for k, v in r.items()} for r in rows]
    test_dbs = doc.get("testDatabases") or []
    if not isinstance(test_dbs, list) or not all(isinstance(n, str) and n.isidentifier() for n in test_dbs):
        raise ManifestError(f"{path}: testDatabases must be a list of database names")
    suites = doc.get("suites") or {}
    if not (isinstance(suites, dict) and set(suites) <= set(SUITES)
            and all(isinstance(r, list) and all(isinstance(x, dict) for x in r) for r in suites.values())):
        raise ManifestError(f"{path}: suites maps {', '.join(SUITES)} to a list of settings mappings")
    return e2e, in_flight, rows, test_dbs, suites


def _with_when(path: Path, v: M, when: object) -> None:
    """V's builds and runs for the values of its `when` key (WHEN: setting -> value -> build and run)."""
    if not (isinstance(when, dict) and all(isinstance(by, dict) and all(isinstance(o, dict) for o in by.values())
                                           for by in when.values())):
        raise ManifestError(f"{path}: when maps a setting to its values, each to its own build and run")
    for name, by_value in when.items():
        for value, o in by_value.items():
            if not (isinstance(o.get("build"), dict) and o["build"].get("command") and o["build"].get("output")
                    and (o.get("run") or {}).get("command")):
                raise ManifestError(f"{path}: when {name}={value} needs build (command and output) and run (command)")
            alt = dataclasses.replace(v, build=o["build"], run=[str(t) for t in o["run"]["command"]], when={},
                                      label=f"{name}={value}")
            v.when[(str(name), str(value))] = with_builds(path, alt, o, f"when {name}={value}: ")


def with_builds(path: Path, v: M, doc: dict[str, Any], where: str) -> M:
    """V with DOC's floor and cluster (a manifest's own, or those of a value of its `when` key)."""
    cluster = doc.get("cluster")
    if cluster is not None and not (isinstance(cluster, dict) and isinstance(cluster.get("build"), dict)
                                    and cluster["build"].get("command") and cluster["build"].get("output")
                                    and (cluster.get("run") or {}).get("command")):
        raise ManifestError(f"{path}: {where}cluster needs build (command and output) and run (command)")
    floor = doc.get("floor")
    if floor is not None and not (isinstance(floor, dict) and floor.get("name") and floor.get("command")
                                  and "{port}" in [str(t) for t in floor["command"]]):
        raise ManifestError(f"{path}: {where}floor needs a name and a command with {{port}}")
    v.floor = {"name": str(floor["name"]), "command": [str(t) for t in floor["command"]]} if floor else None
    v.cluster = None if cluster is None else dataclasses.replace(
        v, build=cluster["build"], run=[str(t) for t in cluster["run"]["command"]], cluster=None, when={})
    return v


def row_label(settings: Mapping[str, object]) -> str:
    """A row's name beside its variant's: its settings that differ from the defaults ("WORKERS=threads")."""
    return " ".join(f"{k}={v}" for k, v in sorted(settings.items()))


def discover(root: Path, kind: type[M]) -> list[M]:
    """Every variant of the repository, in name order, as KIND."""
    return [load(manifest, kind) for manifest in sorted(root.glob(f"*/{MANIFEST}"))]


def by_name(root: Path, names: Iterable[str], kind: type[M]) -> list[M]:
    known = {v.name: v for v in discover(root, kind)}
    out = []
    for n in names:
        if n not in known:
            raise ManifestError(f"unknown variant: {n} (one of: {', '.join(known)})")
        out.append(known[n])
    return out


def select(root: Path, spec: str | None, kind: type[M]) -> list[M]:
    """'all', None or a comma/space separated list of names."""
    if not spec or spec == "all":
        return discover(root, kind)
    return by_name(root, [n for n in spec.replace(",", " ").split() if n], kind)
