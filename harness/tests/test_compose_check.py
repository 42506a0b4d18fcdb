"""The docker-compose static check (tradebench_harness.compose_check): it passes on a copy of
the tree and fails on copies broken one thing at a time, naming what is broken. The file is
resolved by the official Compose CLI (tradebench_harness/run/tools.py installs it): without it these
tests fail."""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path

import pytest
import yaml

from tradebench_harness.suites import compose_check

pytestmark = pytest.mark.system   # needs the Compose CLI that the system tier installs

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
def cli() -> str:
    command = compose_check.compose_cli()
    if command is None:
        pytest.fail("no Compose CLI: TB_COMPOSE is not set and tools/bin/docker-compose is missing "
                    "(./tradebench compose-check installs it)")
    return command


@pytest.fixture
def tree(pristine, tmp_path) -> Path:
    t = tmp_path / "t"
    shutil.copytree(pristine, t, symlinks=True)
    return t


def dockerfile(tree: Path, service: str) -> Path:
    """The Dockerfile SERVICE is built from, as the Compose CLI resolves the copy's docker-compose.yml."""
    doc, complaint = compose_check.compose_config(compose_check.compose_cli(), tree)
    assert doc is not None, complaint
    build = doc["services"][service]["build"]
    return Path(build["context"]) / build.get("dockerfile", "Dockerfile")


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
    ("the mysql service removed, and what depends on it",
     lambda t: yaml_edit(t, "del doc['services']['mysql']; [s.pop('depends_on', None) for s in doc['services'].values()]"),
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
     'service "java-threads" depends on undefined service "mysqld"'),
    ("mysql without a healthcheck", lambda t: yaml_edit(t, "del doc['services']['mysql']['healthcheck']"),
     "service mysql: no healthcheck"),
    # Dockerfiles and the paths they COPY
    ("a Dockerfile removed", lambda t: dockerfile(t, "node-engine").unlink(),
     re.compile(r"service node-engine: Dockerfile \S+ does not exist")),
    ("a build context that does not exist",
     lambda t: yaml_edit(t, "doc['services']['java-threads']['build']['context'] = 'java-threadz'"),
     "build context java-threadz does not exist"),
    ("a COPY of a path that does not exist",
     lambda t: edit_file(dockerfile(t, "java-akka"), add_copy_after_first_from),
     "COPY no-such-dir: no such path"),
    ("the shared Java Dockerfile removed", lambda t: (t / "docker" / "java.Dockerfile").unlink(),
     "service java-spray-async: Dockerfile docker/java.Dockerfile does not exist"),
    # the Java images' build argument MODULE
    ("a Java variant built without its MODULE",
     lambda t: yaml_edit(t, "del doc['services']['java-virtual']['build']['args']"),
     "docker/java.Dockerfile (java-virtual): mvn -pl ${MODULE} uses ${MODULE}, which has no value"),
    ("a Java variant whose MODULE is another variant",
     lambda t: yaml_edit(t, "doc['services']['java-threads']['build']['args'] = {'MODULE': 'java-akka'}"),
     "service java-threads: its image builds java-akka, not java-threads"),
    ("a MODULE that is no module of the root pom",
     lambda t: yaml_edit(t, "doc['services']['java-akka']['build']['args'] = {'MODULE': 'java-akk'}"),
     "mvn -pl java-akk: not a module of the root pom"),
    ("a build argument the Dockerfile does not declare",
     lambda t: yaml_edit(t, "doc['services']['java-akka']['build']['args']['MODUL'] = 'java-akka'"),
     "service java-akka passes the build argument MODUL, which no ARG declares"),
    ("a build argument declared before FROM only (a stage does not see it)",
     lambda t: edit_file(t / "docker" / "java.Dockerfile", lambda s: s.replace("\nARG MODULE\nWORKDIR", "\nWORKDIR", 1)
                         .replace("\nFROM maven", "\nARG MODULE\nFROM maven", 1)),
     "mvn -pl ${MODULE} uses ${MODULE}, which no ARG of its stage declares"),
    ("a source folder gone from the tree", lambda t: shutil.rmtree(t / "engine-model" / "src"),
     "-am needs engine-model/src: no such path"),
    ("the Akka HTTP designs' shared module gone: the cluster members' image builds on it",
     lambda t: shutil.rmtree(t / "engine-spray" / "src"),
     "(java-spray-async-a): mvn -pl java-spray-cluster -am needs engine-spray/src: no such path"),
    ("the Akka HTTP designs' shared module gone: its Pekko build, under the Pekko members, is generated from it",
     lambda t: shutil.rmtree(t / "engine-spray" / "src"),
     "(java-spray-async-pekko-a): mvn -pl java-spray-cluster/pekko -am needs engine-spray/src: no such path"),
    ("node-engine's lock file gone", lambda t: (t / "node-engine" / "package-lock.json").unlink(),
     "COPY node-engine/package-lock.json: no such path"),
    ("a source folder excluded by .dockerignore",
     lambda t: edit_file(t / ".dockerignore", lambda s: s + "engine-model/src\n"),
     "-am needs engine-model/src: excluded by .dockerignore"),
    (".dockerignore removed", lambda t: (t / ".dockerignore").unlink(),
     "does not exclude engine-model/target"),
    ("a root pom module missing from the tree the Maven build stage copies",
     lambda t: edit_file(t / "pom.xml", lambda s: s.replace(
         "<module>loadclient</module>", "<module>loadclient</module><module>new-module</module>")),
     "needs new-module/pom.xml: no such path"),
    ("an image running as root",
     lambda t: edit_file(dockerfile(t, "loadclient"), lambda s: re.sub(r"(?m)^USER.*\n", "", s)),
     "(loadclient): the final stage runs as root"),
    ("a base image without a version",
     lambda t: edit_file(dockerfile(t, "java-threads"),
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
    ("an env file with a name not in contract section 5",
     lambda t: ((t / "extra.env").write_text("DB_HOSTNAME=mysql\n"),
                yaml_edit(t, "doc['services']['java-akka']['env_file'] = ['extra.env']")),
     "service java-akka: environment name DB_HOSTNAME"),
    ("an env file that does not exist",
     lambda t: yaml_edit(t, "doc['services']['java-akka']['env_file'] = ['missing.env']"),
     re.compile(r"rejects docker-compose.yml: env file \S+/missing.env not found")),
    ("a named volume not declared", lambda t: yaml_edit(t, "del doc['volumes']"),
     re.compile(r'rejects docker-compose.yml: service "mysql" refers to undefined volume mysql-data')),
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
     re.compile(r"rejects docker-compose.yml: yaml: line \d+: did not find expected node content")),
    ("a duplicate key", lambda t: edit_file(t / "docker-compose.yml", lambda s: s + "name: again\n"),
     re.compile(r'rejects docker-compose.yml: .*mapping key "name" already defined')),
]


