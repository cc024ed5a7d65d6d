"""Every wrong placeholder fails the build with its file and line (no traceback, nothing
printed in its place)."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from pipeline.errors import InputError, InputErrors
from pipeline.prepare import prepare
from pipeline.report import narrative
from tests.conftest import FS840

WRONG = {
    "object, not text": ('{{ maximum("4K", "random", 100) }}', "gives a measured point: name"),
    "unknown queue depth": (
        '{{ maximum("4K", "random", 100, queue_depth=8).iops }}',
        "no queue_depth 8: one of [1]",
    ),
    "no such value in the row": ('{{ min_latency("4K", "random", 100).iops }}', "iops"),
    "read share as text": ('{{ maximum("4K", "random", "70").iops }}', "read share '70'"),
    "value of a measurement table": ('{{ value("performance", "x", "iops") }}', "no table"),
    "unknown filter": ('{{ value("cost", "FS 900", "price", yearr=2016) }}', "yearr"),
    "missing profile": ('{{ maximum("3K", "random", 100).iops }}', "no maximum"),
    "unknown function": ("{{ maximun(1) }}", "maximun"),
    "block size as number": ('{{ maximum(4, "random", 100).iops }}', "block size 4"),
    "unknown setup": ('{{ maximum("4K", "random", 100, setup="x").iops }}', "no setup 'x'"),
    # issue 32: no method of a value, bounded numbers, nothing nested beyond the parser
    # (small arguments here: the memory bombs themselves run in tests/test_security.py)
    "method of a value": ("{{ vendor.zfill(30) }}", "never a value's method"),
    "method of a result": ('{{ maximum("4K", "random", 100).iops.rjust(40) }}', "method"),
    "attribute of a text": ("{{ system.upper }}", "names a value of a measured point"),
    "places beyond 6": ('{{ value("cost", "FS 900", "price_per_tb", places=400) }}', "places=400"),
    "places as position": (
        '{{ value("cost", "FS 900", "price_per_tb", 1000000000) }}',
        "places=1000000000 must be a whole number from 0 to 6",
    ),
    "negative places": ('{{ ratio("cost", "price_per_tb", "FS 900", "FS 900", -1) }}', "places=-1"),
    "year as text": (
        '{{ value("cost", "Tiered Midrange", "price_per_tb", year="2016") }}',
        "year='2016': the column holds numbers",
    ),
    "system as number": ('{{ value("cost", "FS 900", "price_per_tb", system=1) }}', "system=1"),
    "infinite queue depth": (
        '{{ maximum("4K", "random", 100, queue_depth=1e400).iops }}',
        "the number inf is beyond",
    ),
    "300 minus signs": ("{{ " + "-" * 300 + "1 }}", "nested too deeply"),
    # a directive on the line after a paragraph's split it (test_a_directive_not_alone…)
    "a paragraph's next line": ('{{ table("min_latency") }}\nshows it.', "inside a paragraph"),
    "3000 parentheses": ("{{ " + "(" * 3000 + "1" + ")" * 3000 + " }}", "nested too deeply"),
    "5000 digits": ("{{ " + "9" * 5000 + " }}", "more than 30 digits"),
    "call as argument": ('{{ chart(value("cost", "FS 900", "price_per_tb")) }}', "arguments"),
    "unpacked arguments": ("{{ maximum(*system) }}", "arguments"),
    "chart placed twice": ('{{ chart("cost") }} {{ chart("cost") }}', "placed already"),
}


@pytest.mark.parametrize(("text", "said"), WRONG.values(), ids=WRONG.keys())
def test_wrong_placeholder_names_file_and_line(text: str, said: str, tmp_path: Path) -> None:
    report = Path(shutil.copytree(FS840, tmp_path / "report"))
    section = report / "text" / "en" / "conclusion.md"
    lines = section.read_text(encoding="utf-8").count("\n")
    section.write_text(section.read_text(encoding="utf-8") + text + "\n", encoding="utf-8")
    with pytest.raises(InputErrors) as caught:
        prepare(report)
    [error] = caught.value.errors
    assert isinstance(error, InputError)
    assert error.path == section and error.where == f"line {lines + 1}", error
    assert said in str(error), error


@pytest.mark.parametrize(
    "text",
    [
        # it ended the list or quote it stood in (an empty item, the table after it)
        '- {{ table("min_latency") }}',
        '> {{ chart("standard_random_4k") }}',
        '- item\n\n  {{ table("min_latency") }}',  # it ended the item
        'See {{ table("min_latency") }} here.',  # a split sentence
        '{{ chart("standard_random_4k") }} shows it.',
        # it split the list, quote, table or paragraph beside it
        '- one\n{{ table("min_latency") }}\n- two',  # two lists, the table between
        '> one\n{{ table("min_latency") }}\n> two',  # two quotes
        '| a |\n|---|\n{{ table("min_latency") }}\n| 1 |',  # its last rows as text
        'As the table\n{{ table("min_latency") }}\nshows, it is low.',  # a split sentence
    ],
)
def test_a_directive_not_alone_is_refused(text: str, tmp_path: Path) -> None:
    report = Path(shutil.copytree(FS840, tmp_path / "report"))
    section, first = _conclusion_with(report, "\n" + text)
    with pytest.raises(InputErrors) as caught:
        prepare(report)
    [error] = caught.value.errors
    assert (
        error.path == section
        and error.where == f"line {first + 1 + text.count(chr(10), 0, text.index('{{'))}"
    )
    assert "inside a paragraph, a list, a quote, a table or code" in str(error)


@pytest.mark.parametrize(
    "text",
    [
        '{{ table("min_latency") }}   ',
        '## Latency\n{{ table("min_latency") }}\n\nText after.',
        'Latency\n=======\n{{ table("min_latency") }}\n## Next',
        'Windows lines.\r\n\r\n{{ table("min_latency") }}\r\n',
        '{{ table("min_latency") }}{{ chart("standard_random_4k") }}',
        '{{ table("min_latency") }} {{ chart("standard_random_4k") }}',
        'Text.\n\n{{- table("min_latency") -}}\n\nMore text.',
        '{## the table ##} {{ table("min_latency") }}',
        '{{ system }}\n{{ table("min_latency") }}\n{{ chart("standard_random_4k") }}',
    ],
)
def test_a_directive_at_the_start_of_its_own_line_is_placed(text: str, tmp_path: Path) -> None:
    report = Path(shutil.copytree(FS840, tmp_path / "report"))
    _conclusion_with(report, "\n" + text)  # after an empty line
    ctx = prepare(report)
    placed = ctx.filled["en"]["conclusion"].placed
    assert ("table", "min_latency") in placed


def _conclusion_with(report: Path, text: str) -> tuple[Path, int]:
    section = report / "text" / "en" / "conclusion.md"
    lines = section.read_text(encoding="utf-8").count("\n")
    section.write_text(section.read_text(encoding="utf-8") + text + "\n", encoding="utf-8")
    return section, lines + 1


LIMITS = {
    "time": ("RENDER_SECONDS", 0.0, "{{ system }}", "take more than 0 s"),
    "output": ("MAX_OUTPUT_CHARS", 100, "{{ system }} " * 10, "more than 100 characters"),
    "placeholders": ("MAX_PLACEHOLDERS", 2000, "{{ system }}" * 2001, "more than 2,000"),
}


@pytest.mark.parametrize(("name", "limit", "text", "said"), LIMITS.values(), ids=LIMITS.keys())
def test_a_section_over_its_budget_names_file_and_line(
    name: str, limit: float, text: str, said: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A section's placeholders run under a time and an output budget, and their number is
    bounded (compiling 100,000 of them took a minute)."""
    monkeypatch.setattr(narrative, name, limit)
    report = Path(shutil.copytree(FS840, tmp_path / "report"))
    section, line = _conclusion_with(report, text)
    with pytest.raises(InputErrors) as caught:
        prepare(report)
    # (with no time at all, every section with a placeholder fails)
    [error] = [e for e in caught.value.errors if e.path == section]
    first = next(i for i, t in enumerate(section.read_text("utf-8").splitlines(), 1) if "{{" in t)
    assert error.where == f"line {first if name == 'time' else line}", error
    assert said in str(error), error


