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

from pipeline.compute.registry import BY_NAME, Table
from pipeline.errors import InputError, NotFound
from pipeline.inputs import read_text
from pipeline.report.context import ReportContext
from pipeline.units import DIMENSIONS, Convention, parse_block_size, rate_factor

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
    "×": ("factor", 1.0),
    "x": ("factor", 1.0),
    "1": ("count", 1.0),
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
    """Finds the exact figures behind a transcribed (table, row, column), as the table
    registry declares its cells (``Table.cells``)."""

    def __init__(self, ctx: ReportContext) -> None:
        self.ctx = ctx

    def _rows(self, table: Table, row: str) -> pl.DataFrame:
        """The rows a row text names: the declared row columns (block sizes as "4K"; a
        system name may have spaces, years and loads follow it), then ``key=value``
        words narrow them."""
        frame = self.ctx.frame(table.name)
        words = [w for w in row.split() if "=" not in w]
        named = _split(words, table.cells.row)
        named |= dict(w.partition("=")[::2] for w in row.split() if "=" in w)
        for column, value in named.items():
            if column not in frame.columns:
                raise NotFound(f"no column {column!r} in {table.name}")
            frame = frame.filter(pl.col(column).cast(pl.String) == _value(table, column, value))
        return frame

    def expected(self, name: str, row: str, column: str) -> tuple[list[Expected], list[str]]:
        """The exact figures and the unit each is printed in when the paper gives none."""
        table = BY_NAME.get(name)
        if table is None or (table.frame or name) not in self.ctx.tables:
            raise NotFound(f"no table {name!r}: one of {sorted(self.ctx.shown)}")
        frame = self._rows(table, row)
        select = table.cells.select
        if select and _value(table, select, column) in frame[select].cast(pl.String):
            frame = frame.filter(pl.col(select).cast(pl.String) == _value(table, select, column))
        elif column in frame.columns and frame[column].n_unique() == 1:
            frame = frame.head(1)  # the same figure on every matching row (SPC-1 price)
        hit = _one(frame)
        shown = table.cells.printed(hit, column)
        return [self._figure(table, hit, f) for f in shown], [_unit(f, table, hit) for f in shown]

    @staticmethod
    def _figure(table: Table, hit: dict[str, Any], column: str) -> Expected:
        if column not in hit or not isinstance(hit[column], int | float):
            numbers = [k for k, v in hit.items() if isinstance(v, int | float)]
            raise NotFound(f"no figure {column!r}: one of {numbers}")
        unit = table.column(column).unit
        return Expected(float(hit[column]), DIMENSIONS[unit])


def _split(words: list[str], named: tuple[str, ...]) -> dict[str, str]:
    """Row words -> {column: word}. A profile is three words; a name (system, case) takes
    every word but the trailing numbers of the columns after it, which may be left out."""
    if named[0] not in ("system", "case"):
        if len(words) != len(named):
            raise NotFound(f"the row names {', '.join(named)}, e.g. 'random 4K 100'")
        return dict(zip(named, words, strict=True))
    rest = list(named[1:])
    tail = 0
    while tail < len(rest) and len(words) - tail > 1 and _number(words[-1 - tail]):
        tail += 1
    found = {named[0]: " ".join(words[: len(words) - tail])}
    return found | dict(zip(rest, words[len(words) - tail :], strict=False))


def _one(frame: pl.DataFrame) -> dict[str, Any]:
    if frame.height != 1:
        raise NotFound(f"{frame.height} rows match")
    return frame.row(0, named=True)


def _value(table: Table, column: str, word: str) -> str:
    """A row word as the column's value prints when cast to text: block sizes in bytes
    ("4K" -> "4096"), numbers of float columns as floats ("100" -> "100.0")."""
    if column == "block_size":
        return str(parse_block_size(word))
    if table.column(column).dtype == pl.Float64 and _number(word):
        return str(float(word))
    return word


def _number(word: str) -> bool:
    return word.replace(".", "", 1).isdigit()


def _unit(column: str, table: Table, row: dict[str, Any]) -> str:
    """The unit a figure is printed in when the transcription gives none: the one its
    table declares (``Table.unit``), a price in its row's currency."""
    unit = table.unit(column)
    return str(row.get("currency", "CHF")) if unit == "currency" else unit


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


MAX_PUBLISHED = 64 * 1024 * 1024  # bytes: a transcription of printed figures


def read_published(path: Path) -> list[tuple[int, dict[str, str]]]:
    text = read_text(path, MAX_PUBLISHED)  # a regular file only: a FIFO is refused at once
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
        except (ValueError, pl.exceptions.PolarsError) as exc:
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
