"""`./tradebench predict`: which design carries a load behind a database, configured how, at what cost.

    ./tradebench predict --db-latency 7 --rate 3000 [--cores 4] [--persist per-sale|batch] [--params FILE]
    ./tradebench predict --db-latency 0 --rate 3000 --db-cpu 0.25      # a busy database: held to a quarter core
    ./tradebench predict --db-latency 0 --rate 3000 --db-durable       # a durable one: every commit synced
    ./tradebench predict --db-latency 0 --saturation --db-cpu 0.25     # what a compare (closed loop) would store
    ./tradebench predict --fit RUN [RUN...] [--fsync FILE] [--out FILE]   # fit the parameters from results folders
    ./tradebench predict --probe-fsync [--out FILE]           # what an fsync adds to a commit here (seconds)
    ./tradebench predict --check RUN [--params FILE]          # the model beside a map's (or sweep's) cells

No variant is started and no database is needed: the answer is the model's (docs/model.md), from a
parameter set fitted on this kind of machine.
"""
from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path

from . import check, fit, fsync, params
from .designs import all_designs
from .plan import cheapest, plan, saturation
from .predict import round_trip_ms

USER_PARAMS = Path(".tradebench") / "model-parameters.json"
#: designs within this share of the cheapest's cores are named with it: the model's CPU error below saturation
#: is of this order (docs/model.md, "Held against the map")
CLOSE = 0.20


_ROOT: list[Path] = []


def _root() -> Path:
    """The repository: the caller's (main's ROOT), else TB_ROOT, else the one this package sits in."""
    if _ROOT:
        return _ROOT[-1]
    return Path(os.environ.get("TB_ROOT") or Path(__file__).resolve().parents[3])


def _this_machine() -> tuple[str | None, int]:
    from ..run.environment import cpu_model
    return cpu_model(), os.cpu_count() or 1


def choose_set(root: Path, given: str | None) -> tuple[dict, str]:
    """The parameter set to use and a sentence saying which: --params, the user's fit, the committed set of this
    kind of machine, or (saying so) the committed set of another machine."""
    cpu, cores = _this_machine()
    candidates = []
    if given:
        candidates.append((Path(given), "the parameters given"))
    else:
        candidates.append((root / USER_PARAMS, "the parameters fitted on this machine (./tradebench predict --fit)"))
        candidates.append((params.COMMITTED, "the committed parameters"))
    for path, what in candidates:
        if not path.is_file():
            continue
        doc = params.load(path)
        s = params.for_machine(doc, cpu, cores)
        if s:
            return s, f"{what} of this kind of machine ({params.describe(s)})"
        if given:
            s = max(doc["sets"], key=params.newest_source)
            return s, f"{what}, fitted on another machine ({params.describe(s)})"
    doc = params.load(params.COMMITTED)
    s = max(doc["sets"], key=params.newest_source)
    return s, (f"no parameters for this machine ({cpu}, {cores} cores): the committed ones of another machine "
               f"({params.describe(s)}); CPU figures there may differ from here by a factor — fit your own with "
               f"./tradebench predict --fit RUN")


def newer_runs(root: Path, pset: dict, most: int = 6) -> list[str]:
    """The results/ folders of this machine started after the newest run PSET was fitted from (newest first)."""
    cpu, cores = _this_machine()
    if not params.same_machine(pset.get("machine", {}), cpu, cores):
        since = ""
    else:
        since = params.newest_source(pset)
    out = []
    folder = root / "results"
    if not folder.is_dir():
        return out
    # run ids start with their time: the newest first, and only the newest few read (a results.json can be large)
    for d in sorted((p for p in folder.iterdir() if p.is_dir() and not p.is_symlink()), reverse=True)[:4 * most]:
        try:
            doc, _ = fit.read(d)
        except (OSError, ValueError):
            continue
        env = doc.get("environment") or {}
        if (params.same_machine({"cpuModel": env.get("cpuModel"), "cores": env.get("cores")}, cpu, cores)
                and (doc.get("startedAt") or "") > since and doc.get("runs")):
            out.append(d.name)
            if len(out) >= most:
                break
    return out


def _fmt(x, nd=0):
    return "" if x is None else f"{x:,.{nd}f}"


def _question(args):
    """The repository, the parameter set (and which), the database and one INSERT's round trip the question
    names; None when its database cannot be modelled (said on stderr)."""
    root = _root()
    pset, which = choose_set(root, args.params)
    try:
        db = params.database(pset, args.persist, args.db_cpu, args.db_durable)
    except ValueError as e:
        print(f"tradebench: {e}", file=sys.stderr)
        return None
    return root, pset, which, db, round_trip_ms(args.db_latency, float(pset["dbOwnMs"]["value"]), db.fsync_ms)


