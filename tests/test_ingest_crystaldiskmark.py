"""CrystalDiskMark exports: the figures of shared/formats' real 8.x exports as printed (the
files stay there: GPL-3.0 test data, never copied into tests/), and the older layouts."""

from __future__ import annotations

from pathlib import Path

import pytest

from pipeline import ingest
from pipeline.ingest.base import ReadOptions
from tests.conftest import DATA, SHARED

REAL = SHARED / "formats" / "crystaldiskmark-soerenmetje"
OURS = DATA / "crystaldiskmark"
needs_real = pytest.mark.skipif(not REAL.is_dir(), reason="shared/formats not present")

# file, version, SEQ1M Q8T1 read and write: MB/s, IOPS, latency µs (SOURCE.md's table)
SEQ1M_Q8T1 = [
    ("20210622162528_WD_Blue_3D_1TB_WDS100T2B0A", "8.0.1 x64", (531.458, 506.8, 15726.77),
     (498.656, 475.6, 16750.30)),
    ("20210622163451_SAMSUNG_840_EVO_120GB", "8.0.1 x64", (534.383, 509.6, 15662.75),
     (512.268, 488.5, 16310.10)),
    ("20210623000551", "8.0.1 x86", (550.022, 524.5, 15216.98), (513.437, 489.7, 16267.21)),
    ("20210626154221_Crucial_P2_2TB_on_H87M", "8.0.1 x64", (804.157, 766.9, 10402.77),
     (791.215, 754.6, 10545.51)),
    ("20210627172807_Crucial_P2_2TB_on_X370", "8.0.2 x64", (2293.007, 2186.8, 3611.16),
     (2011.334, 1918.2, 4155.21)),
]  # fmt: skip


def _rows(path: Path) -> list[dict[str, object]]:
    result = ingest.read(path, ReadOptions())
    assert result.format == "crystaldiskmark"
    assert result.records_read == result.accepted + len(result.rejects)
    return result.intervals.rows(named=True)


def _find(rows: list[dict[str, object]], **key: object) -> dict[str, object]:
    found = [r for r in rows if all(r[k] == v for k, v in key.items())]
    assert len(found) == 1, key
    return found[0]


@needs_real
@pytest.mark.parametrize(("name", "version", "read", "write"), SEQ1M_Q8T1)
def test_seq1m_q8t1_as_printed(
    name: str, version: str, read: tuple[float, ...], write: tuple[float, ...]
) -> None:
    rows = _rows(REAL / f"CrystalDiskMark_{name}.txt")
    assert len(rows) == 8 and {r["tool_version"] for r in rows} == {version}
    for read_pct, (mb_s, iops, lat) in ((100.0, read), (0.0, write)):
        row = _find(rows, access="sequential", block_size=1 << 20, queue_depth=8, read_pct=read_pct)
        assert row["parallelism"] == 1
        assert row["bytes_per_s"] == pytest.approx(mb_s * 1e6)  # MB/s = 1,000,000 bytes/s
        assert (row["iops"], row["lat_mean_us"]) == (iops, lat)


@needs_real
def test_wd_blue_random_q1t1_and_the_run_description() -> None:
    path = REAL / "CrystalDiskMark_20210622162528_WD_Blue_3D_1TB_WDS100T2B0A.txt"
    row = _find(_rows(path), access="random", block_size=4096, queue_depth=1, read_pct=100.0)
    assert row["bytes_per_s"] == pytest.approx(41.375e6)
    assert (row["iops"], row["lat_mean_us"], row["read_lat_mean_us"]) == (10101.3, 98.75, 98.75)
    notes = ingest.read(path, ReadOptions()).notes
    assert "Date: 2021/06/22 17:19:21" in notes
    assert "Test: 1 GiB (x5) [E: 96% (894/932GiB)]" in notes
    assert "Comment: WD Blue 3D 1TB" in notes


def test_utf16_export_with_mix_and_peak_profile() -> None:
    rows = _rows(OURS / "cdm8_peak_mix_utf16.txt")
    mix = _find(rows, access="random", queue_depth=32, read_pct=70.0)
    assert (mix["parallelism"], mix["iops"], mix["read_iops"]) == (16, 219726.6, None)
    assert {r["interval_s"] for r in rows} == {10.0}  # Measure 10 sec


def test_older_layouts_name_their_blocks_by_the_version() -> None:
    seq = _find(_rows(OURS / "cdm6.txt"), access="sequential", read_pct=100.0)
    assert (seq["block_size"], seq["queue_depth"]) == (128 * 1024, 32)  # 6.x Seq Q32T1
    assert seq["iops"] == pytest.approx(550.125e6 / 131072)
    old = _rows(OURS / "cdm3.txt")
    assert _find(old, access="sequential", read_pct=100.0)["block_size"] == 1 << 20
    qd32 = _find(old, access="random", queue_depth=32, read_pct=0.0)
    assert (qd32["block_size"], qd32["iops"]) == (4096, 68389.4)
    assert _find(old, access="random", block_size=512 * 1024, read_pct=100.0)["queue_depth"] == 1


def test_a_decimal_unit_line_is_honoured(tmp_path: Path) -> None:
    text = (OURS / "cdm3.txt").read_text(encoding="utf-8")
    binary = tmp_path / "binary.txt"
    binary.write_text(text.replace("1,000,000 byte/s", "1,048,576 byte/s"), encoding="utf-8")
    row = _find(_rows(binary), access="sequential", read_pct=100.0)
    assert row["bytes_per_s"] == pytest.approx(780.412 * 1048576)


def test_the_same_test_twice_is_rejected(tmp_path: Path) -> None:
    lines = (OURS / "cdm3.txt").read_text(encoding="utf-8").splitlines()
    twice = tmp_path / "twice.txt"
    twice.write_text("\n".join([*lines[:8], lines[6], *lines[8:]]), encoding="utf-8")
    result = ingest.read(twice, ReadOptions())
    assert result.accepted == 8 and [str(r) for r in result.rejects] == [
        "twice.txt: line 9: the same test as line 7: each test is read once"
    ]


@needs_real
def test_every_real_export_is_recognised() -> None:
    for path in sorted(REAL.glob("*.txt")):
        assert ingest.detect(path).NAME == "crystaldiskmark", path.name


def test_a_line_without_direction_or_mix_ratio_is_rejected(tmp_path: Path) -> None:
    text = (OURS / "cdm3.txt").read_text(encoding="utf-8").replace("\r\n", "\n")
    text = text.replace(
        "\n\n  Test :",
        "\n  Sequential Mix : 700.000 MB/s\n  Random 4KB (QD=32) :   1.000 MB/s\n\n  Test :",
    )
    odd = tmp_path / "odd.txt"
    odd.write_text(text, encoding="utf-8")
    result = ingest.read(odd, ReadOptions())
    assert result.accepted == 8
    assert [r.reason.key for r in result.rejects] == [
        "crystaldiskmark.mix",
        "crystaldiskmark.direction",
    ]
