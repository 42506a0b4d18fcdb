"""The site's indexes of runs (by question, by machine, by date) and the pairs it sets side by side: each run
beside the previous run of the same question on the same machine, and the pairs the user names."""
from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

from .catalog import NOTES, Entry, Machine

#: where the runs whose record says no machine are listed
UNRECORDED = "machine not recorded (the README says it)"


class SiteError(ValueError):
    """A run the command line names that the site does not hold."""


@dataclass(frozen=True)
class Group:
    title: str
    entries: tuple[Entry, ...]


@dataclass(frozen=True)
class Pair:
    """A (older) beside B (newer, or the second named); WHY: how the site came to set them side by side."""
    a: Entry
    b: Entry
    why: str

    @property
    def slug(self) -> str:
        return f"{flat(self.a.slug)}--{flat(self.b.slug)}"


PREVIOUS = "the previous run of the same question on the same machine"
NAMED = "named with --pair"


def flat(slug: str) -> str:
    return slug.replace("/", "_")


def newest_first(entries: Iterable[Entry]) -> tuple[Entry, ...]:
    """ENTRIES by when they started, the newest first; a folder before the runs in it that started with it."""
    return tuple(sorted(entries, key=lambda e: (e.started, e.parent is None, e.slug), reverse=True))


def by_question(entries: list[Entry], order: list[str]) -> list[Group]:
    """Each question's runs, newest first; the questions in ORDER (docs/results/README.md's), then any other."""
    titles = list(order) + sorted({e.question for e in entries} - set(order))
    return [Group(q, newest_first(e for e in entries if e.question == q)) for q in titles
            if any(e.question == q for e in entries)]


def machine_title(m: Machine | None) -> str:
    return m.label if m else UNRECORDED


def by_machine(entries: list[Entry]) -> list[Group]:
    """Each machine's runs, newest first; the machines by name, those not recorded last."""
    machines = sorted({e.machine for e in entries if e.machine})
    groups = [Group(m.label, newest_first(e for e in entries if e.machine == m)) for m in machines]
    unknown = newest_first(e for e in entries if e.machine is None)
    return groups + ([Group(UNRECORDED, unknown)] if unknown else [])


def by_date(entries: list[Entry]) -> list[Group]:
    """Each day's runs, the newest day first."""
    days = sorted({e.date for e in entries}, reverse=True)
    return [Group(d, newest_first(e for e in entries if e.date == d)) for d in days]


def pairable(e: Entry) -> bool:
    """A run with a record of its own and the machine it was measured on: one that can be set beside another."""
    return e.kind != NOTES and e.machine is not None


def previous_pairs(entries: list[Entry]) -> list[Pair]:
    """Each run beside the previous run (by when it started) of the same question on the same machine."""
    out: list[Pair] = []
    lines: dict[tuple[str, Machine], list[Entry]] = {}
    for e in entries:
        if pairable(e) and e.machine is not None:
            lines.setdefault((e.question, e.machine), []).append(e)
    for line in lines.values():
        line.sort(key=lambda e: (e.started, e.slug))
        out += [Pair(a, b, PREVIOUS) for a, b in zip(line, line[1:])]
    return sorted(out, key=lambda p: (p.b.started, p.b.slug), reverse=True)


def find(entries: list[Entry], name: str) -> Entry:
    """The run NAME names: its slug, folder name, run id, or its folder's path."""
    path = Path(name).expanduser()
    hits = [e for e in entries if name in (e.slug, e.source.name, e.run_id, e.source.stem)
            or (path.exists() and path.resolve() == e.source.resolve())]
    if not hits:
        raise SiteError(f"--pair {name}: no run of the site is named so (a run id, a folder of docs/results or of "
                        "your results, or its path)")
    if len(hits) > 1:
        raise SiteError(f"--pair {name}: names {len(hits)} runs ({', '.join(e.slug for e in hits)}): give its path")
    return hits[0]


def named_pairs(entries: list[Entry], names: Iterable[tuple[str, str]]) -> list[Pair]:
    return [Pair(find(entries, a), find(entries, b), NAMED) for a, b in names]


def pairs(entries: list[Entry], names: Iterable[tuple[str, str]]) -> list[Pair]:
    """The pairs the user names first, then each run beside its previous one (a pair named too: once)."""
    named = named_pairs(entries, names)
    seen = {(p.a.slug, p.b.slug) for p in named}
    return named + [p for p in previous_pairs(entries) if (p.a.slug, p.b.slug) not in seen]
