"""vdbench flatfile averages reproduce the avg_ lines of totals.html of the same run."""

from __future__ import annotations

import re
import shutil
from pathlib import Path

import polars as pl
import pytest

from pipeline import ingest
from pipeline.dataset.assemble import combine
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
        found[float(rate)] = {
            "rate": cells[0],
            "mb": cells[1],
            "resp": cells[4],
            "read_resp": cells[5],
            "write_resp": cells[6],
        }
    return found


def _close(ours: float, printed: str) -> bool:
    """Equal within the printed precision (half a unit of the last digit) plus 0.1 %."""
    places = len(printed.split(".")[1]) if "." in printed else 0
    return bool(abs(ours - float(printed)) <= 0.5 * 10**-places + 0.001 * abs(float(printed)))


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
        # each direction weighted by the I/Os it did (the observed read%), not by rdpct=75
        for side in ("read", "write"):
            ours = row[f"{side}_lat_mean_us"] / 1000
            assert _close(ours, printed[f"{side}_resp"]), (side, ours, printed)


def test_three_requested_rates_stay_three_points() -> None:
    result = ingest.read(SAMPLE / "vdbconvert_flatfile.html", ReadOptions())
    points = combine([result]).points
    assert points.height == 3
    assert set(points["intervals"].to_list()) == {59}
    assert points.filter(pl.col("parallelism") != 2).is_empty()


@pytest.mark.parametrize("name", ["vdbconvert_flatfile.html", "sequential_decimal.html"])
def test_sniffed_as_vdbench(name: str) -> None:
    assert ingest.detect(SAMPLE / name).NAME == "vdbench"


def test_totals_beside_the_flatfile_is_a_cross_check(tmp_path: Path) -> None:
    shutil.copy(SAMPLE / "vdbconvert_flatfile.html", tmp_path / "flatfile.html")
    totals = (SAMPLE / "bad" / "totals.html").read_text(encoding="utf-8")
    glued = totals.replace("13:50:00.270  avg_2-60", "13:50:00.270avg_2-60")  # as vdbench can
    assert glued != totals
    (tmp_path / "totals.html").write_text(glued, encoding="utf-8")
    result = ingest.read(tmp_path / "flatfile.html", ReadOptions())
    assert "totals.html agrees for run(s) rd1, rd2, rd3" in result.notes
    (tmp_path / "totals.html").write_text(glued.replace("50.02", "60.02"), encoding="utf-8")
    result = ingest.read(tmp_path / "flatfile.html", ReadOptions())
    assert "totals.html DIFFERS from the flatfile averages for run(s) rd1" in result.notes


def test_per_direction_split_by_observed_read_share() -> None:
    result = ingest.read(SAMPLE / "vdbconvert_flatfile.html", ReadOptions())
    row = result.intervals.row(0, named=True)  # interval 2 of rd1: rate 46, read% 80.4348
    assert row["read_iops"] == pytest.approx(46 * 0.804348)
    assert row["read_iops"] + row["write_iops"] == pytest.approx(row["iops"])


def test_each_run_has_the_cpu_load_of_its_own_avg_line() -> None:
    """vdbench measures CPU per run: its avg_ line holds the run's, and the interval rows
    carry the run before's (n/a in the first). The rate sweep's maximum (rd3) printed
    rd2's 1.35 % where vdbench's own average says 0.92 %, and rd1 had none."""
    path = DATA / "vdbench" / "vdbconvert_flatfile.html"
    header: list[str] = []
    averages = {}
    for line in path.read_text(encoding="utf-8").splitlines():
        cells = line.split()
        if cells[:1] == ["tod"]:
            header = [c.lower() for c in cells]
        elif header and len(cells) == len(header) and cells[2].startswith("avg_"):
            row = dict(zip(header, cells, strict=True))
            averages[float(row["reqrate"])] = float(row["cpu_used"])
    points = combine([ingest.read(path, ReadOptions(root=path.parent))]).points
    found = dict(zip(points["target_iops"].to_list(), points["cpu_pct"].to_list(), strict=True))
    assert found == pytest.approx(averages) and len(found) == 3


