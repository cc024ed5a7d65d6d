"""Every wrong placeholder fails the build with its file and line (no traceback, nothing
printed in its place)."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from pipeline.build import prepare
from pipeline.errors import InputError, InputErrors
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
    "old attribute name": ('{{ maximum("4K", "random", 100).mb_s }}', ".bytes_per_s"),
    "missing profile": ('{{ maximum("3K", "random", 100).iops }}', "no maximum"),
    "unknown function": ("{{ maximun(1) }}", "maximun"),
    "block size as number": ('{{ maximum(4, "random", 100).iops }}', "block size 4"),
    "unknown setup": ('{{ maximum("4K", "random", 100, setup="x").iops }}', "no setup 'x'"),
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
