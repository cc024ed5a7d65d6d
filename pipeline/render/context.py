"""Everything the render stage needs for one report, in one place."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

import polars as pl

from pipeline.config import Report
from pipeline.dataset import Dataset
from pipeline.ingest.spc1 import Spc1Record
from pipeline.render import econ_views as E
from pipeline.render.fmt import Formatter
from pipeline.render.locale import Strings
from pipeline.render.narrative import Section
from pipeline.render.plan import ChartRef
from pipeline.render.views import (
    TableView,
    iops_at_latency_view,
    key_figures_view,
    min_latency_view,
    performance_view,
)
from pipeline.validate import Problem


@dataclass
class ReportContext:
    folder: Path
    report: Report
    dataset: Dataset
    tables: dict[str, pl.DataFrame]
    narrative: dict[str, dict[str, Section]]
    charts: list[ChartRef] = field(default_factory=list)
    spc1: list[Spc1Record] = field(default_factory=list)
    problems: list[Problem] = field(default_factory=list)
    read: list[tuple[Path, str]] = field(default_factory=list)  # files besides the raw data
    _views: dict[str, dict[str, TableView]] = field(default_factory=dict, repr=False)

    def formatter(self, lang: str) -> Formatter:
        setups = {s.name: s.description[lang] for s in self.report.setups}
        return Formatter(Strings(lang), setups, self.report.units)

    def views(self, fmt: Formatter) -> dict[str, TableView]:
        """Every table of the report as a formatted view, in the order of the report (made
        once per language: the tables do not change after prepare)."""
        if fmt.t.lang not in self._views:
            self._views[fmt.t.lang] = self._make_views(fmt)
        return self._views[fmt.t.lang]

    def _make_views(self, fmt: Formatter) -> dict[str, TableView]:
        figures, vendor = self.report.vendor_figures, self.report.system.vendor
        makers: dict[str, Callable[[], TableView]] = {
            "performance": lambda: performance_view(
                self.tables["performance"], figures, fmt, vendor
            ),
            "key_figures": lambda: key_figures_view(self.tables["performance"], fmt),
            "min_latency": lambda: min_latency_view(
                self.tables["min_latency"], figures, fmt, vendor
            ),
            "iops_at_latency": lambda: iops_at_latency_view(self.tables["iops_at_latency"], fmt),
        }
        chosen = {name: make() for name, make in makers.items() if name in self.shown_tables()}
        return chosen | econ_views(self, fmt)

    def shown_tables(self) -> list[str]:
        """The measurement tables the report shows: declared, or by default seed 000's two and
        the I/O rate at the latency limit, plus seed 004's key figures with several setups."""
        if self.report.tables is not None:
            return list(self.report.tables)
        several = self.dataset.points["setup"].n_unique() > 1
        return [
            "performance",
            *(["key_figures"] if several else []),
            "min_latency",
            "iops_at_latency",
        ]


def econ_views(ctx: ReportContext, fmt: Formatter) -> dict[str, TableView]:
    t, r = ctx.tables, ctx.report
    makers: dict[str, Callable[[], TableView]] = {
        "cost": lambda: E.cost_view(t["cost"], r, fmt),
        "footprint": lambda: E.footprint_view(t["footprint"], r, fmt),
        "spc1": lambda: E.spc1_view(t["spc1"], ctx.spc1, fmt),
        "spc1_sizing": lambda: E.sizing_view(t["spc1_sizing"], fmt),
        "speedup": lambda: E.speedup_view(t["speedup"], r, fmt),
    }
    return {name: make() for name, make in makers.items() if name in t}
