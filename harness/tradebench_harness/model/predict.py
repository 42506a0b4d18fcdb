"""The model's arithmetic: what a design stores and what it costs at an offered load (docs/model.md).

    sales/s = min(offered orders/s × sales per order,                       the load
                  in flight ÷ (round trip + its own time per insert),       Little's law
                  orders/s its cores answer × sales per order,              the cores
                  database cores × 10^6 ÷ its CPU µs per sale)              the database, when it is busy
    round trip = the added latency + the database's own time per insert (+ one fsync when it is durable)
    cores   = engines × cycles/s × CPU per cycle                            the engines waking every DELAY_MS
              + CPU per order at this rate × (orders stored + ρ × orders answered but not stored)
    CPU per order at rate R = its saturation figure × (saturation rate ÷ R)^β   (fewer orders per wake-up)
    memory  = RSS base + RSS per engine × engines

Every figure comes from a parameter set (params.py), fitted from measurements the harness makes
(fit.py); this module only does the arithmetic, so that it can be read and tested on its own.
"""
from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from .latency import tail

#: the search for a setting stops here: a design that needs more is not configured, it is replaced
MAX_SETTING = 4096
#: an engine whose inserts take this share of its time or more has a backlog: its cycles grow without end
BACKLOG = 0.99


@dataclass
class Figures:
    """One design's fitted figures on one machine, in one persist mode."""
    cpu_us_per_order: float              # CPU µs per order answered at saturation
    saturation_orders: float | None = None   # the orders/s of that saturation run (None: the figure holds at any rate)
    load_exponent: float = 0.0           # β: CPU per order grows as (saturation rate ÷ rate)^β below saturation
    cycle_us: float = 0.0                # CPU µs per engine cycle: an engine waking every DELAY_MS
    refused_cost: float = 1.0            # ρ: an order answered but not stored (a 503, or one left in an inbox) beside
                                         # one stored: its HTTP and hand-off without the engine and the insert (≤ 1)
    waiting_cost: float | None = None    # ρ_w: one accepted into an inbox and not stored yet, where it differs from a
                                         # 503's (light.py; None: ρ)
    insert_overhead_ms: float = 0.0      # per insert in flight, beyond the probe's round trip
    fixed_us_per_s: float = 0.0          # K: CPU µs/s whatever the load (light.py; with order_us)
    order_exponent: float = 1.0          # γ: the orders' CPU at a light load grows as m × orders^γ (light.py)
    order_us: float | None = None        # m: CPU µs/s of one order a second stored at a light load, from the machine's own
                                         # open-loop runs (light.py); None: the saturation figure shaped by β
    rss_base_mb: float | None = None
    rss_per_engine_mb: float = 0.0
    saturation_sales: float | None = None    # the sales/s that saturation run stored (some orders it answered 503)
    saturation_points: list[Any] = field(default_factory=list)   # [{"cpus", "layout", "orders", "sales"}]: per CPU count
    margin_bound_fraction: float | None = None   # the share of its bound a named setting may ask (fit.margins)
    latency: list[Any] | None = None          # [[rate, p50 ms, p99 ms]]: its measured curve (fit.latency_curve)
    p99_per_in_flight_ms: float | None = None  # what each insert in flight adds to its p99 at 1,000/s (latency.py);
                                               # None: its windows never kept many in flight, so nothing measured it
    p99_tail_rate_power: float = 0.0           # the power of the rate that term grows by (0: a set made before it)


@dataclass
class Machine:
    sales_per_order: float               # the load's matching rate: sales stored per order accepted
    db_own_ms: float                     # one INSERT's round trip with no added latency (the probe at +0 ms)
    cores: float                         # the cores the variant may use


@dataclass(frozen=True)
class Beside:
    """The CPUs the database has in the isolated layout, and what else runs on them: the slow database's link
    always (Toxiproxy is the database's side of the wire), the load client where the layout puts it there (on 2
    CPUs the three share one). Every sale stored costs those CPUs the database's and the link's work, and every
    order sent the load client's: sales/s ≤ (CPUs × 10^6 − orders/s × the load client's µs) ÷ (database µs + link
    µs), whatever the design — the bound a design past it meets as queueing and refusals."""
    cpus: float                          # the database's CPUs (layout.py)
    db_us_per_sale: float                # the database's CPU µs per sale stored
    link_us_per_sale: float = 0.0        # the link's, when the database is slowed through it (0: next door)
    load_us_per_order: float = 0.0       # the load client's per order sent, when it shares the CPUs (0: its own)
    source: str = ""                     # where the three figures came from
    here: bool = False                   # measured on this machine (model/here.py), not taken from the set

    def sales_per_s(self, rate: float | None) -> float | None:
        """The sales/s these CPUs store with RATE orders/s sent beside them (None: a closed loop, the load client's
        share unknown: the database's and the link's work alone). None where no cost is known."""
        per_sale = self.db_us_per_sale + self.link_us_per_sale
        if self.cpus <= 0 or per_sale <= 0:
            return None
        spare = self.cpus * 1e6 - (rate or 0.0) * self.load_us_per_order
        return max(0.0, spare) / per_sale


