"""Everything a build reads, read once: the report, its texts, data and records, into
the context the output stages write from."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import replace
from pathlib import Path

import polars as pl

from pipeline import images
from pipeline.compute import registry
from pipeline.config import LANGS, REPORT_FILE, Edition
from pipeline.dataset.sources import SPC1_CATALOGUE
from pipeline.errors import InputError, InputErrors
from pipeline.images import Picture, Placed
from pipeline.inputs import Seen, hard_links, ledger, read_text
from pipeline.report import chapters
from pipeline.report.context import VENDOR_VIEWS, ReportContext
from pipeline.report.narrative import Section
from pipeline.report.plan import plan
from pipeline.report.read import ReportInputs, Texts, read_report
from pipeline.report.views import vendor_problems
from pipeline.validate import steady_table, validate

Pictures = Mapping[tuple[str, str], Picture | InputError]  # ReportInputs.pictures


def prepare(
    folder: Path, keep_going: bool = False, edition: Edition | None = None
) -> ReportContext:
    """Everything a build reads, read once (``read_inputs``), computed and filled, ready
    to write. Each file is hashed as it is read, inside the folder (``inputs.ledger``);
    ``edition`` in place of report.toml's (``--edition``)."""
    with ledger(folder, SPC1_CATALOGUE) as book:
        given = read_inputs(folder, keep_going, edition)
        ctx = context(given, book.seen)
        broken = _broken_links(ctx)  # before filling: the lines of the texts as written
        if broken:
            raise InputErrors(broken)
        ctx.fill_narrative()
        _check_texts(ctx, given.pictures)
        ctx.dataset.notes += hard_links(folder, book.seen)
        ctx.inputs()  # every file read, listed with its hash (the ledger's)
    return ctx


def measured(folder: Path) -> ReportInputs:
    """What a comparison reads of a report folder: its settings and data, read as a build
    reads them (inside the folder, hashed), its texts neither filled nor checked (a new
    run without a profile that a sentence quotes is still compared, not refused)."""
    with ledger(folder, SPC1_CATALOGUE):
        return read_report(folder)


def read_inputs(
    folder: Path, keep_going: bool = False, edition: Edition | None = None
) -> ReportInputs:
    """Every input of the report (``report.read``) and the images its texts name, read
    before anything is computed."""
    given = read_report(folder, keep_going, edition)
    return replace(given, pictures=read_pictures(folder, given.texts))


def read_pictures(folder: Path, texts: Texts) -> dict[tuple[str, str], Picture | InputError]:
    """Every image of the texts as written (a placeholder makes no image's path: the
    filled text places the same), by (text file, path), each file read and checked once;
    one that cannot be read is kept as its error, said where a filled text places it."""
    from pipeline.render.pictures import line_of

    found: dict[tuple[str, str], Picture | InputError] = {}
    read: dict[str, Picture] = {}
    for section in (s for sections in texts.values() for s in sections.values()):
        for url in _image_paths(section):
            if len(read) >= images.MAX_PLACED:  # more are refused once placed
                return found
            place = f"line {line_of(section.text, url)}"
            try:
                read[url] = read.get(url) or images.read(folder, url, section.path, place)
                found[str(section.path), url] = read[url]
            except InputError as err:
                found[str(section.path), url] = err
    return found


def _image_paths(section: Section) -> list[str]:
    """The paths of a text's images as written; none where its Markdown is refused (the
    filled text says why)."""
    from pipeline.render.sanitize import image_refs

    if "![" not in section.text:  # no image without its mark
        return []
    try:
        return list(dict.fromkeys(ref.url for ref in image_refs(section.text, section.path)))
    except InputError:
        return []


def context(given: ReportInputs, seen: dict[str, Seen]) -> ReportContext:
    """The report's tables, chart plan and validation, computed from what was read."""
    report, dataset = given.report, given.dataset
    inputs = registry.Inputs(dataset.points, report, list(given.spc1))
    tables = registry.compute_all(inputs)
    charts, not_drawn = plan(report, dataset.points, given.folder / REPORT_FILE)
    shown = registry.shown(inputs, tables)
    _check_vendor_figures(given, tables, shown)
    bins = {r.stem: given.bins[r.source or "", r.job] for r in charts if r.kind == "histogram"}
    return ReportContext(
        given.folder,
        report,
        dataset,
        tables,
        shown,
        {lang: dict(sections) for lang, sections in given.texts.items()},
        charts,
        list(given.spc1),
        validate(dataset, report),
        read=list(given.read),
        histograms=bins,
        machines=list(given.machines),
        steady=steady_table(dataset.intervals),
        seen=seen,
        empty=registry.left_out(inputs, tables),
        not_drawn=not_drawn,
    )


