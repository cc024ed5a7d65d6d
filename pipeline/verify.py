"""``iopress verify``: compare published figures with the figures re-derived from the raw data.

The transcription is a CSV ``table,row,column,printed``; ``printed`` is the cell as the
paper prints it, in either language and number style ("1'008'045 @ 0.5 ms (P 128)",
"128 Prozesse, 648'293 IOPS, 590 µs", "4 processes, 123,456 IOPS, 450 µs", "12.984",
"4'200 CHF*", "0.709 Mio. USD", "1.3 kW"). Each figure of the cell is compared with the
exact one it stands for: a parallelism (or another count) exactly, any other figure
differs when it is further from the exact value than both half a unit of its last printed
digit and the relative tolerance (default 1 %). A differing cell is reported with the exact
figures written in the printed form. See docs/verify.md for the row and column names.
"""

from __future__ import annotations

import csv
import io
import itertools
import math
import re
from dataclasses import dataclass, replace
from decimal import ROUND_HALF_UP, Decimal
from pathlib import Path
from typing import Any, NamedTuple

import polars as pl

from pipeline.compute.registry import BY_NAME, Table
from pipeline.errors import InputError, NotFound
from pipeline.inputs import read_text
from pipeline.language import Formatter
from pipeline.paths import TOOL
from pipeline.report.context import ReportContext
from pipeline.report.views import cpu
from pipeline.units import (
    DIMENSIONS,
    PRINTED_UNITS,
    Convention,
    parse_block_size,
    rate_factor,
)

SET_VALUES = frozenset({"target_iops"})  # figures a test set, not measured: exact
APOSTROPHES = "'’"  # thousands marks only (de-CH ’, the seeds ')
# a parallelism as the tables print it, singular and plural ("1 Prozess", "128 Prozesse")
PLURALS = (("Prozess", "Prozesse"), ("process", "processes"), ("worker", "workers"))
_COUNT = r"[Pp]rozess(?:en|e)?|[Pp]rocess(?:es)?|[Ww]orker[sn]?|[Jj]obs?|[Tt]hreads?"
_UNIT = r"MiB/s|GiB/s|MB/s|GB/s|IOPS|IOs|µs|us|ms|kW|W|TB|USD|U|%|×|x|CHF|EUR|s"
# one figure: an optional "P " (the parallelism of Tabelle 3's cells), the number with its
# marks, "Mio.", then a parallelism word or a unit
_FIGURE = re.compile(
    # a minus sign where a figure may begin (after a space, "(" or the cell's start, not
    # between numbers: "1-8"); ASCII or the typographic minus
    r"(?P<sign>(?<![^\s(])[-\u2212])?"
    r"(?:(?<!\w)(?P<p>P)[ \u00a0]*|(?<![\w'’.,]))"
    r"(?P<number>\d(?:[\d'’.,]*\d)?)"
    r"(?P<million>[ \u00a0]*Mio\.)?"
    rf"(?:[ \u00a0]*(?:(?P<count>{_COUNT})|(?P<unit>{_UNIT}))(?![\w/]))?"
)


@dataclass(frozen=True)
class Reading:
    """One way to read a printed number: its value, its decimal places, and the marks."""

    value: float
    places: int
    group: str = ""  # the thousands mark this reading takes
    decimal: str = "."

    @property
    def half_unit(self) -> float:
        return 0.5 * 10.0**-self.places


@dataclass(frozen=True)
class Printed:
    """One figure of a printed cell."""

    readings: list[Reading]
    unit: str  # as printed ("" for none; the word of a parallelism)
    million: bool
    count: bool = False  # a parallelism: "128 Prozesse", "4 workers", "P 128"
    span: tuple[int, int] = (0, 0)  # the number's place in the cell's text
    end: int = 0  # where the figure, its unit included, ends


