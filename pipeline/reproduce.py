"""``iopress verify --manifest``: a published ``manifest.json`` against the raw data now.

An auditor holds a report folder a vendor sent and the manifest of the build the vendor
published. Every input file the manifest lists is compared with the file the folder holds
now (size and SHA-256), files read now that it does not list are named, the records read,
accepted and rejected are compared, and every figure it lists (table, row, column, raw
value) with the figure re-derived from the raw data. The published manifest is untrusted
input: its shape is checked before any of it is used, an error names its JSON path.
"""

from __future__ import annotations

import json
import math
import os
import re
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any, NamedTuple

from pydantic import BaseModel, ConfigDict, TypeAdapter, ValidationError, field_validator

from pipeline.errors import InputError
from pipeline.inputs import CONTROL, read_text
from pipeline.language import Strings
from pipeline.manifest import figures as derived_figures
from pipeline.paths import TOOL
from pipeline.provenance import InputFile, versions
from pipeline.report.context import ReportContext

# bytes: a manifest is read whole, ≈ 10-20 × its size in memory; 7,500 files' is 3.5 MB
MAX_MANIFEST = 128 * 1024**2
RELATIVE = 1e-9  # a figure re-derived differs beyond this (the order of a sum's terms)
SAID = Strings(TOOL)


class _Strict(BaseModel):
    model_config = ConfigDict(strict=True, extra="ignore")


class PublishedInput(_Strict):
    path: str
    size: int
    sha256: str


class PublishedFigure(_Strict):
    table: str
    row: dict[str, Any]
    column: str
    value: float | None
    unit: str = ""

    @field_validator("row")
    @classmethod
    def _scalars(cls, row: dict[str, Any]) -> dict[str, Any]:
        if any(isinstance(v, dict | list) for v in row.values()):
            raise ValueError("a row names its columns' values: text, numbers, true/false, null")
        return row


class Published(_Strict):
    report: dict[str, Any]
    inputs: list[PublishedInput]
    accounting: dict[str, int]
    versions: dict[str, str] = {}
    figures: list[PublishedFigure]


@dataclass(frozen=True)
class Difference:
    """One thing the published manifest says otherwise than the data now."""

    what: str  # the file, the figure (table / row / column) or the count
    said: str  # what differs, in the tool's language

    def __str__(self) -> str:
        return f"{plain(self.what)}: {plain(self.said)}"


def plain(text: str) -> str:
    """``text`` with its control and direction characters escaped (``\\n``): a name from
    the manifest cannot print a line of its own."""
    return re.sub(CONTROL, lambda m: m[0].encode("unicode_escape").decode("ascii"), text)


class Reproduced(NamedTuple):
    files: int  # input files the manifest lists
    figures: int  # figures it lists
    found: list[Difference]
    notes: list[str]  # what differs and is no difference (the versions)


def read_manifest(path: Path) -> Published:
    """The published manifest, its shape checked; an input error names the line and
    column of a JSON error, the JSON path of a value of the wrong kind or of an entry
    listed twice."""
    data = _json(path)
    try:
        published = TypeAdapter(Published).validate_python(data)
    except ValidationError as exc:
        first = exc.errors()[0]
        raise InputError(path, _json_path(first["loc"]), first["msg"], FIX) from None
    _once(path, "inputs", [f.path for f in published.inputs])
    _once(path, "figures", [_key(f.table, f.row, f.column) for f in published.figures])
    return published


def _json(path: Path) -> Any:
    try:
        size = os.stat(path).st_size
    except OSError:
        size = 0  # read_text says why it cannot be read
    if size > MAX_MANIFEST:
        said = f"too large ({size:,} bytes; a manifest iopress writes is at most {MAX_MANIFEST:,})"
        raise InputError(path, "", said, FIX)
    text = read_text(path, MAX_MANIFEST)
    try:
        return json.loads(text)
    except json.JSONDecodeError as exc:
        where = f"line {exc.lineno}, column {exc.colno}"
        raise InputError(path, where, f"not JSON: {exc.msg}", FIX) from None
    except (RecursionError, ValueError) as exc:  # nested too deeply, a number too long
        said = "nested too deeply" if isinstance(exc, RecursionError) else str(exc)
        raise InputError(path, "", f"not a manifest: {said}", FIX) from None


def _once(path: Path, part: str, keys: list[Any]) -> None:
    """Each file and each figure listed once: a copy would count as checked twice."""
    first: dict[Any, int] = {}
    for index, key in enumerate(keys):
        if key in first:
            said = f"the same {part[:-1]} as {part}[{first[key]}]"
            raise InputError(path, f"{part}[{index}]", said, FIX)
        first[key] = index


FIX = "give the manifest.json a build wrote (OUT/manifest.json), unedited"


def _json_path(loc: tuple[int | str, ...]) -> str:
    text = "".join(f"[{part}]" if isinstance(part, int) else f".{part}" for part in loc)
    return text.lstrip(".") or "the whole file"


