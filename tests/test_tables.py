"""The table functions on frames small enough to read."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import polars as pl
import pytest
from polars.testing import assert_frame_equal

from pipeline.compute.tables import iops_at_latency, min_latency, optimum_steps, performance
from pipeline.language.fmt import Formatter
from pipeline.language.strings import Strings
from pipeline.report.views import performance_view, unsure

LIMITS = ((1000.0, 3000.0), 32 * 1024)  # seed 001, the default [latency_limits]


def _points(
    levels: list[tuple[int, float, float]], read_pct: float = 100.0, setup: str = "default"
) -> pl.DataFrame:
    return pl.DataFrame(
        {
            "setup": setup,
            "queue_depth": 1,
            "target_iops": None,
            "access": "random",
            "block_size": 8192,
            "read_pct": read_pct,
            "parallelism": [p for p, _, _ in levels],
            "iops": [i for _, i, _ in levels],
            "bytes_per_s": [i * 8192 for _, i, _ in levels],
            "lat_mean_us": [lat for _, _, lat in levels],
            "intervals": 3,
            "iops_dev_pct": 0.5,
        }
    ).with_columns(pl.col("block_size", "queue_depth").cast(pl.Int64))


CURVE = [
    (1, 10_000.0, 200.0),
    (2, 19_000.0, 210.0),
    (4, 30_000.0, 260.0),
    (8, 36_000.0, 430.0),
    (16, 40_000.0, 800.0),
    (32, 39_000.0, 1600.0),
]


def test_min_latency_picks_lowest_latency_and_its_parallelism() -> None:
    table = min_latency(_points([(1, 100.0, 250.0), (2, 180.0, 240.0), (4, 300.0, 260.0)]))
    expected = pl.DataFrame(
        {
            "setup": ["default"],
            "queue_depth": pl.Series([1], dtype=pl.Int64),
            "access": ["random"],
            "block_size": pl.Series([8192], dtype=pl.Int64),
            "read_pct": [100.0],
            "lat_mean_us": [240.0],
            "parallelism": [2],
            "target_iops": [None],  # no rate sweep (the frame above says so untyped)
        }
    )
    assert_frame_equal(table, expected)


def test_speed_optimum_maximum() -> None:
    table = performance(_points(CURVE))
    assert table["kind"].to_list() == ["speed", "optimum", "maximum"]
    # steps 1->2 (+90 % IOPS, +5 % latency) and 2->4 (+58 %, +24 %) pay;
    # 4->8 (+20 %, +65 %) does not, so the optimum is 4 even though later steps still gain.
    assert table["parallelism"].to_list() == [1, 4, 16]
    assert table["iops"].to_list() == [10_000.0, 30_000.0, 40_000.0]
    assert table["lat_mean_us"].to_list() == [200.0, 260.0, 800.0]


def test_optimum_is_first_level_when_first_step_does_not_pay() -> None:
    table = performance(_points([(1, 1000.0, 2000.0), (2, 1200.0, 3500.0), (4, 3000.0, 4000.0)]))
    assert table.filter(pl.col("kind") == "optimum")["parallelism"].to_list() == [1]


def test_equal_gains_still_pay() -> None:
    table = performance(_points([(1, 1000.0, 100.0), (2, 1500.0, 150.0)]))
    assert table.filter(pl.col("kind") == "optimum")["parallelism"].to_list() == [2]


def test_mixes_are_ordered_read_first_and_the_columns_never_change() -> None:
    both = pl.concat([_points(CURVE, 0.0), _points(CURVE, 100.0)])
    table = performance(both)
    assert table["read_pct"].unique(maintain_order=True).to_list() == [100.0, 0.0]
    two_setups = pl.concat([_points(CURVE, setup="a"), _points(CURVE, setup="b")])
    assert min_latency(two_setups).columns == min_latency(both).columns
    assert min_latency(two_setups)["setup"].to_list() == ["a", "b"]


def test_iops_at_latency_interpolates_where_the_curve_crosses_the_limit() -> None:
    rising = [(1, 10_000.0, 200.0), (2, 20_000.0, 600.0), (4, 30_000.0, 1400.0)]
    row = iops_at_latency(_points(rising), *LIMITS).row(0, named=True)  # 8K: limit 1 ms
    # crosses between 2 (20'000 @ 600 µs) and 4 (30'000 @ 1'400 µs): half way
    assert (row["limit_us"], row["iops"], row["parallelism"]) == (1000, 25_000, 2)


def test_iops_at_latency_never_undercuts_a_measured_point_under_the_limit() -> None:
    # CURVE crosses 1 ms between 16 (40'000 @ 800 µs) and 32 (39'000 @ 1'600 µs): the
    # crossing (39'750) is below the point measured at 16, which is the answer
    row = iops_at_latency(_points(CURVE), *LIMITS).row(0, named=True)
    assert (row["iops"], row["parallelism"]) == (40_000, 16)
    # a noisy level above the limit, then a better one under it (the 1M sequential case)
    noisy = [(1, 1000.0, 500.0), (2, 1500.0, 1200.0), (4, 1800.0, 900.0), (8, 1900.0, 2000.0)]
    row = iops_at_latency(_points(noisy), *LIMITS).row(0, named=True)
    crossing = 1800 + (1000 - 900) / (2000 - 900) * (1900 - 1800)
    assert row["iops"] == crossing and row["parallelism"] == 4
    for level, iops, lat in noisy:
        assert lat > 1000 or row["iops"] >= iops, level


def test_iops_at_latency_columns() -> None:
    assert iops_at_latency(_points(CURVE), *LIMITS).columns == [
        "setup",
        "queue_depth",
        "access",
        "block_size",
        "read_pct",
        "limit_us",
        "iops",
        "bytes_per_s",
        "parallelism",
        "target_iops",  # a rate sweep's point (interpolated: the lower one's)
        "measured",  # False where interpolated (the registry's table leaves it out)
    ]


def test_iops_at_latency_when_never_or_always_above() -> None:
    fast = iops_at_latency(_points([(1, 100.0, 200.0), (2, 150.0, 300.0)]), *LIMITS)
    assert fast.row(0, named=True)["iops"] == 150  # never crosses: the best point
    slow = iops_at_latency(_points([(1, 100.0, 2000.0), (2, 150.0, 3000.0)]), *LIMITS)
    assert slow.row(0, named=True)["iops"] is None  # above the limit from the start
    custom = iops_at_latency(
        _points([(1, 100.0, 2000.0), (2, 150.0, 4000.0)]), (3000.0, 5000.0), LIMITS[1]
    )
    assert custom.row(0, named=True)["iops"] == 125


def _noisy(deviation: float, intervals: int = 3) -> pl.DataFrame:
    """The 2-s sweep's 8K write: the step 2 -> 4 misses the rule by 3.6 points."""
    # 2 -> 4: IOPS +57.9 %, latency +57.9 % + 3.6 points
    levels = [(1, 10_000.0, 100.0), (2, 19_000.0, 105.0), (4, 30_000.0, 105.0 * 1.615)]
    return _points(levels).with_columns(
        pl.lit(intervals).alias("intervals"), pl.lit(deviation).alias("iops_dev_pct")
    )


