"""What a measurement is made of, for every command that measures (bench, compare, sweep, map):

  Series   a variant row: the variant with its row's settings, ENGINES and persist mode
  Window   one measured load: the database as it is in that window (its added latency; a map along a busy
           or durable database also its cores or whether its commits are synced) and the offered load
  Timing   how long each step lasts (verify, JIT warm-up, warm-up, settle, window)
  Unit     one process of a series and the windows measured on it, in order

The commands differ only in how they cut their work into units: `compare --fresh` starts a process for
every repeat of every row (a unit of one window), `compare` and `bench` one process per row with its repeats
as windows, the sweep and the map one process per row with every cell as a window. Every unit then goes
through the same steps (instance.measure_unit) and every command writes the same results document
(execute.execute).
"""
from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

from ..analysis import bounds
from ..run.variants import Variant, row_label

#: seconds of each round-trip probe (one connection, single rows, through the link at one latency): 40 inserts
#: behind 50 ms, thirteen thousand next door
PROBE_SECONDS = 2
#: seconds to give a window its own database and put it back (a cgroup's files, a few SQL statements)
SETTING_SECONDS = 1
#: seconds a window costs beyond its settle and its measured seconds: the drain (half a second where nothing
#: waits), a fresh load client, its sales counted (12.1-12.3 s from one calibrate window's start to the next, 2026-11-29)
WINDOW_OVERHEAD_S = 3


@dataclass
class Case:
    """A case of the generic table (bench, compare, an experiment file): a load and the settings of a row."""
    label: str = ""
    engines: int = 4
    wait_ms: int = 0
    concurrency: int = 64
    persist: str = "per-sale"
    db_latency_ms: int = 0
    rate: int | None = None
    settings: dict[str, Any] = field(default_factory=dict)     # extra variant settings (THREADS=virtual, ...)
    nodes: int = 1                                   # cluster members on loopback (java-spray-async's cluster mode)
    variants: list[str] | None = None                # None: every variant of the run


@dataclass
class Window:
    latency_ms: int = 0
    concurrency: int = 64
    wait_ms: int = 0
    rate: int | None = None
    # the database of this window alone, set just before it and put back after (run/slowdb.py); None: as the
    # whole run has it (--db-cpu, --db-durable)
    db_cpu: float | None = None        # its server held to this many cores
    db_durable: bool | None = None     # every commit synced (True) or not (False)

    @property
    def load_text(self) -> str:
        return f"{self.rate}/s" if self.rate else f"{self.concurrency} clients, wait {self.wait_ms} ms"

    @property
    def database(self) -> tuple[int, float | None, bool | None]:
        return self.latency_ms, self.db_cpu, self.db_durable

    @property
    def db_key(self) -> str:
        return db_key(*self.database)

    @property
    def db_text(self) -> str:
        return db_text(*self.database)

    @property
    def db_slug(self) -> str:
        return db_slug(*self.database)


def cores_text(cores: float) -> str:
    return f"{cores:g} core" + ("" if cores == 1 else "s")


def db_key(latency_ms: int, cpu: float | None = None, durable: bool | None = None) -> str:
    """A window's database as a key of the round trips measured (results' cells.rttMs): the added latency alone
    ("10", as every folder before a window could hold its own cores or syncing), else with them
    ("0, 0.25 cores", "0, synced")."""
    return ", ".join([str(latency_ms)] + ([cores_text(cpu)] if cpu is not None else [])
                     + ([("synced" if durable else "not synced")] if durable is not None else []))


def db_slug(latency_ms: int, cpu: float | None = None, durable: bool | None = None) -> str:
    """A window's database in a file's name: 10ms, 0ms-0.25cores, 0ms-synced."""
    return "-".join([f"{latency_ms}ms"] + ([f"{cpu:g}cores"] if cpu is not None else [])
                    + ([("synced" if durable else "not-synced")] if durable is not None else []))


def db_text(latency_ms: int, cpu: float | None = None, durable: bool | None = None) -> str:
    """A window's database for the log: +10 ms, +0 ms with 0.25 cores, +0 ms with every commit synced."""
    extra = ([cores_text(cpu)] if cpu is not None else []) + \
        ([("every commit synced" if durable else "commits not synced")] if durable is not None else [])
    return f"+{latency_ms} ms" + (f" with {' and '.join(extra)}" if extra else "")


