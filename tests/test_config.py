"""report.toml validation: every problem named with file, field and a fix."""

from __future__ import annotations

import os
import re
import shutil
from pathlib import Path

import pytest

from pipeline import config
from pipeline.dataset.sources import load_report
from pipeline.errors import InputError, InputErrors
from pipeline.ingest.iogen import ColumnMapping
from tests.conftest import FS840


@pytest.fixture
def report(tmp_path: Path) -> Path:
    folder = tmp_path / "r"
    shutil.copytree(FS840, folder)
    return folder


def _edit(folder: Path, old: str, new: str) -> Path:
    path = folder / "report.toml"
    text = path.read_text(encoding="utf-8")
    assert old in text
    path.write_text(text.replace(old, new, 1), encoding="utf-8")
    return path


def test_example_is_valid() -> None:
    report = load_report(FS840)
    assert report.id == "fs840"
    assert report.vendor_figures[2].base_value("binary") == 8000 * 1024**2


def test_missing_and_unknown_fields_are_all_reported(report: Path) -> None:
    path = _edit(report, 'author = "Andreas Zallmann"', 'writer = "A. Z."')
    with pytest.raises(InputErrors) as caught:
        load_report(report)
    assert str(caught.value) == (
        "2 input errors:\n"
        f"{path}: author: Field required\n"
        "  hint: add this field to report.toml (see docs/report.md)\n"
        f"{path}: line 7: unknown key 'writer'\n"
        "  hint: known here: author, chapters, charts, classification, contact, cost, cost_note, "
        "datasheet, date, edition, "
        "findings, footprint, frontend_backend, hosts, id, latency_limits, load_generators, "
        "machines, method, "
        "number_style, optimum_margin_pp, organisation, profiles, rack_units, reconstructed, "
        "repeats, "
        "setups, sizing, sources, spc1, speedup, sponsor, subtitle, system, tables, theme, title, "
        "units, vendor_figures, version; remove or rename this field (see docs/report.md for "
        "the known fields)"
    )


@pytest.mark.parametrize(
    ("typo", "message"),
    [
        ("num_jobs = 4", "unknown key 'num_jobs' in sources[0].params — did you mean 'numjobs'?"),
        ("io_depth = 8", "unknown key 'io_depth' in sources[0].params — did you mean 'iodepth'?"),
        (
            'block_size = "64k"',
            "unknown key 'block_size' in sources[0].params — did you mean 'bs'?",
        ),
        (
            'numjobs = "two"',
            "sources[0].params.numjobs (line {n}): Input should be a valid integer, unable to "
            "parse string as an integer\n  hint: write a whole number, without quotes: "
            "numjobs = 4",
        ),
        (
            'bs = "64q"',
            "sources[0].params.bs (line {n}): unknown block size unit",
        ),
    ],
)
def test_source_params_refuse_unknown_keys_and_wrong_types(
    report: Path, typo: str, message: str
) -> None:
    path = _edit(
        report,
        'path = "raw/fs840.iogen.csv"',
        f'path = "raw/fs840.iogen.csv"\nparams = {{ rw = "randread", {typo} }}',
    )
    line = (
        path.read_text(encoding="utf-8")
        .splitlines()
        .index(f'params = {{ rw = "randread", {typo} }}')
    )
    with pytest.raises(InputErrors) as caught:
        load_report(report)
    place = f"line {line + 1}: " if message.startswith("unknown") else ""
    said = message.replace("{n}", str(line + 1))  # a value of the wrong kind: its line too
    assert str(caught.value).startswith(f"{path}: {place}{said}")


