"""A validator's own words reach the user without pydantic's "Value error, " (or
"Assertion failed, ") before them, in report.toml, SPC-1 records and campaign files."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from pydantic import BaseModel, ValidationError, field_validator

from pipeline.config import from_validation
from pipeline.dataset.sources import load_report
from pipeline.errors import InputErrors
from pipeline.ingest import spc1


class _Checked(BaseModel):
    size: int
    ratio: int

    @field_validator("size")
    @classmethod
    def _size(cls, value: int) -> int:
        if value > 9:
            raise ValueError("at most 9: give a smaller size")
        return value

    @field_validator("ratio")
    @classmethod
    def _ratio(cls, value: int) -> int:
        assert value > 0, "a ratio above 0"
        return value


def _said(data: dict[str, Any]) -> str:
    try:
        _Checked.model_validate(data)
    except ValidationError as err:
        return str(from_validation(Path("x.toml"), err))
    raise AssertionError("accepted")


def test_a_validators_words_without_pydantics_prefix() -> None:
    said = _said({"size": 10, "ratio": 0})
    assert "x.toml: size: at most 9: give a smaller size" in said
    assert "x.toml: ratio: a ratio above 0" in said
    assert "Value error" not in said and "Assertion failed" not in said
    assert "size: Input should be a valid integer" in _said({"size": "a", "ratio": 1})


def test_report_toml_and_spc1_errors_have_no_prefix(tmp_path: Path) -> None:
    import shutil

    from tests.conftest import FS840

    report = Path(shutil.copytree(FS840, tmp_path / "r"))
    toml = report / "report.toml"
    toml.write_text(toml.read_text().replace('currency = "CHF"', 'currency = "SFR"', 1))
    with pytest.raises(InputErrors) as caught:
        load_report(report)
    line = toml.read_text(encoding="utf-8").splitlines().index('currency = "SFR"') + 1
    assert f"{toml}: cost[0].currency (line {line}): unknown currency 'SFR'" in str(caught.value)
    record = tmp_path / "X.toml"
    text = (spc1.CATALOGUE / "AE00008.toml").read_text(encoding="utf-8")
    record.write_text(text.replace('currency = "USD"', 'currency = "XYZ"'), encoding="utf-8")
    with pytest.raises(InputErrors) as caught:
        spc1.load(record)
    assert f"{record}: currency (line 9): unknown currency 'XYZ'" in str(caught.value)
    assert "Value error" not in str(caught.value)


@pytest.mark.parametrize(
    ("line", "written", "said", "hint"),
    [
        (
            'version = "1.03"',
            "version = 1.03",
            "version (line 9): Input should be a valid string",
            'write it in quotes: version = "1.03"',
        ),
        (
            "date = 2016-06-01",
            'date = "15.01.2016"',
            "date (line 10): Input should be a valid date",
            "write the date as year-month-day, without quotes: date = 2026-01-15",
        ),
    ],
)
def test_a_value_of_the_wrong_kind_names_its_line_and_how_to_write_it(
    line: str, written: str, said: str, hint: str, tmp_path: Path
) -> None:
    """A new user's report.toml: `version = 1.03` and a date written as on paper got
    "Input should be a valid string" and "correct the value", without a line."""
    import shutil

    from tests.conftest import FS840

    folder = Path(shutil.copytree(FS840, tmp_path / "r"))
    toml = folder / "report.toml"
    text = toml.read_text(encoding="utf-8")
    assert line in text.splitlines()
    toml.write_text(text.replace(line, written), encoding="utf-8")
    with pytest.raises(InputErrors) as caught:
        load_report(folder)
    [error] = caught.value.errors
    assert f"{toml}: {said}" in str(error) and f"hint: {hint}" in str(error)


def test_the_smallest_report_toml_of_the_docs_is_accepted(tmp_path: Path) -> None:
    """docs/report.md shows the smallest report.toml that builds (a new user could not
    tell which keys are required); it must stay so."""
    import re
    import shutil

    from pipeline.prepare import prepare
    from tests.conftest import DATA, ROOT

    doc = (ROOT / "docs" / "report.md").read_text(encoding="utf-8")
    found = re.search(r"The smallest report.toml that builds:\n\n```toml\n(.*?)```", doc, re.S)
    assert found, "docs/report.md lost its smallest report.toml"
    (tmp_path / "raw").mkdir()
    for raw in (DATA / "fio-sweep" / "4k_r100").glob("*.json"):
        shutil.copy(raw, tmp_path / "raw")
    (tmp_path / "report.toml").write_text(found[1], encoding="utf-8")
    ctx = prepare(tmp_path)
    assert ctx.dataset.accounting()["accepted"] == 5


def test_a_build_s_output_given_as_the_report_folder_is_named_so(tmp_path: Path) -> None:
    """`iopress verify OUT` said "OUT/report.toml: file not found — check the path"."""
    from pipeline.errors import InputError

    (tmp_path / "manifest.json").write_text("{}", encoding="utf-8")
    with pytest.raises(InputError) as caught:
        load_report(tmp_path)
    said = str(caught.value)
    assert said.startswith(f"{tmp_path}: a build's output (it holds manifest.json)")
    assert "give the report folder (the one with report.toml and the raw data)" in said


def test_a_text_given_as_a_number_or_a_list_is_explained_not_a_crash(tmp_path: Path) -> None:
    """`title = 5` crashed (TypeError in the languages check); `author = ["a", "b"]` got
    the hint `author = "['a', 'b']"`."""
    import re
    import shutil

    from tests.conftest import FS840

    folder = Path(shutil.copytree(FS840, tmp_path / "r"))
    toml = folder / "report.toml"
    text = re.sub(r"\[title\]\n(?:[a-z]+ = .*\n)+", "", toml.read_text(encoding="utf-8"))
    text = re.sub(r'^author = ".*"$', 'author = ["a", "b"]', text, flags=re.M)
    toml.write_text("title = 5\n" + text, encoding="utf-8")
    with pytest.raises(InputErrors) as caught:
        load_report(folder)
    said = str(caught.value)
    assert "title (line 1): Input should be a valid dictionary" in said
    assert 'title = { de = "…", en = "…" }, or one text' in said
    assert 'hint: write it in quotes: author = "…"' in said and "['a'" not in said


@pytest.mark.parametrize(("key", "header"), [("chapters", "[[charts]]"), ("edition", "[system]")])
def test_a_top_level_key_below_a_table_says_to_move_it_up(
    tmp_path: Path, key: str, header: str
) -> None:
    """`chapters = [...]` written after `[[charts]]` got "unknown key 'chapters' in
    charts[2] … remove or rename": TOML reads it as the table's, so it belongs higher."""
    import shutil

    from tests.conftest import DATA

    folder = Path(shutil.copytree(DATA / "reports" / "mixed", tmp_path / "r"))
    toml = folder / "report.toml"
    value = '["summary"]' if key == "chapters" else '"customer"'
    table = '[[charts]]\nkind = "standard"\n' if header == "[[charts]]" else "[system]\n"
    text = toml.read_text(encoding="utf-8")
    if header == "[system]":
        text = text.replace("[system]\n", f"[system]\n{key} = {value}\n", 1)
    else:
        text += f"\n{table}{key} = {value}\n"
    toml.write_text(text, encoding="utf-8")
    with pytest.raises(InputErrors) as caught:
        load_report(folder)
    said = str(caught.value)
    assert f"unknown key {key!r} in " in said
    assert f"hint: {key!r} is a key of the top level: written below {header}, TOML" in said
    assert "move it above the first [...] or [[...]] header" in said


