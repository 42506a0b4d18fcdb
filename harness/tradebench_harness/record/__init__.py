"""The results record, typed: a window's figures, a run, a results folder's document (results.json with
raw.json.gz beside it) and the model's parameter file (model/parameters.json). These classes are the schema
(docs/results-format.md says what each field means); every read and write of those files goes through here.

The classes are TypedDicts, so the record stays the plain JSON-shaped dict the harness has always passed
around while a type checker checks every key. At read time `load_results` and `load_parameters` hold a file to
them: a required key that is missing, or a key no class names (a misspelling), is an error naming the key
and the file. A folder written by an older harness is brought to the current shape by `upgrade`, the one place
that knows the older shapes.

Some values are JSON of another program's making, whose keys this module does not own: the load client's
own output (`Run.load`), the command line's options as given, a calibration's measurements, the model's
section of a map. Those are `Blob`s: dicts of JSON values, not checked key by key. The derived parts of a
document (`summary`, `profiles`: computed from the runs on every read, analysis/stats.py and
report/breakdown.py, never read from a file) are `Derived` rows of the same kind.
"""

import functools
import gzip
import json
import time
import types
import typing
from pathlib import Path
from typing import Any, Literal, Union, cast

from typing_extensions import NotRequired, TypedDict, is_typeddict

# 3: as 2, without the summary and the profiles' breakdown (DERIVED_KEYS), which the report computes again from
#    the runs (they were a third of the bytes of a committed folder);
# 2: results.json without indentation, each run's raw material (RAW_KEYS) in raw.json.gz beside it;
# 1: one indented results.json holding everything. load_results reads all three.
SCHEMA_VERSION = 3
#: what results.json does not keep: computed from its runs (report/results.py derive)
DERIVED_KEYS = ("summary", "profiles")
#: what a run record keeps in raw.json.gz: its per-second process samples, the load client's own JSON and its
#: latency percentile curve. They are most of a run's bytes, the figures of results.json are already computed
#: from them, and only the charts draw from them.
RAW_KEYS = ("samples", "load", "latencyPercentiles")
RAW_FILE = "raw.json.gz"
RESULTS_FILE = "results.json"
#: the parameter file's schema (model/params.py)
PARAMETERS_SCHEMA = 1

#: JSON of another program's making (or a free-form mapping), whose keys this module does not check
Blob = dict[str, Any]
#: a row computed from the runs when a document is read, never read from a file
Derived = dict[str, Any]


class Spread(TypedDict):
    """A figure over a row's windows (analysis/stats.py `spread`, and `figure` with its interval across processes):
    derived, never read from a file. Its min and max are there wherever its median is: all three are of the
    windows that had the figure."""
    median: float
    min: float
    max: float
    n: int
    low: NotRequired[float | None]
    high: NotRequired[float | None]
    processes: NotRequired[int]


class SchemaError(ValueError):
    """A results or parameter file that does not hold to the record's classes: names the key and the file."""


# --- a run ----------------------------------------------------------------------------------------------------

class CpuGroup(TypedDict):
    """A process group's CPU and memory over a measured window (measure/figures.py, run/process.py)."""
    cpuPercent: float | None
    rootCpuPercent: NotRequired[float | None]
    jitCpuPercent: NotRequired[float | None]
    rssMaxMb: NotRequired[float | None]
    threadsMax: NotRequired[int | None]
    processes: NotRequired[int | None]
    samples: NotRequired[int]


class Sample(TypedDict):
    """One second of a process group (raw.json.gz)."""
    t: int
    cpuPercent: float | None
    rootCpuPercent: NotRequired[float | None]
    jitCpuPercent: NotRequired[float | None]
    rssMb: NotRequired[float | None]
    threads: NotRequired[int | None]
    processes: NotRequired[int | None]
    stealPercent: NotRequired[float | None]        # the machine's samples (run/process.py MACHINE)


class MachineCpu(TypedDict):
    """The rest of the machine over a measured window, 100 = one core (run/process.py `summarize_machine`)."""
    othersPercent: float              # every process but the measured parties' and the harness's
    stealPercent: float               # what the hypervisor gave to others
    samples: int


