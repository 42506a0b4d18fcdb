"""`./tradebench calibrate`: each design measured in short windows on the map's path, then the model's parameter
set of this machine made of them (model/calibrate.py says what is measured and why)."""
from __future__ import annotations

import argparse

from ..measure import plan
from ..measure.execute import execute
from ..measure.plan import Series, Timing, Window
from ..model import calibrate as model_calibrate
from ..run import layout
from ..run.variants import select


def windows(o: model_calibrate.CalibrateOptions) -> list[Window]:
    """The light loads next door, the held-out window, the closed loop with no pause last."""
    return ([Window(0, rate=r) for r in o.loads] + [Window(o.held_out_latency, rate=o.held_out_load)]
            + [Window(0)])


def cmd_calibrate(ctx, a: argparse.Namespace) -> int:
    o = model_calibrate.options_of(a)
    series = []
    for v in select(ctx.root, o.variants):
        row = v.rows_given(ctx.env)[0]
        series.append(Series(v.for_settings({**ctx.env, **row}), 4, "per-sale", dict(row)))
    cells = windows(o)
    # measured as every command measures: each party on CPUs of its own (the set records its layout)
    t = Timing(window=o.window, warmup=str(o.settle), settle=o.settle, verify=False, jit_warmup_max=o.jit_warmup_max,
               link=True, layout=layout.build("isolated"))
    grid = {"kind": "map", "latencies": sorted({c.latency_ms for c in cells}),
            "loads": list(dict.fromkeys(c.load_text for c in cells)), "axis": "far"}
    folder, doc = execute(ctx, "calibrate", plan.grid_units(series, cells, 1), t, vars(o), cells=grid)
    return model_calibrate.write(ctx.root, folder, doc, o)


def add(sub, add_command) -> None:
    """The command on the parser (ADD_COMMAND: cli.main's way of adding one)."""
    p = add_command(sub, "calibrate", cmd_calibrate, "this machine's model parameters in about 8 minutes (five "
                    "designs: light loads, a held-out window, saturation), scored on the window it did not fit; "
                    "predict then uses them")
    model_calibrate.options(p)
    p.set_defaults(needs_loadclient=True)
