"""The build's hive-partitioned copy of the dataset: a folder of many reports' copies is
one table per level for engines that read hive partitions (pyarrow here; DuckDB, Spark
and Trino read the same layout)."""

from __future__ import annotations

import shutil
from pathlib import Path

import polars as pl
import pyarrow.dataset as ds
import pytest

from pipeline.build import BuildResult
from pipeline.dataset import HIVE, Dataset, write_hive
from pipeline.errors import InputError
from pipeline.schema import INTERVAL_FIELDS, POINT_FIELDS, polars_schema


def _table(folder: Path, level: str) -> pl.DataFrame:
    found = ds.dataset(folder / level, format="parquet", partitioning="hive").to_table()
    return pl.from_arrow(found)  # type: ignore[return-value]


def _key(frame: pl.DataFrame) -> pl.DataFrame:
    columns = ["system", "setup", "access", "block_size", "read_pct", "parallelism", "iops"]
    return frame.select(columns).sort(columns[:-1])


def test_many_reports_in_one_folder_are_one_table(
    tmp_path: Path, fs840_build: BuildResult, a800_shared: BuildResult
) -> None:
    for result in (fs840_build, a800_shared):
        shutil.copytree(result.out / HIVE, tmp_path, dirs_exist_ok=True)
    points = _table(tmp_path, "points")
    both = pl.concat(
        [
            pl.read_parquet(r.out / "dataset.parquet").with_columns(report=pl.lit(r.ctx.report.id))
            for r in (fs840_build, a800_shared)
        ],
        how="diagonal",
    )
    assert points.height == both.height
    assert _key(points).equals(_key(both))
    assert set(points["report"]) == {"fs840", "a800"}
    assert set(points["setup"]) == {"default", "4vcpu", "48vcpu"}
    intervals = _table(tmp_path, "intervals")
    assert intervals.height == sum(r.dataset.intervals.height for r in (fs840_build, a800_shared))


def test_partition_values_with_slashes_spaces_and_equals_round_trip(tmp_path: Path) -> None:
    system, setup = "Vendor A/B = 100% fast", "tier 1/ß"
    row = {f.name: None for f in POINT_FIELDS} | {"system": system, "setup": setup}
    points = pl.DataFrame([row], schema=polars_schema(POINT_FIELDS))
    intervals = pl.DataFrame(schema=polars_schema(INTERVAL_FIELDS))
    written = write_hive(Dataset(intervals, points), tmp_path, "r1")
    assert len(written) == 1 and written[0].is_relative_to(tmp_path / "points")
    found = _table(tmp_path, "points")
    assert found["system"].to_list() == [system] and found["setup"].to_list() == [setup]
    hived = pl.scan_parquet(tmp_path / "points" / "**" / "*.parquet", hive_partitioning=True)
    assert hived.collect()["setup"].to_list() == [setup]


def test_a_name_too_long_for_a_folder_is_an_input_error(tmp_path: Path) -> None:
    row = {f.name: None for f in POINT_FIELDS} | {"system": "Sp€icher" * 30, "setup": "a"}
    points = pl.DataFrame([row], schema=polars_schema(POINT_FIELDS))
    intervals = pl.DataFrame(schema=polars_schema(INTERVAL_FIELDS))
    with pytest.raises(InputError, match=r"system name 'Sp€icher.*too long"):
        write_hive(Dataset(intervals, points), tmp_path, "r1")