class CrowdedAttempt(TypedDict):
    """A measurement of a window that others crowded, put aside for the window measured again."""
    machineCpu: MachineCpu | None
    salesPerMinute: float | None
    logs: str


class Halves(TypedDict):
    """The measured window's two halves (the load client's)."""
    firstOrdersPerSecond: float | None
    secondOrdersPerSecond: float | None
    firstSalesPerMinute: NotRequired[float | None]
    secondSalesPerMinute: NotRequired[float | None]
    midMs: NotRequired[int | None]
    drift: float | None


class JitWarmup(TypedDict):
    seconds: float
    quiet: bool                     # the rule was met before maxS
    jitCpuPercent: float | None
    maxS: NotRequired[float]
    rule: NotRequired[str]          # "jit quiet" (a JVM) or "cpu steady" (a runtime without compiler threads)
    cpuPercent: NotRequired[float | None]    # "cpu steady": the process's CPU over the last window


class Memory(TypedDict):
    liveHeapMb: float | None
    liveHeapHow: NotRequired[str | None]


class RunProfile(TypedDict):
    """A window's CPU profile (measure/profile.py)."""
    event: str
    intervalUs: NotRequired[float | None]
    samples: int
    parts: dict[str, int]
    flameGraph: NotRequired[str | None]
    collapsed: NotRequired[str | None]


class Layout(TypedDict):
    """Where a run's processes ran (run/layout.py)."""
    kind: str
    isolated: NotRequired[bool]
    cpus: NotRequired[dict[str, list[int] | None]]
    machineCpus: NotRequired[list[int]]
    smtSiblings: NotRequired[dict[str, str]]


class Window(TypedDict):
    """The figures of one measured window (measure/figures.py `run_figures`, `fractions`). A failed window
    (`Run.error`) has none of them; a successful one has all but those its calibration or link did not give."""
    salesPerMinute: NotRequired[float]
    salesPerSecond: NotRequired[float]
    salesInWindow: NotRequired[int]
    ordersPerSecond: NotRequired[float]
    acceptedPerSecond: NotRequired[float]
    p50Ms: NotRequired[float]
    p90Ms: NotRequired[float]
    p99Ms: NotRequired[float]
    p999Ms: NotRequired[float]
    maxMs: NotRequired[float]
    answers503: NotRequired[int]
    errors: NotRequired[int]
    windowStartMs: NotRequired[int]
    windowEndMs: NotRequired[int]
    warmupMode: NotRequired[str]
    warmupS: NotRequired[float]
    steady: NotRequired[bool | None]
    warmupWindowsOrdersPerSecond: NotRequired[list[float] | None]
    halves: NotRequired[Halves | None]
    drift: NotRequired[float | None]
    driftFlagged: NotRequired[bool]
    cpu: NotRequired[dict[str, CpuGroup]]
    machineCpu: NotRequired[MachineCpu | None]
    cpuProbeMs: NotRequired[float | None]    # the machine's speed before the window's load (run/speed.py)
    cpuUsPerOrder: NotRequired[dict[str, float | None]]
    # raw.json.gz
    samples: NotRequired[dict[str, list[Sample]]]
    latencyPercentiles: NotRequired[list[list[float]] | None]
    load: NotRequired[Blob]
    # the calibration this window is divided by (measure/figures.py `fractions`)
    httpCeiling: NotRequired[float | None]
    insertCeiling: NotRequired[float | None]
    httpCeilingFraction: NotRequired[float | None]
    insertCeilingFraction: NotRequired[float | None]
    trivialServerCpuUsPerRequest: NotRequired[float | None]
    cpuPerOrderVsTrivial: NotRequired[float | None]
    dbCpuUsPerSale: NotRequired[float | None]
    insertCeilingDbCpuUsPerRow: NotRequired[float | None]
    floorCpuUsPerRequest: NotRequired[float | None]
    cpuPerOrderVsFloor: NotRequired[float | None]
    # read while the window's load ran (measure/instance.py)
    cpusAllowed: NotRequired[dict[str, list[str]]]
    dbConnectionsOpen: NotRequired[int | None]
    memory: NotRequired[Memory | None]
    pids: NotRequired[dict[str, int | None]]
    profile: NotRequired[RunProfile]
    profileError: NotRequired[str]


