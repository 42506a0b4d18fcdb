"""Per design: what it stores as configured, the setting it needs to carry a load, and what that costs.

The arithmetic is predict.py's; this module gives it a design's manifest (its in-flight expression,
ENGINES, DELAY_MS, PRODUCTS, its database connections) and a parameter set's figures.
"""
from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Any

from ..record import ParameterSet
from . import params
from .designs import Design
from .latency import TAIL_IN_FLIGHT
from .predict import (
    LEAST_MARGIN,
    MAX_SETTING,
    Database,
    Figures,
    Prediction,
    Scaled,
    at_saturation,
    in_flight_needed,
    in_flight_with_margin,
    inserts_in_flight,
    latency_at,
    predict,
    saturation_at,
    smallest_setting,
)


@dataclass
class Plan:
    design: Design
    persist: str
    as_configured: Prediction
    needs: dict[str, Any] | None            # {setting: value} that carries the load; {} when it carries it as configured
    at_need: Prediction | None    # the prediction with those settings
    connections: int | None       # database connections at those settings (or as configured)
    why_not: str = ""             # why no setting carries it (cores, products)
    figures_from: str = ""        # "" or why its figures are missing on this machine
    latency: tuple[Any, ...] | None = None  # (p50 ms, p99 ms, "" or how it was extrapolated) where it carries the load

    @property
    def carries(self) -> bool:
        return self.at_need is not None and self.at_need.carries


def predict_design(design: Design, persist: str, pset: ParameterSet, rate: float, rtt_ms: float, cores: float | None = None,
                   overrides: dict[str, Any] | None = None, db: Database | None = None, waiting_share: float = 0.0) -> Prediction:
    """DESIGN in PERSIST mode with OVERRIDES at RATE orders/s behind RTT_MS (a durable database's fsync
    included), with PSET's figures; DB: a busy database's capacity as a limit; WAITING_SHARE: predict.predict's."""
    overrides = dict(overrides or {})
    fig = params.figures(pset, design.key, persist)
    engines = design.number("ENGINES", overrides) or 1
    n = _in_flight(design, persist, overrides)
    delay = design.number("DELAY_MS", overrides) or 0
    return predict(rate, rtt_ms, n, engines, delay, fig, params.machine(pset, cores), settings=overrides,
                   db_sales=db.capacity(rate) if db else None, waiting_share=waiting_share)


def saturation(design: Design, persist: str, pset: ParameterSet, rtt_ms: float, db: Database | None = None,
               cpus: float | None = None, layout: str = "shared") -> tuple[float, str, int | None, str]:
    """What DESIGN as configured stores in a closed loop with no pause (a compare): (sales/s, its limit, in
    flight, "" or how its saturation was extrapolated to CPUS in LAYOUT); without figures for it on this machine
    only Little's law and the database bound it (sales/s inf and limit "none" when neither does)."""
    fig = params.figures(pset, design.key, persist)
    n = _in_flight(design, persist, {})
    note = ""
    if fig is not None and cpus is not None:
        scaled, note = scaled_saturation(fig, cpus, layout)
        if scaled is not None:
            fig = replace(fig, saturation_orders=scaled.orders, saturation_sales=scaled.sales)
    sales, limit = at_saturation(rtt_ms, n, fig, params.machine(pset), db.capacity() if db else None)
    return sales, limit, n, note


def scaled_saturation(fig: Figures, cpus: float, layout: str) -> tuple[Scaled | None, str]:
    """The design's saturation at CPUS in LAYOUT from its measured points (predict.saturation_at), and "" or what
    was extrapolated: the count, or the layout (no run of it: the other layout's points)."""
    pts = [p for p in fig.saturation_points if (p.get("layout") or "shared") == layout]
    note = ""
    if not pts and fig.saturation_points:
        pts = fig.saturation_points
        note = f"layout {layout}: no run of it, its other layout's"
    if not pts:
        return None, ""
    got = saturation_at(pts, cpus)
    return got, "; ".join(x for x in (note, got.note if got else "") if x)


def _in_flight(design: Design, persist: str, overrides: dict[str, Any]) -> int | None:
    n = design.in_flight(persist, overrides)
    products = design.number("PRODUCTS", overrides)
    if n is not None and products and "ENGINES" in design.knobs(persist):
        # an engine owns the products i with i mod ENGINES = its number: engines beyond PRODUCTS trade nothing
        n = min(n, products)
    return n


