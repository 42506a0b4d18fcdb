"""The benchmark commands: bench, compare, sweep, diff, report.

  ./tradebench bench VARIANT [options]          one variant (--repeat 1 by default)
  ./tradebench compare [options]                each design's first row (--all-rows: every row) in fresh processes,
                                                round-robin, until its sales/min interval is within --target or
                                                --budget is spent (measure/adaptive.py)
  ./tradebench compare --baseline REF           every row built from REF and from this tree, in turn: a verdict per
                                                row (--fail-above PCT: exit 1 on a regression beyond PCT %)
  ./tradebench compare --experiment NAME|FILE   the cases of an experiment file (harness/experiments/)
  ./tradebench sweep VARIANT|all --rates R1,R2,...   open loop: latency and achieved rate per offered rate
  ./tradebench sweep VARIANT|all --engines 1,2,4,8   sales/min per engine count
  ./tradebench sweep VARIANT|all --db-latency 0,1,5,20,50   sales/min against the database's round trip, each
                                                design's bound beside it (one process per series)
  ./tradebench map [--latencies L,..] [--loads R,..]   which design stores the most sales, per latency x load
  ./tradebench map --db-kind busy|durable       the same along the database's cores, or its commits synced or not
  ./tradebench diff RUN_A RUN_B                 per variant: both medians, the ratio, whether ranges overlap
  ./tradebench report RUN                       writes summary.md, runs.csv and report.html again
Variant settings the options do not name pass through the environment (THREADS=virtual, DISPATCHER=fork-join).
Every one of them measures on one path (measure.plan, measure.instance, measure.execute).
"""
from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

from ..measure import adaptive, experiments, plan, profile
from ..measure.execute import execute
from ..measure.plan import Calibration, Case, Series, Timing, Window
from ..report import diff, results, tables, verdict
from ..run import baseline, layout
from ..run.variants import select


def positive(text: str) -> int:
    v = int(text)
    if v < 0:
        raise argparse.ArgumentTypeError("a whole number >= 0")
    return v


def warmup(text: str) -> str:
    if text == "auto":
        return text
    positive(text)
    return text


def int_list(text: str) -> list[int]:
    try:
        vals = [int(x) for x in text.replace(" ", ",").split(",") if x]
    except ValueError:
        raise argparse.ArgumentTypeError(f"a comma-separated list of whole numbers (got {text!r})") from None
    if not vals or any(v <= 0 for v in vals):
        raise argparse.ArgumentTypeError(f"a comma-separated list of positive numbers (got {text!r})")
    return vals


def latency_list(text: str) -> list[int]:
    try:
        vals = [int(x) for x in text.replace(" ", ",").split(",") if x]
    except ValueError:
        raise argparse.ArgumentTypeError(f"a comma-separated list of whole milliseconds (got {text!r})") from None
    if not vals or any(v < 0 for v in vals):
        raise argparse.ArgumentTypeError(f"a comma-separated list of milliseconds >= 0 (got {text!r})")
    return sorted(set(vals))


