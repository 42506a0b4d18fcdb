"""`./tradebench sweep KIND VARIANT|all [options]`: one axis at a time, a parser per kind with only its options.

  sweep latency --db-latency 0,1,5,20,50   sales/min against the database's round trip, each design's bound beside
                                           it (one process per series, every latency a window through the link)
  sweep rates --rates R1,R2,...            open loop: latency and achieved rate per offered rate (--engines 1,2: at
                                           each engine count too)
  sweep engines --engines 1,2,4,8          sales/min per engine count
  sweep in-flight --in-flight 4,16,64      each design kept at N inserts in flight, behind one --db-latency
  sweep cores --cores 1,2                  each design at saturation on N CPUs of its own

The older form without the kind (`sweep VARIANT --db-latency 0,1,5`) is read as the kind its flag names, with a
note naming the new form (older_sweep).
"""
from __future__ import annotations

import argparse
import sys
from collections.abc import Callable

from ..measure import plan
from ..measure.execute import execute
from ..measure.plan import Series, Window
from ..run.context import Context
from ..run.variants import select
from .measure import (
    all_series,
    calibration_of,
    calibration_options,
    case_of,
    db_latency_option,
    engines_option,
    error_rate_option,
    failed,
    layout_options,
    load_options,
    measure_cases,
    measure_grid,
    measuring,
    nodes_option,
    out_dir,
    out_option,
    persist_option,
    processes_option,
    rate_option,
    remeasure_option,
    repeat_option,
    results_writer,
    slow_database,
    timing_of,
    verify_options,
    window_options,
)
from .options import SWEEPS, Sweep
from .validators import int_list, latency_list, whole_not_negative


def equal_in_flight(series: list[Series], env: dict[str, str], target: int | None) -> list[Series]:
    """The blocking designs again with as many engines as the others keep inserts in flight (TARGET; None: the
    largest in-flight count of a series that does not grow with ENGINES): the answer is about inserts in
    flight and what they cost, not about a label."""
    grows: list[tuple[Series, int]] = []
    fixed: list[tuple[Series, int]] = []
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


def cmd_latency_sweep(ctx: Context, o: Sweep) -> int:
    series = all_series(select(ctx.root, o.variant), o.engines, o.persist, ctx.env)
    if o.equal_in_flight != 0 and o.persist == "per-sale":
        series += equal_in_flight(series, ctx.env, o.equal_in_flight or None)
    grid = [Window(lat, o.concurrency, o.wait, o.rate or None) for lat in o.latencies]
    return measure_grid(ctx, "sweep-latency", "sweep", series, grid, o)


def cmd_load_sweep(ctx: Context, o: Sweep) -> int:
    """sweep rates and sweep engines: a case per (engine count, offered rate), each row a process."""
    cases = []
    for e in o.engines_list or (o.engines,):
        for r in o.rates or (o.rate,):
            label = (f"{r}/s" if r and o.rates else "") + (f" {e} engines" if o.engines_list else "")
            cases.append(case_of(o, engines=e, rate=r or None, label=label.strip()))
    return measure_cases(ctx, "sweep", select(ctx.root, o.variant), cases, o)


def cmd_in_flight_sweep(ctx: Context, o: Sweep) -> int:
    """What keeping N inserts in flight costs each design: its in-flight settings at each N (ENGINES, DB_POOL,
    ...), one process per (design, N), behind one database latency."""
    rows = []
    for v in select(ctx.root, o.variant):
        for row in v.rows_given(ctx.env):
            for n in o.in_flight:
                extra = plan.in_flight_settings(v, o.persist, n)
                if extra is None:
                    print(f"tradebench: {v.name} declares no inserts in flight for {o.persist}: left out", file=sys.stderr)
                    break
                engines = int(extra.pop("ENGINES", o.engines))
                rows.append((Series(v.for_settings({**ctx.env, **row}), engines, o.persist, {**row, **extra},
                                    f"{n} in flight"),
                             Window(o.db_latency, o.concurrency, o.wait, o.rate or None)))
    _, doc = execute(ctx, "sweep-in-flight", plan.window_units(rows, o.repeat, o.processes), timing_of(o), o.recorded(),
                     calibration=calibration_of(o), out_dir=out_dir(o), db_cpu=o.db_cpu, db_durable=o.db_durable,
                     write=results_writer(ctx))
    return failed(doc)


