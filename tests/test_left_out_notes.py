"""A chart not drawn is named in the documents' note unless its stand-in is drawn for the
same data (not merely somewhere in the document), and a queue-depth grid's column of one
depth, left out of the grid, is named too."""

from __future__ import annotations

from pathlib import Path

import polars as pl
import pytest

from pipeline.prepare import prepare
from pipeline.report.context import ReportContext
from pipeline.report.plan import chart_plan, left_out, left_out_note
from tests.conftest import ROOT
from tests.test_chart_dots import CDM, _report


@pytest.fixture(scope="module")
def fs840() -> ReportContext:
    return prepare(ROOT / "data" / "examples" / "fs840")


def _three_profiles(points: pl.DataFrame) -> pl.DataFrame:
    """4K random swept over parallelism (standard chart), 8K random at one level over
    three queue depths (its stand-in, a queue-depth chart), 64K random at one level and one
    depth: flat as a standard and as a queue-depth chart."""
    one = (pl.col("parallelism") == 1) & (pl.col("access") == "random")
    eight = points.filter(one & (pl.col("block_size") == 8192))
    depths = [eight.with_columns(queue_depth=pl.lit(d, pl.Int64)) for d in (1, 4, 16)]
    four = points.filter(pl.col("block_size") == 4096)
    return pl.concat([four, *depths, points.filter(one & (pl.col("block_size") == 65536))])


def test_a_stand_in_drawn_for_other_data_does_not_hide_a_chart(fs840: ReportContext) -> None:
    points, where = _three_profiles(fs840.dataset.points), fs840.folder / "report.toml"
    drawn = [r.stem for r in chart_plan(fs840.report, points, where)]
    assert drawn == ["standard_random_4k_qd1", "queue_depth_random_8k"]
    out = [r.stem for r in left_out(fs840.report, points, where)]
    assert out == ["standard_random_64k_qd1", "queue_depth_random_64k"]
    note = left_out_note(left_out(fs840.report, points, where), fs840.formatter("en"))
    assert "64K random" in note and "8K random" not in note and " 4K random" not in note


def test_a_stand_in_drawn_for_the_same_data_names_nothing(fs840: ReportContext) -> None:
    """The 8K standard chart at each depth is flat, but its queue-depth chart is drawn."""
    points, where = _three_profiles(fs840.dataset.points), fs840.folder / "report.toml"
    assert not any("8k" in r.stem for r in left_out(fs840.report, points, where))


def test_a_grid_column_of_one_depth_is_named(tmp_path: Path) -> None:
    """CrystalDiskMark 6: 4K random at Q1T1, Q32T1 and Q8T8; the grid leaves out the
    column of parallelism 8 (one depth), and the note names it in both languages."""
    ctx = prepare(_report(tmp_path / "cdm6", {"ssd": CDM / "cdm6.txt"}))
    column = [r for r in ctx.left_out() if r.stem == "queue_depth_random_4k_p8"]
    assert [r.key() for r in column] == [
        {"access": "random", "block_size": 4096, "setup": "default", "parallelism": 8}
    ]
    en = left_out_note(ctx.left_out(), ctx.formatter("en"))
    assert "4K random: IOPS against queue depth, parallelism 8" in en
    de = left_out_note(ctx.left_out(), ctx.formatter("de"))
    assert "IOPS über der Queue Depth, Parallelität 8" in de


def test_a_flat_chart_gets_its_stand_in_where_the_kind_is_drawn_for_others(
    fs840: ReportContext,
) -> None:
    """report.toml asks for standard charts and 4K's queue-depth chart; 8K is measured at
    one parallelism over three depths, so its standard charts are flat. Its queue-depth
    chart stands in (it was not drawn, the kind being drawn for 4K, and 8K was named as
    left out with its data in no chart)."""
    from pipeline.config import ChartSpec

    random = pl.col("access") == "random"
    points = fs840.dataset.points
    four = points.filter(random & (pl.col("block_size") == 4096))
    eight = points.filter(random & (pl.col("block_size") == 8192) & (pl.col("parallelism") == 1))
    depths = [
        f.with_columns(queue_depth=pl.lit(d, pl.Int64)) for f in (four, eight) for d in (1, 4)
    ]
    report = fs840.report.model_copy(
        update={
            "charts": [
                ChartSpec(kind="standard"),
                ChartSpec(kind="queue_depth", profiles=["4K random"]),
            ]
        }
    )
    where = fs840.folder / "report.toml"
    drawn = [r.stem for r in chart_plan(report, pl.concat(depths), where)]
    assert "queue_depth_random_8k" in drawn and "queue_depth_random_4k" in drawn
    assert not [r.stem for r in left_out(report, pl.concat(depths), where) if "8k" in r.stem]


def test_charts_left_out_beyond_those_named_are_in_the_manifest(tmp_path: Path) -> None:
    """The note names three charts and counts the others; it says where they all are,
    and manifest.json lists each of them with its reason."""
    from pipeline.language import Formatter, Strings
    from pipeline.manifest import charts
    from pipeline.report.plan import NAMED, ChartRef

    blocks = (4096, 8192, 16384, 32768, 65536)
    refs = [ChartRef("setups", f"setups_random_{b}", "random", b, alone=True) for b in blocks]
    note = left_out_note(refs, Formatter(Strings("en")))
    more = f"and {len(blocks) - NAMED} more (manifest.json lists every chart left out)."
    assert note.endswith(more), note
    ctx = prepare(_report(tmp_path / "cdm6", {"ssd": CDM / "cdm6.txt"}))
    listed = [c for c in charts(ctx) if not c["drawn"]]
    assert listed and {c["stem"] for c in listed} == {r.stem for r in ctx.left_out()}
    assert all(c["why"] for c in listed)


@pytest.mark.parametrize(
    ("lang", "said"), [("en", " and one more (manifest.json"), ("de", " und ein weiteres (")]
)
def test_one_chart_beyond_those_named_is_one(lang: str, said: str) -> None:
    """Four charts left out: "… und 1 weitere" (an adjective of no noun)."""
    from pipeline.language import Formatter, Strings
    from pipeline.report.plan import ChartRef

    blocks = (4096, 8192, 16384, 32768)
    refs = [ChartRef("setups", f"setups_random_{b}", "random", b, alone=True) for b in blocks]
    assert said in left_out_note(refs, Formatter(Strings(lang)))
