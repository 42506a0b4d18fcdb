"""The database's neighbours as this machine measured them: the figures of Beside from the user's own results/.

Machines of one kind differ by 2x and more in what a sale costs the database and the link (spread() says how far
apart the sittings a set was fitted from measured them): where the load is near the database's bound, a set fitted
on another machine of the kind answers for that machine. So predict takes these three figures from the
runs this machine made (results/, the same CPU model and count, any layout: a process's CPU per unit of its work
does not depend on where the others run), and says so; where it has none, it says how far apart the folders of
the set's kind measured them (spread), and that a sweep or calibrate here makes them this machine's.
"""
from __future__ import annotations

import copy
import math
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any, cast

from ..analysis import ceilings
from ..record import ParameterSet
from . import fit
from .designs import Design

#: the figures of Beside a run can measure, as the parameter set names them
FIGURES = ("linkCpuUsPerSale", "linkedCpuUsPerSale", "loadClientCpuUsPerOrder")
#: the newest folders of this machine read (a results.json can be large)
MOST_FOLDERS = 6


@dataclass(frozen=True)
class Measured:
    figures: dict[str, Any]       # FIGURES and "besideFrom", as fit.beside_the_database gives them
    folders: list[str]            # the results/ folders they came from, newest first


def newest_results(root: Path, most: int) -> Iterator[tuple[dict[str, Any], str]]:
    """The results documents of ROOT/results and their folders' names, newest first, of the MOST newest folders (run
    ids start with their time; a results.json can be large, so only the newest few are read); unreadable ones
    skipped."""
    where = root / "results"
    if not where.is_dir():
        return
    for d in sorted((p for p in where.iterdir() if p.is_dir() and not p.is_symlink()), reverse=True)[:most]:
        try:
            yield fit.read(d)
        except (OSError, ValueError):
            continue


def same_kind(doc: dict[str, Any], cpu_model: str | None, cores: int | None) -> bool:
    env = doc.get("environment") or {}
    return env.get("cpuModel") == cpu_model and (cores is None or env.get("cores") == cores)


def measured_here(root: Path, designs: list[Design], persist: str, cpu_model: str | None,
                  cores: int | None) -> Measured | None:
    """This machine's figures of Beside in PERSIST from its newest results/ folders that ran through the link
    (None: no such run here)."""
    folders: list[tuple[dict[str, Any], str]] = []
    for doc, name in newest_results(root, 8 * MOST_FOLDERS):
        if same_kind(doc, cpu_model, cores) and doc.get("runs"):
            folders.append((doc, f"results/{name}"))
            if len(folders) >= MOST_FOLDERS:
                break
    if not folders:
        return None
    got = fit.beside_of(folders, designs, persist)
    if got.get("linkCpuUsPerSale") is None:
        return None
    return Measured(got, [name for _, name in folders])


def spread(root: Path, pset: ParameterSet, designs: list[Design], persist: str) -> tuple[float, float, int] | None:
    """How far apart the set's own folders (docs/results), each a sitting of a machine of its kind, measured the
    database and the link together a sale through the link: (least, most µs, folders); None: fewer than two."""
    per_sale = []
    for src in pset.get("sources") or []:
        folder = root / "docs" / "results" / str(src.get("folder") or "")
        if not src.get("folder") or not (folder / "results.json").is_file():
            continue
        got = fit.beside_of([(fit.read(folder)[0], str(src["folder"]))], designs, persist)
        if got.get("linkCpuUsPerSale") is not None and got.get("linkedCpuUsPerSale") is not None:
            per_sale.append(float(got["linkCpuUsPerSale"]) + float(got["linkedCpuUsPerSale"]))
    if len(per_sale) < 2:
        return None
    return min(per_sale), max(per_sale), len(per_sale)


# --- this machine's ceilings: the set's per-order costs scaled to them -------------------------------------------

#: the ratio a ceiling of this machine to the set's may take before it is read as a different setting, not a
#: different machine of the kind (machines of one kind have differed by 2x; 4x is a mistake to say, not to scale)
MOST_RATIO = 4.0


def ceilings_of(cal: dict[str, Any]) -> dict[str, float]:
    """A calibration record's costs, by name: "http.java" and "http.node" (the trivial servers' CPU µs a request),
    "floor.NAME" (a framework answering 202), "loadclient" (the load client's µs a request against the Java trivial
    server), "insert.KIND.N" (the database's CPU µs a row at N connections, KIND singleRow or multiRow)."""
    out: dict[str, float | None] = {}
    for runtime in ("java", "node"):
        out[f"http.{runtime}"] = ceilings.http_cost_of(cal, runtime)
    for name in (cal.get("floors") or {}):
        out[f"floor.{name}"] = ceilings.floor_cost_of(cal, name, "java")
    out["loadclient"] = ((((cal.get("http") or {}).get("java") or {}).get("cpuUsPerRequest") or {})
                         .get("loadclient"))
    for conns, kinds in (cal.get("insert") or {}).items():
        for kind, persist in (("singleRow", "per-sale"), ("multiRow", "batch")):
            if kind in (kinds or {}):
                out[f"insert.{kind}.{conns}"] = ceilings.insert_cost_of(cal, persist, int(conns))
    return {k: float(v) for k, v in out.items() if v}


@dataclass(frozen=True)
class Ceilings:
    costs: dict[str, float]      # ceilings_of
    folder: str                  # where they were measured


def ceilings_here(root: Path, cpu_model: str | None, cores: int | None, layout: str | None) -> Ceilings | None:
    """This machine's newest calibration in results/ (a compare's, a bench's or a calibrate's: the same CPU model
    and count, measured in LAYOUT where the folder records one); None: none."""
    for doc, name in newest_results(root, 8 * MOST_FOLDERS):
        kind = ((doc.get("environment") or {}).get("layout") or {}).get("kind")
        costs = ceilings_of(doc.get("calibration") or {})
        if same_kind(doc, cpu_model, cores) and costs and (layout is None or kind in (None, layout)):
            return Ceilings(costs, f"results/{name}")
    return None


