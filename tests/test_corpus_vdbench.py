"""vdbench flatfile averages reproduce the avg_ lines of totals.html of the same run."""

from __future__ import annotations

import re

import polars as pl
import pytest

from pipeline import ingest
from pipeline.build import combine
from pipeline.ingest.base import ReadOptions
from tests.conftest import DATA

SAMPLE = DATA / "vdbench"
AVG_LINE = re.compile(r"Starting RD=(\w+); I/O rate: (\d+).*?avg_\d+-\d+\s+(.+?)\n", re.DOTALL)
MIB = 1024.0**2


def _totals() -> dict[float, dict[str, str]]:
    """Requested rate -> the printed avg_ figures (rate, MB/sec, resp) of totals.html."""
    text = (SAMPLE / "bad" / "totals.html").read_text(encoding="utf-8")
    found = {}
    for _, rate, rest in AVG_LINE.findall(text):
        cells = rest.split()
        found[float(rate)] = {"rate": cells[0], "mb": cells[1], "resp": cells[4]}
    return found


def _close(ours: float, printed: str) -> bool:
    """Equal within the printed precision (half a unit of the last digit) plus 0.1 %."""
    places = len(printed.split(".")[1]) if "." in printed else 0
    return abs(ours - float(printed)) <= 0.5 * 10**-places + 0.001 * abs(float(printed))


def test_flatfile_points_reproduce_totals_avg_lines() -> None:
    result = ingest.read(SAMPLE / "vdbconvert_flatfile.html", ReadOptions())
    points = combine([result]).points.sort("target_iops")
    totals = _totals()
    assert sorted(totals) == points["target_iops"].to_list() == [50.0, 500.0, 5000.0]
    for row in points.iter_rows(named=True):
        printed = totals[row["target_iops"]]
        assert _close(row["iops"], printed["rate"]), (row["iops"], printed)
        assert _close(row["bytes_per_s"] / MIB, printed["mb"]), (row["bytes_per_s"], printed)
        assert _close(row["lat_mean_us"] / 1000, printed["resp"]), (row["lat_mean_us"], printed)


def test_three_requested_rates_stay_three_points() -> None:
    result = ingest.read(SAMPLE / "vdbconvert_flatfile.html", ReadOptions())
    points = combine([result]).points
    assert points.height == 3
    assert set(points["intervals"].to_list()) == {59}
    assert points.filter(pl.col("parallelism") != 2).is_empty()


@pytest.mark.parametrize("name", ["vdbconvert_flatfile.html", "sequential_decimal.html"])
def test_sniffed_as_vdbench(name: str) -> None:
    assert ingest.detect(SAMPLE / name).NAME == "vdbench"
