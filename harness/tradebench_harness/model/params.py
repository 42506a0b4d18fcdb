"""Parameter sets: the model's figures for the designs on one machine, with where each came from.

A parameter file holds one set per machine (its CPU model and core count), each fitted from
results folders by fit.py. The committed file, `parameters.json` beside this module, holds the sets
fitted from the runs in docs/results; `./tradebench predict fit RUN...` writes a set of the user's
own (by default `.tradebench/model-parameters.json`).

A set:

    {"machine": {"cpuModel", "cores", "memoryGb"},
     "sources": [{"runId", "folder", "command", "gitCommit", "startedAt"}],
     "shapeSources": [the same, and "cpuModel"]: the open-loop runs of the load shape and memory,
     "salesPerOrder": {"value", "n", "from"},
     "dbOwnMs": {"value", "from"},
     "database": {PERSIST: {"cpuUsPerSale", "insertCeilingCpuUsPerRow", "from",
                            "linkCpuUsPerSale", "linkedCpuUsPerSale", "loadClientCpuUsPerOrder", "besideFrom"}}: the database's CPU per sale
                 stored (next door, and through the link of a slowed database), and what the link and the load
                 client cost the CPUs they share with it,
     "fsyncMs": {"value", "probeMs", "durableProbeMs", "from"}: what one fsync adds to a commit (a durable database),
     "designs": {KEY: {PERSIST: {"cpuUsPerOrder", "saturationOrders", "saturationSales", "loadExponent", "cycleUs",
                                 "refusedCost", "insertOverheadMs", "rssBaseMb", "rssPerEngineMb", "rssSaturationMb",
                                 "saturationByCpus": [{"cpus", "layout", "orders", "sales"}]: per CPU count,
                                 "marginBoundFraction": the share of its bound a named setting may ask,
                                 "latency": [[rate, p50 ms, p99 ms]]: its measured curve,
                                 "p99PerInFlightMs": what each insert in flight adds to its p99 at 1,000/s,
                                 "p99TailRatePower": the power of the rate that term grows by (absent: 0;
                                 latency.py),
                                 "from": {figure: how it was obtained}}}},
     "measured": {"rates", "roundTripMs", "variantCpus", "layouts", "persist"}: what its runs measured,
     "heldOut": {"folders", "cells", "score", "intervals", "coverage"}: its check on runs it was not fitted on
                (accuracy.py), absent where it has none,
     "calibration": {"measuredAt", "probeMs", "saturationOrders", ...}: a set of ./tradebench calibrate, known by
                    these figures (calibrated()),
     "ceilings": {"costs": {NAME: µs}, "folder"}: what a request and a row cost the machine it was measured on
                 (here.ceilings_of), by which predict scales it to another machine of the kind}
"""
from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

from .. import record
from ..record import Parameters, ParameterSet
from .predict import Beside, Database, Figures, Machine

SCHEMA = record.PARAMETERS_SCHEMA
COMMITTED = Path(__file__).with_name("parameters.json")
#: the sets ./tradebench calibrate measured on the project's machines in the isolated layout, one per kind, each held
#: against two later sittings: the committed sets of that layout (committed())
SHIPPED_CALIBRATIONS = "calibrated-*.json"


def shipped_calibrations() -> list[ParameterSet]:
    """The calibrated sets kept beside the committed file (SHIPPED_CALIBRATIONS), each one's sets."""
    return [x for f in sorted(COMMITTED.parent.glob(SHIPPED_CALIBRATIONS)) for x in load(f)["sets"]]


def load(path: Path) -> Parameters:
    """A parameter file, held to its class (record.load_parameters: ValueError when it is not one)."""
    return record.load_parameters(path)


def save(doc: Parameters, path: Path) -> None:
    record.write_parameters(doc, path)


def document(sets: list[ParameterSet], about: str = "") -> Parameters:
    return {"schemaVersion": SCHEMA, "about": about, "sets": sets}


def same_machine(machine: Mapping[str, Any], cpu_model: str | None, cores: int | None) -> bool:
    return machine.get("cpuModel") == cpu_model and (cores is None or machine.get("cores") == cores)


def for_machine(doc: Parameters, cpu_model: str | None, cores: int | None) -> ParameterSet | None:
    """The set fitted on a machine like this one (same CPU model and cores), the newest first (a set of
    `./tradebench calibrate` is not chosen by a name: calibrated())."""
    found = [s for s in doc["sets"] if same_machine(s.get("machine", {}), cpu_model, cores) and not s.get("calibration")]
    return max(found, key=newest_source) if found else None


def committed(cpu_model: str | None, cores: int | None, layout: str) -> ParameterSet | None:
    """The committed set of a machine of this kind for LAYOUT: in the isolated layout (every measuring command's
    default) the calibration shipped for the kind (SHIPPED_CALIBRATIONS: measured in that layout, held against two
    later sittings), in the shared layout the fit of the runs in docs/results (parameters.json); None: neither."""
    if layout == "isolated":
        mine = [s for s in shipped_calibrations() if same_machine(s.get("machine", {}), cpu_model, cores)]
        if mine:
            return max(mine, key=lambda s: (s.get("calibration") or {}).get("measuredAt") or "")
    return for_machine(load(COMMITTED), cpu_model, cores)


def calibrated(doc: Parameters, cores: int | None) -> ParameterSet | None:
    """The newest set `./tradebench calibrate` measured on a machine of CORES CPUs (a file of this checkout's
    state: the machine it runs on), identified by its measured figures, not by the CPU's name."""
    found = [s for s in doc["sets"] if s.get("calibration") and (cores is None or s["machine"].get("cores") == cores)]
    return max(found, key=lambda s: s["calibration"].get("measuredAt") or "") if found else None


