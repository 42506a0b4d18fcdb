"""The docker-compose static check (tradebench_harness.compose_check): it passes on a copy of
the tree and fails on copies broken one thing at a time, naming what is broken — once with the
file resolved by the Compose CLI, once read by PyYAML (the fallback when no CLI can be had)."""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path

import pytest
import yaml

from tradebench_harness import compose_check

REPO = compose_check.REPO
SKIP = shutil.ignore_patterns(".git", ".tradebench", "results", "tools", "target", "node_modules", "__pycache__",
                              ".pytest_cache")


@pytest.fixture(scope="session")
def pristine(tmp_path_factory) -> Path:
    """A copy of the repository without builds, installs, state and history."""
    dest = tmp_path_factory.mktemp("pristine") / "tree"
    shutil.copytree(REPO, dest, ignore=SKIP, symlinks=True)
    return dest


@pytest.fixture(scope="session")
def cli() -> list[str]:
    notes: list[str] = []
    command = compose_check.find_compose_cli(install=True, notes=notes)
    if command is None:
        pytest.skip("no Compose CLI: " + "; ".join(notes))
    return command


@pytest.fixture(params=["cli", "pyyaml"])
def mode(request):
    """How the file is read: the cli fixture's command, or False (PyYAML)."""
    return request.getfixturevalue("cli") if request.param == "cli" else False


@pytest.fixture
def tree(pristine, tmp_path) -> Path:
    t = tmp_path / "t"
    shutil.copytree(pristine, t, symlinks=True)
    return t


def yaml_edit(tree: Path, code: str) -> None:
    """Edit docker-compose.yml of the copy; `doc` is the parsed file (anchors and merge keys resolved)."""
    path = tree / "docker-compose.yml"
    doc = json.loads(json.dumps(yaml.safe_load(path.read_text())))
    exec(code, {"doc": doc})
    path.write_text(yaml.safe_dump(doc, sort_keys=False))


def edit_file(path: Path, fn) -> None:
    path.write_text(fn(path.read_text()))


def add_copy_after_first_from(text: str) -> str:
    out, done = [], False
    for line in text.splitlines(keepends=True):
        out.append(line)
        if line.startswith("FROM") and not done:
            out.append("COPY no-such-dir /tmp/no-such-dir\n")
            done = True
    return "".join(out)


