"""The commands' options, typed, every command's here: one frozen object per command, made from the parsed command line here
(`of`), checked here (a value that cannot be measured is refused before anything starts: OptionsError, exit 2) and
handed down as it is. Nothing below the command line changes it; what a command adds to the results' `options`
(compare baseline's two cases) it adds to a copy (`recorded`).

The field names are the options' (`--db-cpu` is `db_cpu`): they are the keys of the results' `options`.
"""
from __future__ import annotations

import argparse
import dataclasses
from collections.abc import Callable
from dataclasses import dataclass, fields
from typing import Any, Protocol, TypeVar, runtime_checkable

from ..analysis.crowded import REMEASURE
from ..model.calibrate import BUSY_LATENCY, BUSY_LOAD, WAITING_LATENCY, WAITING_LOAD, HeldOut
from ..run.layout import Layout, LayoutError, available
from ..run.layout import build as build_layout

T = TypeVar("T", bound="Measure")
O = TypeVar("O")

SWEEPS = ("latency", "rates", "engines", "in-flight", "cores")
MAP_KINDS = ("far", "busy", "durable")
# the map's default grid: four round trips from "same machine" to the 2014 article's slow database, three
# open-loop rates from well within every design's reach to beyond this machine's ceiling (about 9,000 orders/s
# per-sale on 2 cores)
MAP_LATENCIES = (0, 2, 10, 50)
MAP_LOADS = (500, 2000, 8000)
# a busy database's rows: its capacity is its cores ÷ its CPU per sale, 44–120 µs (docs/model.md), so one core
# stores 8,000–23,000 sales/s, about what the heaviest default load makes (8,000 orders/s, 7,100 sales/s): the
# least held row; each step down puts the capacity under one more load (0.5 and 0.25: under 8,000/s; 0.1,
# 830–2,300 sales/s: under 2,000/s on the slower machine). More than one core is no quota on 2 cores
MAP_DB_CPUS = (1.0, 0.5, 0.25, 0.1)


class OptionsError(ValueError):
    """Options that do not go together, or a value this machine cannot measure: the command exits 2 with it."""


def _frozen(v: Any) -> Any:
    """A list from the parser as a tuple (pins as pairs), so that the options object holds no mutable value."""
    if isinstance(v, list):
        return tuple(_frozen(x) for x in v)
    return v


def made(cls: type[O]) -> Callable[[argparse.Namespace], O]:
    """The options maker of a small command: CLS (a frozen dataclass) of the parsed fields of the same names."""
    def of(ns: argparse.Namespace) -> O:
        return cls(**{f.name: _frozen(getattr(ns, f.name)) for f in fields(cls)})  # type: ignore[arg-type]
    return of


@runtime_checkable
class Placed(Protocol):
    """Options of a command that measures: the CPU layout it asks for, built once at the edge (cli/main.py puts it
    in the context every process of the command is started from)."""

    def layout_built(self) -> Layout: ...


@dataclass(frozen=True)
class Runs:
    """diff's two results folders."""
    run_a: str
    run_b: str


@dataclass(frozen=True)
class Run:
    """report's results folder."""
    run: str


@dataclass(frozen=True, kw_only=True)
class Measure:
    """What every measuring command is given. A command whose parser lacks an option gets the default here (a
    sweep has no --profile, the map no --warmup)."""
    engines: int = 4
    wait: int = 0
    concurrency: int = 64
    duration: int = 30
    warmup: str = "auto"
    warmup_max: int = 120
    jit_warmup_max: int = 90
    remeasure: int = 0          # a crowded window measured again at most this many times (map, latency sweep)
    persist: str = "per-sale"
    db_latency: int = 0
    rate: int | None = None
    label: str = ""
    nodes: int = 1
    repeat: int = 1
    no_verify: bool = False
    no_calibrate: bool = False
    calibration_duration: int = 10
    calibration_warmup: str = "auto"
    calibration_warmup_max: int = 45
    max_error_rate: float | None = None
    out: str | None = None
    db_cpu: float | None = None
    db_durable: bool = False
    layout: str = "isolated"
    pin: tuple[tuple[str, str], ...] = ()
    profile: bool = False

    @classmethod
    def of(cls: type[T], ns: argparse.Namespace) -> T:
        """The options of the parsed command line NS (what its parser lacks, or leaves None where a list is
        expected: the defaults above); checked."""
        given = {f.name: _frozen(getattr(ns, f.name)) for f in fields(cls) if hasattr(ns, f.name)}
        empty = {f.name for f in fields(cls) if isinstance(f.default, tuple) and given.get(f.name, ()) is None}
        return cls(**{k: v for k, v in given.items() if k not in empty})

    def __post_init__(self) -> None:
        why = self.refusal()
        if why:
            raise OptionsError(why)

    def refusal(self) -> str | None:
        """Why these options cannot be measured, or None."""
        if self.duration <= 0:
            return f"--duration {self.duration}: a window of at least one second"
        if self.repeat <= 0:
            return f"--repeat {self.repeat}: at least one window"
        if self.engines <= 0:
            return f"--engines {self.engines}: at least one engine"
        if self.concurrency <= 0:
            return f"--concurrency {self.concurrency}: at least one connection"
        if self.max_error_rate is not None and not 0 <= self.max_error_rate <= 1:
            return f"--max-error-rate {self.max_error_rate:g}: a share between 0 and 1"
        try:
            self.layout_built()
        except LayoutError as e:
            return str(e)
        return None

    def layout_built(self) -> Layout:
        """The layout asked for (--layout, --pin) on this machine's CPUs."""
        return build_layout(self.layout, dict(self.pin))

    def recorded(self, **more: Any) -> dict[str, Any]:
        """What the results' `options` keep of these options (plus MORE): a new dict, these options unchanged."""
        return {**dataclasses.asdict(self), **more}


