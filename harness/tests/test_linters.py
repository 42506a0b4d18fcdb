"""The unit tier's linters reach every file they are for, and a finding fails the step: ESLint over every
JavaScript file of the repository that no variant lints itself, ShellCheck over the shell scripts, mypy (strict)
over the harness package, and the Java size rules (Checkstyle in every module's build) catch a method too long or
too complex."""
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tradebench_harness.run import build, context
from tradebench_harness.suites import testrun
from tradebench_harness.suites.steps import Steps

ROOT = Path(__file__).resolve().parents[2]


def tracked(*patterns: str) -> set[str]:
    out = subprocess.run(["git", "ls-files", "--", *patterns], cwd=ROOT, capture_output=True, text=True, check=True)
    return set(out.stdout.split())


def test_every_javascript_file_of_the_repository_is_found():
    found = {str(p.relative_to(ROOT)) for p in testrun.javascript_files(ROOT)}
    want = tracked("*.js", "*.mjs", "*.cjs")
    assert "harness/trivial_server.js" in want and want <= found, want - found
    assert not [f for f in found if "node_modules" in f]


def test_the_launcher_cis_script_and_every_script_under_scripts_are_shell_checked():
    scripts = set(testrun.shell_scripts(ROOT))
    assert {"tradebench", ".ci/run"} <= scripts
    assert {f for f in tracked("scripts") if f.endswith(".sh")} <= scripts


def tree_with_harness_eslint(tmp_path: Path) -> Path:
    """A tree of its own with the harness's ESLint configuration and packages (those of this repository)."""
    ctx = context.from_env({**os.environ, "TB_ROOT": str(ROOT)})
    testrun.harness_eslint(ctx)
    (tmp_path / "harness").mkdir()
    for f in ("package.json", "package-lock.json", "eslint.config.js"):
        shutil.copy2(ROOT / "harness" / f, tmp_path / "harness" / f)
    (tmp_path / "harness" / "node_modules").symlink_to(ROOT / "harness" / "node_modules")
    return tmp_path


@pytest.mark.parametrize("source, clean", [
    ("'use strict';\nconst x = 1;\nconsole.log(x);\n", True),
    ("'use strict';\nvar x = 1\nif (x == undefinedName) console.log(x);\n", False),
])
def test_eslint_reaches_a_javascript_file_no_variant_lints_and_fails_on_a_finding(tmp_path, source, clean):
    root = tree_with_harness_eslint(tmp_path)
    (root / "docs" / "js").mkdir(parents=True)
    (root / "docs" / "js" / "page.cjs").write_text(source)
    (root / "node_modules").mkdir()
    (root / "node_modules" / "theirs.js").write_text("var not = ours\n")   # installed packages: not linted
    steps = Steps()
    testrun.eslint_the_rest(context.from_env({**os.environ, "TB_ROOT": str(root)}), steps, [])
    assert (steps.passed, len(steps.failed)) == ((1, 0) if clean else (0, 1))


@pytest.mark.parametrize("body, clean", [('echo "$1"\n', True), ("echo $1\n", False)])
def test_shellcheck_fails_on_a_finding_in_a_script_under_scripts(tmp_path, body, clean):
    (tmp_path / "tradebench").write_text("#!/usr/bin/env bash\nset -eu\n")
    (tmp_path / ".ci").mkdir()
    (tmp_path / "scripts" / "lib").mkdir(parents=True)
    (tmp_path / "scripts" / "lib" / "tool").write_text("#!/bin/sh\n" + body)
    (tmp_path / "scripts" / "notes.txt").write_text("not a script: echo $1\n")
    assert testrun.shell_scripts(tmp_path) == ["tradebench", "scripts/lib/tool"]
    steps = Steps()
    testrun.shellcheck(context.from_env({**os.environ, "TB_ROOT": str(tmp_path)}), steps)
    assert (steps.passed, len(steps.failed)) == ((1, 0) if clean else (0, 1))


def java_method(name: str, lines: int = 3, decisions: int = 0) -> str:
    """A Java method of LINES statements and DECISIONS if-statements (each one more path through it)."""
    body = [f"        x += {i};" for i in range(lines)] + [f"        if (x == {i}) x++;" for i in range(decisions)]
    return f"    static int {name}(int x) {{\n" + "\n".join(body) + "\n        return x;\n    }\n"


