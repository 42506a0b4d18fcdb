"""What a calibration record says a request and a row cost on its machine (measure/calibrate.py measures them): the
readers the figures of a run (measure/figures.py) and the model's scaling to this machine (model/here.py) share."""
from __future__ import annotations

from typing import Any


def http_of(cal: dict[str, Any], runtime: str) -> float | None:
    v = ((cal or {}).get("http") or {}).get(runtime) or {}
    got: float | None = v.get("ordersPerSecond")
    return got


def http_cost_of(cal: dict[str, Any], runtime: str) -> float | None:
    """The trivial server's CPU µs per request (calibrations before it was sampled: None)."""
    v = ((cal or {}).get("http") or {}).get(runtime) or {}
    cost: float | None = (v.get("cpuUsPerRequest") or {}).get("server")
    return cost


def insert_cost_of(cal: dict[str, Any], persist: str, connections: int) -> float | None:
    """The database's CPU µs per row at the insert ceiling of a persist mode (None: not sampled)."""
    entry = ((cal or {}).get("insert") or {}).get(str(connections)) or {}
    v = entry.get("multiRow" if persist == "batch" else "singleRow") or {}
    cost: float | None = (v.get("cpuUsPerRow") or {}).get("database")
    return cost


def floor_cost_of(cal: dict[str, Any], name: str | None, runtime: str) -> float | None:
    """A floor's CPU µs per request; a variant without a floor of its own has its runtime's trivial server."""
    if not name:
        return http_cost_of(cal, runtime)
    v = ((cal or {}).get("floors") or {}).get(name) or {}
    cost: float | None = (v.get("cpuUsPerRequest") or {}).get("server")
    return cost


def insert_of(cal: dict[str, Any], persist: str, connections: int) -> float | None:
    entry = ((cal or {}).get("insert") or {}).get(str(connections)) or {}
    v = entry.get("multiRow" if persist == "batch" else "singleRow") or {}
    rows: float | None = v.get("rowsPerSecond")
    return rows
