"""The benchmark commands: bench, profile, compare, map, diff, report; the sweeps (sweep.py) measure with the functions here.

  ./tradebench bench VARIANT [options]          one variant (--repeat 1 by default)
  ./tradebench compare [options]                each design's first row (--all-rows: every row) in fresh processes,
                                                round-robin, until its sales/min interval is within --target or
                                                --budget is spent (measure/adaptive.py)
  ./tradebench compare baseline REF            every row built from REF and from this tree, in turn: a verdict per
                                                row (--fail-above PCT: exit 1 on a regression beyond PCT %)
  ./tradebench compare experiment NAME|FILE    the cases of an experiment file (harness/experiments/)
  ./tradebench sweep KIND VARIANT|all ...     one axis at a time (sweep.py: latency, rates, engines, in-flight, cores)
  ./tradebench map [--latencies L,..] [--loads R,..]   which design stores the most sales, per latency x load
  ./tradebench map --db-kind busy|durable       the same along the database's cores, or its commits synced or not
  ./tradebench diff RUN_A RUN_B                 per variant: both medians, the ratio, whether ranges overlap
  ./tradebench report RUN                       writes summary.md, runs.csv and report.html again
Variant settings the options do not name pass through the environment (THREADS=virtual, DISPATCHER=fork-join).
Every one of them measures on one path (measure.plan, measure.instance, measure.execute); each gets its options as
one frozen object (cli/options.py), made and checked by the parser's command.
"""
from __future__ import annotations

import argparse
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from ..analysis import verdict
from ..analysis.crowded import REMEASURE
from ..measure import adaptive, experiments, plan
from ..measure.execute import Write, execute
from ..measure.plan import Calibration, Case, Series, Timing, Window
from ..record import Results, plain
from ..record import isolation as isolation_record
from ..report import breakdown, diff, results, tables
from ..report import isolation as isolation_report
from ..run import baseline, layout
from ..run.context import Context
from ..run.variants import Variant, select
from .options import (
    MAP_DB_CPUS,
    MAP_KINDS,
    MAP_LATENCIES,
    MAP_LOADS,
    Bench,
    Compare,
    Map,
    Measure,
    Run,
    Runs,
    Sweep,
    made,
)
from .validators import cores, cores_list, int_list, latency_list, pin, warmup, whole_not_negative

Rows = list[tuple[Series, Window]]


# --- the options' types ------------------------------------------------------------------------------------------


def results_writer(ctx: Context) -> Write:
    """What a measuring command hands execute() to write its folder: results.json, the summary, the report and
    the charts (a sweep's or map's cells beside the model's prediction of each, as `./tradebench report FOLDER`
    draws them again), and results/latest; returns the document as written."""
    def write(folder: Path, doc: Results) -> Results:
        written = results.write_all(folder, doc, ctx.root)
        results.link_latest(ctx.results, folder)
        return written
    return write

# --- the options, in groups ---------------------------------------------------------------------------------------

def engines_option(p: argparse.ArgumentParser) -> None:
    p.add_argument("--engines", type=whole_not_negative, default=4, help="ENGINES")


def load_options(p: argparse.ArgumentParser) -> None:
    p.add_argument("--wait", type=whole_not_negative, default=0, help="closed loop: ms each client waits after an answer")
    p.add_argument("--concurrency", type=whole_not_negative, default=64, help="load client connections")


def window_options(p: argparse.ArgumentParser, duration: int, *, warm: bool = True, compare: bool = True) -> None:
    """Each window's length and (WARM) the first's warm-up; a JVM's JIT warm-up before both."""
    p.add_argument("--duration", type=whole_not_negative, default=duration,
                   help="measured seconds of each window" + (" (compare: each of its --repeat windows)" if compare else ""))
    if warm:
        p.add_argument("--warmup", type=warmup, default="auto",
                       help="seconds, or auto: until two consecutive 5 s windows differ by < 5%% in orders/s")
        p.add_argument("--warmup-max", type=whole_not_negative, default=120, help="auto warm-up's bound in seconds")
    p.add_argument("--jit-warmup-max", type=whole_not_negative, default=90,
                   help="a variant first gets the same load until it is warm, for at most this many seconds, before "
                        "the measured load: a JVM until its JIT compiler used under 5%% of a core over 5 s, Node.js "
                        "until its CPU over 5 s is within 10%% of the 5 s before (0: no warm-up)")