def checkstyle_build(tmp_path: Path, methods: str) -> subprocess.CompletedProcess:
    """`mvn validate` of a module of its own whose parent is the repository's pom, with METHODS in its one class:
    the size rules as every module's build runs them (the root pom's checkstyle plugin, scripts/checkstyle.xml)."""
    parent = os.path.relpath(ROOT / "pom.xml", tmp_path)
    (tmp_path / "pom.xml").write_text(
        '<project xmlns="http://maven.apache.org/POM/4.0.0"><modelVersion>4.0.0</modelVersion>'
        f'<parent><groupId>tradebench</groupId><artifactId>tradebench</artifactId><version>1.0.0-SNAPSHOT</version>'
        f'<relativePath>{parent}</relativePath></parent><artifactId>sizes-probe</artifactId></project>\n')
    (tmp_path / "src" / "main" / "java" / "probe").mkdir(parents=True)
    (tmp_path / "src" / "main" / "java" / "probe" / "Sizes.java").write_text(
        "package probe;\n\nfinal class Sizes {\n" + methods + "}\n")
    ctx = context.from_env({**os.environ, "TB_ROOT": str(ROOT)})
    with open(tmp_path / "mvn.log", "wb") as log:
        rc = build.command(ctx, ["mvn", *build.MVN, "validate", f"-Dtradebench.root={ROOT}"], cwd=tmp_path, log=log)
    return subprocess.CompletedProcess([], rc, (tmp_path / "mvn.log").read_text(errors="replace"))


def test_the_java_size_rules_pass_methods_within_eslints_limits(tmp_path):
    # 80 lines (blank and comment lines not counted) and 12 paths (11 ifs): ESLint's limits, met exactly
    longest = java_method("longest", lines=77).replace("{\n", "{\n\n        // not counted\n", 1)
    r = checkstyle_build(tmp_path, longest + java_method("busiest", decisions=11))
    assert r.returncode == 0, r.stdout


def test_the_java_size_rules_fail_the_build_on_a_too_long_and_a_too_complex_method(tmp_path):
    too_long = java_method("tooLong", lines=79)
    r = checkstyle_build(tmp_path, too_long + java_method("tooComplex", decisions=12))
    complex_at = 4 + too_long.count("\n")       # the class's first method is on line 4, the second right after it
    assert r.returncode != 0
    assert re.search(r"Sizes\.java:\[?4[,:]\d+.*MethodLength", r.stdout), r.stdout
    assert re.search(rf"Sizes\.java:\[?{complex_at}[,:]\d+.*CyclomaticComplexity", r.stdout), r.stdout


def mypy(*targets: str) -> subprocess.CompletedProcess:
    """mypy with the harness's configuration (pyproject.toml [tool.mypy]: strict), on TARGETS or, without, on the
    package. Its cache under .tradebench/ makes a repeated run take under a second; from a cold cache, about ten."""
    cache = ROOT / ".tradebench" / "mypy-cache"
    return subprocess.run([sys.executable, "-m", "mypy", "--config-file", "pyproject.toml", "--cache-dir", str(cache),
                           *targets], cwd=ROOT / "harness", capture_output=True, text=True)


def test_mypy_finds_nothing_in_the_harness_package():
    r = mypy()
    assert r.returncode == 0 and "Success" in r.stdout, "mypy's findings:\n" + r.stdout + r.stderr


def test_mypy_fails_on_a_finding_and_names_it(tmp_path):
    (tmp_path / "untyped.py").write_text("def twice(x):\n    return 2 * x\n")
    r = mypy(str(tmp_path / "untyped.py"))
    assert r.returncode == 1 and "untyped.py:1: error" in r.stdout and "[no-untyped-def]" in r.stdout, r.stdout


#: a read of a record's key that makes a renamed or misspelled key 0 without a word: what the record's typed
#: reads replace (record/__init__.py: a required key read plainly, an optional one through an accessor saying
#: what its absence means)
QUIET_ZERO = re.compile(r'get\("[a-zA-Z]*"\) or 0')


def quiet_zero_reads(root: Path) -> list[str]:
    """Every line of a Python file under ROOT that reads a key as QUIET_ZERO does, as path:line."""
    return [f"{p.relative_to(root)}:{i}" for p in sorted(root.rglob("*.py")) if "node_modules" not in p.parts
            for i, line in enumerate(p.read_text().splitlines(), 1) if QUIET_ZERO.search(line)]


def test_no_read_in_the_harness_turns_a_missing_key_into_0():
    assert quiet_zero_reads(ROOT / "harness") == []


def test_a_read_turning_a_missing_key_into_0_is_found_and_named(tmp_path):
    (tmp_path / "pkg").mkdir()
    (tmp_path / "pkg" / "typed.py").write_text('x = run["engines"]\ny = run.get("rate")\n')
    (tmp_path / "pkg" / "quiet.py").write_text('lat = 1\nlat = run.get("dbLatencyMs")' + ' or 0\n')   # not one here
    assert quiet_zero_reads(tmp_path) == ["pkg/quiet.py:2"]