class Run(Window):
    """One run: a window of one variant (one row of its settings) in one case, one repeat (a `runs[]` entry).

    The keys from `variant` to `rttMs` are the unit's and the window's own settings, which measure/instance.py
    writes into every record it makes, a failed window's too (`measure_unit`, `_window_record`): a file
    without one is refused. The rest are optional: figures a failed window has not, and keys added since
    committed folders were written (`layout`, `variantCpus`, `process`, `dbCpuCores`, `dbDurable`...), whose
    absence means something of its own (`process_number` below, analysis/stats.py `process_of`,
    report/tables.py) that a filled-in value would not say."""
    variant: str
    runtime: str
    case: str
    row: str
    repeat: int
    #: the row's name in its run's plan; null in folders written before series were named
    series: str | None
    engines: int
    persist: str
    #: the client's pause between orders (closed loop); null in an open loop (`rate`)
    waitMs: int | None
    #: orders/s offered (open loop); null in a closed loop
    rate: int | float | None
    concurrency: int
    #: the latency added to the database's round trip (0: next door)
    dbLatencyMs: int | float
    settings: dict[str, str]
    dbConnections: int
    nodes: int
    floor: str | None
    inFlight: int | None
    rttMs: float | None
    dbCpuCores: NotRequired[float | None]
    dbDurable: NotRequired[bool | None]
    boundSalesPerMinute: NotRequired[float | None]
    boundFraction: NotRequired[float | None]
    layout: NotRequired[Layout]
    variantCpus: NotRequired[int]
    process: NotRequired[int]
    jitWarmup: NotRequired[JitWarmup]
    drainSeconds: NotRequired[float | None]
    #: the earlier measurements of this window that others crowded, measured again (measure/instance.py)
    crowdedAttempts: NotRequired[list[CrowdedAttempt]]
    seconds: NotRequired[float]
    startedAt: NotRequired[str]
    logs: NotRequired[str]
    error: NotRequired[str]


#: a figure of a process group (CpuGroup's keys)
GroupFigure = Literal["cpuPercent", "rootCpuPercent", "jitCpuPercent", "rssMaxMb", "threadsMax", "processes"]


def group_figure(run: Run, group: str, figure: GroupFigure) -> float | None:
    """FIGURE of a process GROUP of RUN (`cpu.<group>.<figure>`); None where the run has no such group or figure
    (a failed run, a group not sampled)."""
    cpu = run.get("cpu")
    g = cpu.get(group) if cpu else None
    return g.get(figure) if g else None


def per_order(run: Run, group: str) -> float | None:
    """The CPU µs per order of a process GROUP of RUN (`cpuUsPerOrder.<group>`); None where it has none."""
    us = run.get("cpuUsPerOrder")
    return us.get(group) if us else None


def process_number(run: Run) -> int:
    """The number of the process RUN's window was measured in, counted from 1 within its results folder
    (measure/execute.py numbers the units, measure/instance.py writes it into each window's record); 0 in a folder
    written before the number was kept, whose windows this number cannot tell apart (analysis/stats.py
    `process_of` falls back to their pids)."""
    return run.get("process", 0)


# --- a results folder -----------------------------------------------------------------------------------------

class Environment(TypedDict):
    """The machine and software a results folder was measured with (run/environment.py, which writes every key;
    a document made by a tool or a test may hold a part)."""
    gitCommit: NotRequired[str | None]
    gitDirty: NotRequired[bool | None]
    cpuModel: NotRequired[str | None]
    cores: NotRequired[int | None]
    memoryGb: NotRequired[float | None]
    kernel: NotRequired[str]
    os: NotRequired[str]
    loadAverageBefore: NotRequired[list[float]]
    jdk: NotRequired[str | None]
    javaHome: NotRequired[str | None]
    node: NotRequired[str | None]
    database: NotRequired[str | None]
    databaseDurable: NotRequired[bool | None]
    databaseCpuCores: NotRequired[float | None]
    jvmFlags: NotRequired[list[str]]
    variantJvmFlags: NotRequired[list[str]]
    heapPolicy: NotRequired[str]
    nodeFlags: NotRequired[list[str]]
    loadclientJvmFlags: NotRequired[list[str]]
    python: NotRequired[str]
    hostname: NotRequired[str]
    schedAutogroup: NotRequired[bool | None]
    layout: NotRequired[Layout]


