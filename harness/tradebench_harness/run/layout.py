"""Where each process of a measurement runs: the variant, the database server and the load client each on CPUs
of their own (the isolated layout, the default), or every process on every CPU (the shared layout).

The 2014 experiment ran the service, the database and the load on three machines; on one machine the layout
stands in for that. A design that shares its cores with the database and the load client is bound by what
the three together cost an order, and designs that separate on cores of their own tie there.

The default split is in proportion to what each party costs an order at saturation, per-sale, measured on
every row (docs/results, 2026-11-24 to 26; median over the rows): the variant about 40 µs of CPU an order, the
database 23 µs, the load client 10 µs (DEFAULT_WEIGHTS). Whole physical cores are dealt out by largest
remainder, at least one each, so that no party shares a core's SMT siblings with another:

  2 CPUs   variant 1, database and load client together on the other (their 33 µs an order against the
           variant's 40: both CPUs about equally busy at saturation; the database and the load client contend
           with each other, never with the variant)
  3 CPUs   1 / 1 / 1        4 CPUs   2 / 1 / 1        8 CPUs   4 / 3 / 1        16 CPUs   9 / 5 / 2

The Toxiproxy link (a slow database) runs on the database's CPUs: it is the database's side of the wire.
The harness itself runs on the load client's.

What each runtime makes of its CPUs: the JVM sizes its pools (GC threads, ForkJoin's common pool and the
virtual threads' carriers, Akka's dispatchers, Netty's event loops) from its affinity mask, so it is told by
the mask itself; Node.js's os.availableParallelism() follows the mask too (libuv reads sched_getaffinity),
its libuv pool is 4 threads whatever the CPUs; MariaDB sizes nothing from the CPU count in the settings the
harness runs it with (one thread per connection; thread_pool_size only applies to the pool-of-threads
scheduler, and its InnoDB I/O threads are a fixed 4), so the mask alone holds it to its CPUs.
"""
from __future__ import annotations

import os
import re
import subprocess
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

PARTIES = ("variant", "database", "load")
#: the load client's nice value where it shares a CPU with a measured party (Layout.load_yields)
LOAD_NICE = 10
#: CPU µs an order at saturation, per-sale, median over every row (module docstring)
DEFAULT_WEIGHTS = {"variant": 40.0, "database": 23.0, "load": 10.0}
KINDS = ("isolated", "shared")


class LayoutError(ValueError):
    pass


def parse_cpus(text: str) -> tuple[int, ...]:
    """A CPU list as taskset and /proc write it: "0-3,8,10-11"."""
    out: list[int] = []
    for part in text.replace(" ", "").split(","):
        if not part:
            continue
        m = re.fullmatch(r"(\d+)(?:-(\d+))?", part)
        if not m:
            raise LayoutError(f"not a CPU list: {text!r} (e.g. 1 or 0-3,8)")
        lo, hi = int(m.group(1)), int(m.group(2) or m.group(1))
        if hi < lo:
            raise LayoutError(f"not a CPU list: {text!r} ({part}: the range runs backwards)")
        out += range(lo, hi + 1)
    if not out:
        raise LayoutError(f"an empty CPU list: {text!r}")
    return tuple(sorted(set(out)))


def cpus_text(cpus: Iterable[int]) -> str:
    """(0, 1, 2, 5) -> "0-2,5"."""
    cpus = sorted(set(cpus))
    runs: list[str] = []
    i = 0
    while i < len(cpus):
        j = i
        while j + 1 < len(cpus) and cpus[j + 1] == cpus[j] + 1:
            j += 1
        runs.append(str(cpus[i]) if i == j else f"{cpus[i]}-{cpus[j]}")
        i = j + 1
    return ",".join(runs)


def available() -> tuple[int, ...]:
    """The CPUs this process may run on (a container's or taskset's limit included)."""
    return tuple(sorted(os.sched_getaffinity(0)))


