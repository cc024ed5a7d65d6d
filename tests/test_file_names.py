"""A file name that is not UTF-8 prints the way ``ls -b`` and Python's backslashreplace
print it (``bad\\xff.json``), the same in a build's errors, in ``iopress ingest`` and on
every console line: never as ``b'bad\\xff.json'`` nor as ``bad\\udcff.json``."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest

from pipeline.console import visible
from pipeline.errors import InputError, InputErrors, OutputError, is_utf8, shown
from tests.cli import iopress
from tests.conftest import DATA

BAD = os.fsdecode(b"f\xffio.json")  # as Python reads the name: f\udcffio.json


def test_a_name_not_utf8_is_shown_escaped() -> None:
    assert shown(Path("raw") / BAD) == "raw/f\\xffio.json"
    assert visible(f"raw/{BAD}") == "raw/f\\xffio.json"  # every console line alike
    assert shown("Grüße ’24.csv") == "Grüße ’24.csv" and is_utf8("Grüße ’24.csv")
    assert not is_utf8(BAD)
    assert str(InputError(Path(BAD), "line 3", "bad")) == "f\\xffio.json: line 3: bad"
    assert str(OutputError(Path(BAD), "full")) == "f\\xffio.json: full"


def _report(tmp_path: Path) -> Path:
    folder = Path(shutil.copytree(DATA / "reports" / "mixed", tmp_path / "r"))
    (folder / "raw" / "fio.json").rename(folder / "raw" / BAD)
    toml = folder / "report.toml"
    toml.write_text(toml.read_text().replace('"raw/fio.json"', '"raw/*.json"'), encoding="utf-8")
    return folder


def _refusal(text: str) -> None:
    assert "f\\xffio.json" in text, text
    assert "b'" not in text and "\\udc" not in text and "Traceback" not in text, text


def test_a_build_names_it_escaped(tmp_path: Path) -> None:
    from pipeline.dataset.sources import load_report

    folder = _report(tmp_path)
    with pytest.raises(InputErrors) as caught:
        load_report(folder)
    _refusal(str(caught.value))
    ran = iopress("build", folder, "-o", tmp_path / "out")
    assert ran.returncode == 1
    _refusal(ran.stderr)
    assert "sources[1].path: file name 'f\\xffio.json' is not UTF-8" in ran.stderr


def test_ingest_names_it_escaped_and_writes_nothing(tmp_path: Path) -> None:
    """ingest read the file and died in polars (a surrogate in the source column), or
    listed it as a reject named ``f\\udcffio.json``."""
    folder = _report(tmp_path)
    ran = iopress("ingest", folder / "raw", "-o", tmp_path / "points.parquet")
    assert ran.returncode == 1
    _refusal(ran.stderr)
    assert f"{folder / 'raw'}/f\\xffio.json: file name not UTF-8" in ran.stderr
    assert not (tmp_path / "points.parquet").exists()


def test_ingest_refuses_an_output_name_not_utf8(tmp_path: Path) -> None:
    ran = iopress("ingest", DATA / "reports" / "mixed" / "raw" / "iogen.csv", "-o", tmp_path / BAD)
    assert ran.returncode == 1
    _refusal(ran.stderr)