def _with_figure(tmp_path: Path, keys: str) -> Path:
    """The mixed test report with a 256K read vendor figure of 3 (and ``keys``) at its
    end."""
    import shutil

    from tests.conftest import DATA

    folder = Path(shutil.copytree(DATA / "reports" / "mixed", tmp_path / "r"))
    toml = folder / "report.toml"
    figure = '[[vendor_figures]]\naccess = "sequential"\nblock_size = "256K"\nread_pct = 100\n'
    figure += 'metric = "bytes_per_s"\nvalue = 3\n' + keys
    toml.write_text(toml.read_text(encoding="utf-8") + "\n" + figure, encoding="utf-8")
    return folder


def test_a_near_name_comes_before_a_top_level_key_of_that_name(tmp_path: Path) -> None:
    """`units = "GB/s"` in a [[vendor_figures]] is `unit` misspelt, though `units` is also
    a key of the top level: "did you mean 'unit'?" (it said to move `units` up)."""
    with pytest.raises(InputErrors) as caught:
        load_report(_with_figure(tmp_path, 'units = "GB/s"\n'))
    assert "unknown key 'units' in vendor_figures[0] — did you mean 'unit'?" in str(caught.value)


def test_a_top_level_key_below_a_table_that_sets_the_near_name_is_misplaced(
    tmp_path: Path,
) -> None:
    """`unit = "GB/s"` set in a [[vendor_figures]] and `units = "decimal"` written after
    it: "did you mean 'unit'?" led to an unknown value; the key belongs at the top."""
    with pytest.raises(InputErrors) as caught:
        load_report(_with_figure(tmp_path, 'unit = "GB/s"\nunits = "decimal"\n'))
    said = str(caught.value)
    assert "did you mean" not in said and "'units' is a key of the top level" in said


