"""report.toml's mistakes as a user makes them: each names report.toml, its place and the
fix, and those found before any data is read are said at once (docs/report.md)."""

from __future__ import annotations

import shutil
from pathlib import Path

from tests.cli import iopress
from tests.conftest import DATA

MIXED = DATA / "reports" / "mixed"


def _folder(tmp_path: Path, old: str, new: str) -> Path:
    """The mixed test report with ``old`` replaced by ``new`` in its report.toml."""
    folder = tmp_path / "mixed"
    shutil.copytree(MIXED, folder)
    toml = folder / "report.toml"
    text = toml.read_text(encoding="utf-8")
    assert old in text
    toml.write_text(text.replace(old, new), encoding="utf-8")
    return folder


def test_a_misspelt_format_names_report_toml_and_the_source(tmp_path: Path) -> None:
    """It said "error: --format: unknown format 'fio-json'", an option never given."""
    folder = _folder(
        tmp_path, 'path = "raw/fio.json"', 'path = "raw/fio.json"\nformat = "fio-json"'
    )
    run = iopress("build", str(folder), "-o", str(tmp_path / "out"))
    assert run.returncode == 1 and not (tmp_path / "out").exists()
    toml = folder / "report.toml"
    assert run.stderr.startswith(f"error: {toml}: sources[1].format: unknown value 'fio-json'\n")
    assert "  hint: use one of 'fio', " in run.stderr and "'fio-log'" in run.stderr
    assert "--format" not in run.stderr
