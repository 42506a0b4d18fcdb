"""./tradebench isolation: what a slow dependency does to the requests that do not use it (docs/isolation.md)."""
from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path
from typing import Any

from ..measure import isolation
from ..measure.execute import human, placed
from ..record import isolation as record
from ..record import new_run_id
from ..report import isolation as report
from ..run import db as dbmod
from ..run import environment, layout
from ..run.context import Context
from .options import Isolation, OptionsError

DEFAULT = "isolation"


def options(ns: argparse.Namespace) -> Isolation:
    rows = tuple(x for x in (ns.rows or "").split(",") if x)
    return Isolation(ns.experiment, rows, ns.phase_seconds, ns.out, ns.layout)


def experiment_of(ctx: Context, o: Isolation) -> isolation.Experiment:
    path = Path(o.experiment)
    if not path.is_file():
        path = ctx.root / "harness" / "experiments" / f"{o.experiment}.yaml"
    if not path.is_file():
        raise OptionsError(f"--experiment {o.experiment}: no such file (harness/experiments/isolation.yaml is the default)")
    try:
        return isolation.read_experiment(path).only(list(o.rows) or None).with_phase_seconds(o.phase_seconds)
    except isolation.IsolationError as e:
        raise OptionsError(str(e)) from e


def measure(ctx: Context, exp: isolation.Experiment, folder: Path) -> dict[str, Any]:
    """Every row measured on CTX's layout and the document written (isolation.json.gz, summary.md, the charts);
    returns it."""
    folder.mkdir(parents=True, exist_ok=True)
    db = dbmod.open_db(ctx, isolation.DATABASE)
    started_at = time.strftime("%Y-%m-%dT%H:%M:%S%z")
    env = {**environment.collect(ctx, db), "layout": ctx.laid_out.record()}
    with placed(db, ctx.layout):
        rows = isolation.run(ctx, exp, folder)
    doc: dict[str, Any] = {"command": "isolation", "startedAt": started_at, "environment": env,
                           "experiment": experiment_record(exp), "rows": [r.record() for r in rows],
                           "finishedAt": time.strftime("%Y-%m-%dT%H:%M:%S%z")}
    record.write(folder, doc)
    report.write(folder, doc)
    return doc


def experiment_record(exp: isolation.Experiment) -> dict[str, Any]:
    ld = exp.load
    return {"name": exp.name, "description": exp.description, "file": exp.file,
            "load": {"orderRate": ld.order_rate, "orderConnections": ld.order_connections,
                     "viewClients": ld.view_clients, "viewPauseMs": list(ld.view_pause_ms),
                     "viewTimeoutMs": ld.view_timeout_ms, "warmupS": ld.warmup_s},
            "phases": [{"name": p.name, "seconds": p.seconds, "reads": p.reads, "writes": p.writes} for p in exp.phases],
            "rows": [{"label": r.label, "variant": r.variant, "settings": r.settings, "why": r.why} for r in exp.rows],
            "article": exp.article}


def cmd_isolation(ctx: Context, o: Isolation) -> int:
    exp = experiment_of(ctx, o)
    folder = Path(o.out) if o.out else ctx.results / new_run_id("isolation")
    print(f"tradebench: isolation: {len(exp.rows)} row(s), each {len(exp.phases)} phases in a window of "
          f"{exp.window_s():g} s: about {human(exp.estimate_s())} (builds not counted); results in {folder}",
          file=sys.stderr, flush=True)
    print(f"tradebench: CPU layout: {layout.describe(ctx.laid_out.record())}", file=sys.stderr, flush=True)
    doc = measure(ctx, exp, folder)
    print((folder / "summary.md").read_text(), flush=True)
    failed = [r["label"] for r in doc["rows"] if r.get("error") or not (r.get("audit") or {}).get("ok")]
    if failed:
        print(f"tradebench: isolation: not measured or audit failed: {', '.join(failed)}", file=sys.stderr)
        return 1
    return 0


def add(sub: Any, add_command: Any) -> None:
    p = add_command(sub, "isolation", cmd_isolation, "what a slow dependency does to the requests that do not use "
                    "it: orders beside order views whose read path, then the whole database, turns slow, on every "
                    "design and its fixes (docs/isolation.md)", options)
    p.add_argument("--experiment", default=DEFAULT, help="an experiment file, or a name in harness/experiments/ "
                   "(default: isolation)")
    p.add_argument("--rows", default=None, help="comma-separated row labels of the experiment (default: all)")
    p.add_argument("--phase-seconds", type=float, default=None,
                   help="every phase this long, the recoveries half (default: the file's, 12 s; a quick look: 6)")
    p.add_argument("--out", default=None, help="the results folder (default: results/<run-id>)")
    p.add_argument("--layout", default="isolated", choices=layout.KINDS,
                   help="where the processes run (docs/layout.md; default: isolated)")
    p.set_defaults(needs_loadclient=True)