def remeasure_option(p: argparse.ArgumentParser) -> None:
    p.add_argument("--remeasure", type=whole_not_negative, default=REMEASURE, metavar="N",
                   help="a window other processes or the hypervisor crowded (over 10%% of a core) is measured again, "
                        "at most N times (docs/layout.md)")


def persist_option(p: argparse.ArgumentParser) -> None:
    p.add_argument("--persist", choices=("per-sale", "batch"), default="per-sale",
                   help="PERSIST: a row per sale, or a multi-row INSERT per engine cycle")


def db_latency_option(p: argparse.ArgumentParser) -> None:
    p.add_argument("--db-latency", type=whole_not_negative, default=0, help="ms added to every database round trip (Toxiproxy)")


def rate_option(p: argparse.ArgumentParser) -> None:
    p.add_argument("--rate", type=whole_not_negative, default=None,
                   help="open loop at this many orders/s (latency from the intended send time)")


def nodes_option(p: argparse.ArgumentParser) -> None:
    p.add_argument("--nodes", type=whole_not_negative, default=1,
                   help="cluster members on loopback (java-spray-async's cluster mode; ENGINES is the cluster's total);"
                        " the load client spreads its connections over them")


def repeat_option(p: argparse.ArgumentParser, repeat: int, fresh: bool = True) -> None:
    p.add_argument("--repeat", type=whole_not_negative, default=repeat,
                   help="windows of each variant row, back to back on one process"
                        + (" (--fresh: a process each, round-robin)" if fresh else ""))


def processes_option(p: argparse.ArgumentParser) -> None:
    p.add_argument("--processes", type=whole_not_negative, default=2,
                   help="fresh processes of each row, each measuring every window, round-robin: 2 or more give each "
                        "figure a 95 %% interval across processes (analysis/intervals.py); 1 for a quick look at half "
                        "the time, its figures without an interval")


def verify_options(p: argparse.ArgumentParser) -> None:
    p.add_argument("--no-verify", action="store_true", help="skip loadclient verify before measuring")


def calibration_options(p: argparse.ArgumentParser) -> None:
    p.add_argument("--no-calibrate", action="store_true", help="skip the machine calibration (no ceiling fractions)")
    p.add_argument("--calibration-duration", type=whole_not_negative, default=10, help="seconds of each calibration measurement")
    p.add_argument("--calibration-warmup", type=warmup, default="auto",
                   help="each calibration measurement's warm-up: seconds, or auto: until steady, as the runs")
    p.add_argument("--calibration-warmup-max", type=whole_not_negative, default=45,
                   help="the calibration's auto warm-up bound in seconds")


def error_rate_option(p: argparse.ArgumentParser, what: str = "run") -> None:
    p.add_argument("--max-error-rate", type=float, default=None,
                   help=f"a {what} fails when answers other than 202/503 plus I/O errors exceed this share (load client "
                        "default 0.01)")


def out_option(p: argparse.ArgumentParser) -> None:
    p.add_argument("--out", default=None, help="results folder (default: results/<run-id>)")


def slow_database(p: argparse.ArgumentParser) -> None:
    """The other two kinds of slow database, beside --db-latency's far one (run/slowdb.py)."""
    p.add_argument("--db-cpu", type=cores, default=None, metavar="CORES",
                   help="a busy database: its server held to this many cores for the whole run (0.25: a quarter of "
                        "one core; a cgroup CPU quota)")
    p.add_argument("--db-durable", action="store_true",
                   help="a durable database: every commit synced to disk (innodb_flush_log_at_trx_commit=1) for the run")


def layout_options(p: argparse.ArgumentParser) -> None:
    """Where the variant, the database and the load client run (run/layout.py)."""
    p.add_argument("--layout", choices=layout.KINDS, default="isolated",
                   help="isolated: the variant, the database and the load client each on CPUs of their own, split in "
                        "proportion to what each costs an order (on 2 CPUs: the variant on one, the database and the "
                        "load client on the other); shared: every process on every CPU, as on one box")
    p.add_argument("--pin", action="append", type=pin, default=None, metavar="PARTY=CPUS",
                   help="PARTY (variant, database or load) on these CPUs, e.g. --pin variant=2-7 (taskset's list); "
                        "the parties not given share the rest as the isolated layout would; repeatable")