def siblings(cpu: int) -> tuple[int, ...]:
    """CPU's SMT siblings, itself included (itself alone where the kernel says nothing)."""
    path = Path(f"/sys/devices/system/cpu/cpu{cpu}/topology/thread_siblings_list")
    try:
        return parse_cpus(path.read_text().strip())
    except (OSError, LayoutError):
        return (cpu,)


def physical_cores(cpus: Iterable[int]) -> list[tuple[int, ...]]:
    """CPUS grouped by physical core (SMT siblings together), in CPU order."""
    cpus = set(cpus)
    seen: set[int] = set()
    cores = []
    for c in sorted(cpus):
        if c in seen:
            continue
        group = tuple(s for s in siblings(c) if s in cpus) or (c,)
        seen.update(group)
        cores.append(group)
    return cores


def deal(n: int, weights: list[float]) -> list[int]:
    """N whole cores dealt in proportion to WEIGHTS by largest remainder, at least one each (N >= len)."""
    total = sum(weights)
    exact = [n * w / total for w in weights]
    counts = [max(1, int(x)) for x in exact]
    while sum(counts) > n:                                  # the at-least-one took too many: from the largest
        i = max(range(len(counts)), key=lambda k: (counts[k] - exact[k], counts[k]))
        counts[i] -= 1
    while sum(counts) < n:
        i = max(range(len(counts)), key=lambda k: exact[k] - counts[k])
        counts[i] += 1
    return counts


@dataclass(frozen=True)
class Layout:
    """The CPUs of each party; None: a party not pinned (the shared layout: every CPU)."""
    kind: str
    variant: tuple[int, ...] | None = None
    database: tuple[int, ...] | None = None
    load: tuple[int, ...] | None = None
    machine: tuple[int, ...] = field(default_factory=available)

    def cpus(self, party: str) -> tuple[int, ...] | None:
        found: tuple[int, ...] | None = getattr(self, party)
        return found

    def taskset(self, party: str) -> list[str]:
        """The argv prefix that starts a process on PARTY's CPUs ([] when not pinned); the load client, where it
        shares a CPU with the database or the variant, at a lower priority (load_yields)."""
        cpus = self.cpus(party)
        if not cpus:
            return []
        return ["taskset", "-c", cpus_text(cpus)] + (["nice", "-n", str(LOAD_NICE)] if party == "load" and
                                                     self.load_yields else [])

    @property
    def load_yields(self) -> bool:
        """Whether the load client shares a CPU with a measured party (the database or the variant; on 2 CPUs
        it shares one), and so yields it: the database and the variant are what is measured, the load client
        only has to keep the variant busy. A closed loop with no pause is always ready to run; at an equal
        share it took half of the CPU it shared (measured with the kernel's autogroup on: beside the database,
        java-threads stored 413,242 sales/min against 805,504 where the two took what each needed; beside
        the variant, java-threads 503,274 and java-virtual 430,641, each held to half its CPU)."""
        load = set(self.load or ())
        return bool(load & (set(self.database or ()) | set(self.variant or ())))

    @property
    def isolated(self) -> bool:
        """Every party pinned and no two sharing a CPU (on 2 CPUs the database and the load client share one:
        the variant alone on its own is what the layout isolates)."""
        return (self.variant is not None and self.database is not None and self.load is not None
                and not set(self.variant) & (set(self.database) | set(self.load)))

    def with_variant_cpus(self, count: int) -> Layout:
        """The same machine with the variant on COUNT CPUs (the cores axis): the variant on the last COUNT
        CPUs, the database and the load client dealt the rest (sharing the first where none is left)."""
        cpus = self.machine
        if count > len(cpus):
            raise LayoutError(f"{count} CPUs for the variant: this machine lets the harness use {len(cpus)} "
                              f"({cpus_text(cpus)})")
        variant = cpus[-count:]
        rest = [c for c in cpus if c not in variant]
        if not rest:
            first = (cpus[0],)
            return Layout("isolated", variant, first, first, self.machine)
        database, load = split_rest(rest)
        return Layout("isolated", variant, database, load, self.machine)

    def record(self) -> dict[str, Any]:
        """What a results folder keeps of it (results-format.md, "layout")."""
        used = sorted({c for p in PARTIES for c in (self.cpus(p) or self.machine)})
        return {"kind": self.kind, "isolated": self.isolated,
                "cpus": {p: list(c) if (c := self.cpus(p)) else None for p in PARTIES},
                "machineCpus": list(self.machine),
                "smtSiblings": {str(c): list(siblings(c)) for c in used}}