@pytest.mark.parametrize(
    ("old", "new", "message"),
    [
        ('author = "', 'autor = "', "unknown key 'autor' — did you mean 'author'?"),
        ('name = "IBM FlashSystem 840"', 'nam = "IBM FlashSystem 840"', "in system"),
        ('name = "default"', 'nme = "default"', "in setups[0] — did you mean 'name'?"),
        ('[[sources]]\npath = "', '[[sources]]\npth = "', "in sources[0] — did you mean 'path'?"),
    ],
)
def test_a_typo_in_report_toml_is_one_line_with_its_line_number(
    report: Path, old: str, new: str, message: str
) -> None:
    """The key a typo meant is not reported missing as well: one error, one line."""
    path = _edit(report, old, new)
    line = next(
        i
        for i, text in enumerate(path.read_text("utf-8").splitlines(), 1)
        if text.startswith(new.split("\n")[-1])
    )
    with pytest.raises(InputErrors) as caught:
        load_report(report)
    assert len(caught.value.errors) == 1
    text = str(caught.value)
    assert text.startswith(f"{path}: line {line}: unknown key ") and message in text
    assert "\n" not in text and "Field required" not in text


def test_toml_line_finds_keys_in_tables_arrays_and_inline_tables() -> None:
    text = 'id = "x"\n[a]\nk = 1\n[[s]]\nk = 2\n[[s]]\np = { q = 1, k = 3 }\n'
    assert config.toml_line(text, ("id",)) == 1
    assert config.toml_line(text, ("a", "k")) == 3
    assert config.toml_line(text, ("s", 0, "k")) == 5
    assert config.toml_line(text, ("s", 1, "p", "k")) == 7
    assert config.toml_line(text, ("s", 1, "missing")) is None
    assert config.toml_line("", ("k",)) is None


def test_the_same_raw_file_twice_is_refused_naming_both_places(report: Path) -> None:
    text = (report / "report.toml").read_text(encoding="utf-8")
    start = text.index("[[sources]]")
    end = text.index("\n\n", start)
    path = report / "report.toml"
    path.write_text(text + "\n" + text[start:end] + "\n", encoding="utf-8")
    with pytest.raises(InputErrors) as caught:
        load_report(report)
    assert "is the same file as sources[0].path" in str(caught.value)


def test_a_hard_link_to_a_listed_file_is_the_same_file(report: Path) -> None:
    """One file under two names (a hard link): refused as listed twice, not taken as two
    runs of the point (which repeats = "mean" then averaged with itself)."""
    text = (report / "report.toml").read_text(encoding="utf-8")
    start = text.index("[[sources]]")
    block = text[start : text.index("\n\n", start)]
    listed = re.search(r'path = "([^"]+)"', block)
    assert listed is not None
    os.link(report / listed[1], report / "raw" / "again.csv")
    again = block.replace(listed[1], "raw/again.csv")
    (report / "report.toml").write_text(text + "\n" + again + "\n", encoding="utf-8")
    with pytest.raises(InputErrors) as caught:
        load_report(report)
    assert "'raw/again.csv' is the same file as sources[0].path" in str(caught.value)


def test_text_missing_a_language(report: Path) -> None:
    path = _edit(report, 'en = "unclassified"\n', "")
    with pytest.raises(InputErrors) as caught:
        load_report(report)
    assert f"{path}: classification: text missing for language(s) en" in str(caught.value)


def test_raw_path_outside_the_folder_is_refused(report: Path) -> None:
    path = _edit(report, 'path = "raw/fs840.iogen.csv"', 'path = "../../etc/passwd"')
    with pytest.raises(InputErrors) as caught:
        load_report(report)
    assert str(caught.value).endswith(
        f"{path}: sources[0].path: '../../etc/passwd' points outside the report folder\n"
        "  hint: keep every file the report names inside the report folder (no links out)"
    )


def test_missing_raw_file(report: Path) -> None:
    path = _edit(report, 'path = "raw/fs840.iogen.csv"', 'path = "raw/none.csv"')
    with pytest.raises(InputErrors, match=r"sources\[0\].path: file 'raw/none.csv' not found"):
        load_report(report)
    assert path.exists()


def test_toml_syntax_error_names_line(report: Path) -> None:
    (report / "report.toml").write_text('id = "x"\ntitle = [\n', encoding="utf-8")
    with pytest.raises(InputError) as caught:
        load_report(report)
    assert "not valid TOML" in str(caught.value) and "line 2" in str(caught.value)


