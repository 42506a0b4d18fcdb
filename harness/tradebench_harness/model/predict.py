"""The model's arithmetic: what a design stores and what it costs at an offered load (docs/model.md).

    sales/s = min(offered orders/s × sales per order,            the load
                  in flight ÷ (round trip + its own time per insert),   Little's law
                  orders/s its cores answer × sales per order)    the cores
    cores   = engines × cycles/s × CPU per cycle + orders/s × CPU per order
    memory  = RSS base + RSS per engine × engines

Every figure comes from a parameter set (params.py), fitted from measurements the harness makes
(fit.py); this module only does the arithmetic, so that it can be read and tested on its own.
"""
from __future__ import annotations

import math
from dataclasses import dataclass, field

#: the search for a setting stops here: a design that needs more is not configured, it is replaced
MAX_SETTING = 4096


@dataclass
class Figures:
    """One design's fitted figures on one machine, in one persist mode."""
    cpu_us_per_order: float              # CPU µs per order answered, beyond the engines' cycles
    cycle_us: float = 0.0                # CPU µs per engine cycle: the cost of an engine waking every DELAY_MS
    insert_overhead_ms: float = 0.0      # per insert in flight, beyond the probe's round trip
    rss_base_mb: float | None = None
    rss_per_engine_mb: float = 0.0


@dataclass
class Machine:
    sales_per_order: float               # the load's matching rate: sales stored per order accepted
    db_own_ms: float                     # one INSERT's round trip with no added latency (the probe at +0 ms)
    cores: float                         # the cores the variant may use


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
    limit: str                           # what sets the sales: "load", "in flight" or "cores"
    cores: float | None                  # cores used at this load
    rss_mb: float | None
    settings: dict = field(default_factory=dict)   # the settings changed from the design's row

    @property
    def carries(self) -> bool:
        return self.limit == "load"

    @property
    def sales_per_minute(self) -> float:
        return self.sales * 60.0


def round_trip_ms(db_latency_ms: float, db_own_ms: float) -> float:
    """One INSERT's round trip: the latency the network adds, plus the database's own time per insert."""
    return db_latency_ms + db_own_ms


def bound_sales_per_s(in_flight: int | None, rtt_ms: float, overhead_ms: float = 0.0) -> float | None:
    """Little's law: IN_FLIGHT inserts, each holding its slot one round trip and the design's own time per insert."""
    if not in_flight:
        return None
    return in_flight * 1000.0 / (rtt_ms + overhead_ms)


def in_flight_needed(sales_per_s: float, rtt_ms: float, overhead_ms: float = 0.0) -> int:
    """The inserts in flight that store SALES_PER_S at this round trip (Little's law, rounded up)."""
    return max(1, math.ceil(sales_per_s * (rtt_ms + overhead_ms) / 1000.0 - 1e-9))


def cycles_per_s(delay_ms: float, rtt_ms: float) -> float:
    """An engine's cycles a second under load: the pause, then at least one round trip storing its sales.

    Under a backlog a cycle stores many sales and lasts longer, so this is the most cycles an engine runs;
    what they cost is small beside the orders for every design but processes (node-engine's children)."""
    return 1000.0 / max(delay_ms + rtt_ms, 0.1)


def fixed_cores(engines: int, cycles: float, cycle_us: float) -> float:
    """The cores the engines' cycles use whatever the load: each cycle wakes its engine once."""
    return engines * cycles * cycle_us / 1e6


def cores_used(rate: float, cpu_us_per_order: float, fixed: float = 0.0) -> float:
    return fixed + rate * cpu_us_per_order / 1e6


def orders_the_cores_answer(cores: float, cpu_us_per_order: float, fixed: float = 0.0) -> float:
    if cpu_us_per_order <= 0:
        return math.inf
    return max(0.0, cores - fixed) * 1e6 / cpu_us_per_order


def predict(rate: float, rtt_ms: float, in_flight: int | None, engines: int, delay_ms: float,
            fig: Figures | None, machine: Machine, settings: dict | None = None) -> Prediction:
    """What a design with IN_FLIGHT inserts in flight and ENGINES engines stores and costs at RATE orders/s.

    FIG None: no figures for this design on this machine: only Little's law and the load are known."""
    overhead = fig.insert_overhead_ms if fig else 0.0
    offered = rate * machine.sales_per_order
    bound = bound_sales_per_s(in_flight, rtt_ms, overhead)
    cpu_orders = cores = rss = None
    if fig is not None:
        fixed = fixed_cores(engines, cycles_per_s(delay_ms, rtt_ms), fig.cycle_us)
        cpu_orders = orders_the_cores_answer(machine.cores, fig.cpu_us_per_order, fixed)
        # every offered order is answered (a 202, or a 503 when the inboxes are full): each costs its CPU
        cores = min(machine.cores, cores_used(rate, fig.cpu_us_per_order, fixed))
        if fig.rss_base_mb is not None:
            rss = fig.rss_base_mb + fig.rss_per_engine_mb * engines
    limits = [("load", offered)]
    if bound is not None:
        limits.append(("in flight", bound))
    if cpu_orders is not None:
        limits.append(("cores", cpu_orders * machine.sales_per_order))
    # the load wins a tie: a design that just carries it is not limited by anything else
    limit, sales = min(limits, key=lambda kv: (kv[1], kv[0] != "load"))
    return Prediction(rate=rate, rtt_ms=rtt_ms, in_flight=in_flight, engines=engines, offered_sales=offered,
                      bound_sales=bound, cpu_orders=cpu_orders, sales=sales, limit=limit, cores=cores, rss_mb=rss,
                      settings=dict(settings or {}))


def smallest_setting(reaches, start: int, most: int = MAX_SETTING) -> int | None:
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
