"""The command line's value types, one module for every parser (argparse `type=`): each says in its name what
it accepts, so that "positive" never means "at least 0" in one parser and "above 0" in another."""
from __future__ import annotations

import argparse
import math
from collections.abc import Callable

from ..run import layout


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


def warmup(text: str) -> str:
    """A warm-up: auto (until steady), or whole seconds."""
    if text == "auto":
        return text
    whole_not_negative(text)
    return text


def _whole_numbers(text: str, what: str) -> list[int]:
    """TEXT's comma- or space-separated whole numbers; ArgumentTypeError naming WHAT when one is not."""
    try:
        vals = [int(x) for x in text.replace(" ", ",").split(",") if x]
    except ValueError:
        raise argparse.ArgumentTypeError(f"a comma-separated list of {what} (got {text!r})") from None
    return vals


def int_list(text: str) -> list[int]:
    """Whole numbers above 0, comma-separated (rates, engine counts, CPU counts)."""
    vals = _whole_numbers(text, "whole numbers")
    if not vals or any(v <= 0 for v in vals):
        raise argparse.ArgumentTypeError(f"a comma-separated list of whole numbers above 0 (got {text!r})")
    return vals


def latency_list(text: str) -> list[int]:
    """Whole milliseconds, 0 or more, comma-separated; each once, in order."""
    vals = _whole_numbers(text, "whole milliseconds")
    if not vals or any(v < 0 for v in vals):
        raise argparse.ArgumentTypeError(f"a comma-separated list of milliseconds >= 0 (got {text!r})")
    return sorted(set(vals))


def cores_list(text: str) -> list[float]:
    """A list of cores, from the least held to the most (the map's rows from the least slow database)."""
    try:
        vals = [cores(x) for x in text.replace(" ", ",").split(",") if x]
    except argparse.ArgumentTypeError:
        raise argparse.ArgumentTypeError(f"a comma-separated list of cores above 0, e.g. 1,0.5,0.25 (got {text!r})") \
            from None
    if not vals:
        raise argparse.ArgumentTypeError(f"a comma-separated list of cores above 0 (got {text!r})")
    return sorted(set(vals), reverse=True)


def cores(text: str) -> float:
    """A number of cores above 0 (0.25: a quarter of one)."""
    try:
        v = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"a number of cores, e.g. 0.25 (got {text!r})") from None
    if v <= 0:
        raise argparse.ArgumentTypeError(f"a number of cores above 0 (got {text!r})")
    return v


def pin(text: str) -> tuple[str, str]:
    """PARTY=CPUS (--pin): a party and the CPUs it gets."""
    try:
        return layout.pin_option(text)
    except layout.LayoutError as e:
        raise argparse.ArgumentTypeError(str(e)) from None
