"""The narrative: Markdown per language with placeholders for computed values.

``text/<lang>/<section>.md``; placeholders are jinja2 expressions such as
``{{ maximum("4K", "random", 100).iops }}``. A placeholder that names nothing fails the
build with the file and line.
"""

from __future__ import annotations

import difflib
import hashlib
import html
import inspect
import math
import re
import secrets
import time
import traceback
from collections.abc import Callable, Sequence
from contextvars import ContextVar
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, ClassVar

import jinja2
import polars as pl
from jinja2 import nodes
from jinja2.exceptions import SecurityError
from jinja2.runtime import Context
from jinja2.sandbox import ImmutableSandboxedEnvironment
from markupsafe import Markup

from pipeline.compute.tables import cell, latency_at_rate, levels, rate_at_limit
from pipeline.config import CONTROL_IN_TEXT, LANGS, LARGEST, Report
from pipeline.errors import InputError, InputErrors, NotFound
from pipeline.inputs import inside, read_text
from pipeline.language.fmt import Formatter
from pipeline.report.econ_views import figure
from pipeline.report.views import bandwidth, cpu, latency
from pipeline.units import TIME_UNITS_US, parse_block_size

MAX_SECTION_BYTES = 4 * 1024 * 1024
SECTIONS = ("summary", "setup", "method", "results", "economics", "conclusion")


@dataclass(frozen=True)
class Section:
    path: Path
    text: str


@dataclass(frozen=True)
class Filled:
    """A section with its placeholders resolved: Markdown in which ``self.marker(i)``
    stands for the i-th table or chart a directive placed."""

    path: Path
    text: str
    placed: list[tuple[str, str]]
    deprecated: list[Deprecated] = field(default_factory=list)  # old names it used
    token: str = ""  # in its markers (``marker``)

    def marker(self, index: int) -> str:
        return marker(index, self.token)


def load(folder: Path, names: Sequence[str] = SECTIONS) -> dict[str, dict[str, Section]]:
    """The text files ``names`` (their chapters: report/chapters.py) of every language
    that exist; both languages must have the same ones, and no other file may be there."""
    found: dict[str, dict[str, Section]] = {}
    for lang in LANGS:
        found[lang] = {}
        for name in names:
            path = folder / "text" / lang / f"{name}.md"
            if path.is_file() or path.is_symlink():
                inside(folder, path.relative_to(folder), path)
                found[lang][name] = Section(path, read_text(path, MAX_SECTION_BYTES))
    problems = _unpaired(folder, found) + _unknown(folder, names) + _controls(found)
    if problems:
        raise InputErrors(problems)
    return found


def _controls(found: dict[str, dict[str, Section]]) -> list[InputError]:
    """A control character in a text (no font shows it; typst would fail on it)."""
    problems = []
    for section in (s for texts in found.values() for s in texts.values()):
        hit = CONTROL_IN_TEXT.search(section.text)
        if hit:
            before = section.text[: hit.start()]
            line, column = before.count("\n") + 1, hit.start() - before.rfind("\n")
            where = f"line {line}, column {column}"
            what = f"control character U+{ord(hit[0]):04X} in text"
            problems.append(InputError(section.path, where, what, "remove it"))
    return problems


def _unknown(folder: Path, known: Sequence[str]) -> list[InputError]:
    """A Markdown file that is no chapter's text (a misspelt ``resluts.md``) would vanish."""
    problems = []
    for lang in LANGS:
        for path in sorted((folder / "text" / lang).glob("*.md")):
            if path.stem not in known:
                guess = difflib.get_close_matches(path.stem, known, n=1)
                hint = f"did you mean {guess[0]}.md? " if guess else ""
                problems.append(
                    InputError(
                        path,
                        "",
                        "no chapter of the report reads this text",
                        f"{hint}the chapters' texts are {', '.join(f'{n}.md' for n in known)}; "
                        "report.toml chapters lists the chapters (see docs/report.md)",
                    )
                )
    return problems


def _unpaired(folder: Path, found: dict[str, dict[str, Section]]) -> list[InputError]:
    problems = []
    for lang in LANGS:
        for other in LANGS:
            for name in set(found[lang]) - set(found[other]):
                problems.append(
                    InputError(
                        found[lang][name].path,
                        "",
                        f"section has no {other} counterpart",
                        f"write text/{other}/{name}.md",
                    )
                )
    return problems


