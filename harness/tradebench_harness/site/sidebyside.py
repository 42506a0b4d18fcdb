"""Two runs side by side with the verdicts of `./tradebench diff A B` (report/diff.py `compare`): per row both
medians, B ÷ A with its 95 % interval and the verdict, the ceiling fractions and the CPU per order. diff reads
two tables of rows; a latency sweep, a map, the isolation experiment or the thread ring has none, and its pair
shows the two runs' charts without verdicts, saying so."""
from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ..analysis import verdict
from ..record import plain
from ..report import diff, results, tables
from .catalog import Entry

#: B ÷ A's verdict, as the pair's page says it (diff's B ÷ A: "ahead" is B ahead of A)
SAID = {verdict.AHEAD: "B ahead", verdict.BEHIND: "B behind", verdict.SAME: "no difference detected",
        verdict.UNKNOWN: "no verdict: fewer than 2 processes"}


@dataclass(frozen=True)
class Row:
    case: str
    variant: str
    sales_a: str
    sales_b: str
    ratio: str
    verdict: str
    said: str
    http: str
    insert: str
    cpu: str


@dataclass(frozen=True)
class Verdicts:
    rows: tuple[Row, ...]
    only_a: tuple[str, ...]
    only_b: tuple[str, ...]
    #: why there are none, when diff does not read the pair
    none: str | None = None


def why_not(e: Entry) -> str | None:
    if e.kind != "results":
        return f"{e.slug} is the {e.kind} experiment's record, not a table of rows"
    if e.cells:
        return f"{e.slug} is a {e.command or 'sweep'}: its cells are not a table of rows"
    return None


def fraction(f: dict[str, Any]) -> str:
    if not f["a"] or not f["b"]:
        return "–"
    return f"{f['a']['median'] * 100:.1f} % → {f['b']['median'] * 100:.1f} % ({verdict.short(f['interval'])})"


def cpu(f: dict[str, Any] | None) -> str:
    if not f or not f.get("a") or not f.get("b"):
        return "–"
    return f"{f['a']['median']:.1f} → {f['b']['median']:.1f} ({verdict.short(f['interval'])})"


def row(r: dict[str, Any]) -> Row:
    s = r["salesPerMinute"]
    v = s["verdict"] or verdict.UNKNOWN
    return Row(case=r["case"] or "–", variant=r["variant"], sales_a=tables.cell(s["a"]), sales_b=tables.cell(s["b"]),
               ratio=verdict.short(s["interval"]), verdict=v.replace(" ", "-"), said=SAID.get(v, v),
               http=fraction(r["httpCeilingFraction"]), insert=fraction(r["insertCeilingFraction"]),
               cpu=cpu(r.get("cpuUsPerOrderVariant")))


def document(e: Entry) -> dict[str, Any]:
    """E's results document, as diff reads it (report/results.py `load`)."""
    return plain(results.load(str(e.source), Path(e.source)))


def verdicts(a: Entry, b: Entry, load: Callable[[Entry], dict[str, Any]] = document) -> Verdicts:
    """diff's verdicts of B against A, or why diff does not read them (LOAD: a run's document)."""
    none = why_not(a) or why_not(b)
    if none:
        return Verdicts((), (), (), none + ": diff's verdicts need two tables (compare, bench, sweep rates, ...)")
    da, db = load(a), load(b)
    rows = diff.compare(da, db)
    ka, kb = {diff.key(r) for r in da["summary"]}, {diff.key(r) for r in db["summary"]}
    return Verdicts(tuple(row(r) for r in rows), tuple(sorted(k[1] for k in ka - kb)), tuple(sorted(k[1] for k in kb - ka)),
                    None if rows else "no row of one is in the other (a row: its case, variant, rate and engines)")