@dataclass(frozen=True)
class Expected:
    value: float  # in the dimension's base unit
    dimension: str
    column: str = ""
    unit: str = ""  # the unit the table prints it in, for a figure printed without one
    optional: bool = False  # a transcription may leave it out (Cells.optional)


@dataclass(frozen=True)
class Discrepancy:
    line: int
    table: str
    row: str
    column: str
    printed: str
    exact: str  # in the printed form where the cell has the table's figures
    note: str = ""

    def __str__(self) -> str:
        text = (
            f"line {self.line}: {self.table} / {self.row} / {self.column}: printed "
            f"{_SPACES.sub(' ', self.printed)!r}, exact {_SPACES.sub(' ', self.exact)!r}"
        )  # a no-break space shown as one, not as \xa0 (control characters stay escaped)
        return f"{text} ({self.note})" if self.note else text


class Verified(NamedTuple):
    cells: int  # transcription lines
    figures: int  # figures printed in them
    found: list[Discrepancy]


def candidates(text: str) -> list[Reading]:
    """Every reading of a printed number; none when it is no number as printed.

    ``'`` and ``’`` group thousands; with two kinds of mark the last is the decimal mark
    ("1'505.068", German "1.008.045,5"); a lone kind of ``.`` or ``,`` may group thousands
    (German "12.984", English "1,008,045") or mark decimals ("0.55", "0,55"): every reading
    that fits is offered, the comparison takes the one that agrees."""
    marks = [c for c in text if not c.isdigit()]
    kinds = list(dict.fromkeys(marks))
    if not kinds:
        return _read(text, "", "")
    if len(kinds) > 2:
        return []
    if len(kinds) == 2:
        group, decimal = kinds
        if marks.count(decimal) != 1 or marks[-1] != decimal or decimal in APOSTROPHES:
            return []
        return _read(text, group, decimal)
    mark = kinds[0]
    if mark in APOSTROPHES:
        return _read(text, mark, "")
    return (_read(text, "", mark) if len(marks) == 1 else []) + _read(text, mark, "")


def _read(text: str, group: str, decimal: str) -> list[Reading]:
    """``text`` read with these marks, or nothing when its digit groups do not fit them."""
    whole, _, fraction = text.partition(decimal) if decimal else (text, "", "")
    groups = whole.split(group) if group else [whole]
    if group and not (
        len(groups[0]) <= 3
        and all(len(g) == 3 for g in groups[1:])
        and not groups[0].startswith("0")
    ):
        return []
    number = "".join(groups) + "." + (fraction or "0")
    return [Reading(float(number), len(fraction), group, decimal or ".")]


_SPACES = re.compile(r"[\u00a0\u2000-\u200a\u202f\u205f\u3000]")


def parse(text: str) -> list[Printed]:
    """The figures of one printed cell, in order ("X @ Y ms (P N)" has three). A number
    that no reading fits raises ValueError. Every kind of space is one (a PDF's narrow
    no-break space before "ms" left the unit unread)."""
    parts = []
    for match in _FIGURE.finditer(_SPACES.sub(" ", text)):
        readings = candidates(match["number"])
        if not readings:
            raise ValueError(f"{match['number']!r} is no number as printed")
        if match["sign"]:  # "-40%": the figure is negative, the sign part of it
            readings = [replace(r, value=-r.value) for r in readings]
        unit = match["count"] or match["unit"] or ""
        count = bool(match["p"] or match["count"])
        span = (match.start("sign" if match["sign"] else "number"), match.end("number"))
        parts.append(Printed(readings, unit, bool(match["million"]), count, span, match.end()))
    return parts


def unit_table(convention: Convention) -> dict[str, tuple[str, float]]:
    rates = {u: ("bandwidth", rate_factor(u, convention)) for u in ("MB/s", "GB/s", "MiB/s")}
    return {**PRINTED_UNITS, **rates}


def _unit_of(unit: str, table: dict[str, tuple[str, float]]) -> tuple[str, float]:
    """A printed or declared unit's dimension and factor (a declared unit such as
    workers/host by its dimension)."""
    return table.get(unit) or (DIMENSIONS.get(unit, ""), 1.0)


