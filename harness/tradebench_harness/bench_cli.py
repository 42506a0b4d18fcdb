"""The benchmark commands' options (bench, compare, sweep, calibrate, diff, report)."""
from __future__ import annotations


def add(sub) -> None:
    pass
