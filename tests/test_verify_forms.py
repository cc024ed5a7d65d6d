"""verify reads every cell of every table of the registry as the real views print it, in
both languages and every number style, and writes the exact value back in that form."""

from __future__ import annotations

import csv
import io
import re
from collections.abc import Callable, Iterator
from pathlib import Path

import polars as pl
import pytest

from pipeline.compute.registry import BY_NAME, TABLES
from pipeline.compute.tables import KINDS
from pipeline.config import Presentation
from pipeline.prepare import prepare
from pipeline.report.context import VIEWS, ReportContext, report_formatter
from pipeline.report.views import Cell, TableView
from pipeline.units import block_label
from pipeline.verify import verify
from tests.conftest import A800

Line = tuple[str, str, str]  # row, column, printed
STYLES = [("en", "de-CH"), ("de", "de-CH"), ("de", "de-DE")]


@pytest.fixture(scope="module")
def a800_context() -> ReportContext:
    return prepare(A800)


def _view(ctx: ReportContext, name: str, frame: pl.DataFrame, lang: str, style: str) -> TableView:
    shown = Presentation.of(ctx.report).model_copy(update={"number_style": style})
    fmt = report_formatter(shown, lang, ctx.small_latencies())
    return VIEWS[BY_NAME[name].view](frame, ctx.report, ctx.spc1, fmt)


def _text(cell: Cell) -> str:
    return ", ".join(span.text for span in cell)


def _profiles(frame: pl.DataFrame) -> Iterator[tuple[str, pl.DataFrame]]:
    """Each profile (and setup) of a measurement frame alone, with its row text."""
    keys = ["setup", "access", "block_size", "read_pct"]
    for key in frame.select(keys).unique(maintain_order=True).iter_rows(named=True):
        one = frame.filter(*(pl.col(k) == v for k, v in key.items()))
        words = f"{key['access']} {block_label(key['block_size'])} {key['read_pct']:g}"
        yield f"{words} setup={key['setup']}", one


def _grid(ctx: ReportContext, name: str, lang: str, style: str) -> list[Line]:
    """performance, min_latency, iops_at_latency: one cell per profile."""
    lines = []
    for row, one in _profiles(ctx.frame(name)):
        cell = _view(ctx, name, one, lang, style).rows[0][1]
        if name == "performance":  # the maximum, the optimum (italic) where it differs
            kinds = {"plain": "maximum", "optimum": "optimum"}  # not the vendor's figure
            lines += [(row, kinds[s.style], s.text) for s in cell if s.style in kinds]
        elif cell[0].text != "–":
            lines.append((row, "", cell[0].text))
    return lines


def _key_figures(ctx: ReportContext, name: str, lang: str, style: str) -> list[Line]:
    lines: list[Line] = []
    for row, one in _profiles(ctx.frame(name)):
        cells = _view(ctx, name, one, lang, style).rows[0][1:]
        lines += [(row, k, _text(c)) for k, c in zip(KINDS, cells, strict=True)]
    return lines


# the columns of the transposed economics tables, line by line ("" for a line of words)
LINES = {
    "cost": ["capacity_tb", "iops", "price", "price_per_tb", "price_per_kiops"],
    "footprint": [
        "capacity_tb",
        "iops",
        "rack_units",
        "power_w",
        "w_per_tb",
        "w_per_kiops",
        "tb_per_rack",
        "iops_per_rack",
    ],
}


def _transposed(ctx: ReportContext, name: str, lang: str, style: str) -> list[Line]:
    frame = ctx.frame(name)
    view = _view(ctx, name, frame, lang, style)
    keys = [
        " ".join(str(r[c]) for c in BY_NAME[name].cells.row) for r in frame.iter_rows(named=True)
    ]
    return [
        (key, column, _text(line[1 + i]))
        for line, column in zip(view.rows, LINES[name], strict=True)
        for i, key in enumerate(keys)
    ]


def _spc1(ctx: ReportContext, name: str, lang: str, style: str) -> list[Line]:
    frame = ctx.frame(name)
    view = _view(ctx, name, frame, lang, style)
    loads = sorted(frame["load_pct"].unique().to_list(), reverse=True)
    columns = ["", "capacity_tb", *(f"{x:g}" for x in loads), "price", "", ""]
    systems = [r.short_name for r in ctx.spc1]
    return [
        (system, column, _text(line[1 + i]))
        for line, column in zip(view.rows, columns, strict=True)
        for i, system in enumerate(systems)
        if column
    ]


def _sizing(ctx: ReportContext, name: str, lang: str, style: str) -> list[Line]:
    frame = ctx.frame(name)
    view = _view(ctx, name, frame, lang, style)
    systems = frame["system"].unique(maintain_order=True).to_list()
    targets = frame["target_iops"].unique(maintain_order=True).to_list()
    return [
        (f"{system} {target:g}", "cell", _text(line[1 + i]))
        for line, target in zip(view.rows, targets, strict=True)
        for i, system in enumerate(systems)
    ]


