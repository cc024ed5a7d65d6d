"""Everything the output stages need for one report, in one place: the dataset, the tables
of the registry, which of them are shown and how, the chart plan, and the narrative filled
once per language."""

from __future__ import annotations

import copy
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

import polars as pl

from pipeline.compute.registry import BY_NAME, ViewKind
from pipeline.compute.tables import PROFILE
from pipeline.config import REPORT_FILE, Presentation, Report, VendorFigure
from pipeline.dataset import Dataset, Spc1Record
from pipeline.errors import InputError, InputErrors
from pipeline.images import Placed
from pipeline.inputs import Seen
from pipeline.language import Formatter, Strings
from pipeline.language.fmt import small_latencies
from pipeline.machine import Machine
from pipeline.provenance import InputFile, inputs
from pipeline.report import econ_views as E
from pipeline.report import views as V
from pipeline.report.attributes import block_names, profile_names, setup_names
from pipeline.report.narrative import Deprecated, Filled, Section, Values, fill
from pipeline.report.plan import COST_CHART, ChartRef, left_out
from pipeline.validate import Problem

ViewFn = Callable[[pl.DataFrame, Report, list[Spc1Record], Formatter], V.TableView]

VendorView = Callable[[pl.DataFrame, Sequence[VendorFigure], Formatter, str], V.TableView]

# the view kinds that show report.toml's [[vendor_figures]] beside their cells
VENDOR_VIEWS: dict[ViewKind, VendorView] = {
    "rate_grid": V.performance_view,
    "latency_grid": V.min_latency_view,
}


def _with_figures(view: VendorView) -> ViewFn:
    return lambda t, r, _, f: view(t, r.vendor_figures, f, r.system.vendor)


def _without_figures(view: VendorView) -> Callable[[pl.DataFrame, Formatter], V.TableView]:
    return lambda t, f: view(t, [], f, "")


# the view kinds of compute/registry.py: how each kind of table becomes rows of cells
VIEWS: dict[ViewKind, ViewFn] = {
    **{kind: _with_figures(view) for kind, view in VENDOR_VIEWS.items()},
    "limit_grid": lambda t, r, _, f: V.iops_at_latency_view(t, f),
    "key_figures": lambda t, r, _, f: V.key_figures_view(t, f),
    "cost": lambda t, r, _, f: E.cost_view(t, r, f),
    "footprint": lambda t, r, _, f: E.footprint_view(t, r, f),
    "spc1": lambda t, r, s, f: E.spc1_view(t, s, f),
    "sizing": lambda t, r, _, f: E.sizing_view(t, f),
    "speedup": lambda t, r, _, f: E.speedup_view(t, r, f),
}


# the measurement tables' views from a dataset alone (its report's vendor figures are
# not stored with it)
MEASURED: dict[ViewKind, Callable[[pl.DataFrame, Formatter], V.TableView]] = {
    **{kind: _without_figures(view) for kind, view in VENDOR_VIEWS.items()},
    "limit_grid": V.iops_at_latency_view,
    "key_figures": V.key_figures_view,
}


def report_formatter(
    shown: Presentation, lang: str, small: bool = False, points: pl.DataFrame | None = None
) -> Formatter:
    """The formatter of a report (or of the report that wrote a dataset) in ``lang``;
    ``small``: its fastest latency is below 100 µs (``fmt.small_latencies``); ``points``:
    its data, whose block-size splits name their profiles and whose compressibility
    names the setups where it differs between them (``report.attributes``)."""
    strings = Strings(lang, shown.load_generators)
    style = _number_style(shown.number_style, strings("format.locale"))
    setups = shown.setups.get(lang, {})
    if points is None:
        return Formatter(strings, setups, shown.units, style, small)
    fmt = Formatter(strings, setups, shown.units, style, small, block_names(points))
    names = shown.profiles.get(lang, {})  # a named profile's name in this language
    fmt.profile_names = names
    fmt.profiles = {k: names.get(v, v) for k, v in profile_names(points).items()}
    fmt.setups = setup_names(points, fmt)
    timed = points.filter(pl.col("cpu_pct").is_not_null()).group_by(PROFILE).agg("tool")
    fmt.cpu_tools = {tuple(row[:-1]): frozenset(row[-1]) for row in timed.iter_rows()}
    return fmt


