"""The dataset files: schema version, both levels, accounting, schema checks."""

from __future__ import annotations

import json
import math
from pathlib import Path

import polars as pl
import pytest

from pipeline.dataset import read_intervals, read_points, write
from pipeline.dataset.assemble import combine
from pipeline.errors import InputError
from pipeline.ingest import ReadOptions, ReadResult, read
from pipeline.schema import (
    INTERVAL_FIELDS,
    METADATA_KEY,
    POINT_FIELDS,
    SCHEMA_VERSION,
    Field,
    violations,
)
from tests.conftest import DATA

# a row refused of one host's interval, and the other host's row of that interval: its sum
# would lack the refused host (alignment.whole)
WITH_PARTNER = {"records_read": 8, "accepted": 6, "rejected": 2}


def _dataset() -> tuple[ReadResult, Path]:
    result = read(DATA / "iogen" / "basic.csv", ReadOptions(system="S"))
    return result, DATA / "iogen" / "basic.csv"


def test_write_and_read_back_with_version_and_accounting(tmp_path: Path) -> None:
    result, _ = _dataset()
    dataset = combine([result])
    write(dataset, tmp_path / "d.parquet")
    meta = pl.read_parquet_metadata(tmp_path / "d.parquet")
    assert meta[METADATA_KEY] == str(SCHEMA_VERSION)
    assert json.loads(meta["iopress.accounting"]) == {
        "records_read": 8,
        "accepted": 8,
        "rejected": 0,
    }
    points = read_points(tmp_path / "d.parquet")
    assert points.columns == [f.name for f in POINT_FIELDS]
    assert points.height == 2
    assert read_intervals(tmp_path / "d.parquet").height == 8


def test_a_version_4_dataset_reads_with_its_percentiles_of_nothing_known(
    tmp_path: Path,
) -> None:
    """Schema 5 added percentile_of; a dataset written before it still reads, the column
    empty (what its percentiles were of is not known)."""
    dataset = combine([_dataset()[0]])
    path = tmp_path / "v4.parquet"
    dataset.points.drop("percentile_of").write_parquet(path, metadata={METADATA_KEY: "4"})
    points = read_points(path)
    assert points.columns == [f.name for f in POINT_FIELDS]
    assert points["percentile_of"].null_count() == points.height == 2


def test_unknown_schema_version_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "old.parquet"
    pl.DataFrame({"a": [1]}).write_parquet(path, metadata={METADATA_KEY: "0"})
    with pytest.raises(InputError) as caught:
        read_points(path)
    assert str(caught.value) == (
        f"{path}: metadata: dataset schema version '0' is not supported (this iopress reads "
        f"version {SCHEMA_VERSION})\n  hint: rebuild the dataset from the raw files with this "
        "iopress"
    )


def test_rows_failing_schema_checks_become_rejects() -> None:
    result, _ = _dataset()
    broken = result.intervals.with_columns(
        pl.when(pl.col("line") == 5).then(-1.0).otherwise(pl.col("iops")).alias("iops")
    )
    dataset = combine([ReadResult(broken, [], 8)])
    assert dataset.accounting() == WITH_PARTNER
    assert str(dataset.rejects[0]) == (
        "basic.csv: line 5, field 'iops': value '-1.0' fails the dataset schema check"
    )
    partner = dataset.rejects[1]
    assert partner.reason.key == "hosts_missing" and dict(partner.where.values) == {"line": "4"}


def test_schema_rejects_come_in_line_order_each_naming_its_first_bad_field() -> None:
    """The same rejects in the same order on every run, a row's first bad field in schema
    order named (polars sorts in parallel: the order within a row was not kept)."""
    result, _ = _dataset()
    first = result.intervals.head(3)
    line = pl.col("line")
    broken = first.with_columns(
        pl.when(line == 4).then(-1.0).otherwise(pl.col("iops")).alias("iops"),
        pl.when(line == 5).then(0).otherwise(pl.col("interval")).alias("interval"),
        pl.when(line == 6).then(None).otherwise(pl.col("access")).alias("access"),
        pl.when(line == 6).then(-1).otherwise(pl.col("queue_depth")).alias("queue_depth"),
    )
    seen = {tuple(map(str, combine([ReadResult(broken, [], 3)]).rejects)) for _ in range(20)}
    fails = "fails the dataset schema check"
    assert seen == {
        (
            f"basic.csv: line 4, field 'iops': value '-1.0' {fails}",
            f"basic.csv: line 5, field 'interval': value '0' {fails}",
            f"basic.csv: line 6, field 'access': value None {fails}",
        )
    }