def test_optimum_within_the_noise_is_marked_and_a_margin_moves_it() -> None:
    strict = performance(_noisy(5.0)).filter(pl.col("kind") == "optimum").row(0, named=True)
    assert strict["parallelism"] == 2
    assert round(strict["shortfall_pp"], 1) == 3.6 and strict["noise_pct"] == 5.0
    assert unsure(strict)
    clear = performance(_noisy(1.0)).filter(pl.col("kind") == "optimum").row(0, named=True)
    assert not unsure(clear)
    margin = performance(_noisy(5.0), 5.0).filter(pl.col("kind") == "optimum").row(0, named=True)
    assert margin["parallelism"] == 4 and margin["shortfall_pp"] is None  # the last level


@pytest.mark.parametrize(("margin", "sure"), [(0.0, True), (2.0, True), (3.0, False)])
def test_how_sure_an_optimum_is_counts_the_miss_beyond_the_margin(
    margin: float, sure: bool
) -> None:
    """The step misses by 3.6 points and the noise is 1.0: with a margin of 3 it misses
    the rule by 0.6, inside the noise; it was called clear (3.6 against 1.0)."""
    optimum = performance(_noisy(1.0), margin).filter(pl.col("kind") == "optimum")
    row = optimum.row(0, named=True)
    assert row["parallelism"] == 2 and round(row["shortfall_pp"], 1) == round(3.6 - margin, 1)
    assert unsure(row) is not sure
    (step,) = optimum_steps(_noisy(1.0), margin).iter_rows(named=True)
    assert step["shortfall_pp"] == row["shortfall_pp"]


