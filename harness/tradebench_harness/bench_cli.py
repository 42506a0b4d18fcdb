"""The benchmark commands: bench, compare, sweep, diff, report.

  ./tradebench bench VARIANT [options]          one variant (--repeat 1 by default)
  ./tradebench compare [options]                every variant, --repeat 3 by default, round-robin
  ./tradebench compare --experiment NAME|FILE   the cases of an experiment file (harness/experiments/)
  ./tradebench sweep VARIANT|all --rates R1,R2,...   open loop: latency and achieved rate per offered rate
  ./tradebench sweep VARIANT|all --engines 1,2,4,8   sales/min per engine count
  ./tradebench diff RUN_A RUN_B                 per variant: both medians, the ratio, whether ranges overlap
  ./tradebench report RUN                       writes summary.md, runs.csv and report.html again
Variant settings the options do not name pass through the environment (THREADS=virtual, DISPATCHER=fork-join).
"""
from __future__ import annotations

import argparse
import sys
from dataclasses import asdict
from pathlib import Path

from .bench import Case, Timing


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
        raise argparse.ArgumentTypeError(f"a comma-separated list of whole numbers (got {text!r})")
    if not vals or any(v <= 0 for v in vals):
        raise argparse.ArgumentTypeError(f"a comma-separated list of positive numbers (got {text!r})")
    return vals


def common(p: argparse.ArgumentParser, repeat: int, sweep: bool = False) -> None:
    if sweep:
        p.add_argument("--engines", dest="engines_list", type=int_list, default=None, help="engine counts, e.g. 1,2,4,8")
        p.set_defaults(engines=4)
    else:
        p.add_argument("--engines", type=positive, default=4, help="ENGINES (default 4)")
    p.add_argument("--wait", type=positive, default=0, help="closed loop: ms each client waits after an answer (default 0)")
    p.add_argument("--concurrency", type=positive, default=64, help="load client connections (default 64)")
    p.add_argument("--duration", type=positive, default=30, help="measured seconds (default 30)")
    p.add_argument("--warmup", type=warmup, default="auto",
                   help="seconds, or auto: until two consecutive 5 s windows differ by < 5%% in orders/s (default auto)")
    p.add_argument("--warmup-max", type=positive, default=120, help="auto warm-up's bound in seconds (default 120)")
    p.add_argument("--jit-warmup-max", type=positive, default=90,
                   help="a JVM variant first gets the same load until its JIT compiler used under 5%% of a core over"
                        " 5 s, for at most this many seconds, before the measured load (default 90; 0: no such phase)")
    p.add_argument("--persist", choices=("per-sale", "batch"), default="per-sale")
    p.add_argument("--db-latency", type=positive, default=0, help="ms added to every database round trip (Toxiproxy)")
    p.add_argument("--rate", type=positive, default=None, help="open loop at this many orders/s (latency from the intended send time)")
    p.add_argument("--label", default="", help="a name for the case (a column of the table)")
    p.add_argument("--nodes", type=positive, default=1,
                   help="cluster members on loopback (java-spray-async's cluster mode; ENGINES is the cluster's total);"
                        " the load client spreads its connections over them (default 1: the variant alone)")
    p.add_argument("--repeat", type=positive, default=repeat, help=f"runs of each variant, interleaved (default {repeat})")
    p.add_argument("--no-verify", action="store_true", help="skip loadclient verify before measuring")
    p.add_argument("--no-calibrate", action="store_true", help="skip the machine calibration (no ceiling fractions)")
    p.add_argument("--calibration-duration", type=positive, default=10, help="seconds of each calibration measurement (default 10)")
    p.add_argument("--calibration-warmup", type=warmup, default="auto",
                   help="each calibration measurement's warm-up: seconds, or auto: until steady, as the runs (default auto)")
    p.add_argument("--calibration-warmup-max", type=positive, default=45,
                   help="the calibration's auto warm-up bound in seconds (default 45)")
    p.add_argument("--max-error-rate", type=float, default=None,
                   help="a run fails when answers other than 202/503 plus I/O errors exceed this share (load client default 0.01)")
    p.add_argument("--out", default=None, help="results folder (default results/<run-id>)")


def timing_of(a) -> Timing:
    return Timing(duration=a.duration, warmup=a.warmup, warmup_max=a.warmup_max, verify=not a.no_verify,
                  max_error_rate=a.max_error_rate, jit_warmup_max=a.jit_warmup_max)