@dataclass
class Series:
    """A variant with its row's settings, ENGINES and persist mode (a line of a table, a curve of a chart)."""
    variant: Variant
    engines: int
    persist: str
    settings: dict[str, Any] = field(default_factory=dict)    # the row's settings (WORKERS=threads, ...)
    case: str = ""                                  # the case's label, or why this row is there ("equal in-flight")
    nodes: int = 1
    cores: int | None = None                        # the variant on this many CPUs (the cores axis); None: the layout's

    @property
    def name(self) -> str:
        extra = row_label(self.settings)
        return self.variant.name + (f" {extra}" if extra else "") + (f" ({self.case})" if self.case else "")

    @property
    def slug(self) -> str:
        return "".join(c for c in self.name.replace(" ", "-") if c.isalnum() or c in "-_.")

    def run_settings(self, env: dict[str, Any]) -> dict[str, Any]:
        return settings_of(self.variant, self.engines, self.persist, self.settings, env)

    def in_flight(self, env: dict[str, Any]) -> int | None:
        return bounds.in_flight(self.variant, self.persist, self.run_settings(env))


@dataclass
class Timing:
    window: int = 15                  # measured seconds of each window
    warmup: str = "auto"              # the first window's warm-up: "auto" (until steady) or seconds
    warmup_max: int = 120             # the auto warm-up's bound
    settle: int = 2                   # seconds of load before each later window (what came before is drained first)
    verify: bool = True
    jit_warmup_max: int = 90          # a JVM's load until its JIT is quiet, at most this long (0: none)
    max_error_rate: float | None = None
    link: bool = False                # Toxiproxy in the path at every window, +0 ms included (sweep, map)
    profile: bool = False             # a CPU profile of the variant over every measured window (measure/profile.py)
    remeasure: int = 0                # a window others crowded measured again, at most this many times
    live_heap: bool = True            # each window's live heap read after it (a JVM: a full collection, 1 s or so)


@dataclass
class Calibration:
    """The calibration's own timing (bench and compare): each ceiling measured with this warm-up and window."""
    duration: int = 10
    warmup: str = "auto"
    warmup_max: int = 45


@dataclass
class Unit:
    """One process of SERIES and its windows in order, each with its repeat number."""
    series: Series
    windows: list[tuple[int, Window]]
    timing: Timing | None = None      # its own timing (the adaptive compare: a row's later processes unverified)


def settings_of(v: Variant, engines: int, persist: str, settings: dict[str, Any], env: dict[str, Any]) -> dict[str, Any]:
    """The environment the variant gets: the row's settings over the caller's environment, for every setting
    its manifest declares; every one of them recorded, as the variant will see it."""
    given = {k: env[k] for k in v.settings if env.get(k) not in (None, "")}
    given.update({k: str(x) for k, x in settings.items()})
    given["ENGINES"] = str(engines)
    given["PERSIST"] = persist
    return {k: str(x) for k, x in v.effective_settings(given).items()}


def in_flight_settings(v: Variant, persist: str, n: int) -> dict[str, Any] | None:
    """The settings that make V keep N inserts in flight in PERSIST mode: every setting its manifest's inFlight
    expression names, at N (ENGINES for a design that waits for each INSERT, DB_POOL for a pool, both of
    min(ENGINES, PERSIST_THREADS)); None when it declares no in-flight count (batch)."""
    expr = (v.in_flight or {}).get(persist)
    if expr in (None, "", "none"):
        return None
    names = [k for k in v.settings if re.search(rf"\b{re.escape(k)}\b", str(expr))]
    return {k: str(n) for k in names} or None


def rows_of(variants: list[Variant], cases: list[Case], env: dict[str, Any] | None = None) -> list[tuple[Series, Window]]:
    """Every (case, variant row): a variant once per row of its manifest (node-engine: WORKERS=processes and
    threads), the row's settings over the case's; once only where ENV or the case pins the row's setting."""
    out = []
    for case in cases:
        for v in variants:
            if case.variants is None or v.name in case.variants:
                for row in v.rows_given({**(env or {}), **case.settings}):
                    # the build the row's settings pick (STACK=pekko: the Pekko jar, floor and members)
                    chosen = v.for_settings({**(env or {}), **case.settings, **row})
                    out.append((Series(chosen, case.engines, case.persist, {**case.settings, **row}, case.label,
                                       case.nodes),
                                Window(case.db_latency_ms, case.concurrency, case.wait_ms, case.rate)))
    return out


def paired(before: list[tuple[Series, Window]], after: list[tuple[Series, Window]]) -> list[tuple[Series, Window]]:
    """Each row of AFTER just behind its row of BEFORE (the same variant and settings); rows of one alone at
    the end. The two of a pair are then measured minutes apart, not a whole run apart."""
    def key(row: tuple[Series, Window]) -> tuple[Any, ...]:
        s, _ = row
        return (s.variant.name, tuple(sorted(s.settings.items())), s.engines, s.persist)
    rest = list(before)
    out = []
    for row in after:
        twin = next((b for b in rest if key(b) == key(row)), None)
        if twin:
            rest.remove(twin)
            out.append(twin)
        out.append(row)
    return out + rest