def common(p: argparse.ArgumentParser, repeat: int, sweep: bool = False) -> None:
    if sweep:
        p.add_argument("--engines", dest="engines_list", type=int_list, default=None, help="engine counts, e.g. 1,2,4,8")
        p.set_defaults(engines=4)
    else:
        p.add_argument("--engines", type=positive, default=4, help="ENGINES")
    p.add_argument("--wait", type=positive, default=0, help="closed loop: ms each client waits after an answer")
    p.add_argument("--concurrency", type=positive, default=64, help="load client connections")
    p.add_argument("--duration", type=positive, default=30, help="measured seconds of each window (compare: each of its --repeat windows)")
    p.add_argument("--warmup", type=warmup, default="auto",
                   help="seconds, or auto: until two consecutive 5 s windows differ by < 5%% in orders/s")
    p.add_argument("--warmup-max", type=positive, default=120, help="auto warm-up's bound in seconds")
    p.add_argument("--jit-warmup-max", type=positive, default=90,
                   help="a JVM variant first gets the same load until its JIT compiler used under 5%% of a core over"
                        " 5 s, for at most this many seconds, before the measured load")
    p.add_argument("--persist", choices=("per-sale", "batch"), default="per-sale", help="PERSIST: a row per sale, or a multi-row INSERT per engine cycle")
    if sweep:
        p.add_argument("--db-latency", type=latency_list, default=None,
                       help="ms added to every database round trip, a list (e.g. 0,1,5,20,50): a latency sweep")
    else:
        p.add_argument("--db-latency", type=positive, default=0, help="ms added to every database round trip (Toxiproxy)")
    p.add_argument("--rate", type=positive, default=None, help="open loop at this many orders/s (latency from the intended send time)")
    p.add_argument("--label", default="", help="a name for the case (a column of the table)")
    p.add_argument("--nodes", type=positive, default=1,
                   help="cluster members on loopback (java-spray-async's cluster mode; ENGINES is the cluster's total);"
                        " the load client spreads its connections over them")
    p.add_argument("--repeat", type=positive, default=repeat, help="windows of each variant row, back to back on one process (--fresh: a process each, round-robin)")
    p.add_argument("--no-verify", action="store_true", help="skip loadclient verify before measuring")
    p.add_argument("--no-calibrate", action="store_true", help="skip the machine calibration (no ceiling fractions)")
    p.add_argument("--calibration-duration", type=positive, default=10, help="seconds of each calibration measurement")
    p.add_argument("--calibration-warmup", type=warmup, default="auto",
                   help="each calibration measurement's warm-up: seconds, or auto: until steady, as the runs")
    p.add_argument("--calibration-warmup-max", type=positive, default=45,
                   help="the calibration's auto warm-up bound in seconds")
    p.add_argument("--max-error-rate", type=float, default=None,
                   help="a run fails when answers other than 202/503 plus I/O errors exceed this share (load client default 0.01)")
    p.add_argument("--out", default=None, help="results folder (default: results/<run-id>)")
    slow_database(p)
    layout_options(p)


def profile_option(p: argparse.ArgumentParser) -> None:
    p.add_argument("--profile", action="store_true",
                   help="a CPU profile of each variant row over its measured windows: profile/<row>.html (flame graph) "
                        "and CPU per order by part (async-profiler; Node: --cpu-prof)")


def slow_database(p: argparse.ArgumentParser) -> None:
    """The other two kinds of slow database, beside --db-latency's far one (run/slowdb.py)."""
    p.add_argument("--db-cpu", type=cores, default=None, metavar="CORES",
                   help="a busy database: its server held to this many cores for the whole run (0.25: a quarter of "
                        "one core; a cgroup CPU quota)")
    p.add_argument("--db-durable", action="store_true",
                   help="a durable database: every commit synced to disk (innodb_flush_log_at_trx_commit=1) for the run")


def cores_list(text: str) -> list[float]:
    """A list of cores, from the least held to the most (the map's rows from the least slow database)."""
    try:
        vals = [cores(x) for x in text.replace(" ", ",").split(",") if x]
    except argparse.ArgumentTypeError:
        raise argparse.ArgumentTypeError(f"a comma-separated list of cores above 0, e.g. 1,0.5,0.25 (got {text!r})") \
            from None
    if not vals:
        raise argparse.ArgumentTypeError(f"a comma-separated list of cores above 0 (got {text!r})")
    return sorted(set(vals), reverse=True)


def cores(text: str) -> float:
    try:
        v = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"a number of cores, e.g. 0.25 (got {text!r})") from None
    if v <= 0:
        raise argparse.ArgumentTypeError(f"a number of cores above 0 (got {text!r})")
    return v


