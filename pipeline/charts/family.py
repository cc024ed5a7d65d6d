"""The chart family beyond the standard chart (seeds 001, 003, 004 and auditors' needs).

Each function takes the points it plots (already narrowed to one profile or block size)
and a ``Formatter``, and returns an altair chart with titles and numbers in the report's
language.
"""

from __future__ import annotations

from typing import Any

import altair as alt
import polars as pl

from pipeline.charts.standard import (
    colours,
    latency_places,
    log2_x,
    log_scale,
    mix_colour,
    mix_label,
    parallelism_x,
    timed,
    value_axis,
    value_format,
    value_scale,
)
from pipeline.charts.strokes import DASHES, styled_lines, styles
from pipeline.charts.theme import theme
from pipeline.compute.tables import on_curve
from pipeline.language.fmt import Formatter
from pipeline.report.palette import Palette
from pipeline.report.plan import ChartRef, axis_unit, words_key
from pipeline.report.views import latency
from pipeline.schema import PERCENTILES


def finish(chart: Any, title: str, fmt: Formatter) -> alt.TopLevelMixin:
    config = {**theme().vega_config(), "locale": {"number": fmt.d3_locale()}}
    done: alt.TopLevelMixin = chart.properties(title=title).configure(**config)
    return done


def _parallelism_x(points: pl.DataFrame, fmt: Formatter) -> alt.X:
    return parallelism_x(points["parallelism"].to_list(), fmt)


def _sequential(points: pl.DataFrame) -> bool:
    return bool(points["access"][0] == "sequential")


def throughput(points: pl.DataFrame, fmt: Formatter) -> tuple[pl.Expr, str]:
    """IOPS, or MB/s for sequential access: what the seeds plot on the left axis."""
    if _sequential(points):
        return pl.col("bytes_per_s") / fmt.mega, fmt.t("chart.mb_s")
    return pl.col("iops"), fmt.t("chart.iops")


def setup_colour(points: pl.DataFrame, fmt: Formatter, look: Palette) -> alt.Color:
    """One colour per setup, the document's (each setup the same on every chart), in the
    report's order of setups."""
    setups = setup_order(points, look)
    labels = [fmt.setup(s) for s in setups]
    return alt.Color(
        "setup_label:N",
        title=None,
        sort=labels,
        scale=alt.Scale(domain=labels, range=[look.setup(s, i) for i, s in enumerate(setups)]),
    )


def setup_order(points: pl.DataFrame, look: Palette) -> list[str]:
    """The setups of ``points`` in the report's order."""
    found = points["setup"].unique(maintain_order=True).to_list()
    order = [name for name, _ in look.setups]
    return sorted(found, key=lambda s: order.index(s) if s in order else len(order))


def with_setup_label(points: pl.DataFrame, fmt: Formatter) -> pl.DataFrame:
    names = {s: fmt.setup(s) for s in points["setup"].unique().to_list()}
    return points.with_columns(
        pl.col("setup").replace_strict(names, return_dtype=pl.String).alias("setup_label")
    )


def dual_axis_chart(
    points: pl.DataFrame, fmt: Formatter, ref: ChartRef | None = None
) -> alt.TopLevelMixin:
    """Seed 004: IOPS solid on the left axis, latency dashed on the right, colour per setup.
    ``points``: one access, block size and mix, every setup."""
    unit = axis_unit("dual_axis", fmt)
    value, value_title = throughput(points, fmt)
    data = (
        with_setup_label(points, fmt)
        .sort("setup", "parallelism")
        .select(
            "parallelism",
            "setup_label",
            value.alias("throughput"),
            (pl.col("lat_mean_us") / fmt.divisor(unit)).alias("latency"),
        )
    )
    lat_title = fmt.axis_title(unit)
    measures = [value_title, lat_title] if timed(points) else [value_title]  # no empty axis
    dash = styles("measure", measures, ["solid", "dashed"][: len(measures)])
    colour = setup_colour(points, fmt, colours(ref))
    x = _parallelism_x(points, fmt)
    rate_axis = alt.Axis(format=value_format(data["throughput"].to_list(), 0))
    rate = alt.Chart(data.with_columns(measure=pl.lit(value_title))).encode(
        x=x, y=alt.Y("throughput:Q", title=value_title, axis=rate_axis), color=colour
    )
    latencies = data["latency"].to_list()
    lat_scale = value_scale(latencies)  # a span of more than LOG_FROM: logarithmic
    lat_axis = value_axis(latencies, latency_places(unit), lat_scale, orient="right")
    lat = alt.Chart(data.with_columns(measure=pl.lit(lat_title))).encode(
        x=x, y=alt.Y("latency:Q", title=lat_title, axis=lat_axis, scale=lat_scale), color=colour
    )
    # latency hollow: where one point stands for its line, still seen beside the IOPS one
    lines = [styled_lines(rate, dash), styled_lines(lat, dash, filled=False)]
    lines = lines[: len(measures)]
    layered = alt.layer(*lines).resolve_scale(y="independent").properties(width=520, height=260)
    title = words_key("chart.dual_title", timed(points))
    return finish(layered, _profile_title(points, fmt, title), fmt)


