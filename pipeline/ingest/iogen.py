"""IOgen tabular export (and any delimited table mapped onto it). See docs/formats/iogen.md."""

from __future__ import annotations

import csv
import io
import math
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Literal

import polars as pl
from pydantic import Field, field_validator, model_validator

from pipeline.config import Strict
from pipeline.errors import InputError
from pipeline.ingest.base import ReadOptions, ReadResult, Reject
from pipeline.inputs import read_text
from pipeline.language.message import Message
from pipeline.schema import INTERVAL_FIELDS, conform
from pipeline.units import TIME_UNITS_US, parse_block_size, rate_factor


class ColumnMapping(Strict):
    """How a tabular file maps onto the IOgen layout (see docs/formats/iogen.md)."""

    columns: dict[str, str] = Field(default_factory=dict)
    delimiter: str = ";"
    decimal: Literal[".", ","] = "."
    thousands: Literal["", ",", ".", "'", "’", " "] = ""
    comment: str = "#"
    latency_unit: Literal["ns", "us", "µs", "ms", "s"] = "ms"
    bandwidth_unit: Literal["B/s", "KiB/s", "MiB/s", "GiB/s", "KB/s", "MB/s", "GB/s"] = "MiB/s"

    @field_validator("delimiter")
    @classmethod
    def _one_char(cls, v: str) -> str:
        if len(v) != 1:
            raise ValueError("delimiter must be a single character, e.g. ';' or ','")
        return v

    @model_validator(mode="after")
    def _separators_differ(self) -> ColumnMapping:
        if self.thousands == self.decimal:
            raise ValueError("thousands and decimal separator must differ")
        return self

    def undeclared_unit(self) -> str | None:
        """The bandwidth column where its name says KB or MB and no unit is declared."""
        column = self.columns.get("mb_s", "mb_s")
        declared = "bandwidth_unit" in self.model_fields_set
        named = "kb" in column.lower() or "mb" in column.lower()
        return column if named and not declared else None


NAME = "iogen"
DESCRIPTION = "IOgen tabular export or any delimited table with a column mapping"
OPTIONS = {"mapping": ColumnMapping}  # report.toml [sources.mapping]
EMPTY = None
HOSTS_SUMMED = False


def mapping_of(options: ReadOptions) -> ColumnMapping:
    """The source's column mapping, else IOgen's own layout."""
    return options.option("mapping", ColumnMapping) or ColumnMapping()


# canonical name -> column name in IOgen's own export
DEFAULT_COLUMNS: dict[str, str] = {
    "host": "host",
    "test": "test",
    "block_size": "block_size",
    "access": "access",
    "read_pct": "read_pct",
    "processes": "processes",
    "interval": "interval",
    "interval_s": "interval_s",
    "ios": "ios",
    "iops": "iops",
    "mb_s": "mb_s",
    "service_time": "service_ms",
    "read_service_time": "read_service_ms",
    "write_service_time": "write_service_ms",
    "cpu_pct": "cpu_pct",
}
REQUIRED = (
    "host",
    "block_size",
    "access",
    "read_pct",
    "processes",
    "interval",
    "interval_s",
    "service_time",
)
ACCESS = {
    "random": "random",
    "rand": "random",
    "r": "random",
    "sequential": "sequential",
    "seq": "sequential",
    "s": "sequential",
}
SIGNATURE = ("host", "processes", "interval")


def sniff(head: bytes) -> bool:
    """IOgen's own header, or its ``# IOgen`` banner, in the first bytes."""
    try:
        text = head.decode("utf-8", errors="replace")
        lines = [ln.strip() for ln in text.splitlines() if ln.strip()]
        if lines and lines[0].lower().startswith("# iogen"):
            return True
        header = next((ln for ln in lines if not ln.startswith("#")), "")
        cells = {c.strip().lower() for c in header.replace(",", ";").split(";")}
        return all(name in cells for name in SIGNATURE)
    except Exception:
        return False


def read(path: Path, options: ReadOptions) -> ReadResult:
    label = options.source_label(path)
    text = read_text(path)
    rows = _guarded(path, _data_lines(text, mapping_of(options)))
    header_no, header = next(rows, (0, []))
    if not header:
        raise InputError(
            path,
            "line 1",
            "no header row found",
            "the first non-comment line must name the columns (see docs/formats/iogen.md)",
        )
    index = _column_index(path, header_no, header, mapping_of(options))
    parser = _RowParser(index, options, label)
    records, rejects, count = [], [], 0
    for line_no, cells in rows:
        count += 1
        try:
            records.append(parser.parse(line_no, cells))
        except _RowError as err:
            rejects.append(Reject(label, err.where(line_no), err.reason))
    frame = _frame(records)
    frame, dupes = _drop_duplicates(frame, label)
    return ReadResult(frame, rejects + dupes, count, [], label)