class Calibration(TypedDict):
    """This machine's ceilings (measure/calibrate.py); `{}` when not calibrated. Its measurements are the load
    client's figures, kept as it gave them."""
    concurrency: NotRequired[int]
    waitMs: NotRequired[int]
    durationS: NotRequired[float]
    warmup: NotRequired[str | float]
    warmupS: NotRequired[float]
    warmupMaxS: NotRequired[float]
    multiRowBatch: NotRequired[int]
    http: NotRequired[dict[str, Blob]]
    floors: NotRequired[dict[str, Blob]]
    insert: NotRequired[Blob]


class Experiment(TypedDict):
    name: str
    file: str
    description: str
    article: dict[str, dict[str, float]]
    ratios: NotRequired[Blob]


class Cells(TypedDict):
    """A latency sweep's or a map's grid (measure/plan.py)."""
    kind: NotRequired[str]
    axis: NotRequired[str]
    latencies: NotRequired[list[float]]
    loads: NotRequired[list[str]]
    series: NotRequired[list[str]]
    estimateS: NotRequired[float]
    rttMs: NotRequired[dict[str, float | None]]
    dbCpus: NotRequired[list[float]]
    durable: NotRequired[list[bool]]


class AdaptiveRow(TypedDict):
    series: str
    processes: int
    windows: int
    windowsSetAside: int
    halfWidth: float | None
    withinTarget: bool
    enoughWindows: bool


class Adaptive(TypedDict):
    """How a compare chose its number of processes (measure/adaptive.py)."""
    target: float
    budgetS: float
    minProcesses: int
    maxProcesses: int
    windowsPerProcess: int
    rows: dict[str, AdaptiveRow]
    rounds: int
    stoppedShort: list[str]


class Results(TypedDict):
    """A results folder's document: results.json with each run's raw material put back from raw.json.gz, and
    the derived `summary` and `profiles` computed again (report/results.py `load`)."""
    schemaVersion: int
    runId: str
    command: str
    startedAt: NotRequired[str]
    finishedAt: NotRequired[str | None]
    elapsedS: NotRequired[float]
    environment: Environment
    options: NotRequired[Blob]
    experiment: NotRequired[Experiment | None]
    calibration: NotRequired[Calibration | None]
    runs: list[Run]
    cells: NotRequired[Cells]
    adaptive: NotRequired[Adaptive]
    #: a map's or sweep's model beside its cells (model/check.py `held_against`), computed again on a report
    model: NotRequired[Blob]
    summary: NotRequired[list[Derived]]
    profiles: NotRequired[list[Derived]]


class RawRun(TypedDict):
    samples: NotRequired[dict[str, list[Sample]]]
    load: NotRequired[Blob]
    latencyPercentiles: NotRequired[list[list[float]] | None]


class Raw(TypedDict):
    """raw.json.gz: each run's RAW_KEYS, in the order of results.json's runs[]."""
    schemaVersion: int
    runs: list[RawRun]


# --- the model's parameters -----------------------------------------------------------------------------------

class Machine(TypedDict):
    cpuModel: str | None
    cores: int | None
    memoryGb: NotRequired[float | None]


class Source(TypedDict):
    """A results folder a parameter set was fitted from."""
    runId: str | None
    folder: str
    command: str | None
    gitCommit: str
    startedAt: str
    cpuModel: NotRequired[str | None]


class SaturationPoint(TypedDict):
    cpus: int
    layout: str
    orders: float
    sales: float
    runs: NotRequired[int]
    folder: NotRequired[str]