def case_of(a, **over) -> Case:
    nodes = max(1, getattr(a, "nodes", 1) or 1)
    label = a.label or (f"{nodes}-members" if nodes > 1 else "")
    c = Case(label=label, engines=a.engines, wait_ms=a.wait, concurrency=a.concurrency, persist=a.persist,
             db_latency_ms=a.db_latency, rate=a.rate or None, nodes=nodes)
    for k, v in over.items():
        setattr(c, k, v)
    return c


def options_of(a) -> dict:
    return {k: v for k, v in vars(a).items() if k != "func"}


def _execute(ctx, command, variants, cases, a, experiment=None):
    from . import compare
    cal = {} if a.no_calibrate else None
    cd = a.calibration_duration
    folder, doc = compare.execute(ctx, command, variants, cases, timing_of(a), a.repeat, options_of(a),
                                  calibration=cal, experiment=experiment, out_dir=Path(a.out) if a.out else None,
                                  cal_duration=cd, cal_warmup=a.calibration_warmup,
                                  cal_warmup_max=a.calibration_warmup_max)
    return 1 if any(r.get("error") for r in doc["runs"]) or not doc["summary"] else 0


def cmd_bench(ctx, a) -> int:
    from .variants import select
    return _execute(ctx, "bench", select(ctx.root, a.variant), [case_of(a)], a)


def cmd_compare(ctx, a) -> int:
    from . import experiments
    from .variants import select
    variants = select(ctx.root, a.variants)
    if a.experiment:
        try:
            meta, cases = experiments.load(ctx, a.experiment, ctx.env)
        except experiments.ExperimentError as e:
            print(f"tradebench: error: {e}", file=sys.stderr)
            return 2
        return _execute(ctx, f"experiment-{meta['name']}", variants, cases, a, experiment=meta)
    return _execute(ctx, "compare", variants, [case_of(a)], a)


def cmd_sweep(ctx, a) -> int:
    from .variants import select
    if not a.rates and not a.engines_list:
        print("tradebench: error: sweep needs --rates R1,R2,... or --engines 1,2,4,8", file=sys.stderr)
        return 2
    cases = []
    for e in a.engines_list or [a.engines]:
        for r in a.rates or [None]:
            label = (f"{r}/s" if r else "") + (f" {e} engines" if a.engines_list else "")
            cases.append(case_of(a, engines=e, rate=r, label=label.strip()))
    return _execute(ctx, "sweep", select(ctx.root, a.variant), cases, a)


def cmd_diff(ctx, a) -> int:
    from . import diff, results
    try:
        da, db_ = results.load(a.run_a, ctx.results), results.load(a.run_b, ctx.results)
    except FileNotFoundError as e:
        print(f"tradebench: error: {e}", file=sys.stderr)
        return 2
    print(diff.show(da, db_))
    return 0


def cmd_report(ctx, a) -> int:
    import json
    from . import results
    doc = results.load(a.run, ctx.results)
    p = Path(a.run)
    folder = p if p.is_dir() else (p.parent if p.is_file() else ctx.results / a.run)
    results.write_all(folder, doc)
    print(f"tradebench: wrote {folder}/summary.md, runs.csv, report.html")
    return 0


def add(sub) -> None:
    p = sub.add_parser("bench", help="one variant: database + variant + load client; a results folder")
    p.add_argument("variant")
    common(p, repeat=1)
    p.set_defaults(func=cmd_bench)

    p = sub.add_parser("compare", help="the same load against every variant, repeated and interleaved")
    common(p, repeat=3)
    p.add_argument("--variants", default=None, help="comma-separated names (default: every variant)")
    p.add_argument("--experiment", default=None, help="NAME (harness/experiments/NAME.yaml) or FILE")
    p.set_defaults(func=cmd_compare)

    p = sub.add_parser("sweep", help="latency versus offered load (--rates), or sales/min versus ENGINES (--engines)")
    p.add_argument("variant", help="a variant, a comma-separated list, or all")
    common(p, repeat=1, sweep=True)
    p.add_argument("--rates", type=int_list, default=None, help="offered orders/s, e.g. 1000,2000,4000")
    p.set_defaults(func=cmd_sweep)

    p = sub.add_parser("diff", help="two results folders side by side")
    p.add_argument("run_a")
    p.add_argument("run_b")
    p.set_defaults(func=cmd_diff)

    p = sub.add_parser("report", help="write summary.md, runs.csv and report.html of a results folder again")
    p.add_argument("run")
    p.set_defaults(func=cmd_report)
