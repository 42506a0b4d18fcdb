"""The designs the model knows: every row of every variant manifest, and what their settings mean.

A design is a variant with one row of its manifest's settings (node-engine and node-engine
WORKERS=threads are two designs). Its in-flight count and database connections are its manifest's
expressions, evaluated as the variant evaluates them (record/manifest.py, which reads the manifests);
nothing here names a variant.
"""
from __future__ import annotations

import ast
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ..record import Run
from ..record.manifest import Manifest, discover, evaluate, row_label


@dataclass
class Design:
    key: str             # "node-engine WORKERS=threads": the variant and its row's settings
    variant: Manifest
    row: dict[str, Any]

    def settings(self, overrides: dict[str, Any] | None = None) -> dict[str, Any]:
        """Every setting as the variant would see it with this row and OVERRIDES (strings, like the environment)."""
        env = {**self.row, **{k: str(v) for k, v in (overrides or {}).items()}}
        return self.variant.effective_settings(env)

    def in_flight_expr(self, persist: str) -> str | None:
        expr = (self.variant.in_flight or {}).get(persist)
        return None if expr in (None, "", "none") else expr

    def in_flight(self, persist: str, overrides: dict[str, Any] | None = None) -> int | None:
        """The inserts it keeps in flight in PERSIST mode (None: a multi-row INSERT per cycle, no bound in sales)."""
        expr = self.in_flight_expr(persist)
        if expr is None:
            return None
        value = evaluate(expr, self.settings({"PERSIST": persist, **(overrides or {})}))
        return int(value)

    def db_connections(self, overrides: dict[str, Any] | None = None) -> int:
        return int(evaluate(self.variant.db_connections, self.settings(overrides)))

    def number(self, name: str, overrides: dict[str, Any] | None = None) -> int | None:
        """A numeric setting as the variant sees it (ENGINES, DELAY_MS, ...), None when it is not a number."""
        try:
            return int(self.settings(overrides).get(name))  # type: ignore[arg-type]  # None: the TypeError below
        except (TypeError, ValueError):
            return None

    def knobs(self, persist: str) -> list[str]:
        """The settings its in-flight expression reads, in the order written: the ones that raise the bound."""
        expr = self.in_flight_expr(persist)
        if expr is None:
            return []
        names = [n.id for n in ast.walk(ast.parse(expr, mode="eval")) if isinstance(n, ast.Name)]
        return [n for i, n in enumerate(names) if n not in names[:i] and n in self.variant.settings]


def all_designs(root: Path) -> list[Design]:
    """Every row of every manifest, in the manifests' order."""
    out = []
    for v in discover(root, Manifest):
        for row in v.rows:
            label = row_label(row)
            out.append(Design(key=f"{v.name} {label}".strip(), variant=v, row=dict(row)))
    return out


def key_of(run: Run, designs: list[Design]) -> str | None:
    """The design a results.json run measured: its variant, and the row whose settings it ran with.

    Runs of compare carry every setting (WORKERS=processes); runs of a sweep or map carry their row's
    label too. A run whose variant has no manifest here (renamed, removed) is nobody's: None."""
    name = run["variant"]
    mine = [d for d in designs if d.variant.name == name]
    if not mine:
        return None
    settings = run["settings"]
    defaults = mine[0].variant.effective_settings({})
    matching = [d for d in mine if all(str(settings.get(k, defaults.get(k))) == str(v) for k, v in d.row.items())]
    # the most specific row the run's settings satisfy: {} matches every run, {WORKERS: threads} only its own
    return max(matching, key=lambda d: len(d.row)).key if matching else None