#: A design's figures in one persist mode (model/fit.py); null where nothing measured one. Its "from" (how each
#: figure was obtained) is a Python keyword, hence the class's functional form.
DesignFigures = TypedDict("DesignFigures", {
    "cpuUsPerOrder": float | None,
    "saturationOrders": NotRequired[float | None],
    "saturationSales": NotRequired[float | None],
    "loadExponent": NotRequired[float | None],
    "cycleUs": NotRequired[float | None],
    "fixedUsPerS": NotRequired[float | None],
    "orderUs": NotRequired[float | None],
    "orderExponent": NotRequired[float | None],
    "refusedCost": NotRequired[float | None],
    "waitingCost": NotRequired[float | None],
    "insertOverheadMs": NotRequired[float | None],
    "rssBaseMb": NotRequired[float | None],
    "rssPerEngineMb": NotRequired[float | None],
    "rssEngines": NotRequired[int | None],
    "rssSaturationMb": NotRequired[float | None],
    "saturationByCpus": NotRequired[list[SaturationPoint]],
    "marginBoundFraction": NotRequired[float | None],
    "latency": NotRequired[list[list[float]] | None],
    "p99PerInFlightMs": NotRequired[float | None],
    "p99TailRatePower": NotRequired[float | None],
    "from": dict[str, str],
})


#: a term of a design's CPU cost that the fit may leave out (DesignFigures)
CostTerm = Literal["cycleUs", "fixedUsPerS", "orderUs"]


def cost_term(e: DesignFigures, name: CostTerm) -> float:
    """The term NAME of E's CPU cost; a term the fit left out (absent, or null where nothing measured it: a design
    without open-loop runs has no cost per cycle) adds nothing: 0, as model/params.py reads it."""
    value = e.get(name)
    return 0.0 if value is None else float(value)


def rss_engines(e: DesignFigures) -> int:
    """The engine count E's base memory (`rssBaseMb`) is given at; the fit writes it with every memory figure
    (model/fit.py), and 0 where there is none (nothing to take an engine's memory from)."""
    engines = e.get("rssEngines")
    return 0 if engines is None else engines


class ParameterSet(TypedDict):
    """The model's figures for the designs on one machine (model/params.py)."""
    machine: Machine
    fittedAt: NotRequired[str]
    sources: list[Source]
    shapeSources: NotRequired[list[Source]]
    salesPerOrder: Blob
    dbOwnMs: Blob
    database: NotRequired[dict[str, Blob]]
    fsyncMs: NotRequired[Blob | None]
    designs: dict[str, dict[str, DesignFigures]]
    measured: NotRequired[Blob]
    heldOut: NotRequired[Blob]
    leftOut: NotRequired[Blob]
    calibration: NotRequired[Blob]
    ceilings: NotRequired[Blob]


class Parameters(TypedDict):
    """A parameter file: model/parameters.json, or one of ./tradebench calibrate / predict fit."""
    schemaVersion: int
    about: str
    sets: list[ParameterSet]


# --- reading and writing --------------------------------------------------------------------------------------

@functools.cache
def _hints(cls: type) -> dict[str, Any]:
    hints: dict[str, Any] = typing.get_type_hints(cls)
    return hints


@functools.cache
def _container(tp: Any) -> Any:
    """Of a union, the one member that holds keys to check (a TypedDict, a list or a dict), else None."""
    held = [a for a in typing.get_args(tp) if is_typeddict(a) or typing.get_origin(a) in (list, dict)]
    return held[0] if len(held) == 1 else None


def _check(value: object, tp: Any, where: str, path: Path) -> None:
    """VALUE against the type TP: every TypedDict on the way has its required keys and no other."""
    origin = typing.get_origin(tp)
    if origin in (Union, types.UnionType):
        held = _container(tp)
        if held is not None and isinstance(value, dict | list):
            _check(value, held, where, path)
    elif is_typeddict(tp):
        _check_keys(value, tp, where, path)
    elif origin is list and isinstance(value, list):
        (item,) = typing.get_args(tp)
        for i, v in enumerate(value):
            _check(v, item, f"{where}[{i}]", path)
    elif origin is dict and isinstance(value, dict):
        _, item = typing.get_args(tp)
        for k, v in value.items():
            _check(v, item, f"{where}.{k}", path)


