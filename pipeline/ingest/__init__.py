"""Format readers, in one explicit registry.

Each reader module exposes ``NAME``, ``DESCRIPTION``, ``sniff(head: bytes) -> bool`` (never
raises) and ``read(path, options) -> ReadResult`` (raises ``InputError`` for a file it
cannot read at all; rejects single bad records). The order of ``FORMATS`` is the order
in which sniffing tries them: the most specific signature first.
"""

from __future__ import annotations

from pathlib import Path
from types import ModuleType

from pipeline.errors import InputError
from pipeline.ingest import fio, fio_log, iogen, vdbench
from pipeline.ingest.base import ReadOptions, ReadResult, Reject

# fio first: its JSON keys are unmistakable; iogen's header test is looser.
# fio_log last: its sniffer only sees rows of numbers.
FORMATS: tuple[ModuleType, ...] = (fio, vdbench, iogen, fio_log)
SNIFF_BYTES = 8192

__all__ = ["FORMATS", "ReadOptions", "ReadResult", "Reject", "detect", "get_format", "read"]


def names() -> list[str]:
    return [fmt.NAME for fmt in FORMATS]


def get_format(name: str) -> ModuleType:
    for fmt in FORMATS:
        if name == fmt.NAME:
            return fmt
    raise InputError("--format", "", f"unknown format {name!r}", f"use one of {names()}")


def detect(path: Path) -> ModuleType:
    """The first format whose sniffer recognises the file's first bytes."""
    try:
        with path.open("rb") as fh:
            head = fh.read(SNIFF_BYTES)
    except OSError as exc:
        raise InputError(path, "", f"cannot open: {exc.strerror}", "check the path") from None
    if not head.strip():
        raise InputError(
            path,
            "",
            "the file is empty",
            "check that the tool finished writing it, or leave it out",
        )
    for fmt in FORMATS:
        if fmt.sniff(head):
            return fmt
    raise InputError(
        path,
        "line 1",
        "format not recognised",
        f"pass the format explicitly (--format, or format= in report.toml): one of {names()}",
    )


def read(path: Path, options: ReadOptions, fmt: str | None = None) -> ReadResult:
    """Read one raw file; an explicit format always wins over sniffing."""
    module = get_format(fmt) if fmt else detect(path)
    result: ReadResult = module.read(path, options)
    return result