# (name, how to break the copy, what the check must say)
CASES = [
    # services
    ("a variant service removed", lambda t: yaml_edit(t, "del doc['services']['java-akka']"),
     "service java-akka is missing"),
    ("the mysql service removed", lambda t: yaml_edit(t, "del doc['services']['mysql']"),
     "service mysql is missing"),
    ("the loadclient service removed", lambda t: yaml_edit(t, "del doc['services']['loadclient']"),
     "service loadclient is missing"),
    ("loadclient without a profile", lambda t: yaml_edit(t, "del doc['services']['loadclient']['profiles']"),
     "service loadclient: not behind a profile"),
    ("a variant not waiting for a healthy mysql",
     lambda t: yaml_edit(t, "doc['services']['node-engine']['depends_on'] = ['mysql']"),
     "node-engine: does not depend on mysql with condition: service_healthy"),
    ("depends_on a service that does not exist",
     lambda t: yaml_edit(t, "doc['services']['java-threads']['depends_on'] = {'mysqld': {'condition': 'service_healthy'}}"),
     "depends on mysqld, which is not a service"),
    ("mysql without a healthcheck", lambda t: yaml_edit(t, "del doc['services']['mysql']['healthcheck']"),
     "service mysql: no healthcheck"),
    # Dockerfiles and the paths they COPY
    ("a Dockerfile removed", lambda t: (t / "java-spray-async" / "Dockerfile").unlink(),
     "Dockerfile java-spray-async/Dockerfile does not exist"),
    ("a build context that does not exist",
     lambda t: yaml_edit(t, "doc['services']['java-threads']['build']['context'] = 'java-threadz'"),
     "build context java-threadz does not exist"),
    ("a COPY of a path that does not exist",
     lambda t: edit_file(t / "docker" / "servlet.Dockerfile", add_copy_after_first_from),
     "COPY no-such-dir: no such path"),
    ("the shared servlet Dockerfile removed", lambda t: (t / "docker" / "servlet.Dockerfile").unlink(),
     "service java-akka: Dockerfile docker/servlet.Dockerfile does not exist"),
    # the servlet variants' build argument MODULE
    ("a servlet variant built without its MODULE",
     lambda t: yaml_edit(t, "del doc['services']['java-virtual']['build']['args']"),
     "docker/servlet.Dockerfile (java-virtual): COPY ${MODULE}/src uses ${MODULE}, which has no value"),
    ("a servlet variant whose MODULE is another variant",
     lambda t: yaml_edit(t, "doc['services']['java-threads']['build']['args'] = {'MODULE': 'java-akka'}"),
     "service java-threads: its image builds java-akka, not java-threads"),
    ("a MODULE that is no module of the root pom",
     lambda t: yaml_edit(t, "doc['services']['java-akka']['build']['args'] = {'MODULE': 'java-akk'}"),
     "mvn -pl java-akk: not a module of the root pom"),
    ("a build argument the Dockerfile does not declare",
     lambda t: yaml_edit(t, "doc['services']['java-akka']['build']['args']['MODUL'] = 'java-akka'"),
     "service java-akka passes the build argument MODUL, which no ARG declares"),
    ("a build argument declared before FROM only (a stage does not see it)",
     lambda t: edit_file(t / "docker" / "servlet.Dockerfile", lambda s: s.replace("\nARG MODULE\nRUN case", "\nRUN case", 1)
                         .replace("\nFROM maven", "\nARG MODULE\nFROM maven", 1)),
     "COPY ${MODULE}/src uses ${MODULE}, which no ARG of its stage declares"),
    ("a COPY'd folder gone from the tree", lambda t: shutil.rmtree(t / "engine-model" / "src"),
     "COPY engine-model/src: no such path"),
    ("node-engine's lock file gone", lambda t: (t / "node-engine" / "package-lock.json").unlink(),
     "COPY node-engine/package-lock.json: no such path"),
    ("a COPY'd path excluded by .dockerignore",
     lambda t: edit_file(t / ".dockerignore", lambda s: s + "engine-model/src\n"),
     "COPY engine-model/src: excluded by .dockerignore"),
    (".dockerignore removed", lambda t: (t / ".dockerignore").unlink(),
     "does not exclude engine-model/target"),
    ("a root pom module not copied into the Maven build stage",
     lambda t: edit_file(t / "pom.xml", lambda s: s.replace(
         "<module>loadclient</module>", "<module>loadclient</module><module>new-module</module>")),
     "does not COPY new-module/pom.xml"),
    ("an image running as root",
     lambda t: edit_file(t / "loadclient" / "Dockerfile", lambda s: re.sub(r"(?m)^USER.*\n", "", s)),
     "loadclient/Dockerfile (loadclient): the final stage runs as root"),
    ("a base image without a version",
     lambda t: edit_file(t / "docker" / "servlet.Dockerfile",
                         lambda s: re.sub(r"(?m)^FROM eclipse-temurin:\S*", "FROM eclipse-temurin", s)),
     "base image eclipse-temurin has no version tag"),
    # environment names
    ("an environment name not in contract section 5",
     lambda t: yaml_edit(t, "doc['services']['java-threads']['environment']['DB_HOSTNAME'] = 'mysql'"),
     "service java-threads: environment name DB_HOSTNAME"),
    ("an unknown name in list form",
     lambda t: yaml_edit(t, "doc['services']['node-engine']['environment'] = ['PORT=3000', 'ENGINE=4']"),
     "service node-engine: environment name ENGINE"),
    ("an unknown MYSQL_ name on mysql",
     lambda t: yaml_edit(t, "doc['services']['mysql']['environment']['MYSQL_ROOT_PASSWD'] = 'x'"),
     "service mysql: environment name MYSQL_ROOT_PASSWD"),
    # host ports
    ("two services on one host port",
     lambda t: yaml_edit(t, "doc['services']['node-engine']['ports'] = list(doc['services']['java-akka']['ports'])"),
     "is published by both java-akka and node-engine"),
    ("a variant on the database's host port",
     lambda t: yaml_edit(t, "doc['services']['java-threads']['ports'] = ['127.0.0.1:3316:3000']"),
     "host port 3316/tcp is published by both java-threads and mysql"),
    ("a variant whose PORT is not published",
     lambda t: yaml_edit(t, "doc['services']['java-akka']['ports'] = ['3002:8080']"),
     "java-akka: its PORT 3000 is not published"),
    # the schema mount
    ("the schema mount pointing at another file",
     lambda t: yaml_edit(t, "v = doc['services']['mysql']['volumes']; v[:] = [x.replace('./schema.sql', './pom.xml') for x in v]"),
     "schema.sql is not mounted"),
    ("the schema mount pointing at a missing file",
     lambda t: yaml_edit(t, "v = doc['services']['mysql']['volumes']; v[:] = [x.replace('./schema.sql', './schema-old.sql') for x in v]"),
     "mounted path ./schema-old.sql does not exist"),
    ("the schema mounted outside the init folder",
     lambda t: yaml_edit(t, "v = doc['services']['mysql']['volumes']; "
                            "v[:] = [x.replace('/docker-entrypoint-initdb.d/', '/docker-entrypoint.d/') for x in v]"),
     "schema.sql is not mounted"),
    # the file itself
    ("a YAML syntax error", lambda t: edit_file(t / "docker-compose.yml", lambda s: s + "services: [\n"),
     "does not parse"),
    ("a duplicate key", lambda t: edit_file(t / "docker-compose.yml", lambda s: s + "name: again\n"),
     "duplicate key 'name'"),
]


