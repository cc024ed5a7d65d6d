"""``iopress ingest`` given what a user types: a folder for its files, a format misspelt."""

from __future__ import annotations

import shutil
from pathlib import Path

import polars as pl
import pytest

from pipeline import ingest
from pipeline.errors import InputError
from pipeline.ingest.base import ReadOptions
from tests.cli import iopress
from tests.conftest import DATA

IOGEN = DATA / "iogen"


def test_a_folder_is_read_as_its_files(tmp_path: Path) -> None:
    """It ended in a traceback (IsADirectoryError); now a folder is its files, sorted,
    as report.toml's ``path = "raw/"``: hidden files and subfolders left out."""
    raw = tmp_path / "raw"
    (raw / "sub").mkdir(parents=True)
    for name in ("basic.csv", "bad_rows.csv"):
        shutil.copy(IOGEN / name, raw / name)
    shutil.copy(IOGEN / "basic.csv", raw / ".hidden.csv")
    shutil.copy(IOGEN / "basic.csv", raw / "sub" / "again.csv")
    out = tmp_path / "ds.parquet"
    run = iopress("ingest", str(raw), "-o", str(out))
    assert run.returncode == 0, run.stderr
    assert run.stdout == "read: 17, accepted: 9, rejected: 8\n"
    files = iopress("ingest", str(raw / "bad_rows.csv"), str(raw / "basic.csv"), "-o", str(out))
    assert files.stdout == run.stdout
    sources = set(pl.read_parquet(tmp_path / "ds.intervals.parquet")["source"])
    assert sources == {str(raw / "basic.csv"), str(raw / "bad_rows.csv")}


def test_an_empty_folder_is_one_line(tmp_path: Path) -> None:
    (tmp_path / "empty").mkdir()
    out = tmp_path / "ds.parquet"
    run = iopress("ingest", str(tmp_path / "empty"), "-o", str(out))
    assert run.returncode == 1 and not out.exists()
    assert run.stderr == f"error: {tmp_path / 'empty'}: a folder without files\n" + (
        "  hint: name raw files or their folder\n"
    )


def test_a_folder_read_as_a_file_is_an_input_error(tmp_path: Path) -> None:
    with pytest.raises(InputError, match="not a regular file"):
        ingest.read(tmp_path, ReadOptions(), "iogen")


def test_a_misspelt_format_is_the_error_alone(tmp_path: Path) -> None:
    """It printed "read: 0, accepted: 0, rejected: 0" and "no record was accepted" around
    the error; now the error alone, with the format meant."""
    out = tmp_path / "x.parquet"
    run = iopress("ingest", str(IOGEN / "basic.csv"), "-o", str(out), "--format", "iogne")
    assert run.returncode == 1 and run.stdout == "" and not out.exists()
    assert run.stderr == (
        "error: --format: unknown format 'iogne'\n  hint: did you mean 'iogen'? use one of "
        "fio, vdbench, diskspd, crystaldiskmark, iometer, elbencho, iogen, fio-log\n"
    )
