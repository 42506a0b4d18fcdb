"""What `./tradebench predict` answers: which design carries a load behind a database, configured how, at what
cost, how sure (answer, answer_saturation), and its fit, check and probe-fsync (do_fit, do_check, do_probe_fsync):
the model's arithmetic (model/) said as text. Each is given its options as one frozen object (options.py:
Question, FitOptions, CheckOptions, ProbeOptions) and the repository's root; the command line that makes them is
predict.py's.

No variant is started and no database is needed (but for probe-fsync): the answer is the model's
(docs/model.md), from a parameter set fitted on this machine (calibrate), else on this kind of machine.
"""
from __future__ import annotations

import dataclasses
import os
import sys
from datetime import datetime, timezone
from pathlib import Path
from typing import Any, TextIO

from ..measure import fsync as fsync_probe
from ..model import accuracy, check, fit, fsync, here, params
from ..model.designs import all_designs
from ..model.plan import Plan, cheapest, plan, saturation
from ..model.predict import Beside, Database, database_sales_per_s, round_trip_ms
from ..record import Parameters, ParameterSet, results_folder
from ..run import layout
from .options import CheckOptions, FitOptions, ProbeOptions, Question

USER_PARAMS = Path(".tradebench") / "model-parameters.json"
#: designs within this share of the cheapest's cores are named with it: the model's CPU error below saturation
#: is of this order (docs/model.md, "Held against the map")
CLOSE = 0.20


def _this_machine() -> tuple[str | None, int]:
    from ..run.environment import cpu_model
    return cpu_model(), os.cpu_count() or 1


def choose_set(root: Path, given: str | None, layout_kind: str = "isolated") -> tuple[ParameterSet, str]:
    """The parameter set to use and a sentence saying which: --params, this machine's own (calibrate: identified by
    its measured figures; or a fit of this kind of machine), the committed set of this kind of machine in
    LAYOUT_KIND (params.committed), or (saying so) the committed set of another machine."""
    cpu, cores = _this_machine()
    if given:
        doc = params.load(Path(given))
        s = params.calibrated(doc, cores) or params.for_machine(doc, cpu, cores)
        if s:
            return s, f"the parameters given ({params.describe(s)})"
        s = max(doc["sets"], key=params.newest_source)
        return s, f"the parameters given, fitted on another machine ({params.describe(s)})"
    mine = root / USER_PARAMS
    if mine.is_file():
        doc = params.load(mine)
        s = params.calibrated(doc, cores)
        if s:
            return s, f"this machine's, measured by ./tradebench calibrate ({params.describe(s)})"
        s = params.for_machine(doc, cpu, cores)
        if s:
            return s, f"the parameters fitted on this machine (./tradebench predict fit) ({params.describe(s)})"
    s = params.committed(cpu, cores, layout_kind)
    if s:
        return s, f"the committed parameters of this kind of machine, {layout_kind} layout ({params.describe(s)})"
    others = [x for x in params.shipped_calibrations() if layout_kind == "isolated"] or \
        params.load(params.COMMITTED)["sets"]
    s = max(others, key=lambda x: (x.get("calibration") or {}).get("measuredAt") or params.newest_source(x))
    return s, (f"no parameters for this machine ({cpu}, {cores} cores): the committed ones of another machine "
               f"({s['machine'].get('cpuModel')}: {params.describe(s)}); CPU figures there may differ from here by a "
               f"factor — measure your own with ./tradebench calibrate")


def borrowed_intervals(pset: ParameterSet) -> dict[str, Any] | None:
    """Where PSET was never held against runs it was not fitted on: the committed set that was (its residual
    bands stand in for the intervals, said so), else None."""
    if pset.get("heldOut"):
        return None
    others = [s for s in params.load(params.COMMITTED)["sets"] if s.get("heldOut")]
    if not others:
        return None
    s = max(others, key=lambda s: s["heldOut"].get("checkedAt") or "")
    return {"machine": f"{s['machine'].get('cpuModel')}, {s['machine'].get('cores')} cores", "heldOut": s["heldOut"]}


