"""The results folder of a run: results/<run-id>/ with results.json and raw.json.gz (the format is
docs/results-format.md), runs.csv, summary.md and report.html; results/latest; reading a run back."""
from __future__ import annotations

import base64
import csv
import gzip
import json
import time
from pathlib import Path

from ..model import check
from . import answer, breakdown, page, stats, tables

# 3: as 2, without the summary and the profiles' breakdown (DERIVED_KEYS), which load() computes again from
#    the runs (they were a third of the bytes of a committed folder);
# 2: results.json without indentation, each run's raw material (RAW_KEYS) in raw.json.gz beside it;
# 1: one indented results.json holding everything. load() reads all three.
SCHEMA_VERSION = 3
#: what results.json does not keep: computed from its runs by derive()
DERIVED_KEYS = ("summary", "profiles")

#: what a run record keeps in raw.json.gz: its per-second process samples, the load client's own JSON and its
#: latency percentile curve. They are most of a run's bytes, the figures of results.json are already computed
#: from them, and only the charts draw from them.
RAW_KEYS = ("samples", "load", "latencyPercentiles")
RAW_FILE = "raw.json.gz"
#: a sweep --in-flight's chart, written beside its summary
IN_FLIGHT_CHART = "in-flight.png"


def new_run_id(command: str) -> str:
    return time.strftime("%Y%m%d-%H%M%S") + f"-{command}"


CSV_FIELDS = ["case", "variant", "row", "repeat", "engines", "persist", "waitMs", "rate", "concurrency", "dbLatencyMs",
              "salesPerMinute", "ordersPerSecond", "p50Ms", "p99Ms", "p999Ms", "answers503", "errors", "warmupS",
              "steady", "drift", "httpCeilingFraction", "insertCeilingFraction", "cpuVariant", "cpuLoadclient",
              "cpuDatabase", "cpuUsPerOrderVariant", "cpuPerOrderVsTrivial", "cpuPerOrderVsFloor", "dbCpuUsPerSale", "rssVariantMb", "threadsVariant",
              "rttMs", "inFlight", "boundSalesPerMinute", "boundFraction", "error"]


