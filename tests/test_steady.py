"""SNIA PTS steady state on real fio interval data (tests/data/pts, made by Debian's fio),
each verdict computed here by hand from the raw file: the last five rounds, data excursion
(max − min) ≤ 20 % and the least-squares line's excursion ≤ 10 % of the window's mean."""

from __future__ import annotations

import itertools
import json
import shutil
from pathlib import Path

import polars as pl
import pytest

from pipeline import ingest
from pipeline.build import build
from pipeline.ingest.base import ReadOptions, interval_frame
from pipeline.validate import steady_table
from tests.cli import iopress
from tests.conftest import typst_text

PTS = Path(__file__).resolve().parent / "data" / "pts"
MIXED = Path(__file__).resolve().parent / "data" / "reports" / "mixed"
WIN = Path(__file__).resolve().parent / "data" / "fio-log"


def _by_hand(values: list[float]) -> tuple[float, float]:
    window = values[-5:]
    mean = sum(window) / 5
    slope = sum((x - 2) * (y - mean) for x, y in enumerate(window)) / 10  # Σ(x − x̄)² = 10
    return (max(window) - min(window)) / mean * 100, abs(slope) * 4 / mean * 100


def _verdicts(path: Path) -> list[dict[str, object]]:
    read = ingest.read(path, ReadOptions(root=path.parent))
    frame = read.frame if read.frame is not None else interval_frame(read.rows or [])
    return list(steady_table(frame).iter_rows(named=True))


def test_a_rate_limited_fio_log_is_steady() -> None:
    log = PTS / "pts_iops.1.log"
    iops = [float(line.split(",")[1]) for line in log.read_text().splitlines()]
    data, slope = _by_hand(iops)
    (point,) = _verdicts(log)
    assert point["verdict"] == "steady" and point["rounds"] == len(iops) == 7
    assert point["data_pct"] == pytest.approx(data, rel=1e-6)
    assert point["slope_pct"] == pytest.approx(slope, rel=1e-6)


def _snapshots(path: Path) -> list[list[dict[str, float]]]:
    """Per status snapshot, per job record: its reads so far and their run time."""
    text, found, at = path.read_text(), [], 0
    decoder = json.JSONDecoder()
    while (at := text.find("{", at)) >= 0:
        doc, at = decoder.raw_decode(text, at)
        jobs = [j["read"] for j in doc["jobs"]]
        found.append([{"ios": r["total_ios"], "ms": r["runtime"]} for r in jobs])
    return found


def test_status_interval_snapshots_with_a_step_are_not_steady() -> None:
    """A second job joins after 3 s (two records, no group_reporting): a round is the sum
    of the jobs' rates between two snapshots; fio's last, short remainder is not a round."""
    snaps = _snapshots(PTS / "step.json")
    snaps = [[{"ios": 0, "ms": 0}] * len(snaps[0]), *snaps]
    rounds, lengths = [], []
    for before, after in itertools.pairwise(snaps):
        moved = [
            (b["ios"] - a["ios"], b["ms"] - a["ms"]) for a, b in zip(before, after, strict=True)
        ]
        rounds.append(sum(ios / ms * 1000 for ios, ms in moved if ms > 0))
        lengths.append(max(ms for _, ms in moved))
    full = [r for r, ms in zip(rounds, lengths, strict=True) if ms > 500]
    assert len(full) == len(rounds) - 1 and min(lengths) < 500  # the remainder
    data, slope = _by_hand(full)
    (point,) = _verdicts(PTS / "step.json")
    assert point["verdict"] == "not steady" and point["rounds"] == len(full)
    assert point["parallelism"] == 2  # the run's two jobs, also before the second joins
    assert data > 20 and point["data_pct"] == pytest.approx(data, abs=0.5)
    assert point["slope_pct"] == pytest.approx(slope, abs=0.5)


def test_four_windows_are_not_measurable() -> None:
    assert {p["verdict"] for p in _verdicts(WIN / "win_iops.1.log")} == {"not measurable"}


REPORT = """id = "pts"
author = "iopress tests"
version = "0.1"
date = 2026-11-21
title = "Steady state"
classification = "intern"
sponsor = "Test"
[system]
name = "null engine"
vendor = "fio"
[[setups]]
name = "log"
[[setups]]
name = "step"
[[sources]]
path = "raw/pts_iops.1.log"
setup = "log"
[[sources]]
path = "raw/pts_lat.1.log"
setup = "log"
[[sources]]
path = "raw/step.json"
setup = "step"
"""


def _pts_report(tmp_path: Path) -> Path:
    folder = tmp_path / "pts"
    (folder / "raw").mkdir(parents=True)
    for name in ("pts_iops.1.log", "pts_lat.1.log", "pts.json", "step.json"):
        shutil.copy(PTS / name, folder / "raw" / name)
    (folder / "report.toml").write_text(REPORT, encoding="utf-8")
    shutil.copytree(MIXED / "text", folder / "text")
    return folder


