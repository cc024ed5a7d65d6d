"""elbencho --csvfile and --jsonfile: READ and WRITE phases are points, the others are
rejected with their reason; a write phase with reads mixed in is one point of its mix."""

from __future__ import annotations

from pathlib import Path

import pytest

from pipeline import ingest
from pipeline.errors import InputError
from pipeline.ingest import elbencho_text
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


RESFILE, OLD = OURS / "resfile.txt", OURS / "resfile_old.txt"


def test_the_resfile_reads_as_the_csvfile() -> None:
    """--resfile: each run's settings from its COMMAND LINE, the LAST DONE column, elapsed
    times in elbencho's units (1m0.2s), the latency line in µs."""
    result = ingest.read(RESFILE, ReadOptions())
    assert (result.format, result.records_read, result.accepted) == ("elbencho", 5, 3)
    assert [r.reason.key for r in result.rejects] == ["elbencho.phase", "elbencho.phase"]
    write, read, seq = result.intervals.rows(named=True)
    assert (write["access"], write["block_size"], write["parallelism"]) == ("random", 4096, 8)
    assert (write["queue_depth"], write["read_pct"], write["line"]) == (16, 0.0, 6)
    assert write["interval_s"] == pytest.approx(60.2) and write["iops"] == 180100
    assert (write["lat_mean_us"], write["lat_max_us"]) == (708.0, 12650.0)
    assert (read["read_pct"], read["interval_s"], read["lat_mean_us"]) == (100.0, 40.001, 487.0)
    assert (seq["access"], seq["block_size"], seq["parallelism"]) == ("sequential", 1 << 20, 16)
    assert seq["queue_depth"] == 1 and seq["lat_mean_us"] is None  # elbencho's default depth


def test_a_resfile_without_its_command_line_is_rejected_with_the_reason() -> None:
    result = ingest.read(OLD, ReadOptions())
    assert result.format == "elbencho" and result.accepted == 0
    assert [r.reason.key for r in result.rejects] == ["elbencho.no_command"]


@pytest.mark.parametrize(
    ("command", "expected"),
    [
        ('"elbencho" "-t" "4" "-b" "128k" "--rand"', ("4", "128k", "1", "1")),
        ("elbencho --threads=2 --block=8K --iodepth 32 --hosts a,b,c", ("2", "8K", "0", "3")),
        ("elbencho -t12 -b4m /dev/sdb", ("12", "4m", "0", "1")),
    ],
)
def test_the_command_line_gives_the_settings(command: str, expected: tuple[str, ...]) -> None:
    found = elbencho_text.command_settings(command, RESFILE, 2)
    assert (found["threads"], found["block size"], found["random"], found["hosts"]) == expected


def test_a_resfile_write_with_rwmixpct_is_rejected(tmp_path: Path) -> None:
    text = RESFILE.read_text(encoding="utf-8").replace('"--rand"', '"--rand" "--rwmixpct" "30"')
    path = tmp_path / "mix.txt"
    path.write_text(text, encoding="utf-8")
    keys = [r.reason.key for r in ingest.read(path, ReadOptions()).rejects]
    assert keys[0] == "elbencho.rwmix_text"


def test_a_hundred_times_the_runs_read(tmp_path: Path) -> None:
    path = tmp_path / "many.txt"
    path.write_text(RESFILE.read_text(encoding="utf-8") * 100, encoding="utf-8")
    result = ingest.read(path, ReadOptions())
    assert (result.records_read, result.accepted) == (500, 300)