@dataclass(frozen=True)
class Deprecated:
    """A placeholder name that was renamed, still understood: where, and what to write."""

    path: Path
    line: int
    old: str
    new: str

    def error(self) -> InputError:
        return InputError(
            self.path,
            f"line {self.line}",
            f"placeholder name {self.old} is deprecated, now {self.new}",
            f"write {self.new} (see docs/report.md, placeholder names)",
        )


_DEPRECATED: ContextVar[list[tuple[int, str, str]] | None] = ContextVar(
    "narrative_deprecated", default=None
)


def _deprecated(old: str, new: str) -> None:
    """Note that the placeholder being filled used the old name ``old`` for ``new``."""
    found = _DEPRECATED.get()
    if found is not None:
        found.append((_stack_line(), old, new))


# Names users wrote before they were renamed: the old name keeps working, with a warning
# that names the new one (``--strict`` fails on it). Attributes of a measured point:
RENAMED_VALUES: dict[str, str] = {
    "mb_s": "bytes_per_s",
    "lat_ms": "lat_mean_ms",
    "lat_us": "lat_mean_us",
}
# Columns that ``value()`` and ``ratio()`` name (the economics tables' earlier names):
RENAMED_COLUMNS: dict[str, str] = {
    "lat_ms": "lat_mean_us",
    "io_share": "io_share_pct",
    "old_ms": "old_lat_mean_us",
    "new_ms": "new_lat_mean_us",
}


class PointText:
    """The formatted values of one table row, for placeholders, named as in the dataset:
    ``.iops``, ``.bytes_per_s`` (in the table's bandwidth unit, without it),
    ``.parallelism``, ``.cpu_pct`` (the load generators' CPU load, whole %, without the
    sign), ``.share_of_maximum`` (the rate in % of the profile's maximum, whole, without
    the sign), ``.limit`` (a latency limit), and the mean latency with its unit:
    ``.lat_mean`` in the unit the table prints it in (the registry's, as its cells),
    ``.lat_mean_us`` and ``.lat_mean_ms`` in the unit their name says (the author's
    choice). A value the row does not have (e.g. ``.iops`` of a minimum-latency row) is not
    there, so naming it fails. The names in ``about`` are interpolated between two measured
    points and print with "≈"."""

    RENAMED: ClassVar[dict[str, str]] = RENAMED_VALUES
    NAMES = (
        "iops",
        "bytes_per_s",
        "lat_mean",
        "lat_mean_ms",
        "lat_mean_us",
        "parallelism",
        "cpu_pct",
        "share_of_maximum",
        "limit",
    )

    def __init__(
        self,
        row: dict[str, object],
        fmt: Formatter,
        table: str,
        maximum: float | None = None,
        about: frozenset[str] = frozenset(),
    ) -> None:
        num = {k: float(v) for k, v in row.items() if isinstance(v, int | float)}
        if maximum and "iops" in num:
            num["share_of_maximum"] = num["iops"] / maximum * 100
        for name, (column, show) in _shown(fmt, table).items():
            if column in num:
                text = show(num[column])
                setattr(self, name, fmt.t("table.about", value=text) if name in about else text)

    def __getattr__(self, name: str) -> str:
        if name in self.RENAMED:
            _deprecated(f".{name}", f".{self.RENAMED[name]}")
            return str(getattr(self, self.RENAMED[name]))
        if name in self.NAMES:
            has = [n for n in self.NAMES if n in self.__dict__]
            raise ValueError(f".{name}: this point has none; it has .{', .'.join(has)}")
        raise AttributeError(name)


# what an interpolated point's figures are (printed with "≈"; the rest are given or exact)
INTERPOLATED_RATE = frozenset(("iops", "bytes_per_s", "share_of_maximum"))
INTERPOLATED_LATENCY = frozenset(("lat_mean", "lat_mean_ms", "lat_mean_us"))


