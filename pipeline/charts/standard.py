"""The standard chart (seed 000): per block size, throughput and service time panels."""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

import altair as alt
import polars as pl

from pipeline.charts.theme import log_axis, parallelism_axis, standard_definition, theme
from pipeline.language.fmt import Formatter
from pipeline.report.palette import HOUSE, Palette
from pipeline.report.plan import ChartRef, axis_unit


def chart_data(points: pl.DataFrame, fmt: Formatter) -> pl.DataFrame:
    """Points of one block size as plotted: throughput, latency in ms, localised mix label."""
    unit = axis_unit("standard", fmt)
    sequential = points["access"][0] == "sequential"
    value = pl.col("bytes_per_s") / fmt.mega if sequential else pl.col("iops")
    return points.sort("read_pct", "parallelism", descending=[True, False]).select(
        "parallelism",
        value.alias("throughput"),
        (pl.col("lat_mean_us") / fmt.divisor(unit)).alias("latency"),
        mix_label(points, fmt),
    )


def mix_label(points: pl.DataFrame, fmt: Formatter) -> pl.Expr:
    """The column ``mix``: each point's read share as the chart legend names it."""
    labels = {m: fmt.t.mix(m, short=True) for m in points["read_pct"].unique().to_list()}
    return pl.col("read_pct").replace_strict(labels, return_dtype=pl.String).alias("mix")


def timed(points: pl.DataFrame) -> bool:
    """Some point of ``points`` has a latency: CrystalDiskMark 3 to 6 print none, and a
    chart of its points draws the throughput only, never an empty service-time panel."""
    return bool(points["lat_mean_us"].is_not_null().any())


def colours(ref: ChartRef | None) -> Palette:
    """The document's colours (the house colours for a chart drawn outside a report)."""
    return ref.palette if ref is not None else HOUSE


def mix_colour(points: pl.DataFrame, fmt: Formatter, look: Palette = HOUSE) -> alt.Color:
    """The document's colour of every mix, legend in descending read share."""
    mixes = sorted(points["read_pct"].unique().to_list(), reverse=True)
    labels = [fmt.t.mix(m, short=True) for m in mixes]
    colours = [look.mix(m, i) for i, m in enumerate(mixes)]
    return alt.Color(
        "mix:N", title=None, sort=labels, scale=alt.Scale(domain=labels, range=colours)
    )


def parallelism_x(levels: list[int], fmt: Formatter) -> alt.X:
    """The parallelism axis (log 2) over the measured levels."""
    return log2_x("parallelism", fmt.t("chart.parallelism"), levels)


def log2_x(column: str, title: str, levels: list[int]) -> alt.X:
    """A log-2 axis of whole numbers (parallelism, queue depth) over the measured ones."""
    domain, values = parallelism_axis(levels, standard_definition().ticks)
    return alt.X(
        f"{column}:Q",
        title=title,
        scale=alt.Scale(type="log", base=2, domain=domain),
        # levels close on the log axis (16, 20, 24, 32) would print "16 2024 32": a label
        # that would come within a few pixels of the one before is left out
        axis=alt.Axis(
            values=values, format="d", labelFlush=False, labelOverlap="greedy", labelSeparation=4
        ),
    )


LOG_FROM = 20.0  # a panel whose values span more than this factor gets a log axis
LOG_LABELS = 10  # at most this many labels on a logarithmic value axis


def latency_places(unit: str) -> int:
    """Decimals of a latency axis: 0.55 ms, 230 µs (``value_format`` adds more where the
    figures are smaller)."""
    return 2 if unit == "ms" else 0


def value_scale(values: list[float | None]) -> alt.Scale:
    """Linear from zero, or logarithmic where the values span more than ``LOG_FROM``
    (latency: 0.7 ms … 2 ms would vanish under a 200 ms tail)."""
    found = [v for v in values if v is not None and v > 0]
    if found and max(found) / min(found) > LOG_FROM:
        return log_scale(found)
    return alt.Scale(zero=True)


def log_scale(values: Sequence[float | None]) -> alt.Scale:
    """Logarithmic, from the 1-2-5 value at or below the smallest of ``values`` to the one
    at or above the largest (``theme.log_axis``)."""
    domain, _ = log_axis(values, LOG_LABELS)
    return alt.Scale(type="log", domain=domain, nice=False) if domain else alt.Scale(type="log")


