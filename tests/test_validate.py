"""Each validation rule on data small enough to read; --strict turns warnings into failures."""

from __future__ import annotations

import shutil
from pathlib import Path

import polars as pl
import pytest

from pipeline.build import build
from pipeline.dataset import Dataset
from pipeline.dataset.assemble import combine
from pipeline.dataset.sources import load_report
from pipeline.errors import InputErrors
from pipeline.ingest.base import ReadResult
from pipeline.language.fmt import Formatter
from pipeline.language.strings import Strings
from pipeline.schema import INTERVAL_FIELDS, conform
from pipeline.validate import (
    bandwidth,
    completeness,
    littles_law,
    message,
    stability,
    steady_state,
    where,
)
from tests.conftest import FS840, typst_text

REPORT = load_report(FS840)
EN = Formatter(Strings("en"))


def _data(rows: list[tuple[int, int, float, float, float]], block: int = 4096) -> Dataset:
    """(parallelism, interval, iops, latency µs, bytes per I/O) for one host, 100 % read."""
    frame = pl.DataFrame(
        {
            "system": "S",
            "setup": "default",
            "tool": "iogen",
            "access": "random",
            "read_pct": 100.0,
            "block_size": block,
            "parallelism": [r[0] for r in rows],
            "queue_depth": 1,
            "host": "h",
            "interval": [r[1] for r in rows],
            "interval_s": 10.0,
            "iops": [r[2] for r in rows],
            "bytes_per_s": [r[2] * r[4] for r in rows],
            "lat_mean_us": [r[3] for r in rows],
            "source": "f",
            "line": list(range(1, len(rows) + 1)),
        }
    )
    return combine([ReadResult(conform(frame, INTERVAL_FIELDS), [], len(rows))])


def test_littles_law_warns_with_the_point_named() -> None:
    ok = _data([(4, 1, 4000.0, 1000.0, 4096)])  # 4 in flight = 1 × 4 × 1
    assert littles_law(ok, REPORT) == []
    off = _data([(4, 1, 4000.0, 2000.0, 4096)])  # 8 in flight
    (problem,) = littles_law(off, REPORT)
    assert where(problem, EN) == "default: 4K random 100% read, parallelism 4, queue depth 1"
    assert message(problem, EN) == (
        "IOPS × latency gives 8.0 I/Os in flight, but servers × "
        "parallelism × queue depth gives 4 (Little)"
    )


def test_bandwidth_must_match_iops_times_block_size() -> None:
    assert bandwidth(_data([(1, 1, 1000.0, 1000.0, 4096)]), REPORT) == []
    assert len(bandwidth(_data([(1, 1, 1000.0, 1000.0, 4300)]), REPORT)) == 1  # +5 %


def test_stability_flags_deviation_above_ten_percent() -> None:
    steady = _data([(1, 1, 1000.0, 1000.0, 4096), (1, 2, 1050.0, 1000.0, 4096)])
    assert stability(steady, REPORT) == []
    shaky = _data([(1, 1, 1000.0, 1000.0, 4096), (1, 2, 1400.0, 1000.0, 4096)])
    assert [p.rule for p in stability(shaky, REPORT)] == ["stability"]


def test_snia_steady_state_over_the_last_five_intervals() -> None:
    flat = _data([(1, i, 1000.0 + i, 1000.0, 4096) for i in range(1, 8)])
    assert steady_state(flat, REPORT) == []
    rising = _data([(1, i, 1000.0 * (1 + 0.05 * i), 1000.0, 4096) for i in range(1, 8)])
    (problem,) = steady_state(rising, REPORT)
    assert "slope excursion" in message(problem, EN)
    short = _data([(1, i, 1000.0 * i, 1000.0, 4096) for i in range(1, 4)])
    assert steady_state(short, REPORT) == []  # fewer than five intervals: not judged


def test_missing_cells_of_the_matrix() -> None:
    data = _data([(1, 1, 100.0, 1000.0, 4096), (2, 1, 200.0, 1000.0, 4096)])
    assert completeness(data, REPORT) == []
    other_mix = data.points.with_columns(pl.lit(0.0).alias("read_pct")).filter(
        pl.col("parallelism") == 1
    )
    gap = Dataset(data.intervals, pl.concat([data.points, other_mix]))
    (problem,) = completeness(gap, REPORT)
    assert where(problem, EN).endswith("100% write, parallelism 2, queue depth 1")


def test_strict_turns_warnings_into_failures(tmp_path: Path) -> None:
    a800 = FS840.parent / "a800"
    with pytest.raises(InputErrors) as caught:
        build(a800, tmp_path / "strict", strict=True)
    assert "(Little)" in str(caught.value)
    assert not (tmp_path / "strict").exists()
    result = build(a800, tmp_path / "lenient")
    found = (result.out / "validation.csv").read_text(encoding="utf-8")
    assert '"littles-law","warning"' in found


@pytest.mark.slow
def test_problems_appear_in_the_report(tmp_path: Path) -> None:
    report = tmp_path / "report"
    shutil.copytree(FS840.parent / "a800", report)
    result = build(report, tmp_path / "out")
    typ = typst_text((result.out / "a800.de.typ").read_text(encoding="utf-8"))
    # the customer paper: one row per rule with its count and first finding, the rule
    # by its name in the language, never its id
    assert "Validierungsbefunde je Regel" in typ and "IOs in Bearbeitung" in typ
    assert typ.count("Littles Gesetz") == 1 and "littles-law" not in typ
    csv = (result.out / "validation.csv").read_text(encoding="utf-8")
    assert csv.count("littles-law") > 1  # every finding stays in validation.csv
    toml = report / "report.toml"
    toml.write_text('findings = "all"\n' + toml.read_text(encoding="utf-8"), "utf-8")
    every = build(report, tmp_path / "auditor")
    typ = typst_text((every.out / "a800.de.typ").read_text(encoding="utf-8"))
    assert "Befunde der Validierung" in typ and typ.count("Littles Gesetz") > 1


@pytest.mark.parametrize(
    ("mapping", "fmt", "warned"),
    [
        ('columns = { mb_s = "KB/s" }', "", ["KB/s"]),  # the column says KB: which KB?
        ('bandwidth_unit = "KB/s"\ncolumns = { mb_s = "KB/s" }', "", []),  # declared
        ('columns = { mb_s = "Rate" }', "", []),  # the name says no unit
        ('columns = { mb_s = "KB/s" }', 'format = "fio"\n', []),  # fio reads no mapping
    ],
)
def test_a_bandwidth_column_naming_a_unit_wants_it_declared(
    tmp_path: Path, mapping: str, fmt: str, warned: list[str]
) -> None:
    """The rule is asked of the options (``UnitOptions``), not of a format named in
    validate; a reader that does not read the mapping is not warned about it."""
    from pipeline.validate import units

    shutil.copytree(FS840, tmp_path / "r")
    toml = tmp_path / "r" / "report.toml"
    source = f'\n[[sources]]\npath = "raw/x.csv"\n{fmt}[sources.mapping]\n{mapping}\n'
    toml.write_text(toml.read_text() + source)
    (tmp_path / "r" / "raw" / "x.csv").write_text("")
    report = load_report(tmp_path / "r")
    columns = [p.values["column"] for p in units(_data([]), report)]
    assert columns == warned