def timing_of(a, **over) -> Timing:
    # the map has no --warmup: each of its cells settles for --settle seconds (given in OVER)
    t = Timing(window=a.duration, warmup=getattr(a, "warmup", "auto"), warmup_max=getattr(a, "warmup_max", 120),
               verify=not a.no_verify, max_error_rate=a.max_error_rate, jit_warmup_max=a.jit_warmup_max,
               profile=getattr(a, "profile", False), layout=layout_of(a))
    for k, v in over.items():
        setattr(t, k, v)
    return t


def layout_options(p: argparse.ArgumentParser) -> None:
    """Where the variant, the database and the load client run (run/layout.py)."""
    p.add_argument("--layout", choices=layout.KINDS, default="isolated",
                   help="isolated: the variant, the database and the load client each on CPUs of their own, split in "
                        "proportion to what each costs an order (on 2 CPUs: the variant on one, the database and the "
                        "load client on the other); shared: every process on every CPU, as on one box")
    p.add_argument("--pin", action="append", type=pin, default=None, metavar="PARTY=CPUS",
                   help="PARTY (variant, database or load) on these CPUs, e.g. --pin variant=2-7 (taskset's list); "
                        "the parties not given share the rest as the isolated layout would; repeatable")


def pin(text: str) -> tuple[str, str]:
    try:
        return layout.pin_option(text)
    except layout.LayoutError as e:
        raise argparse.ArgumentTypeError(str(e)) from None


def layout_of(a) -> layout.Layout:
    """The layout the options ask for; an error the parser already refused cannot reach here, a CPU this machine
    lacks can (it exits with the reason)."""
    try:
        return layout.build(getattr(a, "layout", "isolated"), dict(getattr(a, "pin", None) or []))
    except layout.LayoutError as e:
        print(f"tradebench: error: {e}", file=sys.stderr)
        raise SystemExit(2) from None


def case_of(a, **over) -> Case:
    nodes = max(1, getattr(a, "nodes", 1) or 1)
    label = a.label or (f"{nodes}-members" if nodes > 1 else "")
    c = Case(label=label, engines=a.engines, wait_ms=a.wait, concurrency=a.concurrency, persist=a.persist,
             db_latency_ms=a.db_latency, rate=a.rate or None, nodes=nodes)
    for k, v in over.items():
        setattr(c, k, v)
    return c


def options_of(a) -> dict:
    return {k: v for k, v in vars(a).items() if k != "func" and not k.startswith("_")}


def calibration_of(a) -> Calibration | None:
    if a.no_calibrate:
        return None
    return Calibration(a.calibration_duration, a.calibration_warmup, a.calibration_warmup_max)


def failed(doc: dict) -> int:
    return 1 if any(r.get("error") for r in doc["runs"]) or not doc["summary"] else 0


def measure_cases(ctx, command, variants, cases, a, experiment=None, fresh=False, rows=None) -> int:
    """bench, compare and the case sweeps: each row a process (FRESH: each repeat of each row one, round-robin).
    ROWS: the rows as the caller cut them (compare --baseline), instead of every variant in every case."""
    rows = rows if rows is not None else plan.rows_of(variants, cases, ctx.env)
    units = plan.fresh_units(rows, a.repeat) if fresh else plan.window_units(rows, a.repeat)
    _, doc = execute(ctx, command, units, timing_of(a), options_of(a), calibration=calibration_of(a),
                     experiment=experiment, out_dir=Path(a.out) if a.out else None, db_cpu=a.db_cpu,
                     db_durable=a.db_durable)
    return failed(doc)


def cmd_bench(ctx, a) -> int:
    return measure_cases(ctx, "bench", select(ctx.root, a.variant), [case_of(a)], a)


def cmd_profile(ctx, a) -> int:
    return measure_cases(ctx, "profile", select(ctx.root, a.variant), [case_of(a)], a)