def split_rest(rest: list[int]) -> tuple[tuple[int, ...], tuple[int, ...]]:
    """The database's and the load client's CPUs out of REST, by physical core, in proportion to their cost."""
    cores = physical_cores(rest)
    if len(cores) == 1:
        return tuple(rest), tuple(rest)
    n_db, _ = deal(len(cores), [DEFAULT_WEIGHTS["database"], DEFAULT_WEIGHTS["load"]])
    return _flat(cores[:n_db]), _flat(cores[n_db:])


def _flat(groups: Iterable[tuple[int, ...]]) -> tuple[int, ...]:
    """The CPUs of GROUPS (physical cores), in order."""
    return tuple(sorted(c for g in groups for c in g))


def default(cpus: Iterable[int] | None = None) -> Layout:
    """The isolated layout of CPUS (default: those this process may use): module docstring."""
    cpus = tuple(sorted(cpus or available()))
    cores = physical_cores(cpus)
    if len(cores) == 1:
        return Layout("shared", machine=cpus)      # one core cannot be split: nothing to isolate
    if len(cores) == 2:
        return Layout("isolated", _flat(cores[1:]), _flat(cores[:1]), _flat(cores[:1]), cpus)
    n_var, n_db, _ = deal(len(cores), [DEFAULT_WEIGHTS[p] for p in PARTIES])
    # the database and the load client on the first cores (CPU 0 takes most interrupts), the variant on the last
    return Layout("isolated", _flat(cores[-n_var:]), _flat(cores[:n_db]), _flat(cores[n_db:len(cores) - n_var]), cpus)


def build(kind: str = "isolated", pins: dict[str, str] | None = None, variant_cpus: int | None = None) -> Layout:
    """The layout a command's options ask for: KIND, then PINS (party -> CPU list) over it, or the variant on
    VARIANT_CPUS CPUs (the cores axis)."""
    if kind not in KINDS:
        raise LayoutError(f"--layout {kind}: one of {', '.join(KINDS)}")
    machine = available()
    if kind == "shared":
        if pins or variant_cpus:
            raise LayoutError("--layout shared puts every process on every CPU: --pin and --cores need the isolated one")
        return Layout("shared", machine=machine)
    base = default(machine)
    if variant_cpus:
        base = base.with_variant_cpus(variant_cpus)
    if not pins:
        return base
    parts = {p: base.cpus(p) for p in PARTIES}
    for party, text in pins.items():
        if party not in PARTIES:
            raise LayoutError(f"--pin {party}=...: the parties are {', '.join(PARTIES)}")
        cpus = parse_cpus(text)
        missing = set(cpus) - set(machine)
        if missing:
            raise LayoutError(f"--pin {party}={text}: CPU {cpus_text(missing)} is not among this machine's "
                              f"{cpus_text(machine)}")
        parts[party] = cpus
    if "variant" in pins and not ({"database", "load"} & set(pins)):
        rest = [c for c in machine if c not in (parts["variant"] or ())]
        parts["database"], parts["load"] = split_rest(rest) if rest else ((machine[0],), (machine[0],))
    return Layout("isolated", parts["variant"], parts["database"], parts["load"], machine)


def pin_option(text: str) -> tuple[str, str]:
    """argparse type of --pin PARTY=CPUS."""
    party, sep, cpus = text.partition("=")
    if not sep or party not in PARTIES:
        raise LayoutError(f"--pin {text}: PARTY=CPUS, PARTY one of {', '.join(PARTIES)} (e.g. variant=1)")
    parse_cpus(cpus)
    return party, cpus


