"""Everything a build reads, read once: the report, its texts, data and records, into
the context the output stages write from."""

from __future__ import annotations

from pathlib import Path

import polars as pl

from pipeline.compute import registry
from pipeline.config import LANGS, REPORT_FILE, Report, load_report, provenance_files
from pipeline.dataset.sources import (
    SPC1_CATALOGUE,
    latency_bins,
    read_sources,
    spc1_files,
    spc1_records,
)
from pipeline.errors import InputError, InputErrors
from pipeline.inputs import hard_links, ledger
from pipeline.machine import load_machine
from pipeline.report import chapters, narrative
from pipeline.report.context import ReportContext
from pipeline.report.plan import ChartRef, chart_plan
from pipeline.validate import steady_table, validate


def prepare(folder: Path, keep_going: bool = False) -> ReportContext:
    """Everything a build reads, read once: the report, its texts and data, ready to
    write. Each file is hashed as it is read, inside the folder (``inputs.ledger``)."""
    with ledger(folder, SPC1_CATALOGUE) as book:
        ctx = _prepare(folder, keep_going)
        ctx.seen = book.seen
        ctx.dataset.notes += hard_links(folder, book.seen)
        ctx.inputs()  # the files only listed (method files) are read now, inside too
    return ctx


def _prepare(folder: Path, keep_going: bool = False) -> ReportContext:
    report = load_report(folder)
    registry.check_names(report, folder / REPORT_FILE)
    texts = narrative.load(folder, chapters.texts(report))
    dataset = read_sources(folder, report, keep_going)
    if dataset.points.is_empty():
        raise InputError(
            folder,
            "sources",
            "no record was accepted from the raw files",
            "see the rejected records listed above",
        )
    records = spc1_records(folder, report)
    inputs = registry.Inputs(dataset.points, report, records)
    tables = registry.compute_all(inputs)
    plan = chart_plan(report, dataset.points, folder / REPORT_FILE)
    ctx = ReportContext(
        folder,
        report,
        dataset,
        tables,
        registry.shown(inputs, tables),
        texts,
        plan,
        records,
        validate(dataset, report),
        histograms=histograms(folder, plan),
        steady=steady_table(dataset.intervals),
    )
    ctx.read = files_read(folder, report, texts)
    found = provenance_files(folder, report)
    ctx.machines = [load_machine(p) for p in found["machines"]]
    ctx.read += [(p, key) for key in ("machines", "method") for p in found[key]]
    ctx.fill_narrative()
    _check_texts(ctx)
    return ctx


def _check_texts(ctx: ReportContext) -> None:
    """The chapters leave out nothing the report holds, and every image of the texts is
    there and sound (read now, with the other inputs)."""
    from pipeline.render import pictures

    placed = set().union(*(ctx.placed(lang) for lang in LANGS))
    problems = chapters.unlisted(ctx.report, ctx.shown, ctx.chart_stems(), placed)
    problems += chapters.own_texts(ctx.report, ctx.folder, ctx.narrative)
    problems += pictures.read_all(ctx)
    if problems:
        raise InputErrors(problems)


def histograms(folder: Path, plan: list[ChartRef]) -> dict[str, pl.DataFrame]:
    """The latency bins of every histogram chart, read now with the other inputs."""
    return {
        ref.stem: latency_bins(folder / (ref.source or ""), ref.job)
        for ref in plan
        if ref.kind == "histogram"
    }


def files_read(
    folder: Path, report: Report, texts: dict[str, dict[str, narrative.Section]]
) -> list[tuple[Path, str]]:
    """The files besides the raw data that a build reads (for the provenance table)."""
    found = [(folder / REPORT_FILE, "report")]
    found += [(s.path, "narrative") for sections in texts.values() for s in sections.values()]
    found += [(path, "SPC-1") for path in spc1_files(folder, report)]
    found += [(folder / c.source, "chart") for c in report.charts or [] if c.source]
    return found