def identity(s: ParameterSet) -> str:
    """A calibrated set's identity: the figures it measured (each design's saturation, the insert's round trip)."""
    c = s.get("calibration") or {}
    sat = ", ".join(f"{k} {v:,.0f}" for k, v in sorted((c.get("saturationOrders") or {}).items()))
    return (f"{s['machine'].get('cores')} CPUs, one INSERT {c.get('probeMs')} ms, saturation orders/s: {sat}; "
            f"measured {c.get('measuredAt')}")


def newest_source(s: ParameterSet) -> str:
    return max((src.get("startedAt") or "" for src in s.get("sources", [])), default="")


def describe(s: ParameterSet) -> str:
    if s.get("calibration"):
        return f"./tradebench calibrate on {s.get('machine', {}).get('cpuModel')}: {identity(s)}"
    m = s.get("machine", {})
    runs = ", ".join(str(src.get("folder") or src.get("runId", "?")) for src in s.get("sources", []))
    shape = ", ".join(f"{src.get('folder') or src.get('runId', '?')} ({src.get('cpuModel')})"
                      for src in s.get("shapeSources", []))
    return f"{m.get('cpuModel')}, {m.get('cores')} cores: fitted from {runs}" + \
        (f"; CPU and memory below saturation shaped by {shape}" if shape else "")


def _term(value: float | None) -> float:
    """A term of the model that the fit left out for this design (absent, or null where nothing measured it)
    adds nothing: 0."""
    return 0.0 if value is None else float(value)


def _optional(value: float | None) -> float | None:
    return None if value is None else float(value)


def figures(s: ParameterSet, key: str, persist: str) -> Figures | None:
    entry = ((s.get("designs") or {}).get(key) or {}).get(persist)
    cpu = entry.get("cpuUsPerOrder") if entry else None
    if not entry or cpu is None:
        return None
    refused = entry.get("refusedCost")
    return Figures(cpu_us_per_order=float(cpu),
                   saturation_orders=entry.get("saturationOrders"),
                   saturation_sales=entry.get("saturationSales"),
                   load_exponent=_term(entry.get("loadExponent")),
                   cycle_us=_term(entry.get("cycleUs")),
                   fixed_us_per_s=_term(entry.get("fixedUsPerS")),
                   order_us=_optional(entry.get("orderUs")),
                   order_exponent=float(entry.get("orderExponent") or 1.0),
                   refused_cost=float(1.0 if refused is None else refused),
                   waiting_cost=_optional(entry.get("waitingCost")),
                   insert_overhead_ms=_term(entry.get("insertOverheadMs")),
                   rss_base_mb=_optional(entry.get("rssBaseMb")),
                   rss_per_engine_mb=_term(entry.get("rssPerEngineMb")),
                   saturation_points=list(entry.get("saturationByCpus") or []),
                   margin_bound_fraction=entry.get("marginBoundFraction"),
                   latency=entry.get("latency"),
                   p99_per_in_flight_ms=_optional(entry.get("p99PerInFlightMs")),
                   p99_tail_rate_power=float(entry.get("p99TailRatePower") or 0.0))


def machine(s: ParameterSet, cores: float | None = None) -> Machine:
    return Machine(sales_per_order=float(s["salesPerOrder"]["value"]),
                   db_own_ms=float(s["dbOwnMs"]["value"]),
                   cores=float(cores if cores is not None else s["machine"].get("cores") or 1))


def fitted_from(s: ParameterSet) -> set[str | None]:
    """The run ids a set's figures came from: its own machine's runs and the open-loop runs of its shape."""
    return {src.get("runId") for src in [*s.get("sources", []), *s.get("shapeSources", [])]}


def database(s: ParameterSet, persist: str, cores: float | None = None, durable: bool = False,
             own_cpus: float | None = None, linked: bool = False, load_beside: bool = False,
             here: Mapping[str, Any] | None = None) -> Database:
    """The database as the model sees it: busy when held to CORES (its CPU per sale in PERSIST from the set),
    durable when every commit is synced (the set's F), and on OWN_CPUS of its own in the isolated layout (None:
    the shared layout), with the link beside it when LINKED (a slowed database) and the load client when
    LOAD_BESIDE (the layout puts it there); HERE: those neighbours' figures as this machine measured them
    (here.py), in place of the set's. Raises ValueError when the set lacks the figure asked for."""
    entry = (s.get("database") or {}).get(persist) or {}
    entry = {**entry, **{k: v for k, v in (here or {}).items() if v is not None}}
    us = entry.get("cpuUsPerSale")
    if cores is not None and us is None:
        raise ValueError(f"no CPU per sale of the database in {persist} in this parameter set: fit it from a "
                         f"compare or sweep (./tradebench predict fit RUN)")
    fsync = (s.get("fsyncMs") or {}).get("value")
    if durable and fsync is None:
        raise ValueError("no fsync time in this parameter set: measure it with ./tradebench predict probe-fsync "
                         "and fit with --fsync FILE")
    beside = None
    through = entry.get("linkedCpuUsPerSale") if linked else None
    if own_cpus and us:
        beside = Beside(cpus=float(own_cpus), db_us_per_sale=float(through or us),
                        link_us_per_sale=_term(entry.get("linkCpuUsPerSale")) if linked else 0.0,
                        load_us_per_order=_term(entry.get("loadClientCpuUsPerOrder")) if load_beside else 0.0,
                        source="; ".join(str(x) for x in (None if through else entry.get("from"),
                                                          entry.get("besideFrom")) if x),
                        here=bool(here))
    return Database(cores=cores, cpu_us_per_sale=us if cores is not None else None,
                    fsync_ms=float(fsync) if durable and fsync is not None else 0.0, beside=beside)
