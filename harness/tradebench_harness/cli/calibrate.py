"""`./tradebench calibrate`: each design measured in short windows on the map's path, then the model's parameter
set of this machine made of them (model/calibrate.py says what is measured and why)."""
from __future__ import annotations

import argparse
from collections.abc import Callable
from dataclasses import asdict
from pathlib import Path
from typing import Any

from .. import record
from ..measure import plan
from ..measure.execute import execute
from ..measure.plan import Series, Timing, Window
from ..model import calibrate as model_calibrate
from ..model.calibrate import (
    BUSY_LATENCY,
    BUSY_LOAD,
    FAR_LATENCY,
    FAR_LOAD,
    HELD_OUT_LATENCY,
    HELD_OUT_LOAD,
    JIT_WARMUP_MAX,
    LOADS,
    SETTLE,
    WAITING_LATENCY,
    WAITING_LOAD,
    WINDOW,
)
from ..report import results
from ..run.context import Context
from ..run.variants import select
from .measure import remeasure_option, results_writer
from .options import CalibrateOptions, OptionsError

#: the ceilings' timing: a compare's (cli/measure.py), a minute beside the windows
CEILINGS = plan.Calibration(duration=4, warmup="4", warmup_max=45)


def windows(o: CalibrateOptions) -> list[Window]:
    """The light loads next door, the far one, the waiting one, the busy one, the held-out window, the closed loop
    with no pause last."""
    return fitted(o) + [Window(o.held_out_latency, rate=o.held_out_load), Window(0)]


def fitted(o: CalibrateOptions) -> list[Window]:
    """The open-loop windows the set is fitted from: the light loads next door, the far one, the waiting one and
    the busy one (each of the last three where its latency is not 0)."""
    away = [(o.far_latency, o.far_load), (o.waiting_latency, o.waiting_load), (o.busy_latency, o.busy_load)]
    return [Window(0, rate=r) for r in o.loads] + [Window(ms, rate=r) for ms, r in away if ms]


def cmd_calibrate(ctx: Context, o: CalibrateOptions) -> int:
    if o.refit:
        return refit(ctx, o, o.refit)
    series = []
    for v in select(ctx.root, o.variants):
        row = v.rows_given(ctx.env)[0]
        series.append(Series(v.for_settings({**ctx.env, **row}), 4, "per-sale", dict(row)))
    cells = windows(o)
    # measured as every command measures: each party on CPUs of its own (the set records its layout); no live heap
    # after each window (the model's memory is the sampled RSS, and a JVM's read costs a second of each window)
    t = Timing(window=o.window, warmup=str(o.settle), settle=o.settle, verify=False, jit_warmup_max=o.jit_warmup_max,
               link=True, remeasure=o.remeasure, live_heap=False)
    grid = {"kind": "map", "latencies": sorted({c.latency_ms for c in cells}),
            "loads": list(dict.fromkeys(c.load_text for c in cells)), "axis": "far"}
    # this machine's ceilings first, as a compare measures them: predict scales the set's per-order costs by them
    # on a machine of the kind that measured its own (model/here.py)
    folder, doc = execute(ctx, "calibrate", plan.grid_units(series, cells, 1), t, asdict(o), cells=grid,
                          calibration=CEILINGS, write=results_writer(ctx))
    return int(model_calibrate.write(ctx.root, folder, record.plain(doc), o.held, Path(o.out) if o.out else None))


def refit(ctx: Context, o: CalibrateOptions, ref: str) -> int:
    """The set of an earlier calibration's folder made again (after a change of the fit), its held-out window as
    that calibration was asked for; nothing is measured."""
    try:
        doc = results.load(ref, ctx.root / "results")
    except (FileNotFoundError, ValueError) as e:
        raise OptionsError(f"--refit {ref}: {e}") from None
    if doc.get("command") != "calibrate":
        raise OptionsError(f"--refit {ref}: a {doc.get('command')} folder, not a calibration's")
    asked = {**asdict(o), **(doc.get("options") or {}), "refit": ref, "out": o.out}
    asked["loads"] = tuple(asked["loads"])
    folder = record.results_file(ref, ctx.root / "results").parent
    again = CalibrateOptions(**asked)
    return int(model_calibrate.write(ctx.root, folder, dict(doc), again.held, Path(again.out) if again.out else None))