def ceilings_of_set(root: Path, pset: ParameterSet) -> Ceilings | None:
    """The ceilings of the machine PSET was measured on: its own (calibrate keeps them), else the newest calibration
    among the folders it was fitted from (docs/results); None: none measured any."""
    if pset.get("ceilings"):
        own = pset["ceilings"]
        return Ceilings({k: float(v) for k, v in own["costs"].items()}, str(own.get("folder") or ""))
    for src in sorted(pset.get("sources") or [], key=lambda s: str(s.get("startedAt") or ""), reverse=True):
        folder = root / "docs" / "results" / str(src.get("folder") or "")
        if not src.get("folder") or not (folder / "results.json").is_file():
            continue
        costs = ceilings_of(fit.read(folder)[0].get("calibration") or {})
        if costs:
            return Ceilings(costs, f"docs/results/{src['folder']}")
    return None


def _geomean(xs: list[float]) -> float | None:
    return math.exp(sum(math.log(x) for x in xs) / len(xs)) if xs else None


@dataclass(frozen=True)
class Scaling:
    """This machine's costs over the set's machine's: a design's per-order CPU × by_design[key] (its framework's
    floor, else its runtime's trivial server, else every HTTP ceiling's geometric mean), the database's CPU a sale ×
    database (its inserts' ceilings), the load client's × loadclient, the link's × http (every HTTP ceiling's)."""
    by_design: dict[str, float]
    database: float | None
    loadclient: float | None
    http: float | None
    here: str                     # this machine's folder
    then: str                     # the set's

    def said(self) -> str:
        parts = ", ".join(f"{k} ×{v:.2f}" for k, v in sorted(self.by_design.items()))
        db = f"; the database's CPU a sale ×{self.database:.2f}" if self.database else ""
        return (f"the set's CPU per order scaled by this machine's ceilings ({self.here}) over its own ({self.then}): "
                f"{parts}{db}")


def scaling(mine: Ceilings, theirs: Ceilings, designs: list[Design], persist: str) -> Scaling | None:
    """The ratios of MINE to THEIRS that each figure of the set takes (None: no ceiling both measured, or one so far
    apart, beyond MOST_RATIO, that it is not the same kind of machine measured again)."""
    ratio = {k: mine.costs[k] / theirs.costs[k] for k in mine.costs.keys() & theirs.costs.keys()
             if theirs.costs[k] > 0 and 1 / MOST_RATIO <= mine.costs[k] / theirs.costs[k] <= MOST_RATIO}
    http = _geomean([v for k, v in ratio.items() if k.startswith(("http.", "floor."))])
    if http is None:
        return None
    by_design = {}
    for d in designs:
        floor = d.variant.floor["name"] if d.variant.floor else None
        by_design[d.key] = ratio.get(f"floor.{floor}") or ratio.get(f"http.{d.variant.runtime}") or http
    kind = "multiRow" if persist == "batch" else "singleRow"
    database = _geomean([v for k, v in ratio.items() if k.startswith(f"insert.{kind}.")])
    return Scaling(by_design, database, ratio.get("loadclient"), http, mine.folder, theirs.folder)


#: a design's figures that are CPU per unit of work (× the ratio) and those that are work per second of CPU (÷ it)
_COSTS = ("cpuUsPerOrder", "cycleUs", "fixedUsPerS", "orderUs")
_RATES = ("saturationOrders", "saturationSales")


def scaled(pset: ParameterSet, by: Scaling) -> ParameterSet:
    """PSET with its CPU figures at this machine's costs (BY): a copy; the latency curves and memory as they were."""
    out = copy.deepcopy(pset)
    for key, modes in out["designs"].items():
        r = by.by_design.get(key)
        if r:
            for entry in modes.values():
                _scale_design(cast(dict[str, Any], entry), r)
    for db in (out.get("database") or {}).values():
        _scale_database(db, by)
    return out


def _scale_design(entry: dict[str, Any], r: float) -> None:
    for f in _COSTS:
        if entry.get(f) is not None:
            entry[f] = float(entry[f]) * r
    for f in _RATES:
        if entry.get(f) is not None:
            entry[f] = float(entry[f]) / r
    for p in entry.get("saturationByCpus") or []:
        p["orders"], p["sales"] = float(p["orders"]) / r, float(p["sales"]) / r


def _scale_database(entry: dict[str, Any], by: Scaling) -> None:
    for f, r in (("cpuUsPerSale", by.database), ("insertCeilingCpuUsPerRow", by.database),
                 ("linkedCpuUsPerSale", by.database), ("linkCpuUsPerSale", by.http),
                 ("loadClientCpuUsPerOrder", by.loadclient)):
        if r and entry.get(f) is not None:
            entry[f] = float(entry[f]) * r


def ceilings_spread(root: Path, cpu_model: str | None, key: str = "http.java") -> tuple[float, float, int] | None:
    """How far apart the calibrations in docs/results of machines of CPU_MODEL measured KEY: (least, most, count);
    None: fewer than two."""
    got = []
    for f in sorted((root / "docs" / "results").glob("*/results.json")):
        try:
            doc, _ = fit.read(f)
        except (OSError, ValueError):
            continue
        v = ceilings_of(doc.get("calibration") or {}).get(key)
        if v and (doc.get("environment") or {}).get("cpuModel") == cpu_model:
            got.append(v)
    return (min(got), max(got), len(got)) if len(got) >= 2 else None
