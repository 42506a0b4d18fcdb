"""The HTTP API fuzzed: Schemathesis (pinned in harness/requirements.txt) runs
docs/openapi.yaml against every variant, each started as the end-to-end test
starts it, on a database of its own (TRADER_FUZZ_<VARIANT>, emptied first),
then stopped with SIGTERM (a clean exit 0 expected).

The checks are every Schemathesis check that applies to an API without
authentication (CHECKS): no 5xx, status codes / content types / headers /
bodies as documented, invalid input rejected with a 4xx, valid input not
rejected, an undocumented method answered 405 with an Allow header, and an
OPTIONS answer's Allow listing exactly the documented methods. The phases are
the schema's examples, the coverage phase (boundaries, missing and malformed
parameters, undocumented methods), MAX_EXAMPLES generated cases per operation,
and the stateful phase: sequences that follow the document's links, from an
accepted order to GET /orders/{id} with its id. The seed is fixed (DEFAULT_SEED) so that CI runs the same cases
every time; `--seed random` (or TB_FUZZ_SEED=random) draws one, printed in
the step's name so that a failure can be replayed with `--seed N`.

One step per variant, naming its figures:
"java-threads: schemathesis seed 20261124: 863 cases, 0 failures (10 s)".
Schemathesis's JSON report and its console output are kept beside the
variant's log in .tradebench/logs/fuzz-<variant>.*.
"""
from __future__ import annotations

import json
import random
import subprocess
import sys
import time
from typing import Any

from ..run import db as dbmod
from ..run import process
from ..run.context import Context
from ..run.variants import ManifestError, Variant
from .steps import Steps

SPEC = "docs/openapi.yaml"
CONFIG = "harness/schemathesis.toml"     # the statuses the contract expects of valid and invalid input
DEFAULT_SEED = 20261124
MAX_EXAMPLES = 60          # generated cases per operation in the fuzzing phase
BUDGET_S = 45              # Schemathesis's time for one variant at MAX_EXAMPLES, at most (it takes 5-15 s on 2 cores)
PHASES = ("examples", "coverage", "fuzzing", "stateful")
CHECKS = (
    "not_a_server_error",
    "status_code_conformance",
    "content_type_conformance",
    "response_headers_conformance",
    "response_schema_conformance",
    "negative_data_rejection",
    "positive_data_acceptance",
    "unsupported_method",
    "allow_header_conformance",
)


def seed_of(text: str | None) -> int:
    """A seed given as a number, or drawn for 'random'; DEFAULT_SEED when none is given."""
    if text in (None, ""):
        return DEFAULT_SEED
    if text == "random":
        return random.SystemRandom().randrange(1, 2**31)
    return int(text)


def schemathesis_argv(ctx: Context, url: str, seed: int, report: str, max_examples: int = MAX_EXAMPLES) -> list[str]:
    return [sys.executable, "-m", "schemathesis.cli", "--config-file", str(ctx.root / CONFIG),
            "run", str(ctx.root / SPEC), "--url", url,
            "--checks", ",".join(CHECKS), "--phases", ",".join(PHASES),
            "--seed", str(seed), "--max-examples", str(max_examples),
            "--workers", "1", "--generation-database", "none", "--request-timeout", "10",
            "--report", "json", "--report-json-path", report, "--no-color"]


def figures(report: dict[str, Any]) -> tuple[int, int]:
    """(test cases run, unique failures) of a Schemathesis JSON report."""
    cases = report.get("test_cases") or {}
    return int(cases.get("generated", 0)), int(cases.get("unique_failures", 0)) + len(report.get("errors") or [])


def database(v: Variant) -> str:
    """The variant's own database (./tradebench test creates it: testrun.test_databases)."""
    return "TRADER_FUZZ_" + v.name.upper().replace("-", "_")


def run_one(ctx: Context, db: dbmod.Database, v: Variant, seed: int, steps: Steps, max_examples: int) -> None:
    log = ctx.logs / f"fuzz-{v.slug}.log"
    out = ctx.logs / f"fuzz-{v.slug}.schemathesis.txt"
    report = ctx.logs / f"fuzz-{v.slug}.schemathesis.json"
    report.unlink(missing_ok=True)
    dbname = database(v)
    if db.private:
        dbmod.create(ctx, dbname)   # ./tradebench test creates it before (DB_HOST set then)
    db.sql("DELETE FROM SALES", dbname)
    try:
        r = process.start_variant(ctx, v, {**db.variant_env(dbname), "ENGINES": "4", "PRODUCTS": "100"}, log)
    except process.NotHealthy as e:
        steps.fail(f"{v.title}: fuzz: {e}")
        return
    t0 = time.monotonic()
    work = ctx.state / "fuzz"     # Schemathesis keeps a cache folder in its working directory
    work.mkdir(parents=True, exist_ok=True)
    rc: int | str
    try:
        with open(out, "wb") as fh:
            rc = subprocess.run(schemathesis_argv(ctx, r.url, seed, str(report), max_examples), stdout=fh,
                                stderr=subprocess.STDOUT, cwd=work,
                                timeout=BUDGET_S * max(1.0, max_examples / MAX_EXAMPLES)).returncode
    except subprocess.TimeoutExpired:
        rc = "timeout"
    seconds = time.monotonic() - t0
    exit_code = r.stop(15)
    name = f"{v.title}: schemathesis seed {seed}"
    if not report.exists() or report.stat().st_size == 0:
        print(out.read_text(errors="replace")[-3000:], flush=True)
        steps.fail(f"{name}: no report (exit {rc} after {seconds:.0f} s; output: {out})")
        return
    cases, failures = figures(json.loads(report.read_text()))
    summary = f"{name}: {cases} cases, {failures} failures ({seconds:.0f} s)"
    if rc == 0 and failures == 0 and cases > 0 and exit_code == 0:
        steps.ok(summary)
    elif exit_code != 0 and rc == 0:
        steps.fail(f"{summary}; exit code {exit_code} after SIGTERM (log: {log})")
    else:
        text = out.read_text(errors="replace")
        start = text.find("FAILURES")
        print(text[start if start >= 0 else 0:][:6000], flush=True)
        steps.fail(f"{summary}; schemathesis exit {rc} (output: {out})")


def run(ctx: Context, variants: list[Variant], steps: Steps, seed: int, max_examples: int | None = None) -> None:
    max_examples = max_examples or MAX_EXAMPLES
    db = dbmod.open_db(ctx)
    for v in variants:
        try:
            v.ensure_built(ctx)
        except ManifestError as e:
            steps.fail(f"{v.name}: build ({e})")
            continue
        for row in v.suite_rows("fuzz", ctx.env):
            run_one(ctx, db, v.for_settings(row), seed, steps, max_examples)
