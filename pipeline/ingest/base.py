"""Types shared by every format reader."""

from __future__ import annotations

import datetime as dt
import functools
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Protocol, TypeVar, runtime_checkable

import polars as pl
from pydantic import BaseModel

from pipeline.errors import InputError
from pipeline.inputs import Seen, is_inside, resolved
from pipeline.language.message import Message
from pipeline.schema import INTERVAL_FIELDS
from pipeline.units import Convention, convert_time


@dataclass(frozen=True)
class Reject:
    """One record that was read but not accepted, with the reason."""

    source: str
    where: Message
    reason: Message

    def __str__(self) -> str:
        return f"{self.source}: {self.where}: {self.reason}"


Model = TypeVar("Model", bound=BaseModel)


@dataclass(frozen=True)
class ReadOptions:
    """What a reader needs to know beyond the file itself."""

    system: str = "unnamed"
    setup: str = "default"
    host: str = "local"
    label: str = ""
    # the readers' options by report.toml source key (``Reader.OPTIONS``): a reader takes
    # its own by ``option``; given to another, they are noted as not used
    options: Mapping[str, BaseModel] = field(default_factory=dict)
    root: Path | None = None  # sidecar files must lie inside (default: the file's folder)
    units: Convention = "binary"  # what KB/s, MB/s mean in the file
    # every file of this read (none given: unknown): a reader that reads several files as
    # one (a fio job's logs) leaves them to the first of them listed
    listed: frozenset[Path] = frozenset()

    def option(self, key: str, model: type[Model]) -> Model | None:
        """The option ``key`` of a reader that declares it as ``model``, if given."""
        found = self.options.get(key)
        return found if isinstance(found, model) else None

    def source_label(self, path: Path) -> str:
        return self.label or path.name

    def may_read(self, path: Path, sidecar: Path) -> bool:
        """May the reader of ``path`` also read ``sidecar``? Only inside the root, links
        resolved: a report folder's files never lead outside it."""
        return is_inside(self.root or path.parent, sidecar)

    def sidecar_folders(self, path: Path, levels: int = 3) -> list[Path]:
        """``path``'s folder and up to ``levels - 1`` above it, never above the root."""
        root = resolved(self.root or path.parent)
        folders: list[Path] = []
        folder = path.parent
        while len(folders) < levels and (real := folder.resolve()).is_relative_to(root):
            folders.append(folder)
            if real == root:
                break
            folder = folder.parent
        return folders


@dataclass(eq=False)
class Batch:
    """The plain rows of consecutive files as one frame: a row held as a dict takes about
    ten times its place in a frame, and a frame of its own per file costs ~8 KB."""

    frame: pl.DataFrame


@dataclass
class ReadResult:
    """Interval rows accepted from one file, plus everything rejected.

    A reader gives the rows either as a frame or as plain ``rows`` (dicts of schema
    columns). Reading many files moves plain rows into ``Batch`` frames shared by
    consecutive files (``span``: this file's first row there and its number of rows)."""

    frame: pl.DataFrame | None
    rejects: list[Reject]
    records_read: int
    notes: list[str] = field(default_factory=list)
    source: str = ""
    rows: list[dict[str, object]] | None = None
    sidecars: list[Path] = field(default_factory=list)  # other files read for this one
    skipped: bool = False  # nothing to read by design (an empty log, a clone read with another)
    format: str = ""  # the reader's format name (given, or recognised from the file)
    path: Path | None = None  # the file read (its views of one run are found by it)
    batch: Batch | None = None
    span: tuple[int, int] = (0, 0)
    seen: dict[str, Seen] = field(default_factory=dict)  # every file read, as read (inputs)
    # rows that measure the same points once more, not counted: fio's final cumulative
    # record beside its --status-interval snapshots (validation compares them)
    reference: list[dict[str, object]] = field(default_factory=list)
    # when the run ran, ms since the epoch, as the file states it (``stated_time``; the
    # latest where it states several): which run is the newest (report.toml ``repeats``)
    run_time: int | None = None

    @property
    def intervals(self) -> pl.DataFrame:
        if self.batch is not None:
            return self.batch.frame.slice(*self.span)
        if self.frame is None:
            self.frame = interval_frame(self.rows or [])
        return self.frame

    @property
    def accepted(self) -> int:
        if self.batch is not None:
            return self.span[1]
        if self.frame is None and self.rows is not None:
            return len(self.rows)
        return self.intervals.height

    @property
    def plain(self) -> int:
        """Rows held as dicts (0 when none or when the rows are in a frame)."""
        return len(self.rows or ()) if self.frame is None and self.batch is None else 0


