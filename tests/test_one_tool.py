"""One profile, one tool (issue 37): the tables and charts know a profile by its setup,
queue depth, access, block size and read share; points of two tools there (Iometer's and
CrystalDiskMark's 4 KB random reads at QD 1) are refused, naming both files and telling
the user to give each tool a setup of its own."""

from __future__ import annotations

from pathlib import Path

import pytest

from pipeline import ingest
from pipeline.dataset.assemble import combine
from pipeline.errors import InputError
from pipeline.ingest.base import ReadOptions
from tests.conftest import DATA

CDM = DATA / "crystaldiskmark" / "cdm6.txt"


def _iometer_random(tmp_path: Path) -> Path:
    """The queue-depth cycling sample, its 4 KiB reads made random."""
    text = (DATA / "iometer" / "iometer_2008_qd_cycling.csv").read_text(encoding="utf-8")
    path = tmp_path / "iometer.csv"
    path.write_text(text.replace("4096,100,100,0,", "4096,100,100,100,"), encoding="utf-8")
    return path


def test_two_tools_in_one_profile_are_refused(tmp_path: Path) -> None:
    iometer = ingest.read(_iometer_random(tmp_path), ReadOptions())
    cdm = ingest.read(CDM, ReadOptions())
    with pytest.raises(InputError) as caught:
        combine([iometer, cdm])
    message = str(caught.value)
    assert message.startswith("cdm6.txt, iometer.csv: setup 'default': random 4096 B 100 % read")
    assert "measured by crystaldiskmark (cdm6.txt) and iometer (iometer.csv)" in message
    assert "give each tool's files a setup of their own" in message


def test_each_tool_in_a_setup_of_its_own_reads(tmp_path: Path) -> None:
    iometer = ingest.read(_iometer_random(tmp_path), ReadOptions(setup="iometer"))
    cdm = ingest.read(CDM, ReadOptions(setup="cdm"))
    points = combine([iometer, cdm]).points
    assert sorted(points["setup"].unique().to_list()) == ["cdm", "iometer"]


def test_two_files_of_one_tool_are_no_mix(tmp_path: Path) -> None:
    one = ingest.read(_iometer_random(tmp_path), ReadOptions())
    other = tmp_path / "other.csv"
    other.write_text(
        _iometer_random(tmp_path).read_text(encoding="utf-8").replace("OLDHOST", "HOST2"),
        encoding="utf-8",
    )
    points = combine([one, ingest.read(other, ReadOptions())]).points
    assert points["hosts"].to_list() == [2, 2, 2]
