"""``iopress verify``: compare published figures with the figures re-derived from the raw data.

The transcription is a CSV ``table,row,column,printed``; ``printed`` is the text as the
paper prints it, in either language ("1'008'045 @ 0.5 ms", "12.984", "4'200 CHF*",
"0.709 Mio. USD", "1.3 kW"). A figure differs when it is further from the exact value than
both half a unit of its last printed digit and the relative tolerance (default 1 %).
See docs/verify.md for the row and column names of every table.
"""

from __future__ import annotations

import csv
import math
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import polars as pl

from pipeline.errors import InputError
from pipeline.render.context import ReportContext
from pipeline.units import Convention, parse_block_size, rate_factor

# printed unit -> (dimension, factor to the dimension's base unit); MB/s and GB/s follow
# the report's unit convention (unit_table)
UNITS: dict[str, tuple[str, float]] = {
    "µs": ("time", 1.0),
    "us": ("time", 1.0),
    "ms": ("time", 1000.0),
    "s": ("time", 1e6),
    "IOPS": ("rate", 1.0),
    "IOs": ("rate", 1.0),
    "W": ("power", 1.0),
    "kW": ("power", 1000.0),
    "TB": ("capacity", 1.0),
    "U": ("space", 1.0),
    "%": ("percent", 1.0),
    "CHF": ("money", 1.0),
    "USD": ("money", 1.0),
    "EUR": ("money", 1.0),
}
_PART = re.compile(r"(\d[\d'’.,]*)\s*(Mio\.)?\s*([A-Za-zµ/%]*)")


@dataclass(frozen=True)
class Expected:
    value: float  # in the dimension's base unit
    dimension: str


@dataclass(frozen=True)
class Discrepancy:
    line: int
    table: str
    row: str
    column: str
    printed: str
    exact: str

    def __str__(self) -> str:
        return (
            f"line {self.line}: {self.table} / {self.row} / {self.column}: printed "
            f"{self.printed!r}, exact {self.exact}"
        )


def candidates(text: str) -> list[tuple[float, float]]:
    """(value, half a unit of its last digit) for every reading of a printed number.

    ``'`` and ``’`` group thousands; a lone ``.`` or ``,`` followed by groups of three digits
    may group thousands (German "12.984", English "1,008,045") or mark decimals: both
    readings are offered, the comparison takes the one that fits."""
    text = text.replace("’", "'")
    if "'" in text:
        text = text.replace("'", "")
        return [_decimal(text.replace(",", "."))]
    readings = [_decimal(text.replace(",", "."))] if text.count(".") + text.count(",") <= 1 else []
    for sep in (".", ","):
        groups = text.split(sep)
        if len(groups) > 1 and all(len(g) == 3 and g.isdigit() for g in groups[1:]):
            readings.append((float(text.replace(sep, "").replace(",", ".")), 0.5))
    return readings or [_decimal(text)]


def _decimal(text: str) -> tuple[float, float]:
    places = len(text.split(".")[1]) if "." in text else 0
    return float(text), 0.5 * 10.0**-places


@dataclass(frozen=True)
class Printed:
    readings: list[tuple[float, float]]
    unit: str
    million: bool


def parse(text: str) -> list[Printed]:
    """The figures of one printed cell, in order ("X @ Y ms" has two)."""
    parts = []
    for piece in text.split("@"):
        match = _PART.search(piece)
        if match:
            parts.append(Printed(candidates(match[1]), match[3], bool(match[2])))
    return parts


def unit_table(convention: Convention) -> dict[str, tuple[str, float]]:
    rates = {u: ("bandwidth", rate_factor(u, convention)) for u in ("MB/s", "GB/s", "MiB/s")}
    return {**UNITS, **rates}


def agrees(
    printed: Printed,
    expected: Expected,
    default_unit: str,
    tolerance: float,
    table: dict[str, tuple[str, float]] | None = None,
) -> bool:
    table = table or unit_table("binary")
    dimension, factor = table.get(printed.unit or default_unit, table[default_unit])
    if dimension != expected.dimension:
        return False
    factor *= 1e6 if printed.million else 1.0
    for value, half_unit in printed.readings:
        allowed = max(half_unit * factor, tolerance * abs(expected.value))
        if abs(value * factor - expected.value) <= allowed * (1 + 1e-9):
            return True
    return False


