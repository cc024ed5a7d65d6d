"""Where every number came from: the input files (size, sha256), the tools that wrote
them, and the versions of iopress and its dependencies."""

from __future__ import annotations

import functools
import hashlib
import os
from collections import Counter
from collections.abc import Callable, Mapping, Sequence
from dataclasses import asdict, dataclass
from importlib import metadata
from pathlib import Path

import polars as pl

from pipeline import __version__
from pipeline.config import Report
from pipeline.dataset import Dataset
from pipeline.inputs import Seen, digest, resolved
from pipeline.paths import ROOT

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


def _tools(intervals: pl.DataFrame) -> dict[str, str]:
    """Per raw file, the tools and versions its rows state ("fio 3.33"): one pass over the
    rows, whatever the number of files."""
    pairs = intervals.select("source", "tool", "tool_version").unique()
    found: dict[str, list[str]] = {}
    for source, tool, version in pairs.iter_rows():
        named = version and str(version).lower().startswith(str(tool).lower())  # "fio-3.33"
        label = str(version) if named else f"{tool} {version}" if version else str(tool)
        found.setdefault(source, []).append(label)
    return {source: ", ".join(sorted(names)) for source, names in found.items()}


def _file(
    root: Path, path: Path, kind: str, seen: Mapping[str, Seen], tools: str = ""
) -> InputFile:
    """The file as the build read it (its bytes' hash, taken while reading, and the place
    the open file lay: a name swapped for a link afterwards changes nothing); a file the
    build only lists (a method file) is read here, once. ``root``: the report folder,
    resolved."""
    found = seen.get(os.path.abspath(path)) or digest(path)
    return InputFile(_name(root, Path(found.real)), found.size, found.sha256, kind, tools)


def _name(root: Path, real: Path) -> str:
    """A file's name in the list: relative to the report folder; iopress's own files read
    beside it (the SPC-1 catalogue) marked ``iopress:`` and named within iopress."""
    if real.is_relative_to(root):
        return real.relative_to(root).as_posix()
    own = real.relative_to(ROOT).as_posix() if real.is_relative_to(ROOT) else real.name
    return f"iopress:{own}"


def inputs(
    folder: Path,
    report: Report,
    dataset: Dataset,
    others: Sequence[tuple[Path, str]] = (),
    seen: Mapping[str, Seen] | None = None,
) -> list[InputFile]:
    """Every file the build read: raw sources, the files read beside them (fio JSON or job
    files of logs, vdbench totals), and ``others`` (report.toml, texts, SPC-1 records), as
    ``seen`` when they were read (``inputs.ledger``)."""
    book, root, tools = seen or {}, resolved(folder), _tools(dataset.intervals)
    files = [
        _file(
            root,
            folder / s.path,
            s.format or dataset.formats.get(s.path, "?"),
            book,
            tools.get(s.path, ""),
        )
        for s in report.sources
    ]
    for source, paths in dataset.sidecars.items():
        files += [_file(root, p, "sidecar", book, source) for p in paths]
    files += [_file(root, p, kind, book) for p, kind in others]
    # one row per file read: the same name twice is the same file (a source listed as a
    # text too), never a second file hidden behind the first one's name
    unique = {(f.path, f.sha256): f for f in reversed(files)}
    return [f for f in files if unique[f.path, f.sha256] is f]


def table(files: list[InputFile]) -> pl.DataFrame:
    """The inputs, one row per file (``OUT/inputs.csv``; manifest.json lists them too)."""
    schema = {"path": pl.String, "size": pl.Int64, "sha256": pl.String}
    schema |= {"format": pl.String, "tools": pl.String}
    return pl.DataFrame([asdict(f) for f in files], schema=schema, orient="row")


GROUP = 4  # a folder with more method files than this is one row of the PDF's table
LARGE = 50  # a top folder with more files read than this is one row of the PDF's table
MANY = 500  # a report reading more files: every top folder of several files is one row
EVERY = "*/"  # the row of every top folder's files, where more than LARGE folders are rows
HERE = "./"  # the row of the report folder's own files of one kind, where they are many


