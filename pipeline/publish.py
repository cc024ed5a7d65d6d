"""Outputs beside one report's build: the datasheets alone, several reports with one
site listing them all."""

from __future__ import annotations

import contextlib
import os
import tempfile
from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path

from pipeline.build import BuildResult, Step, build, draw_charts, draw_compare
from pipeline.config import REPORT_FILE
from pipeline.dataset.sources import load_report
from pipeline.errors import InputError
from pipeline.output import MARK, check_target, lock, mark_text, scratch, staging, writing
from pipeline.paths import TEMPLATES
from pipeline.prepare import prepare


def write_datasheets(folder: Path, out: Path) -> list[Path]:
    """Only the datasheets, into ``out`` (made atomically: a failure leaves it untouched)."""
    from pipeline.render import datasheet

    out = check_target(out, folder, "datasheet")
    ctx = prepare(folder)
    with lock(out), writing(out), _datasheet_scratch(out) as tmp:
        ref = datasheet.chart(ctx)
        draw_charts(ctx, [ref] if ref else [], Path(tmp), whole=False).wait()
        written = datasheet.write(ctx, Path(tmp), TEMPLATES / "typst")
        final = [out / p.name for p in written]
        for src, dst in zip(written, final, strict=True):
            os.replace(src, dst)
    return final


@contextlib.contextmanager
def _datasheet_scratch(out: Path) -> Iterator[str]:
    out.mkdir(parents=True, exist_ok=True)
    if not (out / MARK).is_file():  # a build's output keeps its own mark
        (out / MARK).write_text(mark_text("datasheet"), encoding="utf-8")
    with tempfile.TemporaryDirectory(dir=out, prefix=".datasheet-") as tmp:
        yield tmp


SITE = "site"  # the folder of ``iopress site``'s output that holds the combined site


def build_many(
    folders: list[Path], out: Path, step: Step | None = None, site_url: str | None = None
) -> list[BuildResult]:
    """Each report into ``out/<id>/``, and one site listing them all into ``out/site``
    (published at ``site_url``, if given)."""
    out = check_target(out, kind="site")
    for folder in folders:
        check_target(out, folder)
    ids = [load_report(folder).id for folder in folders]
    if len(set(ids)) != len(ids):
        raise InputError(out, "", "two reports have the same id", "give each report its own id")
    for folder, rid in zip(folders, ids, strict=True):
        if rid == SITE:  # out/site is the site's: the report's build there was replaced
            raise InputError(
                folder / REPORT_FILE,
                "id",
                f"a report of a site may not be called {SITE!r}: the site is written there",
                "give the report another id",
            )
    # all of it or nothing: a report that fails after others were built left them new
    # beside the old site; the whole folder is made aside and swapped in at the end
    with staging(out, "site") as work:
        pairs = zip(folders, ids, strict=True)
        results = [build(folder, work / rid, step) for folder, rid in pairs]
        write_combined_site(results, work / SITE, site_url)
    return [replace(r, out=out / r.out.name) for r in results]


def write_combined_site(
    results: list[BuildResult], target: Path, site_url: str | None = None
) -> None:
    """One site listing the built reports ``results`` (each with its PDFs), into ``target``."""
    from pipeline.render import site

    with staging(target, "site") as work, scratch(target) as tmp:
        # mkdocs empties its site folder first, but keeps dot files such as the mark
        built = [site.Built(r.ctx, r.out) for r in results]
        site.build_site(built, tmp / "docs", work, draw_compare, site_url)
        site.fill(built, work)