def _guarded(path: Path, rows: Iterator[tuple[int, list[str]]]) -> Iterator[tuple[int, list[str]]]:
    """The csv module's own errors (e.g. an unclosed quote) as an InputError with the line."""
    line = 0
    try:
        for line, cells in rows:
            yield line, cells
    except csv.Error as exc:
        raise InputError(
            path,
            f"line {line + 1}",
            f"not a delimited table: {exc}",
            "check quoting and the delimiter (mapping 'delimiter')",
        ) from None


def _data_lines(text: str, mapping: ColumnMapping) -> Iterator[tuple[int, list[str]]]:
    """(line number, cells) of every non-blank, non-comment line; the first is the header."""
    text = text.replace("\r\n", "\n").replace("\r", "\n")
    reader = csv.reader(io.StringIO(text), delimiter=mapping.delimiter)
    for cells in reader:
        line_no = reader.line_num
        if not cells or all(not c.strip() for c in cells):
            continue
        if cells[0].lstrip().startswith(mapping.comment):
            continue
        yield line_no, [c.strip() for c in cells]


def _column_index(
    path: Path, line_no: int, header: list[str], mapping: ColumnMapping
) -> dict[str, int]:
    names = {**DEFAULT_COLUMNS, **mapping.columns}
    unknown = sorted(set(mapping.columns) - set(DEFAULT_COLUMNS))
    if unknown:
        raise InputError(
            path,
            "column mapping",
            f"unknown field(s) {unknown}",
            f"map only these fields: {sorted(DEFAULT_COLUMNS)}",
        )
    position = {name.lower(): i for i, name in enumerate(header)}
    index = {key: position[col.lower()] for key, col in names.items() if col.lower() in position}
    missing = [names[k] for k in REQUIRED if k not in index]
    if "ios" not in index and "iops" not in index:
        missing.append(f"{names['ios']} or {names['iops']}")
    if missing:
        raise InputError(
            path,
            f"line {line_no}",
            f"missing column(s): {', '.join(missing)}",
            "add the columns, or map your column names ([sources.mapping.columns] "
            "in report.toml, or iopress ingest --mapping; see docs/formats/iogen.md)",
        )
    return index


class _RowError(Exception):
    """A data row that cannot become a record: the column at fault (if one) and why."""

    def __init__(self, column: str, key: str, **values: object) -> None:
        self.reason = Message.of(f"iogen.{key}", **values)
        super().__init__(str(self.reason))
        self.column = column

    def where(self, line: int) -> Message:
        if self.column:
            return Message.of("where.line_column", line=line, column=repr(self.column))
        return Message.of("where.line", line=line)