@dataclass
class Database:
    """What makes the database slow beside its distance: busy (its server held to CORES), durable (F ms a commit),
    or on CPUs it shares with the link and the load client (the isolated layout: BESIDE)."""
    cores: float | None = None           # busy: the cores its server may use (None: as many as it wants)
    cpu_us_per_sale: float | None = None  # its CPU µs per sale stored, in the persist mode predicted
    fsync_ms: float = 0.0                # durable: what one commit's fsync adds to its round trip
    beside: Beside | None = None         # its own CPUs and who shares them (None: the shared layout, every CPU)

    def _bounds(self, rate: float | None) -> dict[str, float]:
        """Its bounds in sales/s that are known: "busy" (a share of the cores) first, "beside" (the CPUs it shares)."""
        found = {"busy": database_sales_per_s(self.cores, self.cpu_us_per_sale),
                 "beside": self.beside.sales_per_s(rate) if self.beside else None}
        return {k: v for k, v in found.items() if v is not None}

    def capacity(self, rate: float | None = None) -> float | None:
        """The sales/s the database stores, RATE orders/s sent (None: a closed loop): the least of its cores when
        busy and of the CPUs it shares (None: neither bounds it, or its CPU per sale unknown)."""
        bounds = self._bounds(rate)
        return min(bounds.values()) if bounds else None

    def bound_by(self, rate: float | None = None) -> str:
        """Which of its bounds CAPACITY(RATE) is: "busy" (a share of the cores; it wins a tie) or "beside"."""
        bounds = self._bounds(rate)
        return min(bounds, key=lambda k: bounds[k]) if bounds else "beside"


@dataclass
class Prediction:
    rate: float                          # offered orders/s
    rtt_ms: float
    in_flight: int | None                # None: a multi-row INSERT per cycle (no bound in sales)
    engines: int
    offered_sales: float                 # sales/s the load would make if every order were taken
    bound_sales: float | None            # Little's law, sales/s
    cpu_orders: float | None             # orders/s the cores answer (None: no CPU figure)
    sales: float                         # predicted sales/s
    limit: str                           # what sets the sales: "load", "in flight", "cores" or "database"
    cores: float | None                  # cores used at this load
    rss_mb: float | None
    settings: dict[str, Any] = field(default_factory=dict)   # the settings changed from the design's row
    db_sales: float | None = None        # sales/s the busy database stores (None: it keeps up)

    @property
    def carries(self) -> bool:
        return self.limit == "load"

    @property
    def sales_per_minute(self) -> float:
        return self.sales * 60.0


def round_trip_ms(db_latency_ms: float, db_own_ms: float, fsync_ms: float = 0.0) -> float:
    """One INSERT's round trip: the latency the network adds, plus the database's own time per insert, plus,
    when every commit is synced, one fsync. Group commit lets the commits in flight together share an fsync,
    so each still waits about one: the round trip grows by F and Little's law rewards more in flight.

    A busy database's round trip is not made longer here: a CPU quota lets its server run at full speed
    until the period's share is spent, then stops it, so below its capacity an insert mostly takes the
    probe's time; at its capacity the round trip is what Little's law makes it (in flight ÷ capacity)."""
    return db_latency_ms + db_own_ms + fsync_ms


def database_sales_per_s(cores: float | None, cpu_us_per_sale: float | None) -> float | None:
    """A busy database's capacity: the sales its CORES store a second at CPU_US_PER_SALE each."""
    if not cores or not cpu_us_per_sale or cpu_us_per_sale <= 0:
        return None
    return cores * 1e6 / cpu_us_per_sale


def bound_sales_per_s(in_flight: int | None, rtt_ms: float, overhead_ms: float = 0.0) -> float | None:
    """Little's law: IN_FLIGHT inserts, each holding its slot one round trip and the design's own time per insert."""
    if not in_flight:
        return None
    return in_flight * 1000.0 / (rtt_ms + overhead_ms)