def write_csv(path: Path, runs: list[dict]) -> None:
    with open(path, "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=CSV_FIELDS, extrasaction="ignore")
        w.writeheader()
        for r in runs:
            cpu = r.get("cpu") or {}
            row = dict(r)
            row["cpuVariant"] = (cpu.get("variant") or {}).get("cpuPercent")
            row["cpuLoadclient"] = (cpu.get("loadclient") or {}).get("cpuPercent")
            row["cpuDatabase"] = (cpu.get("database") or {}).get("cpuPercent")
            row["cpuUsPerOrderVariant"] = (r.get("cpuUsPerOrder") or {}).get("variant")
            row["rssVariantMb"] = (cpu.get("variant") or {}).get("rssMaxMb")
            row["threadsVariant"] = (cpu.get("variant") or {}).get("threadsMax")
            w.writerow(row)


def write_all(folder: Path, doc: dict, root: Path | None = None) -> None:
    """results.json, runs.csv, summary.md and report.html of DOC into FOLDER.

    ROOT (the repository): a sweep's or map's model section (`doc["model"]`, the model beside every open-loop
    cell) is computed again from the model's code and committed parameters there, so that a report drawn again
    shows the model as it is now, not as it was when the run was measured."""
    if doc.get("cells") and root is not None:
        doc["model"] = check.held_against(doc, Path(root))
    derive(doc, folder)
    if doc.get("cells"):         # a latency sweep or a map (cells.py): its own view (answer.py)
        write_doc(folder, doc)
        write_csv(folder / "runs.csv", doc["runs"])
        (folder / "summary.md").write_text(answer.md(doc))
        drawn = answer.charts(doc)
        (folder / "report.html").write_text(answer.html(doc, drawn))
        for name, (_, data) in drawn.items():      # each chart as a file too, for a README to show
            (folder / f"{name}.png").write_bytes(base64.b64decode(data))
        return
    write_doc(folder, doc)
    write_csv(folder / "runs.csv", doc["runs"])
    profiled = breakdown.rows(doc)
    if profiled:   # the summary shows it (breakdown.md), so it is a file too
        (folder / breakdown.CHART).write_bytes(base64.b64decode(page.breakdown_chart(profiled)))
    priced = page.in_flight_chart(doc)
    if priced:     # a sweep --in-flight: what keeping inserts in flight costs, for a README to show
        (folder / IN_FLIGHT_CHART).write_bytes(base64.b64decode(priced))
    (folder / "summary.md").write_text(tables.summary_md(doc))
    (folder / "report.html").write_text(page.html(doc))


def derive(doc: dict, folder: Path) -> None:
    """What DOC's figures are computed into from its runs: DOC["summary"] (a sweep's or map's points, or the
    rows of the generic table with an experiment's article figures beside them) and DOC["profiles"] (the
    breakdown of the profiled rows, from their stacks in FOLDER when they are there)."""
    if doc.get("cells"):
        doc["summary"] = answer.points(doc)
        return
    doc["summary"] = stats.summarize(doc["runs"])
    breakdown.attach(doc, folder)
    article = (doc.get("experiment") or {}).get("article") or {}
    for row in doc["summary"]:
        row["articleSalesPerMinute"] = (article.get(row["case"]) or {}).get(row["variant"])


def write_doc(folder: Path, doc: dict) -> None:
    """results.json (compact, without RAW_KEYS) and raw.json.gz (RAW_KEYS of each run, in the order of
    runs[]) of DOC into FOLDER. DOC itself is left whole."""
    doc["schemaVersion"] = SCHEMA_VERSION
    lean = {k: v for k, v in doc.items() if k not in DERIVED_KEYS}
    lean["runs"] = [{k: v for k, v in r.items() if k not in RAW_KEYS} for r in doc["runs"]]
    (folder / "results.json").write_text(json.dumps(lean, separators=(",", ":")))
    raw = {"schemaVersion": SCHEMA_VERSION, "runs": [{k: r[k] for k in RAW_KEYS if k in r} for r in doc["runs"]]}
    # mtime 0: the same document gives the same bytes, so a report drawn again changes nothing in git
    (folder / RAW_FILE).write_bytes(gzip.compress(json.dumps(raw, separators=(",", ":")).encode(), mtime=0))


def link_latest(results_dir: Path, folder: Path) -> None:
    """results/latest: the newest run (when FOLDER is one of results/)."""
    if folder.parent != results_dir:
        return
    latest = results_dir / "latest"
    try:
        if latest.is_symlink() or latest.exists():
            latest.unlink()
        latest.symlink_to(folder.name)
    except OSError:
        pass


def load(ref: str, results_dir: Path) -> dict:
    """A results.json by run id, folder or file, whole again: from schema version 2 on, each run's RAW_KEYS
    are put back from the raw.json.gz beside it (a folder without it reads as runs without them); from 3 on,
    the DERIVED_KEYS are computed again from the runs."""
    p = Path(ref)
    for cand in (p, p / "results.json", results_dir / ref / "results.json"):
        if cand.is_file():
            doc = json.loads(cand.read_text())
            raw_file = cand.parent / RAW_FILE
            if doc.get("schemaVersion", 1) >= 2 and raw_file.is_file():
                raw = json.loads(gzip.decompress(raw_file.read_bytes()))["runs"]
                if len(raw) != len(doc["runs"]):
                    raise ValueError(f"{raw_file} holds {len(raw)} runs, {cand} {len(doc['runs'])}")
                for run, extra in zip(doc["runs"], raw, strict=True):
                    run.update(extra)
            if "summary" not in doc:     # schema 3: computed again, as the folder was written
                derive(doc, cand.parent)
            return doc
    raise FileNotFoundError(f"no results.json for {ref} (looked in {results_dir})")