def common(p: argparse.ArgumentParser, repeat: int) -> None:
    """bench's, profile's and compare's options."""
    engines_option(p)
    load_options(p)
    window_options(p, 30)
    persist_option(p)
    db_latency_option(p)
    rate_option(p)
    p.add_argument("--label", default="", help="a name for the case (a column of the table)")
    nodes_option(p)
    repeat_option(p, repeat)
    verify_options(p)
    calibration_options(p)
    error_rate_option(p)
    out_option(p)
    slow_database(p)
    layout_options(p)


def profile_option(p: argparse.ArgumentParser) -> None:
    p.add_argument("--profile", action="store_true",
                   help="a CPU profile of each variant row over its measured windows: profile/<row>.html (flame graph) "
                        "and CPU per order by part (async-profiler; Node: --cpu-prof)")


# --- what the options make: the timing, the cases, the calibration ----------------------------------------------

def timing_of(o: Measure) -> Timing:
    return Timing(window=o.duration, warmup=o.warmup, warmup_max=o.warmup_max, verify=not o.no_verify,
                  max_error_rate=o.max_error_rate, jit_warmup_max=o.jit_warmup_max, profile=o.profile)


def grid_timing(o: Map | Sweep) -> Timing:
    """The latency sweep's and the map's: each cell settles for --settle seconds, through the link."""
    return Timing(window=o.duration, warmup=str(o.settle), settle=o.settle, verify=not o.no_verify,
                  max_error_rate=o.max_error_rate, jit_warmup_max=o.jit_warmup_max, link=True,
                  remeasure=o.remeasure)


def case_of(o: Measure, **over: Any) -> Case:
    nodes = max(1, o.nodes)
    label = o.label or (f"{nodes}-members" if nodes > 1 else "")
    fields: dict[str, Any] = dict(label=label, engines=o.engines, wait_ms=o.wait, concurrency=o.concurrency,
                                  persist=o.persist, db_latency_ms=o.db_latency, rate=o.rate or None, nodes=nodes)
    return Case(**{**fields, **over})


def calibration_of(o: Measure) -> Calibration | None:
    if o.no_calibrate:
        return None
    return Calibration(o.calibration_duration, o.calibration_warmup, o.calibration_warmup_max)


def out_dir(o: Measure) -> Path | None:
    return Path(o.out) if o.out else None


def failed(doc: Results) -> int:
    return 1 if any(r.get("error") for r in doc["runs"]) or not doc.get("summary") else 0


def say_error(why: str) -> int:
    print(f"tradebench: error: {why}", file=sys.stderr)
    return 2


# --- bench, profile, compare ------------------------------------------------------------------------------------

def measure_cases(ctx: Context, command: str, variants: list[Variant], cases: list[Case], o: Measure,
                  experiment: dict[str, Any] | None = None, fresh: bool = False) -> int:
    """bench, compare and the case sweeps: each row a process (FRESH: each repeat of each row one, round-robin)."""
    rows = plan.rows_of(variants, cases, ctx.env)
    processes = o.processes if isinstance(o, Sweep) else 1
    units = plan.fresh_units(rows, o.repeat) if fresh else plan.window_units(rows, o.repeat, processes)
    _, doc = execute(ctx, command, units, timing_of(o), o.recorded(), calibration=calibration_of(o),
                     experiment=experiment, out_dir=out_dir(o), db_cpu=o.db_cpu, db_durable=o.db_durable,
                     write=results_writer(ctx))
    return failed(doc)


def cmd_bench(ctx: Context, o: Bench) -> int:
    return measure_cases(ctx, "bench", select(ctx.root, o.variant), [case_of(o)], o)


def cmd_profile(ctx: Context, o: Bench) -> int:
    return measure_cases(ctx, "profile", select(ctx.root, o.variant), [case_of(o)], o)


def cmd_compare(ctx: Context, o: Compare) -> int:
    started = time.monotonic()        # the budget counts from here, builds included
    variants = select(ctx.root, o.variants)
    if o.fresh:
        return measure_cases(ctx, "compare", variants, [case_of(o)], o, fresh=True)
    rows = plan.rows_of(variants, [case_of(o)], ctx.env)
    return compare_adaptive(ctx, "compare", rows if o.all_rows else adaptive.first_rows(rows), o, started)[0]


