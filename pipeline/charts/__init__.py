"""Charts: one function per chart kind, listed in one registry.

Each function takes the frame to plot (see the registry) and a ``Formatter`` (language
and number style) and returns an altair chart; ``export.save`` writes SVG, PDF and Vega-Lite JSON.
"""

from __future__ import annotations

from collections.abc import Callable

import altair as alt
import polars as pl

from pipeline.charts.cost import cost_chart
from pipeline.charts.standard import standard_chart
from pipeline.render.fmt import Formatter

ChartFn = Callable[[pl.DataFrame, Formatter], alt.TopLevelMixin]

CHARTS: dict[str, ChartFn] = {
    "standard": standard_chart,  # points of one setup, access and block size
    "cost": cost_chart,  # the cost table, labels in the report's language
}

__all__ = ["CHARTS", "cost_chart", "standard_chart"]
