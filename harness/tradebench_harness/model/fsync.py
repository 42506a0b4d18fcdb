"""What a durable database adds to each commit: one fsync, F ms, measured by the round-trip probe.

The probe (the load client's `insert-ceiling` on one connection, single rows, as the sweep's round-trip
probe) stores rows one after another, so each of its commits waits for its own fsync when the database
syncs every commit (`innodb_flush_log_at_trx_commit=1`) and for none when it does not (2: the log reaches
the OS, the disk is synced once a second). F is the difference of the two round trips. With one commit
in flight no other commit shares its fsync: this is the fsync alone, the time group commit spreads over
the commits in flight together.

`./tradebench predict probe-fsync` writes the figure to a small JSON file, a fit input beside the
results folders (`./tradebench predict fit RUN... --fsync FILE`).
"""
from __future__ import annotations

import json
import os
import statistics
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

from ..run import db as dbmod
from ..run import loadclient, slowdb
from ..run.context import Context
from ..run.environment import cpu_model

#: seconds of each probe: the sweep's probe length; a round trip of 0.3–1 ms is thousands of commits
PROBE_SECONDS = 3
#: probes each way, alternated, so that a busy second of a shared machine falls on both kinds alike
ROUNDS = 2


def rtt_ms(rows_per_second: float | None) -> float | None:
    """One commit's round trip from a probe storing rows one after another on one connection."""
    return 1000.0 / rows_per_second if rows_per_second else None


def fsync_figure(plain_ms: list[float], durable_ms: list[float]) -> dict[str, Any]:
    """F from the probes' round trips each way (ms): the difference of their medians, never below 0."""
    plain, synced = statistics.median(plain_ms), statistics.median(durable_ms)
    return {"value": round(max(0.0, synced - plain), 3), "probeMs": round(plain, 3),
            "durableProbeMs": round(synced, 3), "probesMs": {"plain": [round(x, 3) for x in plain_ms],
                                                             "durable": [round(x, 3) for x in durable_ms]}}


def _probe(ctx: Context, db: dbmod.Database, scratch: str, out: Path) -> float:
    rc = loadclient.run(ctx, "insert-ceiling", "--db-url", db.jdbc(scratch), "--connections", 1, "--batch-rows", 1,
                        "--duration", PROBE_SECONDS, "--warmup", 1, "--json", out, log=out.with_suffix(".log"),
                        timeout=120)
    rows = json.loads(out.read_text()).get("rowsPerSecond") if rc == 0 and out.exists() else None
    if not rows:
        raise dbmod.DbError(f"the round-trip probe failed: see {out.with_suffix('.log')}")
    ms = rtt_ms(rows)
    if ms is None:
        raise dbmod.DbError(f"the round-trip probe measured nothing: see {out.with_suffix('.log')}")
    return ms


def measure(ctx: Context, db: dbmod.Database, scratch: str, out: Path, rounds: int = ROUNDS) -> dict[str, Any]:
    """F on DB (the private database: its commit setting is changed and put back), probing into SCRATCH."""
    if db.scalar("SELECT @@GLOBAL.innodb_flush_log_at_trx_commit").strip() == "1":
        raise dbmod.DbError("the database already syncs every commit (innodb_flush_log_at_trx_commit=1): "
                            "there is no probe without the fsync to subtract")
    out.mkdir(parents=True, exist_ok=True)
    plain, synced = [], []
    for i in range(rounds):
        plain.append(_probe(ctx, db, scratch, out / f"probe-{i}.json"))
        with slowdb.durable(db, True):
            synced.append(_probe(ctx, db, scratch, out / f"probe-durable-{i}.json"))
    return fsync_figure(plain, synced)


def document(figure: dict[str, Any], command: str) -> dict[str, Any]:
    """The fit input: F, with the machine, the date and the command that measured it."""
    return {"kind": "fsync-probe", "machine": {"cpuModel": cpu_model(), "cores": os.cpu_count()},
            "measuredAt": datetime.now(timezone.utc).isoformat(timespec="seconds"), "command": command,
            "fsyncMs": figure}


def write(doc: dict[str, Any], path: Path) -> None:
    """A probe's document into PATH (`--fsync FILE` of predict fit reads it)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(doc, indent=1, sort_keys=False) + "\n")


def read(path: str | Path) -> dict[str, Any]:
    doc: dict[str, Any] = json.loads(Path(path).read_text())
    if doc.get("kind") != "fsync-probe" or "fsyncMs" not in doc:
        raise ValueError(f"{path}: not an fsync probe (./tradebench predict probe-fsync writes one)")
    return doc
