"""Line styles (solid, dashed, dotted) and the legend that says what each means.

Vega-Lite draws the legend of a line with a filled point overlay as filled circles with
no stroke, whatever the dash: "reads solid, writes dashed" would be three black dots. So a
styled line is drawn as two layers, the line (dashed by the style, its legend a stroke of
that dash) and its points (no dash: they add no legend of their own)."""

from __future__ import annotations

from typing import Any

import altair as alt

from pipeline.charts.theme import theme

DASHES = {"solid": [1, 0], "dashed": [6, 4], "dotted": [2, 3]}
LEGEND_STROKE = 22  # px: a legend entry's stroke, long enough to show two dashes
LEGEND_GAP = 12  # px around the style legend
LEGEND_INK = "#333333"  # the strokes of the style legend: the styles, not a colour


def dash_legend() -> alt.Legend:
    """The legend of a line style: a stroke in its dash pattern."""
    return alt.Legend(
        symbolType="stroke",
        symbolSize=LEGEND_STROKE**2,  # Vega: a stroke symbol's length is √size
        symbolStrokeWidth=theme().line_width,
        symbolStrokeColor=LEGEND_INK,
        padding=LEGEND_GAP,  # apart from the colour legend beside it, whose labels run long
    )


def styles(field: str, labels: list[str], dashes: list[str]) -> alt.StrokeDash:
    """The line style of each of ``labels`` (solid, dashed, dotted) in ``field``, one
    legend entry each: a chart with two line styles says what each means."""
    return alt.StrokeDash(
        f"{field}:N",
        title=None,
        sort=labels,
        scale=alt.Scale(domain=labels, range=[DASHES[d] for d in dashes]),
        legend=dash_legend(),
    )


def styled_lines(
    base: alt.Chart, dash: alt.StrokeDash, filled: bool = True, **line: Any
) -> alt.LayerChart:
    """``base`` (data and encoding) as lines in the styles of ``dash`` with their points
    (``filled`` or hollow); ``line``: more properties of the line mark."""
    style = theme()
    lines = base.mark_line(strokeWidth=style.line_width, **line).encode(strokeDash=dash)
    points = base.mark_point(filled=filled, size=style.point_size, opacity=1)
    return alt.LayerChart(layer=[lines, points])
