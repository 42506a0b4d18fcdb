"""Variant manifests: discovery by folder, validation, settings with their defaults."""
import shutil
from pathlib import Path

import pytest

from tradebench_harness.run import context, variants
from tradebench_harness.run.variants import ManifestError

ROOT = Path(__file__).resolve().parents[2]


def test_every_variant_folder_of_the_repository_is_found():
    found = {v.name for v in variants.discover(ROOT)}
    folders = {p.parent.name for p in ROOT.glob("*/variant.yaml")}
    assert found == folders
    assert {"java-threads", "node-engine"} <= found
    for v in variants.discover(ROOT):
        assert v.e2e, f"{v.name} has no e2e configuration"
        assert v.runtime in ("java", "node")
        assert "ENGINES" in v.settings and "PERSIST" in v.settings


def test_a_fifth_variant_needs_only_its_folder(tmp_path):
    for v in variants.discover(ROOT):
        shutil.copytree(v.folder, tmp_path / v.name, ignore=lambda d, names: [n for n in names if n != "variant.yaml"])
    (tmp_path / "go-engine").mkdir()
    (tmp_path / "go-engine" / "variant.yaml").write_text(
        "name: go-engine\nruntime: java\nbuild: {command: [true], output: go-engine/bin}\n"
        "run: {command: [go-engine/bin]}\nsettings: {ENGINES: 4, DB_POOL: ENGINES * 3}\n"
        "dbConnections: DB_POOL\ne2e: [{PERSIST: batch}]\n")
    names = [v.name for v in variants.discover(tmp_path)]
    assert "go-engine" in names and len(names) == len(variants.discover(ROOT)) + 1
    (go,) = variants.select(tmp_path, "go-engine")
    assert go.db_connection_count({}) == 12
    assert go.db_connection_count({"ENGINES": "2"}) == 6
    assert go.e2e == [{"PERSIST": "batch"}]


def test_settings_defaults_are_evaluated_and_the_environment_wins():
    (threads,) = variants.select(ROOT, "java-threads")
    s = threads.effective_settings({"ENGINES": "6"})
    assert s["ENGINES"] == "6" and s["DB_POOL"] == 10 and s["PERSIST"] == "per-sale"
    assert threads.effective_settings({"DB_POOL": "3"})["DB_POOL"] == "3"
    (node,) = variants.select(ROOT, "node-engine")
    assert node.db_connection_count({"ENGINES": "4"}) == 8
    assert node.db_connection_count({"ENGINES": "4", "DB_POOL": "1"}) == 4


@pytest.mark.parametrize("text,error", [
    ("name: other\nruntime: java\nbuild: {command: [x], output: y}\nrun: {command: [x]}\n", "folder"),
    ("name: bad\nruntime: cobol\nbuild: {command: [x], output: y}\nrun: {command: [x]}\n", "runtime"),
    ("name: bad\nruntime: java\nrun: {command: [x]}\n", "missing build"),
    ("name: bad\nruntime: java\nbuild: {command: [x], output: y}\nrun: {command: [x]}\ne2e: [PERSIST=batch]\n", "e2e"),
    ("name: bad\nruntime: java\nbuild: {command: [x], output: y}\nrun: {command: [x]}\nfloor: {name: f, command: [x]}\n",
     "floor"),
    ("name: bad\nruntime: java\nbuild: {command: [x], output: y}\nrun: {command: [x]}\ncluster: {build: {command: [x]}, "
     "run: {command: [x]}}\n", "cluster"),
    ("name: bad\nruntime: java\nbuild: {command: [x], output: y}\nrun: {command: [x]}\ncluster: {build: {command: [x], "
     "output: z}}\n", "cluster"),
    ("name: bad\nruntime: java\nbuild: {command: [x], output: y}\nrun: {command: [x]}\n"
     "when: {STACK: {pekko: {run: {command: [x]}}}}\n", "when STACK=pekko needs build"),
    ("name: bad\nruntime: java\nbuild: {command: [x], output: y}\nrun: {command: [x]}\n"
     "when: {STACK: {pekko: {build: {command: [x], output: z}, run: {command: [x]}, floor: {name: f, command: [x]}}}}\n",
     "when STACK=pekko: floor"),
    ("name: bad\nruntime: java\nbuild: {command: [x], output: y}\nrun: {command: [x]}\nsuites: {bench: [{}]}\n",
     "suites"),
])
def test_a_broken_manifest_is_refused_with_its_reason(tmp_path, text, error):
    (tmp_path / "bad").mkdir()
    (tmp_path / "bad" / "variant.yaml").write_text(text)
    with pytest.raises(ManifestError, match=error):
        variants.discover(tmp_path)


def test_unknown_variant_names_the_known_ones():
    with pytest.raises(ManifestError, match="java-threads"):
        variants.select(ROOT, "cobol-engine")


