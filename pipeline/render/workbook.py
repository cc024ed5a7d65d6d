"""The report's tables as one XLSX workbook (a download beside the CSV files)."""

from __future__ import annotations

from pathlib import Path

from pipeline.paths import TOOL
from pipeline.report.context import ReportContext


def write(ctx: ReportContext, path: Path) -> None:
    """Every table as one sheet of an XLSX workbook, dated by the report (reproducible);
    made in memory (xlsxwriter otherwise writes a temporary file per part into TMPDIR).
    A text is a text: xlsxwriter would turn one that starts with "=" into a live formula
    and one that looks like an address into a link (a name in the report could do so)."""
    import datetime as dt

    import xlsxwriter

    d = ctx.report.date
    options = {"in_memory": True, "strings_to_formulas": False, "strings_to_urls": False}
    with xlsxwriter.Workbook(str(path), options) as book:
        book.set_properties(
            {"created": dt.datetime(d.year, d.month, d.day), "title": ctx.report.title[TOOL]}
        )
        for name, table in ctx.tables.items():
            table.write_excel(workbook=book, worksheet=name[:31])
