"""The fs820 example (seed 002, reconstructed: Iometer results CSVs and CrystalDiskMark
3.0.3 exports) keeps the figures seed 002's text gives and builds both PDFs."""

from __future__ import annotations

import importlib.util
import json
import shutil
import sys
from pathlib import Path
from typing import Any

import polars as pl
import pytest

from pipeline.build import BuildResult
from pipeline.prepare import prepare
from pipeline.report.context import ReportContext
from pipeline.verify import verify
from tests import layout
from tests.conftest import ROOT, SHARED, _shared_build, pdf_text

FS820 = ROOT / "data" / "examples" / "fs820"
PUBLISHED = FS820 / "published" / "seed002.csv"
SEED = SHARED / "seeds" / "002_519b77a9796b9b54.txt"
MIB = 1024**2


@pytest.fixture(scope="module")
def fs820_context() -> ReportContext:
    return prepare(FS820)


@pytest.fixture(scope="module")
def fs820_build(
    tmp_path_factory: pytest.TempPathFactory, fs820_context: ReportContext
) -> BuildResult:
    return _shared_build(tmp_path_factory, FS820, fs820_context)


def _points(build: BuildResult, tool: str = "iometer") -> pl.DataFrame:
    points = pl.read_parquet(build.out / "dataset.parquet")
    return points.filter(pl.col("tool") == tool)


def _generator() -> object:
    spec = importlib.util.spec_from_file_location("fs820_generate", FS820 / "generate.py")
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # its dataclasses look their module up
    spec.loader.exec_module(module)
    return module


def test_committed_raw_data_is_what_the_generator_makes() -> None:
    module = _generator()
    for setup in ("1link", "2links-mpio"):
        iometer = (FS820 / "raw" / f"iometer-{setup}.csv").read_bytes()
        assert module.iometer(setup).encode() == iometer  # type: ignore[attr-defined]
        cdm = (FS820 / "raw" / f"crystaldiskmark-{setup}.txt").read_bytes()
        assert module.crystaldiskmark(setup).encode() == cdm  # type: ignore[attr-defined]
        assert iometer.count(b"\r\n") == iometer.count(b"\n")  # CRLF, as the tools write


def test_read_latency_at_queue_depth_1_is_the_seeds_200_us(fs820_build: BuildResult) -> None:
    """Seed 002: "reading is carried out in approximately 200 μs and practically does not
    depend on the number of physical connections"."""
    table = pl.read_csv(fs820_build.out / "tables" / "min_latency.csv")
    rows = table.filter(
        (pl.col("access") == "random")
        & (pl.col("block_size") == 4096)
        & (pl.col("read_pct") == 100.0)
        & (pl.col("queue_depth") == 1)
    )
    assert sorted(rows["setup"]) == ["1link", "2links-mpio"]
    assert rows["lat_mean_us"].to_list() == [200.0, 200.0]


def test_cpu_is_5_to_7_percent_without_mpio_and_almost_100_with(
    fs820_build: BuildResult,
) -> None:
    points = _points(fs820_build)
    single = points.filter(pl.col("setup") == "1link")["cpu_pct"]
    mpio = points.filter(pl.col("setup") == "2links-mpio")["cpu_pct"]
    assert single.null_count() == mpio.null_count() == 0
    assert single.min() >= 5.0 and single.max() <= 7.0  # type: ignore[operator]
    assert mpio.min() >= 96.0 and mpio.max() <= 99.5  # type: ignore[operator]


def _block_sweep(build: BuildResult, setup: str, read_pct: float) -> pl.DataFrame:
    points = _points(build).filter(
        (pl.col("setup") == setup)
        & (pl.col("access") == "sequential")
        & (pl.col("read_pct") == read_pct)
    )
    return points.sort("block_size")


def test_block_sizes_reach_one_link_and_two_links(fs820_build: BuildResult) -> None:
    """One link: large-block reads level off below one 8 Gbit FC link (about 800 × 10⁶
    bytes/s); two links: 4 and 8 KB reads come close to two links."""
    for setup in ("1link", "2links-mpio"):
        assert len(_block_sweep(fs820_build, setup, 100.0)) == 12  # 512 B … 1 MiB
    single = _block_sweep(fs820_build, "1link", 100.0)
    large = single.filter(pl.col("block_size") >= 64 * 1024)["bytes_per_s"]
    assert large.min() > 740 * MIB and large.max() < 800e6  # type: ignore[operator]
    mpio = _block_sweep(fs820_build, "2links-mpio", 100.0)
    small = mpio.filter(pl.col("block_size").is_in([4096, 8192]))["bytes_per_s"]
    assert small.min() > 0.85 * 2 * 760 * MIB  # type: ignore[operator]


