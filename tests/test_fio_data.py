"""fio's bssplit and compressible data (issue 40), read from Debian's fio output
(tests/data/fio-data, made by its generate.sh): a split is one profile named by its
split, its size the mean; buffer_compress_percentage and dedupe_percentage name the
setups where they differ, in the method text, the tables and the charts."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import polars as pl
import pytest

from pipeline import ingest
from pipeline.build import build
from pipeline.dataset.assemble import combine
from pipeline.errors import InputError
from pipeline.ingest.base import ReadOptions
from pipeline.ingest.fio_params import JobError, Resolver, split_shares
from pipeline.language import Formatter, Strings
from pipeline.prepare import prepare
from pipeline.report.attributes import ratio
from tests.conftest import DATA, pdf_text

FIXTURE = DATA / "fio-data"
SPLIT = "4K/8K/64K 50/30/20"
MEAN = round((4096 * 50 + 8192 * 30 + 65536 * 20) / 100)  # 17'613 bytes


def _report(tmp_path: Path) -> Path:
    folder = tmp_path / "fio-data"
    shutil.copytree(FIXTURE / "raw", folder / "raw")
    shutil.copytree(DATA / "reports" / "mixed" / "text", folder / "text")
    shutil.copy(FIXTURE / "report.toml", folder / "report.toml")
    return folder


def test_a_split_is_one_profile_of_its_mean_size_named_by_it() -> None:
    result = ingest.read(FIXTURE / "raw" / "c2" / "split-write-2.json", ReadOptions())
    row = result.intervals.row(0, named=True)
    assert (row["block_size"], row["block_split"]) == (MEAN, SPLIT)
    assert (row["compress_pct"], row["dedupe_pct"]) == (50.0, 10.0)
    # fio wrote the shares (norandommap): its bytes per I/O are the mean within 2 %
    assert row["bytes_per_s"] / row["iops"] == pytest.approx(MEAN, rel=0.02)
    fixed = ingest.read(FIXTURE / "raw" / "c1" / "fixed-write-1.json", ReadOptions())
    plain = fixed.intervals.row(0, named=True)
    assert (plain["block_size"], plain["block_split"], plain["compress_pct"]) == (8192, None, 0.0)


@pytest.mark.parametrize(
    ("text", "shares"),
    [
        ("4k/50:8k/30:64k/20", [(4096, 50.0), (8192, 30.0), (65536, 20.0)]),
        ("4k/50:8k/:16k/", [(4096, 50.0), (8192, 25.0), (16384, 25.0)]),  # fio fills blanks
        (" 1m/100 ", [(1 << 20, 100.0)]),
    ],
)
def test_split_shares(text: str, shares: list[tuple[int, float]]) -> None:
    assert split_shares(text, text) == shares


@pytest.mark.parametrize(
    ("text", "reason"),
    [
        ("4k/50:8k/30", "the shares add up to 80 %, not 100 %"),
        ("4k/60:8k/60", "the shares add up to 120 %, not 100 %"),
        ("4k/half:8k/50", "is not a block-size split"),
        ("4q/50:8k/50", "is not a block size"),
    ],
)
def test_a_split_fio_would_not_run_as_named_is_rejected(
    text: str, reason: str, tmp_path: Path
) -> None:
    """fio runs 4k/50:8k/30 (the rest goes to one size); a profile named by its shares
    would misstate it: the record is rejected with the reason."""
    with pytest.raises(JobError, match=reason):
        split_shares(text, text)
    doc = json.loads((FIXTURE / "raw" / "c1" / "split-read-1.json").read_text(encoding="utf-8"))
    doc["jobs"][0]["job options"]["bssplit"] = text
    path = tmp_path / "bad.json"
    path.write_text(json.dumps(doc), encoding="utf-8")
    result = ingest.read(path, ReadOptions())
    assert result.intervals.is_empty() and reason in str(result.rejects[0].reason)


def test_the_shares_of_reads_and_writes_follow_the_job() -> None:
    """bssplit=READ,WRITE: a write job's size is the write split."""
    doc = json.loads((FIXTURE / "raw" / "c1" / "split-write-1.json").read_text(encoding="utf-8"))
    doc["jobs"][0]["job options"]["bssplit"] = "4k/100,64k/50:4k/50"
    profile = Resolver(FIXTURE / "x.json", doc, FIXTURE).profile(doc["jobs"][0])
    assert (profile["block_size"], profile["block_split"]) == (34816, "64K/4K 50/50")


