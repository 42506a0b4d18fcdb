"""The results record's reader: every committed results folder reads through it, and a key no class names, or
a required key missing, is refused with its name and the file's."""
import json
from pathlib import Path

import pytest

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
            "runs": [{"variant": "java-threads", "case": "", "repeat": 1, "salesPerMinute": 1.0, "cpu": {}}]}


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