def cmd_compare(ctx, a) -> int:
    a._started = time.monotonic()        # the budget counts from here, builds included
    variants = select(ctx.root, a.variants)
    if a.experiment:
        try:
            meta, cases = experiments.load(ctx, a.experiment, ctx.env)
        except experiments.ExperimentError as e:
            print(f"tradebench: error: {e}", file=sys.stderr)
            return 2
        if a.cases:
            wanted = [c for c in a.cases.split(",") if c]
            unknown = set(wanted) - {c.label for c in cases}
            if unknown:
                print(f"tradebench: error: no case {', '.join(sorted(unknown))} in {meta['file']} (its cases: "
                      f"{', '.join(c.label for c in cases)})", file=sys.stderr)
                return 2
            cases = [c for c in cases if c.label in wanted]
        return measure_cases(ctx, f"experiment-{meta['name']}", variants, cases, a, experiment=meta, fresh=a.fresh)
    if a.baseline:
        return compare_baseline(ctx, variants, a)
    if a.fresh:
        return measure_cases(ctx, "compare", variants, [case_of(a)], a, fresh=True)
    rows = plan.rows_of(variants, [case_of(a)], ctx.env)
    return compare_adaptive(ctx, "compare", rows if a.all_rows else adaptive.first_rows(rows), a)[0]


def compare_adaptive(ctx, command, rows, a) -> tuple[int, dict]:
    """Each row in fresh processes, round-robin, until its sales/min interval is within --target or --budget is
    spent (measure/adaptive.py); (exit code, results document)."""
    goal = adaptive.Goal(target=a.target / 100, min_processes=a.processes, budget_s=a.budget * 60, windows=a.repeat)
    t = timing_of(a)
    plan_ = adaptive.Adaptive(rows, t, goal, ctx.env, started=getattr(a, "_started", None))
    units = plan_.initial()
    adaptive.say(f"{command}: {len(rows)} row(s), {goal.min_processes} fresh processes each to start with, "
                 f"{goal.windows} windows of {t.window} s per process; more processes for a row whose sales/min "
                 f"interval is wider than ±{a.target:g} %, within a budget of {a.budget:g} min from the start")
    _, doc = execute(ctx, command, units, t, options_of(a), calibration=calibration_of(a),
                     out_dir=Path(a.out) if a.out else None, db_cpu=a.db_cpu, db_durable=a.db_durable,
                     more=plan_.more)
    return failed(doc), doc


def compare_baseline(ctx, variants, a) -> int:
    """compare --baseline REF: every row built from REF and from this tree, the two back to back (REF first),
    their cases named by commit, and a table of B ÷ A in the summary (report/tables.py)."""
    try:
        short, before = baseline.variants(ctx, a.baseline, [v.name for v in variants])
        now = baseline.this_tree(ctx.root)
    except baseline.BaselineError as e:
        print(f"tradebench: error: --baseline {a.baseline}: {e}", file=sys.stderr)
        return 2
    a.baseline_cases = [short, now]
    rows_a = plan.rows_of(before, [case_of(a, label=short)], ctx.env)
    rows_b = plan.rows_of(variants, [case_of(a, label=now)], ctx.env)
    if not a.all_rows:
        rows_a, rows_b = adaptive.first_rows(rows_a), adaptive.first_rows(rows_b)
    rc, doc = compare_adaptive(ctx, "compare", plan.paired(rows_a, rows_b), a)
    return gate(doc, a.fail_above) or rc