def factor(
    printed: Printed, expected: Expected, default_unit: str, table: dict[str, tuple[str, float]]
) -> float | None:
    """The printed figure's unit in its dimension's base unit; None when it measures
    something else than the exact figure (a multiplier, "2 × FS 900", reads as a count)."""
    if printed.count:
        dimension, scale = "count", 1.0
    else:
        dimension, scale = _unit_of(printed.unit or default_unit, table)
    if dimension != expected.dimension and {dimension, expected.dimension} != {"factor", "count"}:
        return None
    return scale * (1e6 if printed.million else 1.0)


def agrees(
    printed: Printed,
    expected: Expected,
    default_unit: str,
    tolerance: float,
    table: dict[str, tuple[str, float]] | None = None,
) -> bool:
    """A count (parallelism, units) agrees only to its printed digits; any other figure
    within half a unit of its last digit or the relative tolerance."""
    scale = factor(printed, expected, default_unit, table or unit_table("binary"))
    if scale is None:
        return False
    # a count, or a target rate the load generators were held to (a set value, not a
    # measured one), agrees only to its printed digits
    exact = expected.dimension == "count" or expected.column in SET_VALUES
    relative = 0.0 if exact else tolerance * abs(expected.value)
    for reading in printed.readings:
        allowed = max(reading.half_unit * scale, relative)
        if abs(reading.value * scale - expected.value) <= allowed * (1 + 1e-9):
            return True
    return False


def pair(
    printed: list[Printed],
    expected: list[Expected],
    table: dict[str, tuple[str, float]] | None = None,
) -> list[tuple[Printed, Expected]] | None:
    """Each printed figure with the exact one it stands for: a parallelism by its word, the
    others in order, leaving out the optional ones the transcription does not print (of
    several ways, the first whose printed units measure what its figures do: "X @ Y ms
    (CPU 32 %)" leaves out the parallelism, not the CPU); None when the cell's figures
    and the printed ones do not correspond."""
    counts = [p for p in printed if p.count]
    rest = [p for p in printed if not p.count]
    pairs: list[tuple[Printed, Expected]] = []
    if counts:
        parallelism = [e for e in expected if e.column == "parallelism"]
        if len(counts) > 1 or not parallelism:
            return None
        pairs.append((counts[0], parallelism[0]))
        expected = [e for e in expected if e is not parallelism[0]]
    ways = _printed_ways(expected, len(rest))
    if not ways:
        return None
    units = table or unit_table("binary")
    fitting = (w for w in ways if all(_measures(p, e, units) for p, e in zip(rest, w, strict=True)))
    return pairs + list(zip(rest, next(fitting, ways[0]), strict=True))


def _printed_ways(expected: list[Expected], n: int) -> list[list[Expected]]:
    """The cell's figures without as many optional ones as leave ``n``, in order."""
    optional = [i for i, e in enumerate(expected) if e.optional]
    drop = len(expected) - n
    if not 0 <= drop <= len(optional):
        return []
    return [
        [e for i, e in enumerate(expected) if i not in left_out]
        for left_out in map(set, itertools.combinations(optional, drop))
    ]


def _measures(printed: Printed, expected: Expected, table: dict[str, tuple[str, float]]) -> bool:
    """Whether a printed unit (if any) measures what the exact figure does."""
    return not printed.unit or factor(printed, expected, expected.unit, table) is not None


def number(value: float, places: int, group: str, decimal: str) -> str:
    """``value`` rounded half-up to ``places``, thousands grouped by ``group``."""
    rounded = Decimal(repr(abs(value))).quantize(Decimal(1).scaleb(-places), ROUND_HALF_UP)
    whole, _, fraction = f"{rounded:f}".partition(".")
    groups = [whole[max(0, i - 3) : i] for i in range(len(whole), 0, -3)][::-1]
    text = (group.join(groups) if group else whole) + (decimal + fraction if fraction else "")
    return ("-" if value < 0 and rounded else "") + text


