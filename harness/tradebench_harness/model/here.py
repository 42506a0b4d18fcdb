"""The database's neighbours as this machine measured them: the figures of Beside from the user's own results/.

Machines of one kind differ by 2x and more in what a sale costs the database and the link (spread() says how far
apart the sittings a set was fitted from measured them): where the load is near the database's bound, a set fitted
on another machine of the kind answers for that machine. So predict takes these three figures from the
runs this machine made (results/, the same CPU model and count, any layout: a process's CPU per unit of its work
does not depend on where the others run), and says so; where it has none, it says how far apart the folders of
the set's kind measured them (spread), and that a sweep or calibrate here makes them this machine's.
"""
from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

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


def same_kind(doc: dict[str, Any], cpu_model: str | None, cores: int | None) -> bool:
    env = doc.get("environment") or {}
    return env.get("cpuModel") == cpu_model and (cores is None or env.get("cores") == cores)


def measured_here(root: Path, designs: list[Design], persist: str, cpu_model: str | None,
                  cores: int | None) -> Measured | None:
    """This machine's figures of Beside in PERSIST from its newest results/ folders that ran through the link
    (None: no such run here)."""
    where = root / "results"
    if not where.is_dir():
        return None
    folders: list[tuple[dict[str, Any], str]] = []
    for d in sorted((p for p in where.iterdir() if p.is_dir() and not p.is_symlink()), reverse=True)[:8 * MOST_FOLDERS]:
        try:
            doc, name = fit.read(d)
        except (OSError, ValueError):
            continue
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