def test_the_manifest_cites_each_runs_avg_line_its_cpu_comes_from() -> None:
    """vdbench measures CPU per run: its figure is on the run's avg_ line, which the
    manifest's lines of the point must name beside the intervals'; a record of the run
    from another file (read twice) is not named."""
    from pipeline.manifest import POINT, RATE, _lines_by_point

    result = ingest.read(SAMPLE / "vdbconvert_flatfile.html", ReadOptions())
    data = combine([result])
    assert data.references is not None
    seven = pl.col("line") * 0 + 7
    other = data.references.with_columns(source=pl.lit("logs/other.log"), line=seven)
    lines = _lines_by_point(data.intervals, pl.concat([data.references, other]))
    point = data.intervals.filter(pl.col("target_iops") == 5000).row(0, named=True)
    cited = lines[tuple(point[k] for k in [*POINT, RATE])]
    assert [c["source"] for c in cited] == ["vdbconvert_flatfile.html"]
    text = (SAMPLE / "vdbconvert_flatfile.html").read_text(encoding="utf-8").splitlines()
    avg = cited[0]["lines"][-1]
    assert "avg_2-60" in text[avg - 1] and "rd3" in text[avg - 1]
    assert result.records_read == 180  # the avg_ lines are not records


def test_loops_of_one_run_definition_are_runs_of_their_own(tmp_path: Path) -> None:
    """forthreads=(2,4) repeats the RD's name in the flatfile, each loop closed by its
    avg_ line: merged, both loops took the last avg_ line's CPU and warm-up, and the
    notes compared both loops' intervals with one loop's averages."""
    text = (DATA / "vdbench" / "vdbconvert_flatfile.html").read_text(encoding="utf-8")
    lines = text.splitlines()
    rd1 = [ln for ln in lines if ln.split()[1:2] == ["rd1"]]
    again = [
        ln.replace("     2.0000    75.0000", "     4.0000    75.0000").replace(
            " 0.1092 ", " 0.9092 "
        )
        for ln in rd1
    ]
    path = tmp_path / "flatfile.html"
    path.write_text(
        "\n".join([*lines[: lines.index(rd1[-1]) + 1], *again, *lines[lines.index(rd1[-1]) + 1 :]])
        + "\n",
        encoding="utf-8",
    )
    result = ingest.read(path, ReadOptions())
    assert [n for n in result.notes if n.startswith("run rd1")][:2] == [
        "run rd1: averages agree with vdbench's avg_2-60 line",
        "run rd1 #2: averages agree with vdbench's avg_2-60 line",
    ]
    levels = result.intervals.group_by("parallelism").len().sort("parallelism")
    assert levels.rows() == [(2, 3 * 59), (4, 59)]  # rd1-rd3 at 2 threads, rd1's loop at 4


def test_a_loop_that_measures_the_same_point_again_is_not_more_load(tmp_path: Path) -> None:
    """forseekpct=(50,100) loops over a parameter the point does not name: both loops are
    random 4K at 2 threads, and their intervals were summed (100 IOPS for 50)."""
    text = (DATA / "vdbench" / "vdbconvert_flatfile.html").read_text(encoding="utf-8")
    lines = text.splitlines()
    rd1 = [ln for ln in lines if ln.split()[1:2] == ["rd1"]]
    at = lines.index(rd1[-1]) + 1
    path = tmp_path / "flatfile.html"
    path.write_text("\n".join([*lines[:at], *rd1, *lines[at:]]) + "\n", encoding="utf-8")
    result = ingest.read(path, ReadOptions())
    alone = ingest.read(DATA / "vdbench" / "vdbconvert_flatfile.html", ReadOptions())
    again = [r for r in result.rejects if r.reason.key == "vdbench.repeated"]
    assert len(again) == alone.accepted // 3 and dict(again[0].reason.values) == {"first": "rd1"}
    assert result.records_read == result.accepted + len(result.rejects)
    iops = combine([result]).points.sort("target_iops")["iops"].to_list()
    assert iops == combine([alone]).points.sort("target_iops")["iops"].to_list()