def _shown(fmt: Formatter, table: str) -> dict[str, tuple[str, Callable[[float], str]]]:
    """Each name of a ``PointText``: the row's column it shows, and how (as ``table``
    prints that column)."""
    return {
        "iops": ("iops", fmt.integer),
        "bytes_per_s": ("bytes_per_s", lambda v: bandwidth(fmt, table, v)),
        "lat_mean": ("lat_mean_us", lambda v: latency(fmt, table, v)),
        "lat_mean_ms": ("lat_mean_us", lambda v: fmt.latency(v, "ms")),
        "lat_mean_us": ("lat_mean_us", lambda v: fmt.latency(v, "µs")),
        "parallelism": ("parallelism", fmt.integer),
        "cpu_pct": ("cpu_pct", lambda v: cpu(fmt, v)),
        "share_of_maximum": ("share_of_maximum", fmt.integer),
        "limit": ("limit_us", lambda v: latency(fmt, table, v, "limit_us")),
    }


def _arguments(block: object, access: object, read_pct: object) -> tuple[int, str, float]:
    """The profile a placeholder names, checked: ("4K", "random", 100)."""
    if not isinstance(block, str):
        raise ValueError(f'block size {block!r} must be text such as "4K"')
    if access not in ("random", "sequential"):
        raise ValueError(f'access {access!r} must be "random" or "sequential"')
    if not isinstance(read_pct, int | float) or isinstance(read_pct, bool):
        raise ValueError(f"read share {read_pct!r} must be a number such as 100 or 70")
    return parse_block_size(block), str(access), float(read_pct)


def _comparable(name: str, wanted: object, dtype: pl.DataType) -> None:
    """A filter's value of the column's kind: ``year=2016``, not ``year="2016"``."""
    number = isinstance(wanted, int | float) and not isinstance(wanted, bool)
    if dtype.is_numeric() and not number:
        raise ValueError(f"{name}={wanted!r}: the column holds numbers, write {name}=2016")
    if dtype == pl.String and not isinstance(wanted, str):
        raise ValueError(f'{name}={wanted!r}: the column holds texts, write {name}="..."')


