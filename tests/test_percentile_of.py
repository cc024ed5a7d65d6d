"""What latency percentiles are of. fio measures them for its completion latency (clat)
unless a job sets lat_percentiles=1; the tables' mean service time is its total latency
(lat). With fio's null engine the clat p99.99 (1.8 µs) lay below the lat mean (51 µs), both
drawn as "service time": the dataset now says which (``percentile_of``) and the chart,
its caption, alt text and the method say "completion latency" where they are clat."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import polars as pl
import pytest

from pipeline import ingest
from pipeline.charts.family import percentiles_chart
from pipeline.ingest.base import ReadOptions, ReadResult
from pipeline.language.fmt import Formatter
from pipeline.language.strings import Strings
from pipeline.normalise import to_points
from pipeline.prepare import prepare
from pipeline.render.whitepaper import _chart_sentences
from pipeline.report.plan import figures
from tests.conftest import DATA

JSONPLUS = DATA / "fio" / "jsonplus.json"
SWEEP = DATA / "fio-sweep" / "1m_r0" / "write-1-16.json"


def _both(path: Path) -> tuple[ReadResult, ReadResult]:
    """The file read by the fast path (several files at once) and by the reader of one."""
    job: ingest.Job = (path, ReadOptions(label=path.name, root=path.parent), None)
    fast = ingest._read_fast([job])[0]
    assert fast is not None, "the fast path left the file to the reader of one"
    kind, slow = ingest._read_one(job)
    assert kind == "ok", slow
    return fast[1], slow


def _with_lat_table(tmp_path: Path) -> Path:
    """fio's json+ fixture as a job with lat_percentiles=1 writes it: a table in lat_ns
    (here clat's, each value doubled, so the two can be told apart)."""
    doc: dict[str, Any] = json.loads(JSONPLUS.read_text(encoding="utf-8"))
    read = doc["jobs"][0]["read"]
    read["lat_ns"]["percentile"] = {k: v * 2 for k, v in read["clat_ns"]["percentile"].items()}
    path = tmp_path / "lat.json"
    path.write_text(json.dumps(doc, indent=2), encoding="utf-8")
    return path


def test_fio_s_default_percentiles_are_of_its_completion_latency() -> None:
    table = json.loads(SWEEP.read_text(encoding="utf-8"))["jobs"][0]["write"]
    for result in _both(SWEEP):
        [row] = result.intervals.to_dicts()
        assert row["percentile_of"] == "clat"
        assert row["lat_p9999_us"] == table["clat_ns"]["percentile"]["99.990000"] / 1000
        assert row["lat_mean_us"] == pytest.approx(table["lat_ns"]["mean"] / 1000)
        assert row["lat_p9999_us"] < row["lat_mean_us"]  # what the label must explain


def test_percentiles_of_the_total_latency_are_taken_first(tmp_path: Path) -> None:
    path = _with_lat_table(tmp_path)
    clat = json.loads(JSONPLUS.read_text(encoding="utf-8"))["jobs"][0]["read"]["clat_ns"]
    for result in _both(path):
        [row] = result.intervals.to_dicts()
        assert row["percentile_of"] == "lat"
        assert row["lat_p99_us"] == pytest.approx(2 * clat["percentile"]["99.000000"] / 1000)


def test_a_record_without_percentiles_says_of_nothing(tmp_path: Path) -> None:
    doc: dict[str, Any] = json.loads(JSONPLUS.read_text(encoding="utf-8"))
    del doc["jobs"][0]["read"]["clat_ns"]["percentile"]
    path = tmp_path / "none.json"
    path.write_text(json.dumps(doc, indent=2), encoding="utf-8")
    for result in _both(path):
        [row] = result.intervals.to_dicts()
        assert row["percentile_of"] is None and row["lat_p99_us"] is None


def test_a_point_of_hosts_measured_both_ways_is_of_the_completion_latency(
    tmp_path: Path,
) -> None:
    """The largest of the hosts' percentiles (an upper bound) of lat and of clat: the
    point claims the lesser, clat."""
    lat = ingest.read(_with_lat_table(tmp_path), ReadOptions(label="a", host="a"))
    clat = ingest.read(JSONPLUS, ReadOptions(label="b", host="b"))
    assert lat.intervals["percentile_of"].to_list() == ["lat"]
    points = to_points(pl.concat([lat.intervals, clat.intervals]))
    assert points["percentile_of"].to_list() == ["clat"]
    assert points["hosts"].to_list() == [2]
    assert to_points(lat.intervals)["percentile_of"].to_list() == ["lat"]


def test_the_chart_caption_and_method_say_completion_latency() -> None:
    ctx = prepare(DATA / "fio-levels" / "qd")
    drawn = [r for r in ctx.charts if r.kind == "percentiles"]
    assert drawn and all(r.clat for r in drawn)
    for lang, words in (("en", "completion latency"), ("de", "Completion Latency")):
        fmt = ctx.formatter(lang)
        captions = figures(ctx.charts, False, fmt)
        for ref in drawn:
            caption, alt = captions[ref.stem]
            assert words in caption and "fio clat" in caption and "clat" in alt
        method = " ".join(_chart_sentences(ctx, fmt, [100.0]))
        assert "lat_percentiles=1" in method
    fmt = Formatter(Strings("en"))
    ref = drawn[0]
    spec = percentiles_chart(ctx.dataset.points.filter(pl.col("block_size") == ref.block_size), fmt)
    text = json.dumps(spec.to_dict())
    assert "Completion latency (clat)" in text and "completion latency percentiles" in text


def test_percentiles_of_the_service_time_keep_the_service_time_words(tmp_path: Path) -> None:
    lat = ingest.read(_with_lat_table(tmp_path), ReadOptions(label="a"))
    points = to_points(lat.intervals)
    fmt = Formatter(Strings("en"))
    text = json.dumps(percentiles_chart(points, fmt).to_dict())
    assert "Service time" in text and "clat" not in text


def test_a_lat_table_of_zeros_gives_way_to_the_clat_table(tmp_path: Path) -> None:
    """A percentile table of total latency whose every value is 0 hid the completion
    latency's real one (the row had no percentiles at all)."""
    doc: dict[str, Any] = json.loads(JSONPLUS.read_text(encoding="utf-8"))
    read = doc["jobs"][0]["read"]
    read["lat_ns"]["percentile"] = dict.fromkeys(read["clat_ns"]["percentile"], 0)
    path = tmp_path / "zeros.json"
    path.write_text(json.dumps(doc, indent=2), encoding="utf-8")
    for result in _both(path):
        [row] = result.intervals.to_dicts()
        assert row["percentile_of"] == "clat"
        assert row["lat_p99_us"] == read["clat_ns"]["percentile"]["99.000000"] / 1000


def test_percentiles_of_jobs_reported_one_by_one_are_said_to_be_an_upper_bound() -> None:
    """fio without group_reporting prints one record per job clone; their percentiles are
    combined as the largest (an upper bound), on one host as on several: the method's
    caveat was said only where a point ran on several hosts."""
    from pipeline import ingest
    from pipeline.dataset.assemble import combine
    from pipeline.ingest.base import ReadOptions
    from pipeline.render.whitepaper import _percentiles_combined
    from tests.conftest import DATA

    clones = DATA / "fio-log" / "clonefull.json"  # numjobs=3, one host
    data = combine([ingest.read(clones, ReadOptions(root=clones.parent), "fio")])
    assert data.points["hosts"].to_list() == [1]
    assert _percentiles_combined(data.intervals)
    one = data.intervals.head(1)
    assert not _percentiles_combined(one)