@dataclass(frozen=True, kw_only=True)
class Bench(Measure):
    """bench and profile: one variant (a name, a comma-separated list, or all)."""
    variant: str


@dataclass(frozen=True, kw_only=True)
class Compare(Measure):
    variants: str | None = None
    all_rows: bool = False
    processes: int = 2
    target: float = 5.0
    budget: float = 10.5
    fail_above: float | None = None
    experiment: str | None = None
    cases: str | None = None
    fresh: bool = False
    baseline: str | None = None

    def refusal(self) -> str | None:
        if self.target <= 0:
            return "--target: above 0"
        if self.budget < 0:       # 0: each row gets its --processes and no more
            return "--budget: 0 or more minutes"
        return super().refusal()


@dataclass(frozen=True, kw_only=True)
class Sweep(Measure):
    """A sweep of KIND (SWEEPS) over VARIANT: the values of its axis in the field of that name."""
    variant: str
    kind: str
    latencies: tuple[int, ...] = ()       # latency: the --db-latency list
    rates: tuple[int, ...] = ()           # rates
    engines_list: tuple[int, ...] = ()    # engines (rates: optional)
    in_flight: tuple[int, ...] = ()       # in-flight
    cores: tuple[int, ...] = ()           # cores
    settle: int = 5
    equal_in_flight: int | None = None
    processes: int = 2

    def recorded(self, **more: Any) -> dict[str, Any]:
        """As Measure's, without the other kinds' axes (empty)."""
        axes = ("latencies", "rates", "engines_list", "in_flight", "cores")
        return {k: v for k, v in super().recorded(**more).items() if not (k in axes and not v)}

    def refusal(self) -> str | None:
        if self.kind not in SWEEPS:
            return f"no sweep {self.kind!r} (the sweeps: {', '.join(SWEEPS)})"
        axis = {"latency": self.latencies, "rates": self.rates, "engines": self.engines_list,
                "in-flight": self.in_flight, "cores": self.cores}[self.kind]
        if not axis:
            return f"sweep {self.kind} needs its values (see ./tradebench sweep {self.kind} --help)"
        if self.kind == "cores":
            machine = available()
            if self.layout == "shared" or self.pin:
                return "sweep cores sets the variant's CPUs of the isolated layout: not with --layout shared or --pin"
            if max(self.cores) > len(machine):
                return f"--cores {max(self.cores)}: this machine lets the harness use {len(machine)} CPUs"
        return super().refusal()


@dataclass(frozen=True, kw_only=True)
class Map(Measure):
    """The map: every variant over a slow database of DB_KIND x offered load."""
    variants: str | None = None
    db_kind: str = "far"
    latencies: tuple[int, ...] = MAP_LATENCIES
    db_cpus: tuple[float, ...] = MAP_DB_CPUS
    loads: tuple[int, ...] = MAP_LOADS
    settle: int = 5
    processes: int = 2

    def refusal(self) -> str | None:
        if self.db_kind != "far" and self.latencies != MAP_LATENCIES:
            return f"--latencies is the far map's axis; --db-kind {self.db_kind} measures every cell at +0 ms"
        if self.db_kind != "busy" and self.db_cpus != MAP_DB_CPUS:
            return "--db-cpus is the busy map's axis: add --db-kind busy"
        if self.db_kind == "busy" and self.db_cpu:
            return "--db-kind busy sets the database's cores per cell: --db-cpu (the whole run's) does not go with it"
        if self.db_kind == "durable" and self.db_durable:
            return ("--db-kind durable syncs the commits of half the cells: --db-durable (the whole run's) does not "
                    "go with it")
        return super().refusal()


