"""The SNIA PTS measurement-window chart of one point: IOPS per round, and over the last
five rounds their mean, mean ± 10 % and ± 20 % and the least-squares line."""

from __future__ import annotations

import altair as alt
import polars as pl

from pipeline.charts.theme import theme
from pipeline.language.fmt import Formatter

# line of validate.window_lines -> (locale key of its legend entry, dash pattern)
SERIES = {
    "iops": ("chart.pts_iops", [1, 0]),
    "mean": ("chart.pts_mean", [1, 0]),
    "slope": ("chart.pts_slope", [6, 3]),
    "plus10": ("chart.pts_10", [4, 2]),
    "minus10": ("chart.pts_10", [4, 2]),
    "plus20": ("chart.pts_20", [1, 3]),
    "minus20": ("chart.pts_20", [1, 3]),
}


def steady_chart(lines: pl.DataFrame, fmt: Formatter, title: str) -> alt.TopLevelMixin:
    """``lines``: validate.window_lines of one point; ``title`` names the point."""
    labels = {line: fmt.t(key) for line, (key, _) in SERIES.items()}
    order = list(dict.fromkeys(labels.values()))
    data = lines.with_columns(
        pl.col("line").replace_strict(labels, return_dtype=pl.String).alias("series")
    )
    style = theme()
    colours = [style.vendor_colour, *style.fallback_colours][: len(order)]
    dashes = [SERIES[next(k for k in SERIES if labels[k] == o)][1] for o in order]
    encode = {
        "x": alt.X("round:Q", title=fmt.t("chart.pts_round"), axis=alt.Axis(format="d")),
        "y": alt.Y("value:Q", title=fmt.t("chart.iops"), axis=alt.Axis(format=",d")),
    }
    drawn = (
        alt.Chart(data)
        .mark_line(strokeWidth=style.line_width)
        .encode(
            **encode,
            detail=alt.Detail("line:N"),
            color=alt.Color("series:N", title=None, scale=alt.Scale(domain=order, range=colours)),
            strokeDash=alt.StrokeDash(  # one legend: colour and dash of each series
                "series:N", title=None, scale=alt.Scale(domain=order, range=dashes)
            ),
        )
    )
    rounds = alt.Chart(data.filter(pl.col("line") == "iops")).mark_point(filled=True)
    layered = alt.layer(drawn, rounds.encode(**encode)).properties(width=520, height=220)
    config = {**style.vega_config(), "locale": {"number": fmt.d3_locale()}}
    done: alt.TopLevelMixin = layered.properties(title=title).configure(**config)
    return done
