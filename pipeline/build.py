"""The whole chain for one report folder: ingest, normalise, compute, charts, PDFs, site.

The output stages import their modules (altair, typst, mkdocs …) when they run, so a
build refused for its input answers before paying for them.

Output is built in a temporary folder beside the target and moved into place only when
everything succeeded, so a failed build never replaces a good earlier one.
"""

from __future__ import annotations

import datetime as dt
import shutil
from collections.abc import Callable, Iterator
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

import polars as pl

from pipeline import provenance
from pipeline.compute.compare import Settings
from pipeline.config import (
    LANGS,
    Edition,
    Presentation,
)
from pipeline.csvfile import write_csv
from pipeline.dataset import HIVE, Dataset, write, write_hive
from pipeline.errors import InputError, InputErrors
from pipeline.language.fmt import Formatter
from pipeline.output import check_target, scratch, staging
from pipeline.paths import TEMPLATES, TOOL
from pipeline.prepare import prepare
from pipeline.report.context import ReportContext
from pipeline.report.plan import COST_CHART, MAX_PTS_CHARTS, PTS_CHART, ChartRef
from pipeline.validate import (
    as_frame,
    message,
    point_name,
    point_rounds,
    rounds,
    where,
    window_lines,
)

Step = Callable[[str], None]

if TYPE_CHECKING:
    from pipeline.charts.export import Pending


@dataclass(frozen=True)
class BuildResult:
    out: Path
    dataset: Dataset
    ctx: ReportContext


def write_data(ctx: ReportContext, work: Path) -> None:
    from pipeline.render import workbook

    stored = Settings.of(ctx.report).stored()
    write(ctx.dataset, work / "dataset.parquet", stored, Presentation.of(ctx.report))
    write_hive(ctx.dataset, work / HIVE, ctx.report.id)
    (work / "tables").mkdir()
    for name, table in ctx.tables.items():
        write_csv(table, work / "tables" / f"{name}.csv")
    workbook.write(ctx, work / "tables" / "tables.xlsx")
    write_csv(ctx.dataset.rejects_frame(), work / "rejects.csv")
    write_csv(as_frame(ctx.problems, ctx.formatter(TOOL)), work / "validation.csv")
    write_csv(ctx.steady, work / "steady_state.csv")
    write_csv(provenance.table(ctx.inputs()), work / "inputs.csv")
    from pipeline import manifest

    manifest.write(ctx, work / "manifest.json")


def start_charts(ctx: ReportContext, work: Path) -> Pending:
    """Start drawing every chart of the plan (and the cost chart) in both languages."""
    return draw_charts(ctx, ctx.charts, work, whole=True)


def draw_charts(ctx: ReportContext, refs: list[ChartRef], work: Path, whole: bool) -> Pending:
    """``refs`` in both languages into ``work/charts``; with ``whole`` also the charts of
    the whole report beyond its plan (the cost chart, the PTS measurement windows). Each
    chart goes to Vega as soon as it is specified: the first one starts its engine."""
    from pipeline.charts.export import start_saving

    (work / "charts").mkdir()
    return start_saving(_chart_jobs(ctx, refs, work, whole))


def _chart_jobs(
    ctx: ReportContext, refs: list[ChartRef], work: Path, whole: bool
) -> Iterator[tuple[Any, Path, Formatter, tuple[str, ...]]]:
    from pipeline.charts import CHARTS
    from pipeline.charts.draw import draw
    from pipeline.charts.export import KINDS

    for lang in LANGS:
        fmt = ctx.formatter(lang)
        for ref in refs:
            chart = draw(ref, ctx.dataset.points, ctx.histograms.get(ref.stem), fmt)
            yield chart, work / "charts" / f"{ref.stem}.{lang}", fmt, KINDS
        if whole and "cost" in ctx.tables:
            chart = CHARTS["cost"](ctx.cost_frame(lang), fmt)
            yield chart, work / "charts" / f"{COST_CHART}.{lang}", fmt, KINDS
        if whole:
            yield from _steady_charts(ctx, work, fmt)


def _steady_charts(ctx: ReportContext, work: Path, fmt: Formatter) -> list[Any]:
    """The PTS measurement-window chart of the first points that are not steady."""
    from pipeline.charts.export import KINDS
    from pipeline.charts.steady import steady_chart

    unsteady = ctx.unsteady(MAX_PTS_CHARTS)
    if not unsteady:
        return []
    jobs, found = [], rounds(ctx.dataset.intervals)
    for i, row in enumerate(unsteady, 1):
        lines = window_lines(point_rounds(found, row), row)
        title = fmt.t("chart.pts_title", point=point_name(row, fmt))
        path = work / "charts" / f"{PTS_CHART}-{i}.{fmt.t.lang}"
        jobs.append((steady_chart(lines, fmt, title), path, fmt, KINDS))
    return jobs


def write_sources(ctx: ReportContext, work: Path) -> list[Path]:
    """The typst sources of the whitepapers and the datasheets, in both languages."""
    from pipeline.render import datasheet, whitepaper
    from pipeline.render.typst_doc import TEMPLATE_NAME

    shutil.copy(TEMPLATES / "typst" / TEMPLATE_NAME, work / TEMPLATE_NAME)
    sources = []
    for lang in LANGS:
        source = work / f"{ctx.report.id}.{lang}.typ"
        source.write_text(whitepaper.body(ctx, lang), encoding="utf-8")
        sources.append(source)
    return sources + datasheet.sources(ctx, work, TEMPLATES / "typst")


