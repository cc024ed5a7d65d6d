"""A target-rate sweep: vdbench's curve run ("iorate=max", then rates below it) and fio's
jobs with and without rate_iops measure several points at one parallelism. The point held
to no rate is the most load at its level and ends that level's curve. It stood first (a
null sorts first): the speed was the uncapped point, the optimum's steps ran from it down
to the lowest target, the rate at the latency limit missed the crossing between the
highest target and it, and the tables hid an optimum that differed from the maximum only
by its target."""

from __future__ import annotations

import csv
import io
import shutil
from pathlib import Path

import polars as pl

from pipeline.compute.tables import iops_at_latency, levels, performance
from pipeline.language.fmt import Formatter
from pipeline.language.strings import Strings
from pipeline.render.appendix import optimum_view
from pipeline.report.views import key_figures_view, performance_view
from tests.conftest import DATA

# (target, IOPS, µs) at parallelism 4: the targets reached up to 30,000, 40,000 fell
# short, the run held to no rate did the most
SWEEP = [
    (None, 41_000.0, 1400.0),
    (10_000.0, 10_000.0, 100.0),
    (20_000.0, 20_000.0, 120.0),
    (30_000.0, 30_000.0, 180.0),
    (40_000.0, 38_000.0, 600.0),
]


def _points(rows: list[tuple[float | None, float, float]] = SWEEP) -> pl.DataFrame:
    return pl.DataFrame(
        {
            "setup": "default",
            "queue_depth": 1,
            "access": "random",
            "block_size": 4096,
            "read_pct": 100.0,
            "parallelism": 4,
            "target_iops": [t for t, _, _ in rows],
            "iops": [i for _, i, _ in rows],
            "bytes_per_s": [i * 4096 for _, i, _ in rows],
            "lat_mean_us": [lat for _, _, lat in rows],
            "intervals": 3,
            "iops_dev_pct": 0.5,
        },
        schema_overrides={"target_iops": pl.Float64},
    ).with_columns(pl.col("block_size", "queue_depth", "parallelism").cast(pl.Int64))


def _kinds(table: pl.DataFrame) -> dict[str, tuple[float | None, float]]:
    return {r["kind"]: (r["target_iops"], r["iops"]) for r in table.iter_rows(named=True)}


def test_the_point_held_to_no_rate_ends_its_level() -> None:
    table = performance(_points())
    # speed: the least load; optimum: 30,000 -> 38,000 IOPS (+27 %) costs +233 % latency
    assert _kinds(table) == {
        "speed": (10_000.0, 10_000.0),
        "optimum": (30_000.0, 30_000.0),
        "maximum": (None, 41_000.0),
    }
    optimum = table.filter(pl.col("kind") == "optimum").row(0, named=True)
    assert round(optimum["shortfall_pp"], 1) == round((600 / 180 - 38 / 30) * 100, 1)
    order = [r["target_iops"] for r in levels(_points(), "random", 4096, 100.0)]
    assert order == [10_000.0, 20_000.0, 30_000.0, 40_000.0, None]


def test_the_rate_at_the_limit_crosses_between_the_last_target_and_no_target() -> None:
    (row,) = iops_at_latency(_points(), (1000.0, 3000.0), 32 * 1024).iter_rows(named=True)
    # 38,000 IOPS at 600 µs, 41,000 at 1,400 µs: 1,000 µs lies half way (the CSV names
    # the lower point's target, as its parallelism)
    assert row["iops"] == 39_500.0 and row["measured"] is False
    assert row["target_iops"] == 40_000.0
    # 150 µs lies half way between 20,000 (120 µs) and 30,000 IOPS (180 µs)
    (under,) = iops_at_latency(_points(), (150.0, 150.0), 32 * 1024).iter_rows(named=True)
    assert (under["iops"], under["target_iops"], under["measured"]) == (25_000.0, 20_000.0, False)
    (held,) = iops_at_latency(_points(), (120.0, 120.0), 32 * 1024).iter_rows(named=True)
    assert (held["iops"], held["target_iops"], held["measured"]) == (20_000.0, 20_000.0, True)


def test_the_tables_name_the_target_and_show_an_optimum_of_the_same_parallelism() -> None:
    fmt = Formatter(Strings("en"))
    table = performance(_points())
    cell = performance_view(table, [], fmt, "").rows[0][1]
    assert [s.text for s in cell] == [
        "41,000 @ 1.4\u00a0ms (P\u00a04)",
        "30,000 @ 0.18\u00a0ms (P\u00a04, target\u00a030,000 IOPS)",
    ]
    keys = key_figures_view(table, fmt).rows[0]
    assert keys[1][0].text == "4 processes, target\u00a010,000 IOPS"
    (optimum,) = optimum_view(table, fmt).rows
    assert optimum[1][0].text == "4, target\u00a030,000 IOPS"
    german = performance_view(table, [], Formatter(Strings("de")), "").rows[0][1]
    assert german[1].text.endswith("(P\u00a04, Ziel\u00a030’000 IOPS)")


