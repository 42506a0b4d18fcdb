"""`./tradebench test [--tier unit|integration|system]`: every test of the project, on the private database.

 1. the Java modules' tests (Maven; unit tests and tests against the database),
 2. each Node.js variant's tests (node:test), once per row of its variant.yaml: node-engine's engines as child
    processes, then as worker threads,
 3. end to end: each variant started on its own database and checked with `loadclient verify`,
    once per e2e configuration of its variant.yaml (e2e.py),
 4. the HTTP API fuzzed: Schemathesis against every variant with docs/openapi.yaml, a fixed seed (fuzz.py),
 5. the cluster test: java-spray-async as three cluster members on loopback (cross-member trade, verify,
    kill -9 and SIGTERM under load, one member cut off in a network namespace of its own; cluster_test.py),
 6. the reliability suite (reliability.py),
 7. the static check of docker-compose.yml and the Dockerfiles (compose_check.py, the official Compose CLI),
 8. the harness's own tests (pytest, harness/tests), among them the compose check's test on broken copies
    of the tree and a short real compare of two variants, its report.html looked at in headless Chromium,
 9. the linters, with no finding allowed: javac -Xlint:all -Werror and Checkstyle's size rules (in 1, every
    module's build: scripts/checkstyle.xml), ruff over the harness, ESLint
    over each Node.js variant that has an `npm run lint` and over every other JavaScript file, ShellCheck over
    the launcher, CI's script and scripts/.

The tiers (without --tier: all three, what CI runs):
  unit         Maven's *Test (surefire, -DskipITs), the linters, the Node.js test files that start no
               service, the harness's tests marked neither integration nor system; no database is started
  integration  Maven's *IT (failsafe, -DskipUTs), the Node.js test files that start the service, the
               harness's tests marked integration, on the private database
  system       the variants started and checked: 3 to 7, the harness's tests marked system

Each database test uses a database of its own, created here from schema.sql (test_databases). The last
line counts the steps: `tradebench: N passed, N failed, N skipped`; a step that could not run fails.
"""
from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import time
import traceback
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path

from ..run import build, context, tools
from ..run import db as dbmod
from ..run.context import Context
from ..run.variants import ManifestError, discover, row_label, select, test_database
from . import cluster_test, compose_check, e2e, fuzz, reliability
from .steps import Steps

TIERS = ("unit", "integration", "system")
#: a Node.js variant's test files that start its service (and may store sales): the integration tier's
NODE_SERVICE = re.compile(r"withService|createService|testConfig|testDb")


def say(msg: str) -> None:
    print(f"tradebench: {msg}", file=sys.stderr, flush=True)


def maven_modules(ctx: Context) -> list[str]:
    """The root pom's modules, by artifact id (a module's own, not its parent's): java-akka/pekko is java-akka-pekko."""
    ids = []
    for folder in compose_check.root_modules(str(ctx.root)):
        artifact = compose_check.artifact_id(compose_check.pom_text(str(ctx.root), folder))
        if artifact is None:
            raise ValueError(f"{folder}/pom.xml names no artifactId")
        ids.append(artifact)
    return ids


def test_databases(ctx: Context) -> list[str]:
    """Every database the tests use: each Maven module's and each variant's test database (TestDatabase.ofThisModule,
    one per module: Maven tests modules side by side; a manifest's testDatabases), each variant's fuzz database, the
    end-to-end and cluster tests' databases."""
    names = [test_database(m) for m in maven_modules(ctx)]
    for v in discover(ctx.root):
        names += [*v.test_databases, fuzz.database(v)]
    names += [e2e.E2E_DB, cluster_test.DB_NAME]
    return list(dict.fromkeys(names))


def node_test_files(folder: Path, tier: str) -> list[str]:
    files = sorted((folder / "test").glob("*.test.js"))
    service = [f for f in files if NODE_SERVICE.search(f.read_text())]
    chosen = service if tier == "integration" else [f for f in files if f not in service]
    return [str(f.relative_to(folder)) for f in chosen]


