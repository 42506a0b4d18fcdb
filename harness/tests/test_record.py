"""The results record's reader: every committed results folder reads through it, and a key no class names, or
a required key missing, is refused with its name and the file's."""
import ast
import json
from pathlib import Path

import pytest

from tests import records
from tradebench_harness import record

ROOT = Path(__file__).resolve().parents[2]
COMMITTED = sorted((ROOT / "docs" / "results").glob("*/results.json"))


def test_there_are_committed_folders_to_read():
    assert len(COMMITTED) >= 20


@pytest.mark.parametrize("path", COMMITTED, ids=lambda p: p.parent.name)
def test_every_committed_results_folder_reads_through_the_record(path):
    doc = record.load_results(path, raw=False)
    assert doc["runs"] and doc["schemaVersion"] == record.SCHEMA_VERSION


def test_the_committed_parameters_read_through_the_record():
    doc = record.load_parameters(ROOT / "harness" / "tradebench_harness" / "model" / "parameters.json")
    assert doc["sets"] and all(s["designs"] for s in doc["sets"])


def small_doc() -> dict:
    return {"schemaVersion": 3, "runId": "t", "command": "compare", "environment": {"cores": 2},
            "runs": [records.window("java-threads", salesPerMinute=1.0, cpu={})]}


def test_a_misspelled_key_is_refused_with_its_name_and_the_file(tmp_path):
    doc = small_doc()
    record.write_results(tmp_path, doc)
    assert record.load_results(tmp_path)["runs"][0]["salesPerMinute"] == 1.0
    doc["runs"][0]["salesPerMinuet"] = doc["runs"][0].pop("salesPerMinute")
    (tmp_path / "results.json").write_text(json.dumps(doc))
    with pytest.raises(record.SchemaError, match=r"results\.json: the document\.runs\[0\] has the unknown key 'salesPerMinuet'"):
        record.load_results(tmp_path)


def test_a_missing_required_key_is_refused_with_its_name(tmp_path):
    doc = small_doc()
    del doc["runs"][0]["variant"]
    (tmp_path / "results.json").write_text(json.dumps(doc))
    with pytest.raises(record.SchemaError, match=r"runs\[0\] lacks the key 'variant'"):
        record.load_results(tmp_path)


def test_a_misspelled_key_of_a_parameter_set_is_refused(tmp_path):
    doc = json.loads((ROOT / "harness" / "tradebench_harness" / "model" / "parameters.json").read_text())
    doc["sets"][0]["designz"] = doc["sets"][0].pop("designs")
    (tmp_path / "p.json").write_text(json.dumps(doc))
    with pytest.raises(record.SchemaError, match=r"sets\[0\] lacks the key 'designs'"):
        record.load_parameters(tmp_path / "p.json")


@pytest.mark.parametrize("key", sorted(record.Run.__required_keys__))
def test_a_run_without_a_key_every_writer_writes_is_refused_naming_it(tmp_path, key):
    doc = small_doc()
    record.write_results(tmp_path, doc)
    del doc["runs"][0][key]
    (tmp_path / "results.json").write_text(json.dumps(doc))
    with pytest.raises(record.SchemaError, match=rf"results\.json: the document\.runs\[0\] lacks the key '{key}'"):
        record.load_results(tmp_path)


def test_a_misspelled_setting_of_a_window_is_refused_naming_both_keys(tmp_path):
    doc = small_doc()
    doc["runs"][0]["dbLatency"] = doc["runs"][0].pop("dbLatencyMs")
    (tmp_path / "results.json").write_text(json.dumps(doc))
    with pytest.raises(record.SchemaError, match=r"runs\[0\] lacks the key 'dbLatencyMs'"):
        record.load_results(tmp_path)
    doc["runs"][0]["dbLatencyMs"] = 0
    (tmp_path / "results.json").write_text(json.dumps(doc))
    with pytest.raises(record.SchemaError, match=r"runs\[0\] has the unknown key 'dbLatency'"):
        record.load_results(tmp_path)