def newer_runs(root: Path, pset: ParameterSet, most: int = 6) -> list[str]:
    """The results/ folders of this machine started after the newest run PSET was fitted from (newest first)."""
    cpu, cores = _this_machine()
    if not params.same_machine(pset.get("machine", {}), cpu, cores):
        since = ""
    else:
        since = params.newest_source(pset)
    out: list[str] = []
    for doc, name in here.newest_results(root, 4 * most):
        env = doc.get("environment") or {}
        if (params.same_machine({"cpuModel": env.get("cpuModel"), "cores": env.get("cores")}, cpu, cores)
                and (doc.get("startedAt") or "") > since and doc.get("runs")):
            out.append(name)
            if len(out) >= most:
                break
    return out


# --- the answer ---------------------------------------------------------------------------------------------------

def _fmt(x: float | None, nd: int = 0) -> str:
    return "" if x is None else f"{x:,.{nd}f}"


def _with(x: float | None, bands: dict[str, Any] | None, design: str, fig: str, nd: int = 0,
          scale: float = 1.0) -> str:
    """X with its 95 % interval from the residual BANDS: "43,026 (39,100–47,200)"; "?" where X is unknown."""
    if x is None:
        return "?"
    got = accuracy.band_for(bands, design, fig)
    iv = accuracy.interval(x * scale, got[0] if got else None)
    shown = _fmt(x, nd)
    if iv is None:
        return shown
    return f"{shown} ({_fmt(iv[0] / scale, nd)}–{_fmt(iv[1] / scale, nd)})"


def extrapolated(pset: ParameterSet, q: Question, rtt: float, cores: float) -> list[str]:
    """What of the question lies outside what the set measured: its rate, round trip, CPU count, layout or
    persist mode, each said with the measured range."""
    m = pset.get("measured")
    if not m:
        return ["this parameter set does not say what it measured (fitted before sets did): every figure may be "
                "an extrapolation"]
    out = [line for line in (_rate_outside(m, q.rate), _round_trip_outside(m, rtt)) if line]
    return out + _setup_outside(m, q, cores)


def _rate_outside(m: dict[str, Any], rate: float | None) -> str | None:
    """RATE beyond the measured open-loop rates (a closed loop asks no rate)."""
    if rate is None:
        return None
    rates = m.get("rates")
    if not rates:
        return "rate: no open-loop run in this set: every rate below saturation"
    if rate > rates[1] * 1.0001:
        return f"rate above the largest measured {rates[1]:,.0f}/s ({m.get('ratesFrom')})"
    if rate < rates[0] * 0.9999:
        return f"rate below the least measured {rates[0]:,.0f}/s ({m.get('ratesFrom')})"
    return None


def _round_trip_outside(m: dict[str, Any], rtt: float) -> str | None:
    rt = m.get("roundTripMs")
    if rt and rtt > rt[1] * 1.0001:
        return f"round trip {rtt:.2f} ms above the longest measured {rt[1]:g} ms"
    if rt and rtt < rt[0] * 0.9999:
        return f"round trip {rtt:.2f} ms below the shortest measured {rt[0]:g} ms"
    return None


def _setup_outside(m: dict[str, Any], q: Question, cores: float) -> list[str]:
    """The variant's CPU count, layout and persist mode where no saturation run of the set had them."""
    out = []
    counts = m.get("variantCpus") or []
    if counts and not any(abs(c - cores) < 1e-9 for c in counts):
        out.append(f"{cores:g} CPUs for the variant: measured at {', '.join(f'{c:g}' for c in counts)} only")
    layouts = m.get("layouts") or []
    if layouts and q.layout not in layouts:
        out.append(f"layout {q.layout}: measured {', '.join(layouts)} only")
    modes = m.get("persist") or []
    if modes and q.persist not in modes:
        out.append(f"{q.persist}: no saturation run in it (measured {', '.join(modes)})")
    return out


def _resolved(q: Question) -> Question:
    """Q with what it left to the set: the layout (isolated, as every measuring command lays its processes out,
    unless asked; a set that measured only the other says so in an "Extrapolated:" line) and the variant's CPUs
    (in that layout on this machine: the isolated layout's share, run/layout.py, or every CPU when shared)."""
    kind = q.layout or "isolated"
    cores = q.cores
    if cores is None:
        mine = layout.default(layout.available()).variant if kind == "isolated" else None
        cores = float(len(mine) if mine else (os.cpu_count() or 1))
    return dataclasses.replace(q, layout=kind, cores=cores)