def in_flight_needed(sales_per_s: float, rtt_ms: float, overhead_ms: float = 0.0) -> int:
    """The inserts in flight that store SALES_PER_S at this round trip (Little's law, rounded up)."""
    return max(1, math.ceil(sales_per_s * (rtt_ms + overhead_ms) / 1000.0 - 1e-9))


def cycle_ms(delay_ms: float, insert_ms: float, sales_per_engine: float, slots_per_engine: float | None) -> float:
    """How long one engine's cycle lasts: the pause, then its sales stored (contract section 1).

    A cycle's k sales take k ÷ slots round trips (at least one: a cycle with sales waits for them), and
    k is what arrives while the cycle lasts (sales/s × the cycle), so T = max(pause + insert, pause ÷
    (1 − u)) with u = sales/s × insert ÷ slots, the share of the engine's time its inserts take. At
    u → 1 the engine has a backlog, its cycles grow without end and it wakes ever less. SLOTS None:
    one multi-row INSERT per cycle, whatever its sales."""
    if slots_per_engine is None:
        return delay_ms + insert_ms
    u = sales_per_engine * insert_ms / 1000.0 / max(slots_per_engine, 1.0)
    if u >= BACKLOG:
        return delay_ms / (1 - BACKLOG)
    return max(delay_ms + insert_ms, delay_ms / (1 - u))


def cycles_per_s(engines: int, delay_ms: float, insert_ms: float, sales: float, in_flight: int | None) -> float:
    """All engines' cycles a second when they store SALES a second between them."""
    engines = max(engines, 1)
    slots = None if in_flight is None else in_flight / engines
    return engines * 1000.0 / max(cycle_ms(delay_ms, insert_ms, sales / engines, slots), 0.1)


def cpu_us_per_order_at(rate: float, fig: Figures) -> float:
    """CPU per order at RATE: the saturation figure, higher below saturation where a wake-up serves fewer orders."""
    if not fig.saturation_orders or not fig.load_exponent or rate >= fig.saturation_orders or rate <= 0:
        return fig.cpu_us_per_order
    return float(fig.cpu_us_per_order * (fig.saturation_orders / rate) ** fig.load_exponent)


def cores_used(rate: float, taken: float, fig: Figures, cycles: float, waiting: float = 0.0) -> float:
    """The cores at RATE orders/s answered, TAKEN of them stored (their sales), the engines cycling CYCLES/s;
    WAITING of the others accepted into an inbox (a cell minutes after a drain, before the inboxes are full).

    An order it answers but cannot store (a 503 once the inboxes are full) pays for its HTTP answer and,
    in some designs, its hand-off to an engine, but not for the engine's work or the insert: ρ of a stored one.
    One that waits in an inbox has been handed to its engine: ρ_w where the fit measured it."""
    waiting = min(max(0.0, waiting), max(0.0, rate - taken))
    refused = max(0.0, rate - taken - waiting)
    rho = min(fig.refused_cost, 1.0)
    rho_w = rho if fig.waiting_cost is None else min(fig.waiting_cost, 1.0)
    answered = taken + rho_w * waiting + rho * refused
    if fig.order_us is not None:
        # the machine's own light-load runs: a fixed cost, the cycles, and the orders, each the cheaper the more
        return float(fig.fixed_us_per_s + cycles * fig.cycle_us + fig.order_us * answered ** fig.order_exponent) / 1e6
    return (cycles * fig.cycle_us + cpu_us_per_order_at(rate, fig) * answered) / 1e6


def orders_the_cores_answer(cores: float, fig: Figures, cycles: float) -> float:
    """The orders/s CORES take, at the saturation figure (the cores run out at saturation, where it was measured)."""
    if fig.cpu_us_per_order <= 0:
        return math.inf
    return max(0.0, cores * 1e6 - cycles * fig.cycle_us) / fig.cpu_us_per_order


