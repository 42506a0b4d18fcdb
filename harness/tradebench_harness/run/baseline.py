"""The variants as another commit has them: `compare baseline REF` measures each row twice in one run, built
from REF and from this tree, back to back, so that a change's effect is read in the same hour on the same
machine instead of across two runs whose spread is as large as the change.

REF is checked out once, detached, into a worktree of this repository under the state folder
(.tradebench/baseline/<commit>); its variants are built and run from there (their manifests as REF has them),
while the harness, the load client and the database stay this tree's.
"""
from __future__ import annotations

import dataclasses
import subprocess
from pathlib import Path
from typing import Any, cast

from . import variants as variantsmod
from .context import Context


class BaselineError(Exception):
    pass


def git(root: Path, *args: str) -> str:
    r = subprocess.run(["git", "-C", str(root), *args], capture_output=True, text=True)
    if r.returncode != 0:
        raise BaselineError(f"git {' '.join(args)}: {(r.stderr or r.stdout).strip()}")
    return r.stdout.strip()


def commit_of(root: Path, ref: str) -> str:
    """REF's full commit id in the repository at ROOT."""
    return git(root, "rev-parse", "--verify", f"{ref}^{{commit}}")


def this_tree(root: Path) -> str:
    """This tree's name in a table: its commit, with "+changes" when files differ from it."""
    head = git(root, "rev-parse", "--short=10", "HEAD")
    dirty = git(root, "status", "--porcelain", "--untracked-files=no")
    return head + ("+changes" if dirty else "")


def checkout(ctx: Context, ref: str) -> tuple[str, Path]:
    """REF's commit and its worktree (made when missing)."""
    commit = commit_of(ctx.root, ref)
    where = ctx.state / "baseline" / commit
    if not (where / ".git").exists():
        where.parent.mkdir(parents=True, exist_ok=True)
        git(ctx.root, "worktree", "prune")
        git(ctx.root, "worktree", "add", "--detach", str(where), commit)
    return commit, where


def variants(ctx: Context, ref: str, names: list[str]) -> tuple[str, list[variantsmod.Variant]]:
    """REF's short commit id and its variants of NAMES (as REF's manifests say), each built and run from
    its worktree."""
    commit, where = checkout(ctx, ref)
    try:
        found = variantsmod.by_name(where, names)
    except variantsmod.ManifestError as e:
        raise BaselineError(f"at {commit[:10]}: {e}") from e
    return commit[:10], [rooted(v, where) for v in found]


def rooted(v: variantsmod.Variant, root: Path) -> variantsmod.Variant:
    """V, and the builds of its `when` key and cluster, run from ROOT."""
    when = {k: rooted(o, root) for k, o in v.when.items()}
    cluster = rooted(v.cluster, root) if v.cluster else None
    # replace()'s signature reads the manifest's own field types (Manifest, not Self): the values are Variants
    return dataclasses.replace(v, root=root, when=cast(Any, when), cluster=cluster)
