"""Iometer results CSV: the finest level recorded is read, the ALL row checks its sum, the
MBps columns are told apart by the header (binary, decimal, or the old binary MBps)."""

from __future__ import annotations

import time
from pathlib import Path

import pytest

from pipeline import ingest
from pipeline.errors import InputError
from pipeline.ingest.base import ReadOptions
from pipeline.normalise import to_points
from tests.conftest import DATA

OURS = DATA / "iometer"
NEW, OLD = OURS / "iometer_11.csv", OURS / "iometer_2008_qd_cycling.csv"


def _read(path: Path) -> ingest.ReadResult:
    result = ingest.read(path, ReadOptions())
    assert result.format == "iometer"
    assert result.records_read == result.accepted + len(result.rejects)
    return result


def test_disk_rows_are_the_records_and_all_checks_their_sum() -> None:
    result = _read(NEW)
    rows = result.intervals.rows(named=True)[:2]
    assert [r["line"] for r in rows] == [31, 33]  # the DISK rows, not their WORKER rows
    assert {(r["host"], r["parallelism"], r["queue_depth"]) for r in rows} == {("LAB-W1", 2, 16)}
    assert {(r["access"], r["read_pct"], r["block_size"]) for r in rows} == {("random", 67.0, 8192)}
    assert rows[0]["bytes_per_s"] == pytest.approx(20500 * 8192)
    assert (rows[0]["lat_mean_us"], rows[0]["read_lat_mean_us"]) == (780.0, 580.0)
    assert rows[0]["interval_s"] == pytest.approx(60.0)
    assert "test 1: the ALL row's IOps agrees with the sum of the rows read" in result.notes
    assert not result.rejects  # File Server, 8 sizes: a named mix (tests/test_profiles.py)
    assert [r["line"] for r in result.intervals.rows(named=True)] == [31, 33, 61]
    point = to_points(result.intervals.filter(result.intervals["line"] < 61)).row(0, named=True)
    assert (point["iops"], point["parallelism"]) == (pytest.approx(40000.0), 2)


def test_the_decimal_column_alone_gives_the_same_bytes(tmp_path: Path) -> None:
    text = NEW.read_text(encoding="utf-8").replace("MiBps (Binary)", "Other (Binary)")
    decimal = tmp_path / "decimal.csv"
    decimal.write_text(text, encoding="utf-8")
    row = _read(decimal).intervals.row(0, named=True)
    assert row["bytes_per_s"] == pytest.approx(20500 * 8192)


def test_old_header_mbps_is_binary_and_workers_are_read_without_disks() -> None:
    result = _read(OLD)
    rows = result.intervals.rows(named=True)
    assert [(r["queue_depth"], r["interval"]) for r in rows] == [(1, 1), (2, 2), (4, 3)]
    assert rows[0]["bytes_per_s"] == pytest.approx(9800 * 4096)  # MBps × 1,048,576
    assert {(r["access"], r["host"], r["tool_version"]) for r in rows} == {
        ("sequential", "OLDHOST", "2008.06.18")
    }
    assert "test 3: the ALL row's IOps DIFFERS from the sum of the rows read" in result.notes


def test_only_manager_rows_give_the_workers_count(tmp_path: Path) -> None:
    lines = NEW.read_text(encoding="utf-8").splitlines()
    kept = [line for line in lines if not line.startswith(("WORKER,", "DISK,"))]
    managers = tmp_path / "managers.csv"
    managers.write_text("\r\n".join(kept), encoding="utf-8")
    row = _read(managers).intervals.row(0, named=True)
    assert (row["host"], row["parallelism"], row["iops"]) == ("LAB-W1", 2, 40000.0)


def test_bom_is_sniffed_and_an_explicit_format_wins(tmp_path: Path) -> None:
    bom = tmp_path / "bom.csv"
    bom.write_bytes(b"\xef\xbb\xbf" + NEW.read_bytes())
    assert ingest.detect(bom).NAME == "iometer"
    with pytest.raises(InputError, match="missing column"):
        ingest.read(NEW, ReadOptions(), "iogen")


def test_a_hundred_times_the_workers_reads_in_time(tmp_path: Path) -> None:
    lines = NEW.read_text(encoding="utf-8").splitlines()
    worker, disk = lines[30 - 1], lines[31 - 1]
    assert worker.startswith("WORKER,") and disk.startswith("DISK,")
    many = [f"{worker.replace('Worker 1', f'Worker {i}')}\r\n{disk}" for i in range(5000)]
    big = tmp_path / "big.csv"
    big.write_text("\r\n".join([*lines[:29], *many, *lines[33:]]), encoding="utf-8")
    began = time.perf_counter()
    result = _read(big)
    assert result.accepted == 5001 and time.perf_counter() - began < 20  # and File Server
    assert result.intervals["parallelism"][0] == 5000


def test_each_record_carries_its_managers_cpu_load(tmp_path: Path) -> None:
    """Iometer writes the CPU load on the MANAGER (the host) and ALL rows only: seed 002's
    finding (5-7 % without MPIO, almost 100 % with it) is that column."""
    rows = _read(NEW).intervals.rows(named=True)[:2]  # test 1 (test 2's manager has none)
    assert [r["cpu_pct"] for r in rows] == [41.25, 41.25]  # LAB-W1's, on both DISK rows
    assert to_points(_read(NEW).intervals).row(0, named=True)["cpu_pct"] == 41.25
    text = NEW.read_text(encoding="utf-8").replace(",16,41.25,", ",16,abc,", 2)
    broken = tmp_path / "cpu.csv"
    broken.write_text(text, encoding="utf-8")
    reasons = {str(r.reason) for r in _read(broken).rejects}
    assert any("% CPU Utilization" in reason and "'abc'" in reason for reason in reasons)