def _plural(word: str, n: float) -> str:
    """A parallelism word in the number the exact figure needs ("1 Prozess")."""
    for one, other in PLURALS:
        for a, b in ((one, other), (one.capitalize(), other.capitalize())):
            if word in (a, b):
                return a if n == 1 else b
    return word


def _closest(readings: list[Reading], value: float) -> Reading:
    return min(readings, key=lambda r: abs(r.value - value))


def in_form(
    text: str,
    pairs: list[tuple[Printed, Expected]],
    table: dict[str, tuple[str, float]],
) -> str:
    """The printed text with each figure replaced by its exact value: the same unit,
    decimal places and marks (a thousands mark where the printed number had none but the
    exact one needs it: the cell's, else ')."""
    marks = [p.readings[0].group for p, _ in pairs if len(p.readings) == 1]
    marks = [m for m in marks if m]
    cell_group = marks[0] if marks else "'"
    out, at = [], 0
    for printed, expected in sorted(pairs, key=lambda pe: pe[0].span[0]):
        out += [text[at : printed.span[0]], _written(text, printed, expected, table, cell_group)]
        at = printed.end
    return "".join([*out, text[at:]])


def _written(
    text: str,
    printed: Printed,
    expected: Expected,
    table: dict[str, tuple[str, float]],
    cell_group: str,
) -> str:
    """One exact figure in the form of the printed one (in the declared unit, with it,
    where the printed unit measures something else)."""
    scale = factor(printed, expected, expected.unit, table)
    tail = text[printed.span[1] : printed.end]
    if scale is None:
        scale, tail = _unit_of(expected.unit, table)[1], f" {expected.unit}"
    value = expected.value / scale
    reading = _closest(printed.readings, value)
    digits = len(str(int(reading.value)))
    group = reading.group or ("" if digits >= 4 else cell_group)
    written = number(value, _places(value, reading.places), group, reading.decimal)
    if printed.count:
        tail = tail.replace(printed.unit, _plural(printed.unit, round(value)))
    return written + tail


def _places(value: float, printed: int) -> int:
    """The printed figure's decimal places, or as many more as the exact value needs to
    show two significant digits: 0.056 µs printed as "0.056 ms" is exactly 0.000056 ms,
    not "0.000 ms"."""
    if value == 0 or round(abs(value), printed) >= 10**-printed:
        return printed
    return min(12, max(printed, 1 - math.floor(math.log10(abs(value)))))


def listed(expected: list[Expected], fmt: Formatter, table: dict[str, tuple[str, float]]) -> str:
    """The exact figures of a cell as the English document prints them, for a printed
    cell whose figures do not correspond to the table's."""
    parts = []
    for figure in expected:
        value = figure.value / _unit_of(figure.unit, table)[1]
        if figure.column == "parallelism":
            n = round(value)
            parts.append(fmt.t.count("table.parallelism", n, n=fmt.integer(n)))
            continue
        if figure.column == "cpu_pct":  # as the tables print it: "CPU 58 %"
            parts.append(fmt.t("table.cpu", cpu=cpu(fmt, value)))
            continue
        places = 0 if abs(value) >= 100 or float(value).is_integer() else 3
        unit = "" if _unit_of(figure.unit, table)[0] == "count" else f" {figure.unit}"
        parts.append(fmt.number(value, places) + unit)
    return ", ".join(parts)


