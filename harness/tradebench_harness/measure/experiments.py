"""Experiments as files: harness/experiments/NAME.yaml (or any FILE) holds the
cases of a compare, each with its settings, and optionally the figures of a
published article to show beside ours. A user adds their own file."""
from __future__ import annotations

from pathlib import Path
from typing import Any

import yaml

from ..run.context import Context
from .plan import Case

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


def load(ctx: Context, ref: str, env: dict[str, Any]) -> tuple[dict[str, Any], list[Case]]:
    path = find(ctx, ref)
    doc = yaml.safe_load(path.read_text()) or {}
    if "phases" in doc and "cases" not in doc:
        raise ExperimentError(f"{path} holds phases, not cases: `./tradebench isolation --experiment {ref}` runs it")
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
            "article": {str(c["label"]): c.get("article") or {} for c in doc["cases"]},
            "ratios": []}
    meta["ratios"] = ratios_of(path, doc.get("ratios") or [], cases, meta["article"])
    return meta, cases


def ratios_of(path: Path, ratios: list[Any], cases: list[Case], article: dict[str, Any]) -> list[dict[str, Any]]:
    """The article's ratios to show beside ours: each names a numerator and a denominator (a case and a variant
    of it) and what the ratio comes from; the article's ratio is of its figures for the same two."""
    labels = {c.label: c for c in cases}
    out = []
    for i, r in enumerate(ratios):
        if not isinstance(r, dict) or not {"name", "numerator", "denominator"} <= set(r):
            raise ExperimentError(f"{path}: ratio {i + 1}: needs name, numerator and denominator")
        for side in ("numerator", "denominator"):
            ref = r[side]
            case = labels.get(str((ref or {}).get("case")))
            if case is None or not ref.get("variant") or (case.variants and ref["variant"] not in case.variants):
                raise ExperimentError(f"{path}: ratio {r['name']!r}: {side} {ref} is not a case and one of its variants")
        num = (article.get(r["numerator"]["case"]) or {}).get(r["numerator"]["variant"])
        den = (article.get(r["denominator"]["case"]) or {}).get(r["denominator"]["variant"])
        out.append({"name": str(r["name"]), "numerator": r["numerator"], "denominator": r["denominator"],
                    "article": round(num / den, 3) if num and den else None, "why": str(r.get("why", "")).strip()})
    return out
