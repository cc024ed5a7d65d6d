"""Types shared by every format reader."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

import polars as pl

from pipeline.config import ColumnMapping
from pipeline.errors import InputError
from pipeline.schema import INTERVAL_FIELDS


@dataclass(frozen=True)
class Reject:
    """One record that was read but not accepted, with the reason."""

    source: str
    where: str
    reason: str

    def __str__(self) -> str:
        return f"{self.source}: {self.where}: {self.reason}"


@dataclass(frozen=True)
class ReadOptions:
    """What a reader needs to know beyond the file itself."""

    system: str = "unnamed"
    setup: str = "default"
    host: str = "local"
    params: dict[str, str] | None = None
    label: str = ""
    mapping: ColumnMapping = field(default_factory=ColumnMapping)

    def source_label(self, path: Path) -> str:
        return self.label or path.name


@dataclass
class ReadResult:
    """Interval rows accepted from one file, plus everything rejected.

    A reader gives the rows either as a frame or as plain ``rows`` (dicts of schema
    columns); plain rows of many files become one frame at once in ``combine``."""

    frame: pl.DataFrame | None
    rejects: list[Reject]
    records_read: int
    notes: list[str] = field(default_factory=list)
    source: str = ""
    rows: list[dict[str, object]] | None = None

    @property
    def intervals(self) -> pl.DataFrame:
        if self.frame is None:
            self.frame = interval_frame(self.rows or [])
        return self.frame

    @property
    def accepted(self) -> int:
        if self.frame is None and self.rows is not None:
            return len(self.rows)
        return self.intervals.height


def read_text(path: Path) -> str:
    """A raw file as text; bytes that are not UTF-8 are an input error with their line."""
    try:
        raw = path.read_bytes()
    except OSError as exc:
        raise InputError(path, "", f"cannot read: {exc.strerror}", "check the path") from None
    try:
        return raw.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        line = raw[: exc.start].count(b"\n") + 1
        raise InputError(
            path, f"line {line}", f"not UTF-8 text (byte {exc.start})", "save the file as UTF-8"
        ) from None


INTERVAL_SCHEMA = {f.name: f.dtype for f in INTERVAL_FIELDS}
NULL_ROW = {f.name: None for f in INTERVAL_FIELDS}


def interval_frame(rows: list[dict[str, object]]) -> pl.DataFrame:
    """Interval rows as a frame in schema order and types, in one step (absent optional
    columns are empty)."""
    return pl.DataFrame([{**NULL_ROW, **row} for row in rows], schema=INTERVAL_SCHEMA)