# --- held to it, and read back ---------------------------------------------------------------------

def allowed(pid: int) -> str | None:
    """PID's Cpus_allowed_list as the kernel has it (None: gone)."""
    try:
        with open(f"/proc/{pid}/status") as f:
            for line in f:
                if line.startswith("Cpus_allowed_list:"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        return None
    return None


def allowed_of_tree(pids: Iterable[int]) -> list[str]:
    """Every Cpus_allowed_list among the threads of PIDS's process trees (one entry when all agree)."""
    import psutil
    seen: list[str] = []
    for root in pids:
        try:
            procs = [psutil.Process(root), *psutil.Process(root).children(recursive=True)]
        except psutil.NoSuchProcess:
            continue
        for p in procs:
            try:
                tids = os.listdir(f"/proc/{p.pid}/task")
            except OSError:
                continue
            for tid in tids:
                a = allowed(int(tid))
                if a is not None and a not in seen:
                    seen.append(a)
    return seen


def yield_group(pid: int) -> None:
    """With the kernel's autogroup on, a process started in a session of its own is a scheduling group of its
    own, and its nice value only orders it within that group: the group's own nice (/proc/PID/autogroup) is
    what yields to the database's group. Nothing to do without autogroup (the nice value then holds)."""
    try:
        with open(f"/proc/{pid}/autogroup", "w") as f:
            f.write(str(LOAD_NICE))
    except OSError:
        pass


def pin_running(pid: int, cpus: Iterable[int]) -> bool:
    """Every thread of the running process PID on CPUS; its new threads inherit it from the thread that makes
    them. False when it could not be done (gone, or not ours to move)."""
    text = cpus_text(cpus)
    try:
        return subprocess.run(["taskset", "-a", "-p", "-c", text, str(pid)], capture_output=True,
                              timeout=10).returncode == 0
    except (OSError, subprocess.TimeoutExpired):
        return False


def read_back_matches(rec: dict[str, Any], allowed: Mapping[str, list[str]]) -> bool:
    """Whether a window's Cpus_allowed_list read back (ALLOWED: party -> the lists of its threads) is what its
    layout REC asked for; the link runs on the database's CPUs."""
    cpus: dict[str, Any] = rec.get("cpus") or {}
    machine = cpus_text(rec.get("machineCpus") or available())
    want = {"variant": cpus.get("variant"), "database": cpus.get("database"), "link": cpus.get("database"),
            "loadclient": cpus.get("load")}
    for party, lists in allowed.items():
        expected = cpus_text(w) if (w := want.get(party)) else machine
        if any(parse_cpus(x) != parse_cpus(expected) for x in lists):
            return False
    return True


def describe(rec: dict[str, Any] | None) -> str:
    """A results folder's layout in a line (an older folder without one: the shared layout)."""
    if not rec:
        return "shared: every process on every CPU (recorded before a layout was)"
    if rec.get("kind") == "shared":
        return f"shared: every process on every CPU ({cpus_text(rec.get('machineCpus') or [])})"
    cpus = rec.get("cpus") or {}
    names = {"variant": "variant", "database": "database", "load": "load client"}
    by_set: dict[str, list[str]] = {}
    for p in PARTIES:
        by_set.setdefault(cpus_text(cpus.get(p) or []), []).append(names[p])
    parts = [f"{' and '.join(who)} on CPU {where}" for where, who in by_set.items()]
    smt = rec.get("smtSiblings") or {}
    smt_text = "no SMT siblings" if all(len(v) == 1 for v in smt.values()) else \
        "SMT siblings " + "; ".join(sorted({cpus_text(v) for v in smt.values() if len(v) > 1}))
    kind = "isolated" if rec.get("isolated") else "pinned, not isolated"
    return f"{kind}: " + "; ".join(parts) + f" ({len(rec.get('machineCpus') or [])} CPUs, {smt_text})"