def plan(design: Design, persist: str, pset: ParameterSet, rate: float, rtt_ms: float, cores: float | None = None,
         db: Database | None = None) -> Plan:
    base = predict_design(design, persist, pset, rate, rtt_ms, cores, db=db)
    missing = "" if params.figures(pset, design.key, persist) else "no CPU or memory figures for it on this machine"
    if base.carries and _within_margin(base, params.figures(pset, design.key, persist), rtt_ms):
        return Plan(design, persist, base, {}, base, _connections(design, {}), figures_from=missing,
                    latency=_latency(pset, design, persist, base))
    limited = _limited_whatever_the_setting(design, persist, pset, base, rate, cores, db, missing)
    if limited is not None:
        return limited
    fig = params.figures(pset, design.key, persist)
    need = in_flight_with_margin(base.offered_sales, rtt_ms, fig.insert_overhead_ms if fig else 0.0,
                                 fig.margin_bound_fraction if fig else None)
    found = _first_setting_with_margin(design, persist, pset, base, rate, rtt_ms, cores, db, need, missing)
    if found is not None:
        return found
    if base.carries:
        return _without_margin(design, persist, pset, base, rate, missing)
    return _margin_out_of_reach(design, persist, pset, base, rate, rtt_ms, cores, db, fig, need, missing)


def _on_what(db: Database, rate: float | None) -> str:
    """Where the database's capacity comes from, in words: its share of the cores, or the CPUs it shares."""
    if db.bound_by(rate) == "busy":
        return f"on {db.cores:g} cores"
    b = db.beside
    assert b is not None
    others = " and ".join(x for x, us in (("the link", b.link_us_per_sale), ("the load client", b.load_us_per_order))
                          if us)
    return f"on its {b.cpus:g} CPU{'' if b.cpus == 1 else 's'}" + (f", shared with {others}" if others else "")


def _limited_whatever_the_setting(design: Design, persist: str, pset: ParameterSet, base: Prediction, rate: float,
                            cores: float | None, db: Database | None, missing: str) -> Plan | None:
    """BASE held by what no setting of the design changes (the database's capacity, the cores): a plan saying
    which; None when a setting may still carry the load."""
    if base.db_sales is not None and base.db_sales < base.offered_sales:
        assert db is not None         # a capacity of the database's own: its cores, or the CPUs it shares
        # the database's capacity is its CPUs ÷ its CPU per sale: more inserts in flight only queue in it
        return Plan(design, persist, base, None, None, _connections(design, {}),
                    why_not=f"the database is the limit ({base.db_sales * 60:,.0f} sales/min {_on_what(db, rate)}); "
                            f"more in flight does not help",
                    figures_from=missing)
    if base.limit == "cores" or (base.cpu_orders is not None and base.cpu_orders < rate):
        return Plan(design, persist, base, None, None, _connections(design, {}),
                    why_not=f"its CPU per order needs {base.rate * _us(pset, design, persist) / 1e6:.1f} cores "
                            f"for {rate:,.0f} orders/s (given {params.machine(pset, cores).cores:g})",
                    figures_from=missing)
    return None


def _first_setting_with_margin(design: Design, persist: str, pset: ParameterSet, base: Prediction, rate: float,
                               rtt_ms: float, cores: float | None, db: Database | None, need: int,
                               missing: str) -> Plan | None:
    """The plan of the first knob whose smallest value puts NEED inserts in flight: carrying the load with the
    margin, else as configured without it, else held by what still limits it; None when no knob reaches NEED."""
    for knob in design.knobs(persist):
        start = design.number(knob) or 1
        most = MAX_SETTING
        if knob == "ENGINES" and design.number("PRODUCTS"):
            most = design.number("PRODUCTS") or MAX_SETTING
        if most < start:
            continue

        def reaches(x: int, knob: str = knob) -> bool:
            return (design.in_flight(persist, {knob: x}) or 0) >= need
        v = smallest_setting(reaches, start, most)
        if v is None:
            continue
        p = predict_design(design, persist, pset, rate, rtt_ms, cores, {knob: v}, db=db)
        if p.carries:
            return Plan(design, persist, base, {knob: v}, p, _connections(design, {knob: v}), figures_from=missing,
                        latency=_latency(pset, design, persist, p))
        if base.carries:
            return _without_margin(design, persist, pset, base, rate, missing)
        return Plan(design, persist, base, None, p, _connections(design, {knob: v}),
                    why_not=f"with {knob}={v} ({need} in flight) its {p.limit} still limit it", figures_from=missing)
    return None


