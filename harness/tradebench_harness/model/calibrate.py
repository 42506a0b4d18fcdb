"""`./tradebench calibrate`: the model's parameters of the machine it runs on, measured in minutes (the measuring
is cli/calibrate.py's, on the measuring commands' path; this module makes the set of what it measured).

Each design (each variant as configured: its manifest's first row) is started once and measured in short
windows on one path with the map (measure.execute, through the link, no verify):

  light loads   LOADS orders/s, open loop, next door (+0 ms): the cost below saturation (K, its cycles, m),
                its memory and its latency curve (p50, p99 per rate)
  far           FAR_LOAD orders/s behind FAR_LATENCY ms: next door every rate cycles its engines alike, so that
                the fixed cost K and the cycles' cost are told apart only by a round trip that slows the cycles
  waiting       WAITING_LOAD orders/s behind WAITING_LATENCY ms: past the bound of a design with few inserts in
                flight, so that most of its orders wait in its inboxes: what such an order costs beside a stored
                one (ρ_w, light.py) is a term of every cell past that bound, and differs by design; a design with
                many in flight carries this load, and the window is one more light load far away, the one with
                many inserts in flight: its answers' tail there is the p99's term per insert in flight, which grows
                with the rate's square (latency.py)
  busy          BUSY_LOAD orders/s behind BUSY_LATENCY ms: a second rate past the bound of a design with few inserts
                in flight, at a shorter round trip than the waiting window's (what its waiting and refused orders cost
                is fitted from both, not from one mix of them), and for a design with many in flight a load near the
                database's bound behind a latency, where the link and the database spend more on a sale than next
                door (the figures beside the database are read from the busiest runs: fit.beside_the_database); a
                window past that bound stores less than its load and draws no latency line (fit.latency_curve)
  held out      HELD_OUT_LOAD orders/s behind HELD_OUT_LATENCY ms: a rate and round trip the fit does not see, below
                every design's bound;
                the set is scored on it and never fitted from it
  saturation    a closed loop with no pause, next door: what its CPUs answer and store (c_sat, R_sat), last,
                so that its grown heap does not reach the light loads' memory

The round trip of each database setting is probed (the one INSERT's own time). The fit (fit.py) then makes one
parameter set of the run without its held-out cells, fills what the run did not measure from the committed sets
(said so in each figure's `from`), and identifies the set by what it measured on this machine (its CPUs, the
INSERT's round trip, each design's saturation), not by the CPU's name. The set is written to
.tradebench/model-parameters.json (replacing an earlier calibration), where `predict` finds it first and says so.

At the defaults, five designs take 10-15 minutes beside the build (14 min 57 s on the project's AMD EPYC on
2026-12-04, 9 min 9 s with a window fewer on a faster one of the kind): per design
its start, a JIT warm-up of at most JIT_WARMUP_MAX s and eight windows of SETTLE + WINDOW s, each followed by a drain
of what waits in the inboxes (next door, half a second where nothing waits) and about two seconds of starting a
load client and counting its sales. Shorter windows cost CPU: the first seconds after a
change of load spend more per order (java-virtual at 1,000/s: 17.3 % of its CPU in 6 s after 2 s of settling,
12.4 % in 10 s after 5 s, the same hour; docs/model.md).
"""
from __future__ import annotations

import copy
import statistics
import sys
import tempfile
from dataclasses import dataclass
from datetime import datetime, timezone
from pathlib import Path
from typing import Any, TextIO

from .. import record
from ..record import ParameterSet, Run
from . import accuracy, check, fit, here, pace, params
from .designs import all_designs, key_of

LOADS = (300, 1000, 3000)
FAR_LOAD = 300
FAR_LATENCY = 5
WAITING_LOAD = 1800
WAITING_LATENCY = 25
BUSY_LOAD = 3500
BUSY_LATENCY = 3
HELD_OUT_LOAD = 2000
HELD_OUT_LATENCY = 1
WINDOW = 7
SETTLE = 3
JIT_WARMUP_MAX = 20


@dataclass(frozen=True)
class HeldOut:
    """The cell a calibration is scored on and not fitted from: a load (orders/s) at an added round trip (ms)."""
    load: int
    latency_ms: int


def held_out(run: Run, held: HeldOut) -> bool:
    """A window of the calibration's held-out cell: its load at its round trip."""
    return run["rate"] == held.load and run["dbLatencyMs"] == held.latency_ms


