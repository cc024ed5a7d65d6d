"""Charts over a level other than parallelism: queue depth (seed 002: "depending on the
depth of the request queue"), and block size (seed 002's IOMeter charts: MB/s and IOPS of
100 % read, 100 % write and 50/50 over 512 B … 1 MB)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import altair as alt
import polars as pl

from pipeline.charts.family import (
    finish,
    setup_colour,
    setup_order,
    throughput,
    with_setup_label,
)
from pipeline.charts.standard import (
    colours,
    latency_places,
    log2_x,
    mix_colour,
    mix_label,
    timed,
    value_format,
)
from pipeline.charts.theme import standard_definition, theme
from pipeline.language.fmt import Formatter
from pipeline.report.plan import ChartRef, axis_unit, words_key

WIDE = 520  # px: a panel of the page's width (as the dual-axis chart)
LOW = 120  # px: a panel of a chart of several rows: a few lines need no half page each
COLUMNS = 4  # at most this many panels of a grid side by side
LEFT = 60  # px: the value axis's labels and title left of a grid's first column


Value = tuple[alt.Y, alt.Tooltip]  # a panel's value axis, and its tooltip in the axis's format


def _line(data: pl.DataFrame, x: alt.X, value: Value, series: str = "mix") -> alt.Chart:
    """One panel: ``value`` against ``x``, one line per ``series`` (coloured by the
    caller)."""
    spec = standard_definition()
    chart: alt.Chart = (
        alt.Chart(data)
        .mark_line(
            point=alt.OverlayMarkDef(size=theme().point_size), strokeWidth=theme().line_width
        )
        .encode(
            x=x,
            y=value[0],
            tooltip=[alt.Tooltip(f"{series}:N", title=None), value[1]],
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


@dataclass(frozen=True)
class Grid:
    """Small multiples: a column per value of ``by`` (``heads``: value -> its heading, in
    order; at most ``COLUMNS`` side by side, further ones in a band below) and a row per
    value drawn (field, axis title, decimals), one scale per row; ``x(titled)`` is the x
    axis (titled under the last row), ``series`` the column the colours stand for."""

    data: pl.DataFrame
    by: str
    heads: dict[Any, str]
    x: Callable[[bool], alt.X]
    colour: alt.Color
    series: str = "mix"

    def draw(self, values: list[tuple[str, str, int]]) -> alt.VConcatChart:
        keys = list(self.heads)
        rows = []
        for start in range(0, len(keys), COLUMNS):
            for i, value in enumerate(values):
                last = i == len(values) - 1
                rows.append(self._row(keys[start : start + COLUMNS], value, i == 0, last))
        return alt.vconcat(*rows, spacing=12)

    def _row(
        self, band: list[Any], value: tuple[str, str, int], headed: bool, titled: bool
    ) -> alt.HConcatChart:
        field, title, places = value
        width = (WIDE - LEFT) // min(len(self.heads), COLUMNS)
        panels = []
        for key in band:
            first = key == band[0]
            y = _y(self.data, field, title if first else None, places, shown=first)
            one = self.data.filter(pl.col(self.by) == key)
            panel = _line(one, self.x(titled), y, self.series).encode(color=self.colour)
            panel = panel.properties(width=width, height=LOW)
            panels.append(panel.properties(title=self.heads[key]) if headed else panel)
        return alt.hconcat(*panels, spacing=8)


def _swept(points: pl.DataFrame) -> pl.DataFrame:
    """The points of the parallelism levels measured at several queue depths: a column of
    the grid at one depth would be a dot (CrystalDiskMark 6's Q8T8 beside Q1T1 and
    Q32T1); the tables show it. The plan draws no chart where every level is such
    (``plan.flat``): drawn outside it, such points stay as they are."""
    kept = points.filter(pl.col("queue_depth").n_unique().over("parallelism") > 1)
    return points if kept.is_empty() else kept


def queue_depth_chart(
    points: pl.DataFrame, fmt: Formatter, ref: ChartRef | None = None
) -> alt.TopLevelMixin:
    """IOPS (MB/s sequential) and service time against queue depth, one colour per mix;
    with several parallelism levels the QD × parallelism grid as small multiples, a column
    per level (low panels: three levels of a few lines were nearly a page tall).
    ``points``: one setup, access and block size."""
    unit = axis_unit("queue_depth", fmt)
    several = points["parallelism"].n_unique() > 1
    points = _swept(points)
    data, value_title = _depth_data(points, fmt)
    colour = mix_colour(points, fmt, colours(ref))
    values = [("throughput", value_title, 0)]
    if timed(points):
        values.append(("latency", fmt.axis_title(unit), latency_places(unit)))
    levels = sorted(data["parallelism"].unique().to_list())
    chart: alt.TopLevelMixin
    if several:  # a column per level, headed by it (also where one column is left)
        heads = {p: fmt.t("chart.parallelism_level", p=fmt.integer(p)) for p in levels}
        depths = data["queue_depth"].to_list()
        grid = Grid(data, "parallelism", heads, lambda t: _depth_x(depths, fmt, t), colour)
        chart = grid.draw(values)
    else:
        x = _depth_x(data["queue_depth"].to_list(), fmt)
        chart = alt.hconcat(*(_line(data, x, _y(data, *v)).encode(color=colour) for v in values))
    title = fmt.t(
        words_key("chart.queue_depth_title", len(values) > 1),
        block=fmt.block(int(points["block_size"][0])),
        access=fmt.t.access(str(points["access"][0]), True),
        metric=value_title,
    )
    return finish(chart, title, fmt)


def _block_data(points: pl.DataFrame, fmt: Formatter) -> tuple[pl.DataFrame, list[str]]:
    """The points as drawn (block label, MB/s, IOPS, mix, setup), and the block labels in
    ascending size."""
    sizes = sorted(points["block_size"].unique().to_list())
    labels = {s: fmt.block(s) for s in sizes}
    data = with_setup_label(points, fmt).sort(
        "read_pct", "setup", "block_size", descending=[True, False, False]
    )
    data = data.select(
        pl.col("block_size").replace_strict(labels, return_dtype=pl.String).alias("block"),
        (pl.col("bytes_per_s") / fmt.mega).alias("mb_s"),
        "iops",
        mix_label(points, fmt),
        "setup_label",
    )
    return data, list(labels.values())


def block_size_chart(
    points: pl.DataFrame, fmt: Formatter, ref: ChartRef | None = None
) -> alt.TopLevelMixin:
    """MB/s above IOPS against block size (seed 002): one line per mix; with several setups
    (seed 002's 1 and 2 links) a column per mix and one line per setup, in its colour.
    ``points``: one access at one level."""
    data, blocks = _block_data(points, fmt)
    several = points["setup"].n_unique() > 1
    mixes = data["mix"].unique(maintain_order=True).to_list()

    def x(titled: bool) -> alt.X:
        # a dozen sizes (512B … 1024K) across a narrow panel: every second one labelled
        axis = alt.Axis(labelAngle=0, labelOverlap="parity")
        title = fmt.t("chart.block_size") if titled else ""
        return alt.X("block:O", title=title, sort=blocks, axis=axis)

    values = [("mb_s", fmt.t("chart.mb_s"), 0), ("iops", fmt.t("chart.iops"), 0)]
    if several:
        colour = setup_colour(points, fmt, colours(ref))
        grid = Grid(
            data, "mix", {m: m for m in mixes}, x, colour.legend(orient="right"), "setup_label"
        )
    else:  # one column the page's width, the legend beside it
        colour = mix_colour(points, fmt, colours(ref)).legend(orient="right")
        grid = Grid(data.with_columns(all=pl.lit(0)), "all", {0: ""}, x, colour)
    chart = grid.draw(values)
    access = fmt.t.access(str(points["access"][0]), start=True)
    title = fmt.t("chart.block_size_title", access_start=access)
    return finish(chart, title, fmt)


def mixes_chart(
    points: pl.DataFrame, fmt: Formatter, ref: ChartRef | None = None
) -> alt.TopLevelMixin:
    """Named workload mixes as bars (seed 002's application scenarios): MB/s above IOPS,
    a group per mix in the order of their names, a bar per setup in its colour.
    ``points``: one access at one level."""
    data = with_setup_label(points, fmt).sort("profile", "setup")
    data = data.select(
        pl.col("profile").replace(fmt.profile_names),  # in the document's language
        "setup_label",
        (pl.col("bytes_per_s") / fmt.mega).alias("mb_s"),
        "iops",
    )
    names = data["profile"].unique(maintain_order=True).to_list()
    colour = setup_colour(points, fmt, colours(ref)).legend(orient="right")
    setups = [fmt.setup(s) for s in setup_order(points, colours(ref))]
    rows = []
    for i, (field, title) in enumerate((("mb_s", "chart.mb_s"), ("iops", "chart.iops"))):
        y, tip = _y(data, field, fmt.t(title), 0)
        axis = alt.Axis(labelAngle=0, labels=i == 1, ticks=i == 1)
        bars = (
            alt.Chart(data)
            .mark_bar()
            .encode(
                x=alt.X("profile:N", title=None, sort=names, axis=axis),
                xOffset=alt.XOffset("setup_label:N", sort=setups),
                y=y,
                color=colour,
                tooltip=[alt.Tooltip("profile:N", title=None), "setup_label:N", tip],
            )
            .properties(width=WIDE - LEFT, height=LOW)
        )
        rows.append(bars)
    access = fmt.t.access(str(points["access"][0]), start=True)
    return finish(
        alt.vconcat(*rows, spacing=8), fmt.t("chart.mixes_title", access_start=access), fmt
    )
