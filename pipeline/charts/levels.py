"""Charts over a level other than parallelism: queue depth (seed 002: "depending on the
depth of the request queue"), and block size (seed 002's IOMeter charts: MB/s and IOPS of
100 % read, 100 % write and 50/50 over 512 B … 1 MB)."""

from __future__ import annotations

import altair as alt
import polars as pl

from pipeline.charts.family import finish, throughput
from pipeline.charts.standard import (
    colours,
    latency_places,
    log2_x,
    mix_colour,
    mix_label,
    value_format,
)
from pipeline.charts.theme import standard_definition, theme
from pipeline.language.fmt import Formatter
from pipeline.report.plan import ChartRef, axis_unit

WIDE = 520  # px: a panel of the page's width (as the dual-axis chart)
LOW = 120  # px: a panel of a chart of several rows: a few lines need no half page each
COLUMNS = 4  # at most this many parallelism levels of a QD grid side by side
LEFT = 60  # px: the value axis's labels and title left of a grid's first column


Value = tuple[alt.Y, alt.Tooltip]  # a panel's value axis, and its tooltip in the axis's format


def _line(data: pl.DataFrame, x: alt.X, value: Value) -> alt.Chart:
    """One panel: ``value`` against ``x``, one line per mix (coloured by the caller)."""
    spec = standard_definition()
    chart: alt.Chart = (
        alt.Chart(data)
        .mark_line(
            point=alt.OverlayMarkDef(size=theme().point_size), strokeWidth=theme().line_width
        )
        .encode(
            x=x,
            y=value[0],
            tooltip=[alt.Tooltip("mix:N", title=None), value[1]],
        )
        .properties(width=spec.width, height=spec.height)
    )
    return chart


def _y(data: pl.DataFrame, field: str, title: str | None, places: int, shown: bool = True) -> Value:
    """The value axis of ``field`` from zero to the largest value of ``data`` (one scale
    for every panel of a grid: the levels compare at a glance); ``shown``: with its labels
    (a grid labels its first column only)."""
    number = value_format(data[field].to_list(), places)
    top = float(data[field].max() or 0)  # type: ignore[arg-type]
    y = alt.Y(
        f"{field}:Q",
        title=title,
        axis=alt.Axis(format=number, labels=shown, ticks=shown, labelFlush=True),
        scale=alt.Scale(zero=True, nice=True, domain=[0.0, top or 1.0]),
    )
    return y, alt.Tooltip(f"{field}:Q", format=number)


def _depth_x(levels: list[int], fmt: Formatter, titled: bool = True) -> alt.X:
    """The queue depth axis (log 2) over the measured depths."""
    return log2_x("queue_depth", fmt.t("chart.queue_depth") if titled else "", levels)


def _depth_data(points: pl.DataFrame, fmt: Formatter) -> tuple[pl.DataFrame, str]:
    """The points as drawn (throughput, latency in the chart's unit, mix), and the title of
    the throughput axis."""
    unit = axis_unit("queue_depth", fmt)
    value, value_title = throughput(points, fmt)
    data = points.sort("read_pct", "queue_depth", descending=[True, False]).select(
        "parallelism",
        "queue_depth",
        value.alias("throughput"),
        (pl.col("lat_mean_us") / fmt.divisor(unit)).alias("latency"),
        mix_label(points, fmt),
    )
    return data, value_title


def _grid(
    data: pl.DataFrame, fmt: Formatter, colour: alt.Color, value_title: str
) -> alt.VConcatChart:
    """The QD × parallelism grid as small multiples: a column per parallelism level (at
    most ``COLUMNS`` side by side, further ones below), throughput above service time, one
    scale per row. Low panels: three levels of a few lines were nearly a page tall."""
    unit = axis_unit("queue_depth", fmt)
    levels = sorted(data["parallelism"].unique().to_list())
    rows = []
    for start in range(0, len(levels), COLUMNS):
        band = levels[start : start + COLUMNS]
        rows.append(_row(data, band, ("throughput", value_title, 0), fmt, colour))
        latency = ("latency", fmt.axis_title(unit), latency_places(unit))
        rows.append(_row(data, band, latency, fmt, colour))
    return alt.vconcat(*rows, spacing=12)


