"""``OUT/manifest.json``: every input (size, SHA-256), tools and versions, and every figure
the report prints — table, row, column, raw value, unit — with the raw rows (file and line)
it derives from. Placeholders in the narrative and the datasheet print figures of these
same tables."""

from __future__ import annotations

import json
import os
import secrets
from collections.abc import Iterator
from dataclasses import asdict
from pathlib import Path
from typing import Any

import polars as pl

from pipeline.compute.registry import BY_NAME, Table
from pipeline.config import LANGS
from pipeline.language import Strings
from pipeline.paths import TOOL
from pipeline.provenance import versions
from pipeline.report.context import ReportContext
from pipeline.schema import INTERVAL_FIELDS, POINT_FIELDS, Field

POINT = ("setup", "queue_depth", "access", "block_size", "read_pct", "parallelism")
RATE = "target_iops"  # a rate sweep measures a point per target rate


def _lines_by_point(
    intervals: pl.DataFrame, whole: pl.DataFrame | None
) -> dict[tuple[Any, ...], list[dict[str, Any]]]:
    """The raw lines per point: by its key and target rate (rows that name their rate),
    and by its key alone (rows of every rate: an interpolation between levels). The lines
    of ``whole`` (the dataset's references) where they are the same file's record of the
    same run and host: fio's final record (a point's percentiles where its snapshots have
    none), vdbench's avg_ line (the run's CPU); not another file's view of the run."""
    if whole is not None and not whole.is_empty():
        own = [*POINT, RATE, "host", "source"]
        whole = whole.join(intervals.select(own).unique(), on=own, how="semi", nulls_equal=True)
        intervals = pl.concat([intervals, whole.select(intervals.columns)])
    found: dict[tuple[Any, ...], list[dict[str, Any]]] = {}
    for key in ([*POINT, RATE], list(POINT)):
        grouped = intervals.group_by([*key, "source"], maintain_order=True).agg(pl.col("line"))
        for row in grouped.iter_rows(named=True):
            point = tuple(row[k] for k in key)
            found.setdefault(point, []).append({"source": row["source"], "lines": row["line"]})
    return found


def _origin(ctx: ReportContext, table: Table, row: dict[str, Any], lines: Any) -> list[Any]:
    """The raw rows (file and lines) or input records a row of the table derives from."""
    if table.origin == "points":
        key = [*POINT, RATE] if RATE in row else POINT
        return list(lines.get(tuple(row.get(k) for k in key), []))
    if table.origin == "report":
        return [{"source": "report.toml", "field": table.name}]
    return [{"source": f"data/spc1/{r.submission}.toml"} for r in _records(ctx, row)]


def _records(ctx: ReportContext, row: dict[str, Any]) -> list[Any]:
    """The SPC-1 records a row of an SPC-1 table derives from: its submission, or the
    records of its system's name (a sizing row); every record only where none is named."""
    if row.get("submission"):
        return [r for r in ctx.spc1 if r.submission == row["submission"]]
    named = [r for r in ctx.spc1 if r.short_name == row.get("system")]
    return named or list(ctx.spc1)


def _unit(f: Field, row: dict[str, Any]) -> str:
    return str(row.get("currency", "")) if f.unit == "currency" else f.unit


def _rows(ctx: ReportContext, table: Table, frame: pl.DataFrame, lines: Any) -> list[Any]:
    """One figure per numeric cell that is not part of the row's key, with its unit."""
    numbers = [f for f in table.columns if f.name not in table.key and f.dtype.is_numeric()]
    figures = []
    for row in frame.iter_rows(named=True):
        key = {k: row[k] for k in table.key}
        origin = _origin(ctx, table, row, lines)
        figures += [
            {
                "table": table.name,
                "row": key,
                "column": f.name,
                "value": row[f.name],
                "unit": _unit(f, row),
                "derived_from": origin,
            }
            for f in numbers
            if row[f.name] is not None
        ]
    return figures


def figures(ctx: ReportContext) -> list[dict[str, Any]]:
    """Every figure of every computed table, in the registry's order."""
    return list(_figures(ctx))


