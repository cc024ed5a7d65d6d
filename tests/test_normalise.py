"""Intervals -> points on small literal frames."""

from __future__ import annotations

import polars as pl
import pytest

from pipeline.errors import InputError
from pipeline.normalise import check_attributes, to_points
from pipeline.schema import INTERVAL_FIELDS, conform


def _intervals(
    rows: list[tuple[str, int, float, float, float | None, float | None]],
) -> pl.DataFrame:
    """(host, interval, iops, lat, read_lat, write_lat) at 70 % read, 4K, parallelism 4."""
    return conform(
        pl.DataFrame(
            {
                "system": "S",
                "setup": "default",
                "tool": "iogen",
                "access": "random",
                "read_pct": 70.0,
                "block_size": 4096,
                "parallelism": 4,
                "queue_depth": 1,
                "host": [r[0] for r in rows],
                "interval": [r[1] for r in rows],
                "interval_s": 20.0,
                "iops": [r[2] for r in rows],
                "bytes_per_s": [r[2] * 4096 for r in rows],
                "lat_mean_us": [r[3] for r in rows],
                "read_lat_mean_us": [r[4] for r in rows],
                "write_lat_mean_us": [r[5] for r in rows],
                "cpu_pct": 50.0,
                "source": "f.csv",
                "line": list(range(1, len(rows) + 1)),
            }
        ),
        INTERVAL_FIELDS,
    )


def test_hosts_add_up_and_latency_is_io_weighted() -> None:
    points = to_points(_intervals([("a", 1, 3000, 100, 110, 80), ("b", 1, 1000, 200, 210, 180)]))
    row = points.row(0, named=True)
    assert row["iops"] == 4000
    assert row["bytes_per_s"] == 4000 * 4096
    assert row["lat_mean_us"] == pytest.approx((3000 * 100 + 1000 * 200) / 4000)
    assert row["read_lat_mean_us"] == pytest.approx((3000 * 110 + 1000 * 210) / 4000)
    assert row["hosts"] == 2
    assert row["intervals"] == 1


def test_a_directions_latency_weighs_the_ios_it_did_not_the_mix_asked_for() -> None:
    """Both hosts asked for 70 % reads; a read 90 % of its I/Os, b 50 %: a's read
    latency weighs 900 reads, b's 500 (vdbench's avg_ lines weigh them so)."""
    frame = _intervals([("a", 1, 1000, 100, 100, 50), ("b", 1, 1000, 250, 300, 200)])
    frame = frame.with_columns(
        read_iops=pl.Series([900.0, 500.0]), write_iops=pl.Series([100.0, 500.0])
    )
    row = to_points(frame).row(0, named=True)
    assert row["read_lat_mean_us"] == pytest.approx((900 * 100 + 500 * 300) / 1400)
    assert row["write_lat_mean_us"] == pytest.approx((100 * 50 + 500 * 200) / 600)


def test_intervals_are_averaged_with_min_max_and_deviation() -> None:
    points = to_points(
        _intervals(
            [
                ("a", 1, 900, 100, None, None),
                ("a", 2, 1000, 120, None, None),
                ("a", 3, 1100, 140, None, None),
            ]
        )
    )
    row = points.row(0, named=True)
    assert row["iops"] == pytest.approx(1000)  # equal interval lengths: the plain mean
    # latency over the whole run: weighted by each interval's I/Os, as vdbench's avg_ lines
    assert row["lat_mean_us"] == pytest.approx((900 * 100 + 1000 * 120 + 1100 * 140) / 3000)
    assert (row["iops_min"], row["iops_max"]) == (900, 1100)
    assert row["iops_dev_pct"] == pytest.approx(10.0)
    assert row["intervals"] == 3
    assert row["read_lat_mean_us"] is None


def test_a_point_names_each_file_and_version_once() -> None:
    """Host b's file ends a window early: the point's sources were "a.csv, a.csv, b.csv"
    (each interval's list joined, then those joined again)."""
    rows = [("a", 1, 900, 100, None, None), ("b", 1, 900, 100, None, None)]
    frame = _intervals([*rows, ("a", 2, 1000, 120, None, None)])
    frame = frame.with_columns(
        pl.Series("source", ["a.csv", "b.csv", "a.csv"]),
        pl.Series("tool_version", ["1.2", "1.10", "1.2"]),
    )
    row = to_points(frame).row(0, named=True)
    assert (row["source"], row["tool_version"]) == ("a.csv, b.csv", "1.10, 1.2")


def test_a_direction_no_interval_gives_is_empty_not_nan() -> None:
    """IOgen prints no per-direction rate: every point's read_iops was NaN (0 s / 0 s),
    a number where there is none."""
    row = to_points(_intervals([("a", 1, 900, 100, None, None)])).row(0, named=True)
    assert [row[c] for c in ("read_iops", "write_iops", "read_bytes_per_s")] == [None] * 3


def test_empty_input_gives_empty_points_with_schema() -> None:
    points = to_points(_intervals([]))
    assert points.height == 0
    assert "iops_dev_pct" in points.columns


@pytest.mark.parametrize(
    ("column", "values", "said"),
    [
        ("tool", ["iogen", "fio"], "measured by fio (f.csv) and iogen (f.csv)"),
        ("compress_pct", [50.0, None], "compress_pct: 50.0 and none"),
        ("dedupe_pct", [0.0, -0.0], "dedupe_pct: -0.0 and 0.0"),
        ("profile", ["Database", None], "'Database' and no name are one profile"),
        ("block_split", ["4K/8K 50/50", None], "'4K/8K 50/50' and a fixed size"),
    ],
)
def test_each_attribute_check_sees_two_values_of_one_point(
    column: str, values: list[object], said: str
) -> None:
    """Two records of one point (two hosts) that differ in one column a check groups:
    each check is made where the whole frame holds two values of its column (nothing
    else is needed: with one value, no point can hold two)."""
    rows = _intervals([("h1", 1, 100.0, 50.0, 40.0, 60.0), ("h2", 1, 100.0, 50.0, 40.0, 60.0)])
    dtype = rows.schema[column]
    frame = rows.with_columns(pl.Series(column, values, dtype=dtype))
    with pytest.raises(InputError) as err:
        check_attributes(frame)
    assert said in str(err.value)
