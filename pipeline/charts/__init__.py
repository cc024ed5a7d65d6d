"""Charts: one function per chart kind, listed in one registry.

Each function takes the points to plot and a ``Formatter`` (language and number style)
and returns an altair chart; ``export.save`` writes SVG, PDF and Vega-Lite JSON.
"""

from __future__ import annotations

from collections.abc import Callable

import altair as alt
import polars as pl

from pipeline.charts.standard import standard_chart
from pipeline.render.fmt import Formatter

ChartFn = Callable[[pl.DataFrame, Formatter], alt.TopLevelMixin]

CHARTS: dict[str, ChartFn] = {
    "standard": standard_chart,
}

__all__ = ["CHARTS", "standard_chart"]