def cmd_cores_sweep(ctx: Context, o: Sweep) -> int:
    """Each design at saturation on 1, 2, ... CPUs of its own, the database and the load client on the rest (the
    isolated layout with the variant's count set: run/layout.py): one process per (row, count), the counts in
    turn; the CPU count is read by each runtime at its start, so a count is a process, never a window."""
    series = all_series(select(ctx.root, o.variant), o.engines, o.persist, ctx.env)
    rows = [(Series(s.variant, s.engines, s.persist, s.settings, f"{n} CPU" + ("" if n == 1 else "s"), cores=n),
             Window(o.db_latency, o.concurrency, o.wait, o.rate or None)) for n in o.cores for s in series]
    _, doc = execute(ctx, "sweep-cores", plan.window_units(rows, o.repeat, o.processes), timing_of(o), o.recorded(),
                     out_dir=out_dir(o), db_cpu=o.db_cpu, db_durable=o.db_durable, write=results_writer(ctx))
    return failed(doc)


SWEEP_COMMANDS: dict[str, Callable[[Context, Sweep], int]] = {
    "latency": cmd_latency_sweep, "rates": cmd_load_sweep, "engines": cmd_load_sweep,
    "in-flight": cmd_in_flight_sweep, "cores": cmd_cores_sweep}

SWEEP_HELP = {
    "latency": "sales/min against the database's round trip (--db-latency 0,1,5,20,50), each design's bound beside "
               "it: one process per series, every latency a window",
    "rates": "open loop: latency and achieved rate per offered rate (--rates 1000,2000,4000; --engines 1,2: each "
             "rate at each engine count)",
    "engines": "sales/min per engine count (--engines 1,2,4,8)",
    "in-flight": "what keeping N inserts in flight costs each design (--in-flight 4,16,64): a process per (design, "
                 "N), behind one --db-latency",
    "cores": "each design at saturation on 1, 2, ... CPUs of its own (--cores 1,2): a process per count",
}