def _breaking(dtype: object, nullable: bool) -> object:
    """A value no field of ``dtype`` takes: none where one is required, else a control
    character, an infinite figure or a count below 1."""
    if not nullable:
        return None
    return {pl.String: "h\x1b", pl.Float64: math.inf}.get(dtype, -1)  # type: ignore[call-overload]


@pytest.mark.parametrize("field", INTERVAL_FIELDS, ids=lambda f: f.name)
def test_each_field_broken_alone_is_found(field: Field) -> None:
    """The quick test that no row breaks any field (the common case) sees every field's
    check: one broken value of any column is one violation naming that column."""
    f = field
    result, _ = _dataset()
    frame = result.intervals.head(3).with_columns(
        pl.when(pl.col("line") == pl.col("line").min())
        .then(pl.lit(_breaking(f.dtype, f.nullable), f.dtype))
        .otherwise(pl.col(f.name))
        .alias(f.name)
    )
    bad = violations(frame, INTERVAL_FIELDS)
    assert bad.select("_row", "column").rows() == [(0, f.name)]
    assert violations(result.intervals, INTERVAL_FIELDS).schema == bad.schema


@pytest.mark.parametrize("name", ["h\x1b[2J", "h\x1b]0:owned\x07", "h\u202eevil", "h\x9b2J"])
def test_a_name_with_a_control_character_is_a_reject(tmp_path: Path, name: str) -> None:
    """Names from any reader (here IOgen's host column) hold no control character: the
    schema check refuses the row, naming the field (fio refuses them at its reader)."""
    text = (DATA / "iogen" / "basic.csv").read_text(encoding="utf-8")
    path = tmp_path / "hosts.csv"
    path.write_text(text.replace("\nhostA;", f"\n{name};", 1), encoding="utf-8")
    dataset = combine([read(path, ReadOptions(system="S"))])
    assert dataset.accounting() == WITH_PARTNER
    assert "field 'host'" in str(dataset.rejects[0])
    assert all(name not in r for r in dataset.intervals["host"].to_list())


@pytest.mark.parametrize("value", [float("inf"), float("nan"), 1e308])
def test_a_figure_out_of_range_from_any_reader_is_a_reject(value: float) -> None:
    """fio's reader refused figures beyond 1e15; other readers' (CrystalDiskMark's 'inf
    MB/s') reached the dataset and failed in the workbook writer with a traceback."""
    result, _ = _dataset()
    broken = result.intervals.with_columns(
        pl.when(pl.col("line") == 5).then(value).otherwise(pl.col("iops")).alias("iops")
    )
    dataset = combine([ReadResult(broken, [], 8)])
    assert dataset.accounting() == WITH_PARTNER
    assert "field 'iops'" in str(dataset.rejects[0])


def test_a_block_size_of_400_digits_is_a_value_error() -> None:
    from pipeline.units import parse_block_size

    with pytest.raises(ValueError, match="from 1 byte to 1 TiB"):
        parse_block_size("9" * 400)


@pytest.mark.parametrize("column", ["host", "tool_version", "setup"])
def test_a_name_longer_than_a_table_can_hold_is_a_reject_named_short(column: str) -> None:
    """A 40,000-character name from the data (a fio version, an Iometer specification)
    stopped typst (a PDF string holds 32,767); now the row is refused, and its reason
    shows the value's start and length, not 40,000 characters."""
    result, _ = _dataset()
    long = "H" * 40_000
    broken = result.intervals.with_columns(
        pl.when(pl.col("line") == 5).then(pl.lit(long)).otherwise(pl.col(column)).alias(column)
    )
    dataset = combine([ReadResult(broken, [], 8)])
    assert dataset.accounting() == WITH_PARTNER
    reason = str(dataset.rejects[0])
    assert f"field '{column}'" in reason and "(40,000 characters)" in reason
    assert len(reason) < 200
    kept = result.intervals.with_columns(pl.lit("h" * 256).alias(column))
    assert combine([ReadResult(kept, [], 8)]).accounting()["rejected"] == 0