def test_the_java_command_uses_the_jdk_and_the_jar(ctx):
    (akka,) = variants.select(ROOT, "java-akka")
    cmd = akka.command(ctx)
    assert cmd[0] == ctx.java and cmd[-2] == "-jar" and cmd[-1].endswith("java-akka/target/java-akka.jar")
    assert all(o in cmd for o in ctx.jvm_opts)


def test_the_floors_are_the_variants_own_frameworks_on_the_port_given(ctx):
    """java-threads and java-akka share Tomcat's floor (one name, measured once); node-engine has none of its own."""
    by = {v.name: v for v in variants.discover(ROOT)}
    assert by["java-threads"].floor["name"] == by["java-akka"].floor["name"] == "tomcat"
    assert by["java-spray-async"].floor["name"] == "akka-http" and by["node-engine"].floor is None
    cmd = by["java-spray-async"].floor_command(ctx, 18999)
    assert cmd[0] == ctx.java and cmd[-1] == "18999" and cmd[-2] == "tradebench.spray.TrivialAkkaHttp"
    assert cmd[-3].endswith("java-spray-async/target/java-spray-async.jar")
    assert by["node-engine"].floor_command(ctx, 1) is None


def test_the_cluster_members_are_java_spray_clusters_jar_built_on_its_own_inputs(ctx):
    """The cluster key: java-spray-async's members run java-spray-cluster's jar, rebuilt when it or engine-spray changes;
    the other variants have no cluster mode."""
    by = {v.name: v for v in variants.discover(ROOT)}
    m = by["java-spray-async"].cluster
    assert m is not None and m.name == "java-spray-async" and m.cluster is None
    cmd = m.command(ctx)
    assert cmd[0] == ctx.java and cmd[-2] == "-jar" and cmd[-1].endswith("java-spray-cluster/target/java-spray-cluster.jar")
    assert m.build["output"] == "java-spray-cluster/target/java-spray-cluster.jar"
    assert "java-spray-cluster" in m.build["command"]
    assert {"java-spray-cluster/src/main", "engine-*/src/main"} <= set(m.build["inputs"])
    assert not any(i.startswith("java-spray-async/") for i in m.build["inputs"]), "the members build on engine-spray"
    assert m.settings == by["java-spray-async"].settings
    # the variant's own build and command stay its own jar's
    assert by["java-spray-async"].build["output"] == "java-spray-async/target/java-spray-async.jar"
    assert [n for n, v in by.items() if v.cluster is not None] == ["java-spray-async"]


def test_a_value_of_the_when_key_runs_its_own_build_floor_and_members(ctx):
    """STACK=pekko: the actor variants' Pekko jars (the same sources renamed at build time), their floors and
    members; any other value, and no value, the manifest's own."""
    by = {v.name: v for v in variants.discover(ROOT)}
    akka, spray = by["java-akka"], by["java-spray-async"]
    assert akka.for_settings({}) is akka and akka.for_settings({"STACK": "akka"}) is akka
    pekko = akka.for_settings({"STACK": "pekko", "PERSIST": "batch"})
    assert pekko.name == "java-akka" and pekko.title == "java-akka (STACK=pekko)" and pekko.slug == "java-akka-stack-pekko"
    assert pekko.command(ctx)[-1].endswith("java-akka/pekko/target/java-akka-pekko.jar")
    assert pekko.floor["name"] == "tomcat" and pekko.floor_command(ctx, 1)[-3].endswith("java-akka-pekko.jar")
    assert "scripts/pekko-sources.xml" in pekko.build["inputs"] and pekko.cluster is None and not pekko.when
    sp = spray.for_settings({"STACK": "pekko"})
    assert sp.floor["name"] == "pekko-http" and sp.build["output"].endswith("java-spray-async-pekko.jar")
    assert sp.cluster.command(ctx)[-1].endswith("java-spray-cluster/pekko/target/java-spray-cluster-pekko.jar")
    assert spray.cluster.command(ctx)[-1].endswith("java-spray-cluster/target/java-spray-cluster.jar")
    assert {"STACK": "pekko"} in spray.rows and {"STACK": "pekko"} in akka.rows


def test_a_runs_row_is_named_however_its_settings_were_given():
    """A result says STACK=pekko whether the row came from compare's rows or the caller's environment."""
    by = {v.name: v for v in variants.discover(ROOT)}
    assert by["java-akka"].row_of({"STACK": "pekko", "ENGINES": "4"}) == "STACK=pekko"
    assert by["java-akka"].row_of({"STACK": "akka"}) == by["java-akka"].row_of({}) == ""
    assert by["node-engine"].row_of({"WORKERS": "threads"}) == "WORKERS=threads"


def test_the_suites_run_the_rows_the_manifest_names_or_the_row_pinned():
    by = {v.name: v for v in variants.discover(ROOT)}
    assert by["java-spray-async"].suite_rows("cluster-test") == [{}, {"STACK": "pekko", "scenarios": "kill leave"}]
    assert by["java-akka"].suite_rows("reliability") == [{}]
    assert by["java-threads"].suite_rows("fuzz") == [{}]
    assert by["java-akka"].suite_rows("reliability", {"STACK": "pekko"}) == [{"STACK": "pekko"}]
    assert by["java-threads"].suite_rows("fuzz", {"STACK": "pekko"}) == [{}]   # not a setting of its rows