def options(p: argparse.ArgumentParser) -> None:
    """The command's options."""
    p.add_argument("--variants", default=None, help="comma-separated names (default: every variant, as configured)")
    p.add_argument("--loads", default=",".join(map(str, LOADS)), metavar="R,R,R",
                   help="the light loads, orders/s at +0 ms (at least three cells at two rates or more)")
    p.add_argument("--far-load", type=int, default=FAR_LOAD, metavar="R",
                   help="orders/s of the light load behind --far-latency (it tells the fixed cost from the engines' "
                        "cycles)")
    p.add_argument("--far-latency", type=int, default=FAR_LATENCY, metavar="MS",
                   help="ms added to that load's round trip (0: no such window)")
    p.add_argument("--waiting-load", type=int, default=WAITING_LOAD, metavar="R",
                   help="orders/s of the load behind --waiting-latency, past the bound of a design with few inserts "
                        "in flight (what an order waiting in an inbox costs)")
    p.add_argument("--waiting-latency", type=int, default=WAITING_LATENCY, metavar="MS",
                   help="ms added to that load's round trip (0: no such window)")
    p.add_argument("--busy-load", type=int, default=BUSY_LOAD, metavar="R",
                   help="orders/s of the load behind --busy-latency: a second rate past the bound of a design with "
                        "few inserts in flight, near the database's for one with many")
    p.add_argument("--busy-latency", type=int, default=BUSY_LATENCY, metavar="MS",
                   help="ms added to that load's round trip (0: no such window)")
    p.add_argument("--held-out-load", type=int, default=HELD_OUT_LOAD, metavar="R",
                   help="orders/s of the window the set is scored on and not fitted from")
    p.add_argument("--held-out-latency", type=int, default=HELD_OUT_LATENCY, metavar="MS",
                   help="ms added to its round trip")
    p.add_argument("--window", type=int, default=WINDOW, metavar="S", help="measured seconds of each window")
    p.add_argument("--settle", type=int, default=SETTLE, metavar="S", help="seconds of load before each window")
    p.add_argument("--jit-warmup-max", type=int, default=JIT_WARMUP_MAX, metavar="S",
                   help="each design's warm-up bound (a JVM: until its JIT is quiet; Node.js: until its CPU is steady)")
    remeasure_option(p)
    p.add_argument("--refit", default=None, metavar="FOLDER",
                   help="measure nothing: make the set again from an earlier calibration's results folder")
    p.add_argument("--out", default=None, metavar="FILE",
                   help="the parameter file to write (default .tradebench/model-parameters.json, which predict reads)")


def options_of(a: argparse.Namespace) -> CalibrateOptions:
    """The command's options, checked: OptionsError (exit 2) where they cannot make a parameter set."""
    try:
        loads = tuple(int(x) for x in str(a.loads).split(",") if x)
    except ValueError:
        raise OptionsError(f"--loads: whole orders/s, comma-separated (got {a.loads!r})") from None
    numbers = [*loads, a.far_load, a.waiting_load, a.busy_load, a.held_out_load, a.window]
    if len(set(loads)) < 2 or any(x <= 0 for x in numbers) or a.held_out_latency < 0 or a.far_latency < 0 \
            or a.waiting_latency < 0 or a.busy_latency < 0 or a.settle < 0 or a.jit_warmup_max < 0:
        raise OptionsError("calibrate needs two light loads or more, and positive loads and window")
    o = CalibrateOptions(a.variants, loads, a.far_load, a.far_latency, a.held_out_load, a.held_out_latency,
                         a.window, a.settle, a.jit_warmup_max, a.out, a.refit, a.waiting_load, a.waiting_latency,
                         a.remeasure, a.busy_load, a.busy_latency)
    if Window(o.held_out_latency, rate=o.held_out_load) in fitted(o):
        raise OptionsError("the held-out window must differ from the fit's cells (its load or latency)")
    return o


def add(sub: Any, add_command: Callable[..., argparse.ArgumentParser]) -> None:
    """The command on the parser (ADD_COMMAND: cli.main's way of adding one)."""
    p = add_command(sub, "calibrate", cmd_calibrate, "this machine's model parameters in 10-15 minutes (five "
                    "designs: light loads, a held-out window, saturation), scored on the window it did not fit; "
                    "predict then uses them", options_of)
    options(p)
    p.set_defaults(needs_loadclient=True)