def value_axis(values: list[float | None], places: int, scale: alt.Scale, **more: Any) -> alt.Axis:
    """The value axis of ``scale``: on a logarithmic one labels at 1, 2 and 5 of each decade
    (or its powers of ten), never the crowd of 0.3, 0.4, 0.5 … Vega would set."""
    if scale.to_dict(validate=False).get("type") != "log":
        return alt.Axis(format=value_format(values, places), **more)
    labelled = log_axis(values, LOG_LABELS)[1]
    return alt.Axis(format=value_format(values, places, True), values=labelled, **more)


def value_format(values: list[float | None], places: int, logarithmic: bool = False) -> str:
    """The d3 format of a value axis. A log axis spans decades: significant digits, not
    fixed places (0.003, not 0.00). Otherwise ``places`` decimals, more where the largest
    value needs them to show two significant digits: fio reports the sub-microsecond
    latencies of fast devices, which two places in ms would all print as 0."""
    if logarithmic:
        return ",~r"
    top = max((abs(v) for v in values if v), default=0.0)
    if 0 < top < 10 ** (1 - places):
        places = 1 - math.floor(math.log10(top))
    return f",.{places}~f" if places else ",d"


def _panel(
    data: pl.DataFrame,
    field: str,
    title: str,
    places: int,
    colour: alt.Color,
    fmt: Formatter,
) -> alt.Chart:
    spec = standard_definition()
    x = parallelism_x(data["parallelism"].to_list(), fmt)
    values = data[field].to_list()
    scale = value_scale(values) if field == "latency" else alt.Scale(zero=True)
    number_format = value_format(values, places)
    y = alt.Y(f"{field}:Q", title=title, axis=value_axis(values, places, scale), scale=scale)
    chart: alt.Chart = (
        alt.Chart()  # the data is the whole chart's (``side_by_side``)
        .mark_line(
            point=alt.OverlayMarkDef(size=theme().point_size), strokeWidth=theme().line_width
        )
        .encode(
            x=x,
            y=y,
            color=colour,
            tooltip=[
                alt.Tooltip("mix:N", title=None),
                alt.Tooltip("parallelism:Q"),  # a string costs altair ≈ 15 ms (from_dict)
                alt.Tooltip(f"{field}:Q", title=title, format=number_format),
            ],
        )
        .properties(width=spec.width, height=spec.height)
    )
    return chart


def standard_chart(
    points: pl.DataFrame, fmt: Formatter, ref: ChartRef | None = None
) -> alt.HConcatChart:
    """Points of one setup, access and block size (all mixes) -> the two-panel chart."""
    unit = axis_unit("standard", fmt)
    sequential = points["access"][0] == "sequential"
    data = chart_data(points, fmt)
    colour = mix_colour(points, fmt, colours(ref))
    left_title = fmt.t("chart.mb_s" if sequential else "chart.iops")
    panels = [_panel(data, "throughput", left_title, 0, colour, fmt)]
    if timed(points):
        panels.append(
            _panel(data, "latency", fmt.axis_title(unit), latency_places(unit), colour, fmt)
        )
    block = fmt.block(int(points["block_size"][0]))
    title = fmt.t("chart.caption", block=block, access=fmt.t.access(points["access"][0], True))
    config = {**theme().vega_config(), "locale": {"number": fmt.d3_locale()}}
    return side_by_side(data, panels, title, config)


def side_by_side(
    data: pl.DataFrame, panels: list[alt.Chart], title: str, config: dict[str, Any]
) -> alt.HConcatChart:
    """``panels`` (made without data) beside each other, drawn from ``data``. The data is
    given once, to the whole, and the panels are set after: ``alt.hconcat`` of panels that
    share their data moves it up there too, for the same spec, but first hashes each panel
    with its data printed as text and deep-copies each panel to lift parameters that it
    does not have (≈ 10 ms a chart)."""
    chart = alt.HConcatChart(data=data, title=title, config=alt.Config(**config))
    chart.hconcat = [*panels]
    return chart