def test_ensure_built_builds_every_value_of_the_when_key(tmp_path, ctx):
    """A variant is built with what each of its rows runs: the e2e lines and suites start either jar."""
    import dataclasses
    (tmp_path / "v").mkdir()
    (tmp_path / "v" / "variant.yaml").write_text(
        "name: v\nruntime: java\nbuild: {command: [touch, v/a.jar], output: v/a.jar, inputs: [v/variant.yaml]}\n"
        "run: {command: [v/a.jar]}\nsettings: {STACK: a}\nrows: [{}, {STACK: b}]\n"
        "when: {STACK: {b: {build: {command: [touch, v/b.jar], output: v/b.jar, inputs: [v/variant.yaml]}, "
        "run: {command: [v/b.jar]}}}}\n")
    (v,) = variants.discover(tmp_path)
    v.ensure_built(dataclasses.replace(ctx, root=tmp_path))
    assert (tmp_path / "v/a.jar").exists() and (tmp_path / "v/b.jar").exists()
    assert v.for_settings({"STACK": "b"}).run == ["v/b.jar"]


def test_a_variant_without_a_cluster_key_has_no_members():
    from tradebench_harness.run import members
    (akka,) = variants.select(ROOT, "java-akka")
    with pytest.raises(ManifestError, match="no cluster mode"):
        members.member(akka)


def test_a_build_is_needed_when_an_input_is_newer_than_the_output(tmp_path):
    import os
    import time
    (tmp_path / "v").mkdir()
    (tmp_path / "v" / "variant.yaml").write_text(
        "name: v\nruntime: java\nbuild: {command: [true], output: v/out.jar, inputs: [v/src, \"shared-*/src\"]}\n"
        "run: {command: [v/out.jar]}\n")
    for d in ("v/src/a", "shared-x/src/b"):
        (tmp_path / d).mkdir(parents=True)
        (tmp_path / d / "F.java").write_text("x")
    (v,) = variants.discover(tmp_path)
    assert v.needs_build(tmp_path)                      # no output yet
    out = tmp_path / "v" / "out.jar"
    out.write_text("jar")
    past = time.time() - 100
    for f in (tmp_path / "v/src/a/F.java", tmp_path / "shared-x/src/b/F.java"):
        os.utime(f, (past, past))
    assert not v.needs_build(tmp_path)
    os.utime(tmp_path / "shared-x/src/b/F.java", None)  # a shared module's source changed: matched by the glob
    assert v.needs_build(tmp_path)


def test_the_test_databases_are_the_manifests_or_the_modules_default(tmp_path):
    from tradebench_harness.run.variants import test_database
    from tradebench_harness.suites import testrun
    assert test_database("java-threads") == "TRADER_TEST_JAVA_THREADS"
    root = tmp_path
    (root / "pom.xml").write_text("<modules><!-- <module>gone</module> --><module>engine-model</module>"
                                  "<module>alpha</module><module>alpha/pekko</module></modules>")
    # a module's test database is named for its own artifact id, not its parent's nor its folder's
    for folder, artifact in (("engine-model", "engine-model"), ("alpha", "alpha"), ("alpha/pekko", "alpha-pekko")):
        (root / folder).mkdir(parents=True, exist_ok=True)
        (root / folder / "pom.xml").write_text(f"<project><parent><artifactId>tradebench</artifactId></parent>"
                                               f"<artifactId>{artifact}</artifactId></project>")
    (root / "schema.sql").write_text("")
    for name, extra in (("alpha", ""), ("beta", "testDatabases: [TRADER_BETA_ONE, TRADER_BETA_TWO]\n")):
        (root / name).mkdir(exist_ok=True)
        (root / name / "variant.yaml").write_text(
            f"name: {name}\nruntime: java\nbuild: {{command: [true], output: x.jar}}\nrun: {{command: [x]}}\n{extra}")
    ctx = context.from_env({"TB_ROOT": str(root)})
    names = testrun.test_databases(ctx)
    assert names[:3] == ["TRADER_TEST_ENGINE_MODEL", "TRADER_TEST_ALPHA", "TRADER_TEST_ALPHA_PEKKO"]
    assert {"TRADER_BETA_ONE", "TRADER_BETA_TWO", "TRADER_FUZZ_ALPHA", "TRADER_FUZZ_BETA", "TRADER_E2E",
            "TRADER_CLUSTER"} <= set(names)
    assert "TRADER_TEST_BETA" not in names and len(names) == len(set(names))
    (root / "beta" / "variant.yaml").write_text((root / "beta" / "variant.yaml").read_text()
                                                 .replace("[TRADER_BETA_ONE", "[bad-name"))
    with pytest.raises(variants.ManifestError):
        testrun.test_databases(ctx)
