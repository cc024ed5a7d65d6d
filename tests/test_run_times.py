"""When a run ran, as each reader finds it in its file (``ReadResult.run_time``), and
report.toml ``repeats = "newest"`` choosing by it: DiskSpd's ``start time:`` and
``<RunTime>``, CrystalDiskMark's ``Date:``, Iometer's ``'Time Stamp``, elbencho's ``ISO
DATE:``/``ISO date``, fio's ``timestamp_ms``. Where a run's time is not known, "newest"
keeps the run listed last and says so, never "an older run"."""

from __future__ import annotations

import datetime as dt
import shutil
from pathlib import Path

import pytest

from pipeline import ingest
from pipeline.dataset.assemble import combine
from pipeline.ingest.base import ReadOptions
from tests.conftest import DATA, SHARED


def _ms(text: str) -> int:
    return int(dt.datetime.fromisoformat(text).timestamp() * 1000)


@pytest.mark.parametrize(
    ("path", "when"),
    [
        (DATA / "diskspd" / "readwrite.txt", "2021-04-16T19:03:38+00:00"),
        (DATA / "diskspd" / "two_targets.xml", "2026-11-24T10:00:00+00:00"),
        (DATA / "crystaldiskmark" / "cdm6.txt", "2026-11-24T10:15:00+00:00"),
        (DATA / "crystaldiskmark" / "cdm8_peak_mix_utf16.txt", "2026-11-24T09:30:00+00:00"),
        (DATA / "iometer" / "iometer_2008_qd_cycling.csv", "2026-11-24T11:03:00+00:00"),
        (DATA / "elbencho" / "resfile.txt", "2026-11-24T10:05:00+01:00"),
        (DATA / "elbencho" / "two_runs.csv", "2026-11-24T10:10:00+00:00"),
        (DATA / "elbencho" / "seq.json", "2026-11-24T10:00:00+00:00"),
    ],
)
def test_each_reader_states_when_its_run_ran(path: Path, when: str) -> None:
    """The latest time the file prints (a file of several runs: its last run's)."""
    assert ingest.read(path, ReadOptions(), None).run_time == _ms(when)


def test_fio_states_its_time_stamp_and_its_logs_the_jsons() -> None:
    json_file = DATA / "fio-repeats" / "logs" / "first" / "rep.json"
    stamp = ingest.read(json_file, ReadOptions(), "fio").run_time
    assert isinstance(stamp, int) and stamp > _ms("2020-01-01T00:00:00+00:00")
    log = ingest.read(json_file.with_name("rep_iops.1.log"), ReadOptions(), "fio-log")
    assert log.run_time == stamp


def test_a_file_without_a_time_states_none() -> None:
    assert ingest.read(DATA / "elbencho" / "resfile_old.txt", ReadOptions(), None).run_time is None


def _restamped(tmp_path: Path, name: str, start: str | None) -> Path:
    """DiskSpd's readwrite.txt with another start time (None: the line left out)."""
    text = (DATA / "diskspd" / "readwrite.txt").read_text(encoding="utf-8")
    line = "start time: 2021/04/16 19:03:38 UTC"
    assert line in text
    new = f"start time: {start}" if start else ""
    (tmp_path / name).write_text(text.replace(line, new), encoding="utf-8")
    return tmp_path / name


def _newest(paths: list[Path]) -> tuple[list[str], list[str]]:
    results = [ingest.read(p, ReadOptions(label=p.name), None) for p in paths]
    data = combine(results, rule="newest")
    return data.intervals["source"].unique().to_list(), [str(r.reason) for r in data.rejects]


def test_newest_keeps_the_diskspd_run_that_ran_last_not_the_one_listed_last(
    tmp_path: Path,
) -> None:
    """Listed last but run two days earlier: the run listed first is the newest."""
    late = _restamped(tmp_path, "a.txt", "2021/04/16 19:03:38 UTC")
    early = _restamped(tmp_path, "b.txt", "2021/04/14 23:25:42 UTC")
    kept, reasons = _newest([late, early])
    assert kept == ["a.txt"]
    assert reasons and all(r.startswith("an older run of this point than a.txt") for r in reasons)


def test_newest_without_every_runs_time_claims_no_order(tmp_path: Path) -> None:
    """One run's file says nothing of when it ran: the run listed last is kept, and the
    other's rows are "another run …, listed later", not "an older run"."""
    timed = _restamped(tmp_path, "a.txt", "2030/01/01 00:00:00 UTC")
    untimed = _restamped(tmp_path, "b.txt", None)
    kept, reasons = _newest([timed, untimed])
    assert kept == ["b.txt"]
    assert reasons and all(
        r.startswith("another run of this point than b.txt, which is listed later") for r in reasons
    )
    assert not any("older" in r for r in reasons)


REAL = SHARED / "formats" / "diskspd-virtualclient"


@pytest.mark.skipif(not REAL.is_dir(), reason="../shared/formats absent")
def test_real_diskspd_xml_and_text_of_one_point_keep_the_later_run(tmp_path: Path) -> None:
    """VirtualClient's Results_DiskSpd.xml (run 2021/04/14) and DiskSpdExample-ReadWrite.txt
    (2021/04/16) measure one point: the text's run (1,189 IOPS) is the newest although the
    XML sorts last (it kept 441 IOPS)."""
    for name in ("DiskSpdExample-ReadWrite.txt", "Results_DiskSpd.xml"):
        shutil.copy(REAL / name, tmp_path / name)
    paths = [tmp_path / "DiskSpdExample-ReadWrite.txt", tmp_path / "Results_DiskSpd.xml"]
    results = [ingest.read(p, ReadOptions(label=p.name), None) for p in paths]
    data = combine(results, rule="newest")
    assert data.points["source"].to_list() == ["DiskSpdExample-ReadWrite.txt"]
    assert data.points["iops"].item() == pytest.approx(1189, rel=0.01)
    assert {r.source for r in data.rejects} == {"Results_DiskSpd.xml"}