def _profile_title(points: pl.DataFrame, fmt: Formatter, key: str) -> str:
    mix = fmt.t.mix(float(points["read_pct"][0]), short=True)
    return fmt.t(
        key,
        block=fmt.block(int(points["block_size"][0])),
        access=fmt.t.access(str(points["access"][0]), True),
        mix=mix,
        metric=throughput(points, fmt)[1],
    )


def _direction(read_pct: float) -> str:
    return {100.0: "solid", 0.0: "dashed"}.get(read_pct, "dotted")


def setups_chart(
    points: pl.DataFrame, fmt: Formatter, ref: ChartRef | None = None
) -> alt.TopLevelMixin:
    """Seed 003: setups compared, colour per setup, reads solid and writes dashed, against
    parallelism; over queue depth where the kind's axis is (``setups_depth``, seed 002's
    1 and 2 links). ``points``: one access and block size, every setup and mix."""
    kind = ref.kind if ref is not None else "setups"
    level = (ref.chart.x if ref is not None else None) or "parallelism"
    unit = axis_unit(kind, fmt)
    value, value_title = throughput(points, fmt)
    mixes = sorted(points["read_pct"].unique().to_list(), reverse=True)
    mix_labels = [fmt.t.mix(m, short=True) for m in mixes]
    data = (
        with_setup_label(points, fmt)
        .sort("setup", "read_pct", level)
        .select(
            level,
            "setup_label",
            value.alias("throughput"),
            (pl.col("lat_mean_us") / fmt.divisor(unit)).alias("latency"),
            pl.col("read_pct")
            .replace_strict(dict(zip(mixes, mix_labels, strict=True)), return_dtype=pl.String)
            .alias("mix"),
        )
    )
    dash = styles("mix", mix_labels, [_direction(m) for m in mixes])
    colour = setup_colour(points, fmt, colours(ref))
    detail = alt.Detail("setup_label:N")
    x = log2_x(level, fmt.t(f"chart.{level}"), data[level].to_list())
    both = side_by_side(data, fmt, (value_title, unit), dash, x=x, color=colour, detail=detail)
    title = ref.chart.title if ref is not None else "chart.setups_title"
    return finish(both, _block_title(points, fmt, title), fmt)


def side_by_side(
    data: pl.DataFrame,
    fmt: Formatter,
    titles: tuple[str, str],
    dash: alt.StrokeDash,
    x: alt.X | None = None,
    **encoding: Any,
) -> alt.HConcatChart:
    """Throughput (left, axis titled ``titles[0]``) and service time (right, in the unit
    ``titles[1]``) against parallelism (or ``x``), lines in the styles of ``dash`` and
    told apart by ``encoding`` (colour and detail): the comparisons of setups and of
    frontend and backend. ``data``: the columns ``parallelism`` (or ``x``'s),
    ``throughput``, ``latency`` and those ``dash`` and ``encoding`` name."""
    value_title, unit = titles
    x = x if x is not None else parallelism_x(data["parallelism"].to_list(), fmt)

    def panel(field: str, title: str, places: int) -> alt.LayerChart:
        # a service time spanning more than LOG_FROM on a log axis, as the standard chart's
        # (0.05 µs of one setup lay flat on 0 beside 1,000 µs of the other)
        values = data[field].to_list()
        scale = value_scale(values) if field == "latency" else alt.Scale(zero=True)
        axis = value_axis(values, places, scale)
        y = alt.Y(f"{field}:Q", title=title, axis=axis, scale=scale)
        # the points: a setup measured at one level is no line
        base = alt.Chart(data).encode(x=x, y=y, **encoding)
        return styled_lines(base, dash).properties(width=250, height=190)

    panels = [panel("throughput", value_title, 0)]
    if data["latency"].is_not_null().any():  # no empty service-time panel
        panels.append(panel("latency", fmt.axis_title(unit), latency_places(unit)))
    return alt.hconcat(*panels)