class Resolver:
    """Finds the exact figures behind a transcribed (table, row, column)."""

    def __init__(self, ctx: ReportContext) -> None:
        self.tables = ctx.tables

    def _profile(self, table: str, row: str) -> pl.DataFrame:
        """Rows like "random 4K 100" (access, block size, read %), optionally "setup=…"."""
        words = row.split()
        frame = self.tables[table].filter(
            (pl.col("access") == words[0])
            & (pl.col("block_size") == parse_block_size(words[1]))
            & (pl.col("read_pct") == float(words[2]))
        )
        for word in words[3:]:
            key, _, value = word.partition("=")
            frame = frame.filter(pl.col(key).cast(pl.String) == value)
        return frame

    def expected(self, table: str, row: str, column: str) -> tuple[list[Expected], list[str]]:
        """The exact figures and the unit each is printed in when the paper gives none."""
        if table == "performance":
            hit = self._one(self._profile(table, row).filter(pl.col("kind") == column))
            if hit["access"] == "sequential":
                return (
                    [Expected(hit["bytes_per_s"], "bandwidth"), Expected(hit["lat_us"], "time")],
                    ["MB/s", "ms"],
                )
            return [Expected(hit["iops"], "rate"), Expected(hit["lat_us"], "time")], ["IOPS", "ms"]
        if table == "min_latency":
            hit = self._one(self._profile(table, row))
            return [Expected(hit["lat_us"], "time")], ["µs"]
        if table == "iops_at_latency":
            hit = self._one(self._profile(table, row))
            return [Expected(hit["iops"], "rate")], ["IOPS"]
        return self._economics(table, row, column)

    def _economics(self, table: str, row: str, column: str) -> tuple[list[Expected], list[str]]:
        frame = self.tables[table]
        key = "case" if "case" in frame.columns else "system"
        words = row.rsplit(" ", 1)
        if table in ("cost", "spc1_sizing") and len(words) == 2 and words[1].isdigit():
            other = "year" if table == "cost" else "target_iops"
            frame = frame.filter(pl.col(other).cast(pl.Float64) == float(words[1]))
            row = words[0]
        frame = frame.filter(pl.col(key) == row)
        if table == "spc1" and column.replace(".", "").isdigit():
            hit = self._one(frame.filter(pl.col("load_pct") == float(column)))
            return (
                [Expected(hit["iops"], "rate"), Expected(hit["lat_ms"] * 1000, "time")],
                ["IOPS", "ms"],
            )
        if table == "spc1":  # price and capacity repeat on every ramp row
            frame = frame.head(1)
        hit = self._one(frame)
        if column not in hit:
            raise KeyError(f"no column {column!r} (one of {sorted(hit)})")
        value = float(hit[column]) * (1000.0 if column.endswith("_ms") else 1.0)
        return [Expected(value, DIMENSIONS.get(column, "money"))], [
            DEFAULT_UNITS.get(column, "CHF")
        ]

    @staticmethod
    def _one(frame: pl.DataFrame) -> dict[str, Any]:
        if frame.height != 1:
            raise KeyError(f"{frame.height} rows match")
        return frame.row(0, named=True)


DIMENSIONS = {
    "capacity_tb": "capacity",
    "iops": "rate",
    "rack_units": "space",
    "power_w": "power",
    "w_per_tb": "power",
    "w_per_kiops": "power",
    "tb_per_rack": "capacity",
    "iops_per_rack": "rate",
    "capacity_iops": "rate",
    "target_iops": "rate",
    "lat_ms": "time",
    "units": "rate",
    "app_gain_pct": "percent",
    "io_speedup": "rate",
    "load_pct": "percent",
}
DEFAULT_UNITS = {
    "capacity_tb": "TB",
    "iops": "IOPS",
    "rack_units": "U",
    "power_w": "W",
    "w_per_tb": "W",
    "w_per_kiops": "W",
    "tb_per_rack": "TB",
    "iops_per_rack": "IOPS",
    "capacity_iops": "IOPS",
    "target_iops": "IOPS",
    "lat_ms": "ms",
    "units": "IOPS",
    "app_gain_pct": "%",
    "io_speedup": "IOPS",
    "load_pct": "%",
}


def _exact(expected: list[Expected], units: list[str], table: dict[str, tuple[str, float]]) -> str:
    texts = []
    for figure, unit in zip(expected, units, strict=False):
        factor = table[unit][1]
        value = figure.value / factor
        places = 0 if abs(value) >= 100 else max(0, 3 - int(math.log10(abs(value) or 1)))
        if figure.dimension == "money" and not float(value).is_integer():
            places = 2
        texts.append(f"{value:,.{places}f} {unit}".replace(",", "'"))
    return " @ ".join(texts)


def read_published(path: Path) -> list[tuple[int, dict[str, str]]]:
    try:
        text = path.read_text(encoding="utf-8-sig")
    except (OSError, UnicodeDecodeError) as exc:
        raise InputError(path, "", f"cannot read: {exc}", "give a UTF-8 CSV") from None
    rows = list(csv.DictReader(text.splitlines()))
    if not rows or set(rows[0]) != {"table", "row", "column", "printed"}:
        raise InputError(
            path, "line 1", "the header must be table,row,column,printed", "see docs/verify.md"
        )
    return [(i + 2, r) for i, r in enumerate(rows)]


def verify(
    ctx: ReportContext, published: Path, tolerance: float = 0.01
) -> tuple[int, list[Discrepancy]]:
    """(figures checked, differences). A transcription line naming nothing is an input
    error with its line."""
    resolver, found, checked = Resolver(ctx), [], 0
    table = unit_table(ctx.report.units)
    for line, row in read_published(published):
        try:
            expected, units = resolver.expected(row["table"], row["row"], row["column"])
        except (KeyError, ValueError, IndexError, pl.exceptions.PolarsError) as exc:
            raise InputError(
                published,
                f"line {line}",
                f"{row['table']} / {row['row']} / {row['column']} names no figure: {exc}",
                "see docs/verify.md for table, row and column names",
            ) from None
        printed = parse(row["printed"])
        checked += len(printed)
        pairs = zip(printed, expected, units, strict=False)
        if len(printed) != len(expected) or not all(
            agrees(p, e, u, tolerance, table) for p, e, u in pairs
        ):
            found.append(
                Discrepancy(
                    line,
                    row["table"],
                    row["row"],
                    row["column"],
                    row["printed"],
                    _exact(expected, units, table),
                )
            )
    return checked, found