def _figures(ctx: ReportContext) -> Iterator[dict[str, Any]]:
    lines = _lines_by_point(ctx.dataset.intervals, ctx.dataset.references)
    for name, frame in ctx.tables.items():
        yield from _rows(ctx, BY_NAME[name], frame, lines)


def _described(fields: tuple[Field, ...]) -> list[dict[str, str]]:
    # the tool's language first, then the others
    langs = sorted(LANGS, key=lambda lang: lang != TOOL)
    return [
        {"name": f.name, "unit": f.unit}
        | {f"label_{lang}": Strings(lang)(f.label) for lang in langs}
        for f in fields
    ]


def columns(ctx: ReportContext) -> dict[str, list[dict[str, str]]]:
    """What every column of the dataset and the tables holds: unit and label."""
    described = {"intervals": _described(INTERVAL_FIELDS), "points": _described(POINT_FIELDS)}
    return described | {name: _described(BY_NAME[name].columns) for name in ctx.tables}


def charts(ctx: ReportContext) -> list[dict[str, Any]]:
    """Every chart of the report: its kind (report/chart_registry), files and the points
    it draws (the columns that select them), and those left out with their reason."""
    drawn = [
        {"stem": r.stem, "kind": r.kind, "x": r.chart.x, "points": r.key(), "drawn": True}
        for r in ctx.charts
    ]
    flat = [
        {"stem": r.stem, "kind": r.kind, "x": r.chart.x, "points": r.key(), "drawn": False}
        | {"why": "one setup" if r.alone else "one point per line"}
        for r in ctx.left_out()
    ]
    return drawn + flat


def _parts(ctx: ReportContext) -> Iterator[tuple[str, Any]]:
    """The manifest's keys in order; the long lists (inputs, figures) as iterators."""
    report = ctx.report
    yield "report", {"id": report.id, "version": report.version, "date": report.date.isoformat()}
    yield "inputs", (asdict(f) for f in ctx.inputs())
    yield "spc1_records", [r.submission for r in ctx.spc1]
    yield "accounting", ctx.dataset.accounting()
    yield "versions", versions()
    yield "columns", columns(ctx)
    yield "figures", _figures(ctx)
    yield "charts", charts(ctx)


def manifest(ctx: ReportContext) -> dict[str, Any]:
    return {
        key: list(value) if isinstance(value, Iterator) else value for key, value in _parts(ctx)
    }


def write(ctx: ReportContext, path: Path) -> None:
    """``path`` written as it is made (a list item at a time, never the whole text in
    memory), into a new file beside it that replaces it only once complete: a failure
    leaves an earlier manifest as it was and no part file."""
    part = path.with_name(f".{path.name}.{secrets.token_hex(4)}.part")
    try:
        with part.open("x", encoding="utf-8") as fh:
            fh.writelines(_text(ctx))
        os.replace(part, path)
    finally:
        part.unlink(missing_ok=True)


def _text(ctx: ReportContext) -> Iterator[str]:
    """The manifest as JSON, piece by piece: indented, with one line per input file and
    per figure (grep finds a file's or a figure's whole entry)."""
    yield "{"
    for i, (key, value) in enumerate(_parts(ctx)):
        yield f"{',' if i else ''}\n {_json(key)}: "
        yield from _items(value) if isinstance(value, Iterator) else [_json(value, 1)]
    yield "\n}"


def _items(values: Iterator[Any]) -> Iterator[str]:
    """A list of the manifest, an item at a time, one line each."""
    empty = True
    for item in values:
        yield f"{'[' if empty else ','}\n  {_json(item)}"
        empty = False
    yield "[]" if empty else "\n ]"


def _json(value: Any, depth: int | None = None) -> str:
    """``value`` as JSON: on one line, or indented as at ``depth`` of the whole (a string
    holds no line break: JSON escapes it)."""
    if depth is None:
        return json.dumps(value, ensure_ascii=False, default=str)
    text = json.dumps(value, indent=1, ensure_ascii=False, default=str)
    return text.replace("\n", "\n" + " " * depth)