def answer(args, out=None) -> int:
    out = out or sys.stdout
    asked = _question(args)
    if asked is None:
        return 2
    root, pset, which, db, rtt = asked
    designs = all_designs(root)
    cores = args.cores if args.cores is not None else (os.cpu_count() or 1)
    plans = [plan(d, args.persist, pset, args.rate, rtt, cores, db) for d in designs]
    spo = float(pset["salesPerOrder"]["value"])
    print(f"{args.rate:,.0f} orders/s ({args.rate * spo * 60:,.0f} sales/min at {spo:.3f} sales per order), "
          f"a database {args.db_latency:g} ms away{_db_kind(db)} (one INSERT's round trip {rtt:.2f} ms), "
          f"{args.persist}, {cores:g} cores for the variant.", file=out)
    print(f"Parameters: {which}.", file=out)
    for line in _db_notes(db, pset, args.persist, args.rate * spo):
        print(line, file=out)
    newer = newer_runs(root, pset)
    if newer:
        print(f"Newer measurements of this machine are in results/ ({', '.join(newer)}): "
              f"./tradebench predict --fit {' '.join('results/' + n for n in newer)} makes them the parameters.",
              file=out)
    print("", file=out)
    print("| design | as configured | to carry the load | sales/min | cores | memory MB | DB connections |", file=out)
    print("| --- | --- | --- | ---: | ---: | ---: | ---: |", file=out)
    for p in plans:
        base = p.as_configured
        n = f"{base.in_flight} in flight" if base.in_flight else "a multi-row INSERT per cycle"
        conf = f"carries it ({n})" if base.carries else \
            f"stores {_fmt(base.sales_per_minute)} sales/min ({n}; limit: {base.limit})"
        if p.carries:
            need = ", ".join(f"{k} ≥ {v}" for k, v in p.needs.items()) or "as configured"
        else:
            need = f"no: {p.why_not}"
        shown = p.at_need if p.carries else base
        print(f"| {p.design.key} | {conf} | {need} | {_fmt(shown.sales_per_minute)} | "
              f"{_fmt(shown.cores, 2) if shown.cores is not None else '?'} | "
              f"{_fmt(shown.rss_mb) if shown.rss_mb is not None else '?'} | {_fmt(p.connections)} |", file=out)
        if p.figures_from:
            print(f"|  | ({p.figures_from}) |  |  |  |  |  |", file=out)
    best = cheapest(plans)
    print("", file=out)
    if best:
        how = ", ".join(f"{k}={v}" for k, v in best.needs.items()) or "as configured"
        print(f"Cheapest that carries it: {best.design.key} ({how}): {best.at_need.cores:.2f} cores"
              + (f", {best.at_need.rss_mb:,.0f} MB" if best.at_need.rss_mb is not None else "") + ".", file=out)
        close = [p.design.key for p in plans if p is not best and p.carries and p.at_need.cores is not None
                 and p.at_need.cores <= best.at_need.cores * (1 + CLOSE)]
        if close:
            print(f"Within {CLOSE:.0%} of its cores, closer than the model can tell apart below saturation: "
                  f"{', '.join(close)}.", file=out)
    elif any(p.as_configured.limit == "database" for p in plans):
        print("No design carries this load: the database is the limit. A database on more cores, or one that "
              "spends less CPU a sale (batch: one multi-row INSERT a cycle), would.", file=out)
    else:
        print("No design carries this load on these cores.", file=out)
    print("Sales are the model's surest figure; cores and memory below saturation its weakest (held against the map, "
          "CPU within 15 % in about half the cells, where two runs of one cell agree as closely in six of ten): "
          "docs/model.md. The settings are Little's law's least: a margin above them absorbs bursts.", file=out)
    return 0


