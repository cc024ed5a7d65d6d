"""Where every number came from: the input files (size, sha256), the tools that wrote
them, and the versions of iopress and its dependencies."""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from importlib import metadata
from pathlib import Path

import polars as pl

from pipeline import __version__
from pipeline.config import Report

DEPENDENCIES = (
    "polars",
    "pyarrow",
    "altair",
    "vl-convert-python",
    "typst",
    "pypandoc-binary",
    "mkdocs",
    "mkdocs-material",
    "babel",
    "pydantic",
)


@dataclass(frozen=True)
class InputFile:
    path: str  # relative to the report folder
    size: int
    sha256: str
    format: str
    tools: str  # tool and version as the file states it


def sha256(path: Path) -> str:
    digest = hashlib.sha256()
    with path.open("rb") as fh:
        for block in iter(lambda: fh.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def _tools(intervals: pl.DataFrame, source: str) -> str:
    rows = intervals.filter(pl.col("source") == source).select("tool", "tool_version").unique()
    names = sorted(f"{t} {v}" if v else str(t) for t, v in rows.iter_rows())
    return ", ".join(names)


def inputs(folder: Path, report: Report, intervals: pl.DataFrame) -> list[InputFile]:
    files = []
    for src in report.sources:
        path = folder / src.path
        files.append(
            InputFile(
                src.path,
                path.stat().st_size,
                sha256(path),
                src.format or "sniffed",
                _tools(intervals, src.path),
            )
        )
    return files


def versions() -> dict[str, str]:
    """iopress and the dependencies that shape the output."""
    found = {"iopress": __version__}
    for name in DEPENDENCIES:
        try:
            found[name] = metadata.version(name)
        except metadata.PackageNotFoundError:
            found[name] = "not installed"
    return found
