"""End to end, per manifest configuration: each variant started on the
database TRADER_E2E once per line of its manifest's e2e list, checked with
`loadclient verify`, then stopped with SIGTERM (a clean exit 0 expected)."""
from __future__ import annotations

import re
from collections.abc import Mapping

from ..run import db as dbmod
from ..run import loadclient, process
from ..run.context import Context
from ..run.variants import ManifestError, Variant
from .steps import Steps

E2E_DB = "TRADER_E2E"


def label(settings: Mapping[str, str]) -> str:
    return " ".join(f"{k}={v}" for k, v in settings.items())


def run_one(ctx: Context, db: dbmod.Database, v: Variant, conf: dict[str, str], steps: Steps) -> None:
    name = f"{v.name} [{label(conf)}]"
    slug = re.sub(r"[^A-Za-z0-9_.-]+", "_", label(conf))
    log = ctx.logs / f"e2e-{v.name}-{slug}.log"
    vlog = ctx.logs / f"e2e-{v.name}-{slug}.verify.log"
    db.sql("DELETE FROM SALES", E2E_DB)
    settings = {**db.variant_env(E2E_DB), "ENGINES": "4", **conf}
    try:
        r = process.start_variant(ctx, v, settings, log)
    except process.NotHealthy as e:
        steps.fail(f"{name}: {e}")
        return
    rc = loadclient.run(ctx, "verify", "--url", r.url, "--db-url", db.jdbc(E2E_DB), log=vlog)
    exit_code = r.stop(15)
    if rc == 0 and exit_code == 0:
        steps.ok(f"{name}: loadclient verify, clean SIGTERM exit")
    elif rc != 0:
        tail = "\n".join(vlog.read_text(errors="replace").splitlines()[-40:])
        print(tail)
        steps.fail(f"{name}: loadclient verify (log: {vlog})")
    else:
        steps.fail(f"{name}: exit code {exit_code} after SIGTERM (log: {log})")


def run(ctx: Context, variants: list[Variant], steps: Steps) -> None:
    db = dbmod.open_db(ctx, E2E_DB)
    if db.private:
        dbmod.create(ctx, E2E_DB)   # ./tradebench test creates it before (DB_HOST set then)
    for v in variants:
        try:
            v.ensure_built(ctx)
        except ManifestError as e:
            steps.fail(f"{v.name}: build ({e})")
            continue
        for conf in v.e2e:
            run_one(ctx, db, v, conf, steps)