class _RowParser:
    """Turns the cells of one data row into one interval record in base units."""

    def __init__(self, index: dict[str, int], options: ReadOptions, label: str) -> None:
        self.index = index
        self.options = options
        self.label = label
        self.mapping = mapping_of(options)
        self.names = {**DEFAULT_COLUMNS, **self.mapping.columns}
        self.lat_factor = TIME_UNITS_US[self.mapping.latency_unit]
        self.rate_factor = rate_factor(self.mapping.bandwidth_unit, options.units)
        self.width = max(index.values()) + 1 if index else 0

    def cell(self, cells: list[str], key: str) -> str | None:
        pos = self.index.get(key)
        if pos is None:
            return None
        if pos >= len(cells):
            raise _RowError("", "short_row", n=len(cells))
        return cells[pos] or None

    def parse(self, line_no: int, cells: list[str]) -> dict[str, object]:
        if len(cells) != self.width:
            raise _RowError("", "width", n=len(cells), header=self.width)
        num = self._numbers(cells)
        block = self._block(cells)
        iops = (
            num["iops"] if num["iops"] is not None else _need(num, "ios") / _need(num, "interval_s")
        )
        bytes_per_s = num["mb_s"] * self.rate_factor if num["mb_s"] is not None else iops * block
        return {
            **self._identity(cells, block),
            "interval": int(_need(num, "interval")),
            "interval_s": num["interval_s"],
            "iops": iops,
            "bytes_per_s": bytes_per_s,
            "lat_mean_us": _need(num, "service_time") * self.lat_factor,
            "read_lat_mean_us": _scaled(num["read_service_time"], self.lat_factor),
            "write_lat_mean_us": _scaled(num["write_service_time"], self.lat_factor),
            "cpu_pct": num["cpu_pct"],
            "source": self.label,
            "line": line_no,
        }

    def _identity(self, cells: list[str], block: int) -> dict[str, object]:
        access_text = (self.cell(cells, "access") or "").lower()
        if access_text not in ACCESS:
            raise _RowError(self.names["access"], "access", value=repr(access_text))
        host = self.cell(cells, "host")
        if not host:
            raise _RowError(self.names["host"], "host_empty")
        return {
            "system": self.options.system,
            "setup": self.options.setup,
            "tool": NAME,
            "host": host,
            "access": ACCESS[access_text],
            "block_size": block,
            "read_pct": self._number(cells, "read_pct", _percent),
            "parallelism": int(self._number(cells, "processes", _whole_positive)),
            "queue_depth": 1,  # IOgen workers are synchronous: one I/O in flight each
        }

    def _block(self, cells: list[str]) -> int:
        text = self.cell(cells, "block_size") or ""
        try:
            return parse_block_size(text)
        except ValueError as exc:
            raise _RowError(self.names["block_size"], "block_size", value=repr(text)) from exc

    def _numbers(self, cells: list[str]) -> dict[str, float | None]:
        values = {key: self._optional(cells, key, check) for key, check in _MEASURES.items()}
        if values["interval_s"] is None:
            raise _RowError(self.names["interval_s"], "interval_empty")
        return values

    def _optional(self, cells: list[str], key: str, check: Callable[[float], str]) -> float | None:
        text = self.cell(cells, key)
        return None if text is None else self._value(text, key, check)

    def _number(self, cells: list[str], key: str, check: Callable[[float], str]) -> float:
        return self._value(self.cell(cells, key) or "", key, check)

    def _value(self, text: str, key: str, check: Callable[[float], str]) -> float:
        """``text`` of the column ``key`` as a number that passes ``check``."""
        mapping = self.mapping
        text = text.rstrip("%").strip()
        if mapping.thousands:
            text = text.replace(mapping.thousands, "")
        if mapping.decimal == ",":
            text = text.replace(",", ".")
        try:
            value = float(text)
        except ValueError:
            raise _RowError(self.names[key], "not_number", value=repr(text)) from None
        problem = check(value) if math.isfinite(value) else "finite"
        if problem:
            raise _RowError(self.names[key], problem, value=f"{value:g}")
        return value


def _need(num: dict[str, float | None], key: str) -> float:
    value = num[key]
    if value is None:
        raise _RowError(DEFAULT_COLUMNS[key], "value_empty")
    return value


def _scaled(value: float | None, factor: float) -> float | None:
    return None if value is None else value * factor


def _positive(v: float) -> str:
    return "" if v > 0 else "positive"


def _non_negative(v: float) -> str:
    return "" if v >= 0 else "non_negative"


def _whole_positive(v: float) -> str:
    return "" if v > 0 and v == int(v) else "whole_positive"


def _percent(v: float) -> str:
    return "" if 0 <= v <= 100 else "percent"


# the measured columns of a row (each may be empty) and the check of each
_MEASURES: dict[str, Callable[[float], str]] = {
    "interval": _whole_positive,
    "interval_s": _positive,
    "ios": _non_negative,
    "iops": _non_negative,
    "mb_s": _non_negative,
    "service_time": _positive,
    "read_service_time": _positive,
    "write_service_time": _positive,
    "cpu_pct": _percent,
}


def _frame(records: list[dict[str, object]]) -> pl.DataFrame:
    schema = {f.name: f.dtype for f in INTERVAL_FIELDS}
    return conform(pl.DataFrame(records, schema=schema), INTERVAL_FIELDS)


def _drop_duplicates(frame: pl.DataFrame, label: str) -> tuple[pl.DataFrame, list[Reject]]:
    key = ["host", "access", "block_size", "read_pct", "parallelism", "interval"]
    dup = frame.select(pl.struct(key).is_duplicated() & ~pl.struct(key).is_first_distinct())
    mask = dup.to_series()
    rejects = [
        Reject(label, Message.of("where.line", line=line), Message.of("iogen.duplicate"))
        for line in frame.filter(mask)["line"].to_list()
    ]
    return frame.filter(~mask), rejects