def _check_keys(value: object, tp: Any, where: str, path: Path) -> None:
    """VALUE as the TypedDict TP: its required keys there, no key TP does not name, each value checked."""
    if not isinstance(value, dict):
        raise SchemaError(f"{path}: {where} is not an object")
    required: frozenset[str] = tp.__required_keys__
    known = required | tp.__optional_keys__
    for key in sorted(required - value.keys()):
        raise SchemaError(f"{path}: {where} lacks the key {key!r}")
    for key in sorted(value.keys() - known):
        raise SchemaError(f"{path}: {where} has the unknown key {key!r}")
    hints = _hints(tp)
    for key, v in value.items():
        _check(v, hints[key], f"{where}.{key}", path)


def upgrade(doc: dict[str, Any], raw: list[dict[str, Any]] | None, path: Path) -> dict[str, Any]:
    """DOC, as read from PATH, in the current shape, with RAW (the runs of the raw.json.gz beside it, if any):
    the one place that knows the older layouts.

    - schema 1 (one indented results.json holding everything, runs until 2026-11-25): read as it is;
    - schema 2 (each run's RAW_KEYS in raw.json.gz, the summary and profiles kept in the file) and 3 (those
      computed on reading): each run's RAW_KEYS put back from RAW; a summary the file keeps is kept.
    Fields added since without a new schema version (`cells.axis`, a run's `dbCpuCores` and `dbDurable`,
    `layout`, `variantCpus`, `process`) are optional in the classes; report/axis.py, analysis/stats.py and
    report/tables.py say how their absence reads, which a value filled in here would change. A run's required
    keys (a window's settings, `Run`) are in every run since schema 1: none needs filling."""
    version = doc.get("schemaVersion", 1)
    if not isinstance(version, int) or not 1 <= version <= SCHEMA_VERSION:
        raise SchemaError(f"{path}: schemaVersion {version!r} is not one this harness reads (1 to {SCHEMA_VERSION})")
    doc.setdefault("schemaVersion", version)
    if version >= 2 and raw is not None:
        if len(raw) != len(doc["runs"]):
            raise SchemaError(f"{path.parent / RAW_FILE} holds {len(raw)} runs, {path} {len(doc['runs'])}")
        for run, more in zip(doc["runs"], raw, strict=True):
            run.update(more)
    return doc


def new_run_id(command: str) -> str:
    """A results folder's name and its run's id: when it started, then the command (results-format.md)."""
    return time.strftime("%Y%m%d-%H%M%S") + f"-{command}"


def results_folder(root: Path, ref: str) -> Path:
    """A results folder given by path, or by name under results/ or docs/results/; SystemExit when none."""
    p = Path(ref)
    for cand in (p, root / "results" / ref, root / "docs" / "results" / ref):
        if (cand / "results.json").is_file() or cand.is_file():
            return cand
    raise SystemExit(f"tradebench: no results.json in {ref} (nor in results/{ref}, docs/results/{ref})")


def results_file(ref: str | Path, results_dir: Path | None = None) -> Path:
    """A results.json by file, folder, or run id under RESULTS_DIR."""
    p = Path(ref)
    cands = [p, p / RESULTS_FILE] + ([results_dir / str(ref) / RESULTS_FILE] if results_dir is not None else [])
    for cand in cands:
        if cand.is_file():
            return cand
    where = f" (looked in {results_dir})" if results_dir is not None else ""
    raise FileNotFoundError(f"no {RESULTS_FILE} for {ref}{where}")


def load_results(path: Path, raw: bool = True) -> Results:
    """The results.json at PATH (a file or its folder), held to `Results` after `upgrade`; with RAW, each run's
    RAW_KEYS put back from the raw.json.gz beside it (a folder without it reads as runs without them). Its
    derived summary and profiles are not there: report/results.py `load` computes them."""
    path = results_file(path)
    doc = json.loads(path.read_text())
    if not isinstance(doc, dict) or not isinstance(doc.get("runs"), list):
        raise SchemaError(f"{path}: not a results document (no runs[])")
    raw_file = path.parent / RAW_FILE
    extra = None
    if raw and doc.get("schemaVersion", 1) >= 2 and raw_file.is_file():
        extra = json.loads(gzip.decompress(raw_file.read_bytes()))
        _check(extra, Raw, "raw", raw_file)
    doc = upgrade(doc, extra["runs"] if extra is not None else None, path)
    _check(doc, Results, "the document", path)
    return cast(Results, doc)