def _speedup(ctx: ReportContext, name: str, lang: str, style: str) -> list[Line]:
    frame = ctx.frame(name)
    view = _view(ctx, name, frame, lang, style)
    columns = ["io_share_pct", "old_lat_mean_us", "new_lat_mean_us", "io_speedup", "app_gain_pct"]
    return [
        (case, column, _text(cell))
        for case, line in zip(frame["case"], view.rows, strict=True)
        for column, cell in zip(columns, line[1:], strict=True)
    ]


Reader = Callable[[ReportContext, str, str, str], list[Line]]
READERS: dict[str, tuple[str, Reader]] = {
    "performance": ("fs840", _grid),
    "key_figures": ("a800", _key_figures),
    "min_latency": ("fs840", _grid),
    "iops_at_latency": ("a800", _grid),
    "cost": ("fs840", _transposed),
    "footprint": ("fs840", _transposed),
    "spc1": ("fs840", _spc1),
    "spc1_sizing": ("fs840", _sizing),
    "speedup": ("fs840", _speedup),
}


def test_every_table_of_the_registry_is_read() -> None:
    assert set(READERS) == {t.name for t in TABLES}


def _published(folder: Path, name: str, lines: list[Line]) -> Path:
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(["table", "row", "column", "printed"])
    writer.writerows((name, *line) for line in lines)
    path = folder / f"{name}.csv"
    path.write_text(out.getvalue(), encoding="utf-8")
    return path


def _context(which: str, fs840: ReportContext, a800: ReportContext) -> ReportContext:
    return fs840 if which == "fs840" else a800


def _one_digit(text: str) -> str:
    """The text with its first digit changed (by more than any tolerance: 1 <-> 2 …)."""
    match = re.search(r"\d", text)
    assert match, text
    digit = int(match[0])
    new = str(digit + 1 if digit < 9 else 8) if digit else "5"
    return text[: match.start()] + new + text[match.end() :]


@pytest.mark.parametrize(("lang", "style"), STYLES)
@pytest.mark.parametrize("name", sorted(READERS))
def test_printed_cells_read_back_without_difference(
    name: str,
    lang: str,
    style: str,
    tmp_path: Path,
    fs840_context: ReportContext,
    a800_context: ReportContext,
) -> None:
    which, reader = READERS[name]
    ctx = _context(which, fs840_context, a800_context)
    lines = reader(ctx, name, lang, style)
    assert lines and all(re.search(r"\d", printed) for _, _, printed in lines)
    checked = verify(ctx, _published(tmp_path, name, lines), tolerance=0.0)
    assert checked.found == [] and checked.cells == len(lines)


@pytest.mark.parametrize(("lang", "style"), STYLES)
@pytest.mark.parametrize("name", sorted(READERS))
def test_one_changed_digit_is_exactly_that_difference(
    name: str,
    lang: str,
    style: str,
    tmp_path: Path,
    fs840_context: ReportContext,
    a800_context: ReportContext,
) -> None:
    """Each cell in turn with one digit changed: that cell alone differs, and verify writes
    its exact figures in the printed form — the cell as the view prints it."""
    which, reader = READERS[name]
    ctx = _context(which, fs840_context, a800_context)
    lines = reader(ctx, name, lang, style)
    for index, (row, column, printed) in enumerate(lines):
        changed = [*lines[:index], (row, column, _one_digit(printed)), *lines[index + 1 :]]
        found = verify(ctx, _published(tmp_path, name, changed)).found
        assert [(d.line, d.exact, d.note) for d in found] == [(index + 2, printed, "")], printed


def test_a_negative_figure_is_read_with_its_sign(tmp_path: Path) -> None:
    """A slower new system prints "-40%" as its application gain: the sign was dropped
    on reading, so "-40%" differed from -40 (written back as "--40%") and "38%" passed
    for a printed "-38%"."""
    import shutil

    from tests.conftest import FS840

    folder = tmp_path / "fs840"
    shutil.copytree(FS840, folder)
    toml = folder / "report.toml"
    text = toml.read_text(encoding="utf-8")
    assert text.count("new_ms = 0.5\n") == 1
    toml.write_text(text.replace("new_ms = 0.5\n", "new_ms = 1.5\n"), encoding="utf-8")
    ctx = prepare(folder)
    lines = [line for line in _speedup(ctx, "speedup", "en", "de-CH") if line[1] == "app_gain_pct"]
    printed = dict((case, text) for case, _, text in lines)
    assert printed["example-2"].startswith("-"), printed
    right = verify(ctx, _published(tmp_path, "speedup", lines), tolerance=0.0)
    assert right.found == [], right.found
    unsigned = [(c, col, t.lstrip("-")) if c == "example-2" else (c, col, t) for c, col, t in lines]
    wrong = verify(ctx, _published(tmp_path, "speedup", unsigned), tolerance=0.0)
    assert [d.row for d in wrong.found] == ["example-2"], wrong.found
    assert "--" not in str(wrong.found[0]), wrong.found[0]