def _question(root: Path, q: Question) -> tuple[Question, ParameterSet, str, Database, float] | None:
    """The question with its defaults resolved against the parameter set it takes (and which set), the database
    and one INSERT's round trip it names; None when its database cannot be modelled (said on stderr)."""
    pset, which = choose_set(root, q.params, q.layout or "isolated")
    q = _resolved(q)
    pset, which = _at_this_machine(root, q, pset, which)
    own, load_beside = _database_cpus(q)
    mine = here.measured_here(root, all_designs(root), q.persist, *_this_machine()) if own else None
    try:
        db = params.database(pset, q.persist, q.db_cpu, q.db_durable, own_cpus=own, linked=q.db_latency > 0,
                             load_beside=load_beside, here=mine.figures if mine else None)
    except ValueError as e:
        print(f"tradebench: {e}", file=sys.stderr)
        return None
    return (q, pset, which, db, round_trip_ms(q.db_latency, float(pset["dbOwnMs"]["value"]), db.fsync_ms))


def _at_this_machine(root: Path, q: Question, pset: ParameterSet, which: str) -> tuple[ParameterSet, str]:
    """PSET scaled to this machine's ceilings where results/ holds a calibration of this machine in Q's layout and
    the set knows its own machine's (here.scaling), WHICH saying so; else as it is, WHICH saying how far apart
    machines of the kind have measured and what makes the answer this machine's."""
    cpu, cores = _this_machine()
    mine = here.ceilings_here(root, cpu, cores, q.layout)
    theirs = here.ceilings_of_set(root, pset)
    if mine is not None and theirs is not None and mine.costs != theirs.costs:       # not the set's own measurement
        by = here.scaling(mine, theirs, all_designs(root), q.persist)
        if by is not None:
            return here.scaled(pset, by), f"{which}; {by.said()}"
    if mine is None and not pset.get("calibration", {}).get("folder", "").startswith(str(root / "results")):
        apart = here.ceilings_spread(root, cpu)
        said = (f"machines of this kind have measured the Java trivial server's CPU a request {apart[0]:.2f}–"
                f"{apart[1]:.2f} µs ({apart[2]} calibrations in docs/results); " if apart else "")
        return pset, (f"{which}; no calibration of this machine in results/ to scale it by: {said}"
                      f"./tradebench calibrate (10 minutes) makes the answer this machine's")
    return pset, which


def _database_cpus(q: Question) -> tuple[float | None, bool]:
    """The database's CPUs in Q's layout on this machine and whether the load client shares them ((None, False):
    the shared layout, every process on every CPU, where the design's own saturation runs hold the bound)."""
    if q.layout != "isolated":
        return None, False
    here = layout.default(layout.available())
    if q.cores is not None and here.variant is not None and int(q.cores) != len(here.variant):
        try:
            here = here.with_variant_cpus(int(q.cores))
        except layout.LayoutError:
            return None, False          # more CPUs than this machine has: a question about another machine
    if here.kind != "isolated":
        return None, False          # one core: nothing to isolate
    db, load = set(here.database or ()), set(here.load or ())
    return (float(len(db)) if db else None), bool(db & load)


def answer(q: Question, root: Path, out: TextIO | None = None) -> int:
    out = out or sys.stdout
    asked = _question(root, q)
    if asked is None:
        return 2
    q, pset, which, db, rtt = asked
    rate = q.rate
    assert rate is not None            # a question with a rate (answer_saturation answers one without)
    designs = all_designs(root)
    assert q.cores is not None        # resolved
    cores = q.cores
    plans = [plan(d, q.persist, pset, rate, rtt, cores, db) for d in designs]
    spo = float(pset["salesPerOrder"]["value"])
    borrowed = borrowed_intervals(pset)
    bands = (pset.get("heldOut") or (borrowed or {}).get("heldOut") or {}).get("intervals")
    print(f"{rate:,.0f} orders/s ({rate * spo * 60:,.0f} sales/min at {spo:.3f} sales per order), "
          f"a database {q.db_latency:g} ms away{_db_kind(db)} (one INSERT's round trip {rtt:.2f} ms), "
          f"{q.persist}, {cores:g} CPU{'' if cores == 1 else 's'} for the variant ({q.layout}).", file=out)
    print(f"Parameters: {which}.", file=out)
    for line in extrapolated(pset, q, rtt, cores):
        print(f"Extrapolated: {line}.", file=out)
    for line in _db_notes(db, pset, q.persist, rate * spo, rate):
        print(line, file=out)
    if db.beside is not None and db.beside.link_us_per_sale and not db.beside.here:
        print(_not_measured_here(root, pset, q.persist), file=out)
    newer = newer_runs(root, pset)
    if newer:
        print(f"Newer measurements of this machine are in results/ ({', '.join(newer)}): "
              f"./tradebench predict fit {' '.join('results/' + n for n in newer)} makes them the parameters.",
              file=out)
    print("", file=out)
    print("Each figure with its 95 % interval where the set has one (a range of what a run measures).", file=out)
    print("| design | as configured | to carry the load | sales/min | cores | memory MB | p50 ms | p99 ms "
          "| DB connections |", file=out)
    print("| --- | --- | --- | ---: | ---: | ---: | ---: | ---: | ---: |", file=out)
    for p in plans:
        _print_plan_row(p, bands, out)
    print("", file=out)
    _print_cheapest(plans, out)
    print("The settings named keep the load within the share of Little's law's bound at which the design's measured "
          "runs stored 95 % of their load (docs/model.md, \"Settings with a margin\").", file=out)
    print(accuracy.sentence(pset, borrowed), file=out)
    return 0