def test_the_intact_tree_passes(tree, cli):
    assert compose_check.check(tree, cli=cli) == []


def test_the_real_file_passes(cli):
    report = compose_check.run(REPO, cli=cli)
    assert report.problems == []
    assert report.services >= 6


def test_the_same_file_rewritten_passes(tree, cli):
    yaml_edit(tree, "pass")
    assert compose_check.check(tree, cli=cli) == []


def said(says, problem: str) -> bool:
    return bool(says.search(problem)) if isinstance(says, re.Pattern) else says in problem


@pytest.mark.parametrize("name,breaks,says", CASES, ids=[c[0] for c in CASES])
def test_a_broken_copy_is_caught(tree, cli, name, breaks, says):
    breaks(tree)
    problems = compose_check.check(tree, cli=cli)
    assert problems, f"{name}: the check passed"
    assert any(said(says, p) for p in problems), f"{name}: the check did not say {says!r}: {problems}"


def test_the_cli_catches_what_compose_itself_rejects(tree, cli):
    # Not a rule of the project: Compose's own schema, which only the CLI knows.
    yaml_edit(tree, "doc['services']['java-threads']['restart_policy'] = 'always'")
    problems = compose_check.check(tree, cli=cli)
    assert any("rejects docker-compose.yml" in p and "restart_policy" in p for p in problems), problems