class Values:
    """What placeholders can name: ``maximum``, ``optimum``, ``speed``, ``min_latency``."""

    def __init__(
        self,
        tables: dict[str, pl.DataFrame],
        fmt: Formatter,
        placeable: dict[str, list[str]],
        report: Report,
        points: pl.DataFrame | None = None,
    ) -> None:
        self.tables = tables
        self.fmt = fmt
        self.placeable = placeable
        self.report = report
        self.points = points
        self.placed: list[tuple[str, str]] = []
        self.lines: list[int] = []  # the section's line of each directive placed

    def place(self, kind: str, name: str) -> Markup:
        """A directive: put table or chart ``name`` here (and not at its default place)."""
        if kind == "chart" and name in self.placeable.get("not drawn", []):
            raise ValueError(
                f"chart {name!r} is not drawn: each of its lines would be a single point "
                "(the results name it); take its placeholder out, or measure more levels"
            )
        if name not in self.placeable[kind]:
            raise ValueError(f"no {kind} {name!r}: one of {self.placeable[kind]}")
        if (kind, name) in self.placed:
            raise ValueError(f"{kind} {name!r} is placed already in this section")
        self.placed.append((kind, name))
        self.lines.append(_stack_line())
        return Markup(f"\n\n{marker(len(self.placed) - 1, _FILLING)}\n\n")

    def _row(
        self,
        table: str,
        block: object,
        access: object,
        read_pct: object,
        kind: str | None,
        setup: str | None = None,
        queue_depth: int | None = None,
    ) -> PointText:
        size, access_, pct = _arguments(block, access, read_pct)
        row = cell(self.tables[table], access_, size, pct, kind, setup, queue_depth)
        share = self._maximum(size, access_, pct, setup, queue_depth) if kind else None
        return PointText(row, self.fmt, table, share)

    def _maximum(
        self, size: int, access: str, pct: float, setup: str | None, queue_depth: int | None
    ) -> float:
        """The profile's maximum I/O rate (the performance table's), for shares of it."""
        found = cell(self.tables["performance"], access, size, pct, "maximum", setup, queue_depth)
        return float(found["iops"])  # type: ignore[arg-type]

    def _points(self) -> pl.DataFrame:
        if self.points is None:
            raise ValueError("no measured points to read a curve from")
        return self.points

    def iops_at_latency(
        self,
        block: object,
        access: object,
        read_pct: object,
        limit_ms: float | None = None,
        limit_us: float | None = None,
        setup: str | None = None,
        queue_depth: int | None = None,
    ) -> PointText:
        """The highest I/O rate with a mean latency at most the limit (the report's
        ``[latency_limits]``, or ``limit_ms``/``limit_us``), as the iops_at_latency table
        computes it: a measured point, or interpolated where the curve crosses the limit."""
        size, access_, pct = _arguments(block, access, read_pct)
        curve = levels(self._points(), access_, size, pct, setup, queue_depth)
        limit = _limit(limit_ms, limit_us) or self._report_limit(size)
        row: dict[str, object] = {**rate_at_limit(curve, limit), "limit_us": limit}
        if row["iops"] is None:
            said = latency(self.fmt, "iops_at_latency", limit, "limit_us")
            fastest = latency(self.fmt, "performance", min(r["lat_mean_us"] for r in curve))
            raise ValueError(f"no I/O rate at {said}: every measured point is slower ({fastest})")
        about = frozenset() if row["measured"] else INTERPOLATED_RATE
        share = self._maximum(size, access_, pct, setup, queue_depth)
        return PointText(row, self.fmt, "iops_at_latency", share, about)

    def _report_limit(self, size: int) -> float:
        """The report's ``[latency_limits]`` for a block size (as its table's)."""
        limits = self.report.latency_limits
        return limits.small_us if size <= limits.small_block else limits.large_us

    def latency_at_iops(
        self,
        block: object,
        access: object,
        read_pct: object,
        iops: object,
        setup: str | None = None,
        queue_depth: int | None = None,
    ) -> PointText:
        """The mean latency at ``iops`` on the profile's measured curve, interpolated
        between the two measured points around it (printed with "≈"), never beyond the
        rates measured."""
        size, access_, pct = _arguments(block, access, read_pct)
        if isinstance(iops, bool) or not isinstance(iops, int | float) or iops <= 0:
            raise ValueError(f"I/O rate {iops!r} must be a positive number such as 350000")
        curve = levels(self._points(), access_, size, pct, setup, queue_depth)
        found = latency_at_rate(curve, float(iops))
        if found is None:
            rates = [r["iops"] for r in curve]
            raise ValueError(
                f"{self.fmt.integer(float(iops))} IOPS lies outside the measured curve "
                f"({self.fmt.integer(min(rates))} to {self.fmt.integer(max(rates))} IOPS); "
                "iopress does not extrapolate"
            )
        lat, measured = found
        about = frozenset() if measured else INTERPOLATED_LATENCY
        share = self._maximum(size, access_, pct, setup, queue_depth)
        row: dict[str, object] = {"iops": float(iops), "lat_mean_us": lat}
        return PointText(row, self.fmt, "performance", share, about)

    def _econ_row(self, table: str, key: str, filters: dict[str, object]) -> dict[str, Any]:
        """One row of an economics table by its system (or case) and optional filters."""
        named = {n: f for n, f in self.tables.items() if {"system", "case"} & set(f.columns)}
        if table not in named:
            raise NotFound(f"no table {table!r} with systems or cases: one of {sorted(named)}")
        frame = named[table]
        column = "system" if "system" in frame.columns else "case"
        cond = pl.col(column) == key
        for name, wanted in filters.items():
            if name not in frame.columns:
                raise NotFound(f"no column {name!r} in table {table!r}: one of {frame.columns}")
            _comparable(name, wanted, frame.schema[name])
            cond = cond & (pl.col(name) == wanted)
        rows = frame.filter(cond)
        if rows.height != 1:
            found = "no" if rows.is_empty() else f"{rows.height}"
            raise NotFound(
                f"{found} rows for {key!r} {filters or ''} in table {table!r}: "
                "name one (e.g. year=2016)"
            )
        return rows.row(0, named=True)

    def _number(self, table: str, key: str, column: str, filters: dict[str, object]) -> float:
        row = self._econ_row(table, key, filters)
        if not isinstance(row.get(column), int | float):
            names = [k for k, v in row.items() if isinstance(v, int | float)]
            raise ValueError(f"no number {column!r} in table {table!r}: one of {names}")
        return float(row[column])

    def value(
        self, table: str, key: str, column: str, places: int | None = None, **filters: object
    ) -> str:
        """A figure as its table prints it (a latency in its column's unit, with the unit;
        other figures without), or rounded to ``places`` when the author asks."""
        column = _column(column)
        number = self._number(table, key, column, filters)
        if places is not None:
            return self.fmt.number(number, places)
        return figure(self.fmt, table, column, number)

    def ratio(
        self, table: str, column: str, a: str, b: str, places: int = 0, **filters: object
    ) -> str:
        """How many times ``a``'s value is ``b``'s, rounded to ``places``."""
        column = _column(column)
        x = self._number(table, a, column, filters)
        y = self._number(table, b, column, filters)
        return self.fmt.number(x / y, places)

    def context(self) -> dict[str, object]:
        report = self.report

        def kind(k: str | None, table: str = "performance") -> object:
            return lambda b, a, r, setup=None, queue_depth=None: self._row(
                table, b, a, r, k, setup, queue_depth
            )

        return {
            "maximum": kind("maximum"),
            "optimum": kind("optimum"),
            "speed": kind("speed"),
            "min_latency": kind(None, "min_latency"),
            "iops_at_latency": self.iops_at_latency,
            "latency_at_iops": self.latency_at_iops,
            "table": lambda name: self.place("table", name),
            "chart": lambda name: self.place("chart", name),
            "value": self.value,
            "ratio": self.ratio,
            "system": report.system.name,
            "vendor": report.system.vendor,
        }


