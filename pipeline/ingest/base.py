"""Types shared by every format reader."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

import polars as pl

from pipeline.config import ColumnMapping
from pipeline.errors import InputError


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
    """Interval rows accepted from one file, plus everything rejected."""

    intervals: pl.DataFrame
    rejects: list[Reject]
    records_read: int
    notes: list[str] = field(default_factory=list)
    source: str = ""

    @property
    def accepted(self) -> int:
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
