"""One chart of a report's plan, drawn from the report's data."""

from __future__ import annotations

from pathlib import Path

import altair as alt
import polars as pl

from pipeline.charts import CHARTS
from pipeline.charts.family import histogram_chart, response_chart
from pipeline.ingest import fio
from pipeline.render.fmt import Formatter
from pipeline.render.plan import ChartRef


def points_for(points: pl.DataFrame, ref: ChartRef) -> pl.DataFrame:
    cond = (pl.col("access") == ref.access) & (pl.col("block_size") == ref.block_size)
    if ref.setup is not None:
        cond = cond & (pl.col("setup") == ref.setup)
    if ref.read_pct is not None:
        cond = cond & (pl.col("read_pct") == ref.read_pct)
    return points.filter(cond)


def draw(ref: ChartRef, points: pl.DataFrame, folder: Path, fmt: Formatter) -> alt.TopLevelMixin:
    if ref.kind == "histogram":
        return histogram_chart(fio.latency_bins(folder / (ref.source or ""), ref.job), fmt)
    data = points_for(points, ref)
    if ref.kind == "response":
        return response_chart(data, fmt, ref.limit_us or 1000.0)
    return CHARTS[ref.kind](data, fmt)