def _column(name: str) -> str:
    """A column's name; an earlier one is understood, with a deprecation warning."""
    if name in RENAMED_COLUMNS:
        _deprecated(f'"{name}"', f'"{RENAMED_COLUMNS[name]}"')
        return RENAMED_COLUMNS[name]
    return name


def _limit(limit_ms: object, limit_us: object) -> float | None:
    """A latency limit in µs from ``limit_ms`` or ``limit_us`` (one of them, positive)."""
    given = [(v, f) for v, f in ((limit_ms, TIME_UNITS_US["ms"]), (limit_us, 1.0)) if v is not None]
    if len(given) > 1:
        raise ValueError("name the limit once: limit_ms=0.2 or limit_us=200")
    if not given:
        return None
    value, factor = given[0]
    if isinstance(value, bool) or not isinstance(value, int | float) or value <= 0:
        raise ValueError(f"limit {value!r} must be a positive number such as limit_ms=0.2")
    return float(value) * factor


def marker(index: int, token: str) -> str:
    """Where the ``index``-th table or chart a directive placed stands in a filled text.
    Plain letters and digits: survives pandoc into typst and HTML untouched. ``token``
    is the text's own (``token``), so no text, and nothing a placeholder prints, can
    write one: a text that held the hash of itself would be a SHA-256 fixed point."""
    return f"IOPRESSPLACE{token}N{index}X"


MARKER = re.compile(r"IOPRESSPLACE[0-9a-f]{32}N\d+X")  # any text's ``marker``


def token(text: str) -> str:
    """A text's token for its markers: its SHA-256 (128 bits, hex). The same text gives
    the same token in every build, so pandoc's cached conversions of it are used again."""
    return hashlib.sha256(text.encode("utf-8")).hexdigest()[:32]


# The token of markers while a section is filled (then replaced by the filled text's own
# ``token``): random, in this process only, so only directives print it.
_FILLING = secrets.token_hex(16)


# Characters both pandoc and Python-Markdown take literally after a backslash.
_MD_SPECIAL = re.compile(r"([\\`*_{}\[\]()#+!|>.-])")
# what pandoc reads as a citation (@), sub- and superscript (~ ^) and math ($), and
# Python-Markdown (the site) cannot backslash-escape: written as character references
_MD_ENTITIES = str.maketrans({c: f"&#{ord(c)};" for c in "@~^$"})


def md_text(text: str) -> str:
    """Literal text in Markdown (pandoc's and the site's): HTML-escaped, Markdown
    punctuation backslash-escaped, and what only pandoc reads as markup a character
    reference ("@home" in a vendor's name failed the build as a citation). One line: a
    line break and the blanks around it are one space, blanks at either end are dropped
    (a sponsor text "S\\n\\nDownloads\\n=====\\n\\n    verified" made a heading and a
    code block of its own), and a leading "=" is a reference (no heading's underline)."""
    line = _BREAK.sub(" ", text).strip(" \t")
    escaped = _MD_SPECIAL.sub(r"\\\1", html.escape(line, quote=False))
    escaped = escaped.translate(_MD_ENTITIES)
    return f"&#61;{escaped[1:]}" if escaped.startswith("=") else escaped