def write(root: Path, folder: Path, doc: dict[str, Any], held: HeldOut, dest: Path | None = None,
          out: TextIO | None = None) -> int:
    """The parameter set of the calibration's results DOC (in FOLDER), scored on its HELD-out cells, written to
    DEST (default .tradebench/model-parameters.json, where predict finds it)."""
    out = out or sys.stdout
    designs = all_designs(root)
    fitted = {**doc, "runs": [r for r in doc["runs"] if not held_out(r, held)]}
    scored = {**doc, "runs": [r for r in doc["runs"] if held_out(r, held)]}
    name = Path(folder).name
    with tempfile.TemporaryDirectory() as tmp:
        (Path(tmp) / name).mkdir()
        record.write_results(Path(tmp) / name, record.results(fitted))
        try:
            (s,) = fit.fit([Path(tmp) / name], designs)
        except ValueError as e:
            print(f"tradebench: calibrate: {e}", file=sys.stderr)
            return 1
    for src in s["sources"]:
        src["folder"] = f"{name} (without its held-out cells)"
    s["shapeSources"] = []
    committed = params.load(params.COMMITTED)["sets"]
    fill_from_committed(s, committed)
    env = doc.get("environment") or {}
    sat = {k: e["per-sale"]["saturationOrders"] for k, e in s["designs"].items()
           if "per-sale" in e and not str(e["per-sale"]["from"].get("cpuUsPerOrder", "")).startswith("not measured")}
    probes = [float(r["cpuProbeMs"]) for r in doc["runs"] if r.get("cpuProbeMs")]
    s["calibration"] = {"measuredAt": doc.get("startedAt"), "command": "./tradebench calibrate", "folder": str(folder),
                        "probeMs": s["dbOwnMs"]["value"], "saturationOrders": sat,
                        # the machine's pace over its windows (model/pace.py): the check puts each prediction at
                        # the pace of the process it is held against, gauged by the load client's cost per order
                        "loadClientUsPerOrder": pace.load_client_curve(fitted["runs"]),
                        "cpuProbeMs": statistics.median(probes) if probes else None,
                        "heldOut": {"rate": held.load, "dbLatencyMs": held.latency_ms},
                        "cpuModel": env.get("cpuModel")}
    s["machine"] = {"cores": env.get("cores"), "memoryGb": env.get("memoryGb"), "cpuModel": env.get("cpuModel")}
    costs = here.ceilings_of(doc.get("calibration") or {})
    if costs:          # what a request and a row cost this machine: predict scales the set to another of its kind
        s["ceilings"] = {"costs": costs, "folder": f"results/{name}"}
    rows = check.against(scored, s, designs)
    score_on(s, rows, f"{name} (its held-out cells: {held.load}/s at +{held.latency_ms} ms)", committed)
    dest = dest or root / ".tradebench" / "model-parameters.json"
    try:
        kept = [x for x in params.load(dest)["sets"] if not x.get("calibration")] if dest.is_file() else []
    except (ValueError, OSError):
        kept = []
    params.save(params.document([s, *kept], about="this machine's parameters (docs/model.md), measured by "
                                                  "./tradebench calibrate"), dest)
    print(f"calibrated {len(sat)} designs: {params.identity(s)}", file=out)
    print(accuracy.sentence(s), file=out)
    if rows:
        print(check.table(rows), file=out)
    default = dest.resolve() == (root / ".tradebench" / "model-parameters.json").resolve()
    print(f"wrote {dest}: " + ("./tradebench predict now uses it (its answer says so)" if default
                               else f"./tradebench predict --params {dest} uses it"), file=out)
    return 0 if sat else 1


def score_on(s: ParameterSet, rows: list[dict[str, Any]], what: str, committed: list[ParameterSet]) -> None:
    """The set's heldOut: its score on ROWS (cells it was not fitted on); its intervals, a few cells being too few
    for a spread of their own, are another calibration's, and their coverage here is counted."""
    now = datetime.now(timezone.utc).isoformat(timespec="seconds")
    donor = interval_donor(committed)
    bands = copy.deepcopy(donor["heldOut"]["intervals"]) if donor else accuracy.intervals(rows)
    whose = "a set ./tradebench calibrate measured" if donor and donor.get("calibration") else "the committed"
    s["heldOut"] = {"folders": [what], "checkedAt": now, "cells": len(rows), "score": accuracy.score(rows),
                    "crowdedCells": accuracy.crowded_cells(rows),
                    "intervals": bands, "coverage": accuracy.coverage(rows, bands),
                    "intervalsFrom": (f"{whose} {donor['machine'].get('cpuModel')} set's check on "
                                      f"{', '.join(donor['heldOut']['folders'])}") if donor else "these cells"}


def interval_donor(committed: list[ParameterSet]) -> ParameterSet | None:
    """Whose intervals a new calibration takes: the newest shipped calibration (by when it was measured) held
    against two later sittings (its residuals are a set's measured the way this one is), else the committed set
    held out last."""
    calibrated = [c for c in params.shipped_calibrations() if (c.get("heldOut") or {}).get("coverageOn")]
    if calibrated:
        return max(calibrated, key=lambda c: c["calibration"].get("measuredAt") or "")
    return max((c for c in committed if c.get("heldOut")), key=lambda c: c["heldOut"].get("checkedAt") or "",
               default=None)


def fill_from_committed(s: ParameterSet, committed: list[ParameterSet]) -> None:
    """What the calibration did not measure, from the committed sets: a design it did not run (CPU scaled by the
    machines' ratio over the designs both measured: fit.fill_from_other_machines), and the figures only other
    commands measure (a design's own time per insert at its bound; the fsync; ρ). Each said in its `from`."""
    others = copy.deepcopy(committed)
    for o in others:
        o.pop("calibration", None)
    fit.fill_from_other_machines([record.plain(s), *(record.plain(o) for o in others)])
    newest = max(committed, key=params.newest_source)
    for k, modes in s["designs"].items():
        for persist, e in modes.items():
            if e.get("insertOverheadMs") is None:
                entry = newest["designs"].get(k, {}).get(persist)
                theirs = entry.get("insertOverheadMs") if entry else None
                if theirs is not None:
                    e["insertOverheadMs"] = theirs
                    e["from"]["insertOverheadMs"] = (f"not measured by calibrate (no cell at its bound): "
                                                     f"{newest['machine'].get('cpuModel')}'s")
    fsync = newest.get("fsyncMs")
    if s.get("fsyncMs") is None and fsync:
        s["fsyncMs"] = {**fsync, "from": f"not measured by calibrate: {newest['machine'].get('cpuModel')}'s "
                                         f"({fsync['from']})"}


def designs_run(doc: dict[str, Any], root: Path) -> list[str]:
    ds = all_designs(root)
    return sorted(k for k in {key_of(r, ds) for r in doc.get("runs", [])} if k is not None)
