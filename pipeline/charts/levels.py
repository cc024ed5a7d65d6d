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


def _line(data: pl.DataFrame, x: alt.X, field: str, title: str, places: int) -> alt.Chart:
    """One panel: ``field`` against ``x``, one line per mix (coloured by the caller)."""
    spec = standard_definition()
    number = value_format(data[field].to_list(), places)
    chart: alt.Chart = (
        alt.Chart(data)
        .mark_line(
            point=alt.OverlayMarkDef(size=theme().point_size), strokeWidth=theme().line_width
        )
        .encode(
            x=x,
            y=alt.Y(
                f"{field}:Q", title=title, axis=alt.Axis(format=number), scale=alt.Scale(zero=True)
            ),
            tooltip=[alt.Tooltip("mix:N", title=None), alt.Tooltip(f"{field}:Q", format=number)],
        )
        .properties(width=spec.width, height=spec.height)
    )
    return chart


def _depth_x(levels: list[int], fmt: Formatter) -> alt.X:
    """The queue depth axis (log 2) over the measured depths."""
    return log2_x("queue_depth", fmt.t("chart.queue_depth"), levels)


def queue_depth_chart(
    points: pl.DataFrame, fmt: Formatter, ref: ChartRef | None = None
) -> alt.TopLevelMixin:
    """IOPS (MB/s sequential) and service time against queue depth, one colour per mix;
    one row of both panels per parallelism level (a QD × parallelism grid as small
    multiples). ``points``: one setup, access and block size."""
    unit = axis_unit("queue_depth", fmt)
    value, value_title = throughput(points, fmt)
    data = points.sort("read_pct", "queue_depth", descending=[True, False]).select(
        "parallelism",
        "queue_depth",
        value.alias("throughput"),
        (pl.col("lat_mean_us") / fmt.divisor(unit)).alias("latency"),
        mix_label(points, fmt),
    )
    x = _depth_x(data["queue_depth"].to_list(), fmt)
    colour = mix_colour(points, fmt, colours(ref))
    levels = sorted(data["parallelism"].unique().to_list())
    rows = []
    for level in levels:
        one = data.filter(pl.col("parallelism") == level)
        left = _line(one, x, "throughput", value_title, 0).encode(color=colour)
        right = _line(one, x, "latency", fmt.axis_title(unit), latency_places(unit))
        row_title = (
            fmt.t("chart.parallelism_level", p=fmt.integer(level)) if len(levels) > 1 else ""
        )
        rows.append(alt.hconcat(left, right.encode(color=colour), title=row_title))
    chart = rows[0] if len(rows) == 1 else alt.vconcat(*rows)
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
    x = alt.X(
        "block:O",
        title=fmt.t("chart.block_size"),
        sort=list(labels.values()),
        axis=alt.Axis(labelAngle=0),
    )
    colour = mix_colour(points, fmt, colours(ref))
    # one panel above the other, each the page's width: a dozen sizes (512B … 1024K)
    # side by side in a half-width panel would run into each other
    top = _line(data, x, "mb_s", fmt.t("chart.mb_s"), 0).encode(color=colour)
    below = _line(data, x, "iops", fmt.t("chart.iops"), 0).encode(color=colour)
    both = alt.vconcat(top.properties(width=WIDE), below.properties(width=WIDE))
    title = fmt.t("chart.block_size_title", access=fmt.t.access(str(points["access"][0]), True))
    return finish(both, title, fmt)


WIDE = 520  # px: a panel of the page's width (as the dual-axis chart)
