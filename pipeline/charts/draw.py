"""One chart of a report's plan, drawn from the report's data by its kind's spec function
(named in ``report/chart_registry``)."""

from __future__ import annotations

import importlib
from collections.abc import Callable
from functools import cache

import altair as alt
import polars as pl

from pipeline.language.fmt import Formatter
from pipeline.report import chart_registry as kinds
from pipeline.report.plan import ChartRef, points_for

SpecFn = Callable[..., alt.TopLevelMixin]  # (data, fmt, ref=None) -> chart

__all__ = ["draw", "points_for", "spec"]


@cache
def spec(kind: str) -> SpecFn:
    """The spec function the registry names for ``kind``."""
    module, name = kinds.BY_NAME[kind].spec.split(":")
    found: SpecFn = getattr(importlib.import_module(module), name)
    return found


def draw(
    ref: ChartRef, points: pl.DataFrame, bins: pl.DataFrame | None, fmt: Formatter
) -> alt.TopLevelMixin:
    """The chart ``ref`` of the plan; a histogram draws the ``bins`` read at prepare."""
    if ref.chart.takes == "bins":
        if bins is None:
            raise ValueError(f"{ref.stem}: histogram bins are read at prepare")
        return spec(ref.kind)(bins, fmt, ref)
    return spec(ref.kind)(points_for(points, ref), fmt, ref)