def node_tests(ctx: Context, steps: Steps, tiers: set[str]) -> None:
    """Each Node.js variant's own tests (node:test in its folder), once per row of its manifest: node-engine's
    with its engines as child processes, then as worker threads. One file at a time: the files share one test
    database, and database.test.js counts SALES rows that another file's service would otherwise be adding."""
    for v in discover(ctx.root):
        if v.runtime != "node":
            continue
        try:
            v.ensure_built(ctx)
        except ManifestError as e:
            steps.fail(f"{v.name} tests ({e})")
            continue
        files = ["test/**/*.test.js"] if {"unit", "integration"} <= tiers else \
            node_test_files(v.folder, "unit" if "unit" in tiers else "integration")
        for row in v.rows_given(os.environ):   # a setting the caller pinned: that row alone
            # the settings that tell the rows apart, said outright (the default row's too)
            shown = {k: str(s) for k, s in v.effective_settings({**os.environ, **row}).items() if k in v.row_keys}
            title = f"{v.name} tests{f' ({row_label(shown)})' if shown else ''}"
            say(f"{title}: node --test")
            rc = subprocess.run([ctx.node, "--test", "--test-concurrency=1", "--test-reporter=spec", *files],
                                cwd=v.folder, env={**os.environ, **shown}).returncode
            (steps.ok if rc == 0 else steps.fail)(title)


def suite(steps: Steps, title: str, run: Callable[[], object]) -> None:
    """One of the harness's suites in this process; what it could not finish is a failure."""
    try:
        with timed(title):
            run()
    except Exception as e:   # a suite that stops early has not passed
        traceback.print_exc()
        steps.fail(f"{title} (the harness stopped early: {e})")


def system_tier(ctx: Context, steps: Steps) -> None:
    variants = discover(ctx.root)
    have_client = ctx.loadclient_jar().exists()
    if have_client:
        say("end to end: every variant once per e2e configuration of its variant.yaml (loadclient verify)")
        suite(steps, "end to end", lambda: e2e.run(ctx, variants, steps))
    else:
        steps.skip("end to end (no loadclient jar)")
    say("the HTTP API fuzzed: Schemathesis against every variant with docs/openapi.yaml (fuzz.py)")
    suite(steps, "fuzz", lambda: fuzz.run(ctx, variants, steps, fuzz.seed_of(ctx.env.get("TB_FUZZ_SEED"))))
    if have_client:
        say("the cluster test: java-spray-async as three members (cluster_test.py)")
        try:
            tools.iptables()
        except tools.ToolError as e:
            say(f"{e}: the cluster test's partition scenario will fail")
        suite(steps, "cluster test", lambda: cluster_test.run(ctx, steps, None))
        say("the reliability suite (reliability.py)")
        suite(steps, "reliability suite",
              lambda: reliability.run(ctx, select(ctx.root, ctx.env.get("TB_REL_VARIANTS")), steps))
    else:
        steps.skip("cluster test (no loadclient jar)")
        steps.skip("reliability suite (no loadclient jar)")
    say("docker-compose static check (compose_check.py)")
    try:
        cli = tools.compose(ctx)
    except tools.ToolError as e:
        steps.fail(f"installing the Compose CLI ({e})")
        return
    rc = compose_check.main([str(ctx.root), "--compose", cli])
    (steps.ok if rc == 0 else steps.fail)("docker-compose static check")


def harness_tests(ctx: Context, steps: Steps, tiers: set[str]) -> None:
    """The harness's tests by marker (harness/pytest.ini), one step. pytest's exit 5 (no test collected)
    is a failure, except for the integration tier alone while no test is marked integration."""
    marks = []
    if "unit" in tiers:
        marks.append("not integration and not system")
    if "integration" in tiers:
        marks.append("integration")
    if "system" in tiers:
        marks.append("system")
        try:
            tools.chromium()   # the report test looks at report.html in headless Chromium
        except tools.ToolError as e:
            say(f"{e}: the report test will fail")
    expr = " or ".join(f"({m})" for m in marks)
    say(f"the harness's own tests (pytest harness/tests -m '{expr}')")
    # --durations: the slowest tests named in the log, to keep the suite inside CI's time
    rc = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "--durations=8", "tests",
                         "-m", expr],
                        cwd=ctx.root / "harness").returncode
    if rc == 0:
        steps.ok("harness tests (pytest)")
    elif rc == 5 and tiers == {"integration"}:
        steps.skip("harness tests (pytest: none is marked integration)")
    elif rc == 5:
        steps.fail("harness tests: pytest collected no test in harness/tests")
    else:
        steps.fail(f"harness tests (pytest exit {rc})")