def test_single_interval_points_have_no_noise_to_compare() -> None:
    row = (
        performance(_noisy(0.0, intervals=1)).filter(pl.col("kind") == "optimum").row(0, named=True)
    )
    assert row["noise_pct"] is None and not unsure(row)
    steps = optimum_steps(_noisy(0.0, intervals=1))
    assert steps.select("optimum", "next").row(0) == (2, 4)


def test_the_table_marks_an_unsure_optimum_and_says_why() -> None:
    table = performance(_noisy(5.0)).with_columns(pl.col("queue_depth").cast(pl.Int64))
    view = performance_view(table, [], Formatter(Strings("en")), "")
    assert "19,000 @ 0.11\u00a0ms (P\u00a02) (?)" in [
        s.text for row in view.rows for c in row for s in c
    ]
    assert "(?): the step after this optimum misses the rule" in view.note


def test_the_limit_table_s_caption_says_which_limit_is_whose() -> None:
    """ "at most 1.0 ms / 3.0 ms" did not say which rows each limit was of (the rows name
    only the profile): each limit now names its block sizes where there are several."""
    from pipeline.report.views import limits_text

    fmt = Formatter(Strings("en"))
    rows = pl.DataFrame(
        {
            "block_size": [1024, 4096, 8192, 16384, 65536, 1 << 20],
            "limit_us": [1e3, 1e3, 1e3, 1e3, 3e3, 3e3],
        }
    )
    assert limits_text(rows, fmt) == "1.0\u00a0ms (1K–16K) / 3.0\u00a0ms (64K, 1024K)"
    assert limits_text(rows.tail(3), fmt) == "1.0\u00a0ms (16K) / 3.0\u00a0ms (64K, 1024K)"
    assert limits_text(rows.head(2), fmt) == "1.0\u00a0ms"  # one limit: no block sizes
    assert limits_text(rows.clear(), fmt, (1e3, 3e3)) == "1.0\u00a0ms / 3.0\u00a0ms"


def test_widths_that_do_not_match_the_columns_are_refused() -> None:
    """typst lays a table of fewer widths than columns out with its cells shifted, silently."""
    import pytest

    from pipeline.render.typst_doc import table
    from pipeline.report.views import Span, TableView

    view = TableView("t", "caption", ["a", "b", "c"], [[[Span("1")], [Span("2")], [Span("3")]]])
    assert "columns: (auto, 1fr, 1fr)" in table(view)
    with pytest.raises(ValueError, match="table t: 2 widths, 3 columns"):
        table(replace(view, widths=("auto", "1fr")))


def test_each_tables_note_stands_below_it(tmp_path: Path) -> None:
    """Performance and key figures in one section: "Values in bold: the vendor's figures"
    stood under the key figures (which have none), below both tables."""
    from tests.conftest import A800, edited_copy, typst_text

    folder = edited_copy(
        A800, tmp_path / "r", 'tables = ["key_figures",', 'tables = ["performance", "key_figures",'
    )
    from pipeline.prepare import prepare
    from pipeline.render.whitepaper import body

    ctx = prepare(folder)
    text = typst_text(body(ctx, "en"))
    performance = text.index("<tab-performance>")
    key_figures = text.index("<tab-key_figures>")
    note = text.index("Values in italics: the optimum")
    assert performance < note < key_figures