@pytest.mark.parametrize("setup", ["1link", "2links-mpio"])
@pytest.mark.parametrize("read_pct", [0.0, 50.0])
def test_every_mix_with_writes_peaks_at_4k(
    fs820_build: BuildResult, setup: str, read_pct: float
) -> None:
    sweep = _block_sweep(fs820_build, setup, read_pct)
    assert sweep.sort("iops")["block_size"][-1] == 4096


def test_crystaldiskmark_and_the_mixed_specifications(fs820_build: BuildResult) -> None:
    """CrystalDiskMark's eight tests per setup are read (no latency in 3.x); Iometer's File
    Server and Web Server mix transfer sizes and are named profiles, as are Database and
    Workstation (report.toml [[profiles]])."""
    cdm = _points(fs820_build, "crystaldiskmark")
    assert cdm.group_by("setup").len().sort("setup")["len"].to_list() == [8, 8]
    assert cdm["lat_mean_us"].null_count() == 16
    assert len(pl.read_csv(fs820_build.out / "rejects.csv")) == 0
    manifest = json.loads((fs820_build.out / "manifest.json").read_text(encoding="utf-8"))
    assert manifest["accounting"] == {"records_read": 796, "accepted": 796, "rejected": 0}
    names = _points(fs820_build, "iometer")["profile"].drop_nulls().unique().sort().to_list()
    assert names == ["Database", "File Server", "Web Server", "Workstation"]
    en = " ".join(pdf_text(fs820_build.out / "fs820.en.pdf").split())
    assert "File Server is a mix of block sizes (512B/1K/2K/4K/8K/16K/32K/64K" in en
    assert "Web Server" in en and "Workstation" in en


def test_both_pdfs_say_reconstructed_and_pass_the_layout_check(
    fs820_build: BuildResult,
) -> None:
    de = " ".join(pdf_text(fs820_build.out / "fs820.de.pdf").split())
    en = " ".join(pdf_text(fs820_build.out / "fs820.en.pdf").split())
    assert "rekonstruiert" in de and "reconstructed" in en
    assert "CPU 98 %" in de or "CPU 97 %" in de
    assert "rund 200 µs mit einem Link und 200 µs mit zwei" in de
    assert "about 200 µs with one link and 200 µs with two" in en
    assert "zwei FC-Links mit Multipath I/O (MPIO)" in de
    assert "two FC links with Multipath I/O (MPIO)" in en
    charts = {p.name.split(".")[0] for p in (fs820_build.out / "charts").iterdir()}
    assert "setups_random_4k_qd4" in charts
    assert layout.check_output(fs820_build.out) == []


def test_verify_finds_the_transcription_and_a_changed_digit(
    tmp_path: Path, fs820_context: ReportContext
) -> None:
    assert verify(fs820_context, PUBLISHED) == (2, 2, [])
    changed = tmp_path / "changed.csv"
    shutil.copy(PUBLISHED, changed)
    text = changed.read_text(encoding="utf-8")
    changed.write_text(text.replace("200 µs", "210 µs", 1), encoding="utf-8")
    (found,) = verify(fs820_context, changed).found
    assert (found.line, found.exact) == (2, "200 µs")


def test_verify_reads_a_cell_without_a_latency(
    tmp_path: Path, fs820_context: ReportContext
) -> None:
    """CrystalDiskMark prints no latency: its cell "98,172 (P 1)" was refused with "names
    no figure 'lat_mean_us'" where docs/verify.md promises a comparison."""
    row = "performance,random 4K 100 setup=cdm-1link queue_depth=32,maximum"
    published = tmp_path / "cdm.csv"
    published.write_text(f'table,row,column,printed\n{row},"98,172 (P 1)"\n', encoding="utf-8")
    assert verify(fs820_context, published) == (1, 2, [])
    published.write_text(f'table,row,column,printed\n{row},"90,000 (P 1)"\n', encoding="utf-8")
    (found,) = verify(fs820_context, published).found
    assert found.exact == "98,172 (P 1)"


@pytest.mark.skipif(not SEED.exists(), reason="shared/seeds not present")
def test_the_figures_kept_are_in_the_seed_text() -> None:
    text = " ".join(SEED.read_text(encoding="utf-8").split())
    for quoted in (
        "reading is carried out in approximately 200 μs",
        "ranged from 5-7%",
        "almost 100% CPU utilization",
        "CrystalDiskMark utility version 3.0.3",
        "a peak in performance is visible with a block size of 4 kilobytes",
        "Database, Fileserver, Workstation, and Webserver",
        "100% read 4 kb525,000 IOPS",
    ):
        assert quoted in text, quoted


