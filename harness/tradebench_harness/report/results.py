"""The results folder of a run: results/<run-id>/ with results.json and raw.json.gz (the format is
docs/results-format.md), runs.csv, summary.md and report.html; results/latest; reading a run back."""
from __future__ import annotations

import base64
import csv
from pathlib import Path
from typing import Any

from .. import record
from ..analysis import stats
from ..model import check
from ..record import Results
from . import answer, breakdown, page, tables

#: the layout of a results folder's files (record.py)
SCHEMA_VERSION = record.SCHEMA_VERSION
RAW_KEYS = record.RAW_KEYS
#: a sweep --in-flight's chart, written beside its summary
IN_FLIGHT_CHART = "in-flight.png"


CSV_FIELDS = ["case", "variant", "row", "repeat", "engines", "persist", "waitMs", "rate", "concurrency", "dbLatencyMs",
              "salesPerMinute", "ordersPerSecond", "p50Ms", "p99Ms", "p999Ms", "answers503", "errors", "warmupS",
              "steady", "drift", "httpCeilingFraction", "insertCeilingFraction", "cpuVariant", "cpuLoadclient",
              "cpuDatabase", "cpuUsPerOrderVariant", "cpuPerOrderVsTrivial", "cpuPerOrderVsFloor", "dbCpuUsPerSale", "rssVariantMb", "threadsVariant",
              "rttMs", "inFlight", "boundSalesPerMinute", "boundFraction", "error"]


def write_csv(path: Path, runs: list[dict[str, Any]]) -> None:
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


def write_all(folder: Path, doc: Results, root: Path | None = None) -> Results:
    """results.json, runs.csv, summary.md and report.html of DOC into FOLDER; returns the document as written,
    its derived parts computed (`derive`). DOC itself is left as it was.

    ROOT (the repository): a sweep's or map's model section (`model`, the model beside every open-loop cell) is
    computed again from the model's code and committed parameters there, so that a report drawn again shows the
    model as it is now, not as it was when the run was measured."""
    if doc.get("cells") and root is not None:
        doc = record.amended(doc, model=check.held_against(record.plain(doc), Path(root)))
    doc = derive(doc, folder)
    record.write_results(folder, doc)
    write_csv(folder / "runs.csv", record.plain(doc)["runs"])
    if doc.get("cells"):         # a latency sweep or a map (cells.py): its own view (answer.py)
        (folder / "summary.md").write_text(answer.md(record.plain(doc)))
        drawn = answer.charts(record.plain(doc))
        (folder / "report.html").write_text(answer.html(record.plain(doc), drawn))
        for name, (_, data) in drawn.items():      # each chart as a file too, for a README to show
            (folder / f"{name}.png").write_bytes(base64.b64decode(data))
        return doc
    plain = record.plain(doc)
    profiled = breakdown.rows(plain)
    if profiled:   # the summary shows it (breakdown.md), so it is a file too
        (folder / breakdown.CHART).write_bytes(base64.b64decode(page.breakdown_chart(profiled)))
    priced = page.in_flight_chart(plain)
    if priced:     # a sweep --in-flight: what keeping inserts in flight costs, for a README to show
        (folder / IN_FLIGHT_CHART).write_bytes(base64.b64decode(priced))
    (folder / "summary.md").write_text(tables.summary_md(plain))
    (folder / "report.html").write_text(page.html(plain))
    return doc


def derive(doc: Results, folder: Path) -> Results:
    """DOC with its figures computed from its runs: `summary` (a sweep's or map's points, or the rows of the
    generic table with an experiment's article figures beside them) and `profiles` (the breakdown of the
    profiled rows, from their stacks in FOLDER when they are there). DOC itself is left as it was."""
    plain = record.plain(doc)
    if doc.get("cells"):
        return record.amended(doc, summary=answer.points(plain))
    article = (plain.get("experiment") or {}).get("article") or {}
    summary = [{**row, "articleSalesPerMinute": (article.get(row["case"]) or {}).get(row["variant"])}
               for row in stats.summarize(plain["runs"])]
    return record.amended(doc, summary=summary, profiles=breakdown.profiles(plain, folder) or None)


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


def load(ref: str, results_dir: Path) -> Results:
    """A results.json by run id, folder or file, whole again (record.load_results: each run's raw material put
    back from the raw.json.gz beside it); a summary the file does not keep (schema 3) computed again from the
    runs, as the folder was written."""
    doc = record.load_results(record.results_file(ref, results_dir))
    if "summary" not in doc:
        doc = derive(doc, record.results_file(ref, results_dir).parent)
    return doc