def add(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> dict[str, argparse.ArgumentParser]:
    """`sweep KIND VARIANT ...` on SUB, a parser per kind with only its options; those parsers by kind."""
    top = sub.add_parser("sweep", help="one axis at a time: " + "; ".join(f"{k}: {h.split(' (')[0]}"
                                                                         for k, h in SWEEP_HELP.items()),
                         description="./tradebench sweep KIND VARIANT|all [options]: " + ", ".join(SWEEPS))
    kinds = top.add_subparsers(dest="kind", metavar="KIND", required=True)
    parsers = {}
    for kind, fill in (("latency", sweep_latency), ("rates", sweep_rates), ("engines", sweep_engines),
                       ("in-flight", sweep_in_flight), ("cores", sweep_cores)):
        p = kinds.add_parser(kind, help=SWEEP_HELP[kind], description=SWEEP_HELP[kind])
        p.add_argument("variant", help="a variant, a comma-separated list, or all")
        fill(p)
        slow_database(p)
        layout_options(p)
        measuring(p, SWEEP_COMMANDS[kind], Sweep, kind=kind)
        parsers[kind] = p
    return parsers


def sweep_common(p: argparse.ArgumentParser, duration: int, *, warm: bool = True) -> None:
    load_options(p)
    window_options(p, duration, warm=warm, compare=False)
    persist_option(p)
    repeat_option(p, 1, fresh=False)
    processes_option(p)
    verify_options(p)
    error_rate_option(p)
    out_option(p)


def sweep_latency(p: argparse.ArgumentParser) -> None:
    p.add_argument("--db-latency", dest="latencies", type=latency_list, required=True, metavar="MS,MS,...",
                   help="ms added to every database round trip, a list (e.g. 0,1,5,20,50): a window at each")
    engines_option(p)
    sweep_common(p, 15, warm=False)
    rate_option(p)
    p.add_argument("--settle", type=whole_not_negative, default=5, help="seconds of load at each latency before its window")
    remeasure_option(p)
    p.add_argument("--equal-in-flight", type=whole_not_negative, default=None,
                   help="per-sale: also run each design whose inserts in flight grow with ENGINES with this many "
                        "engines (default: as many as the largest fixed pool, e.g. 64; 0: not)")


def sweep_rates(p: argparse.ArgumentParser) -> None:
    p.add_argument("--rates", type=int_list, required=True, help="offered orders/s, e.g. 1000,2000,4000")
    p.add_argument("--engines", dest="engines_list", type=int_list, default=None, metavar="N,N,...",
                   help="engine counts, e.g. 1,2: each rate at each (default: ENGINES 4)")
    sweep_common(p, 30)
    nodes_option(p)
    calibration_options(p)


def sweep_engines(p: argparse.ArgumentParser) -> None:
    p.add_argument("--engines", dest="engines_list", type=int_list, required=True, metavar="N,N,...", help="engine counts, e.g. 1,2,4,8")
    sweep_common(p, 30)
    rate_option(p)
    nodes_option(p)
    calibration_options(p)


def sweep_in_flight(p: argparse.ArgumentParser) -> None:
    p.add_argument("--in-flight", type=int_list, required=True,
                   help="inserts in flight, e.g. 4,16,64: each design with the settings that keep that many (ENGINES, "
                        "DB_POOL, ...; its manifest's inFlight), behind one --db-latency: what capacity costs it")
    engines_option(p)
    sweep_common(p, 15)
    db_latency_option(p)
    rate_option(p)
    calibration_options(p)


def sweep_cores(p: argparse.ArgumentParser) -> None:
    p.add_argument("--cores", type=int_list, required=True,
                   help="the variant's CPUs, e.g. 1,2,4: each design at saturation on that many CPUs of its own (the "
                        "database and the load client on the rest; where none is left, on the first); a process per "
                        "count")
    engines_option(p)
    sweep_common(p, 20)
    db_latency_option(p)
    rate_option(p)


# the older form `sweep VARIANT --FLAG ...`: the kind named by the flag present, first of these
OLD_SWEEP_FLAGS = (("--cores", "cores"), ("--in-flight", "in-flight"), ("--db-latency", "latency"),
                   ("--rates", "rates"), ("--engines", "engines"))


def _flag_of(token: str) -> str:
    return token.split("=", 1)[0] if token.startswith("--") else ""


def older_sweep(parsers: dict[str, argparse.ArgumentParser], rest: list[str]) -> tuple[list[str], str]:
    """REST (what follows `sweep`) in the older form, without the kind: (the new form's REST, the error that names
    it: the older form is refused, not rewritten). Options the older parser took that the kind's does not (they
    did nothing there) are named as left out of the new form. Raises ValueError where no flag names a kind."""
    flags = {_flag_of(t) for t in rest}
    kind = next((k for flag, k in OLD_SWEEP_FLAGS if flag in flags), None)
    if kind is None:
        raise ValueError("sweep needs a kind: ./tradebench sweep latency|rates|engines|in-flight|cores VARIANT ... "
                         "(./tradebench sweep KIND --help: its options)")
    mine = parsers[kind]._option_string_actions
    others = {s: a for p in parsers.values() for s, a in p._option_string_actions.items()}
    kept: list[str] = []
    dropped: list[str] = []
    i = 0
    while i < len(rest):
        t, flag = rest[i], _flag_of(rest[i])
        if flag and flag not in mine and flag in others:
            takes = others[flag].nargs != 0 and "=" not in t
            dropped.append(" ".join(rest[i:i + 2] if takes else [t]))
            i += 2 if takes else 1
            continue
        kept.append(t)
        i += 1
    new = [kind, *kept]
    note = f"`sweep` without its kind is the older form: ./tradebench sweep {' '.join(new)}"
    if dropped:
        note += f" ({', '.join(dropped)}: no part of a {kind} sweep, left out)"
    return new, note