# --- predict's (cli/predict.py makes them, cli/predict_answers.py answers them) ----------------------------------

@dataclass(frozen=True)
class Question:
    """What `predict` is asked: a load (RATE orders/s, None: a closed loop with no pause) behind a database."""
    db_latency: float
    rate: float | None
    cores: float | None
    persist: str
    db_cpu: float | None
    db_durable: bool
    params: str | None
    layout: str | None          # None: the layout the set measured (_resolved)

    @property
    def saturation(self) -> bool:
        return self.rate is None


@dataclass(frozen=True)
class FitOptions:
    runs: tuple[str, ...]
    shape_from: tuple[str, ...]
    fsync: tuple[str, ...]
    held_out: tuple[str, ...]
    out: str | None


@dataclass(frozen=True)
class CheckOptions:
    run: str
    params: str | None
    in_sample: bool


@dataclass(frozen=True)
class ProbeOptions:
    out: str | None


# --- the parameter set ------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class HoldOutOptions:
    """predict hold-out's: the parameter file, the two sittings' folders, where the set goes (None: the same file)."""
    params: str
    first: tuple[str, ...]
    second: tuple[str, ...]
    out: str | None


@dataclass(frozen=True)
class RepeatOptions:
    """predict repeatability's: the two sittings of the same cells."""
    first: str
    second: str


@dataclass(frozen=True)
class CalibrateOptions:
    """calibrate's: the cells it measures (model/calibrate.py's defaults), where the set goes."""
    variants: str | None
    loads: tuple[int, ...]
    far_load: int
    far_latency: int
    held_out_load: int
    held_out_latency: int
    window: int
    settle: int
    jit_warmup_max: int
    out: str | None
    refit: str | None = None       # an earlier calibration's folder, fitted again
    waiting_load: int = WAITING_LOAD
    waiting_latency: int = WAITING_LATENCY     # 0: no waiting window (a calibration made before it had one)
    remeasure: int = REMEASURE      # a crowded window measured again at most this many times
    busy_load: int = BUSY_LOAD
    busy_latency: int = BUSY_LATENCY           # 0: no busy window (a calibration made before it had one)

    @property
    def held(self) -> HeldOut:
        """The cell the set is scored on and not fitted from."""
        return HeldOut(self.held_out_load, self.held_out_latency)

    def layout_built(self) -> Layout:
        """Each party on CPUs of its own, as every measuring command measures: the set records its layout."""
        return build_layout("isolated")


@dataclass(frozen=True)
class Isolation:
    experiment: str
    rows: tuple[str, ...]
    phase_seconds: float | None
    out: str | None
    layout: str

    def layout_built(self) -> Layout:
        """The layout asked for (--layout) on this machine's CPUs."""
        return build_layout(self.layout)

    def __post_init__(self) -> None:
        if self.phase_seconds is not None and self.phase_seconds < 2:
            raise OptionsError(f"--phase-seconds {self.phase_seconds:g}: at least 2 (a phase's seconds carry its interval)")


# --- the small commands' ---------------------------------------------------------------------------------------

@dataclass(frozen=True)
class Nothing:
    """A command without options."""


@dataclass(frozen=True)
class Given:
    """A command that hands its arguments on as they are (db, load, verify, replay, bench-model, predict)."""
    args: tuple[str, ...]


@dataclass(frozen=True)
class Serve:
    variant: str


@dataclass(frozen=True)
class E2e:
    variants: str | None


@dataclass(frozen=True)
class Reliability:
    variants: tuple[str, ...]


@dataclass(frozen=True)
class Fuzz:
    variants: tuple[str, ...]
    seed: str | None
    max_examples: int | None

    def __post_init__(self) -> None:
        if self.max_examples is not None and self.max_examples <= 0:
            raise OptionsError(f"--max-examples {self.max_examples}: at least one case per operation")


@dataclass(frozen=True)
class ClusterTest:
    only: str | None


@dataclass(frozen=True)
class Test:
    tier: str | None


@dataclass(frozen=True)
class Site:
    """The site's folder (None: results/site), the folders of the user's runs (none: results/), pairs named."""
    out: str | None
    results: tuple[str, ...]
    pair: tuple[tuple[str, str], ...]
    reports: str = "all"