def predict(rate: float, rtt_ms: float, in_flight: int | None, engines: int, delay_ms: float,
            fig: Figures | None, machine: Machine, settings: dict[str, Any] | None = None,
            db_sales: float | None = None, waiting_share: float = 0.0) -> Prediction:
    """What a design with IN_FLIGHT inserts in flight and ENGINES engines stores and costs at RATE orders/s.

    FIG None: no figures for this design on this machine: only Little's law and the load are known.
    DB_SALES: the sales/s a busy database stores (Database.capacity), a limit no setting of the design moves.
    WAITING_SHARE: of the orders it answers but does not store, the share accepted into its inboxes (0: steady
    state, every inbox full, each a 503)."""
    overhead = fig.insert_overhead_ms if fig else 0.0
    spo = machine.sales_per_order
    offered = rate * spo
    bound = bound_sales_per_s(in_flight, rtt_ms, overhead)
    cpu_orders = None
    if fig is not None:
        cpu_orders = orders_the_cores_answer(machine.cores, fig, cycles_per_s(engines, delay_ms, rtt_ms + overhead,
                                                                               offered, in_flight))
    limits = [("load", offered)]
    if bound is not None:
        limits.append(("in flight", bound))
    if cpu_orders is not None:
        limits.append(("cores", cpu_orders * spo))
    if db_sales is not None:
        limits.append(("database", db_sales))
    # the load wins a tie: a design that just carries it is not limited by anything else
    limit, sales = min(limits, key=lambda kv: (kv[1], kv[0] != "load"))
    cores = rss = None
    if fig is not None:
        cycles = cycles_per_s(engines, delay_ms, rtt_ms + overhead, sales, in_flight)
        # every offered order is answered; those beyond what it stores cost ρ of one stored
        taken = sales / spo if spo else rate
        cores = min(machine.cores, cores_used(rate, taken, fig, cycles, waiting_share * max(0.0, rate - taken)))
        if fig.rss_base_mb is not None:
            rss = fig.rss_base_mb + fig.rss_per_engine_mb * engines
    return Prediction(rate=rate, rtt_ms=rtt_ms, in_flight=in_flight, engines=engines, offered_sales=offered,
                      bound_sales=bound, cpu_orders=cpu_orders, sales=sales, limit=limit, cores=cores, rss_mb=rss,
                      settings=dict(settings or {}), db_sales=db_sales)


def at_saturation(rtt_ms: float, in_flight: int | None, fig: Figures | None, machine: Machine,
                  db_sales: float | None = None) -> tuple[float, str]:
    """What a closed loop with no pause (a compare's run) stores: (sales/s, its limit).

    Such a loop offers as many orders as the variant answers, on the cores it gets beside the database and
    the load client on the same machine: those of its saturation run, whose sales are the most it stores
    ("saturation": an engine's backlog refuses part of what it answers, so they are fewer than its orders ×
    sales per order). Behind a slower database it stores the least of that, Little's law and the database's
    capacity. FIG None: no saturation run of the design on this machine, only the other two are known."""
    limits = []
    if fig is not None and fig.saturation_sales:
        limits.append(("saturation", fig.saturation_sales))
    elif fig is not None and fig.saturation_orders:
        limits.append(("saturation", fig.saturation_orders * machine.sales_per_order))
    bound = bound_sales_per_s(in_flight, rtt_ms, fig.insert_overhead_ms if fig else 0.0)
    if bound is not None:
        limits.append(("in flight", bound))
    if db_sales is not None:
        limits.append(("database", db_sales))
    if not limits:
        return math.inf, "none"
    name, sales = min(limits, key=lambda kv: kv[1])
    return sales, name


def smallest_setting(reaches: Callable[[int], bool], start: int, most: int = MAX_SETTING) -> int | None:
    """The least value v in [start, most] with reaches(v) true, reaches growing with v; None if none does."""
    if reaches(start):
        return start
    if not reaches(most):
        return None
    lo, hi = start, most          # reaches(lo) false, reaches(hi) true
    while hi - lo > 1:
        mid = (lo + hi) // 2
        if reaches(mid):
            hi = mid
        else:
            lo = mid
    return hi


@dataclass
class Scaled:
    """A saturation figure at a count of CPUs, from the counts measured (sweep --cores), and how it was had."""
    orders: float
    sales: float
    measured: bool          # a count measured (or between two measured counts)
    note: str               # "" where measured; else the rule that extrapolated it


