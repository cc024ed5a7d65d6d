"""Folders nested deeper than Python's recursion limit: a walk over them (the hard-link
note, the fingerprint) works; a ``**`` glob over them is refused by name, not with a
RecursionError traceback (Python 3.11's os.walk and pathlib's glob recurse)."""

from __future__ import annotations

import os
import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest

from pipeline import inputs
from pipeline.config import MAX_DEPTH
from pipeline.dataset.sources import load_report
from pipeline.errors import InputErrors
from pipeline.fingerprint import fingerprint
from pipeline.prepare import prepare
from tests.conftest import DATA

MIXED = DATA / "reports" / "mixed"
DEPTH = 1_300  # past the recursion limit of 1,000


def _chain(top: Path, depth: int, name: str = "d", last: str = "last.json") -> Path:
    """``top/d/d/…/d/last.json`` ``depth`` folders down, made from the inside (no path
    too long to name)."""
    here = os.open(top, os.O_RDONLY)
    try:
        for _ in range(depth):
            os.mkdir(name, dir_fd=here)
            inner = os.open(name, os.O_RDONLY, dir_fd=here)
            os.close(here)
            here = inner
        fd = os.open(last, os.O_WRONLY | os.O_CREAT, dir_fd=here)
        os.write(fd, b"{}")
        os.close(fd)
    finally:
        os.close(here)
    return top


def _unchain(folder: Path) -> None:
    """Remove the ``d`` chain below ``folder`` one level at a time: shutil.rmtree (and
    pytest's clean-up of old temporary folders with it) recurses and fails on it."""
    chain, spare = folder / "d", folder / "d-spare"
    while (chain / "d").is_dir():
        (chain / "d").rename(spare)
        for name in os.listdir(chain):
            (chain / name).unlink()
        chain.rmdir()
        spare.rename(chain)


@pytest.fixture(autouse=True)
def _cleaned(tmp_path: Path) -> Iterator[None]:
    yield
    for folder in (tmp_path, tmp_path / "report" / "raw"):
        _unchain(folder)


def _report(tmp_path: Path, path: str = "raw/fio.json", depth: int = DEPTH) -> Path:
    """The mixed report with a folder chain ``depth`` deep and its fio source as ``path``."""
    report = Path(shutil.copytree(MIXED, tmp_path / "report"))
    _chain(report / "raw", depth)
    return _sourced(report, path)


def _sourced(report: Path, path: str) -> Path:
    toml = report / "report.toml"
    text = toml.read_text(encoding="utf-8").replace('"raw/fio.json"', f'"{path}"')
    toml.write_text(text, encoding="utf-8")
    return report


def test_the_walk_goes_down_any_depth_and_not_through_links(tmp_path: Path) -> None:
    _chain(tmp_path, DEPTH)
    (tmp_path / "out").mkdir()
    (tmp_path / "out" / "x").write_text("x", encoding="utf-8")
    (tmp_path / "link").symlink_to(tmp_path / "out")
    walked = list(inputs.walk(tmp_path))
    assert len(walked) == DEPTH + 2  # the top, the chain, out/ (link/ listed, not entered)
    top = walked[0]
    assert sorted(top[1]) == ["d", "link", "out"] and top[2] == []
    assert sum(files.count("last.json") for _, _, files in walked) == 1
    assert sum(files.count("x") for _, _, files in walked) == 1


def test_a_pruned_folder_is_not_entered(tmp_path: Path) -> None:
    _chain(tmp_path, 3)
    seen = []
    for here, dirs, _ in inputs.walk(tmp_path):
        seen.append(here)
        dirs[:] = []
    assert seen == [str(tmp_path)]


def test_too_deep_names_the_first_folder_past_the_limit(tmp_path: Path) -> None:
    _chain(tmp_path, 5)
    assert inputs.too_deep(tmp_path, 5) is None
    assert inputs.too_deep(tmp_path, 4) == tmp_path.joinpath(*["d"] * 5)


def test_a_deep_folder_beside_the_sources_builds_with_its_hard_link_note(tmp_path: Path) -> None:
    report = _report(tmp_path)
    os.link(report / "raw" / "iogen.csv", tmp_path / "iogen-elsewhere.csv")
    ctx = prepare(report)
    assert any(n.startswith("raw/iogen.csv: ") and "hard link" in n for n in ctx.dataset.notes)
    assert fingerprint(report) is not None  # was None: its walk gave a RecursionError


def test_a_glob_over_too_deep_folders_is_refused_by_name(tmp_path: Path) -> None:
    report = _report(tmp_path, "raw/**/*.json")
    with pytest.raises(InputErrors) as caught:
        load_report(report)
    [error] = caught.value.errors
    assert error.where == "sources[1].path"
    assert f"nested more than {MAX_DEPTH} deep ('raw/d/d/" in error.message
    assert "shallower pattern" in error.hint


def test_a_glob_without_stars_over_the_same_folders_is_read(tmp_path: Path) -> None:
    report = _report(tmp_path, "raw/*.json")
    assert "raw/fio.json" in [s.path for s in load_report(report).sources]


def test_a_pattern_of_two_stars_stars_is_refused(tmp_path: Path) -> None:
    """Each '**' more multiplies the search: four in one pattern took minutes on a tree
    60 folders deep."""
    report = _report(tmp_path, "raw/**/a/**/*.json", depth=0)
    with pytest.raises(InputErrors) as caught:
        load_report(report)
    [error] = caught.value.errors
    assert "has more than one '**'" in error.message and "raw/**/*.json" in error.hint


def test_folders_too_long_to_name_are_an_error_not_a_traceback(tmp_path: Path) -> None:
    """Folders nested past PATH_MAX (made from the inside): the glob's OSError
    (ENAMETOOLONG) and the hard-link walk's lstat gave tracebacks."""
    report = Path(shutil.copytree(MIXED, tmp_path / "report"))
    _chain(report / "raw", 18, name="x" * 250, last="fio.json")
    os.link(report / "raw" / "iogen.csv", report / "raw" / "iogen-copy.csv")
    seen = {"iogen": inputs.digest(report / "raw" / "iogen.csv")}
    assert seen["iogen"].links == 2
    assert inputs.hard_links(report, seen) == []  # its walk goes past the long names
    with pytest.raises(InputErrors) as caught:
        load_report(_sourced(report, "raw/**/fio.json"))
    [error] = caught.value.errors
    assert error.where == "sources[1].path" and "'raw/**/fio.json': " in error.message
    _unlong(report / "raw")


def _unlong(folder: Path) -> None:
    """Remove the long chain from the inside out (rmtree cannot name its depths)."""
    name = "x" * 250
    fds = [os.open(folder, os.O_RDONLY)]
    while True:
        try:
            fds.append(os.open(name, os.O_RDONLY, dir_fd=fds[-1]))
        except FileNotFoundError:
            break
    for parent, child in zip(reversed(fds[:-1]), reversed(fds[1:]), strict=True):
        for entry in os.listdir(child):
            if entry != name:
                os.unlink(entry, dir_fd=child)
        os.close(child)
        os.rmdir(name, dir_fd=parent)
    os.close(fds[0])