def batch(results: list[ReadResult]) -> None:
    """Move the plain rows of ``results`` (consecutive files) into one shared frame."""
    if not results:
        return
    shared = Batch(interval_frame([row for r in results for row in r.rows or ()]))
    offset = 0
    for result in results:
        result.batch, result.span, result.rows = shared, (offset, len(result.rows or ())), None
        offset += result.span[1]


INTERVAL_SCHEMA = {f.name: f.dtype for f in INTERVAL_FIELDS}


def interval_frame(rows: list[dict[str, object]]) -> pl.DataFrame:
    """Interval rows as a frame in schema order and types, in one step (a column a row
    lacks is empty in that row)."""
    return pl.DataFrame(rows, schema=INTERVAL_SCHEMA) if rows else _empty_intervals().clear()


@functools.cache
def _empty_intervals() -> pl.DataFrame:
    """No rows (made once: a frame of 40 empty columns costs as much as one of rows)."""
    return pl.DataFrame(schema=INTERVAL_SCHEMA)


def problems(result: ReadResult, path: Path) -> list[InputError]:
    """A file that gave nothing although it should have: no job at all, or every record
    rejected. (A file ``skipped`` by design, e.g. an empty slat log, is fine.)"""
    if result.skipped or result.accepted:
        return []
    if not result.records_read:
        return [
            InputError(
                path, "", "holds no job record", "give a file with at least one finished job"
            )
        ]
    first = result.rejects[0]
    return [
        InputError(
            path,
            str(first.where),
            f"none of its {result.records_read} records was accepted; the first: {first.reason}",
            "fix the file, leave it out, or pass --keep-going to build from the other files",
        )
    ]


@runtime_checkable
class UnitOptions(Protocol):
    """Source options that say in which units a file's columns are (``[sources.mapping]``)."""

    def undeclared_unit(self) -> str | None:
        """The column whose name gives a unit the options leave to the default, if any."""


NO_OPTIONS: Mapping[str, type[BaseModel]] = {}  # a reader that reads no report.toml options


class Reader(Protocol):
    """A format's reader: each module of the registry (``ingest.FORMATS``) is one."""

    @property
    def NAME(self) -> str:
        """The format's name (report.toml ``format``, ``--format``)."""

    @property
    def DESCRIPTION(self) -> str:
        """What it reads, in a line (``iopress formats``)."""

    @property
    def OPTIONS(self) -> Mapping[str, type[BaseModel]]:
        """The keys of a report.toml source that this reader reads (``mapping``, ``params``)
        and their models; given to another reader, they are noted as not used."""

    @property
    def EMPTY(self) -> re.Pattern[str] | None:
        """The names of files of this format that the tool may leave empty (read as
        holding no record, not refused as empty), if any."""

    @property
    def HOSTS_SUMMED(self) -> bool:
        """Whether its records are the tool's totals over every host it drove, whose
        number and threads per host they do not say (vdbench's flatfile): the report
        then says so instead of "one server", "per server"."""

    def sniff(self, head: bytes) -> bool:
        """Whether the file's first bytes are this format's (never raises)."""

    def read(self, path: Path, options: ReadOptions) -> ReadResult:
        """Read one file (an ``InputError`` for a file it cannot read at all; a bad record
        is a reject)."""


def stated_time(text: str, layouts: Sequence[str] = ()) -> int | None:
    """A time as a result file prints it (ISO 8601, or one of ``layouts``, strptime's) in
    ms since the epoch; a time without a zone is taken as UTC. None where unreadable."""
    text = text.strip()
    for layout in layouts:
        try:
            return _epoch_ms(dt.datetime.strptime(text, layout))
        except ValueError:
            continue
    try:
        return _epoch_ms(dt.datetime.fromisoformat(text))
    except ValueError:
        return None


def _epoch_ms(when: dt.datetime) -> int:
    zoned = when if when.tzinfo is not None else when.replace(tzinfo=dt.UTC)
    return round(convert_time(zoned.timestamp(), "s", "ms"))


def latest(times: Sequence[int | None]) -> int | None:
    """The latest of the times a file states (None where it states none)."""
    return max((t for t in times if t is not None), default=None)


MAX_LINE = 4096  # characters in a line of a text report (DiskSpd's, CrystalDiskMark's < 300)


def text_lines(text: str, path: Path, tool: str) -> list[tuple[int, str]]:
    """The numbered lines of a tool's text report; a line far longer than the tool writes
    is an input error (the readers' patterns take time with the square of a line's length:
    a 60 KB line of colons took 50 s)."""
    lines = list(enumerate(text.splitlines(), start=1))
    for n, line in lines:
        if len(line) > MAX_LINE:
            raise InputError(
                path,
                f"line {n}",
                f"a line of {len(line):,} characters ({tool} writes none over a few hundred)",
                f"give {tool}'s output as it wrote it",
            )
    return lines