def _margin_out_of_reach(design: Design, persist: str, pset: ParameterSet, base: Prediction, rate: float, rtt_ms: float,
                         cores: float | None, db: Database | None, fig: Figures | None, need: int,
                         missing: str) -> Plan:
    """No setting reaches the margin's NEED in flight: the most a setting allows where Little's law's least is
    within it and carries the load (said so), else why none does."""
    least = in_flight_needed(base.offered_sales, rtt_ms, fig.insert_overhead_ms if fig else 0.0)
    for knob in design.knobs(persist):
        # the margin is out of reach: the most the setting allows, if Little's law's least is within it
        most = design.number("PRODUCTS") if knob == "ENGINES" and design.number("PRODUCTS") else None
        if most is None or (design.in_flight(persist, {knob: most}) or 0) < least:
            continue
        p = predict_design(design, persist, pset, rate, rtt_ms, cores, {knob: most}, db=db)
        if p.carries:
            return Plan(design, persist, base, {knob: most}, p, _connections(design, {knob: most}),
                        figures_from=missing, latency=_latency(pset, design, persist, p),
                        why_not=f"{need} in flight would keep the margin its measured runs stored 95 % at; "
                                f"{knob} stops at {most}")
    knobs = ", ".join(design.knobs(persist)) or "none"
    return Plan(design, persist, base, None, None, _connections(design, {}),
                why_not=f"{need} inserts in flight needed; no setting of its ({knobs}) reaches that"
                        + (f" (ENGINES stops at PRODUCTS={design.number('PRODUCTS')})"
                           if "ENGINES" in design.knobs(persist) else ""),
                figures_from=missing)


def _without_margin(design: Design, persist: str, pset: ParameterSet, base: Prediction, rate: float, missing: str) -> Plan:
    """BASE carries the load as configured, closer to its bound than its measured runs stored 95 % at, and no
    setting of its gives more room: as configured, said so."""
    return Plan(design, persist, base, {}, base, _connections(design, {}), figures_from=missing,
                latency=_latency(pset, design, persist, base),
                why_not="closer to its bound than its measured runs stored 95 % of their load at")


def _within_margin(p: Prediction, fig: Figures | None, rtt_ms: float) -> bool:
    """P (carrying its load) asks no more of its bound than the design's measured runs stored 95 % of their load at."""
    if p.in_flight is None or fig is None or not fig.margin_bound_fraction:
        return True
    share = min(1.0, max(LEAST_MARGIN, fig.margin_bound_fraction))
    return bool(p.offered_sales * rtt_ms / 1000.0 <= p.in_flight * share + 1e-9)


def _latency(pset: ParameterSet, design: Design, persist: str, p: Prediction) -> tuple[Any, ...] | None:
    """(p50, p99, notes) of P from its design's curve, the p99 with its term for P's inserts in flight; where the set
    has no term for the design (its windows never kept many in flight, or the set predates the term) and P keeps
    many, said so: its tail there is the line's alone."""
    fig = params.figures(pset, design.key, persist)
    if fig is None:
        return None
    n = inserts_in_flight(p)
    got = latency_at(fig.latency, p.rate, n, fig.p99_per_in_flight_ms, fig.p99_tail_rate_power)
    if got is None or fig.p99_per_in_flight_ms is not None or n < TAIL_IN_FLIGHT:
        return got
    unmeasured = f"p99 without a term for its {n:.0f} inserts in flight: the set measured none for it (latency.py)"
    return got[0], got[1], "; ".join(x for x in (got[2], unmeasured) if x)


def _us(pset: ParameterSet, design: Design, persist: str) -> float:
    fig = params.figures(pset, design.key, persist)
    return fig.cpu_us_per_order if fig else 0.0


def _connections(design: Design, overrides: dict[str, Any]) -> int | None:
    try:
        return design.db_connections(overrides)
    except (TypeError, ValueError):
        return None


def cheapest(plans: list[Plan]) -> Plan | None:
    """Of the designs that carry the load (as configured or with the setting they need), the one using the
    fewest cores; memory breaks a tie within 5 %."""
    ok: list[tuple[Plan, float, float]] = []         # (plan, cores, RSS MB: unknown last)
    for p in plans:
        need = p.at_need
        if p.carries and need is not None and need.cores is not None:
            ok.append((p, need.cores, need.rss_mb if need.rss_mb is not None else float("inf")))
    if not ok:
        return None
    least = min(cores for _, cores, _ in ok)
    close = [(p, cores, rss) for p, cores, rss in ok if cores <= least * 1.05]
    return min(close, key=lambda c: (c[2], c[1]))[0]