def test_a_misspelt_section_file_is_named(tmp_path: Path) -> None:
    report = Path(shutil.copytree(FS840, tmp_path / "report"))
    (report / "text" / "de" / "resluts.md").write_text("Ergebnisse\n", encoding="utf-8")
    with pytest.raises(
        InputErrors, match=r"resluts\.md: no chapter of the report reads this text"
    ) as caught:
        prepare(report)
    assert "did you mean results.md?" in str(caught.value)


@pytest.mark.parametrize(
    ("profiles", "said"),
    [
        ('["bogus profile"]', "must read 'BLOCK ACCESS [READ%]'"),
        ('["8K random abc"]', "read share 'abc'"),
        ('["4K random 100", "3K random 100"]', "profile '3K random 100' matches no measured"),
    ],
)
def test_a_chart_profile_must_exist(profiles: str, said: str, tmp_path: Path) -> None:
    report = Path(shutil.copytree(FS840, tmp_path / "report"))
    toml = report / "report.toml"
    text = toml.read_text(encoding="utf-8")
    toml.write_text(text + f'\n[[charts]]\nkind = "standard"\nprofiles = {profiles}\n', "utf-8")
    with pytest.raises((InputError, InputErrors), match="charts") as caught:
        prepare(report)
    assert said in str(caught.value) and "Traceback" not in str(caught.value)


def test_a_headings_attributes_are_text_not_a_jinja_comment() -> None:
    """Pandoc's "## Details {#details}" opened a jinja comment ("Missing end of comment
    tag"); a comment is written {## … ##}."""
    text = "## Details {#details}\n\nSee [details](#details). {## a note to self ##}Done.\n"
    made = narrative.compile_section(narrative.Section(Path("method.md"), text)).render()
    assert "## Details {#details}" in made and "note to self" not in made and "Done." in made


def test_a_chart_not_drawn_is_named_as_such_where_a_text_places_it() -> None:
    """A chart left out as each of its lines would be one point: its placeholder says so,
    not 'no chart' with a list that lacks it."""
    values = narrative.Values.__new__(narrative.Values)
    values.placeable = {"table": [], "chart": ["standard_random_4k"], "not drawn": ["flat_x"]}
    values.placed, values.lines = [], []
    with pytest.raises(ValueError, match="chart 'flat_x' is not drawn: each of its lines"):
        values.place("chart", "flat_x")
    with pytest.raises(ValueError, match="no chart 'nothing'"):
        values.place("chart", "nothing")
    assert "IOPRESSPLACE" in values.place("chart", "standard_random_4k")


def test_the_marker_pattern_matches_every_marker() -> None:
    """sanitize finds a directive's marker by ``narrative.MARKER``: the form is declared
    beside ``narrative.marker``, once."""
    made = narrative.marker(12, narrative.token("some text"))
    assert narrative.MARKER.fullmatch(made)
    assert not narrative.MARKER.search("IOPRESSPLACE0X")