def compile_pdfs(sources: list[Path], work: Path, date: dt.date) -> None:
    """Each source beside it as PDF, on two threads (typst releases the GIL)."""
    from pipeline.render.typst_doc import compile_pdf

    with ThreadPoolExecutor(2, thread_name_prefix="iopress-pdf") as pool:
        done = [pool.submit(compile_pdf, s, s.with_suffix(".pdf"), work, date) for s in sources]
    for future in done:
        future.result()


def draw_compare(points: pl.DataFrame, fmt: Formatter, title: str, stem: Path) -> None:
    """One comparison chart of the site: SVG, and the Vega-Lite spec the page draws."""
    from pipeline.charts.export import save
    from pipeline.charts.family import compare_chart

    written = save(compare_chart(points, fmt, title), stem, fmt, kinds=("svg", "vl.json"))
    written["vl.json"].rename(stem.with_name(f"{stem.name}-spec.json"))


def write_site(ctx: ReportContext, work: Path, url: str | None = None) -> None:
    """The site, with stand-ins for the charts and PDFs still being made (``fill_site``);
    ``url`` the address it is published at (``--site-url``), if known."""
    from pipeline.render import site

    with scratch(work / "site") as tmp:
        built = [site.Built(ctx, work)]
        site.build_site(built, tmp / "docs", work / "site", draw_compare, url)


def fill_site(ctx: ReportContext, work: Path) -> None:
    from pipeline.render import site

    site.fill([site.Built(ctx, work)], work / "site")


STAGES = ("ingest", "charts", "data", "pdf", "site", "finish")


def write_outputs(ctx: ReportContext, work: Path, say: Step, url: str | None = None) -> None:
    """Every output of a build. The charts are drawn beside it (Vega's process) while the data
    files, the document sources and the site are written; the PDFs are compiled once
    their charts are there, and the site gets its charts and PDFs last."""
    from pipeline.render import pictures, sanitize

    say("charts")
    charts = start_charts(ctx, work)
    texts = [(f.text, f.path) for lang in LANGS for f in ctx.filled[lang].values()]
    sanitize.prefetch(texts, ("typst", "html"))
    say("data")
    write_data(ctx, work)
    say("pdf")
    pictures.write(ctx, work)
    sources = write_sources(ctx, work)
    say("site")
    write_site(ctx, work, url)
    say("finish")
    charts.wait()
    compile_pdfs(sources, work, ctx.report.date)
    fill_site(ctx, work)


def refuse(ctx: ReportContext, strict: bool, require_steady: bool = False) -> None:
    """Validation errors always stop the build; with ``strict`` warnings do too (findings
    and deprecated placeholder names), and with ``require_steady`` every point that is not
    judged steady (SNIA PTS)."""
    fatal = [p for p in ctx.problems if p.severity == "error" or strict]
    if require_steady:
        _require_steady(ctx)
    fmt = ctx.formatter(TOOL)  # the report's words (per VM where load came from VMs)
    errors = [
        InputError(
            ctx.folder,
            where(p, fmt),
            message(p, fmt),
            "fix the raw data, or build without --strict to see warnings in the report",
        )
        for p in fatal
    ]
    errors += [d.error() for d in ctx.deprecated()] if strict else []
    if errors:
        raise InputErrors(errors)


def _require_steady(ctx: ReportContext) -> None:
    fmt = ctx.formatter(TOOL)
    rows = ctx.steady.filter(pl.col("verdict") != "steady").iter_rows(named=True)
    found = [
        InputError(
            ctx.folder,
            point_name(row, fmt),
            f"{row['verdict']} (SNIA PTS over the last 5 rounds; {row['rounds']} measured)",
            "measure more or longer rounds, or build without --require-steady",
        )
        for row in rows
    ]
    if found:
        raise InputErrors(found)


def build(
    folder: Path,
    out: Path,
    step: Step | None = None,
    strict: bool = False,
    keep_going: bool = False,
    require_steady: bool = False,
    edition: Edition | None = None,
    site_url: str | None = None,
) -> BuildResult:
    """Build one report into ``out`` (refused unless it is missing, empty or an earlier
    output); a failure leaves the earlier output as it was. ``edition`` in place of
    report.toml's (``--edition``); ``site_url`` the site's address (``--site-url``)."""
    out = check_target(out, folder, "build")
    say = step or (lambda _: None)
    say("ingest")
    ctx = _accepted(folder, keep_going, edition, strict, require_steady)
    with staging(out, "build") as work:
        write_outputs(ctx, work, say, site_url)
    return BuildResult(out, ctx.dataset, ctx)


def _accepted(
    folder: Path, keep_going: bool, edition: Edition | None, strict: bool, require_steady: bool
) -> ReportContext:
    """The report read and accepted, while Vega's process and engine start (≈ 0.8 s, on
    the other core: the charts wait for it, not the reading); a refusal kills it."""
    from pipeline import vlrender

    vlrender.renderer()
    try:
        ctx = prepare(folder, keep_going, edition)
        refuse(ctx, strict, require_steady)
    except BaseException:
        vlrender.stop()
        raise
    return ctx