def reproduce(ctx: ReportContext, path: Path) -> Reproduced:
    """The published manifest at ``path`` against the report ``ctx`` read now."""
    published = read_manifest(path)
    found = [
        *_report(published.report, ctx),
        *_inputs(published.inputs, ctx.inputs()),
        *_accounting(published.accounting, ctx.dataset.accounting()),
        *_figures(published.figures, derived_figures(ctx)),
    ]
    notes = list(_versions(published.versions, versions()))
    return Reproduced(len(published.inputs), len(published.figures), found, notes)


def _report(published: Mapping[str, Any], ctx: ReportContext) -> Iterator[Difference]:
    now = {"id": ctx.report.id, "version": ctx.report.version}
    for key, value in now.items():
        if str(published.get(key)) != value:  # one the manifest lacks differs as well
            said = SAID("cli.manifest_differs", published=published.get(key, NONE), now=value)
            yield Difference(f"report {key}", said)


def _inputs(published: list[PublishedInput], now: list[InputFile]) -> Iterator[Difference]:
    """Each listed file changed or gone, then each file read now and not listed."""
    read = {f.path: f for f in now}
    for file in published:
        current = read.get(file.path)
        if current is None:
            yield Difference(file.path, SAID("cli.manifest_input_gone", sha256=file.sha256))
        elif (current.size, current.sha256) != (file.size, file.sha256.lower()):
            said = SAID("cli.manifest_input_changed", size=file.size, sha256=file.sha256)
            yield Difference(file.path, f"{said} {_now(current)}")
    listed = {file.path for file in published}
    for new in (f for f in now if f.path not in listed):
        yield Difference(new.path, SAID("cli.manifest_input_new", sha256=new.sha256))


def _now(current: InputFile) -> str:
    return SAID("cli.manifest_input_now", size=current.size, sha256=current.sha256)


def _accounting(published: Mapping[str, int], now: Mapping[str, int]) -> Iterator[Difference]:
    for key, value in now.items():
        if published.get(key) != value:
            said = SAID("cli.manifest_differs", published=published.get(key, NONE), now=value)
            yield Difference(key, said)


NONE = "–"  # what a manifest lacks, shown as published


def _key(table: str, row: Mapping[str, Any], column: str) -> tuple[str, str, str]:
    """A figure's identity, whatever the JSON's spelling of its row's numbers: ``jq .`` or
    JavaScript's JSON.stringify write iopress's ``100.0`` as ``100``."""
    same = {k: _number(v) for k, v in row.items()}
    return table, json.dumps(same, sort_keys=True, default=str), column


def _number(value: Any) -> Any:
    """A row's number as one kind (a float), its other values as they are."""
    if isinstance(value, int | float) and not isinstance(value, bool):
        return float(value)
    return value


def _name(table: str, row: Mapping[str, Any], column: str) -> str:
    """A figure as the manifest names it: its row's columns in the table's order."""
    cells = ", ".join(f"{k}={v}" for k, v in row.items())
    return f"{table} / {cells} / {column}"


def _figures(published: list[PublishedFigure], now: list[dict[str, Any]]) -> Iterator[Difference]:
    """Each listed figure that differs or is no longer derived, then each derived now
    that is not listed."""
    derived = {_key(f["table"], f["row"], f["column"]): f for f in now}
    listed = set()
    for figure in published:
        key = _key(figure.table, figure.row, figure.column)
        listed.add(key)
        name = _name(figure.table, figure.row, figure.column)
        if key not in derived:
            yield Difference(name, SAID("cli.manifest_figure_gone"))
        elif not same(figure.value, (now_figure := derived[key])["value"]):
            was = _value({"value": figure.value, "unit": figure.unit})
            said = SAID("cli.manifest_differs", published=was, now=_value(now_figure))
            yield Difference(name, said)
    for key, new in derived.items():
        if key not in listed:
            said = SAID("cli.manifest_figure_new", now=_value(new))
            yield Difference(_name(new["table"], new["row"], new["column"]), said)


def _value(figure: Mapping[str, Any]) -> str:
    """A figure's raw value (every digit) and its unit; none as "–" (not "None"), a
    whole number as one ("2 workers/host" beside "1.0": a JSON writer's 1 or 1.0)."""
    value, unit = figure["value"], figure.get("unit") or ""
    if value is None:
        return NONE
    if isinstance(value, float) and value.is_integer() and abs(value) < 2**53:
        value = int(value)
    return f"{value} {unit}".rstrip()


def same(published: float | None, now: float | None) -> bool:
    """The same figure: both missing, both NaN, or equal within ``RELATIVE``."""
    if published is None or now is None:
        return published is now
    if math.isnan(published) or math.isnan(now):
        return math.isnan(published) and math.isnan(now)
    return math.isclose(published, now, rel_tol=RELATIVE, abs_tol=0.0)


def _versions(published: Mapping[str, str], now: Mapping[str, str]) -> Iterator[str]:
    for name, version in now.items():
        if name in published and published[name] != version:
            yield SAID("cli.manifest_version", name=name, published=published[name], now=version)
