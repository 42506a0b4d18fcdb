"""What a durable database adds to each commit: one fsync, F ms, measured by the round-trip probe.

The probe (the load client's `insert-ceiling` on one connection, single rows, as the sweep's round-trip
probe) stores rows one after another, so each of its commits waits for its own fsync when the database
syncs every commit (`innodb_flush_log_at_trx_commit=1`) and for none when it does not (2: the log reaches
the OS, the disk is synced once a second). F is the difference of the two round trips. With one commit
in flight no other commit shares its fsync: this is the fsync alone, the time group commit spreads over
the commits in flight together.

`./tradebench predict probe-fsync` measures it (measure/fsync.py) and writes the figure to a small JSON file, a fit
input beside the results folders (`./tradebench predict fit RUN... --fsync FILE`); this module reads it and holds
the arithmetic.
"""
from __future__ import annotations

import json
import statistics
from pathlib import Path
from typing import Any


def rtt_ms(rows_per_second: float | None) -> float | None:
    """One commit's round trip from a probe storing rows one after another on one connection."""
    return 1000.0 / rows_per_second if rows_per_second else None


def fsync_figure(plain_ms: list[float], durable_ms: list[float]) -> dict[str, Any]:
    """F from the probes' round trips each way (ms): the difference of their medians, never below 0."""
    plain, synced = statistics.median(plain_ms), statistics.median(durable_ms)
    return {"value": round(max(0.0, synced - plain), 3), "probeMs": round(plain, 3),
            "durableProbeMs": round(synced, 3), "probesMs": {"plain": [round(x, 3) for x in plain_ms],
                                                             "durable": [round(x, 3) for x in durable_ms]}}


def read(path: str | Path) -> dict[str, Any]:
    doc: dict[str, Any] = json.loads(Path(path).read_text())
    if doc.get("kind") != "fsync-probe" or "fsyncMs" not in doc:
        raise ValueError(f"{path}: not an fsync probe (./tradebench predict probe-fsync writes one)")
    return doc
