"""A parameter set held against two sittings it was not fitted on (docs/model-accuracy.md, "How sure").

The set is fitted from the runs of one sitting (`./tradebench calibrate`, or `predict fit`). Its intervals are
drawn from the residuals of a later sitting (the first held-out one), and the second held-out sitting, later
still, counts how often those intervals hold what it measured: a coverage none of its cells took part in. The
score is over both sittings' cells. A folder the set was fitted from is refused: its check would be in-sample.
"""
from __future__ import annotations

import sys
from collections.abc import Sequence
from datetime import datetime, timezone
from pathlib import Path
from typing import Any, TextIO

from ..analysis.crowded import CROWDED_PERCENT, STOLEN_PERCENT
from ..record import ParameterSet, results_folder
from . import accuracy, check, fit, params
from .designs import all_designs


def rows_of(pset: ParameterSet, folders: list[Path], root: Path) -> tuple[list[dict[str, Any]], list[str]]:
    """The open-loop cells of FOLDERS beside PSET's prediction, and the folders' names; ValueError for a folder
    PSET was fitted from, or one with no open-loop cell."""
    designs = all_designs(root)
    rows: list[dict[str, Any]] = []
    names: list[str] = []
    for f in folders:
        run, name = fit.read(f)
        if run.get("runId") in params.fitted_from(pset):
            raise ValueError(f"{name} is one of the runs {params.describe(pset)} is fitted from: it cannot be held out")
        cells = check.against(run, pset, designs)
        if not cells:
            raise ValueError(f"{name} has no open-loop cells to hold the set against")
        rows += cells
        names.append(name)
    return rows, names


def two_sittings(pset: ParameterSet, first: list[Path], second: list[Path], root: Path) -> dict[str, Any]:
    """PSET's heldOut from two later sittings: the score over both, the intervals from FIRST's residuals, and
    their coverage on SECOND's cells."""
    rows_a, names_a = rows_of(pset, first, root)
    rows_b, names_b = rows_of(pset, second, root)
    bands = accuracy.intervals(rows_a)
    return {"folders": names_a + names_b, "checkedAt": datetime.now(timezone.utc).isoformat(timespec="seconds"),
            "cells": len(rows_a) + len(rows_b), "score": accuracy.score(rows_a + rows_b),
            "crowdedCells": accuracy.crowded_cells(rows_a + rows_b),
            "intervals": bands, "intervalsFrom": ", ".join(names_a),
            "coverage": accuracy.coverage(rows_b, bands), "coverageOn": ", ".join(names_b),
            "scoreBySitting": {", ".join(names_a): accuracy.score(rows_a), ", ".join(names_b): accuracy.score(rows_b)}}


def do_hold_out(source: Path, first: Sequence[str], second: Sequence[str], dest: Path | None, root: Path,
                out: TextIO | None = None) -> int:
    """`predict hold-out`: the set of SOURCE for the FIRST folder's machine held against the two sittings (FIRST,
    SECOND), kept in the set (heldOut) and written to DEST (default: SOURCE); its score and coverage printed."""
    out = out or sys.stdout
    doc = params.load(source)
    folders = [results_folder(root, f) for f in (*first, *second)]
    run, name = fit.read(folders[0])
    env = run.get("environment") or {}
    pset = params.for_machine(doc, env.get("cpuModel"), env.get("cores")) or params.calibrated(doc, env.get("cores"))
    if pset is None:
        print(f"tradebench: no parameter set in {source} for {name}'s machine ({env.get('cpuModel')}, "
              f"{env.get('cores')} cores)", file=sys.stderr)
        return 2
    try:
        pset["heldOut"] = two_sittings(pset, folders[:len(first)], folders[len(first):], root)
    except ValueError as e:
        print(f"tradebench: {e}", file=sys.stderr)
        return 2
    dest = dest or source
    params.save(doc, dest)
    print(f"{params.describe(pset)}, held out:", file=out)
    for sitting, score in pset["heldOut"]["scoreBySitting"].items():
        figures = "; ".join(f"{accuracy.NAMES[f]} {s['within']} of {s['of']} within {s['tolerance']:.0%}"
                            for f, s in score.items() if s["of"])
        print(f"- {sitting}: {figures}", file=out)
    if pset["heldOut"].get("crowdedCells"):
        print(f"- left out: {pset['heldOut']['crowdedCells']} cell(s) whose window others crowded (processes over "
              f"{CROWDED_PERCENT:g} % of a core, or the hypervisor's other guests over {STOLEN_PERCENT:g} %)", file=out)
    print(accuracy.sentence(pset), file=out)
    print(f"wrote {dest}", file=out)
    return 0