def write_results(folder: Path, doc: Results) -> None:
    """results.json (compact, without the DERIVED_KEYS and RAW_KEYS) and raw.json.gz (RAW_KEYS of each run, in
    the order of runs[]) of DOC into FOLDER, in this schema's version. DOC itself is left as it was."""
    lean: dict[str, Any] = {k: v for k, v in doc.items() if k not in DERIVED_KEYS}
    lean["schemaVersion"] = SCHEMA_VERSION
    lean["runs"] = [{k: v for k, v in r.items() if k not in RAW_KEYS} for r in doc["runs"]]
    (folder / RESULTS_FILE).write_text(json.dumps(lean, separators=(",", ":")))
    raw = {"schemaVersion": SCHEMA_VERSION,
           "runs": [{k: v for k, v in r.items() if k in RAW_KEYS} for r in doc["runs"]]}
    # mtime 0: the same document gives the same bytes, so a report drawn again changes nothing in git
    (folder / RAW_FILE).write_bytes(gzip.compress(json.dumps(raw, separators=(",", ":")).encode(), mtime=0))


def load_parameters(path: Path) -> Parameters:
    """A parameter file, held to `Parameters`."""
    doc = json.loads(Path(path).read_text())
    if not isinstance(doc, dict) or doc.get("schemaVersion") != PARAMETERS_SCHEMA or not isinstance(doc.get("sets"), list):
        raise SchemaError(f"{path}: not a parameter file of schema {PARAMETERS_SCHEMA}")
    _check(doc, Parameters, "the parameter file", Path(path))
    return cast(Parameters, doc)


def parameter_set(s: dict[str, Any], where: str = "a fitted parameter set") -> ParameterSet:
    """S, a set the model's fit built as a plain dict, as a `ParameterSet`: checked key by key as a file is."""
    _check(s, ParameterSet, where, Path("(built)"))
    return cast(ParameterSet, s)


def results(doc: dict[str, Any], where: str = "a results document") -> Results:
    """DOC, a results document the harness built as a plain dict, as `Results`: checked key by key as a file is."""
    _check(doc, Results, where, Path("(built)"))
    return cast(Results, doc)


def new_results(*, run_id: str, command: str, started_at: str, finished_at: str, elapsed_s: float,
                environment: Environment, options: Blob, experiment: Experiment | None, calibration: Calibration,
                runs: list[Run], cells: Cells | None = None, adaptive: Adaptive | None = None) -> Results:
    """A measuring command's results document, whole: built once, when its last window is measured
    (measure/execute.py), from what each part of the measurement returned. The derived parts (`summary`,
    `profiles`, a map's `model`) are not in it: the report computes them (`amended`)."""
    doc: dict[str, Any] = {"schemaVersion": SCHEMA_VERSION, "runId": run_id, "command": command,
                           "startedAt": started_at, "finishedAt": finished_at, "environment": environment,
                           "options": options, "experiment": experiment, "calibration": calibration, "runs": runs}
    if cells is not None:
        doc["cells"] = cells
    if adaptive is not None:
        doc["adaptive"] = adaptive
    doc["elapsedS"] = elapsed_s
    return results(doc)


def amended(doc: Results, **parts: Any) -> Results:
    """A copy of DOC with PARTS in place of its own (`summary=...`, `profiles=...`, `model=...`: what the report
    computes from the runs); a part given as None is left out. DOC itself is left as it was. A part the document
    has no key for is an error: a misspelt part never goes to a file."""
    unknown = sorted(set(parts) - set(Results.__annotations__))
    if unknown:
        raise KeyError(f"a results document has no part {', '.join(unknown)}")
    out: dict[str, Any] = {k: v for k, v in doc.items() if k not in parts}
    out.update((k, v) for k, v in parts.items() if v is not None)
    return cast(Results, out)


def plain(doc: Results | ParameterSet | Parameters) -> dict[str, Any]:
    """A record as the plain dict the arithmetic of the model and the report reads and changes in place (the same
    object): the record's classes check the files and the code that builds them, the arithmetic reads figures."""
    return cast(dict[str, Any], doc)


def write_parameters(doc: Parameters, path: Path) -> None:
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(doc, indent=1, sort_keys=False) + "\n")
