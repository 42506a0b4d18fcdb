"""Experiments as files: harness/experiments/NAME.yaml (or any FILE) holds the
cases of a compare, each with its settings, and optionally the figures of a
published article to show beside ours. A user adds their own file."""
from __future__ import annotations

from pathlib import Path

import yaml

from .bench import Case
from .context import Context

CASE_KEYS = {"label", "engines", "wait", "concurrency", "persist", "dbLatencyMs", "rate", "settings", "variants", "article"}


class ExperimentError(Exception):
    pass


def find(ctx: Context, ref: str) -> Path:
    p = Path(ref)
    for cand in (p, ctx.root / "harness" / "experiments" / f"{ref}.yaml", ctx.root / "harness" / "experiments" / ref):
        if cand.is_file():
            return cand
    known = ", ".join(sorted(x.stem for x in (ctx.root / "harness" / "experiments").glob("*.yaml")))
    raise ExperimentError(f"no experiment {ref!r} (a file, or one of: {known})")


def load(ctx: Context, ref: str, env: dict) -> tuple[dict, list[Case]]:
    path = find(ctx, ref)
    doc = yaml.safe_load(path.read_text()) or {}
    if not isinstance(doc.get("cases"), list) or not doc["cases"]:
        raise ExperimentError(f"{path}: needs a list 'cases'")
    cases = []
    for i, c in enumerate(doc["cases"]):
        unknown = set(c) - CASE_KEYS
        if unknown or "label" not in c:
            raise ExperimentError(f"{path}: case {i + 1}: needs a label; unknown keys {sorted(unknown)}")
        latency = c.get("dbLatencyMs", 0)
        if isinstance(latency, str):   # "${TB_SLOW_DB_MS:-50}"-like defaults are not YAML: a name and a default
            name, _, default = latency.partition(":")
            latency = int(env.get(name.strip(), default or 0))
        cases.append(Case(label=str(c["label"]), engines=int(c.get("engines", 4)), wait_ms=int(c.get("wait", 0)),
                          concurrency=int(c.get("concurrency", 64)), persist=c.get("persist", "per-sale"),
                          db_latency_ms=int(latency), rate=c.get("rate"),
                          settings={k: str(v) for k, v in (c.get("settings") or {}).items()},
                          variants=c.get("variants")))
    meta = {"name": doc.get("name", path.stem), "file": str(path), "description": doc.get("description", ""),
            "article": {str(c["label"]): c.get("article") or {} for c in doc["cases"]}}
    return meta, cases
