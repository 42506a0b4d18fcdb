"""A design's bound behind a slow database, and where two designs cross.

Little's law: a design that keeps N inserts in flight, each taking one round
trip of RTT, stores at most N / RTT sales a second, whatever its threads,
actors or processes. N is declared per variant and persist mode in its
manifest (`inFlight`): ENGINES for an engine that waits for each INSERT before
the next, DB_POOL for a design that sends a cycle's inserts at once over a
pool. A multi-row INSERT per cycle stores a whole cycle per round trip: its
bound is in cycles, not sales, and the manifest declares none.

The round trip is measured, not assumed: one connection storing single rows
one after another through the same link (added latency + the database's own
time per insert).
"""
from __future__ import annotations

import math
from typing import Any

from ..run.variants import Variant, evaluate

# a series within this share of its bound "reaches" it (the table marks it)
AT_BOUND = 0.15


def in_flight(variant: Variant, persist: str, settings: dict[str, Any]) -> int | None:
    """The inserts VARIANT keeps in flight in PERSIST mode with SETTINGS (its manifest's expression), or None."""
    expr = (variant.in_flight or {}).get(persist)
    if expr in (None, "", "none"):
        return None
    value = evaluate(expr, variant.effective_settings(settings))
    try:
        return int(value)
    except (TypeError, ValueError):
        raise ValueError(f"{variant.name}: inFlight.{persist} = {expr!r} is not a number with these settings") from None


def rtt_ms(rows_per_second: float | None, connections: int = 1) -> float | None:
    """One insert's round trip from a probe: CONNECTIONS connections storing rows one after another."""
    if not rows_per_second:
        return None
    return connections * 1000.0 / rows_per_second


def sales_per_minute(inserts_in_flight: int | None, rtt: float | None) -> float | None:
    """The bound: inserts in flight ÷ round trip, in sales a minute."""
    if not inserts_in_flight or not rtt:
        return None
    return inserts_in_flight / rtt * 60_000.0


def fraction(measured: float | None, bound: float | None) -> float | None:
    if measured is None or not bound:
        return None
    return measured / bound


def at_bound(measured: float | None, bound: float | None) -> bool:
    f = fraction(measured, bound)
    return f is not None and f >= 1 - AT_BOUND


def crossovers(series: dict[str, dict[int, dict[str, Any]]]) -> list[dict[str, Any]]:
    """Where two series swap places. SERIES: name -> {added latency ms: {rttMs, median, min, max}}.

    Between two neighbouring latencies where A is clearly ahead on one side and B clearly ahead on the
    other (their min-max ranges apart on both sides), the crossing is interpolated on log(round trip)
    where log(A/B) passes zero. A pair within noise on one side is no crossing there: a tie."""
    names = sorted(series)
    out = []
    for i, a in enumerate(names):
        for b in names[i + 1:]:
            common = sorted(set(series[a]) & set(series[b]))
            lead = []
            for lat in common:
                x, y = series[a][lat], series[b][lat]
                if not (x.get("median") and y.get("median") and x.get("rttMs")):
                    continue
                winner = a if x["min"] > y["max"] else b if y["min"] > x["max"] else None
                lead.append((x["rttMs"], winner, x["median"] / y["median"]))
            for (r1, w1, q1), (r2, w2, q2) in zip(lead, lead[1:]):
                if w1 and w2 and w1 != w2:
                    l1, l2 = math.log(q1), math.log(q2)
                    t = l1 / (l1 - l2)
                    at = math.exp(math.log(r1) + t * (math.log(r2) - math.log(r1)))
                    out.append({"a": a, "b": b, "rttMs": round(at, 2), "between": [round(r1, 3), round(r2, 3)],
                                "below": w1, "above": w2})
    return out
