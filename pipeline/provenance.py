"""Where every number came from: the input files (size, sha256), the tools that wrote
them, and the versions of iopress and its dependencies."""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from dataclasses import dataclass
from importlib import metadata
from pathlib import Path

import polars as pl

from pipeline import __version__
from pipeline.config import Report
from pipeline.dataset import Dataset

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


def _file(folder: Path, path: Path, kind: str, tools: str = "") -> InputFile:
    resolved, root = path.resolve(), folder.resolve()
    name = (
        resolved.relative_to(root).as_posix()
        if resolved.is_relative_to(root)
        else f"{resolved.parent.name}/{resolved.name}"
    )
    return InputFile(name, resolved.stat().st_size, sha256(resolved), kind, tools)


def inputs(
    folder: Path, report: Report, dataset: Dataset, others: Sequence[tuple[Path, str]] = ()
) -> list[InputFile]:
    """Every file the build read: raw sources, the files read beside them (fio JSON or job
    files of logs, vdbench totals), and ``others`` (report.toml, texts, SPC-1 records)."""
    files = [
        _file(
            folder,
            folder / s.path,
            s.format or dataset.formats.get(s.path, "?"),
            _tools(dataset.intervals, s.path),
        )
        for s in report.sources
    ]
    for source, paths in dataset.sidecars.items():
        files += [_file(folder, p, "sidecar", source) for p in paths]
    files += [_file(folder, p, kind) for p, kind in others]
    unique = {f.path: f for f in reversed(files)}
    return [f for f in files if unique[f.path] is f]


def versions() -> dict[str, str]:
    """iopress and the dependencies that shape the output."""
    found = {"iopress": __version__}
    for name in DEPENDENCIES:
        try:
            found[name] = metadata.version(name)
        except metadata.PackageNotFoundError:
            found[name] = "not installed"
    return found