def _row(
    data: pl.DataFrame,
    band: list[int],
    value: tuple[str, str, int],
    fmt: Formatter,
    colour: alt.Color,
) -> alt.HConcatChart:
    """One row of the grid: ``value`` (field, axis title, decimals) over queue depth at
    each parallelism level of ``band``; the throughput row names the levels, the latency
    row the x axis."""
    field, title, places = value
    width = (WIDE - LEFT) // min(data["parallelism"].n_unique(), COLUMNS)
    x = _depth_x(data["queue_depth"].to_list(), fmt, titled=field == "latency")
    panels = []
    for level in band:
        first = level == band[0]
        y = _y(data, field, title if first else None, places, shown=first)
        panel = _line(data.filter(pl.col("parallelism") == level), x, y)
        panel = panel.encode(color=colour).properties(width=width, height=LOW)
        head = fmt.t("chart.parallelism_level", p=fmt.integer(level))
        panels.append(panel.properties(title=head) if field == "throughput" else panel)
    return alt.hconcat(*panels, spacing=8)


def queue_depth_chart(
    points: pl.DataFrame, fmt: Formatter, ref: ChartRef | None = None
) -> alt.TopLevelMixin:
    """IOPS (MB/s sequential) and service time against queue depth, one colour per mix;
    with several parallelism levels a QD × parallelism grid of small multiples (``_grid``).
    ``points``: one setup, access and block size."""
    unit = axis_unit("queue_depth", fmt)
    data, value_title = _depth_data(points, fmt)
    colour = mix_colour(points, fmt, colours(ref))
    chart: alt.TopLevelMixin
    if data["parallelism"].n_unique() > 1:
        chart = _grid(data, fmt, colour, value_title)
    else:
        x = _depth_x(data["queue_depth"].to_list(), fmt)
        left = _line(data, x, _y(data, "throughput", value_title, 0))
        places = latency_places(unit)
        right = _line(data, x, _y(data, "latency", fmt.axis_title(unit), places))
        chart = alt.hconcat(left.encode(color=colour), right.encode(color=colour))
    title = fmt.t(
        "chart.queue_depth_title",
        block=fmt.block(int(points["block_size"][0])),
        access=fmt.t.access(str(points["access"][0]), True),
        metric=value_title,
    )
    return finish(chart, title, fmt)


def block_size_chart(
    points: pl.DataFrame, fmt: Formatter, ref: ChartRef | None = None
) -> alt.TopLevelMixin:
    """MB/s and IOPS against block size, one colour per mix (seed 002). ``points``: one
    setup and access at one level."""
    sizes = sorted(points["block_size"].unique().to_list())
    labels = {s: fmt.block(s) for s in sizes}
    data = points.sort("read_pct", "block_size", descending=[True, False]).select(
        pl.col("block_size").replace_strict(labels, return_dtype=pl.String).alias("block"),
        (pl.col("bytes_per_s") / fmt.mega).alias("mb_s"),
        "iops",
        mix_label(points, fmt),
    )

    def x(titled: bool) -> alt.X:
        title = fmt.t("chart.block_size") if titled else None
        return alt.X(
            "block:O", title=title, sort=list(labels.values()), axis=alt.Axis(labelAngle=0)
        )

    colour = mix_colour(points, fmt, colours(ref)).legend(orient="right")
    # one panel above the other, each the page's width: a dozen sizes (512B … 1024K)
    # side by side in a half-width panel would run into each other; low ones, the axis
    # titled once, the legend beside them: two panels of full height were over half a page
    top = _line(data, x(False), _y(data, "mb_s", fmt.t("chart.mb_s"), 0))
    below = _line(data, x(True), _y(data, "iops", fmt.t("chart.iops"), 0))
    both = alt.vconcat(
        top.encode(color=colour).properties(width=WIDE, height=LOW),
        below.encode(color=colour).properties(width=WIDE, height=LOW),
        spacing=12,
    )
    title = fmt.t("chart.block_size_title", access=fmt.t.access(str(points["access"][0]), True))
    return finish(both, title, fmt)
