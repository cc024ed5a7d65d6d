"""Raw files named by a glob or a folder: every file read in sorted order, each one in
the provenance; patterns that match nothing or lead out are errors naming their place."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from pipeline.dataset.sources import load_report
from pipeline.errors import InputError, InputErrors
from pipeline.prepare import prepare
from pipeline.provenance import inputs

MIXED = Path(__file__).resolve().parent / "data" / "reports" / "mixed"
FIO = Path(__file__).resolve().parent / "data" / "fio"


def _report(tmp_path: Path, path: str) -> Path:
    """The mixed test report with its fio source replaced by ``path`` over two fio files."""
    report = Path(shutil.copytree(MIXED, tmp_path / "report"))
    (report / "raw" / "fio").mkdir()
    shutil.move(report / "raw" / "fio.json", report / "raw" / "fio" / "b.json")
    shutil.copy(FIO / "per_job.json", report / "raw" / "fio" / "a.json")
    (report / "raw" / "fio" / ".hidden.json").write_text("{", encoding="utf-8")
    toml = report / "report.toml"
    toml.write_text(
        toml.read_text(encoding="utf-8").replace('"raw/fio.json"', f'"{path}"'), "utf-8"
    )
    return report


@pytest.mark.parametrize("path", ["raw/fio/*.json", "raw/fio/", "raw/fio", "raw/**/?.json"])
def test_glob_and_folder_sources_read_every_file_sorted(path: str, tmp_path: Path) -> None:
    report = _report(tmp_path, path)
    listed = [s.path for s in load_report(report).sources]
    assert listed == ["raw/iogen.csv", "raw/fio/a.json", "raw/fio/b.json", "raw/vdbench.html"]
    ctx = prepare(report)
    sources = set(ctx.dataset.intervals["source"].to_list())
    assert {"raw/fio/a.json", "raw/fio/b.json"} <= sources
    files = [f.path for f in inputs(report, ctx.report, ctx.dataset, ctx.read)]
    assert "raw/fio/a.json" in files and "raw/fio/b.json" in files


@pytest.mark.parametrize(
    ("path", "said"),
    [
        ("raw/fio/*.csv", "'raw/fio/*.csv' matches no file"),
        ("raw/nothing/", "'raw/nothing/' matches no file"),
        ("../*.json", "outside the report folder"),
        ("/etc/*", "outside the report folder"),
        ("../../", "outside the report folder"),
    ],
)
def test_a_pattern_that_finds_nothing_or_leads_out_is_refused(
    path: str, said: str, tmp_path: Path
) -> None:
    report = _report(tmp_path, path)
    (tmp_path / "outside.json").write_text("{}", encoding="utf-8")
    with pytest.raises(InputErrors) as caught:
        load_report(report)
    [error] = caught.value.errors
    assert isinstance(error, InputError) and error.where.startswith("sources[1].path")
    assert said in error.message


def test_a_link_out_of_the_folder_found_by_a_glob_is_refused(tmp_path: Path) -> None:
    report = _report(tmp_path, "raw/fio/*.json")
    (tmp_path / "secret.json").write_text("{}", encoding="utf-8")
    (report / "raw" / "fio" / "c.json").symlink_to(tmp_path / "secret.json")
    with pytest.raises(
        InputErrors, match=r"sources\[1\]\.path: 'raw/fio/c\.json' \(a link\) leads"
    ):
        load_report(report)


@pytest.mark.parametrize("path", ["raw/out/", "raw/out/*.json"])
def test_a_folder_linked_out_is_refused_before_it_is_listed(path: str, tmp_path: Path) -> None:
    report = _report(tmp_path, path)
    (tmp_path / "elsewhere").mkdir()
    (tmp_path / "elsewhere" / "secret.json").write_text("{}", encoding="utf-8")
    (report / "raw" / "out").symlink_to(tmp_path / "elsewhere")
    with pytest.raises(InputErrors) as caught:
        load_report(report)
    assert "leads outside the report folder" in str(caught.value)
    assert "secret" not in str(caught.value)  # its content was never listed


def test_the_provenance_names_the_format_each_file_was_read_as(tmp_path: Path) -> None:
    ctx = prepare(_report(tmp_path, "raw/fio/"))  # the mixed report names no format
    formats = {f.path: f.format for f in inputs(ctx.folder, ctx.report, ctx.dataset, ctx.read)}
    assert formats["raw/fio/a.json"] == formats["raw/fio/b.json"] == "fio"
    assert formats["raw/iogen.csv"] == "iogen" and formats["raw/vdbench.html"] == "vdbench"
