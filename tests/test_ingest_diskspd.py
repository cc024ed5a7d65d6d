"""DiskSpd text and XML: the figures printed in shared/formats' real outputs come out of the
dataset as DiskSpd printed them; sniffing, encodings and the XML's refusals."""

from __future__ import annotations

import re
import time
from pathlib import Path

import polars as pl
import pytest

from pipeline import ingest
from pipeline.errors import InputError
from pipeline.ingest.base import ReadOptions
from pipeline.normalise import to_points
from tests.conftest import DATA, SHARED

REAL = SHARED / "formats" / "diskspd-virtualclient"
OURS = DATA / "diskspd"
needs_real = pytest.mark.skipif(not REAL.is_dir(), reason="shared/formats not present")
MIB = 1024**2


def _point(path: Path) -> dict[str, object]:
    result = ingest.read(path, ReadOptions())
    assert result.format == "diskspd"
    assert result.records_read == result.accepted + len(result.rejects)
    points = to_points(result.intervals)
    assert points.height == 1
    return points.row(0, named=True)


# file, total bytes, I/Os, MiB/s, I/O per s, AvgLat ms (the `total:` line of Total IO)
TOTALS = [
    ("DiskSpdExample-ReadWrite.txt", 146169856, 35686, 4.64, 1189.03, 0.840),
    ("DiskSpdExample-WriteOnly.txt", 563719340032, 68813396, 597.33, 76458.71, 6.696),
    ("DiskSpdExample-WriteOnly-v2.2.0-SingleGroup.txt", 20819968, 5083, 1.98, 508.09, 125.800),
    ("Write8k.txt", 162301329408, 19812174, 2579.05, 330118.77, 7.681),
]


@needs_real
@pytest.mark.parametrize(("name", "size", "ios", "mib_s", "iops", "lat_ms"), TOTALS)
def test_text_totals_as_printed(
    name: str, size: int, ios: int, mib_s: float, iops: float, lat_ms: float
) -> None:
    result = ingest.read(REAL / name, ReadOptions())
    frame = result.intervals
    assert frame["iops"].sum() * frame["interval_s"][0] == pytest.approx(ios, abs=1e-3)
    assert frame["bytes_per_s"].sum() * frame["interval_s"][0] == pytest.approx(size, rel=1e-12)
    point = _point(REAL / name)
    assert round(float(point["iops"]), 2) == iops  # type: ignore[arg-type]
    assert round(float(point["bytes_per_s"]) / MIB, 2) == mib_s  # type: ignore[arg-type]
    # the threads' AvgLat are printed to 1 µs each: their mean agrees within 1 µs
    assert abs(float(point["lat_mean_us"]) / 1000 - lat_ms) <= 0.001  # type: ignore[arg-type]
    assert any("total line agrees" in n for n in result.notes)


@needs_real
def test_read_write_split_as_printed() -> None:
    point = _point(REAL / "DiskSpdExample-ReadWrite.txt")
    assert round(float(point["read_iops"]), 2) == 834.98  # type: ignore[arg-type]
    assert round(float(point["write_iops"]), 2) == 354.05  # type: ignore[arg-type]
    assert point["read_lat_mean_us"] == pytest.approx(272.0)
    assert point["write_lat_mean_us"] == pytest.approx(2179.0)
    assert (point["access"], point["read_pct"], point["block_size"]) == ("random", 70.0, 4096)
    assert (point["parallelism"], point["queue_depth"]) == (1, 1)
    assert (point["lat_p50_us"], point["lat_p99_us"]) == (pytest.approx(297.0), 4713.0)


@needs_real
def test_many_targets_make_one_point_with_the_totals_percentiles() -> None:
    point = _point(REAL / "Write8k.txt")  # 5 targets × 23 threads, QD 22
    assert (point["parallelism"], point["queue_depth"], point["read_pct"]) == (115, 22, 0.0)
    assert (point["lat_p50_us"], point["lat_max_us"]) == (pytest.approx(1520.0), 3134107.0)


