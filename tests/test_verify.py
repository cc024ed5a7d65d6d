"""iopress verify: the seed-000 transcription gives exactly the real discrepancies."""

from __future__ import annotations

from pathlib import Path

import pytest

from pipeline.errors import InputError
from pipeline.report.context import ReportContext
from pipeline.verify import Expected, agrees, candidates, parse, verify
from tests.cli import iopress
from tests.conftest import FS840

PUBLISHED = FS840 / "published" / "seed000.csv"

REAL = [
    'line 53: cost / FS 900 2016 / price_per_tb_effective: printed "1\'000 CHF*", '
    "exact 1'023.39 CHF",
    'line 59: cost / Tiered Midrange 2016 / price_per_kiops: printed "1\'150 CHF", '
    "exact 1'166.67 CHF",
    "line 83: spc1 / OS 18'800 V3 / 50: printed \"1'505.068 @ 0.55 ms\", exact "
    "1'505'068 IOPS @ 0.550 ms",
    "line 105: spc1_sizing / OS 18'800 V3 400000 / lat_mean_us: printed '0.45 ms', exact 0.403 ms",
    "line 109: spc1_sizing / OS 18'800 V3 800000 / lat_mean_us: printed '0.50 ms', exact 0.456 ms",
]


def test_seed_000_gives_exactly_the_real_discrepancies(fs840_context: ReportContext) -> None:
    checked, found = verify(fs840_context, PUBLISHED)
    assert checked == 134
    assert [str(d) for d in found] == REAL


def test_a_larger_tolerance_accepts_the_rounded_cost(fs840_context: ReportContext) -> None:
    _, found = verify(fs840_context, PUBLISHED, tolerance=0.025)
    assert "price_per_tb_effective" not in " ".join(str(d) for d in found)


@pytest.mark.parametrize("text", ["1'008'045", "1’008’045", "1,008,045", "1.008.045"])
def test_printed_in_either_language(text: str) -> None:
    (printed,) = parse(f"{text} @ 0.50 ms")[:1]
    assert agrees(printed, Expected(1_008_045, "rate"), "IOPS", 0.01)


def test_ambiguous_point_reads_both_ways() -> None:
    assert candidates("12.984") == [(12.984, 0.0005), (12984.0, 0.5)]
    assert candidates("1'505.068") == [(1505.068, 0.0005)]


def test_precision_and_tolerance() -> None:
    lat = Expected(293.2, "time")  # µs
    assert agrees(parse("0.3 ms")[0], lat, "ms", 0.01)  # within half a unit (0.05 ms)
    assert not agrees(parse("0.30 ms")[0], lat, "ms", 0.01)  # 0.005 ms and 1 % are exceeded


def test_unknown_figure_names_the_line(tmp_path: Path, fs840_context: ReportContext) -> None:
    bad = tmp_path / "p.csv"
    bad.write_text(
        "table,row,column,printed\nperformance,random 3K 100,maximum,1 @ 1 ms\n", encoding="utf-8"
    )
    with pytest.raises(InputError) as caught:
        verify(fs840_context, bad)
    assert str(caught.value).startswith(
        f"{bad}: line 2: performance / random 3K 100 / maximum names no figure"
    )


def test_cli_exit_status(tmp_path: Path) -> None:
    run = iopress("verify", FS840, "--published", PUBLISHED)
    assert run.returncode == 1
    assert run.stdout.splitlines()[-1] == "134 figures checked, 5 differ"
    good = tmp_path / "good.csv"
    good.write_text(
        "table,row,column,printed\nmin_latency,random 4K 100,lat,230 µs\n", encoding="utf-8"
    )
    ok = iopress("verify", FS840, "--published", good)
    assert ok.returncode == 0 and ok.stdout == "1 figures checked, 0 differ\n"


def test_a_row_that_names_two_rows_is_an_error_not_the_first(
    tmp_path: Path, fs840_context: ReportContext
) -> None:
    """ "Tiered Midrange" has a 2014 and a 2016 price per TB: without the year the row is
    ambiguous; a figure the rows share (SPC-1 price on every load) is not."""
    ambiguous = tmp_path / "ambiguous.csv"
    ambiguous.write_text(
        "table,row,column,printed\ncost,Tiered Midrange,price_per_tb,875 CHF\n", "utf-8"
    )
    with pytest.raises(InputError, match="2 rows match"):
        verify(fs840_context, ambiguous)
    year = tmp_path / "year.csv"
    year.write_text(
        "table,row,column,printed\ncost,Tiered Midrange 2016,price_per_tb,875 CHF\n", "utf-8"
    )
    assert verify(fs840_context, year)[0] == 1