def gate(doc: dict, fail_above: float | None) -> int:
    """compare --baseline: a verdict per row printed; with FAIL_ABOVE, 1 when a row's sales/min regression is
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


def all_series(variants, engines: int, persist: str, env: dict) -> list[Series]:
    """Every row of every variant (its manifest's rows: node-engine's WORKERS=processes and threads; one where
    ENV pins the row's setting)."""
    return [Series(v.for_settings({**env, **row}), engines, persist, dict(row)) for v in variants
            for row in v.rows_given(env)]


def equal_in_flight(series: list[Series], env: dict, target: int | None) -> list[Series]:
    """The blocking designs again with as many engines as the others keep inserts in flight (TARGET; None: the
    largest in-flight count of a series that does not grow with ENGINES): the answer is about inserts in
    flight and what they cost, not about a label."""
    grows, fixed = [], []
    for s in series:
        now = s.in_flight(env)
        more = Series(s.variant, s.engines + 1, s.persist, s.settings).in_flight(env)
        if now is None:
            continue
        (grows if more != now else fixed).append((s, now))
    target = target or max((n for _, n in fixed), default=None)
    if not target:
        return []
    return [Series(s.variant, target, s.persist, s.settings, case=f"ENGINES={target}: {target} in flight")
            for s, n in grows if n < target]


def measure_grid(ctx, command, kind, series, cells, a, axis: dict | None = None) -> int:
    """The latency sweep and the map: one process per series, every cell a window, through the link. AXIS: what
    the cells' database varies in besides the latency, for the report (report/axis.py)."""
    t = timing_of(a, window=a.duration, warmup=str(a.settle), settle=a.settle, link=True)
    doc_cells = {"kind": kind, "latencies": sorted({c.latency_ms for c in cells}),
                 "loads": list(dict.fromkeys(c.load_text for c in cells)), **(axis or {})}
    _, doc = execute(ctx, command, plan.grid_units(series, cells, a.repeat), t, options_of(a), cells=doc_cells,
                     out_dir=Path(a.out) if a.out else None, db_cpu=a.db_cpu, db_durable=a.db_durable)
    return 1 if not any(p["salesPerMinute"] for p in doc["summary"]) or any(r.get("error") for r in doc["runs"]) else 0


def cmd_latency_sweep(ctx, a) -> int:
    series = all_series(select(ctx.root, a.variant), a.engines, a.persist, ctx.env)
    if a.equal_in_flight != 0 and a.persist == "per-sale":
        series += equal_in_flight(series, ctx.env, a.equal_in_flight or None)
    a.duration = a.duration or 15
    grid = [Window(lat, a.concurrency, a.wait, a.rate or None) for lat in a.db_latency]
    return measure_grid(ctx, "sweep-latency", "sweep", series, grid, a)


# the map's default grid: four round trips from "same machine" to the 2014 article's slow database, three
# open-loop rates from well within every design's reach to beyond this machine's ceiling (about 9,000 orders/s
# per-sale on 2 cores)
MAP_LATENCIES = [0, 2, 10, 50]
MAP_LOADS = [500, 2000, 8000]
# a busy database's rows: its capacity is its cores ÷ its CPU per sale, 44–120 µs (docs/model.md), so one core
# stores 8,000–23,000 sales/s, about what the heaviest default load makes (8,000 orders/s, 7,100 sales/s): the
# least held row; each step down puts the capacity under one more load (0.5 and 0.25: under 8,000/s; 0.1,
# 830–2,300 sales/s: under 2,000/s on the slower machine). More than one core is no quota on 2 cores
MAP_DB_CPUS = [1, 0.5, 0.25, 0.1]
# a durable database's rows: commits not synced (the default) and every commit synced, next door (+0 ms),
# where the fsync is the largest part of the round trip; behind an added latency it is `--db-durable`
MAP_DURABLE = [False, True]
MAP_KINDS = ("far", "busy", "durable")


def map_grid(a) -> tuple[list[Window], dict]:
    """The map's cells along its kind of slow database, and what the report keys them on (cells.axis)."""
    loads = [dict(concurrency=a.concurrency, rate=r) for r in a.loads]
    if a.db_kind == "busy":
        return [Window(0, db_cpu=c, **ld) for c in a.db_cpus for ld in loads], {"axis": "busy", "dbCpus": a.db_cpus}
    if a.db_kind == "durable":
        return ([Window(0, db_durable=d, **ld) for d in MAP_DURABLE for ld in loads],
                {"axis": "durable", "durable": MAP_DURABLE})
    return [Window(lat, **ld) for lat in a.latencies for ld in loads], {"axis": "far"}


def map_refusal(a) -> str | None:
    """Why the map's options do not go together, or None."""
    if a.db_kind != "far" and a.latencies != MAP_LATENCIES:
        return f"--latencies is the far map's axis; --db-kind {a.db_kind} measures every cell at +0 ms"
    if a.db_kind != "busy" and a.db_cpus != MAP_DB_CPUS:
        return "--db-cpus is the busy map's axis: add --db-kind busy"
    if a.db_kind == "busy" and a.db_cpu:
        return "--db-kind busy sets the database's cores per cell: --db-cpu (the whole run's) does not go with it"
    if a.db_kind == "durable" and a.db_durable:
        return "--db-kind durable syncs the commits of half the cells: --db-durable (the whole run's) does not go with it"
    return None


def cmd_map(ctx, a) -> int:
    why = map_refusal(a)
    if why:
        print(f"tradebench: error: {why}", file=sys.stderr)
        return 2
    series = all_series(select(ctx.root, a.variants), a.engines, a.persist, ctx.env)
    grid, axis = map_grid(a)
    return measure_grid(ctx, "map", "map", series, grid, a, axis)


def cmd_in_flight_sweep(ctx, a) -> int:
    """What keeping N inserts in flight costs each design: its in-flight settings at each N (ENGINES, DB_POOL,
    ...), one process per (design, N), behind one database latency."""
    if a.db_latency and len(a.db_latency) > 1:
        print("tradebench: error: --in-flight takes one --db-latency", file=sys.stderr)
        return 2
    a.db_latency = a.db_latency[0] if a.db_latency else 0
    a.duration = a.duration or 15
    rows = []
    for v in select(ctx.root, a.variant):
        for row in v.rows_given(ctx.env):
            for n in a.in_flight:
                extra = plan.in_flight_settings(v, a.persist, n)
                if extra is None:
                    print(f"tradebench: {v.name} declares no inserts in flight for {a.persist}: left out", file=sys.stderr)
                    break
                engines = int(extra.pop("ENGINES", a.engines))
                rows.append((Series(v.for_settings({**ctx.env, **row}), engines, a.persist, {**row, **extra},
                                    f"{n} in flight"),
                             Window(a.db_latency, a.concurrency, a.wait, a.rate or None)))
    units = plan.window_units(rows, a.repeat)
    _, doc = execute(ctx, "sweep-in-flight", units, timing_of(a), options_of(a), calibration=calibration_of(a),
                     out_dir=Path(a.out) if a.out else None, db_cpu=a.db_cpu, db_durable=a.db_durable)
    return failed(doc)


def cmd_cores_sweep(ctx, a) -> int:
    """Each design at saturation on 1, 2, ... CPUs of its own, the database and the load client on the rest (the
    isolated layout with the variant's count set: run/layout.py): one process per (row, count), the counts in
    turn; the CPU count is read by each runtime at its start, so a count is a process, never a window."""
    machine = layout.available()
    refusal = ("--cores sets the variant's CPUs of the isolated layout: not with --layout shared or --pin"
               if a.layout == "shared" or a.pin else
               f"--cores {max(a.cores)}: this machine lets the harness use {len(machine)} CPUs" if max(a.cores) > len(machine)
               else "--cores takes one --db-latency" if a.db_latency and len(a.db_latency) > 1 else None)
    if refusal:
        print(f"tradebench: error: {refusal}", file=sys.stderr)
        return 2
    latency = a.db_latency[0] if a.db_latency else 0
    a.duration = a.duration or 20
    series = all_series(select(ctx.root, a.variant), a.engines, a.persist, ctx.env)
    rows = [(Series(s.variant, s.engines, s.persist, s.settings, f"{n} CPU" + ("" if n == 1 else "s"), cores=n),
             Window(latency, a.concurrency, a.wait, a.rate or None)) for n in a.cores for s in series]
    _, doc = execute(ctx, "sweep-cores", plan.window_units(rows, a.repeat), timing_of(a), options_of(a),
                     out_dir=Path(a.out) if a.out else None, db_cpu=a.db_cpu, db_durable=a.db_durable)
    return failed(doc)


def cmd_sweep(ctx, a) -> int:
    if a.cores:
        return cmd_cores_sweep(ctx, a)
    if a.in_flight:
        return cmd_in_flight_sweep(ctx, a)
    if a.db_latency is not None:
        return cmd_latency_sweep(ctx, a)
    if a.duration is None:
        a.duration = 30
    if not a.rates and not a.engines_list:
        print("tradebench: error: sweep needs --db-latency L1,L2,..., --rates R1,R2,..., --engines 1,2,4,8, "
              "--in-flight 4,16,64 or --cores 1,2",
              file=sys.stderr)
        return 2
    cases = []
    for e in a.engines_list or [a.engines]:
        for r in a.rates or [None]:
            label = (f"{r}/s" if r else "") + (f" {e} engines" if a.engines_list else "")
            cases.append(case_of(a, engines=e, rate=r, label=label.strip()))
    return measure_cases(ctx, "sweep", select(ctx.root, a.variant), cases, a)


def cmd_diff(ctx, a) -> int:
    try:
        da, db_ = results.load(a.run_a, ctx.results), results.load(a.run_b, ctx.results)
    except FileNotFoundError as e:
        print(f"tradebench: error: {e}", file=sys.stderr)
        return 2
    print(diff.show(da, db_))
    return 0


def cmd_report(ctx, a) -> int:
    doc = results.load(a.run, ctx.results)
    p = Path(a.run)
    folder = p if p.is_dir() else (p.parent if p.is_file() else ctx.results / a.run)
    # the flame graphs first: the summary links those that are there
    profile.redraw(ctx, doc, folder, say=lambda m: print(f"tradebench: {m}", file=sys.stderr))
    results.write_all(folder, doc, ctx.root)     # a map's model section from the model's code as it is now
    print(f"tradebench: wrote {folder}/results.json, raw.json.gz, summary.md, runs.csv, report.html and the charts")
    return 0


def add(sub) -> None:
    p = sub.add_parser("bench", help="one variant: database + variant + load client; a results folder")
    p.add_argument("variant")
    common(p, repeat=1)
    profile_option(p)
    p.set_defaults(func=cmd_bench)

    p = sub.add_parser("profile", help="bench with a CPU profile of the variant over the measured window: a flame "
                                       "graph and CPU per order by part (no calibration)")
    p.add_argument("variant")
    common(p, repeat=1)
    p.set_defaults(func=cmd_profile, profile=True, no_calibrate=True)

    p = sub.add_parser("compare", help="the same load against each design's first row (--all-rows: every row), each "
                                       "in fresh processes round-robin until its sales/min interval is within "
                                       "--target or --budget is spent")
    common(p, repeat=2)
    p.add_argument("--all-rows", action="store_true",
                   help="every row of every manifest (node-engine's WORKERS=threads, the Pekko builds, ...), not only "
                        "each design's first")
    p.add_argument("--processes", type=positive, default=adaptive.MIN_PROCESSES,
                   help="fresh processes of each row before its interval is judged (at least 2 for an interval); "
                        "--repeat is the windows of each process")
    p.add_argument("--target", type=float, default=adaptive.TARGET * 100,
                   help="percent: a row is done when its sales/min 95 %% interval is within ± this of its median")
    p.add_argument("--budget", type=float, default=adaptive.BUDGET_S / 60,
                   help="minutes from the command's start (builds included) after which no row gets another "
                        "process; the rows still outside --target are said to have stopped short")
    p.add_argument("--fail-above", type=float, default=None, metavar="PCT",
                   help="with --baseline: exit 1 when a row's sales/min regression is detected (the 95 %% interval "
                        "of this tree ÷ the baseline lies entirely below 1) and its point estimate is more than PCT "
                        "%% below the baseline's")
    p.add_argument("--variants", default=None, help="comma-separated names (default: every variant)")
    p.add_argument("--experiment", default=None, help="NAME (harness/experiments/NAME.yaml) or FILE")
    p.add_argument("--cases", default=None, help="with --experiment: only these cases (comma-separated labels)")
    p.add_argument("--fresh", action="store_true",
                   help="a fixed plan instead of the target: --repeat fresh processes of one window each per row, the "
                        "rows interleaved round-robin, every one verified")
    profile_option(p)
    p.add_argument("--baseline", metavar="REF",
                   help="each row also built from this commit (a git worktree), measured just before this tree's: "
                        "the summary gives this tree's figures ÷ the baseline's")
    # the first answer in 12 minutes on a 2-core machine, builds included: two fresh processes of each of the five
    # designs, each two 8 s windows after at most 15 s of JIT warm-up, and a short calibration
    p.set_defaults(func=cmd_compare, duration=8, warmup="3", jit_warmup_max=15, calibration_duration=4,
                   calibration_warmup="4")

    p = sub.add_parser("sweep", help="sales/min against the database's latency (--db-latency), latency versus offered "
                                     "load (--rates), sales/min versus ENGINES (--engines) or the variant's CPUs "
                                     "(--cores)")
    p.add_argument("variant", help="a variant, a comma-separated list, or all")
    common(p, repeat=1, sweep=True)
    p.set_defaults(duration=None)
    p.add_argument("--rates", type=int_list, default=None, help="offered orders/s, e.g. 1000,2000,4000")
    p.add_argument("--in-flight", type=int_list, default=None,
                   help="inserts in flight, e.g. 4,16,64: each design with the settings that keep that many (ENGINES, "
                        "DB_POOL, ...; its manifest's inFlight), behind one --db-latency: what capacity costs it")
    p.add_argument("--cores", type=int_list, default=None,
                   help="the variant's CPUs, e.g. 1,2,4: each design at saturation on that many CPUs of its own (the "
                        "database and the load client on the rest; where none is left, on the first); a process per "
                        "count")
    p.add_argument("--settle", type=positive, default=5,
                   help="--db-latency: seconds of load at each latency before its window")
    p.add_argument("--equal-in-flight", type=positive, default=None,
                   help="--db-latency, per-sale: also run each design whose inserts in flight grow with ENGINES with "
                        "this many engines (default: as many as the largest fixed pool, e.g. 64; 0: not)")
    p.set_defaults(func=cmd_sweep)

    add_map(sub)

    p = sub.add_parser("diff", help="two results folders side by side")
    p.add_argument("run_a")
    p.add_argument("run_b")
    p.set_defaults(func=cmd_diff)

    p = sub.add_parser("report", help="write summary.md, runs.csv and report.html of a results folder again "
                                            "(a map's model section from the model as it is now)")
    p.add_argument("run")
    p.set_defaults(func=cmd_report)


def add_map(sub) -> None:
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
    p.add_argument("--engines", type=positive, default=4, help="ENGINES")
    p.add_argument("--persist", choices=("per-sale", "batch"), default="per-sale", help="PERSIST: a row per sale, or a multi-row INSERT per engine cycle")
    p.add_argument("--concurrency", type=positive, default=64, help="load client connections")
    p.add_argument("--duration", type=positive, default=10, help="measured seconds per cell")
    p.add_argument("--settle", type=positive, default=5, help="seconds of load before each cell's window")
    p.add_argument("--repeat", type=positive, default=1, help="passes over every cell")
    p.add_argument("--jit-warmup-max", type=positive, default=45, help="a JVM variant's JIT warm-up bound")
    p.add_argument("--no-verify", action="store_true", help="skip loadclient verify before measuring")
    p.add_argument("--max-error-rate", type=float, default=None, help="a window fails when answers other than 202/503 plus I/O errors exceed this share (load client default 0.01)")
    p.add_argument("--out", default=None, help="results folder (default: results/<run-id>)")
    slow_database(p)
    layout_options(p)
    p.set_defaults(func=cmd_map)