def test_the_intact_tree_passes(tree, mode):
    assert compose_check.check(tree, cli=mode) == []


def test_the_real_file_passes(mode):
    report = compose_check.run(REPO, cli=mode)
    assert report.problems == []
    assert report.source == ("cli" if mode else "pyyaml")
    assert report.services >= 6


def test_the_same_file_rewritten_passes(tree, mode):
    yaml_edit(tree, "pass")
    assert compose_check.check(tree, cli=mode) == []


@pytest.mark.parametrize("name,breaks,says", CASES, ids=[c[0] for c in CASES])
def test_a_broken_copy_is_caught(tree, mode, name, breaks, says):
    breaks(tree)
    problems = compose_check.check(tree, cli=mode)
    assert problems, f"{name}: the check passed"
    assert any(says in p for p in problems), f"{name}: the check did not say {says!r}: {problems}"


def test_the_cli_catches_what_compose_itself_rejects(tree, cli):
    # Not a rule of the project: Compose's own schema. Only the CLI knows it.
    yaml_edit(tree, "doc['services']['java-threads']['restart_policy'] = 'always'")
    problems = compose_check.check(tree, cli=cli)
    assert any("rejects docker-compose.yml" in p and "restart_policy" in p for p in problems), problems
    assert compose_check.check(tree, cli=False) == [], "PyYAML alone does not know Compose's schema"


def test_the_cli_resolves_profiles_and_interpolation(tree, cli):
    # A variant behind a profile is still seen (every profile is on), and ${VAR:-default} resolves
    # to its default whatever the caller's shell holds.
    yaml_edit(tree, "doc['services']['java-akka']['profiles'] = ['extra']")
    problems = compose_check.check(tree, cli=cli)
    assert any("service java-akka: behind a profile" in p for p in problems), problems
    doc, complaint = compose_check.compose_config(cli, REPO)
    assert complaint == ""
    assert doc["services"]["java-threads"]["environment"]["DB_HOST"] == "mysql"
    assert "loadclient" in doc["services"] and "toxiproxy" in doc["services"]


def test_variants_are_the_folders_with_a_variant_manifest(tree):
    from tradebench_harness.variants import discover
    # the variants the harness finds (a variant.yaml), whether their Dockerfile is their own or shared
    assert compose_check.discover_variants(tree) == sorted(v.name for v in discover(tree))
    assert {"java-threads", "java-akka", "java-spray-async", "node-engine", "java-virtual"} <= set(compose_check.discover_variants(tree))
    assert "loadclient" not in compose_check.discover_variants(tree)
    (tree / "rust-engine").mkdir()
    (tree / "rust-engine" / "variant.yaml").write_text((tree / "node-engine" / "variant.yaml").read_text()
                                                       .replace("name: node-engine", "name: rust-engine"))
    problems = compose_check.check(tree, cli=False)
    assert "service rust-engine is missing" in problems, "a new variant needs its service"


def test_the_servlet_variants_share_one_dockerfile_with_their_module(tree):
    doc = yaml.safe_load((tree / "docker-compose.yml").read_text())
    for v in ("java-threads", "java-akka", "java-virtual"):
        build = doc["services"][v]["build"]
        assert build["dockerfile"] == "docker/servlet.Dockerfile" and build["args"] == {"MODULE": v}, build
        assert not (tree / v / "Dockerfile").exists(), f"{v}/Dockerfile would be a second copy"
    # the list form of build args is read too
    yaml_edit(tree, "doc['services']['java-akka']['build']['args'] = ['MODULE=java-akka']")
    assert compose_check.check(tree, cli=False) == []
    yaml_edit(tree, "doc['services']['java-akka']['build']['args'] = ['MODULE=java-virtual']")
    assert "service java-akka: its image builds java-virtual, not java-akka (build: args: MODULE?)" in \
        compose_check.check(tree, cli=False)


def test_without_a_cli_the_file_is_read_with_pyyaml_and_a_note_says_so(tree, monkeypatch, tmp_path):
    monkeypatch.setattr(compose_check.shutil, "which", lambda *_: None)
    monkeypatch.setattr(compose_check, "_go", lambda: None)
    notes: list[str] = []
    assert compose_check.find_compose_cli(install=True, repo=tmp_path, notes=notes) is None
    assert any("PyYAML instead" in n for n in notes), notes
    monkeypatch.setattr(compose_check, "REPO", tmp_path)
    report = compose_check.run(tree)
    assert report.source == "pyyaml" and report.problems == [] and report.notes


def test_main_exit_codes(tree, capsys):
    assert compose_check.main([str(tree), "--no-cli"]) == 0
    yaml_edit(tree, "del doc['services']['mysql']")
    assert compose_check.main([str(tree), "--no-cli"]) == 1
    assert "compose check: service mysql is missing" in capsys.readouterr().out