def test_the_keys_measure_writes_into_every_run_are_the_required_ones():
    """measure/instance.py's record of a window (a failed one's too) holds every required key: a key made
    required that no writer writes would refuse every new folder."""
    from tradebench_harness.measure import instance  # noqa: PLC0415
    from tradebench_harness.measure.plan import Window  # noqa: PLC0415
    # the unit's keys: the dict measure_unit starts every record of its windows from (`base = {...}`)
    (base,) = [n.value for n in ast.walk(ast.parse(Path(instance.__file__).read_text()))
               if isinstance(n, ast.Assign) and [getattr(t, "id", None) for t in n.targets] == ["base"]
               and isinstance(n.value, ast.Dict)]
    unit_keys = {k.value for k in base.keys if isinstance(k, ast.Constant)}
    rec = instance._window_record(dict.fromkeys(unit_keys), {}, 1, Window())
    assert set(rec) >= record.Run.__required_keys__, record.Run.__required_keys__ - set(rec)


def test_an_absent_optional_key_reads_as_the_record_says():
    run = records.window("java-threads")
    assert record.process_number(run) == 0
    run["process"] = 3
    assert record.process_number(run) == 3
    entry = {"cpuUsPerOrder": 1.0, "from": {}, "cycleUs": None, "orderUs": 2.5}
    assert record.cost_term(entry, "cycleUs") == 0.0 and record.cost_term(entry, "fixedUsPerS") == 0.0
    assert record.cost_term(entry, "orderUs") == 2.5
    assert record.rss_engines(entry) == 0 and record.rss_engines({**entry, "rssEngines": 4}) == 4


# --- a results document is built once, by record ---------------------------------------------------------------

def test_amended_returns_a_copy_with_the_parts_in_place_and_leaves_the_document_as_it_was():
    doc = record.new_results(run_id="r", command="compare", started_at="s", finished_at="f", elapsed_s=1.0,
                             environment={}, options={}, experiment=None, calibration={}, runs=[])
    before = json.dumps(doc)
    out = record.amended(doc, summary=[{"case": "c"}], profiles=None)
    assert out["summary"] == [{"case": "c"}] and "profiles" not in out
    assert json.dumps(doc) == before                       # the document given is untouched
    assert "summary" not in record.amended(out, summary=None)
    with pytest.raises(KeyError, match="no part sumary"):
        record.amended(doc, sumary=[])


def test_a_new_document_has_the_keys_of_a_file_in_the_order_a_file_has_them():
    doc = record.new_results(run_id="r", command="map", started_at="s", finished_at="f", elapsed_s=2.5,
                             environment={"cores": 2}, options={"x": 1}, experiment=None, calibration={},
                             runs=[], cells={"kind": "map"}, adaptive=None)
    assert list(doc) == ["schemaVersion", "runId", "command", "startedAt", "finishedAt", "environment", "options",
                         "experiment", "calibration", "runs", "cells", "elapsedS"]
    assert doc["schemaVersion"] == record.SCHEMA_VERSION


def _assigned_documents(tree):
    """The statements of TREE that change a document named doc in place: doc[k] = ..., doc[k] += ...,
    doc.update/setdefault/pop(...)."""
    for node in ast.walk(tree):
        targets = node.targets if isinstance(node, ast.Assign) else [node.target] if isinstance(node, ast.AugAssign) else []
        for t in targets:
            if isinstance(t, ast.Subscript) and isinstance(t.value, ast.Name) and t.value.id == "doc":
                yield node.lineno
        if (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)
                and node.func.attr in ("update", "setdefault", "pop") and isinstance(node.func.value, ast.Name)
                and node.func.value.id == "doc"):
            yield node.lineno


def test_no_module_outside_record_changes_a_document_in_place():
    package = Path(record.__file__).resolve().parents[1]
    found = [f"{p.relative_to(package)}:{line}" for p in sorted(package.rglob("*.py"))
             if "record" not in p.relative_to(package).parts[:1]
             for line in _assigned_documents(ast.parse(p.read_text()))]
    assert found == [], "a document built by its producer is returned, not filled in: " + ", ".join(found)


def test_the_rule_above_finds_a_document_changed_in_place():
    tree = ast.parse("doc['summary'] = []\ndoc['runs'] += x\ndoc.update(a=1)\nother['k'] = 1\n")
    assert list(_assigned_documents(tree)) == [1, 2, 3]