@dataclass(frozen=True)
class Cell:
    """The exact figures behind one transcribed cell, and the names its text may hold
    ("1 × FS 900, …": a system's digits are no figure)."""

    figures: list[Expected]
    names: list[str]


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
        profile = self._profile(" ".join(words)) if "profile" in frame.columns else None
        named = {"profile": profile} if profile else _split(words, table.cells.row)
        named |= dict(w.partition("=")[::2] for w in row.split() if "=" in w)
        for column, value in named.items():
            if column not in frame.columns:
                raise NotFound(f"no column {column!r} in {table.name}")
            frame = frame.filter(pl.col(column).cast(pl.String) == _value(table, column, value))
        return frame

    def _profile(self, text: str) -> str | None:
        """The workload mix a row names by its name, in either language ("Database",
        "Datenbank"), as the dataset holds it; None where no mix has this name."""
        points = self.ctx.dataset.points
        found: list[str] = (
            points["profile"].drop_nulls().unique().to_list() if "profile" in points.columns else []
        )
        names = {n: n for n in found}
        for p in self.ctx.report.profiles:
            names |= {shown: p.name[TOOL] for shown in p.name.values()}
        return names.get(text)

    def cell(self, name: str, row: str, column: str) -> Cell:
        """The exact figures of a transcribed cell, each with the unit it is printed in
        when the paper gives none."""
        table = BY_NAME.get(name)
        if table is None or (table.frame or name) not in self.ctx.tables:
            raise NotFound(f"no table {name!r}: one of {sorted(self.ctx.shown)}")
        frame = self._rows(table, row)
        if frame.is_empty():
            raise NotFound(f"no row {row!r} in {name}")
        select = table.cells.select
        if select and _value(table, select, column) in frame[select].cast(pl.String):
            frame = frame.filter(pl.col(select).cast(pl.String) == _value(table, select, column))
        elif column in frame.columns and frame[column].n_unique() == 1:
            frame = frame.head(1)  # the same figure on every matching row (SPC-1 price)
        elif select and column not in frame.columns:  # "maximal" for "maximum"
            known = sorted({str(v) for v in frame[select].drop_nulls()})
            raise NotFound(f"no column {column!r}: one of {known}")
        hit = _one(frame, (*table.cells.row, *table.key))
        # a figure the tool did not give (CrystalDiskMark's latency) is not printed either:
        # "98,172 (P 1)", as the table's cell
        shown = [f for f in table.cells.printed(hit, column) if not (f in hit and hit[f] is None)]
        figures = [self._figure(table, hit, f) for f in shown]
        names = [str(hit[c]) for c in table.cells.row if isinstance(hit.get(c), str)]
        return Cell(figures, names)

    @staticmethod
    def _figure(table: Table, hit: dict[str, Any], column: str) -> Expected:
        if column not in hit or not isinstance(hit[column], int | float):
            numbers = [k for k, v in hit.items() if isinstance(v, int | float)]
            raise NotFound(f"no figure {column!r}: one of {numbers}")
        unit = table.column(column).unit
        optional = column in table.cells.optional
        return Expected(
            float(hit[column]), DIMENSIONS[unit], column, _unit(column, table, hit), optional
        )


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


def _one(frame: pl.DataFrame, keys: tuple[str, ...]) -> dict[str, Any]:
    """The one row matched; an error naming what tells several apart (``setup=…``,
    ``queue_depth=1|2|4``): the table's key columns and its words."""
    if frame.height > 1:
        text = (pl.String, pl.Categorical)
        words = [c for c, t in frame.schema.items() if c in keys or t in text]
        apart = [c for c in words if frame[c].n_unique() > 1]
        told = [f"{c}={'|'.join(_sorted(frame[c].drop_nulls()))}" for c in apart]
        which = ", ".join(told) or "the rows differ in no column a row names"
        raise NotFound(f"{frame.height} rows match; name one in the row: {which}")
    return frame.row(0, named=True)


def _sorted(values: pl.Series) -> list[str]:
    """A column's distinct values as a row names them, numbers in their order."""
    found = values.unique().sort().to_list()
    return [f"{v:g}" if isinstance(v, float) else str(v) for v in found]


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


def blank(text: str, names: list[str]) -> str:
    """``text`` with each name replaced by as many spaces (its places stay)."""
    for name in names:
        pattern = rf"(?<!\w){re.escape(name)}(?!\w)"
        text = re.sub(pattern, lambda m: " " * len(m[0]), text)
    return text