def fresh_units(rows: list[tuple[Series, Window]], repeat: int) -> list[Unit]:
    """A fresh process for every repeat of every row, round-robin: repeat 1 of every row, then repeat 2, ..."""
    return [Unit(s, [(rep, w)]) for rep in range(1, repeat + 1) for s, w in rows]


def window_units(rows: list[tuple[Series, Window]], repeat: int, processes: int = 1) -> list[Unit]:
    """One process per row (PROCESSES fresh ones each, round-robin), its repeats windows of that process back to
    back, numbered on across its processes."""
    return [Unit(s, [(p * repeat + rep, w) for rep in range(1, repeat + 1)])
            for p in range(processes) for s, w in rows]


def databases(units: list[Unit]) -> list[tuple[int, float | None, bool | None]]:
    """Every database setting the windows of UNITS ask for, once each, in the order they first come."""
    return list(dict.fromkeys(w.database for u in units for _, w in u.windows))


def grid_units(series: list[Series], cells: list[Window], repeat: int, processes: int = 1) -> list[Unit]:
    """One process per series (PROCESSES fresh ones each, round-robin: a cell then has an interval across them),
    measured at every cell, REPEAT passes over the cells (interleaved in time), numbered on across its processes."""
    return [Unit(s, [(p * repeat + rep, c) for rep in range(1, repeat + 1) for c in cells])
            for p in range(processes) for s in series]


def builds_of(units: list[Unit]) -> list[Any]:
    """Every build the units run, once: by name, build and repository (java-spray-async's Akka and Pekko rows
    are two builds with two floors; compare baseline runs a variant from two trees), and the members' build of a
    unit that runs cluster members. The measurement builds them before anything starts (execute.py), and
    nothing after."""
    out: dict[tuple[Any, ...], Any] = {}
    for u in units:
        v = u.series.variant
        out.setdefault((v.name, v.label, v.root), v)
        if u.series.nodes > 1 and v.cluster is not None:
            for w in (v, *v.when.values()):
                if w.cluster is not None:
                    out.setdefault((w.cluster.name, "cluster " + w.cluster.label, w.cluster.root), w.cluster)
    return list(out.values())


def estimate_seconds(units: list[Unit], t: Timing, env: dict[str, Any], calibration: Calibration | None = None) -> int:
    """The wall time of UNITS: for each, its start (twice when verified: the market is emptied by a restart),
    verify, the JIT warm-up of a JVM, the first window's warm-up, and every window with its settle and drain
    (and the setting of a window's own database: a cgroup written, SQL run, both put back after); the
    round-trip probes of a run through the link, one per database setting; the calibration's ceilings."""
    first_warm = min(t.warmup_max, 30) if t.warmup == "auto" else int(t.warmup)
    out = 0
    whole = t
    for u in units:
        t = u.timing or whole
        java = u.series.variant.runtime == "java"
        start = (8 if java else 3) * max(1, u.series.nodes)
        # verify: about 10 s of the load client's checks (measured: 10-14 s with the restart on a busy 2-core machine)
        out += start * (2 if t.verify else 1) + (10 if t.verify else 0) + (min(t.jit_warmup_max, 45) if java else 0)
        out += first_warm + t.window + WINDOW_OVERHEAD_S + (len(u.windows) - 1) * (t.settle + t.window + WINDOW_OVERHEAD_S)
        out += SETTING_SECONDS * sum(1 for _, w in u.windows if w.db_cpu is not None or w.db_durable is not None)
    t = whole
    settings = databases(units)
    if t.link or any(lat for lat, _, _ in settings):
        out += PROBE_SECONDS * 2 * len(settings)
        out += SETTING_SECONDS * sum(1 for _, cpu, durable in settings if cpu is not None or durable is not None)
    if calibration:
        variants = builds_of(units)
        http = len({v.runtime for v in variants}) + len({v.floor["name"] for v in variants if v.floor})
        inserts = len({u.series.variant.db_connection_count(u.series.run_settings(env)) * u.series.nodes for u in units}) \
            * len({u.series.persist for u in units})
        # an auto warm-up is usually steady in about half its bound
        w = calibration.warmup_max // 2 if calibration.warmup == "auto" else int(calibration.warmup)
        out += http * (calibration.duration + w + 8) + inserts * (calibration.duration + w + 6)
    return out
