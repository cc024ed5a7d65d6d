"""A control character in a chapter's text is refused with its place, before any output
(typst failed on it with "this is a bug")."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from pipeline.errors import InputErrors
from pipeline.report.narrative import load
from tests.conftest import DATA


def test_a_control_character_in_a_text_is_named_with_its_place(tmp_path: Path) -> None:
    shutil.copytree(DATA / "reports" / "mixed" / "text", tmp_path / "text")
    path = next(iter(sorted((tmp_path / "text" / "de").glob("*.md"))))
    path.write_text("First line\nSecond \x02 here\n", encoding="utf-8")
    with pytest.raises(InputErrors) as caught:
        load(tmp_path, [path.stem])
    said = str(caught.value)
    assert path.name in said and "line 2, column 8" in said and "U+0002" in said


def test_tabs_and_line_ends_are_text(tmp_path: Path) -> None:
    shutil.copytree(DATA / "reports" / "mixed" / "text", tmp_path / "text")
    for lang in ("de", "en"):
        path = tmp_path / "text" / lang / "summary.md"
        path.write_text("a\tb\r\nc\n", encoding="utf-8")
    names = ["conclusion", "method", "setup", "summary"]
    assert load(tmp_path, names)["de"]["summary"].text.startswith("a\tb")
