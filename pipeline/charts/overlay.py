"""The comparison's overlay chart: one profile of both sides, I/O rate (MB/s for
sequential access) and service time against parallelism, old dashed, new solid (the
service time where a side has one)."""

from __future__ import annotations

from collections.abc import Iterator

import altair as alt
import polars as pl

from pipeline.charts.standard import latency_places, parallelism_x, value_axis, value_scale
from pipeline.charts.strokes import styled_lines, styles
from pipeline.charts.theme import standard_definition, theme
from pipeline.compute.tables import most_load
from pipeline.language.fmt import Formatter
from pipeline.report.plan import axis_unit

PROFILE = ("setup", "queue_depth", "access", "block_size", "read_pct")


def profiles(
    old: pl.DataFrame, new: pl.DataFrame
) -> Iterator[tuple[str, pl.DataFrame, pl.DataFrame]]:
    """(file stem, old points, new points) of every profile both sides measured."""
    keys = old.select(PROFILE).unique().join(new.select(PROFILE).unique(), on=list(PROFILE))
    for n, key in enumerate(keys.sort(list(PROFILE)).iter_rows(named=True), 1):
        match = pl.all_horizontal(pl.col(k) == v for k, v in key.items())
        stem = f"compare-{n:03d}-{key['access']}-{key['block_size']}-r{key['read_pct']:g}"
        # drawn against parallelism: each level's point of most load (not its rate sweep)
        yield stem, most_load(old.filter(match)), most_load(new.filter(match))


def _data(points: pl.DataFrame, side: str, fmt: Formatter) -> pl.DataFrame:
    unit = axis_unit("compare", fmt)
    sequential = points["access"][0] == "sequential"
    rate = pl.col("bytes_per_s") / fmt.mega if sequential else pl.col("iops")
    return points.sort("parallelism").select(
        "parallelism",
        rate.alias("rate"),
        (pl.col("lat_mean_us") / fmt.divisor(unit)).alias("latency"),
        pl.lit(side).alias("side"),
    )


def overlay_chart(
    old: pl.DataFrame, new: pl.DataFrame, fmt: Formatter, labels: tuple[str, str]
) -> alt.TopLevelMixin:
    """``old`` and ``new``: the points of one profile on each side."""
    unit = axis_unit("compare", fmt)
    data = pl.concat([_data(old, labels[0], fmt), _data(new, labels[1], fmt)])
    sequential = old["access"][0] == "sequential"
    style, spec = theme(), standard_definition()
    x = parallelism_x(data["parallelism"].to_list(), fmt)
    colour = alt.Color(
        "side:N",
        title=None,
        sort=list(labels),
        scale=alt.Scale(domain=list(labels), range=[style.baseline_colour, style.vendor_colour]),
    )
    dash = styles("side", list(labels), ["dashed", "solid"])

    def panel(field: str, title: str, places: int) -> alt.LayerChart:
        values = data[field].to_list()
        scale = value_scale(values) if field == "latency" else alt.Scale(zero=True)
        y = alt.Y(f"{field}:Q", title=title, axis=value_axis(values, places, scale), scale=scale)
        base = alt.Chart(data).encode(x=x, y=y, color=colour)
        return styled_lines(base, dash).properties(width=spec.width, height=spec.height)

    left = panel("rate", fmt.t("chart.mb_s" if sequential else "chart.iops"), 0)
    right = panel("latency", fmt.axis_title(unit), latency_places(unit))
    title = fmt.t(
        "compare.chart_title",
        block=fmt.block(int(old["block_size"][0])),
        access=fmt.t.access(str(old["access"][0]), True),
        mix=fmt.t.mix(float(old["read_pct"][0]), True),
    )
    config = {**style.vega_config(), "locale": {"number": fmt.d3_locale()}}
    panels = [left, right] if timed(old, new) else [left]  # no latency: no empty panel
    chart: alt.TopLevelMixin = alt.hconcat(*panels, title=title).configure(**config)
    return chart


def timed(old: pl.DataFrame, new: pl.DataFrame) -> bool:
    """Whether a side of the profile has a latency to draw (CrystalDiskMark 3 to 6 has
    none): the chart has its service-time panel, and its alt text says so."""
    return any(side["lat_mean_us"].is_not_null().any() for side in (old, new))