#: what a design's latency is past the database's bound, which the model does not predict (docs/model.md, "Limits")
PAST_THE_DATABASE = ("no latency past the database's bound: orders wait where its CPUs are full, and a load client "
                     "on them falls behind its schedule (2 CPUs: a p99 of seconds, growing with the window)")


def _print_plan_row(p: Plan, bands: dict[str, Any] | None, out: TextIO) -> None:
    """P's row: as configured, what carries the load, and the figures where it carries it (as configured where it
    does not), with a row of notes beneath where any figure needs one."""
    base = p.as_configured
    n = f"{base.in_flight} in flight" if base.in_flight else "a multi-row INSERT per cycle"
    conf = f"carries it ({n})" if base.carries else \
        f"stores {_fmt(base.sales_per_minute)} sales/min ({n}; limit: {base.limit})"
    if p.carries and p.at_need is not None:
        need = ", ".join(f"{k} ≥ {v}" for k, v in (p.needs or {}).items()) or "as configured"
        shown = p.at_need
    else:
        need = f"no: {p.why_not}"
        shown = base
    key = p.design.key
    lat = p.latency if p.carries else None
    print(f"| {key} | {conf} | {need} | {_with(shown.sales_per_minute, bands, key, 'sales')} | "
          f"{_with(shown.cores, bands, key, 'cpu', 2, 100.0)} | {_with(shown.rss_mb, bands, key, 'rss')} | "
          f"{_with(lat[0] if lat else None, bands, key, 'p50', 2)} | "
          f"{_with(lat[1] if lat else None, bands, key, 'p99', 2)} | {_fmt(p.connections)} |", file=out)
    notes = [x for x in (p.figures_from, p.why_not if p.carries else "",
                         f"latency {lat[2]}" if lat and lat[2] else "",
                         PAST_THE_DATABASE if not p.carries and base.limit == "database" else "",
                         "no memory figure: no open-loop run of its own" if shown.rss_mb is None and shown.cores
                         is not None else "") if x]
    if notes:
        print(f"|  | ({'; '.join(notes)}) |  |  |  |  |  |  |  |", file=out)


def _print_cheapest(plans: list[Plan], out: TextIO) -> None:
    """The design the load costs the fewest cores, and those the model cannot tell from it; else why none
    carries the load."""
    best = cheapest(plans)
    if best and best.at_need is not None and best.at_need.cores is not None:   # cheapest(): one with its cores
        at, least = best.at_need, best.at_need.cores
        how = ", ".join(f"{k}={v}" for k, v in (best.needs or {}).items()) or "as configured"
        print(f"Cheapest that carries it: {best.design.key} ({how}): {least:.2f} cores"
              + (f", {at.rss_mb:,.0f} MB" if at.rss_mb is not None else "") + ".", file=out)
        close = [p.design.key for p in plans if p is not best and p.carries and p.at_need is not None
                 and p.at_need.cores is not None and p.at_need.cores <= least * (1 + CLOSE)]
        if close:
            print(f"Within {CLOSE:.0%} of its cores, closer than the model can tell apart below saturation: "
                  f"{', '.join(close)}.", file=out)
    elif any(p.as_configured.limit == "database" for p in plans):
        print("No design carries this load: the database is the limit. A database on more cores, or one that "
              "spends less CPU a sale (batch: one multi-row INSERT a cycle), would.", file=out)
    else:
        print("No design carries this load on these cores.", file=out)


