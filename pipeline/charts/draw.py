"""One chart of a report's plan, drawn from the report's data."""

from __future__ import annotations

import altair as alt
import polars as pl

from pipeline.charts import CHARTS
from pipeline.charts.family import histogram_chart, response_chart
from pipeline.language.fmt import Formatter
from pipeline.report.plan import ChartRef


def points_for(points: pl.DataFrame, ref: ChartRef) -> pl.DataFrame:
    cond = (pl.col("access") == ref.access) & (pl.col("block_size") == ref.block_size)
    if ref.setup is not None:
        cond = cond & (pl.col("setup") == ref.setup)
    if ref.read_pct is not None:
        cond = cond & (pl.col("read_pct") == ref.read_pct)
    if ref.queue_depth is not None:
        cond = cond & (pl.col("queue_depth") == ref.queue_depth)
    return points.filter(cond)


def draw(
    ref: ChartRef, points: pl.DataFrame, bins: pl.DataFrame | None, fmt: Formatter
) -> alt.TopLevelMixin:
    """The chart ``ref`` of the plan; a histogram draws the ``bins`` read at prepare."""
    if ref.kind == "histogram":
        if bins is None:
            raise ValueError(f"{ref.stem}: histogram bins are read at prepare")
        return histogram_chart(bins, fmt)
    data = points_for(points, ref)
    if ref.kind == "response":
        return response_chart(data, fmt, ref.limit_us or 1000.0)
    return CHARTS[ref.kind](data, fmt)