def cmd_compare_experiment(ctx: Context, o: Compare) -> int:
    """compare experiment NAME|FILE: its cases (--cases: those named), each row a process."""
    assert o.experiment is not None
    variants = select(ctx.root, o.variants)
    try:
        meta, cases = experiments.load(ctx, o.experiment, ctx.env)
    except experiments.ExperimentError as e:
        return say_error(str(e))
    if o.cases:
        wanted = [c for c in o.cases.split(",") if c]
        unknown = set(wanted) - {c.label for c in cases}
        if unknown:
            return say_error(f"no case {', '.join(sorted(unknown))} in {meta['file']} (its cases: "
                             f"{', '.join(c.label for c in cases)})")
        cases = [c for c in cases if c.label in wanted]
    return measure_cases(ctx, f"experiment-{meta['name']}", variants, cases, o, experiment=meta, fresh=o.fresh)


def compare_adaptive(ctx: Context, command: str, rows: Rows, o: Compare, started: float,
                     recorded: dict[str, Any] | None = None) -> tuple[int, Results]:
    """Each row in fresh processes, round-robin, until its sales/min interval is within --target or --budget is
    spent (measure/adaptive.py); (exit code, results document). RECORDED: the results' options (default: O's)."""
    goal = adaptive.Goal(target=o.target / 100, min_processes=o.processes, budget_s=o.budget * 60, windows=o.repeat)
    t = timing_of(o)
    plan_ = adaptive.Adaptive(rows, t, goal, ctx.env, started=started)
    units = plan_.initial()
    adaptive.say(f"{command}: {len(rows)} row(s), {goal.min_processes} fresh processes each to start with, "
                 f"{goal.windows} windows of {t.window} s per process; more processes for a row whose sales/min "
                 f"interval is wider than ±{o.target:g} %, within a budget of {o.budget:g} min from the start")
    _, doc = execute(ctx, command, units, t, recorded or o.recorded(), calibration=calibration_of(o),
                     out_dir=out_dir(o), db_cpu=o.db_cpu, db_durable=o.db_durable, more=plan_,
                     write=results_writer(ctx))
    return failed(doc), doc


def cmd_compare_baseline(ctx: Context, o: Compare) -> int:
    """compare baseline REF: every row built from REF and from this tree, the two back to back (REF first),
    their cases named by commit, and a table of B ÷ A in the summary (report/tables.py)."""
    assert o.baseline is not None
    started = time.monotonic()        # the budget counts from here, builds included
    variants = select(ctx.root, o.variants)
    try:
        short, before = baseline.variants(ctx, o.baseline, [v.name for v in variants])
        now = baseline.this_tree(ctx.root)
    except baseline.BaselineError as e:
        return say_error(f"baseline {o.baseline}: {e}")
    rows_a = plan.rows_of(before, [case_of(o, label=short)], ctx.env)
    rows_b = plan.rows_of(variants, [case_of(o, label=now)], ctx.env)
    if not o.all_rows:
        rows_a, rows_b = adaptive.first_rows(rows_a), adaptive.first_rows(rows_b)
    rc, doc = compare_adaptive(ctx, "compare", plan.paired(rows_a, rows_b), o, started,
                               recorded=o.recorded(baseline_cases=[short, now]))
    return gate(plain(doc), o.fail_above) or rc


def gate(doc: dict[str, Any], fail_above: float | None) -> int:
    """compare baseline: a verdict per row printed; with FAIL_ABOVE, 1 when a row's sales/min regression is
    detected (the 95 % interval of this tree ÷ the baseline lies entirely below 1) and its point estimate (the
    ratio of the medians) is more than FAIL_ABOVE % below 1."""
    code = 0
    for x in tables.baseline_rows(doc):
        line = f"{x['variant']}: {tables.baseline_verdict(x)}"
        if fail_above is not None and verdict.fails(x["sales"], fail_above):
            line += f" -- beyond --fail-above {fail_above:g} %"
            code = 1
        print(f"tradebench: {line}", file=sys.stderr, flush=True)
    return code


# --- the sweeps and the map ---------------------------------------------------------------------------------------