def answer_saturation(q: Question, root: Path, out: TextIO | None = None) -> int:
    """Each design as configured in a closed loop with no pause (a compare's run): what it stores and what limits it."""
    out = out or sys.stdout
    asked = _question(root, q)
    if asked is None:
        return 2
    q, pset, which, db, rtt = asked
    assert q.cores is not None and q.layout is not None        # resolved
    cores = q.cores
    print(f"A closed loop with no pause (as ./tradebench compare), a database {q.db_latency:g} ms away"
          f"{_db_kind(db)} (one INSERT's round trip {rtt:.2f} ms), {q.persist}, {cores:g} CPU{'' if cores == 1 else 's'} for the variant "
          f"({q.layout}), each design as configured: the least of what its saturation runs stored at that CPU count "
          f"(\"saturation\"; between measured counts interpolated, beyond them extrapolated and said so), Little's "
          f"law and the database's capacity.", file=out)
    print(f"Parameters: {which}.", file=out)
    for line in extrapolated(pset, q, rtt, cores):
        print(f"Extrapolated: {line}.", file=out)
    for line in _db_notes(db, pset, q.persist, float("inf")):
        print(line, file=out)
    print("", file=out)
    print("| design | in flight | sales/min | limit |", file=out)
    print("| --- | ---: | ---: | --- |", file=out)
    for d in all_designs(root):
        sales, limit, n, note = saturation(d, q.persist, pset, rtt, db, cores, q.layout)
        unknown = params.figures(pset, d.key, q.persist) is None
        shown = "?" if sales == float("inf") else _fmt(sales * 60) + (" at most" if unknown else "")
        why = (f"{limit}; " if limit != "none" else "") + "no saturation run of it on this machine" if unknown else limit
        if note and limit == "saturation":
            why += f" (extrapolated: {note})"
        print(f"| {d.key} | {n if n is not None else 'a multi-row INSERT per cycle'} | {shown} | {why} |", file=out)
    return 0


def _db_kind(db: Database) -> str:
    kinds = []
    if db.cores is not None:
        kinds.append(f"busy (held to {db.cores:g} cores)")
    if db.fsync_ms:
        kinds.append(f"durable (an fsync of {db.fsync_ms:g} ms a commit)")
    return (", " + " and ".join(kinds)) if kinds else ""


def _beside_note(b: Beside, rate: float | None, offered_sales: float) -> str:
    """The database's bound on the CPUs of its own in the isolated layout, and what it is made of."""
    cap = b.sales_per_s(rate)
    parts = [f"the database {b.db_us_per_sale:g} µs of CPU a sale"]
    if b.link_us_per_sale:
        parts.append(f"the link to it {b.link_us_per_sale:g} µs")
    if b.load_us_per_order:
        parts.append(f"the load client beside it {b.load_us_per_order:g} µs an order sent")
    cpus = f"{b.cpus:g} CPU{'' if b.cpus == 1 else 's'}"
    if cap is None:
        return f"The database's CPUs ({cpus}): no CPU per sale in the set bounds them."
    verdict = ("the load is within it." if cap >= offered_sales else
               "the load is beyond it, whatever the design: the database's CPUs are the limit, and a design "
               "asked for more queues and refuses.")
    where = "measured on this machine" if b.here else "from the parameter set"
    return (f"The database's bound: {cap * 60:,.0f} sales/min on its {cpus} in this layout ({', '.join(parts)}, "
            f"{where}: {b.source}); {verdict}")


def _not_measured_here(root: Path, pset: ParameterSet, persist: str) -> str:
    """Where the database's neighbours were not measured on this machine: how far apart machines of the set's kind
    measured them, and what makes them this machine's."""
    got = here.spread(root, pset, all_designs(root), persist)
    apart = (f"the {got[2]} sittings this set was fitted from measured the database and the link together "
             f"{got[0]:,.0f}-{got[1]:,.0f} µs a sale through the link; " if got else "")
    return (f"No run of this machine through a slowed database in results/: {apart}machines of one kind differ by "
            f"2x and more. `./tradebench sweep latency` or `./tradebench calibrate` (10 minutes) makes the database's "
            f"bound this machine's.")