@pytest.mark.parametrize(
    ("item", "said"),
    [
        ('{ access = "random", value = 3 }', "chapters[1]: not a chapter: a standard key, or"),
        ('{ file = "Notes.md", title = "x" }', "chapters[1].file: 'Notes.md' is no text's name"),
        ("4", "chapters[1]: not a chapter"),
    ],
)
def test_a_chapter_that_is_none_is_one_line(tmp_path: Path, item: str, said: str) -> None:
    """Two vendor figures put into `chapters` gave 19 errors in pydantic's words
    (`chapters[8].literal['preliminary', …]`, `chapters[8].OwnChapter.file`)."""
    from pipeline.dataset.sources import load_report
    from tests.conftest import FS840, edited_copy

    folder = edited_copy(
        FS840, tmp_path / "r", 'id = "fs840"', f'id = "fs840"\nchapters = ["summary", {item}]'
    )
    with pytest.raises(InputErrors) as caught:
        load_report(folder)
    (error,) = caught.value.errors
    assert said in error.message, error
    assert "literal" not in str(error) and "OwnChapter" not in str(error)


@pytest.mark.parametrize(
    ("added", "where"),
    [
        ('[[setups]]\nname = "a\\nb"\n', "setups[0].name"),
        ('[[hosts]]\nname = "h\\tx"\n', "hosts[0].name"),
        ('[[hosts]]\nname = "h"\nraw = ["perf36\\n"]\n', "hosts[0].raw[0]"),
    ],
)
def test_a_name_of_two_lines_is_refused_by_report_toml(
    tmp_path: Path, added: str, where: str
) -> None:
    """A setup "a\\nb" passed report.toml and every record of it then failed the schema's
    check, blamed on the raw file; a system name of two lines failed the build with "no
    record was accepted" and no reject listed."""
    import shutil

    from tests.conftest import DATA

    folder = Path(shutil.copytree(DATA / "reports" / "mixed", tmp_path / "r"))
    toml = folder / "report.toml"
    toml.write_text(toml.read_text(encoding="utf-8") + "\n" + added, encoding="utf-8")
    with pytest.raises(InputErrors) as caught:
        load_report(folder)
    [error] = caught.value.errors
    assert error.where.startswith(where), error
    assert "a name is one line: no tab or line break" in error.message


def test_a_system_name_of_two_lines_is_refused(tmp_path: Path) -> None:
    import shutil

    from tests.conftest import DATA

    folder = Path(shutil.copytree(DATA / "reports" / "mixed", tmp_path / "r"))
    toml = folder / "report.toml"
    text = toml.read_text(encoding="utf-8")
    toml.write_text(text.replace('name = "Test System', 'name = "Test\\nSystem', 1), "utf-8")
    with pytest.raises(InputErrors, match="a name is one line"):
        load_report(folder)
