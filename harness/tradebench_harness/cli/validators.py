"""The command line's value types, one module for every parser (argparse `type=`): each says in its name what
it accepts, so that "positive" never means "at least 0" in one parser and "above 0" in another."""
from __future__ import annotations

import argparse
import math
from collections.abc import Callable


def whole_not_negative(text: str) -> int:
    """A whole number, 0 or more (a count or a duration where 0 means none)."""
    try:
        v = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"a whole number >= 0 (got {text!r})") from None
    if v < 0:
        raise argparse.ArgumentTypeError(f"a whole number >= 0 (got {text!r})")
    return v


def _number(text: str, least: float, strict: bool) -> float:
    try:
        v = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"a number, not {text!r}") from None
    if not math.isfinite(v):
        raise argparse.ArgumentTypeError(f"a finite number, not {text!r}")
    if v < least or (strict and v == least):
        raise argparse.ArgumentTypeError(f"a number {'above' if strict else 'at least'} {least:g}, not {text!r}")
    return v


def number_above_zero(what: str) -> Callable[[str], float]:
    """A finite number above 0; WHAT names the option in argparse's message."""
    def parse(text: str) -> float:
        return _number(text, 0.0, strict=True)
    parse.__name__ = what
    return parse


def number_not_negative(what: str) -> Callable[[str], float]:
    """A finite number, 0 or more."""
    def parse(text: str) -> float:
        return _number(text, 0.0, strict=False)
    parse.__name__ = what
    return parse