def grouped(files: list[InputFile]) -> tuple[list[InputFile], dict[str, int]]:
    """The files for the PDF, in order, and how many files each summary row stands for.
    A top folder of the report holding more than ``LARGE`` of them (a lab's archive) is
    one row ``raw/``, and every top folder of several where the report reads more than
    ``MANY`` (all of them one row ``*/`` where they would be more than ``LARGE`` rows);
    the report folder's own files of one kind beyond ``LARGE`` one row
    ``./ (fio)``; a folder's more than ``GROUP`` method files (a campaign's job files)
    one row ``jobs/*``. A row's SHA-256 is that of the listing ``sha256sum`` prints for
    its files in path order (:func:`combined`); manifest.json lists every file."""
    group = _grouping(files)
    members: dict[str, list[InputFile]] = {}
    for f in files:
        members.setdefault(group(f), []).append(f)
    rows, counts = [], {}
    for f in files:
        name = group(f)
        if not name:
            rows.append(f)
        elif f is members[name][0]:
            rows.append(combined(name, members[name]))
            counts[name] = len(members[name])
    return rows, counts


def _grouping(files: list[InputFile]) -> Callable[[InputFile], str]:
    """A file's summary row (``./ (fio)`` for the report folder's own files of a kind),
    or "" where it keeps a row of its own."""
    tops = Counter(_top(f.path) for f in files)
    here = Counter(f.format for f in files if not _top(f.path))
    methods = Counter(f.path.rpartition("/")[0] for f in files if f.format == "method")
    least = 1 if len(files) > MANY else LARGE
    every = sum(n > least for top, n in tops.items() if top) > LARGE  # then one row: */

    def group(f: InputFile) -> str:
        top, folder = _top(f.path), f.path.rpartition("/")[0]
        if top and (every or tops[top] > least):
            return EVERY if every else f"{top}/"
        if not top and here[f.format] > LARGE:
            return f"{HERE} ({f.format})"
        return f"{folder}/*" if f.format == "method" and methods[folder] > GROUP else ""

    return group


def _top(path: str) -> str:
    """The top folder of a path relative to the report folder ("" for a file in it)."""
    top, _, rest = path.partition("/")
    return top if rest else ""


def _listed(f: InputFile) -> str:
    """The line ``sha256sum`` (GNU coreutils 9) prints for a file: a name holding a
    backslash, newline or carriage return escaped, the line then marked by a backslash."""
    name = f.path.replace("\\", "\\\\").replace("\n", "\\n").replace("\r", "\\r")
    mark = "\\" if name != f.path else ""
    return f"{mark}{f.sha256}  {name}\n"


def combined(name: str, files: list[InputFile]) -> InputFile:
    """One row for ``files``: their bytes, and the SHA-256 of the lines ``sha256sum``
    prints for them in the byte order of their paths (``LC_ALL=C sha256sum jobs/* |
    sha256sum`` in the report folder for a flat folder; see docs/verify.md); its tools
    those of its files (a sidecar's names its raw file)."""
    members = sorted(files, key=lambda m: m.path)
    listing = "".join(_listed(m) for m in members)
    digest = hashlib.sha256(listing.encode()).hexdigest()
    kinds = {m.format for m in members}
    tools = {t for m in members if m.format != "sidecar" for t in m.tools.split(", ")}
    kind = kinds.pop() if len(kinds) == 1 else "folder"
    size = sum(m.size for m in members)
    return InputFile(name, size, digest, kind, ", ".join(sorted(tools - {""})))


def versions() -> dict[str, str]:
    """iopress and the dependencies that shape the output."""
    return dict(_versions())


@functools.cache
def _versions() -> dict[str, str]:
    """Looked up once per process (each lookup walks the installed packages: ≈ 10 ms for
    the list; the manifest and each language's appendix print it)."""
    found = {"iopress": __version__}
    for name in DEPENDENCIES:
        try:
            found[name] = metadata.version(name)
        except metadata.PackageNotFoundError:
            found[name] = "not installed"
    return found