def test_the_cli_resolves_profiles_and_interpolation(tree, cli, monkeypatch):
    # A variant behind a profile is still seen (every profile is on), and ${VAR:-default} resolves
    # to its default whatever the caller's shell holds.
    monkeypatch.setenv("TRADEBENCH_DB_HOST", "elsewhere")
    yaml_edit(tree, "doc['services']['java-akka']['profiles'] = ['extra']")
    problems = compose_check.check(tree, cli=cli)
    assert any("service java-akka: behind a profile" in p for p in problems), problems
    doc, complaint = compose_check.compose_config(cli, REPO)
    assert complaint == ""
    assert doc["services"]["java-threads"]["environment"]["DB_HOST"] == "mysql"
    assert "loadclient" in doc["services"] and "toxiproxy" in doc["services"]


def test_variants_are_the_folders_holding_a_variant_yaml(tree, cli):
    from tradebench_harness.run.variants import discover
    assert compose_check.discover_variants(tree) == sorted(v.name for v in discover(tree))
    assert {"java-threads", "java-akka", "java-spray-async", "node-engine", "java-virtual"} <= set(compose_check.discover_variants(tree))
    assert "loadclient" not in compose_check.discover_variants(tree)
    # a new variant: its folder holds a variant.yaml (and no Dockerfile: images may be shared); it needs its service
    (tree / "rust-engine").mkdir()
    manifest = (tree / "java-threads" / "variant.yaml").read_text()
    (tree / "rust-engine" / "variant.yaml").write_text(manifest.replace("name: java-threads", "name: rust-engine"))
    assert "service rust-engine is missing" in compose_check.check(tree, cli=cli), "a new variant needs its service"


def test_the_java_images_share_one_dockerfile_with_their_module(tree, cli):
    doc = yaml.safe_load((tree / "docker-compose.yml").read_text())
    built = {v: v for v in ("java-threads", "java-akka", "java-spray-async", "java-virtual")}
    built.update({f"java-spray-async-{m}": "java-spray-cluster" for m in "abc"})
    for service, module in built.items():
        build = doc["services"][service]["build"]
        assert build["dockerfile"] == "docker/java.Dockerfile" and build["args"] == {"MODULE": module}, build
        assert not (tree / module / "Dockerfile").exists(), f"{module}/Dockerfile would be a second copy"
    # the list form of build args is read too (the CLI writes it as a map)
    yaml_edit(tree, "doc['services']['java-akka']['build']['args'] = ['MODULE=java-akka']")
    assert compose_check.check(tree, cli=cli) == []
    # Docker's proxy arguments need no ARG
    yaml_edit(tree, "doc['services']['java-akka']['build']['args'] = ['MODULE=java-akka', 'HTTP_PROXY=http://proxy:3128']")
    assert compose_check.check(tree, cli=cli) == []
    yaml_edit(tree, "doc['services']['java-akka']['build']['args'] = ['MODULE=java-virtual']")
    assert "service java-akka: its image builds java-virtual, not java-akka (build: args: MODULE?)" in \
        compose_check.check(tree, cli=cli)


SHARED = """# syntax=docker/dockerfile:1
ARG JDK=25
ARG JRE_TAG=:25.0.3_9-jre
FROM maven:3.9.11-eclipse-temurin-${{JDK}} AS build
ARG MODULE
ARG LIB=engine-model
WORKDIR /src
COPY pom.xml ./
{module_poms}
COPY ${{LIB}}/src ${{LIB}}/src
COPY engine-wire/src engine-wire/src
COPY engine-jdbc/src engine-jdbc/src
COPY engine-servlet/src engine-servlet/src
COPY engine-threads/src engine-threads/src
COPY ${{MODULE}}/src ${{MODULE}}/src
RUN mvn -B -q -DskipTests -pl ${{MODULE}} -am package && cp ${{MODULE}}/target/${{MODULE}}.jar /app.jar

FROM eclipse-temurin${{JRE_TAG}}
COPY --from=build /app.jar /app/app.jar
USER nobody
"""