def _db_notes(db: Database, pset: ParameterSet, persist: str, offered_sales: float,
              rate: float | None = None) -> list[str]:
    """What the slow database's kind means for the answer below: its capacity, and whether in flight helps."""
    lines = []
    cap = database_sales_per_s(db.cores, db.cpu_us_per_sale)
    if db.beside is not None:
        lines.append(_beside_note(db.beside, rate, offered_sales))
    if cap is not None:
        src = ((pset.get("database") or {}).get(persist) or {}).get("from", "")
        lines.append(f"The database stores at most {cap * 60:,.0f} sales/min on {db.cores:g} cores "
                     f"({db.cpu_us_per_sale:g} µs of its CPU a sale stored: {src}); "
                     + ("the load is within it." if cap >= offered_sales else
                        "the load is beyond it, whatever the design: the database is the limit.")
                     + " A busy database is not helped by more inserts in flight: they queue in it, and its "
                       "round trip grows to in flight ÷ its capacity.")
    if db.fsync_ms:
        lines.append(f"Every commit waits for an fsync ({db.fsync_ms:g} ms: {(pset.get('fsyncMs') or {}).get('from')}); group commit "
                     f"lets the commits in flight together share one, so more in flight helps: the settings below "
                     f"are Little's law's with the fsync in the round trip.")
    return lines


# --- fit, check, probe-fsync ------------------------------------------------------------------------------------

def do_fit(o: FitOptions, root: Path, out: TextIO | None = None) -> int:
    out = out or sys.stdout
    folders = [results_folder(root, r) for r in o.runs]
    shape = [results_folder(root, r) for r in o.shape_from] or None
    probes = [fsync.read(f) for f in o.fsync]
    doc = fit.fit_document(folders, all_designs(root), shape, probes)
    try:
        score_held_out(doc, [results_folder(root, r) for r in o.held_out], root)
    except ValueError as e:
        print(f"tradebench: {e}", file=sys.stderr)
        return 2
    dest = Path(o.out) if o.out else root / USER_PARAMS
    params.save(doc, dest)
    for s in doc["sets"]:
        h = s.get("heldOut")
        print(f"{params.describe(s)}: {len(s['designs'])} designs"
              + (f"; held against {h['cells']} cells of {', '.join(h['folders'])}" if h else "; not held out"),
              file=out)
        if h:
            print("  " + accuracy.sentence(s), file=out)
    print(f"wrote {dest}", file=out)
    return 0


def score_held_out(doc: Parameters, folders: list[Path], root: Path) -> None:
    """Each set of DOC held against the FOLDERS of its machine it was not fitted from (heldOut: score, residual
    bands, coverage). Raises ValueError for a folder a set was fitted from: its check would be in-sample."""
    designs = all_designs(root)
    by_set: dict[int, tuple[list[Any], list[Any]]] = {}
    for f in folders:
        run, name = fit.read(f)
        env = run.get("environment") or {}
        s = params.for_machine(doc, env.get("cpuModel"), env.get("cores"))
        if s is None:
            raise ValueError(f"{name}: no set of its machine ({env.get('cpuModel')}, {env.get('cores')} cores) "
                             f"to hold out from")
        if run.get("runId") in params.fitted_from(s):
            raise ValueError(f"{name} is one of the runs {params.describe(s)} is fitted from: it cannot be held out")
        rows, names = by_set.setdefault(id(s), ([], []))
        rows += check.against(run, s, designs)
        names.append(name)
    now = datetime.now(timezone.utc).isoformat(timespec="seconds")
    for s in doc["sets"]:
        if id(s) in by_set:
            rows, names = by_set[id(s)]
            s["heldOut"] = accuracy.held_out(rows, names, now)


def do_check(o: CheckOptions, root: Path, out: TextIO | None = None) -> int:
    out = out or sys.stdout
    doc, name = fit.read(results_folder(root, o.run))
    pset = _set_to_check_against(o, doc, name)
    if pset is None:
        return 2
    rows = check.against(doc, pset, all_designs(root))
    if not rows:
        print(f"{name} has no open-loop cells (a map's, or a sweep's with --rate) to hold the model against",
              file=sys.stderr)
        return 2
    print(f"{name} against {params.describe(pset)}", file=out)
    _print_score(rows, pset, name, out)
    print("", file=out)
    print(check.table(rows), file=out)
    _print_latency(rows, out)
    return 0


