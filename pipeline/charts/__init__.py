"""Charts: one function per chart kind, listed in one registry.

Each function takes the frame to plot (see the registry) and a ``Formatter`` (language
and number style) and returns an altair chart; ``export.save`` writes SVG, PDF and Vega-Lite JSON.
"""

from __future__ import annotations

from collections.abc import Callable

import altair as alt
import polars as pl

from pipeline.charts.cost import cost_chart
from pipeline.charts.family import (
    dual_axis_chart,
    histogram_chart,
    percentiles_chart,
    response_chart,
    setups_chart,
    stability_chart,
)
from pipeline.charts.standard import standard_chart
from pipeline.language.fmt import Formatter

ChartFn = Callable[[pl.DataFrame, Formatter], alt.TopLevelMixin]

CHARTS: dict[str, ChartFn] = {
    "standard": standard_chart,  # points of one setup, access and block size (seed 000)
    "dual_axis": dual_axis_chart,  # one access, block size and mix, every setup (seed 004)
    "setups": setups_chart,  # one access and block size, every setup and mix (seed 003)
    "stability": stability_chart,  # one setup, access and block size
    "percentiles": percentiles_chart,  # one setup and profile, fio percentiles
    "cost": cost_chart,  # the cost table, labels in the report's language (seed 000)
}
# Drawn with an extra argument (see charts/draw.py): response_chart (latency limit, seed
# 001) and histogram_chart (fio json+ bins of one job).

__all__ = [
    "CHARTS",
    "cost_chart",
    "dual_axis_chart",
    "histogram_chart",
    "percentiles_chart",
    "response_chart",
    "setups_chart",
    "stability_chart",
    "standard_chart",
]