def linters(ctx: Context, steps: Steps) -> None:
    """The unit tier's linters, each with no finding allowed: ruff over the harness (its pyproject.toml); each
    Node.js variant's `npm run lint` where its package.json has that script (ESLint); ESLint over every other
    JavaScript file of the repository (harness/eslint.config.js); ShellCheck over the launcher, CI's script
    and scripts/. The Java modules' is javac's own (-Xlint:all -Werror in the root pom), in the Maven step."""
    rc = subprocess.run([sys.executable, "-m", "ruff", "check", "--no-cache", "."], cwd=ctx.root / "harness").returncode
    (steps.ok if rc == 0 else steps.fail)("ruff check harness" + ("" if rc == 0 else f" (exit {rc})"))
    linted = variant_lints(ctx, steps)
    eslint_the_rest(ctx, steps, linted)
    shellcheck(ctx, steps)


def variant_lints(ctx: Context, steps: Steps) -> list[Path]:
    """Each Node.js variant's `npm run lint`; the folders it linted."""
    linted = []
    for v in discover(ctx.root):
        package = v.folder / "package.json"
        if v.runtime != "node" or not package.exists() or "lint" not in (json.loads(package.read_text()).get("scripts") or {}):
            continue
        v.ensure_built(ctx)      # its packages, ESLint among them
        rc = subprocess.run([tools.npm(ctx), "run", "--silent", "lint"], cwd=v.folder).returncode
        (steps.ok if rc == 0 else steps.fail)(f"{v.name}: npm run lint" + ("" if rc == 0 else f" (exit {rc})"))
        linted.append(v.folder)
    return linted


#: folders that hold no JavaScript of the project's own: installed packages, build output, anything hidden
#: (.git, the state folder .tradebench), and at the top the downloaded tools and the results
FOREIGN = {"node_modules", "target"}
FOREIGN_AT_TOP = {"tools", "results"}


def javascript_files(root: Path) -> list[Path]:
    """Every JavaScript file of the repository (.js, .mjs, .cjs)."""
    found = []
    for folder, dirs, files in os.walk(root):
        top = Path(folder) == root
        dirs[:] = sorted(d for d in dirs if not (d.startswith(".") or d in FOREIGN or (top and d in FOREIGN_AT_TOP)))
        found += [Path(folder) / f for f in sorted(files) if f.endswith((".js", ".mjs", ".cjs"))]
    return found


def eslint_the_rest(ctx: Context, steps: Steps, linted: list[Path]) -> None:
    """ESLint (harness/package.json, harness/eslint.config.js) over every JavaScript file outside the folders
    whose own lint ran."""
    files = [str(f.relative_to(ctx.root)) for f in javascript_files(ctx.root)
             if not any(f.is_relative_to(d) for d in linted)]
    title = f"ESLint over the {len(files)} JavaScript files no variant lints"
    if not files:
        steps.ok(title)
        return
    try:
        eslint = harness_eslint(ctx)
    except (build.BuildError, tools.ToolError) as e:
        steps.fail(f"{title} ({e})")
        return
    rc = subprocess.run([ctx.node, str(eslint), "--max-warnings=0", "--config", "harness/eslint.config.js", "--", *files],
                        cwd=ctx.root).returncode
    (steps.ok if rc == 0 else steps.fail)(title + ("" if rc == 0 else f" (exit {rc})"))


def harness_eslint(ctx: Context) -> Path:
    """ESLint's program, installed from harness/package-lock.json (npm ci) when missing or older than it."""
    build.ensure(ctx, "the harness's ESLint", ["npm", "ci", "--no-audit", "--no-fund", "--loglevel=error"],
                 ["harness/node_modules/.package-lock.json"], ["harness/package-lock.json"], cwd=ctx.root / "harness")
    return ctx.root / "harness" / "node_modules" / "eslint" / "bin" / "eslint.js"