def answer_saturation(args, out=None) -> int:
    """Each design as configured in a closed loop with no pause (a compare's run): what it stores and what limits it."""
    out = out or sys.stdout
    asked = _question(args)
    if asked is None:
        return 2
    root, pset, which, db, rtt = asked
    print(f"A closed loop with no pause (as ./tradebench compare), a database {args.db_latency:g} ms away"
          f"{_db_kind(db)} (one INSERT's round trip {rtt:.2f} ms), {args.persist}, each design as configured: the least "
          f"of what its saturation run on this kind of machine stored (\"saturation\", its cores shared with the "
          f"database and the load client), Little's law and the database's capacity.", file=out)
    print(f"Parameters: {which}.", file=out)
    for line in _db_notes(db, pset, args.persist, float("inf")):
        print(line, file=out)
    print("", file=out)
    print("| design | in flight | sales/min | limit |", file=out)
    print("| --- | ---: | ---: | --- |", file=out)
    for d in all_designs(root):
        sales, limit, n = saturation(d, args.persist, pset, rtt, db)
        unknown = params.figures(pset, d.key, args.persist) is None
        shown = "?" if sales == float("inf") else _fmt(sales * 60) + (" at most" if unknown else "")
        why = (f"{limit}; " if limit != "none" else "") + "no saturation run of it on this machine" if unknown else limit
        print(f"| {d.key} | {n if n is not None else 'a multi-row INSERT per cycle'} | {shown} | {why} |", file=out)
    return 0


def _db_kind(db) -> str:
    kinds = []
    if db.cores is not None:
        kinds.append(f"busy (held to {db.cores:g} cores)")
    if db.fsync_ms:
        kinds.append(f"durable (an fsync of {db.fsync_ms:g} ms a commit)")
    return (", " + " and ".join(kinds)) if kinds else ""


def _db_notes(db, pset: dict, persist: str, offered_sales: float) -> list[str]:
    """What the slow database's kind means for the answer below: its capacity, and whether in flight helps."""
    lines = []
    cap = db.capacity()
    if cap is not None:
        src = ((pset.get("database") or {}).get(persist) or {}).get("from", "")
        lines.append(f"The database stores at most {cap * 60:,.0f} sales/min on {db.cores:g} cores "
                     f"({db.cpu_us_per_sale:g} µs of its CPU a sale stored: {src}); "
                     + ("the load is within it." if cap >= offered_sales else
                        "the load is beyond it, whatever the design: the database is the limit.")
                     + " A busy database is not helped by more inserts in flight: they queue in it, and its "
                       "round trip grows to in flight ÷ its capacity.")
    if db.fsync_ms:
        lines.append(f"Every commit waits for an fsync ({db.fsync_ms:g} ms: {pset['fsyncMs']['from']}); group commit "
                     f"lets the commits in flight together share one, so more in flight helps: the settings below "
                     f"are Little's law's with the fsync in the round trip.")
    return lines


def do_fit(args, out=None) -> int:
    out = out or sys.stdout
    root = _root()
    folders = [_folder(root, r) for r in args.fit]
    shape = [_folder(root, r) for r in args.shape_from] if args.shape_from else None
    probes = [fsync.read(f) for f in args.fsync or []]
    doc = fit.fit_document(folders, all_designs(root), shape, probes)
    dest = Path(args.out) if args.out else root / USER_PARAMS
    params.save(doc, dest)
    for s in doc["sets"]:
        print(f"{params.describe(s)}: {len(s['designs'])} designs", file=out)
    print(f"wrote {dest}", file=out)
    return 0


def do_check(args, out=None) -> int:
    out = out or sys.stdout
    root = _root()
    doc, name = fit.read(_folder(root, args.check))
    env = doc.get("environment") or {}
    source = Path(args.params) if args.params else params.COMMITTED
    pdoc = params.load(source)
    pset = params.for_machine(pdoc, env.get("cpuModel"), env.get("cores"))
    if pset is None:
        print(f"no parameter set in {source} for {env.get('cpuModel')}, {env.get('cores')} cores", file=sys.stderr)
        return 2
    if doc.get("runId") in params.fitted_from(pset):
        print(f"warning: {name} is one of the runs these parameters were fitted from", file=sys.stderr)
    rows = check.against(doc, pset, all_designs(root))
    s = check.summary(rows)
    if not rows:
        print(f"{name} has no open-loop cells (a map's, or a sweep's with --rate) to hold the model against",
              file=sys.stderr)
        return 2
    print(f"{name} against {params.describe(pset)}", file=out)
    for fig in ("sales", "cpu", "rss"):
        print(f"- {fig}: {s[fig]['within']} of {s[fig]['of']} cells within {check.WITHIN:.0%}", file=out)
    print("", file=out)
    print(check.table(rows), file=out)
    return 0