@pytest.mark.slow
def test_verdicts_in_the_appendix_csv_and_chart(tmp_path: Path) -> None:
    out = build(_pts_report(tmp_path), tmp_path / "out").out
    verdicts = pl.read_csv(out / "steady_state.csv")
    assert sorted(verdicts["verdict"].to_list()) == ["not steady", "steady"]
    warnings = pl.read_csv(out / "validation.csv").filter(pl.col("rule") == "steady-state")
    assert warnings.height == 1 and "step" in warnings["where"][0]
    de = (out / "pts.de.typ").read_text(encoding="utf-8")
    assert "1 Messpunkt eingeschwungen, 1 nicht eingeschwungen, 0 nicht beurteilbar" in de
    assert "charts/pts-1.de.svg" in de and (out / "charts" / "pts-1.en.pdf").is_file()
    assert not (out / "charts" / "pts-2.de.svg").exists()
    # the site's steady page shows the same measurement window (it showed only the table)
    page = (out / "site" / "pts_steady.html").read_text(encoding="utf-8")
    assert 'src="charts/pts/pts-1-en.svg"' in page, page[-3000:]
    drawn = out / "site" / "charts" / "pts" / "pts-1-en.svg"
    assert drawn.read_bytes() == (out / "charts" / "pts-1.en.svg").read_bytes()


def test_require_steady_refuses_a_point_that_is_not(tmp_path: Path) -> None:
    folder = _pts_report(tmp_path)
    done = iopress("build", folder, "-o", tmp_path / "out", "--require-steady")
    assert done.returncode == 1 and not (tmp_path / "out").exists()
    assert "step" in done.stderr and "not steady (SNIA PTS" in done.stderr


VDBENCH_RATES = Path(__file__).resolve().parent / "data" / "vdbench" / "vdbconvert_flatfile.html"


def test_each_target_rate_of_a_rate_sweep_is_a_point_of_its_own() -> None:
    """vdbench measured one profile at one thread count at three request rates
    (iorate 50, 500, 5000): three points, each judged on its own rounds, as if the file
    held it alone; the rounds were summed across the rates before."""
    read = ingest.read(VDBENCH_RATES, ReadOptions(root=VDBENCH_RATES.parent))
    intervals = read.frame if read.frame is not None else interval_frame(read.rows or [])
    together = steady_table(intervals).sort("target_iops")
    assert together["target_iops"].to_list() == [50.0, 500.0, 5000.0]
    for row in together.iter_rows(named=True):
        alone = steady_table(intervals.filter(pl.col("target_iops") == row["target_iops"]))
        assert alone.to_dicts() == [row]


def _rates_report(folder: Path) -> Path:
    """The mixed test report with the vdbench rate sweep as its only raw file."""
    shutil.copytree(MIXED, folder, ignore=shutil.ignore_patterns("raw"))
    (folder / "raw").mkdir()
    shutil.copy(VDBENCH_RATES, folder / "raw" / "flatfile.html")
    toml = (folder / "report.toml").read_text(encoding="utf-8")
    toml = toml[: toml.index("[[sources]]")] + '[[sources]]\npath = "raw/flatfile.html"\n'
    (folder / "report.toml").write_text(toml, encoding="utf-8")
    return folder


def test_the_appendix_names_each_target_rate(tmp_path: Path) -> None:
    from pipeline.prepare import prepare
    from pipeline.render.whitepaper import body

    typ = typst_text(body(prepare(_rates_report(tmp_path / "rates")), "en"))  # as built
    for rate in ("50", "500", "5,000"):
        assert typ.count(f"target rate {rate} IOPS") >= 2, rate  # deviation and steady state


def test_a_rate_sweeps_figures_trace_to_their_own_rates_lines(tmp_path: Path) -> None:
    """The tables name the target rate of the point each row is read at, and the
    manifest traces the row to that rate's raw lines only (it listed all three runs')."""
    from pipeline.manifest import figures
    from pipeline.prepare import prepare

    ctx = prepare(_rates_report(tmp_path / "rates"))
    # a rate's intervals and its run's avg_ line (the run's whole record: its CPU)
    assert ctx.dataset.references is not None
    rows = pl.concat([ctx.dataset.intervals, ctx.dataset.references])
    own = {
        rate: set(rows.filter(pl.col("target_iops") == rate)["line"].to_list())
        for rate in (50.0, 500.0, 5000.0)
    }
    traced = [f for f in figures(ctx) if f["table"] in ("performance", "min_latency")]
    assert traced
    for figure in traced:
        rate = next(
            g["value"]
            for g in traced
            if g["row"] == figure["row"]
            and g["table"] == figure["table"]
            and g["column"] == "target_iops"
        )
        lines = {n for d in figure["derived_from"] for n in d["lines"]}
        assert lines and lines <= own[rate], (figure["row"], rate)


def test_a_rate_sweep_is_charted_as_latency_over_the_rate(tmp_path: Path) -> None:
    from pipeline.prepare import prepare

    ctx = prepare(_rates_report(tmp_path / "rates"))
    assert [r.kind for r in ctx.charts] == ["response"]