def shell_scripts(root: Path) -> list[str]:
    """The launcher, CI's scripts and every shell script under scripts/: a .sh file, or one that starts a shell."""
    candidates = [root / "tradebench", *sorted((root / ".ci").glob("*")), *sorted((root / "scripts").rglob("*"))]
    return [str(p.relative_to(root)) for p in candidates if p.is_file() and (p.suffix == ".sh" or _starts_a_shell(p))]


def _starts_a_shell(path: Path) -> bool:
    with path.open("rb") as f:
        return re.match(rb"#!\s*/\S*(/env\s+)?(ba|da|k)?sh\b", f.readline()) is not None


def shellcheck(ctx: Context, steps: Steps) -> None:
    """ShellCheck (Debian's package) over the shell scripts, following what they source (-x)."""
    files = shell_scripts(ctx.root)
    title = f"shellcheck ({', '.join(files)})"
    try:
        binary = tools.shellcheck()
    except tools.ToolError as e:
        steps.fail(f"{title} ({e})")
        return
    rc = subprocess.run([binary, "--external-sources", "--", *files], cwd=ctx.root).returncode
    (steps.ok if rc == 0 else steps.fail)(title + ("" if rc == 0 else f" (exit {rc})"))


def use_test_databases(ctx: Context) -> Context:
    """Starts the private database, creates every test database, and names it in the environment of what
    follows (contract section 5); TB_REQUIRE_DB: node-engine's database tests fail, not skip, without it."""
    dbmod.start_private(ctx, quiet=False)
    for name in test_databases(ctx):
        dbmod.apply_schema(ctx, name)
    os.environ.update(DB_HOST="127.0.0.1", DB_PORT=str(ctx.db_port), DB_USER=dbmod.USER, DB_PASSWORD=dbmod.PASSWORD,
                      TB_REQUIRE_DB="1")
    return context.from_env()


@contextmanager
def timed(part: str) -> Iterator[None]:
    """Says how long PART took: the log shows where the suite's time goes (CI stops it at its limit)."""
    t0 = time.monotonic()
    try:
        yield
    finally:
        say(f"{part} took {time.monotonic() - t0:.0f} s")


def run(ctx: Context, tiers: set[str], label: str) -> int:
    steps = Steps()
    with dbmod.owned(ctx):   # what the tests started, they stop (before the last line)
        run_steps(ctx, steps, tiers, label)
    return steps.close("tradebench")


def run_steps(ctx: Context, steps: Steps, tiers: set[str], label: str) -> None:
    if tiers & {"integration", "system"}:
        try:
            ctx = use_test_databases(ctx)
        except (dbmod.DbError, tools.ToolError) as e:
            steps.fail(f"the private database ({e})")
            return
    else:
        for k in ("DB_HOST", "DB_PORT", "DB_USER", "DB_PASSWORD", "TB_REQUIRE_DB"):
            os.environ.pop(k, None)
        ctx = context.from_env()
    flags = [] if {"unit", "integration"} <= tiers else ["-DskipITs"] if "unit" in tiers else \
        ["-DskipUTs"] if "integration" in tiers else ["-DskipTests"]
    say(f"Java modules: build and test (Maven{' ' + ' '.join(flags) if flags else ''})")
    with timed("Java modules"):
        try:
            if tiers & {"unit", "integration"}:
                # -T 1C: modules that do not depend on each other build and test side by side, one per CPU (their
                # integration tests wait on the database and on timeouts more than they compute; each module has a
                # test database of its own)
                ok = build.mvn(ctx, "-T", "1C", "--fail-at-end", *flags, "install") == 0
                (steps.ok if ok else steps.fail)(f"Maven tests ({label})")
            elif build.mvn(ctx, *flags, "install") != 0:
                # the system tier tests the built jars: a failed build fails the tier
                steps.fail("Maven build (-DskipTests)")
        except tools.ToolError as e:
            steps.fail(f"Maven tests ({e})")
    if "unit" in tiers:
        with timed("linters"):
            linters(ctx, steps)
    if tiers & {"unit", "integration"}:
        with timed("Node.js variants' tests"):
            node_tests(ctx, steps, tiers)
    if "system" in tiers:
        with timed("the system tier"):
            system_tier(ctx, steps)
    with timed("the harness's own tests"):
        harness_tests(ctx, steps, tiers)