_BREAK = re.compile(r"[ \t]*[\r\n\v\f\x85\u2028\u2029]+[ \t]*")


# The narrative is untrusted text. Placeholders run in jinja's immutable sandbox with no
# globals or filters but iopress's own functions, and only these template constructs are
# allowed (no loops, assignments, operators or filters), so a placeholder can neither reach
# Python's internals nor run for long: a call names one of iopress's functions (never a
# method of a value: ``vendor.zfill(3000000000)`` would fill the memory) with constants
# and names as arguments; an attribute is one of a measured point's values.
ALLOWED_NODES = (
    nodes.Template,
    nodes.Output,
    nodes.TemplateData,
    nodes.Const,
    nodes.Name,
    nodes.Call,
    nodes.Getattr,
    nodes.Keyword,
    nodes.Neg,
)
ARGUMENT_NODES = (nodes.Const, nodes.Name, nodes.Neg)
MAX_TOKENS = 40  # parts of one placeholder (the longest in use has about 20)
MAX_DIGITS = 30  # of a number in a placeholder (Python refuses 4,300)
MAX_PLACES = 6  # decimal places a placeholder may ask for
MAX_PLACEHOLDERS = 2000  # per section: each is compiled, and its call takes up to 1 ms
RENDER_SECONDS = 10.0  # per section, should calls be slower than that
MAX_OUTPUT_CHARS = 4 * 1024 * 1024  # what the placeholders of one section print
_QUIET_TOKENS = ("whitespace", "data", "comment_begin", "comment", "comment_end")


class PlaceholderLimit(ValueError):
    """A section's placeholders asked for more time or output than a narrative needs."""


@dataclass
class _Budget:
    deadline: float
    chars: int = 0


_BUDGET: ContextVar[_Budget | None] = ContextVar("narrative_budget", default=None)


def _spend(chars: int = 0) -> None:
    """Count ``chars`` printed against the section's budget; over it, or over its time,
    is a ``PlaceholderLimit``."""
    budget = _BUDGET.get()
    if budget is None:
        return
    budget.chars += chars
    if budget.chars > MAX_OUTPUT_CHARS:
        raise PlaceholderLimit(
            f"the placeholders print more than {MAX_OUTPUT_CHARS:,} characters in one section"
        )
    if time.monotonic() > budget.deadline:
        raise PlaceholderLimit(f"the placeholders take more than {RENDER_SECONDS:g} s")


def _checked_places(
    function: Callable[..., object], args: tuple[Any, ...], kwargs: dict[str, Any]
) -> None:
    """``places`` (by name or position) is a whole number from 0 to ``MAX_PLACES``."""
    try:
        bound = inspect.signature(function).bind(*args, **kwargs)
    except (TypeError, ValueError):
        return  # the call itself says what is wrong with its arguments
    places = bound.arguments.get("places")
    if places is None:
        return
    if isinstance(places, bool) or not isinstance(places, int) or not 0 <= places <= MAX_PLACES:
        raise ValueError(f"places={places!r} must be a whole number from 0 to {MAX_PLACES}")


class _Sandbox(ImmutableSandboxedEnvironment):
    """The sandbox, narrowed: the only attributes are a measured point's values, and
    every call is counted against the section's time budget."""

    def is_safe_attribute(self, obj: Any, attr: str, value: Any) -> bool:
        return isinstance(obj, PointText) and (attr in PointText.NAMES or attr in RENAMED_VALUES)

    def call(
        __self,
        __context: Context,
        __obj: Any,
        *args: Any,
        **kwargs: Any,
    ) -> Any:
        _spend()
        _checked_places(__obj, args, kwargs)
        return super().call(__context, __obj, *args, **kwargs)