def _check_vendor_figures(
    given: ReportInputs, tables: Mapping[str, pl.DataFrame], shown: list[str]
) -> None:
    """Each vendor figure stands beside a row of a table the report shows."""
    figures, where = given.report.vendor_figures, given.folder / REPORT_FILE
    if not figures:
        return
    grids = {kind: registry.view_rows(tables, shown, kind) for kind in VENDOR_VIEWS}
    problems = vendor_problems(figures, grids, where, read_text(where))
    if problems:
        raise InputErrors(problems)


def _check_texts(ctx: ReportContext, pictures: Pictures) -> None:
    """The chapters leave out nothing the report holds, and every image of the filled
    texts is there and sound (read with the other inputs: ``pictures``)."""
    placed = set().union(*(ctx.placed(lang) for lang in LANGS))
    problems = chapters.unlisted(ctx.report, ctx.shown, ctx.chart_stems(), placed)
    problems += chapters.own_texts(ctx.report, ctx.folder, ctx.narrative)
    problems += place_images(ctx, pictures)
    problems += _pixels(ctx)
    if problems:
        raise InputErrors(problems)


def _pixels(ctx: ReportContext) -> list[InputError]:
    """Each language's distinct images together within ``images.MAX_DOCUMENT_PIXELS``:
    typst keeps every image of a PDF decoded, and both PDFs compile at once (100 flat
    PNGs of 40 megapixels, 13 MB of files, took 12 GB of memory)."""
    problems = []
    for lang in LANGS:
        texts = [str(t.path) for t in ctx.filled.get(lang, {}).values()]
        distinct = {p.picture.data: p.picture for t in texts for p in ctx.pictures.get(t, [])}
        pixels = sum(p.width * p.height for p in distinct.values())
        if pixels > images.MAX_DOCUMENT_PIXELS:
            why = (
                f"the images of the {lang} texts hold {pixels / 1e6:,.0f} megapixels together "
                f"(at most {images.MAX_DOCUMENT_PIXELS / 1e6:,.0f}: each PDF keeps them decoded)"
            )
            problems.append(InputError(texts[0], "", why, images.SCALE_HINT))
    return problems


def _broken_links(ctx: ReportContext) -> list[InputError]:
    """Links to no heading of their text, or of the chapter's text they name
    (``method.md#warm-up``), found in the texts as written (their lines)."""
    from pipeline.render.sanitize import chapter_link_problems, link_problem

    found: list[InputError] = []
    for by_name in ctx.narrative.values():
        texts = {Path(s.path).stem: (s.text, s.path) for s in by_name.values()}
        for s in by_name.values():
            own = link_problem(s.text, s.path)
            found += [own] if own else chapter_link_problems(s.text, s.path, texts)
    return found


def place_images(ctx: ReportContext, pictures: Pictures) -> list[InputError]:
    """Every image of every filled text into ``ctx.pictures`` (by text file) and the files
    placed into ``ctx.read``; the problems found, each naming the text file and line."""
    from pipeline.render.pictures import file_name, line_of
    from pipeline.render.sanitize import image_refs, prefetch

    # pandoc parses every text at once (a process each, on a pool), not one after another
    prefetch([(t.text, t.path) for f in ctx.filled.values() for t in f.values()], ("json",))
    problems: list[InputError] = []
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
                    picture = _picture(pictures, text.path, ref.url, place)
                except InputError as err:
                    problems.append(err)
                    continue
                found.append(Placed(ref.caption, ref.alt, file_name(picture), picture))
                ctx.read.append((ctx.folder / ref.url, "image"))
            ctx.pictures[str(text.path)] = found
    return problems


def _picture(pictures: Pictures, text: Path, url: str, place: str) -> Picture:
    """The image ``url`` of ``text`` as read with the inputs, or why it cannot be."""
    found = pictures.get((str(text), url))
    if isinstance(found, InputError):
        raise found
    if found is None:
        raise InputError(
            text,
            place,
            f"image {url!r} is not in the text as written (a placeholder makes its path)",
            "write the image's path itself, outside any {{ … }} or {% … %}",
        )
    return found
