"""The narrative: Markdown per language with placeholders for computed values.

``text/<lang>/<section>.md``; placeholders are jinja2 expressions such as
``{{ maximum("4K", "random", 100).iops }}``. A placeholder that names nothing fails the
build with the file and line.
"""

from __future__ import annotations

import traceback
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import jinja2
import polars as pl
import pypandoc

from pipeline.compute.tables import cell
from pipeline.config import LANGS, Report
from pipeline.errors import InputError, InputErrors
from pipeline.render.fmt import Formatter
from pipeline.units import parse_block_size

REQUIRED = ("summary", "setup", "method", "conclusion")
OPTIONAL = ("results", "economics")


@dataclass(frozen=True)
class Section:
    path: Path
    text: str


def load(folder: Path) -> dict[str, dict[str, Section]]:
    """Every section file of every language; both languages must have the same sections."""
    found: dict[str, dict[str, Section]] = {}
    problems = []
    for lang in LANGS:
        found[lang] = {}
        for name in REQUIRED + OPTIONAL:
            path = folder / "text" / lang / f"{name}.md"
            if path.is_file():
                found[lang][name] = Section(path, path.read_text(encoding="utf-8"))
            elif name in REQUIRED:
                problems.append(
                    InputError(
                        path,
                        "",
                        "narrative section missing",
                        f"write text/{lang}/{name}.md (Markdown)",
                    )
                )
    problems += _unpaired(folder, found)
    if problems:
        raise InputErrors(problems)
    return found


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


class PointText:
    """The formatted values of one table row, for placeholders."""

    def __init__(self, row: dict[str, object], fmt: Formatter) -> None:
        num = {k: float(v) for k, v in row.items() if isinstance(v, int | float)}
        self.iops = fmt.integer(num["iops"]) if "iops" in num else ""
        self.mb_s = fmt.mb_s(num["bytes_per_s"]) if "bytes_per_s" in num else ""
        self.lat_ms = fmt.lat_ms(num["lat_us"])
        self.lat_us = fmt.lat_us(num["lat_us"])
        self.parallelism = fmt.integer(num["parallelism"])


class Values:
    """What placeholders can name: ``maximum``, ``optimum``, ``speed``, ``min_latency``."""

    def __init__(
        self,
        tables: dict[str, pl.DataFrame],
        fmt: Formatter,
        placeable: dict[str, list[str]] | None = None,
    ) -> None:
        self.tables = tables
        self.fmt = fmt
        self.placeable = placeable or {"table": [], "chart": []}
        self.placed: list[tuple[str, str]] = []

    def place(self, kind: str, name: str) -> str:
        """A directive: put table or chart ``name`` here (and not at its default place)."""
        if name not in self.placeable[kind]:
            raise KeyError(f"no {kind} {name!r}: one of {self.placeable[kind]}")
        self.placed.append((kind, name))
        return f"\n\n{marker(len(self.placed) - 1)}\n\n"

    def _row(
        self,
        table: str,
        block: str,
        access: str,
        read_pct: float,
        kind: str | None,
        setup: str | None = None,
    ) -> PointText:
        frame = self.tables[table]
        row = cell(frame, access, parse_block_size(block), read_pct, kind, setup)
        return PointText(row, self.fmt)

    def _econ_row(self, table: str, key: str, filters: dict[str, object]) -> dict[str, Any]:
        """One row of an economics table by its system (or case) and optional filters."""
        frame = self.tables[table]
        column = "system" if "system" in frame.columns else "case"
        cond = pl.col(column) == key
        for name, wanted in filters.items():
            cond = cond & (pl.col(name) == wanted)
        rows = frame.filter(cond)
        if rows.height != 1:
            found = "no" if rows.is_empty() else f"{rows.height}"
            raise KeyError(
                f"{found} rows for {key!r} {filters or ''} in table {table!r}: "
                "name one (e.g. year=2016)"
            )
        return rows.row(0, named=True)

    def value(
        self, table: str, key: str, column: str, places: int | None = None, **filters: object
    ) -> str:
        number = float(self._econ_row(table, key, filters)[column])
        return self.fmt.amount(number) if places is None else self.fmt.number(number, places)

    def ratio(
        self, table: str, column: str, a: str, b: str, places: int = 0, **filters: object
    ) -> str:
        """How many times ``a``'s value is ``b``'s, rounded to ``places``."""
        x = float(self._econ_row(table, a, filters)[column])
        y = float(self._econ_row(table, b, filters)[column])
        return self.fmt.number(x / y, places)

    def context(self, report: Report) -> dict[str, object]:
        def kind(k: str | None, table: str = "performance") -> object:
            return lambda b, a, r, setup=None: self._row(table, b, a, r, k, setup)

        return {
            "maximum": kind("maximum"),
            "optimum": kind("optimum"),
            "speed": kind("speed"),
            "min_latency": kind(None, "min_latency"),
            "table": lambda name: self.place("table", name),
            "chart": lambda name: self.place("chart", name),
            "value": self.value,
            "ratio": self.ratio,
            "system": report.system.name,
            "vendor": report.system.vendor,
        }


def marker(index: int) -> str:
    """Plain letters and digits: survives pandoc into typst and Markdown untouched."""
    return f"IOPRESSPLACE{index}X"


_ENV = jinja2.Environment(
    undefined=jinja2.StrictUndefined, autoescape=False, keep_trailing_newline=True
)


def fill(section: Section, context: dict[str, object]) -> str:
    """Resolve the placeholders of one section, or fail naming file and line."""
    try:
        template = _ENV.from_string(section.text)
        return template.render(context)
    except jinja2.TemplateSyntaxError as exc:
        raise InputError(
            section.path,
            f"line {exc.lineno}",
            f"placeholder syntax: {exc.message}",
            'write placeholders as {{ maximum("4K", "random", 100).iops }}',
        ) from None
    except (jinja2.UndefinedError, KeyError, ValueError, TypeError) as exc:
        raise InputError(
            section.path,
            f"line {_template_line(exc)}",
            f"placeholder names nothing: {exc}",
            "see docs/report.md for the placeholders and the cells that exist",
        ) from None


def _template_line(exc: BaseException) -> int:
    frames = [
        f
        for f in traceback.extract_tb(exc.__traceback__)
        if f.filename == "<template>" and f.lineno
    ]
    return frames[-1].lineno if frames and frames[-1].lineno else 1


def to_typst(markdown: str) -> str:
    """Markdown -> typst markup; user text stays literal (pandoc escapes markup)."""
    return str(
        pypandoc.convert_text(
            markdown,
            "typst",
            format="markdown-smart-auto_identifiers-raw_html-raw_attribute",
            extra_args=["--shift-heading-level-by=1", "--wrap=preserve"],
        )
    )