def _chart(build: BuildResult, stem: str) -> list[dict[str, Any]]:
    """The rows a chart of the build draws (every dataset of its Vega-Lite spec)."""
    spec = json.loads((build.out / "charts" / f"{stem}.en.vl.json").read_text(encoding="utf-8"))
    return [row for rows in spec["datasets"].values() for row in rows]


def _lines(rows: list[dict[str, Any]], x: str) -> dict[tuple[str, str], list[Any]]:
    found: dict[tuple[str, str], list[Any]] = {}
    for row in rows:
        found.setdefault((row["setup_label"], row["mix"]), []).append(row[x])
    return found


def test_the_block_size_chart_has_every_size_per_mix_and_both_setups(
    fs820_build: BuildResult,
) -> None:
    """Seed 002's Iometer charts: MB/s and IOPS over 512 B … 1 MiB for 100 % read, 50/50
    and 100 % write, with 1 link and with 2 links; File Server's and Web Server's mean
    sizes are no point on the axis."""
    lines = _lines(_chart(fs820_build, "block_size_sequential_qd8_p4"), "block")
    one, two = "one FC link, without MPIO", "two FC links with Multipath I/O (MPIO)"
    mixes = ("100% read", "50% read / 50% write", "100% write")
    assert set(lines) == {(setup, mix) for setup in (one, two) for mix in mixes}
    sizes = ["512B", "1K", "2K", "4K", "8K", "16K", "32K", "64K", "128K", "256K", "512K", "1024K"]
    assert all(blocks == sizes for blocks in lines.values())


def test_the_comparisons_of_1_and_2_links_are_drawn(fs820_build: BuildResult) -> None:
    """4 KB random reads with 1 and 2 links over the queue depth (one worker), with
    CrystalDiskMark's 4 KB tests (QD 1 and 32) of both setups, and over the workers at
    QD 4; no chart is left out, none has a line of one point."""
    from tests.test_chart_kinds import lines_with_one_x

    lines = _lines(_chart(fs820_build, "setups_depth_random_4k_p1"), "queue_depth")
    depths = [1, 2, 4, 8, 16, 32, 64, 128]
    assert lines[("one FC link, without MPIO", "100% read")] == depths
    assert lines[("two FC links with Multipath I/O (MPIO)", "100% read")] == depths
    for setup in (
        "CrystalDiskMark, one FC link, without MPIO",
        "CrystalDiskMark, two FC links with MPIO",
    ):
        assert lines[(setup, "100% read")] == lines[(setup, "100% write")] == [1, 32]
    workers = _lines(_chart(fs820_build, "setups_random_4k_qd4"), "parallelism")
    assert len(workers) == 2 and all(len(p) == 6 for p in workers.values())
    manifest = json.loads((fs820_build.out / "manifest.json").read_text(encoding="utf-8"))
    assert all(chart["drawn"] for chart in manifest["charts"])
    for path in (fs820_build.out / "charts").glob("*.en.vl.json"):
        assert lines_with_one_x(json.loads(path.read_text(encoding="utf-8"))) == [], path


def test_the_application_scenarios_are_bars_of_both_setups(fs820_build: BuildResult) -> None:
    """Seed 002's application scenarios, with one FC link and with two: a bar per setup
    for each named mix, as measured."""
    rows = _chart(fs820_build, "mixes_random_qd8_p4")
    drawn = {(r["profile"], r["setup_label"]): r["iops"] for r in rows}
    points = _points(fs820_build).filter(pl.col("profile").is_not_null())
    labels = {
        "1link": "one FC link, without MPIO",
        "2links-mpio": "two FC links with Multipath I/O (MPIO)",
    }
    measured = {(p["profile"], labels[p["setup"]]): p["iops"] for p in points.iter_rows(named=True)}
    assert len(measured) == 8 and drawn == measured


def test_no_label_of_a_chart_runs_into_another(fs820_build: BuildResult) -> None:
    """The style legend (100 % read solid, 100 % write dashed) stood against the setups'
    legend, whose 'CrystalDiskMark, one FC link, without MPIO' ran into '100% write'."""
    from tests.svgtext import overlapping

    charts = sorted((fs820_build.out / "charts").glob("*.svg"))
    assert charts and [f for svg in charts for f in overlapping(svg)] == []
