"""A variant as the harness builds and runs it: its manifest (record/manifest.py, which reads and checks every
variant.yaml) with its repository, its command lines and its builds.
"""
from __future__ import annotations

import sys
from collections.abc import Iterable
from pathlib import Path
from typing import IO

from ..record import manifest
from ..record.manifest import MANIFEST, RUNTIMES, SUITES, Floor, ManifestError, Settings, evaluate, row_label, test_database
from . import build, context
from .context import Context

__all__ = ["MANIFEST", "RUNTIMES", "SUITES", "Floor", "ManifestError", "Settings", "Variant", "by_name", "discover",
           "evaluate", "expand", "load", "row_label", "select", "test_database"]


class Variant(manifest.Manifest):
    """A manifest, and how the harness builds and starts what it says."""

    def home(self, ctx: Context) -> Path:
        """The repository it is built and run from (its commands' working directory)."""
        return self.root or ctx.root

    def command(self, ctx: Context) -> list[str]:
        """The command line that runs the variant in the foreground (from its repository's root)."""
        return expand(ctx, self.run, root=self.home(ctx))

    def floor_command(self, ctx: Context, port: int) -> list[str] | None:
        """The command line of its floor server on PORT (None: its runtime's trivial server is its floor)."""
        return expand(ctx, self.floor["command"], port, root=self.home(ctx)) if self.floor else None

    def needs_build(self, root: Path) -> bool:
        return build.stale(root, [self.build["output"]], self.build.get("inputs", []))

    def ensure_built(self, ctx: Context, log: IO[bytes] | None = None) -> None:
        """Its build when stale, and the build of every value of its `when` key (what its rows run)."""
        home = self.home(ctx)
        builds: list[manifest.Manifest] = [self, *self.when.values()]
        for v in builds:
            try:
                build.ensure(ctx, v.name, v.build["command"], [v.build["output"]], v.build.get("inputs", []),
                             cwd=home / v.build.get("cwd", "."), log=log, root=home)
            except build.BuildError as e:
                raise ManifestError(str(e)) from e


def expand(ctx: Context, tokens: list[str], port: int | None = None, root: Path | None = None) -> list[str]:
    """A manifest's command line: {java}, {jvm_opts}, {node}, {port}; paths relative to ROOT (default: the
    repository's)."""
    root = root or ctx.root
    out: list[str] = []
    for tok in tokens:
        if tok == "{java}":
            out.append(ctx.java)
        elif tok == "{jvm_opts}":
            out.extend(ctx.variant_jvm_opts)      # with the heap policy (context.VARIANT_HEAP)
        elif tok == "{node}":
            out.extend([ctx.env.get("TB_NODE") or "node", *context.NODE_OPTS])
        elif tok == "{port}" and port is not None:
            out.append(str(port))
        else:
            out.append(str(root / tok) if (root / tok).exists() else tok)
    return out


def say(msg: str) -> None:
    print(f"tradebench: {msg}", file=sys.stderr, flush=True)




def load(path: Path) -> Variant:
    return manifest.load(path, Variant)


def discover(root: Path) -> list[Variant]:
    """Every variant of the repository, in name order."""
    return manifest.discover(root, Variant)


def by_name(root: Path, names: Iterable[str]) -> list[Variant]:
    return manifest.by_name(root, names, Variant)


def select(root: Path, spec: str | None) -> list[Variant]:
    """'all', None or a comma/space separated list of names."""
    return manifest.select(root, spec, Variant)