def all_series(variants: list[Variant], engines: int, persist: str, env: dict[str, str]) -> list[Series]:
    """Every row of every variant (its manifest's rows: node-engine's WORKERS=processes and threads; one where
    ENV pins the row's setting)."""
    return [Series(v.for_settings({**env, **row}), engines, persist, dict(row)) for v in variants
            for row in v.rows_given(env)]


def measure_grid(ctx: Context, command: str, kind: str, series: list[Series], cells: list[Window], o: Map | Sweep,
                 axis: dict[str, Any] | None = None) -> int:
    """The latency sweep and the map: one process per series, every cell a window, through the link. AXIS: what
    the cells' database varies in besides the latency, for the report (report/axis.py)."""
    doc_cells = {"kind": kind, "latencies": sorted({c.latency_ms for c in cells}),
                 "loads": list(dict.fromkeys(c.load_text for c in cells)), **(axis or {})}
    _, doc = execute(ctx, command, plan.grid_units(series, cells, o.repeat, o.processes), grid_timing(o), o.recorded(),
                     cells=doc_cells, out_dir=out_dir(o), db_cpu=o.db_cpu, db_durable=o.db_durable,
                     write=results_writer(ctx))
    return 1 if not any(p["salesPerMinute"] for p in doc["summary"]) or any(r.get("error") for r in doc["runs"]) else 0


# a durable database's rows: commits not synced (the default) and every commit synced, next door (+0 ms),
# where the fsync is the largest part of the round trip; behind an added latency it is `--db-durable`
MAP_DURABLE = [False, True]


def map_grid(o: Map) -> tuple[list[Window], dict[str, Any]]:
    """The map's cells along its kind of slow database, and what the report keys them on (cells.axis)."""
    def cell(latency: int, rate: int, **db: Any) -> Window:
        return Window(latency, concurrency=o.concurrency, rate=rate, **db)
    if o.db_kind == "busy":
        return [cell(0, r, db_cpu=c) for c in o.db_cpus for r in o.loads], {"axis": "busy", "dbCpus": list(o.db_cpus)}
    if o.db_kind == "durable":
        return ([cell(0, r, db_durable=d) for d in MAP_DURABLE for r in o.loads],
                {"axis": "durable", "durable": MAP_DURABLE})
    return [cell(lat, r) for lat in o.latencies for r in o.loads], {"axis": "far"}


def cmd_map(ctx: Context, o: Map) -> int:
    series = all_series(select(ctx.root, o.variants), o.engines, o.persist, ctx.env)
    grid, axis = map_grid(o)
    return measure_grid(ctx, "map", "map", series, grid, o, axis)


# --- diff, report -------------------------------------------------------------------------------------------------

def cmd_diff(ctx: Context, a: Runs) -> int:
    try:
        da, db_ = plain(results.load(a.run_a, ctx.results)), plain(results.load(a.run_b, ctx.results))
    except FileNotFoundError as e:
        return say_error(str(e))
    print(diff.show(da, db_))
    return 0


def cmd_report(ctx: Context, a: Run) -> int:
    p = Path(a.run)
    folder = p if p.is_dir() else (p.parent if p.is_file() else ctx.results / a.run)
    if (folder / isolation_record.FILE).exists():      # ./tradebench isolation's folder: its own document
        isolation_report.write(folder, isolation_record.read(folder))
        print(f"tradebench: wrote {folder}/summary.md, orders-p99.png and timeline.png")
        return 0
    doc = results.load(a.run, ctx.results)
    # the flame graphs first: the summary links those that are there
    breakdown.redraw_flame_graphs(ctx, plain(doc), folder, say=lambda m: print(f"tradebench: {m}", file=sys.stderr))
    results.write_all(folder, doc, ctx.root)     # a map's model section from the model's code as it is now
    print(f"tradebench: wrote {folder}/results.json, raw.json.gz, summary.md, runs.csv, report.html and the charts")
    return 0


# --- the parsers --------------------------------------------------------------------------------------------------

def measuring(p: argparse.ArgumentParser, func: Callable[[Context, Any], int], options: type[Measure],
              **defaults: Any) -> None:
    """P runs FUNC with its options made by OPTIONS.of, after the load client is built."""
    p.set_defaults(func=func, options=options.of, needs_loadclient=True, **defaults)


