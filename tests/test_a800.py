"""The a800 example reproduces seed 004 Tabelle 2 by the documented optimum rule."""

from __future__ import annotations

import csv
import importlib.util
from pathlib import Path

import polars as pl
import pytest

from pipeline.build import BuildResult, build
from pipeline.units import parse_block_size
from tests.conftest import DATA, ROOT, SHARED, pdf_text

A800 = ROOT / "data" / "examples" / "a800"
SEED = SHARED / "seeds" / "004_e79ebe8dd32d6053.txt"
GIB = 1024**3


@pytest.fixture(scope="module")
def a800_build(a800_shared: BuildResult) -> BuildResult:
    return a800_shared


def _rows() -> list[dict[str, str]]:
    with (DATA / "seed004" / "tabelle2.csv").open() as fh:
        return list(csv.DictReader(fh))


def test_key_figures_equal_seed_004_tabelle_2(a800_build: BuildResult) -> None:
    table = pl.read_csv(a800_build.out / "tables" / "performance.csv")
    assert table.columns[0] == "setup"  # several setups: the column appears
    rows = table.filter(pl.col("setup") == "48vcpu")
    for expected in _rows():
        hit = rows.filter(
            (pl.col("access") == expected["access"])
            & (pl.col("block_size") == parse_block_size(expected["block_size"]))
            & (pl.col("read_pct") == float(expected["read_pct"]))
            & (pl.col("kind") == expected["kind"])
        ).row(0, named=True)
        assert hit["parallelism"] == int(expected["parallelism"]), expected
        printed = expected["printed_value"].replace("'", "")
        if expected["unit"] == "GB/s":
            assert round(hit["bytes_per_s"] / GIB, 1) == float(printed), expected
        else:
            assert round(hit["iops"]) == int(printed), expected
        assert round(hit["lat_mean_us"]) == int(expected["lat_us"].replace("'", "")), expected


def test_both_setups_three_hosts(a800_build: BuildResult) -> None:
    points = pl.read_parquet(a800_build.out / "dataset.parquet")
    assert sorted(set(points["setup"])) == ["48vcpu", "4vcpu"]
    assert set(points["hosts"]) == {3}


def test_pdfs_and_site_carry_the_declared_charts(a800_build: BuildResult) -> None:
    charts = {p.name.split(".")[0] for p in (a800_build.out / "charts").iterdir()}
    assert {
        "dual_axis_random_8k_r100",
        "dual_axis_sequential_128k_r0",
        "response_48vcpu_random_8k",
        "stability_4vcpu_random_8k",
    } <= charts
    de = pdf_text(a800_build.out / "a800.de.pdf").replace("\n", " ")
    en = pdf_text(a800_build.out / "a800.en.pdf").replace("\n", " ")
    assert "IOPS und Latenz je Konfiguration" in " ".join(de.split())
    assert "Kennzahlen" in de and "648’293 IOPS" in de
    assert "IOPS and latency per configuration" in " ".join(en.split())
    assert "Key figures" in en and "648,293 IOPS" in en
    page = (a800_build.out / "site" / "de" / "a800.html").read_text(encoding="utf-8")
    assert "dual_axis_random_8k_r100-de.svg" in page and "48 vCPUs pro VM" in page


def test_committed_raw_data_is_what_the_generator_makes() -> None:
    spec = importlib.util.spec_from_file_location("a800_generate", A800 / "generate.py")
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    for setup in ("48vcpu", "4vcpu"):
        committed = (A800 / "raw" / f"a800-{setup}.iogen.csv").read_text(encoding="utf-8")
        assert module.generate(setup) == committed


@pytest.mark.skipif(not SEED.exists(), reason="shared/seeds not present")
def test_transcription_matches_the_seed_text() -> None:
    text = SEED.read_text(encoding="utf-8")
    table = text[text.index("Tabelle 1 – Kennzahlen") :]
    for row in _rows():
        value = row["printed_value"] + (" IOPS" if row["unit"] == "IOPS" else " GB/s")
        assert value in text, row
        assert f"{row['lat_us']} µs" in text, row
    assert table


def test_placeholders_name_the_setup(tmp_path: Path) -> None:
    import shutil

    from pipeline.errors import InputErrors

    report = tmp_path / "a800"
    shutil.copytree(A800, report)
    summary = report / "text" / "en" / "summary.md"
    summary.write_text('{{ maximum("8K", "random", 100).iops }}\n', encoding="utf-8")
    with pytest.raises(
        InputErrors,
        match=r"name the setup: setup=… \(one of \['48vcpu', "
        r"'4vcpu'\]\)",
    ):
        build(report, tmp_path / "out")