def test_the_response_chart_draws_along_the_curve() -> None:
    from pipeline.charts.family import response_chart

    spec = response_chart(
        _points().sample(fraction=1.0, shuffle=True, seed=3), Formatter(Strings("en"))
    ).to_dict()
    data = next(v for v in spec["datasets"].values() if v and "curve" in v[0])
    drawn = sorted(data, key=lambda r: r["curve"])
    assert [r["throughput"] for r in drawn] == [10_000.0, 20_000.0, 30_000.0, 38_000.0, 41_000.0]


def _vdbench(tmp_path: Path) -> Path:
    from tests.test_method_rates import REPORT

    (tmp_path / "raw").mkdir(parents=True)
    shutil.copy(DATA / "vdbench" / "vdbconvert_flatfile.html", tmp_path / "raw" / "flatfile.html")
    (tmp_path / "report.toml").write_text(REPORT, encoding="utf-8")
    return tmp_path


def _transcribed(folder: Path, printed: str) -> Path:
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(["table", "row", "column", "printed"])
    writer.writerow(["performance", "random 4K 75", "maximum", printed])
    path = folder / "published.csv"
    path.write_text(out.getvalue(), encoding="utf-8")
    return path


def test_verify_reads_a_cell_with_its_target_or_without(tmp_path: Path) -> None:
    """vdbench's sample: 310 IOPS at 6.4 ms, its run held to 5,000 IOPS."""
    from pipeline.prepare import prepare
    from pipeline.verify import verify

    ctx = prepare(_vdbench(tmp_path / "report"))
    shown = performance_view(ctx.frame("performance"), [], ctx.formatter("en"), "").rows[0][1]
    held = "target\u00a05,000 IOPS"
    assert shown[0].text == f"310 @ 6.4\u00a0ms (P\u00a02, {held},\u00a0CPU\u00a01\u00a0%)"
    for printed in (shown[0].text, "310 @ 6.4 ms (P 2)", "310 @ 6.4 ms"):
        assert verify(ctx, _transcribed(tmp_path, printed)).found == [], printed
    (wrong,) = verify(ctx, _transcribed(tmp_path, "310 @ 6.4 ms (P 2, target 500 IOPS)")).found
    assert wrong.exact == "310 @ 6.4 ms (P 2, target 5'000 IOPS)"  # the seeds' mark
    # a target is set, not measured: 5,010 is not 5,000 within 1 % (as a parallelism)
    (near,) = verify(ctx, _transcribed(tmp_path, "310 @ 6.4 ms (P 2, target 5,010 IOPS)")).found
    assert near.exact == "310 @ 6.4 ms (P 2, target 5,000 IOPS)"


def _grid() -> pl.DataFrame:
    """Three levels, each at two targets and held to none (a helper's fio campaign)."""
    rows = []
    for p, (low, high, top) in {
        1: (5e3, 10e3, 11e3),
        2: (10e3, 20e3, 24e3),
        4: (20e3, 40e3, 60e3),
    }.items():
        rows += [(p, low, low, 50.0 + p), (p, high, high, 60.0 + p), (p, None, top, 70.0 + p)]
    frame = pl.concat(
        [
            _points([(t, i, lat)]).with_columns(pl.lit(p).cast(pl.Int64).alias("parallelism"))
            for p, t, i, lat in rows
        ]
    )
    return frame


def test_several_levels_walk_their_points_of_most_load() -> None:
    """The curve ran from P1's uncapped point to P2's lowest target, a step that always
    loses IOPS: the optimum stayed at level 1 ("10,756 @ 91 µs (P 1, target 20,000
    IOPS)" beside a maximum of 65,918 @ 59 µs), and compare called the added rate points
    a -83.7 % regression. Each level now stands on the curve by its uncapped point."""
    table = performance(_grid())
    picked = {r["kind"]: (r["parallelism"], r["target_iops"]) for r in table.iter_rows(named=True)}
    assert picked == {"speed": (1, None), "optimum": (4, None), "maximum": (4, None)}
    rows = levels(_grid(), "random", 4096, 100.0)
    assert [(r["parallelism"], r["target_iops"]) for r in rows if r["on_curve"]] == [
        (1, None),
        (2, None),
        (4, None),
    ]


def test_charts_against_parallelism_place_each_levels_point_of_most_load() -> None:
    """The percentile, standard and setups charts stacked a level's rate points into a
    vertical line; the response chart drew three levels' sweeps as one zigzag."""
    from pipeline.charts.family import response_chart
    from pipeline.report.chart_registry import CHARTS

    against = [c for c in CHARTS if c.x == "parallelism"]
    assert {"standard", "percentiles"} <= {c.name for c in against}
    for chart in against:
        placed = chart.points(_grid())
        assert placed.select("parallelism", "target_iops").rows() == [
            (1, None),
            (2, None),
            (4, None),
        ]
    spec = response_chart(_grid(), Formatter(Strings("en"))).to_dict()
    data = next(v for v in spec["datasets"].values() if v and "curve" in v[0])
    assert sorted({r["line"] for r in data}) == [1, 2, 4]
    one = response_chart(_points(), Formatter(Strings("en"))).to_dict()
    data = next(v for v in one["datasets"].values() if v and "curve" in v[0])
    assert {r["line"] for r in data} == {0}  # one level: its sweep is one line
