"""`./tradebench test` runs each Node.js variant's node:test suite once per row of its manifest, found from the
manifest alone: a second Node.js variant needs no line in the harness."""
import os

from tradebench_harness.run import context
from tradebench_harness.suites import testrun
from tradebench_harness.suites.steps import Steps

MANIFEST = """name: {name}
runtime: node
build: {{command: [touch, {name}/built], output: {name}/built}}
run: {{command: ["{{node}}", {name}/server.js]}}
settings: {{ENGINES: 4, PERSIST: per-sale, MODE: first}}
dbConnections: ENGINES
rows:
  - {{}}
  - {{MODE: second}}
e2e: [{{}}]
"""

# each run appends the MODE it saw; the test fails when the variant is told to fail
TEST_FILE = """const test = require('node:test');
const assert = require('node:assert');
const fs = require('node:fs');
test('sees its row', () => {
  fs.appendFileSync(__dirname + '/../modes.txt', process.env.MODE + '\\n');
  assert.notStrictEqual(process.env.MODE, process.env.FAIL_IN_MODE);
});
"""


def node_variant(root, name):
    d = root / name
    (d / "test").mkdir(parents=True)
    (d / "variant.yaml").write_text(MANIFEST.format(name=name))
    (d / "test" / "row.test.js").write_text(TEST_FILE)
    return d


def run_node_tests(root, tiers=frozenset({"unit", "integration"}), **env):
    ctx = context.from_env({**os.environ, "TB_ROOT": str(root)})
    steps = Steps()
    saved = dict(os.environ)
    os.environ.update(env)
    try:
        testrun.node_tests(ctx, steps, set(tiers))
    finally:
        os.environ.clear()
        os.environ.update(saved)
    return steps


def test_each_node_variant_runs_its_suite_once_per_row_with_that_rows_settings(tmp_path):
    a, b = node_variant(tmp_path, "js-one"), node_variant(tmp_path, "js-two")
    steps = run_node_tests(tmp_path)
    assert steps.passed == 4 and not steps.failed
    for d in (a, b):
        assert (d / "built").exists(), "the manifest's build ran first"
        assert (d / "modes.txt").read_text().split() == ["first", "second"]


def test_a_failing_row_fails_its_own_step_and_names_its_setting(tmp_path):
    node_variant(tmp_path, "js-one")
    steps = run_node_tests(tmp_path, FAIL_IN_MODE="second")
    assert steps.passed == 1
    assert steps.failed == ["js-one tests (MODE=second)"]


def test_a_setting_the_caller_pins_runs_that_row_alone(tmp_path):
    d = node_variant(tmp_path, "js-one")
    steps = run_node_tests(tmp_path, MODE="second")
    assert steps.passed == 1 and not steps.failed
    assert (d / "modes.txt").read_text().split() == ["second"]


def test_a_failed_build_fails_the_variants_tests(tmp_path):
    d = node_variant(tmp_path, "js-one")
    (d / "variant.yaml").write_text(MANIFEST.format(name="js-one").replace("[touch, js-one/built]", "[\"false\"]"))
    steps = run_node_tests(tmp_path)
    assert steps.passed == 0 and len(steps.failed) == 1 and "build of js-one failed" in steps.failed[0]
    assert not (d / "modes.txt").exists()