def _set_to_check_against(o: CheckOptions, doc: dict[str, Any], name: str) -> ParameterSet | None:
    """The parameter set of the run's machine; None (said on stderr) where there is none, or where the set was
    fitted from the run and --in-sample does not ask for it anyway: such a check says nothing of new runs."""
    env = doc.get("environment") or {}
    source = Path(o.params) if o.params else params.COMMITTED
    pdoc = params.load(source)
    pset = params.for_machine(pdoc, env.get("cpuModel"), env.get("cores")) or params.calibrated(pdoc, env.get("cores"))
    if pset is None:
        print(f"no parameter set in {source} for {env.get('cpuModel')}, {env.get('cores')} cores", file=sys.stderr)
        return None
    if doc.get("runId") in params.fitted_from(pset):
        if not o.in_sample:
            print(f"tradebench: {name} is one of the runs these parameters were fitted from: held against it, the "
                  f"model is checked in-sample (--in-sample to see it anyway)", file=sys.stderr)
            return None
        print(f"warning: {name} is one of the runs these parameters were fitted from: an in-sample check",
              file=sys.stderr)
    return pset


def _print_score(rows: list[dict[str, Any]], pset: ParameterSet, name: str, out: TextIO) -> None:
    """Per figure, the cells within its tolerance and those its interval covered: counted leaving each cell out
    where the intervals were drawn from this very folder, else the check would grade its own residuals."""
    held = pset.get("heldOut") or {}
    own = name in (held.get("folders") or [])
    score = accuracy.score(rows)
    cov = accuracy.coverage(rows, held.get("intervals"), leave_one_out=own)
    for f in accuracy.FIGURES:
        s, c = score[f], cov[f]
        if not s["of"]:
            continue
        print(f"- {accuracy.NAMES[f]}: {s['within']} of {s['of']} cells within {s['tolerance']:.0%} (median error "
              f"{s['medianError']:.0%})"
              + (f"; its 95 % interval covered {c['covered']} of {c['of']} (median width {c['medianWidth']:.0%})"
                 if c["of"] else "; no interval"), file=out)
    if own:
        print("(the set's intervals are drawn from this folder's residuals: their coverage is counted leaving each "
              "cell out)", file=out)
    elif not held:
        print("(this set has no intervals: it was never held against runs it was not fitted on)", file=out)


def _print_latency(rows: list[dict[str, Any]], out: TextIO) -> None:
    """The cells the model predicts a latency for, measured beside predicted."""
    lat = [r for r in rows if r.get("predictedP99Ms") is not None]
    if not lat:
        return
    print("", file=out)
    print("| design | +ms | load | p50 ms | predicted | error | p99 ms | predicted | error |", file=out)
    print("| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |", file=out)
    for r in sorted(lat, key=lambda r: (r["design"], r["latencyMs"], r["rate"])):
        print(f"| {r['design']} | {r['latencyMs']} | {r['rate']:,}/s | {r['p50Ms']} | {r['predictedP50Ms']} | "
              f"{_pct(r['p50Error'])} | {r['p99Ms']} | {r['predictedP99Ms']} | {_pct(r['p99Error'])} |", file=out)


def _pct(e: float | None) -> str:
    return "" if e is None else f"{e * 100:+.0f} %"


def do_probe_fsync(o: ProbeOptions, root: Path, out: TextIO | None = None) -> int:
    """F on the private database (started for it and stopped after, unless it ran before): measure/fsync.py."""
    from ..run import context
    from ..run import db as dbmod
    out = out or sys.stdout
    ctx = context.from_env()
    dest = Path(o.out) if o.out else root / ".tradebench" / "fsync.json"
    scratch = "TRADER_FSYNC"
    try:
        with dbmod.owned(ctx):
            dbmod.create(ctx, scratch)
            db = dbmod.private(ctx, scratch)
            figure = fsync_probe.measure(ctx, db, scratch, ctx.logs / "fsync-probe")
    except dbmod.DbError as e:
        print(f"tradebench: {e}", file=sys.stderr)
        return 1
    doc = fsync_probe.document(figure, "./tradebench predict probe-fsync")
    fsync_probe.write(doc, dest)
    print(f"one commit's round trip {figure['probeMs']:.3f} ms, {figure['durableProbeMs']:.3f} ms when every commit "
          f"is synced: F = {figure['value']:.3f} ms ({doc['machine']['cpuModel']}, {doc['measuredAt']})", file=out)
    print(f"wrote {dest}: ./tradebench predict fit RUN... --fsync {dest} makes it the parameters'", file=out)
    return 0