def do_probe_fsync(args, out=None) -> int:
    """F on the private database (started for it and stopped after, unless it ran before): fsync.measure."""
    from ..run import context
    from ..run import db as dbmod
    out = out or sys.stdout
    ctx = context.from_env()
    dest = Path(args.out) if args.out else _root() / ".tradebench" / "fsync.json"
    scratch = "TRADER_FSYNC"
    try:
        with dbmod.owned(ctx):
            dbmod.create(ctx, scratch)
            db = dbmod.private(ctx, scratch)
            figure = fsync.measure(ctx, db, scratch, ctx.logs / "fsync-probe")
    except dbmod.DbError as e:
        print(f"tradebench: {e}", file=sys.stderr)
        return 1
    doc = fsync.document(figure, "./tradebench predict --probe-fsync")
    params.save(doc, dest)
    print(f"one commit's round trip {figure['probeMs']:.3f} ms, {figure['durableProbeMs']:.3f} ms when every commit "
          f"is synced: F = {figure['value']:.3f} ms ({doc['machine']['cpuModel']}, {doc['measuredAt']})", file=out)
    print(f"wrote {dest}: ./tradebench predict --fit RUN... --fsync {dest} makes it the parameters'", file=out)
    return 0


def _folder(root: Path, ref: str) -> Path:
    p = Path(ref)
    for cand in (p, root / "results" / ref, root / "docs" / "results" / ref):
        if (cand / "results.json").is_file() or cand.is_file():
            return cand
    raise SystemExit(f"tradebench: no results.json in {ref} (nor in results/{ref}, docs/results/{ref})")


def parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="./tradebench predict", description=__doc__.split("\n\n")[0],
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--db-latency", type=float, metavar="MS",
                   help="the latency the network adds to each round trip to the database, ms (as sweep's --db-latency)")
    p.add_argument("--rate", type=float, metavar="N", help="offered orders a second")
    p.add_argument("--saturation", action="store_true",
                   help="instead of --rate: what each design stores in a closed loop with no pause (a compare's run)")
    p.add_argument("--cores", type=float, metavar="C", help="cores the variant may use (default: this machine's)")
    p.add_argument("--persist", choices=("per-sale", "batch"), default="per-sale")
    p.add_argument("--db-cpu", type=float, metavar="CORES",
                   help="a busy database: its server held to this share of the cores (0.25: a quarter of one core), "
                        "as the measuring commands' --db-cpu")
    p.add_argument("--db-durable", action="store_true",
                   help="a durable database: every commit waits for an fsync (as the measuring commands' --db-durable)")
    p.add_argument("--params", metavar="FILE", help="a parameter file (default: yours from --fit, else the committed)")
    p.add_argument("--fit", nargs="+", metavar="RUN", help="fit the parameters from these results folders")
    p.add_argument("--shape-from", nargs="+", metavar="RUN",
                   help="with --fit: the open-loop runs (a map) that say how CPU per order grows below saturation "
                        "(default: those among the --fit runs)")
    p.add_argument("--fsync", nargs="+", metavar="FILE",
                   help="with --fit: the fsync time measured by --probe-fsync (each file on its own machine)")
    p.add_argument("--out", metavar="FILE", help=f"with --fit: where to write them (default {USER_PARAMS}); "
                                                  f"with --probe-fsync: where to write F (default .tradebench/fsync.json)")
    p.add_argument("--probe-fsync", action="store_true",
                   help="measure what a durable database adds to each commit (F) on the private database, a few "
                        "seconds: the round-trip probe with and without every commit synced")
    p.add_argument("--check", metavar="RUN", help="the model beside every open-loop cell of this map or sweep")
    return p


def main(argv: list[str], root: Path | None = None) -> int:
    """./tradebench predict ARGV; ROOT: the repository (the launcher's context), by default found as _root says."""
    if root is not None:
        _ROOT[:] = [Path(root)]
    p = parser()
    args = p.parse_args(argv)
    if args.fit:
        return do_fit(args)
    if args.check:
        return do_check(args)
    if args.probe_fsync:
        return do_probe_fsync(args)
    if args.db_cpu is not None and args.db_cpu <= 0:
        p.error("--db-cpu is a share of the cores above 0 (0.25: a quarter of one core)")
    if args.saturation and args.db_latency is not None and args.db_latency >= 0:
        return answer_saturation(args)
    if args.db_latency is None or args.rate is None:
        p.error("--db-latency and --rate (or --saturation) are needed (or --fit RUN..., or --check RUN)")
    if args.rate <= 0 or args.db_latency < 0 or (args.cores is not None and args.cores <= 0):
        p.error("--rate and --cores must be positive, --db-latency not negative")
    return answer(args)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