def _block_title(points: pl.DataFrame, fmt: Formatter, key: str) -> str:
    return fmt.t(
        key,
        block=fmt.block(int(points["block_size"][0])),
        access=fmt.t.access(str(points["access"][0]), True),
    )


def _limit_marks(limit: float) -> tuple[alt.Chart, alt.Chart]:
    """The zone under the latency limit, shaded, and the limit's dashed line."""
    zone = (
        alt.Chart(pl.DataFrame({"zero": [0.0], "limit": [limit]}))
        .mark_rect(color=theme().limit_colour, opacity=0.12)
        .encode(y=alt.Y("zero:Q"), y2=alt.Y2("limit:Q"))
    )
    rule = (
        alt.Chart(pl.DataFrame({"limit": [limit]}))
        .mark_rule(color=theme().limit_colour, strokeDash=DASHES["dashed"])
        .encode(y=alt.Y("limit:Q"))
    )
    return zone, rule


def _line(points: pl.DataFrame) -> pl.Expr:
    """Which line of its mix a point is drawn on: along the curve (``on_curve``), one line;
    where rate sweeps were run at several parallelism levels, one line per level (from one
    level's uncapped point to the next level's lowest target the load falls)."""
    per_level = points.group_by("read_pct", "parallelism").len()["len"]
    several = points["parallelism"].n_unique() > 1 and bool((per_level > 1).any())
    return pl.col("parallelism") if several else pl.lit(0, pl.Int64)


def response_chart(
    points: pl.DataFrame, fmt: Formatter, ref: ChartRef | None = None
) -> alt.TopLevelMixin:
    """Seed 001: latency against I/O rate per mix, the zone under the latency limit shaded.
    ``points``: one setup, access and block size; the limit is the plan's (1 ms without)."""
    limit_us = ref.limit_us if ref is not None and ref.limit_us is not None else 1000.0
    unit = axis_unit("response", fmt)
    value, value_title = throughput(points, fmt)
    data = on_curve(points, ["read_pct"], [True]).select(
        value.alias("throughput"),
        (pl.col("lat_mean_us") / fmt.divisor(unit)).alias("latency"),
        mix_label(points, fmt),
        pl.int_range(pl.len()).alias("curve"),
        _line(points).alias("line"),
    )
    zone, rule = _limit_marks(limit_us / fmt.divisor(unit))
    lines = (
        alt.Chart(data)
        .mark_line(point=True, strokeWidth=theme().line_width)
        .encode(
            x=alt.X(
                "throughput:Q",
                title=value_title,
                axis=alt.Axis(format=value_format(data["throughput"].to_list(), 0)),
            ),
            y=alt.Y(
                "latency:Q",
                title=fmt.axis_title(unit),
                axis=alt.Axis(format=value_format(data["latency"].to_list(), latency_places(unit))),
            ),
            color=mix_colour(points, fmt, colours(ref)),
            detail=alt.Detail("line:N"),
            order=alt.Order("curve:Q"),
        )
    )
    layered = alt.layer(zone, rule, lines).properties(width=520, height=260)
    title = fmt.t(
        "chart.response_title",
        block=fmt.block(int(points["block_size"][0])),
        access=fmt.t.access(str(points["access"][0]), True),
        limit=latency(fmt, "iops_at_latency", limit_us, "limit_us"),
    )
    return finish(layered, title, fmt)


def stability_chart(
    points: pl.DataFrame, fmt: Formatter, ref: ChartRef | None = None
) -> alt.TopLevelMixin:
    """How stable each point was: mean IOPS with the band from the slowest to the fastest
    interval. ``points``: one setup, access and block size."""
    data = points.sort("read_pct", "parallelism", descending=[True, False]).select(
        "parallelism", "iops", "iops_min", "iops_max", mix_label(points, fmt)
    )
    base = alt.Chart(data).encode(
        x=_parallelism_x(points, fmt), color=mix_colour(points, fmt, colours(ref))
    )
    band = base.mark_area(opacity=0.25).encode(
        y=alt.Y("iops_min:Q", title=fmt.t("chart.iops"), axis=alt.Axis(format=",d")),
        y2=alt.Y2("iops_max:Q"),
    )
    # the range at each level as a line too: a band over one level is no area at all
    ranges = base.mark_rule(strokeWidth=theme().line_width, opacity=0.6).encode(
        y=alt.Y("iops_min:Q"), y2=alt.Y2("iops_max:Q")
    )
    mean = base.mark_line(point=True, strokeWidth=theme().line_width).encode(y=alt.Y("iops:Q"))
    layered = alt.layer(band, ranges, mean).properties(width=520, height=260)
    return finish(layered, _block_title(points, fmt, "chart.stability_title"), fmt)