@needs_real
def test_xml_figures_as_printed() -> None:
    result = ingest.read(REAL / "Results_DiskSpd.xml", ReadOptions())
    row = result.intervals.row(0, named=True)
    assert (row["interval_s"], row["host"], row["tool_version"]) == (
        120.01,
        "QuickTest2",
        "2.0.21a",
    )
    assert row["iops"] * 120.01 == pytest.approx(52915)
    assert row["read_iops"] * 120.01 == pytest.approx(37162)
    assert row["write_iops"] * 120.01 == pytest.approx(15753)
    assert row["bytes_per_s"] * 120.01 == pytest.approx(216739840)
    point = _point(REAL / "Results_DiskSpd.xml")
    assert round(float(point["iops"]), 1) == 440.9  # type: ignore[arg-type]
    assert round(float(point["bytes_per_s"]) / MIB, 2) == 1.72  # type: ignore[arg-type]
    assert (point["read_lat_mean_us"], point["write_lat_mean_us"]) == (2477.0, 1767.0)
    assert point["lat_mean_us"] == pytest.approx(2266.0)
    assert (point["lat_p50_us"], point["lat_p99_us"]) == (2128.0, 19270.0)
    assert (point["access"], point["read_pct"], point["block_size"]) == ("random", 70.0, 4096)
    assert (point["parallelism"], point["queue_depth"]) == (1, 1)
    assert row["line"] == 894  # the thread's <Target>


@needs_real
def test_every_real_file_is_recognised() -> None:
    for path in sorted(REAL.glob("*.*")):
        if path.suffix in (".txt", ".xml"):
            assert ingest.detect(path).NAME == "diskspd", path.name


def test_profiles_of_two_targets_are_two_points() -> None:
    points = to_points(ingest.read(OURS / "two_profiles_bom_crlf.txt", ReadOptions()).intervals)
    random, sequential = points.sort("access").rows(named=True)
    assert (random["parallelism"], random["queue_depth"], random["read_pct"]) == (2, 4, 70.0)
    assert random["block_size"] == 8192 and random["lat_p99_us"] == pytest.approx(1500.0)
    assert (sequential["parallelism"], sequential["block_size"]) == (1, 65536)
    assert sequential["lat_p99_us"] == pytest.approx(4000.0)  # its own table, not the total's


def test_utf16_text_reads_as_utf8(tmp_path: Path) -> None:
    text = (OURS / "readwrite.txt").read_text(encoding="utf-8")
    wide = tmp_path / "wide.txt"
    wide.write_bytes(b"\xff\xfe" + text.encode("utf-16-le"))
    assert ingest.detect(wide).NAME == "diskspd"
    plain = ingest.read(OURS / "readwrite.txt", ReadOptions()).intervals
    assert ingest.read(wide, ReadOptions()).intervals.drop("source").equals(plain.drop("source"))


def test_an_explicit_format_wins(tmp_path: Path) -> None:
    with pytest.raises(InputError) as err:
        ingest.read(OURS / "readwrite.txt", ReadOptions(), "vdbench")
    assert "flatfile" in str(err.value)


def test_a_later_timespan_without_results_is_noted(tmp_path: Path) -> None:
    text = (OURS / "readwrite.txt").read_text(encoding="utf-8")
    more = text.replace(
        "System information:", "\ttimespan:   2\n\tduration: 5s\n\nSystem information:"
    )
    path = tmp_path / "two.txt"
    path.write_text(more, encoding="utf-8")
    result = ingest.read(path, ReadOptions())
    assert result.accepted == 1 and "time span 2: no results in the file" in result.notes


def test_xml_entities_are_refused_before_expansion(tmp_path: Path) -> None:
    bomb = tmp_path / "bomb.xml"
    levels = "".join(f'<!ENTITY e{i} "{f"&e{i - 1};" * 10}">' for i in range(1, 20))
    bomb.write_text(f'<!DOCTYPE Results [<!ENTITY e0 "x">{levels}]><Results>&e19;</Results>')
    with pytest.raises(InputError, match="document type declaration"):
        ingest.read(bomb, ReadOptions(), "diskspd")