def _number_style(style: str, locale: str) -> str | None:
    """The report's number style (``de-CH``) as the locale of the language it is one of
    (a German style for the German documents), else None (the language's own)."""
    ours = style.replace("-", "_")
    return ours if ours.split("_")[0] == locale.split("_")[0] else None


def table_latencies(tables: dict[str, pl.DataFrame]) -> Iterator[float | None]:
    """Every latency of a report's tables (the columns the registry declares in µs)."""
    for name, frame in tables.items():
        columns = BY_NAME[name].columns if name in BY_NAME else ()
        for column in columns:
            if column.unit == "µs" and column.name in frame.columns:
                yield from frame[column.name].to_list()


def measured_views(
    tables: dict[str, pl.DataFrame], shown: list[str], fmt: Formatter
) -> list[V.TableView]:
    """The shown measurement tables of a dataset as the report shows them."""
    return [
        replace(MEASURED[BY_NAME[name].view](tables[BY_NAME[name].frame or name], fmt), name=name)
        for name in shown
    ]


@dataclass
class ReportContext:
    folder: Path
    report: Report
    dataset: Dataset
    tables: dict[str, pl.DataFrame]
    shown: list[str]  # the tables shown, in the registry's order
    narrative: dict[str, dict[str, Section]]
    charts: list[ChartRef] = field(default_factory=list)
    spc1: list[Spc1Record] = field(default_factory=list)
    problems: list[Problem] = field(default_factory=list)
    read: list[tuple[Path, str]] = field(default_factory=list)  # files besides the raw data
    histograms: dict[str, pl.DataFrame] = field(default_factory=dict)  # chart stem -> bins
    machines: list[Machine] = field(default_factory=list)  # what ran the load
    steady: pl.DataFrame = field(default_factory=pl.DataFrame)  # validate.steady_table
    seen: dict[str, Seen] = field(default_factory=dict)  # every file as read (inputs.ledger)
    pictures: dict[str, list[Placed]] = field(default_factory=dict)  # text file -> its images
    empty: list[str] = field(default_factory=list)  # tables left out: no row (no latency)
    not_drawn: list[ChartRef] | None = None  # plan.left_out, planned with ``charts``

    def empty_note(
        self,
        fmt: Formatter,
        sections: Sequence[str] | None = None,
        names: Sequence[str] | None = None,
    ) -> str:
        """The sentence naming the tables left out as they have nothing to print: those of
        ``sections`` a text does not place (a text that places one says it there), or the
        ``names`` given; empty where none."""
        placed = self.placed(fmt.t.lang) if fmt.t.lang in self.filled else set()
        chosen = names if names is not None else [n for n in self.empty if n not in placed]
        captions = [
            self._caption(name, fmt)
            for name in chosen
            if names is not None or sections is None or BY_NAME[name].section in sections
        ]
        # with latencies measured, a table is empty as every point lies above the limit
        timed = self.dataset.points["lat_mean_us"].is_not_null().any()
        key = "table.left_out_limit" if timed else "table.left_out"
        return fmt.t(key, tables="; ".join(captions)) if captions else ""

    def _caption(self, name: str, fmt: Formatter) -> str:
        """A table's caption; the limits its rows have (the report's where it has none)."""
        limits = self.report.latency_limits
        shown = V.limits_text(self.frame(name), fmt, (limits.small_us, limits.large_us))
        return fmt.t(f"table.{name}", limits=shown)

    def unsteady(self, limit: int | None = None) -> list[dict[str, Any]]:
        """The points that are not steady (SNIA PTS), the first ``limit`` of them."""
        if self.steady.is_empty():
            return []
        rows = self.steady.filter(pl.col("verdict") == "not steady")
        return list((rows if limit is None else rows.head(limit)).iter_rows(named=True))

    filled: dict[str, dict[str, Filled]] = field(default_factory=dict)
    _views: dict[str, dict[str, V.TableView]] = field(default_factory=dict, repr=False)
    _inputs: list[InputFile] | None = field(default=None, repr=False)
    _formatters: dict[str, Formatter] = field(default_factory=dict, repr=False)

    def inputs(self) -> list[InputFile]:
        """Every file the build read, with its SHA-256 (hashed once per build: the manifest
        and the appendix of each language list them)."""
        if self._inputs is None:
            self._inputs = inputs(self.folder, self.report, self.dataset, self.read, self.seen)
        return self._inputs

    def formatter(self, lang: str) -> Formatter:
        """The report's formatter in ``lang``: made once per language (its names of block
        sizes, profiles and setups take ≈ 20 polars queries), a copy of it each call (a
        caller may set its own ``small``)."""
        if lang not in self._formatters:
            shown = Presentation.of(self.report)
            made = report_formatter(shown, lang, self.small_latencies(), self.dataset.points)
            self._formatters[lang] = made
        return copy.copy(self._formatters[lang])

    def small_latencies(self) -> bool:
        """The document's fastest latency is below 100 µs: its ms columns print in µs."""
        return small_latencies(table_latencies(self.tables))

    def frame(self, name: str) -> pl.DataFrame:
        """The frame a shown table displays (its own, or the one it declares)."""
        return self.tables[BY_NAME[name].frame or name]

    def views(self, fmt: Formatter) -> dict[str, V.TableView]:
        """Every shown table as a formatted view, in the order of the report (made once per
        language: the tables do not change after prepare)."""
        if fmt.t.lang not in self._views:
            self._views[fmt.t.lang] = {name: self._view(name, fmt) for name in self.shown}
        return self._views[fmt.t.lang]

    def _view(self, name: str, fmt: Formatter) -> V.TableView:
        made = VIEWS[BY_NAME[name].view](self.frame(name), self.report, self.spc1, fmt)
        return replace(made, name=name)  # its label in the documents is the table's

    def left_out(self) -> list[ChartRef]:
        """The charts asked for but not drawn (one value on their axis): named in the text,
        the site, the manifest (planned with the charts where ``prepare`` made this)."""
        if self.not_drawn is None:
            self.not_drawn = left_out(self.report, self.dataset.points, self.folder / REPORT_FILE)
        return self.not_drawn

    def chart_stems(self) -> list[str]:
        return [r.stem for r in self.charts] + ([COST_CHART] if "cost" in self.tables else [])

    def cost_frame(self, lang: str) -> pl.DataFrame:
        """The cost table with each system's label in ``lang`` (for the cost chart)."""
        labels = [c.label[lang] for c in self.report.cost]
        return self.tables["cost"].with_columns(pl.Series("label", labels))

    def fill_narrative(self) -> None:
        """Resolve every placeholder and directive of every language once; an error names
        its file and line."""
        # a table left out as it has nothing to print is placed as the sentence naming it
        placeable = {"table": [*self.shown, *self.empty], "chart": self.chart_stems()}
        placeable["not drawn"] = [ref.stem for ref in self.left_out()]
        problems = []
        for lang, sections in self.narrative.items():
            fmt = self.formatter(lang)
            values = Values(self.tables, fmt, placeable, self.report, self.dataset.points)
            self.filled[lang] = {}
            for name, section in sections.items():
                try:
                    self.filled[lang][name] = fill(section, values)
                except InputError as err:
                    problems.append(err)
        if problems:
            raise InputErrors(problems)

    def deprecated(self) -> list[Deprecated]:
        """Every renamed placeholder name the narrative still uses (a warning each; an
        error with ``--strict``)."""
        return [
            d for sections in self.filled.values() for f in sections.values() for d in f.deprecated
        ]

    def placed(self, lang: str) -> set[str]:
        """Every table and chart a directive of this language's narrative places."""
        return {name for f in self.filled[lang].values() for _, name in f.placed}
