"""elbencho --csvfile and --jsonfile: READ and WRITE phases are points, the others are
rejected with their reason; a write phase with reads mixed in is one point of its mix."""

from __future__ import annotations

from pathlib import Path

import pytest

from pipeline import ingest
from pipeline.errors import InputError
from pipeline.ingest.base import ReadOptions
from tests.conftest import DATA

OURS = DATA / "elbencho"
RUNS, JSON = OURS / "two_runs.csv", OURS / "seq.json"


def _read(path: Path) -> ingest.ReadResult:
    result = ingest.read(path, ReadOptions())
    assert result.format == "elbencho"
    assert result.records_read == result.accepted + len(result.rejects)
    return result


def test_block_phases_are_read_and_the_others_rejected() -> None:
    result = _read(RUNS)
    assert [r.reason.key for r in result.rejects] == ["elbencho.phase", "elbencho.phase"]
    write, read, mixed, rand = result.intervals.rows(named=True)
    assert (write["read_pct"], write["block_size"], write["parallelism"]) == (0.0, 1 << 20, 16)
    assert (write["interval_s"], write["bytes_per_s"]) == (41.25, 2482 * (1 << 20))
    assert (read["read_pct"], read["lat_mean_us"], read["lat_max_us"]) == (100.0, 4660.0, 21000.0)
    assert (mixed["access"], mixed["queue_depth"], mixed["read_pct"]) == ("random", 16, 30.0)
    assert (mixed["iops"], mixed["read_iops"], mixed["write_iops"]) == (120000.0, 36000.0, 84000.0)
    assert mixed["lat_mean_us"] == pytest.approx((2650 * 84000 + 1120 * 36000) / 120000)
    assert rand["line"] == 7  # after the header line elbencho wrote again for the second run
    assert result.notes == []


def test_json_gives_the_csv_figures() -> None:
    from_json = _read(JSON).intervals.drop("source", "line", "interval")
    from_csv = _read(RUNS).intervals.head(2).drop("source", "line", "interval")
    assert from_json.equals(from_csv)


def test_a_mix_without_rwmixpct_takes_the_measured_share(tmp_path: Path) -> None:
    path = tmp_path / "mix.csv"
    path.write_text(RUNS.read_text().replace('"--rwmixpct" "30" ', ""), encoding="utf-8")
    result = _read(path)
    assert result.intervals["read_pct"][2] == 30.0  # 36000 of 120000
    assert result.notes == ["line 6: no --rwmixpct in the command: read share 30 % measured"]


def test_hosts_and_a_rate_elbencho_disagrees_with_are_noted(tmp_path: Path) -> None:
    lines = RUNS.read_text().splitlines()
    lines[2] = lines[2].replace(",1,16,1,1,17179869184,", ",4,16,1,1,17179869184,", 1)
    lines[2] = lines[2].replace(",2506,2482,35,", ",2506,1200,35,", 1)  # MiB/s [first], [last]
    path = tmp_path / "hosts.csv"
    path.write_text("\n".join(lines), encoding="utf-8")
    assert _read(path).notes == [
        "line 3: IOPS × block size is 2482.0 MiB/s, elbencho says 1200",
        "line 3: the figures are the sum of 4 hosts",
    ]


def test_sniffed_and_an_explicit_format_wins() -> None:
    assert ingest.detect(RUNS).NAME == "elbencho" and ingest.detect(JSON).NAME == "elbencho"
    with pytest.raises(InputError, match="no 'Results section"):
        ingest.read(RUNS, ReadOptions(), "iometer")
