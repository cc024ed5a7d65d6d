"""Everything the render stage needs for one report, in one place."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

import polars as pl

from pipeline.config import Report
from pipeline.dataset import Dataset
from pipeline.render.fmt import Formatter
from pipeline.render.locale import Strings
from pipeline.render.narrative import Section
from pipeline.render.views import TableView, min_latency_view, performance_view


@dataclass(frozen=True)
class ChartRef:
    """One chart of the report: which points it shows and where its files are."""

    stem: str
    access: str
    block_size: int
    setup: str


@dataclass
class ReportContext:
    folder: Path
    report: Report
    dataset: Dataset
    tables: dict[str, pl.DataFrame]
    narrative: dict[str, dict[str, Section]]
    charts: list[ChartRef] = field(default_factory=list)

    def formatter(self, lang: str) -> Formatter:
        return Formatter(Strings(lang))

    def views(self, fmt: Formatter) -> list[TableView]:
        figures, vendor = self.report.vendor_figures, self.report.system.vendor
        return [
            performance_view(self.tables["performance"], figures, fmt, vendor),
            min_latency_view(self.tables["min_latency"], figures, fmt, vendor),
        ]


def chart_refs(points: pl.DataFrame) -> list[ChartRef]:
    """One standard chart per setup × access × block size, in report order."""
    keys = (
        points.select("setup", "access", "block_size")
        .unique()
        .sort("setup", "access", "block_size")
    )
    several = keys["setup"].n_unique() > 1
    refs = []
    for setup, access, block in keys.iter_rows():
        slug = f"_{_slug(setup)}" if several else ""
        refs.append(ChartRef(f"standard{slug}_{access}_{block // 1024}k", access, block, setup))
    return refs


def _slug(text: str) -> str:
    return "".join(c if c.isalnum() else "-" for c in text.lower()).strip("-")