def share_one_dockerfile(tree: Path, module_of: dict) -> None:
    """java-threads and java-akka built from one Dockerfile at the root, each with its build arg MODULE."""
    # every module of the tree's root pom (Maven reads them all), as docker/java.Dockerfile copies them
    modules = re.findall(r"<module>([\w./-]+)</module>", (tree / "pom.xml").read_text())
    (tree / "servlet.Dockerfile").write_text(SHARED.format(
        module_poms="\n".join(f"COPY {m}/pom.xml {m}/" for m in modules)))
    for service, module in module_of.items():
        yaml_edit(tree, f"doc['services']['{service}']['build'] = "
                        f"{{'context': '.', 'dockerfile': 'servlet.Dockerfile', 'args': {{'MODULE': '{module}'}}}}")


def test_services_sharing_one_dockerfile_are_checked_with_their_build_args(tree, cli):
    share_one_dockerfile(tree, {"java-threads": "java-threads", "java-akka": "java-akka"})
    assert compose_check.check(tree, cli=cli) == []
    # the build arg decides what is copied and built: a wrong one is caught for its service only
    share_one_dockerfile(tree, {"java-threads": "java-threads", "java-akka": "java-akkka"})
    problems = compose_check.check(tree, cli=cli)
    assert any("(java-akka): COPY java-akkka/src: no such path" in p for p in problems), problems
    assert any("(java-akka): mvn -pl java-akkka: not a module" in p for p in problems), problems
    assert not any("(java-threads)" in p for p in problems), problems
    # an ARG's default in a stage, and a global ARG in FROM
    edit_file(tree / "servlet.Dockerfile", lambda s: s.replace("ARG LIB=engine-model", "ARG LIB=engine-modell")
              .replace("ARG JRE_TAG=:25.0.3_9-jre", "ARG JRE_TAG="))
    problems = compose_check.check(tree, cli=cli)
    assert any("(java-threads): COPY engine-modell/src: no such path" in p for p in problems), problems
    assert any("(java-threads): base image eclipse-temurin has no version tag" in p for p in problems), problems
    # a default written in the reference, which the check does not expand: refused, the ARG's default asked for
    edit_file(tree / "servlet.Dockerfile", lambda s: s.replace("COPY ${LIB}/src", "COPY ${LIB:-engine-model}/src"))
    problems = compose_check.check(tree, cli=cli)
    assert any("(java-threads): COPY ${LIB:-engine-model}/src uses ${LIB:-...}: give LIB its default in its ARG" in p
               for p in problems), problems


def test_a_build_target_is_the_final_stage(tree, cli):
    yaml_edit(tree, "doc['services']['java-threads']['build']['target'] = 'build'")
    problems = compose_check.check(tree, cli=cli)
    assert any("(java-threads): the final stage runs as root" in p for p in problems), problems
    yaml_edit(tree, "doc['services']['java-threads']['build']['target'] = 'nothing'")
    problems = compose_check.check(tree, cli=cli)
    assert any("(java-threads): build target nothing is not a stage" in p for p in problems), problems


def test_without_a_cli_the_check_fails(tree, monkeypatch, tmp_path):
    monkeypatch.delenv("TB_COMPOSE", raising=False)
    monkeypatch.setattr(compose_check, "REPO", tmp_path)
    assert compose_check.compose_cli() is None
    (problem,) = compose_check.check(tree)
    assert problem.startswith("no Compose CLI")
    # a program that is not Compose: its failure is the problem
    assert compose_check.check(tree, cli="/bin/false")[0].startswith("'false config' rejects docker-compose.yml")


def test_main_exit_codes(tree, cli, capsys):
    assert compose_check.main([str(tree), "--compose", cli]) == 0
    yaml_edit(tree, "del doc['services']['loadclient']")
    assert compose_check.main([str(tree), "--compose", cli]) == 1
    assert "compose check: service loadclient is missing" in capsys.readouterr().out
