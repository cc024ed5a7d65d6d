"""Cost development (seed 000 Abbildung 13): price per TB and per 1000 IOPS by system and year."""

from __future__ import annotations

from typing import Any

import altair as alt
import polars as pl

from pipeline.charts.standard import side_by_side
from pipeline.charts.theme import theme
from pipeline.language.fmt import Formatter
from pipeline.report.plan import ChartRef


def _bars(field: str, title: str, labels: list[str], colour: alt.Color) -> alt.Chart:
    chart: alt.Chart = (
        alt.Chart()  # the data is the whole chart's (``side_by_side``)
        .mark_bar()
        .encode(
            x=alt.X("label:N", title=None, sort=labels, axis=alt.Axis(labelAngle=-30)),
            y=alt.Y(f"{field}:Q", title=title, axis=alt.Axis(format=",d")),
            color=colour,
            tooltip=[
                alt.Tooltip("label:N", title=None),
                alt.Tooltip(f"{field}:Q", title=title, format=",.2f"),
            ],
        )
        .properties(width=230, height=190)
    )
    return chart


def cost_chart(
    table: pl.DataFrame, fmt: Formatter, ref: ChartRef | None = None
) -> alt.HConcatChart:
    """``table``: the cost table with a ``label`` column in the report's language."""
    labels = table["label"].to_list()
    systems = table["system"].unique(maintain_order=True).to_list()
    colours = [
        theme().fallback_colours[i % len(theme().fallback_colours)] for i in range(len(systems))
    ]
    colour = alt.Color(
        "system:N", title=None, sort=systems, scale=alt.Scale(domain=systems, range=colours)
    )
    currency = table["currency"][0]
    data = table.select("label", "system", "price_per_tb", "price_per_kiops")
    left = _bars("price_per_tb", fmt.t("chart.cost_per_tb", currency=currency), labels, colour)
    right = _bars(
        "price_per_kiops",
        fmt.t("chart.cost_per_kiops", currency=currency, n=fmt.integer(1000)),
        labels,
        colour,
    )
    config: dict[str, Any] = {**theme().vega_config(), "locale": {"number": fmt.d3_locale()}}
    return side_by_side(data, [left, right], fmt.t("chart.cost_title"), config)
