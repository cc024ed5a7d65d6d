"""Everything a build reads, read once: the report, its texts, data and records, into
the context the output stages write from."""

from __future__ import annotations

from pathlib import Path

from pipeline import images
from pipeline.compute import registry
from pipeline.config import LANGS, REPORT_FILE, Edition
from pipeline.dataset.sources import SPC1_CATALOGUE
from pipeline.errors import InputError, InputErrors
from pipeline.images import Placed
from pipeline.inputs import Seen, hard_links, ledger
from pipeline.report import chapters
from pipeline.report.context import ReportContext
from pipeline.report.plan import chart_plan
from pipeline.report.read import ReportInputs, read_report
from pipeline.validate import steady_table, validate


def prepare(
    folder: Path, keep_going: bool = False, edition: Edition | None = None
) -> ReportContext:
    """Everything a build reads, read once (``report.read``), computed and filled, ready to
    write. Each file is hashed as it is read, inside the folder (``inputs.ledger``);
    ``edition`` in place of report.toml's (``--edition``)."""
    with ledger(folder, SPC1_CATALOGUE) as book:
        ctx = context(read_report(folder, keep_going, edition), book.seen)
        ctx.fill_narrative()
        _check_texts(ctx)
        ctx.dataset.notes += hard_links(folder, book.seen)
        ctx.inputs()  # every file read, listed with its hash (the ledger's)
    return ctx


def context(given: ReportInputs, seen: dict[str, Seen]) -> ReportContext:
    """The report's tables, chart plan and validation, computed from what was read."""
    report, dataset = given.report, given.dataset
    inputs = registry.Inputs(dataset.points, report, list(given.spc1))
    tables = registry.compute_all(inputs)
    plan = chart_plan(report, dataset.points, given.folder / REPORT_FILE)
    bins = {r.stem: given.bins[r.source or "", r.job] for r in plan if r.kind == "histogram"}
    return ReportContext(
        given.folder,
        report,
        dataset,
        tables,
        registry.shown(inputs, tables),
        {lang: dict(sections) for lang, sections in given.texts.items()},
        plan,
        list(given.spc1),
        validate(dataset, report),
        read=list(given.read),
        histograms=bins,
        machines=list(given.machines),
        steady=steady_table(dataset.intervals),
        seen=seen,
    )


def _check_texts(ctx: ReportContext) -> None:
    """The chapters leave out nothing the report holds, and every image of the texts is
    there and sound (read now, with the other inputs)."""
    placed = set().union(*(ctx.placed(lang) for lang in LANGS))
    problems = chapters.unlisted(ctx.report, ctx.shown, ctx.chart_stems(), placed)
    problems += chapters.own_texts(ctx.report, ctx.folder, ctx.narrative)
    problems += read_images(ctx)
    if problems:
        raise InputErrors(problems)


def read_images(ctx: ReportContext) -> list[InputError]:
    """Every image of every filled text into ``ctx.pictures`` (by text file) and the files
    read into ``ctx.read``; the problems found, each naming the text file and line."""
    from pipeline.render.pictures import file_name, line_of
    from pipeline.render.sanitize import image_refs, prefetch

    # pandoc parses every text at once (a process each, on a pool), not one after another
    prefetch([(t.text, t.path) for f in ctx.filled.values() for t in f.values()], ("json",))
    problems: list[InputError] = []
    seen: dict[str, images.Picture] = {}  # each file read and checked once a build
    for lang, filled in ctx.filled.items():
        for name, text in filled.items():
            source = ctx.narrative[lang][name].text
            found: list[Placed] = []
            for ref in image_refs(text.text, text.path):
                place = f"line {line_of(source, ref.url)}"
                try:
                    if ref.problem:
                        raise InputError(text.path, place, ref.problem, ref.hint)
                    placed = sum(len(f) for f in ctx.pictures.values()) + len(found)
                    if placed >= images.MAX_PLACED:  # each goes into every PDF and the site
                        too_many = f"more than {images.MAX_PLACED} images placed in the texts"
                        return [*problems, InputError(text.path, place, too_many, images.HINT)]
                    picture = seen.get(ref.url) or images.read(
                        ctx.folder, ref.url, text.path, place
                    )
                    seen[ref.url] = picture
                except InputError as err:
                    problems.append(err)
                    continue
                found.append(Placed(ref.caption, ref.alt, file_name(picture), picture))
                ctx.read.append((ctx.folder / ref.url, "image"))
            ctx.pictures[str(text.path)] = found
    return problems