def _finalize(value: object) -> str:
    """What a placeholder prints: text only, escaped so it stays literal Markdown."""
    if isinstance(value, Markup):
        _spend(chars=len(value))
        return str(value)
    if isinstance(value, jinja2.Undefined):
        str(value)  # raises: what it names does not exist or may not be used
    if not isinstance(value, str):
        what = "a measured point" if isinstance(value, PointText) else "no text"
        raise ValueError(
            f"placeholder gives {what}: name one of its values, such as "
            ".iops, .bytes_per_s, .lat_mean, .lat_mean_ms, .lat_mean_us or .parallelism"
        )
    _spend(chars=len(value))
    return md_text(value)


_ENV = _Sandbox(
    # a Markdown heading's attributes ("## Details {#details}") are text, not the start of
    # a jinja comment; a comment is written {## … ##}
    comment_start_string="{##",
    comment_end_string="##}",
    undefined=jinja2.StrictUndefined,
    autoescape=False,
    keep_trailing_newline=True,
    finalize=_finalize,
)
_ENV.globals.clear()
_ENV.filters.clear()
_ENV.tests.clear()


def _refuse(node: nodes.Node, what: str) -> jinja2.TemplateSyntaxError:
    return jinja2.TemplateSyntaxError(
        f"{what}: placeholders name values and call iopress's functions only",
        node.lineno or 1,
    )


def _check_tokens(text: str) -> None:
    """At most ``MAX_PLACEHOLDERS``, each at most ``MAX_TOKENS`` parts long, so that
    nothing nests deeper than jinja's parser and compiler can follow (300 minus signs, 100
    parentheses) and compiling the section stays quick."""
    count = placeholders = 0
    for line, kind, value in _ENV.lex(text):
        if kind in ("variable_begin", "block_begin"):
            count, placeholders = 0, placeholders + 1
        if placeholders > MAX_PLACEHOLDERS:
            raise jinja2.TemplateSyntaxError(
                f"more than {MAX_PLACEHOLDERS:,} placeholders in one section", line
            )
        elif kind not in _QUIET_TOKENS:
            count += 1
        if kind in ("integer", "float") and len(value) > MAX_DIGITS:
            raise jinja2.TemplateSyntaxError(f"number of more than {MAX_DIGITS} digits", line)
        if count > MAX_TOKENS:
            raise jinja2.TemplateSyntaxError(
                f"placeholder too long or nested too deeply (more than {MAX_TOKENS} parts)",
                line,
            )


def _check_node(node: nodes.Node) -> None:
    """One node of the tree: allowed, and where it is allowed (see ``ALLOWED_NODES``)."""
    if not isinstance(node, ALLOWED_NODES):
        raise _refuse(node, f"{type(node).__name__.lower()} is not allowed")
    if isinstance(node, nodes.Call):
        _check_call(node)
    if isinstance(node, nodes.Getattr) and not isinstance(node.node, nodes.Call):
        raise _refuse(node, f".{node.attr} names a value of a measured point only")
    if isinstance(node, nodes.Neg) and not isinstance(node.node, nodes.Const):
        raise _refuse(node, "a minus sign stands before a number only")
    if isinstance(node, nodes.Const) and not _bounded(node.value):
        raise _refuse(node, f"the number {node.value!r} is beyond {LARGEST:g}")


def _bounded(value: object) -> bool:
    if isinstance(value, bool) or not isinstance(value, int | float):
        return True
    return math.isfinite(value) and abs(value) <= LARGEST


def _check_call(node: nodes.Call) -> None:
    if not isinstance(node.node, nodes.Name):
        raise _refuse(node, "only iopress's functions can be called, never a value's method")
    given = [*node.args, *(k.value for k in node.kwargs)]
    if node.dyn_args or node.dyn_kwargs or not all(isinstance(a, ARGUMENT_NODES) for a in given):
        raise _refuse(node, "a function's arguments are texts, numbers or names")


def _check_nodes(tree: nodes.Template) -> None:
    for node in [tree, *tree.find_all(nodes.Node)]:
        _check_node(node)


def _syntax(section: Section, exc: jinja2.TemplateSyntaxError) -> InputError:
    return InputError(
        section.path,
        f"line {exc.lineno}",
        f"placeholder syntax: {exc.message}",
        'write placeholders as {{ maximum("4K", "random", 100).iops }}',
    )


def compile_section(section: Section) -> jinja2.Template:
    """The section as a checked template, or an error naming file and line."""
    try:
        _check_tokens(section.text)
        tree = _ENV.parse(section.text)
        _check_nodes(tree)
        return _ENV.from_string(tree)
    except jinja2.TemplateSyntaxError as exc:
        raise _syntax(section, exc) from None


