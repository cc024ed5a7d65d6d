"""``OUT/manifest.json``: every input (size, SHA-256), tools and versions, and every figure
the report prints — table, row, column, raw value, unit — with the raw rows (file and line)
it derives from. Placeholders in the narrative and the datasheet print figures of these
same tables."""

from __future__ import annotations

import json
from dataclasses import asdict
from pathlib import Path
from typing import Any

import polars as pl

from pipeline.provenance import inputs, versions
from pipeline.render.context import ReportContext

MEASUREMENT_KEY = ("setup", "queue_depth", "access", "block_size", "read_pct")
UNITS = {
    "iops": "IOPS",
    "bytes_per_s": "B/s",
    "lat_us": "µs",
    "parallelism": "workers/host",
    "limit_us": "µs",
    "capacity_tb": "TB",
    "power_w": "W",
    "w_per_tb": "W/TB",
    "w_per_kiops": "W/1000 IOPS",
    "tb_per_rack": "TB",
    "iops_per_rack": "IOPS",
    "rack_units": "U",
    "lat_ms": "ms",
    "load_pct": "%",
    "target_iops": "IOPS",
    "capacity_iops": "IOPS",
    "units": "systems",
    "io_share": "1",
    "old_ms": "ms",
    "new_ms": "ms",
    "io_speedup": "×",
    "app_gain_pct": "%",
    "compression_ratio": "1",
    "max_load_pct": "%",
}
ROW_COLUMNS = {
    "performance": ("kind",),
    "spc1": ("system", "load_pct"),
    "spc1_sizing": ("system", "target_iops"),
    "cost": ("system", "year"),
    "footprint": ("system",),
    "speedup": ("case",),
}


def _lines_by_point(intervals: pl.DataFrame) -> dict[tuple[Any, ...], list[dict[str, Any]]]:
    key = [*MEASUREMENT_KEY, "parallelism"]
    grouped = intervals.group_by([*key, "source"], maintain_order=True).agg(pl.col("line"))
    found: dict[tuple[Any, ...], list[dict[str, Any]]] = {}
    for row in grouped.iter_rows(named=True):
        point = tuple(row[k] for k in key)
        found.setdefault(point, []).append({"source": row["source"], "lines": row["line"]})
    return found


def _unit(column: str, row: dict[str, Any]) -> str:
    if column in ("price", "price_per_tb", "price_per_tb_effective", "price_per_kiops"):
        return str(row.get("currency", ""))
    return UNITS.get(column, "")


def _measurement_rows(
    ctx: ReportContext,
    name: str,
    table: pl.DataFrame,
    lines: dict[tuple[Any, ...], list[dict[str, Any]]],
) -> list[dict[str, Any]]:
    figures = []
    for row in table.iter_rows(named=True):
        profile = {k: row.get(k, _single(ctx, k)) for k in MEASUREMENT_KEY}
        point = (*profile.values(), row.get("parallelism"))
        key = {**profile, **{k: row[k] for k in ROW_COLUMNS.get(name, ())}}
        for column in ("parallelism", "iops", "bytes_per_s", "lat_us", "limit_us"):
            if column in row and row[column] is not None:
                figures.append(
                    {
                        "table": name,
                        "row": key,
                        "column": column,
                        "value": row[column],
                        "unit": _unit(column, row),
                        "derived_from": lines.get(point, []),
                    }
                )
    return figures


def _single(ctx: ReportContext, column: str) -> Any:
    """The value of a key column a table left out because it never varies."""
    return ctx.dataset.points[column][0]


def _economics_rows(ctx: ReportContext, name: str, table: pl.DataFrame) -> list[dict[str, Any]]:
    origin = (
        [{"source": "report.toml", "field": name}]
        if name in ("cost", "footprint", "speedup")
        else [{"source": f"data/spc1/{r.submission}.toml"} for r in ctx.spc1]
    )
    figures = []
    for row in table.iter_rows(named=True):
        key = {k: row[k] for k in ROW_COLUMNS[name]}
        for column, value in row.items():
            if isinstance(value, int | float) and column not in key and value is not None:
                figures.append(
                    {
                        "table": name,
                        "row": key,
                        "column": column,
                        "value": value,
                        "unit": _unit(column, row),
                        "derived_from": origin,
                    }
                )
    return figures


def figures(ctx: ReportContext) -> list[dict[str, Any]]:
    lines = _lines_by_point(ctx.dataset.intervals)
    found = []
    for name, table in ctx.tables.items():
        if name in ROW_COLUMNS and name != "performance":
            found += _economics_rows(ctx, name, table)
        else:
            found += _measurement_rows(ctx, name, table, lines)
    return found


def manifest(ctx: ReportContext) -> dict[str, Any]:
    return {
        "report": {
            "id": ctx.report.id,
            "version": ctx.report.version,
            "date": ctx.report.date.isoformat(),
        },
        "inputs": [asdict(f) for f in inputs(ctx.folder, ctx.report, ctx.dataset, ctx.read)],
        "spc1_records": [r.submission for r in ctx.spc1],
        "accounting": ctx.dataset.accounting(),
        "versions": versions(),
        "figures": figures(ctx),
    }


def write(ctx: ReportContext, path: Path) -> None:
    path.write_text(
        json.dumps(manifest(ctx), indent=1, ensure_ascii=False, default=str), encoding="utf-8"
    )
