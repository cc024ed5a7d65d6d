"""report.toml's mistakes as a user makes them: each names report.toml, its place and the
fix, and those found before any data is read are said at once (docs/report.md)."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from pipeline.dataset.sources import load_report
from pipeline.errors import InputErrors
from tests.cli import iopress
from tests.conftest import DATA, edited_copy

MIXED = DATA / "reports" / "mixed"
MIXED_SOURCES = (
    '[[sources]]\npath = "raw/iogen.csv"\n\n[[sources]]\npath = "raw/fio.json"\n\n'
    '[[sources]]\npath = "raw/vdbench.html"'
)


def _folder(tmp_path: Path, old: str, new: str) -> Path:
    """The mixed test report with ``old`` replaced by ``new`` in its report.toml."""
    return edited_copy(MIXED, tmp_path / "mixed", old, new)


def test_a_misspelt_format_names_report_toml_and_the_source(tmp_path: Path) -> None:
    """It said "error: --format: unknown format 'fio-json'", an option never given."""
    folder = _folder(
        tmp_path, 'path = "raw/fio.json"', 'path = "raw/fio.json"\nformat = "fio-json"'
    )
    run = iopress("build", str(folder), "-o", str(tmp_path / "out"))
    assert run.returncode == 1 and not (tmp_path / "out").exists()
    toml = folder / "report.toml"
    line = toml.read_text(encoding="utf-8").splitlines().index('format = "fio-json"') + 1
    assert run.stderr.startswith(
        f"error: {toml}: sources[1].format (line {line}): unknown value 'fio-json'\n"
    )
    assert "  hint: use one of 'fio', " in run.stderr and "'fio-log'" in run.stderr
    assert "--format" not in run.stderr


def test_three_mistakes_of_the_sources_are_said_at_once(tmp_path: Path) -> None:
    """A misspelt format, a file not there and an unknown setup took three builds: the
    format's error (report.toml's model) hid the others (checked after it)."""
    sources = (
        '[[sources]]\npath = "raw/iogen.csv"\nformat = "io-gen"\n\n'
        '[[sources]]\npath = "raw/fio.jsn"\n\n'
        '[[sources]]\npath = "raw/vdbench.html"\nsetup = "nvme"\n\n'
        '[[sources]]\npath = "raw/*.nothing"\n'
    )
    folder = _folder(tmp_path, MIXED_SOURCES, sources)
    with pytest.raises(InputErrors) as caught:
        load_report(folder)
    said = [(e.where, e.message) for e in caught.value.errors]
    line = (folder / "report.toml").read_text("utf-8").splitlines().index('format = "io-gen"')
    assert said == [
        (f"sources[0].format (line {line + 1})", "unknown value 'io-gen'"),
        ("sources[1].path", "file 'raw/fio.jsn' not found"),
        ("sources[3].path", "'raw/*.nothing' matches no file"),
        ("sources[2].setup", "unknown setup 'nvme'"),
    ]


def test_a_source_invalid_itself_is_said_once(tmp_path: Path) -> None:
    """A source that is itself invalid (no path) is the model's error alone; the valid
    ones beside it are still checked."""
    sources = '[[sources]]\nformat = "fio"\n\n[[sources]]\npath = "raw/gone.csv"\n'
    folder = _folder(tmp_path, MIXED_SOURCES, sources)
    with pytest.raises(InputErrors) as caught:
        load_report(folder)
    said = [(e.where, e.message) for e in caught.value.errors]
    assert said == [
        ("sources[0].path", "Field required"),
        ("sources[1].path", "file 'raw/gone.csv' not found"),
    ]


def test_charts_and_tables_are_said_with_the_sources(tmp_path: Path) -> None:
    """A chart kind and a table name that do not exist were said only once the data was
    read, each in a build of its own; now with the sources' mistakes, whether or not the
    rest of report.toml is valid (a misspelt format is the model's error)."""
    for fmt in ("", 'format = "io-gen"\n'):
        sources = (
            f'[[sources]]\npath = "raw/iogen.csv"\n{fmt}\n'
            '[[sources]]\npath = "raw/fio.jsn"\nsetup = "nvme"\n\n'
            '[[charts]]\nkind = "qd_scalling"\n'
        )
        folder = _folder(tmp_path / str(len(fmt)), MIXED_SOURCES, sources)
        toml = folder / "report.toml"
        toml.write_text('tables = ["performance", "latncy"]\n' + toml.read_text(encoding="utf-8"))
        run = iopress("build", str(folder), "-o", str(tmp_path / "out"))
        assert run.returncode == 1 and not (tmp_path / "out").exists()
        said = [
            line.split(": ", 2)[1] for line in run.stderr.splitlines() if "report.toml: " in line
        ]
        expected = ["sources[1].path", "sources[1].setup", "tables[1]", "charts[0].kind"]
        lines = toml.read_text(encoding="utf-8").splitlines()
        format_line = lines.index('format = "io-gen"') + 1 if fmt else 0
        first = [f"sources[0].format (line {format_line})"] if fmt else []
        assert said == first + expected, run.stderr


def test_a_folders_unknown_setup_is_its_entrys_once(tmp_path: Path) -> None:
    """``path = "raw/"`` under an unknown setup gave one error per file, at the places of
    the expanded list (sources[2], sources[3]: entries report.toml does not have)."""
    sources = '[[sources]]\npath = "raw/fio.json"\n\n[[sources]]\npath = "raw/"\nsetup = "nvme"'
    folder = _folder(tmp_path, MIXED_SOURCES, sources)
    with pytest.raises(InputErrors) as caught:
        load_report(folder)
    said = [(e.where, e.message) for e in caught.value.errors]
    assert said == [
        ("sources[1].setup", "unknown setup 'nvme'"),
        (
            "sources[1].path",
            "'raw/fio.json' is the same file as sources[0].path ('raw/fio.json', setup 'default')",
        ),
    ]


def test_a_folder_of_subfolders_says_how_to_name_their_files(tmp_path: Path) -> None:
    """``path = "raw/array-a/"`` with the files in raw/array-a/4k_r100/: "matches no file,
    check the pattern" (a folder is read without its subfolders)."""
    folder = _folder(tmp_path, MIXED_SOURCES, '[[sources]]\npath = "raw/deep/"\n')
    (folder / "raw" / "deep" / "4k").mkdir(parents=True)
    shutil.copy(folder / "raw" / "fio.json", folder / "raw" / "deep" / "4k" / "fio.json")
    with pytest.raises(InputErrors) as caught:
        load_report(folder)
    (error,) = caught.value.errors
    assert error.message == "'raw/deep/' matches no file"
    assert error.hint == "a folder is read without its subfolders: name them, e.g. 'raw/deep/**/*'"