#: beyond the largest measured count, a core adds at most what the last one added on average (no superlinear gain)
def saturation_at(points: list[dict[str, Any]], cpus: float) -> Scaled | None:
    """The saturation orders/s and sales/s at CPUS from POINTS ([{"cpus", "orders", "sales"}], one layout).

    Between two measured counts: linear interpolation. Beyond the largest: linear in the count from the last two
    points, its slope at least 0 and at most the last point's figure per CPU (capped: proportional at most).
    Below the smallest, or with one count measured: proportional to the count through zero. None: no point."""
    pts = sorted((float(p["cpus"]), float(p["orders"]), float(p["sales"])) for p in points
                 if p.get("cpus") and p.get("orders"))
    if not pts:
        return None
    counts = [c for c, _, _ in pts]
    for c, o, s in pts:
        if abs(c - cpus) < 1e-9:
            return Scaled(o, s, True, "")
    if counts[0] < cpus < counts[-1]:
        for (c0, o0, s0), (c1, o1, s1) in zip(pts, pts[1:]):
            if c0 <= cpus <= c1:
                t = (cpus - c0) / (c1 - c0)
                return Scaled(o0 + t * (o1 - o0), s0 + t * (s1 - s0), True, "")
    shown = ", ".join(f"{c:g}" for c in counts)
    if cpus < counts[0] or len(pts) == 1:
        c, o, s = pts[0] if cpus < counts[0] else pts[-1]
        return Scaled(o * cpus / c, s * cpus / c, False,
                      f"CPUs {cpus:g}: measured at {shown} only; proportional to the count from {c:g}")
    (c0, o0, s0), (c1, o1, s1) = pts[-2], pts[-1]
    slope_o = min(max(0.0, (o1 - o0) / (c1 - c0)), o1 / c1)
    slope_s = min(max(0.0, (s1 - s0) / (c1 - c0)), s1 / c1)
    return Scaled(o1 + slope_o * (cpus - c1), s1 + slope_s * (cpus - c1), False,
                  f"CPUs {cpus:g}: above the largest measured {c1:g}; linear from {c0:g} and {c1:g}, at most "
                  f"proportional")


def latency_at(points: list[Any] | None, rate: float, in_flight: float = 0.0,
               per_in_flight_ms: float | None = None, rate_power: float = 0.0) -> tuple[float, float, str] | None:
    """p50 and p99 (ms) at RATE orders/s with IN_FLIGHT inserts in flight from a design's measured curve POINTS
    ([[rate, p50, p99]], its cells that stored their load) and its p99's PER_IN_FLIGHT_MS at 1,000/s growing as the
    rate to RATE_POWER (None: not measured, no term): the curve at RATE (_on_curve), the p99 plus the term
    (latency.tail). None: no curve."""
    if not points:
        return None
    p50, p99, note = _on_curve(sorted((float(r), float(a), float(b)) for r, a, b in points), rate)
    return p50, p99 + tail(per_in_flight_ms, in_flight, rate, rate_power), note


def _on_curve(pts: list[tuple[float, float, float]], rate: float) -> tuple[float, float, str]:
    """(p50, p99, note) at RATE on the sorted points PTS: linear between measured rates; below the least, the
    least's; above the largest, linear from the last two (never below the last), said to be extrapolated."""
    if rate <= pts[0][0]:
        return pts[0][1], pts[0][2], ("" if rate >= pts[0][0] * 0.999 else
                                      f"below the least rate measured ({pts[0][0]:,.0f}/s): its figure")
    for (r0, a0, b0), (r1, a1, b1) in zip(pts, pts[1:]):
        if r0 <= rate <= r1:
            t = (rate - r0) / (r1 - r0)
            return a0 + t * (a1 - a0), b0 + t * (b1 - b0), ""
    if len(pts) < 2:
        return pts[-1][1], pts[-1][2], f"above the largest rate measured ({pts[-1][0]:,.0f}/s): its figure"
    (r0, a0, b0), (r1, a1, b1) = pts[-2], pts[-1]
    t = (rate - r1) / (r1 - r0)
    return (max(a1, a1 + t * (a1 - a0)), max(b1, b1 + t * (b1 - b0)),
            f"above the largest rate measured ({r1:,.0f}/s): linear from its last two rates")


def inserts_in_flight(p: Prediction) -> float:
    """The inserts P keeps in flight (Little's law: its sales/s × its round trip), at most its bound."""
    n = p.sales * p.rtt_ms / 1000.0
    return n if p.in_flight is None else min(n, float(p.in_flight))


#: a margin below this (more than 4 times Little's law's least) is not one more in flight buys: the runs lost load
#: for another reason (an adaptive limit backing off, a cycle's pause); the named setting stops at 4 times the least
LEAST_MARGIN = 0.25


def in_flight_with_margin(sales_per_s: float, rtt_ms: float, overhead_ms: float = 0.0,
                          bound_fraction: float | None = None) -> int:
    """The inserts in flight a named setting keeps: Little's law's least, and at least what keeps the load within
    BOUND_FRACTION of N ÷ RTT (the share of its bound the design's measured runs asked and still stored 95 % of
    their load); None: Little's law's least alone."""
    least = in_flight_needed(sales_per_s, rtt_ms, overhead_ms)
    if not bound_fraction or bound_fraction <= 0:
        return least
    share = min(1.0, max(LEAST_MARGIN, bound_fraction))
    return max(least, math.ceil(sales_per_s * rtt_ms / 1000.0 / share - 1e-9))