def test_a_hundred_times_the_threads_reads_in_time(tmp_path: Path) -> None:
    """4,000 thread rows and 40,000 per-second buckets: read in seconds, not minutes."""
    xml = (OURS / "two_targets.xml").read_text(encoding="utf-8")
    start, end = xml.index("    <Thread>"), xml.index("  </TimeSpan>\n  <TimeSpan>")
    threads = xml[start:end].replace("11800O", "118000") * 1000
    ids = iter(range(10**6))
    threads = re.sub(r"<Id>\d+</Id>", lambda _: f"<Id>{next(ids)}</Id>", threads)
    buckets = "<Iops>" + '<Bucket SampleMillisecond="1" Read="1" Write="1"/>' * 40_000 + "</Iops>"
    big = tmp_path / "big.xml"
    big.write_text(xml[:start] + buckets + threads + xml[end:], encoding="utf-8")
    began = time.perf_counter()
    result = ingest.read(big, ReadOptions())
    assert result.accepted == 4000 and time.perf_counter() - began < 20
    random = to_points(result.intervals).filter(pl.col("access") == "random").row(0, named=True)
    assert (random["parallelism"], random["iops"]) == (2000, pytest.approx(20_000_000))


def test_a_thread_and_target_twice_is_rejected(tmp_path: Path) -> None:
    xml = (OURS / "two_targets.xml").read_text(encoding="utf-8")
    start, end = xml.index("    <Thread>"), xml.index("    <Thread>\n      <Id>1</Id>")
    twice = tmp_path / "twice.xml"
    twice.write_text(xml[:end] + xml[start:end] + xml[end:], encoding="utf-8")
    result = ingest.read(twice, ReadOptions())
    assert result.accepted == 3 and result.records_read == 6
    assert "Thread[2]/Target[1]" in str(result.rejects[0])
    assert "again" in str(result.rejects[0])


@pytest.mark.parametrize(
    ("body", "words"),
    [
        ("<a>" * 5000 + "</a>" * 5000, "nested deeper than DiskSpd writes them"),
        ("<a/>" * 1_000_001, "more than 1,000,000 elements"),
    ],
    ids=["deep", "wide"],
)
def test_an_xml_bomb_of_elements_is_refused(tmp_path: Path, body: str, words: str) -> None:
    """Every element keeps its path: 50,000 levels (356 KB) took 2 GB and 1,000,000 levels
    23 GB; a 20 MB file of empty elements 2.3 GB. Depth and count are capped."""
    path = tmp_path / "bomb.xml"
    path.write_text(f"<Results><System><ComputerName>h</ComputerName></System>{body}</Results>")
    with pytest.raises(InputError, match=words):
        ingest.read(path, ReadOptions(root=tmp_path), "diskspd")


@pytest.mark.parametrize(
    ("fmt", "line"),
    [("crystaldiskmark", ":" * 60_000 + " MB/s"), ("diskspd", "computer name: " + " x" * 30_000)],
)
def test_a_line_far_longer_than_the_tool_writes_is_refused(
    tmp_path: Path, fmt: str, line: str
) -> None:
    """The readers' patterns take time with the square of a line's length (a 60 KB line of
    colons: 50 s; 100 KB after 'computer name:': 34 s)."""
    path = tmp_path / "long.txt"
    head = "CrystalDiskMark 8.0.4 x64 (C) 2007-2021 hiyohiyo\n" if fmt == "crystaldiskmark" else ""
    path.write_text(head + "Command Line: diskspd -b4K\n" + line + "\n", encoding="utf-8")
    with pytest.raises(InputError, match="characters"):
        ingest.read(path, ReadOptions(root=tmp_path), fmt)