@pytest.mark.parametrize(("pct", "text"), [(0, "1:1"), (50, "2:1"), (75, "4:1"), (33.3, "1.5:1")])
def test_compressibility_as_a_ratio(pct: float, text: str) -> None:
    assert ratio(pct, Formatter(Strings("en"))) == text


def test_two_kinds_of_data_in_one_point_are_an_error(tmp_path: Path) -> None:
    """1:1 and 2:1 runs of one profile under one setup would be averaged into one point."""
    one = ingest.read(FIXTURE / "raw" / "c1" / "fixed-write-1.json", ReadOptions())
    two = ingest.read(FIXTURE / "raw" / "c2" / "fixed-write-1.json", ReadOptions())
    with pytest.raises(InputError) as caught:
        combine([one, two])
    message = str(caught.value)
    assert message.startswith("fixed-write-1.json: ") and "block_size=8192" in message
    assert "differ in compress_pct: 0.0 and 50.0; dedupe_pct: 10.0 and none" in message


def test_a_split_and_a_fixed_size_of_its_mean_are_an_error(tmp_path: Path) -> None:
    doc = json.loads((FIXTURE / "raw" / "c1" / "fixed-write-1.json").read_text(encoding="utf-8"))
    doc["jobs"][0]["job options"]["bs"] = f"{MEAN}"
    path = tmp_path / "mean.json"
    path.write_text(json.dumps(doc), encoding="utf-8")
    split = ingest.read(FIXTURE / "raw" / "c1" / "split-write-1.json", ReadOptions())
    with pytest.raises(InputError, match=f"block size {MEAN} B: '{SPLIT}' and a fixed size have"):
        combine([split, ingest.read(path, ReadOptions())])


def test_the_profile_and_the_data_are_named(tmp_path: Path) -> None:
    ctx = prepare(_report(tmp_path))
    points = ctx.dataset.points
    assert points.filter(pl.col("block_split") == SPLIT)["block_size"].unique().to_list() == [MEAN]
    en, de = ctx.formatter("en"), ctx.formatter("de")
    assert en.block(MEAN) == SPLIT and en.block(8192) == "8K"
    assert en.setup("c2") == "null engine, data compressible 2:1, with 10 % duplicate blocks"
    assert de.setup("c1") == "Null Engine, Daten 1:1 komprimierbar"
    view = ctx.views(en)["performance"]
    labels = [row[0][0].text for row in view.rows]
    assert f"{SPLIT} random IOPS (null engine, data compressible 1:1)" in labels


@pytest.mark.slow
def test_the_pdf_names_the_split_and_the_data(tmp_path: Path) -> None:
    result = build(_report(tmp_path), tmp_path / "out")
    en = pdf_text(result.out / "fio-data.en.pdf")
    de = pdf_text(result.out / "fio-data.de.pdf")
    assert f"{SPLIT} is a mix of block sizes within each job (fio bssplit" in en
    assert f"its mean of {MEAN:,} bytes is used" in en.replace("\n", " ")
    assert f"Results {SPLIT} random – null engine, data compressible 1:1" in en
    assert "null engine, data compressible 2:1, with 10 % duplicate blocks" in en
    assert "Null Engine, Daten 2:1 komprimierbar, mit 10 % doppelten Blöcken" in de.replace(
        "\n", " "
    )
    assert f"{SPLIT} Random" in de
    warnings = pl.read_csv(result.out / "validation.csv")
    assert warnings.filter(pl.col("rule") == "bandwidth").is_empty()  # the mean size fits