def percentiles_chart(
    points: pl.DataFrame, fmt: Formatter, ref: ChartRef | None = None
) -> alt.TopLevelMixin:
    """Latency percentiles p50…p99.99 against parallelism. ``points``: one profile; where
    some are of fio's completion latency (``schema``: percentile_of), the title and axis
    say so."""
    unit = axis_unit("percentiles", fmt)
    clat = "percentile_of" in points.columns and bool((points["percentile_of"] == "clat").any())
    names = [f"lat_{p}_us" for p in PERCENTILES]
    labels = {f"lat_{p}_us": f"p{v:g}" for p, v in PERCENTILES.items()}
    data = (
        points.sort("parallelism")
        .select("parallelism", *names)
        .unpivot(index="parallelism", variable_name="percentile", value_name="latency")
        .drop_nulls("latency")
        .with_columns(
            pl.col("percentile").replace_strict(labels, return_dtype=pl.String),
            pl.col("latency") / fmt.divisor(unit),
        )
    )
    order = list(labels.values())
    chart = (
        alt.Chart(data)
        .mark_line(point=True, strokeWidth=theme().line_width)
        .encode(
            x=_parallelism_x(points, fmt),
            y=alt.Y(
                "latency:Q",
                title=fmt.t("chart.clat", unit=fmt.symbol(unit)) if clat else fmt.axis_title(unit),
                scale=(scale := log_scale(data["latency"].to_list())),
                axis=value_axis(data["latency"].to_list(), latency_places(unit), scale),
            ),
            color=alt.Color(
                "percentile:N",
                title=None,
                sort=order,
                scale=alt.Scale(domain=order, scheme="viridis"),
                # beside the panel: five short labels under it made the chart a third
                # taller, and two no longer fitted on a page
                legend=alt.Legend(orient="right"),
            ),
        )
        .properties(width=460, height=260)
    )
    title = "chart.percentiles_clat_title" if clat else "chart.percentiles_title"
    return finish(chart, _profile_title(points, fmt, title), fmt)


def histogram_chart(
    bins: pl.DataFrame, fmt: Formatter, ref: ChartRef | None = None
) -> alt.TopLevelMixin:
    """fio json+ latency histogram: ``bins`` has ``lat_us`` (bin value) and ``count``."""
    unit = axis_unit("histogram", fmt)
    bins = bins.with_columns(latency=pl.col("lat_us") / fmt.divisor(unit))
    chart = (
        alt.Chart(bins)
        .mark_bar(color=theme().vendor_colour)
        .encode(
            x=alt.X(
                "latency:Q",
                title=fmt.axis_title(unit),
                scale=(scale := log_scale(bins["latency"].to_list())),
                axis=value_axis(bins["latency"].to_list(), latency_places(unit), scale),
            ),
            y=alt.Y("count:Q", title=fmt.t("chart.count"), axis=alt.Axis(format=",d")),
        )
        .properties(width=520, height=220)
    )
    return finish(chart, fmt.t("chart.histogram_title"), fmt)


def compare_chart(points: pl.DataFrame, fmt: Formatter, title: str) -> alt.TopLevelMixin:
    """The same profile across systems: colour per system (``label``), throughput and
    service time against parallelism."""
    unit = axis_unit("compare", fmt)
    value, value_title = throughput(points, fmt)
    labels = points["label"].unique(maintain_order=True).to_list()
    colour = alt.Color(
        "label:N",
        title=None,
        sort=labels,
        scale=alt.Scale(domain=labels, range=theme().setup_palette(len(labels))),
    )
    data = points.sort("label", "parallelism").select(
        "parallelism",
        "label",
        value.alias("throughput"),
        (pl.col("lat_mean_us") / fmt.divisor(unit)).alias("latency"),
    )

    def panel(field: str, axis_title: str, places: int) -> alt.Chart:
        values = data[field].to_list()
        scale = value_scale(values) if field == "latency" else alt.Scale(zero=True)
        axis = value_axis(values, places, scale)
        chart: alt.Chart = (
            alt.Chart(data)
            .mark_line(point=True, strokeWidth=theme().line_width)
            .encode(
                x=_parallelism_x(points, fmt),
                y=alt.Y(f"{field}:Q", title=axis_title, axis=axis, scale=scale),
                color=colour,
            )
            .properties(width=250, height=190)
        )
        return chart

    both = alt.hconcat(
        panel("throughput", value_title, 0),
        panel("latency", fmt.axis_title(unit), latency_places(unit)),
    )
    return finish(both, title, fmt)