def add(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """bench, profile and compare on SUB (the sweeps: sweep.py; the map: add_map; diff and report: add_results)."""
    p = sub.add_parser("bench", help="one variant: database + variant + load client; a results folder")
    p.add_argument("variant")
    common(p, repeat=1)
    profile_option(p)
    measuring(p, cmd_bench, Bench)

    p = sub.add_parser("profile", help="bench with a CPU profile of the variant over the measured window: a flame "
                                       "graph and CPU per order by part (no calibration)")
    p.add_argument("variant")
    common(p, repeat=1)
    measuring(p, cmd_profile, Bench, profile=True, no_calibrate=True)

    add_compare(sub)


def add_results(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """diff and report: what reads a results folder."""
    p = sub.add_parser("diff", help="two results folders side by side")
    p.add_argument("run_a")
    p.add_argument("run_b")
    p.set_defaults(func=cmd_diff, options=made(Runs))

    p = sub.add_parser("report", help="write summary.md, runs.csv and report.html of a results folder again "
                                      "(a map's model section from the model as it is now)")
    p.add_argument("run")
    p.set_defaults(func=cmd_report, options=made(Run))


#: compare's jobs besides its own (the same load against each design): its subcommands, each with its argument
COMPARE_JOBS = {"experiment": "NAME|FILE", "baseline": "REF"}
#: the flags that once chose those jobs, and the job that does it now
OLDER_COMPARE_FLAGS = {"--experiment": "experiment", "--baseline": "baseline"}


def compare_options(p: argparse.ArgumentParser) -> None:
    """The options of compare and of each of its subcommands."""
    common(p, repeat=2)
    p.add_argument("--all-rows", action="store_true",
                   help="every row of every manifest (node-engine's WORKERS=threads, the Pekko builds, ...), not only "
                        "each design's first")
    p.add_argument("--processes", type=whole_not_negative, default=adaptive.MIN_PROCESSES,
                   help="fresh processes of each row before its interval is judged (at least 2 for an interval); "
                        "--repeat is the windows of each process")
    p.add_argument("--target", type=float, default=adaptive.TARGET * 100,
                   help="percent: a row is done when its sales/min 95 %% interval is within ± this of its median")
    p.add_argument("--budget", type=float, default=adaptive.BUDGET_S / 60,
                   help="minutes from the command's start (builds included) after which no row gets another "
                        "process; the rows still outside --target are said to have stopped short (0: each row gets its "
                        "--processes and no more)")
    p.add_argument("--variants", default=None, help="comma-separated names (default: every variant)")
    p.add_argument("--fresh", action="store_true",
                   help="a fixed plan instead of the target: --repeat fresh processes of one window each per row, the "
                        "rows interleaved round-robin, every one verified")
    profile_option(p)


def add_compare(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """compare, and its jobs as subcommands: `compare experiment NAME`, `compare baseline REF`. Each subcommand
    takes every option of compare; given after the subcommand's word, an option is the subcommand's, and its
    parser leaves out what is not given (compare_options_kept), so that an option given before the word and
    compare's defaults are kept."""
    p = sub.add_parser("compare", help="the same load against each design's first row (--all-rows: every row), each "
                                       "in fresh processes round-robin until its sales/min interval is within "
                                       "--target or --budget is spent; `compare experiment NAME`: an experiment "
                                       "file's cases; `compare baseline REF`: each row from REF too, a verdict each")
    compare_options(p)
    # the first answer in 12 minutes on a 2-core machine, builds included: two fresh processes of each of the five
    # designs, each two 8 s windows after at most 15 s of JIT warm-up, and a short calibration
    measuring(p, cmd_compare, Compare, duration=8, warmup="3", jit_warmup_max=15, calibration_duration=4,
              calibration_warmup="4")
    jobs = p.add_subparsers(dest="job", metavar="SUBCOMMAND", required=False)
    e = jobs.add_parser("experiment", help="the cases of an experiment file (harness/experiments/), each row a "
                        "process", description="./tradebench compare experiment NAME|FILE [--cases A,B] [compare's "
                        "options]")
    e.add_argument("experiment", metavar="NAME|FILE", help="NAME (harness/experiments/NAME.yaml) or FILE")
    e.add_argument("--cases", default=None, help="only these cases (comma-separated labels)")
    compare_options_kept(e)
    measuring(e, cmd_compare_experiment, Compare)
    b = jobs.add_parser("baseline", help="each row also built from REF (a git worktree), measured just before this "
                        "tree's: a verdict per row", description="./tradebench compare baseline REF [--fail-above PCT] "
                        "[compare's options]")
    b.add_argument("baseline", metavar="REF",
                   help="the commit each row is also built from; the summary gives this tree's figures ÷ the "
                        "baseline's")
    b.add_argument("--fail-above", type=float, default=None, metavar="PCT",
                   help="exit 1 when a row's sales/min regression is detected (the 95 %% interval of this tree ÷ the "
                        "baseline lies entirely below 1) and its point estimate is more than PCT %% below the "
                        "baseline's")
    compare_options_kept(b)
    measuring(b, cmd_compare_baseline, Compare)


def compare_options_kept(p: argparse.ArgumentParser) -> None:
    """Compare's options on a subcommand's parser P, each without a default of its own: argparse puts what a
    subcommand's parser holds over what compare's parsed, so a default here would undo `compare --duration 5
    baseline REF`'s 5 (compare's defaults, its timing's included, are in place before the subcommand is read)."""
    own = {a.dest for a in p._actions}
    compare_options(p)
    for a in p._actions:
        if a.dest not in own:
            a.default = argparse.SUPPRESS


def older_compare(argv: list[str]) -> str | None:
    """What to say of a command line of compare in an older form (--experiment NAME, --baseline REF): the
    subcommand that does it now; None for a command line of today."""
    for flag, job in OLDER_COMPARE_FLAGS.items():
        for k, a in enumerate(argv):
            if a == flag or a.startswith(flag + "="):
                value = a.split("=", 1)[1] if "=" in a else (argv[k + 1] if k + 1 < len(argv) else COMPARE_JOBS[job])
                rest = argv[:k] + argv[k + (1 if "=" in a else 2):]
                return (f"compare {flag} is the older form: ./tradebench compare {job} {value} "
                        f"{' '.join(rest)}").rstrip()
    return None


def add_map(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """The map's command: every variant over a slow database x offered load."""
    p = sub.add_parser("map", help="every variant over a slow database (far: its latency; busy: its cores; durable: "
                                   "its commits synced or not) x offered load: which design stores the most sales "
                                   f"where (default grid {len(MAP_LATENCIES)} x {len(MAP_LOADS)}, about 25 min)")
    p.add_argument("--variants", default=None, help="comma-separated names (default: every variant)")
    p.add_argument("--db-kind", choices=MAP_KINDS, default="far",
                   help="the kind of slow database the rows vary: far (the latency added to every round trip, "
                        "--latencies), busy (the cores its server is held to, --db-cpus) or durable (commits not "
                        "synced, then every commit synced); busy and durable at +0 ms")
    p.add_argument("--latencies", type=latency_list, default=MAP_LATENCIES,
                   help=f"far: ms added to every database round trip (default {','.join(map(str, MAP_LATENCIES))})")
    p.add_argument("--db-cpus", type=cores_list, default=MAP_DB_CPUS, metavar="CORES",
                   help="busy: the cores the database's server is held to in each row, a cgroup CPU quota set for "
                        f"each cell alone (default {','.join(f'{c:g}' for c in MAP_DB_CPUS)}: at 44-120 µs of its CPU "
                        "a sale one core stores about the heaviest default load, and each step down puts its "
                        "capacity under one more load; more than one core is no quota on 2 cores)")
    p.add_argument("--loads", type=int_list, default=MAP_LOADS,
                   help=f"offered orders/s, open loop (default {','.join(map(str, MAP_LOADS))})")
    engines_option(p)
    persist_option(p)
    p.add_argument("--concurrency", type=whole_not_negative, default=64, help="load client connections")
    p.add_argument("--duration", type=whole_not_negative, default=10, help="measured seconds per cell")
    p.add_argument("--settle", type=whole_not_negative, default=5, help="seconds of load before each cell's window")
    p.add_argument("--repeat", type=whole_not_negative, default=1, help="passes over every cell")
    processes_option(p)
    p.add_argument("--jit-warmup-max", type=whole_not_negative, default=45,
                   help="each process's warm-up bound (a JVM: until its JIT is quiet; Node.js: until its CPU is steady)")
    remeasure_option(p)
    verify_options(p)
    error_rate_option(p, "window")
    out_option(p)
    slow_database(p)
    layout_options(p)
    measuring(p, cmd_map, Map)
