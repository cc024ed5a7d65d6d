"""The house style and chart definitions from ``figures/``."""

from __future__ import annotations

import math
import tomllib
from collections.abc import Sequence
from functools import cache

from pydantic import BaseModel, ConfigDict

from pipeline.paths import FIGURES
from pipeline.report.palette import Theme, theme

__all__ = ["StandardChart", "Theme", "log_axis", "parallelism_axis", "standard_definition", "theme"]


class StandardChart(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    width: int
    height: int
    ticks: int  # at most this many labelled levels on the parallelism axis


def parallelism_axis(levels: list[int], ticks: int) -> tuple[list[float], list[int]]:
    """(domain, labelled values) of a log-2 parallelism axis that fits the measured levels:
    from the lowest to the highest (one step either side of a single level); every level
    labelled while at most ``ticks`` of them, else the powers of two between (or, with
    fewer than two of those, the levels), every second, fourth … one while still too many."""
    found = sorted(set(levels))
    low, high = found[0], found[-1]
    domain = [low / 2, high * 2] if low == high else [low, high]
    if len(found) <= ticks:
        return [float(d) for d in domain], found
    powers = [2**k for k in range(high.bit_length()) if low <= 2**k <= high]
    marks = powers if len(powers) >= 2 else found  # levels far from powers of two: thin them
    step = 1
    while len(marks[::step]) > ticks:
        step *= 2
    return [float(d) for d in domain], marks[::step]


def log_axis(values: Sequence[float | None], most: int) -> tuple[list[float], list[float]]:
    """(domain, labelled values) of a logarithmic value axis: the 1, 2 and 5 of each decade
    from the one at or below the smallest positive value to the one at or above the largest
    (one further either side where that is a single one); only the powers of ten where
    those are more than ``most``, every second, fourth … one while still too many."""
    found = [v for v in values if v is not None and v > 0]
    if not found:
        return [], []
    low, high = min(found), max(found)
    decades = range(math.floor(math.log10(low)) - 1, math.ceil(math.log10(high)) + 2)
    marks = [(m, e) for e in decades for m in (1, 2, 5)]
    at = [float(f"{m}e{e}") for m, e in marks]  # 2e-2 is 0.02 exactly as written
    first = max(i for i, v in enumerate(at) if v <= low)
    last = min(i for i, v in enumerate(at) if v >= high)
    first, last = (first - 1, last + 1) if first == last else (first, last)
    labelled = list(range(first, last + 1))
    if len(labelled) > most:
        labelled = [i for i in labelled if marks[i][0] == 1]
    step = 1
    while len(labelled[::step]) > most:
        step *= 2
    return [at[first], at[last]], [at[i] for i in labelled[::step]]


def _load(name: str) -> dict[str, object]:
    with (FIGURES / name).open("rb") as fh:
        return tomllib.load(fh)


@cache
def standard_definition() -> StandardChart:
    return StandardChart.model_validate(_load("charts.toml")["standard"])