def fill(section: Section, values: Values) -> Filled:
    """Resolve the placeholders of one section, or fail naming file and line."""
    template = compile_section(section)
    values.placed, values.lines = [], []
    budget = _BUDGET.set(_Budget(time.monotonic() + RENDER_SECONDS))
    old: list[tuple[int, str, str]] = []
    noted = _DEPRECATED.set(old)
    try:
        text = template.render(values.context())
        _placed_alone(section, values.lines)
        found = [Deprecated(section.path, *o) for o in dict.fromkeys(old)]
        own = token(text.replace(_FILLING, ""))
        return Filled(section.path, text.replace(_FILLING, own), values.placed, found, own)
    except jinja2.TemplateSyntaxError as exc:
        raise _syntax(section, exc) from None
    except PlaceholderLimit as exc:
        raise InputError(
            section.path,
            f"line {_template_line(exc)}",
            f"placeholder limit: {exc}",
            "a narrative names each value it needs once; shorten the section",
        ) from None
    except (jinja2.UndefinedError, SecurityError, ValueError, TypeError, ArithmeticError) as exc:
        raise InputError(
            section.path,
            f"line {_template_line(exc)}",
            f"placeholder names nothing: {exc}",
            "see docs/report.md for the placeholders and the cells that exist",
        ) from None
    finally:
        _BUDGET.reset(budget)
        _DEPRECATED.reset(noted)


# what a line of a text holds besides its placeholders and comments (kept as spaces, so
# that a placeholder over several lines keeps the lines after it where they were)
_PLACEHOLDER = re.compile(r"\{\{.*?\}\}|\{##.*?##\}", re.S)
_LINE_BREAK = re.compile(r"\r\n|\r|\n")  # as jinja counts a section's lines
_CLOSES_A_BLOCK = re.compile(r"\s{0,3}(#|=+\s*$|-+\s*$)")  # a heading, its underline, a rule


def _placed_alone(section: Section, lines: list[int]) -> None:
    """Each directive stands on a line of its own, not indented, between empty lines (or
    placeholder lines, a heading, the text's start or end): a table or chart is a block of
    the text's top level. After a list item's or quote's mark ("- {{ table(...) }}") it
    ended the list or quote, leaving an empty item; indented under an item it ended the
    item; on a line next to a paragraph, a list item, a quote or a table row it split them
    in two (a table's rows after it printed as text)."""
    if not lines:  # no directive: the text is not split into lines
        return
    source = _LINE_BREAK.split(section.text)
    bare = _LINE_BREAK.split(
        _PLACEHOLDER.sub(lambda m: re.sub(r"[^\r\n]", " ", m.group()), section.text)
    )
    for line in lines:
        k = line - 1
        neighbours = [n for n in (k - 1, k + 1) if 0 <= n < len(bare)]
        alone = not bare[k].strip() and source[k][:1] not in (" ", "\t")
        if not alone or not all(_apart(source[n], bare[n]) for n in neighbours):
            raise InputError(
                section.path,
                f"line {line}",
                "a table or chart placed inside a paragraph, a list, a quote, a table or "
                "code, or indented",
                "put {{ table(...) }} or {{ chart(...) }} at the start of a line of its own, "
                "with an empty line before and after",
            )


def _apart(source: str, bare: str) -> bool:
    """A line beside a directive's that keeps it a block of its own."""
    return not bare.strip() or bool(_CLOSES_A_BLOCK.match(source))


def _stack_line() -> int:
    """The line of the placeholder being filled: its frame in the compiled template, mapped
    back to the section's line as jinja maps a traceback's (``jinja2.debug``)."""
    frame = inspect.currentframe()
    while frame is not None:
        template = frame.f_globals.get("__jinja_template__")
        if template is not None:
            return int(template.get_corresponding_lineno(frame.f_lineno))
        frame = frame.f_back
    return 1


def _template_line(exc: BaseException) -> int:
    frames = [
        f
        for f in traceback.extract_tb(exc.__traceback__)
        if f.filename == "<template>" and f.lineno
    ]
    return frames[-1].lineno if frames and frames[-1].lineno else 1
