"""The fsync probe: the round-trip probe run against the private database with and without every commit synced,
F their difference (model/fsync.py holds the arithmetic and reads the file this writes)."""
from __future__ import annotations

import json
import os
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

from ..model.fsync import fsync_figure, rtt_ms
from ..run import db as dbmod
from ..run import loadclient, slowdb
from ..run.context import Context
from ..run.environment import cpu_model

#: seconds of each probe: the sweep's probe length; a round trip of 0.3–1 ms is thousands of commits
PROBE_SECONDS = 3
#: probes each way, alternated, so that a busy second of a shared machine falls on both kinds alike
ROUNDS = 2


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
