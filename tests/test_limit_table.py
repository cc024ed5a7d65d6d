"""The I/O rate at the latency limit is interpolated between two measured points where
the curve crosses the limit: the table says so ("≈", as the narrative's placeholder
prints it), and its CSV keeps whether each figure was measured."""

from __future__ import annotations

import polars as pl

from pipeline.report.context import ReportContext


def _cells(ctx: ReportContext, lang: str) -> list[str]:
    view = ctx.views(ctx.formatter(lang))["iops_at_latency"]
    return [span.text for row in view.rows for cell in row[1:] for span in cell]


def test_an_interpolated_rate_is_marked_and_a_measured_one_is_not(
    fs840_context: ReportContext,
) -> None:
    table = fs840_context.frame("iops_at_latency")
    assert "measured" in table.columns
    interpolated = table.filter(~pl.col("measured")).height
    measured = table.filter(pl.col("measured")).height
    assert interpolated and measured, table
    for lang in ("de", "en"):
        cells = [c for c in _cells(fs840_context, lang) if any(ch.isdigit() for ch in c)]
        assert sum(c.startswith("≈") for c in cells) == interpolated, cells
        assert sum(not c.startswith("≈") for c in cells) == measured, cells