MAX_PUBLISHED = 64 * 1024 * 1024  # bytes: a transcription of printed figures


_FIELDS_WRONG = "not 4 fields (table,row,column,printed)"
_QUOTE_HINT = 'put a cell that holds a comma or a line break in quotes: "1,008,045 @ 0.5 ms"'


def read_published(path: Path) -> list[tuple[int, dict[str, str]]]:
    """Each transcribed cell with the line it starts on (a quoted cell may span lines, as
    a cell copied from a PDF does)."""
    text = read_text(path, MAX_PUBLISHED)  # a regular file only: a FIFO is refused at once
    reader = csv.DictReader(io.StringIO(text, newline=""), strict=True)
    rows: list[tuple[int, dict[str, str]]] = []
    start = 2  # the line the next cell starts on
    try:
        if set(reader.fieldnames or ()) != {"table", "row", "column", "printed"}:
            raise InputError(
                path, "line 1", "the header must be table,row,column,printed", "see docs/verify.md"
            )
        for row in reader:
            if None in row or None in row.values():  # too many fields, or too few
                raise InputError(path, f"line {start}", _FIELDS_WRONG, _QUOTE_HINT)
            rows.append((start, row))
            start = reader.line_num + 1
    except csv.Error as err:  # a quote never closed, a character after one
        said = "a quote opened here is never closed" if "end of data" in str(err) else str(err)
        raise InputError(path, f"line {start}", f"not CSV: {said}", _QUOTE_HINT) from None
    if not rows:
        raise InputError(path, "line 2", "no transcribed cell", "see docs/verify.md")
    return rows


@dataclass(frozen=True)
class Checker:
    """Compares printed cells with their exact figures in one report."""

    tolerance: float
    table: dict[str, tuple[str, float]]
    english: Formatter

    def compare(self, text: str, cell: Cell, printed: list[Printed]) -> tuple[str, str] | None:
        """None when every printed figure agrees; else the exact figures (in the printed
        form where the figures correspond) and a note."""
        pairs = pair(printed, cell.figures, self.table)
        if pairs is None:
            note = f"the cell holds {len(cell.figures)} figures, {len(printed)} printed"
            return listed(cell.figures, self.english, self.table), note
        if all(agrees(p, e, e.unit, self.tolerance, self.table) for p, e in pairs):
            return None
        return in_form(text, pairs, self.table), ""


def _transcribed(
    resolver: Resolver, published: Path, line: int, row: dict[str, str]
) -> tuple[Cell, list[Printed]]:
    """The exact cell a transcription line names and its printed figures; an input error
    with the line where it names nothing or prints no number."""
    try:
        cell = resolver.cell(row["table"], row["row"], row["column"])
        return cell, parse(blank(row["printed"], cell.names))
    except (ValueError, pl.exceptions.PolarsError) as exc:
        raise InputError(
            published,
            f"line {line}",
            f"{row['table']} / {row['row']} / {row['column']} names no figure: {exc}",
            "see docs/verify.md for table, row and column names and the printed forms",
        ) from None


def verify(ctx: ReportContext, published: Path, tolerance: float = 0.01) -> Verified:
    """Every transcribed cell compared with the exact figures. A transcription line naming
    nothing is an input error with its line."""
    resolver = Resolver(ctx)
    checker = Checker(tolerance, unit_table(ctx.report.units), ctx.formatter(TOOL))
    lines = read_published(published)
    found, figures = [], 0
    for line, row in lines:
        cell, printed = _transcribed(resolver, published, line, row)
        figures += len(printed)
        differs = checker.compare(row["printed"], cell, printed)
        if differs:
            exact, note = differs
            found.append(
                Discrepancy(
                    line, row["table"], row["row"], row["column"], row["printed"], exact, note
                )
            )
    return Verified(len(lines), figures, found)
