"""The vendor's published figures beside the measured ones: each beside the row it names,
and none left out of every table without a word (fs820's five were: its tables show each
profile per setup and queue depth, and a figure was shown only where neither varied)."""

from __future__ import annotations

from pathlib import Path

import polars as pl
import pytest

from pipeline.errors import InputErrors
from pipeline.prepare import prepare
from pipeline.report.views import Span
from tests.conftest import ROOT, edited_copy

FS820 = ROOT / "data" / "examples" / "fs820"
FIRST = 'setup = "2links-mpio"\nqueue_depth = 4\n'


def _cells(view_rows: list[list[list[Span]]]) -> list[tuple[str, str]]:
    """(row label, text) of every vendor span of a table."""
    return [
        (row[0][0].text, span.text)
        for row in view_rows
        for cell in row[1:]
        for span in cell
        if span.style == "vendor"
    ]


def test_fs820_s_figures_stand_beside_the_rows_they_name() -> None:
    ctx = prepare(FS820)
    views = ctx.views(ctx.formatter("en"))
    perf = _cells(views["performance"].rows)
    assert (
        "4K random IOPS (two FC links with Multipath I/O (MPIO), QD\u00a04)",
        "525,000 (IBM)",
    ) in perf
    assert len(perf) == 4 and all("(IBM)" in text for _, text in perf)
    latency = _cells(views["min_latency"].rows)
    assert [text for _, text in latency] == ["110\u00a0µs (IBM)"]
    assert "QD\u00a01)" in latency[0][0] and "two FC links" in latency[0][0]


def _fs820(tmp_path: Path, old: str, new: str) -> Path:
    return edited_copy(FS820, tmp_path / "fs820", old, new)


@pytest.mark.parametrize(
    ("old", "new", "said", "hint"),
    [
        (
            FIRST,
            "",
            "vendor_figures[0] (line 96): the tables show 4K random 100 % read in several "
            "rows (setup 1link, 2links-mpio, cdm-1link, cdm-2links-mpio)",
            'name its row: setup = "cdm-2links-mpio"',
        ),
        (
            FIRST,
            'setup = "2links-mpio"\n',
            "in several rows (queue_depth 1, 2, 4, 8, 16, 32, 64, 128)",
            "name its row: queue_depth = 128",
        ),
        (
            'metric = "iops"\n' + FIRST,
            'metric = "bytes_per_s"\n' + FIRST,
            "a bytes_per_s figure of random access: the tables show random profiles as iops",
            'give it as metric = "iops"',
        ),
        (
            FIRST,
            'setup = "2links-mpio"\nqueue_depth = 3\n',
            "no row of the tables shows 4K random 100 % read (setup 2links-mpio, queue_depth "
            "3): the figure would be shown beside none",
            "or remove it",
        ),
    ],
)
def test_a_figure_no_row_would_show_is_refused_with_its_line(
    tmp_path: Path, old: str, new: str, said: str, hint: str
) -> None:
    with pytest.raises(InputErrors) as caught:
        prepare(_fs820(tmp_path, old, new))
    (problem,) = caught.value.errors
    assert said in f"{problem.where}: {problem.message}" and hint in problem.hint


def test_a_figure_of_a_table_the_report_does_not_show_is_refused(tmp_path: Path) -> None:
    """report.toml's tables left out the performance table: an IOPS figure checked
    against the measured points passed, and was printed nowhere (a reviewer's find)."""
    folder = _fs820(tmp_path, 'tables = ["performance", "min_latency"]', 'tables = ["min_latency"]')
    with pytest.raises(InputErrors) as caught:
        prepare(folder)
    said = [f"{e.where}: {e.message}" for e in caught.value.errors]
    assert len(said) == 4, said  # the four rates; the latency figure has its table
    assert all("shows no table of I/O rates (report.toml tables)" in s for s in said), said


def test_a_latency_figure_where_no_point_has_a_latency_says_so() -> None:
    """Only CrystalDiskMark (no latency): the minimum-latency table, though listed in
    tables, is left out for printing nothing; the error said to add it to tables."""
    from pipeline.compute import registry
    from pipeline.config import VendorFigure
    from pipeline.report.views import vendor_problems

    figure = VendorFigure.model_validate(
        {"access": "random", "block_size": "4K", "read_pct": 100, "metric": "lat_mean_us"}
        | {"value": 110}
    )
    tables = {"min_latency": pl.DataFrame(schema={"lat_mean_us": pl.Float64})}
    empty = registry.view_rows(tables, [], "latency_grid")
    assert empty is not None and empty.is_empty()
    (problem,) = vendor_problems([figure], {"latency_grid": empty}, Path("report.toml"))
    assert "no measured point has a latency, so the report shows no such table" in problem.message
    assert "add that table" not in problem.hint