def test_mapping_separators_must_differ() -> None:
    with pytest.raises(ValueError, match="thousands and decimal separator must differ"):
        ColumnMapping(decimal=",", thousands=",")


def test_plain_string_means_both_languages(report: Path) -> None:
    _edit(report, '[classification]\nde = "nicht klassifiziert"\nen = "unclassified"\n', "")
    _edit(
        report, "date = 2016-06-01\n", 'date = 2016-06-01\nclassification = "öffentlich / public"\n'
    )
    assert load_report(report).classification == {
        "de": "öffentlich / public",
        "en": "öffentlich / public",
    }


def test_spc1_and_chart_files_outside_the_folder_are_refused(report: Path) -> None:
    path = _edit(report, 'spc1 = ["AE00008", "A00163"]', 'spc1 = ["../../x.toml"]')
    (report / "report.toml").write_text(
        path.read_text(encoding="utf-8")
        + ('\n[[charts]]\nkind = "histogram"\nsource = "/etc/passwd"\n'),
        encoding="utf-8",
    )
    with pytest.raises(InputErrors) as caught:
        load_report(report)
    message = str(caught.value)
    assert f"{path}: charts[0].source: '/etc/passwd' points outside the report folder" in message
    assert f"{path}: spc1[0]: '../../x.toml' points outside the report folder" in message


def test_a_mistyped_chapter_key_is_one_line_with_the_nearest_key(tmp_path: Path) -> None:
    """A chapter key typed wrong gave two errors in pydantic's words, one naming the class
    OwnChapter; it is one line naming the nearest key and how an own chapter is written."""
    toml = tmp_path / "report.toml"
    text = (FS840 / "report.toml").read_text(encoding="utf-8")
    toml.write_text('chapters = ["summary", "setpu"]\n' + text, encoding="utf-8")
    with pytest.raises(InputErrors) as caught:
        load_report(tmp_path)
    # the raw files, not copied, are said missing with it (every problem at once)
    (error,) = [e for e in caught.value.errors if "chapter" in e.message]
    assert "unknown chapter 'setpu' — did you mean 'setup'?" in str(error)
    assert "OwnChapter" not in str(error) and 'file = "name.md"' in str(error)


@pytest.mark.parametrize("escaped", ["\\u202e", "\\u009b", "\\u001b"])
def test_report_toml_text_holds_no_c1_or_bidi_control(tmp_path: Path, escaped: str) -> None:
    """report.toml refused C0 controls but let C1 controls and bidi overrides (U+202E)
    through, the set names from data are checked against (inputs.CONTROL)."""
    toml = tmp_path / "report.toml"
    text = (FS840 / "report.toml").read_text(encoding="utf-8")
    toml.write_text(text.replace('author = "', f'author = "x{escaped}', 1), encoding="utf-8")
    with pytest.raises(InputErrors, match="control character"):
        load_report(tmp_path)


def test_toml_line_tells_the_items_of_an_inline_array_apart() -> None:
    """Every vendor figure of ``vendor_figures = [ {…}, {…} ]`` got the first one's line.
    Strings and comments holding brackets, commas and quotes do not count as items."""
    text = (
        'id = "x"\n'
        "vendor_figures = [\n"
        '  { access = "random", value = 1 },  # a "quoted, comment [ {\n'
        '  {access="random",\n'
        '   block_size = "8K", note = "a, b ] } \\" x", value=2},\n'
        "  { block_size = '64K\\', value = 3 },\n"
        "]\n"
        "other = [{access = 1}, {access = 2}, {access = 3}]\n"
    )
    assert config.toml_line(text, ("vendor_figures", 0, "access")) == 3
    assert config.toml_line(text, ("vendor_figures", 1, "access")) == 4
    assert config.toml_line(text, ("vendor_figures", 1, "value")) == 5
    assert config.toml_line(text, ("vendor_figures", 2, "access")) == 6  # no key: its item
    assert config.toml_line(text, ("vendor_figures", 2, "value")) == 6
    assert config.toml_line(text, ("other", 2, "access")) == 8
    assert config.toml_line(text, ("vendor_figures", 3, "access")) == 3  # no item: the first
