"""The results folder of a run: results/<run-id>/ with results.json (the format is
docs/results-format.md), runs.csv, summary.md and report.html; results/latest; reading a run back."""
from __future__ import annotations

import base64
import csv
import json
import time
from pathlib import Path

from . import answer, page, stats, tables

SCHEMA_VERSION = 1


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


def write_all(folder: Path, doc: dict) -> None:
    """results.json, runs.csv, summary.md and report.html of DOC into FOLDER."""
    if doc.get("cells"):         # a latency sweep or a map (cells.py): its own view (answer.py)
        doc["summary"] = answer.points(doc)
        (folder / "results.json").write_text(json.dumps(doc, indent=1))
        write_csv(folder / "runs.csv", doc["runs"])
        (folder / "summary.md").write_text(answer.md(doc))
        drawn = answer.charts(doc)
        (folder / "report.html").write_text(answer.html(doc, drawn))
        for name, (_, data) in drawn.items():      # each chart as a file too, for a README to show
            (folder / f"{name}.png").write_bytes(base64.b64decode(data))
        return
    doc["summary"] = stats.summarize(doc["runs"])
    article = (doc.get("experiment") or {}).get("article") or {}
    for row in doc["summary"]:
        row["articleSalesPerMinute"] = (article.get(row["case"]) or {}).get(row["variant"])
    (folder / "results.json").write_text(json.dumps(doc, indent=1))
    write_csv(folder / "runs.csv", doc["runs"])
    (folder / "summary.md").write_text(tables.summary_md(doc))
    (folder / "report.html").write_text(page.html(doc))


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
    """A results.json by run id, folder or file."""
    p = Path(ref)
    for cand in (p, p / "results.json", results_dir / ref / "results.json"):
        if cand.is_file():
            return json.loads(cand.read_text())
    raise FileNotFoundError(f"no results.json for {ref} (looked in {results_dir})")
