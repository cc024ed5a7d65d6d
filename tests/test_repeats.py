"""One point measured in several runs (report.toml ``repeats``), apart from one run read in
two views (a fio JSON and its own logs). Real fio output: tests/data/fio-repeats, made
by Debian's fio with the null engine (``make fio-fixtures``)."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import polars as pl
import pytest

from pipeline.dataset.assemble import _read_twice, combine
from pipeline.errors import InputErrors
from pipeline.ingest import read
from pipeline.ingest.base import ReadOptions, ReadResult
from pipeline.prepare import prepare
from pipeline.render.whitepaper import method_sentences
from pipeline.validate import log_window
from tests.cli import iopress
from tests.conftest import DATA

REPEATS = DATA / "fio-repeats"
MIXED = DATA / "reports" / "mixed"
POINT = "default: 4K random 100% read, parallelism 1, queue depth 1 (host local)"


def _report(folder: Path, raw: Path, sources: str, top: str = "") -> Path:
    """The mixed test report with ``raw`` as its raw folder and these sources."""
    shutil.copytree(MIXED, folder, ignore=shutil.ignore_patterns("raw"))
    shutil.copytree(raw, folder / "raw")
    toml = (folder / "report.toml").read_text(encoding="utf-8")
    head = toml[: toml.index("[system]")]
    system = toml[toml.index("[system]") : toml.index("[[sources]]")]
    (folder / "report.toml").write_text(head + top + system + sources, encoding="utf-8")
    return folder


def _fio(path: Path) -> tuple[float, float, float]:
    """(IOPS, mean latency in µs, runtime in s) as fio's JSON says."""
    job = json.loads(path.read_text(encoding="utf-8"))["jobs"][0]
    read = job["read"]
    return read["iops"], read["lat_ns"]["mean"] / 1000, job["job_runtime"] / 1000


RUNS = '[[sources]]\npath = "raw/*.json"\n'


def test_three_runs_of_one_point_are_refused_naming_every_file(tmp_path: Path) -> None:
    """Three runs of one job: the build kept the first by file name, said "read 3,
    accepted 1, rejected 2", blamed "a job's JSON and its own logs" and exited 0."""
    folder = _report(tmp_path / "runs", REPEATS / "runs", RUNS)
    out = tmp_path / "out"
    run = iopress("build", str(folder), "-o", str(out))
    assert run.returncode == 1 and not out.exists()
    files = "raw/run-a.json, raw/run-b.json, raw/run-c.json"
    assert f"the point {POINT} measured in 3 runs, one in each of {files}" in run.stderr
    assert 'repeats = "newest"' in run.stderr and "JSON and its own logs" not in run.stderr


def test_newest_keeps_the_run_fio_stamped_last(tmp_path: Path) -> None:
    """run-c.json sorts last, but fio ran it first: run-b.json is the newest run."""
    folder = _report(tmp_path / "runs", REPEATS / "runs", RUNS, 'repeats = "newest"\n')
    ctx = prepare(folder)
    data = ctx.dataset
    assert data.accounting() == {"records_read": 3, "accepted": 1, "rejected": 2}
    assert data.points["source"].to_list() == ["raw/run-b.json"]
    iops, lat, _ = _fio(REPEATS / "runs" / "run-b.json")
    assert data.points["iops"].item() == pytest.approx(iops, rel=1e-9)
    assert data.points["lat_mean_us"].item() == pytest.approx(lat, rel=1e-6)
    assert sorted(r.source for r in data.rejects) == ["raw/run-a.json", "raw/run-c.json"]
    said = "than raw/run-b.json (by the time their files state;"
    assert all(said in str(r) for r in data.rejects)
    en = " ".join(method_sentences(ctx, ctx.formatter("en")))
    de = " ".join(method_sentences(ctx, ctx.formatter("de")))
    assert "several runs: it shows its most recent run, by the time its result files " in en
    assert 'repeats = "newest"' in en
    assert "gezeigt wird der jüngste Lauf, nach der Zeit, die seine Ergebnisdateien" in de


def test_mean_averages_the_runs_as_intervals(tmp_path: Path) -> None:
    """IOPS by time, latency by I/Os: as the intervals of one run are averaged."""
    folder = _report(tmp_path / "runs", REPEATS / "runs", RUNS, 'repeats = "mean"\n')
    ctx = prepare(folder)
    data = ctx.dataset
    assert data.accounting() == {"records_read": 3, "accepted": 3, "rejected": 0}
    runs = [_fio(REPEATS / "runs" / f"run-{n}.json") for n in "cab"]  # in fio's order
    seconds = sum(s for _, _, s in runs)
    iops = sum(i * s for i, _, s in runs) / seconds
    lat = sum(i * s * m for i, m, s in runs) / sum(i * s for i, _, s in runs)
    point = data.points.row(0, named=True)
    assert point["iops"] == pytest.approx(iops, rel=1e-6)
    assert point["lat_mean_us"] == pytest.approx(lat, rel=1e-6)
    assert point["intervals"] == 3
    order = data.intervals.sort("interval")["source"].to_list()
    assert order == ["raw/run-c.json", "raw/run-a.json", "raw/run-b.json"]
    said = " ".join(method_sentences(ctx, ctx.formatter("en")))
    assert "One point was measured in several runs: it shows their mean" in said


LOGS = '[[sources]]\npath = "raw/**/*.log"\n'


def test_two_runs_of_interval_logs_are_two_runs(tmp_path: Path) -> None:
    """Logs of two runs of one job (each beside its run's JSON): refused naming both;
    "newest" by the time stamp of the JSON beside each run's logs."""
    folder = _report(tmp_path / "logs", REPEATS / "logs", LOGS)
    with pytest.raises(InputErrors) as caught:
        prepare(folder)
    said = str(caught.value)
    assert "measured in 2 runs, one in each of raw/first/rep_iops.1.log, " in said
    assert "raw/second/rep_iops.1.log" in said
    toml = folder / "report.toml"
    toml.write_text('repeats = "newest"\n' + toml.read_text(encoding="utf-8"))
    data = prepare(folder).dataset
    assert data.intervals["source"].unique().to_list() == ["raw/second/rep_iops.1.log"]
    assert data.records_read == data.accepted + len(data.rejects)


def test_a_runs_json_beside_its_logs_is_one_run_not_a_repeat(tmp_path: Path) -> None:
    """Everything of both runs listed (each run's JSON and its logs): within a run the
    logs are the JSON's other view (read twice, rejected with a hint that fits); across
    runs the point is a repeat."""
    both = '[[sources]]\npath = "raw/first/"\n[[sources]]\npath = "raw/second/"\n'
    folder = _report(tmp_path / "all", REPEATS / "logs", both)
    with pytest.raises(InputErrors, match=r"one in each of raw/first/rep.json, raw/second/"):
        prepare(folder)
    toml = folder / "report.toml"
    toml.write_text('repeats = "newest"\n' + toml.read_text(encoding="utf-8"))
    data = prepare(folder).dataset
    assert data.points["source"].to_list() == ["raw/second/rep.json"]
    twice = [r for r in data.rejects if "a view of the same run" in str(r)]
    assert {r.source for r in twice} == {"raw/first/rep_iops.1.log", "raw/second/rep_iops.1.log"}
    assert all(
        "already read from raw/first/rep.json" in str(r) for r in twice if "first/" in r.source
    )
    older = [r for r in data.rejects if "older run" in str(r)]
    assert {r.source for r in older} == {"raw/first/rep.json"}
    assert data.records_read == data.accepted + len(data.rejects)


def test_a_jobs_json_and_its_own_logs_build_by_default(tmp_path: Path) -> None:
    """One run in two views is no repeat: the default rule builds it."""
    folder = _report(tmp_path / "one", REPEATS / "logs" / "first", '[[sources]]\npath = "raw/"\n')
    data = prepare(folder).dataset
    assert data.points["source"].to_list() == ["raw/rep.json"] and not data.repeats


def test_repeats_under_a_source_says_where_it_belongs(tmp_path: Path) -> None:
    folder = _report(tmp_path / "runs", REPEATS / "runs", RUNS + 'repeats = "newest"\n')
    with pytest.raises(
        InputErrors,
        match=r"line \d+: unknown key 'repeats' in sources\[0\]\n  hint: repeats is the report's",
    ):
        prepare(folder)


def test_mean_refuses_hosts_measured_a_different_number_of_times() -> None:
    """Host a in three runs, host b in one: their mean would add a's runs to nothing."""
    runs = sorted((REPEATS / "runs").glob("*.json"))
    results = [read(p, ReadOptions(label=p.name), "fio") for p in runs]
    other = results[0].intervals.with_columns(host=pl.lit("b"), source=pl.lit("b.json"))
    results.append(ReadResult(other, [], other.height, source="b.json"))
    with pytest.raises(InputErrors, match=r"were measured in different numbers of runs"):
        combine(results, rule="mean")
    assert combine(results, rule="newest").points["hosts"].item() == 2


def test_ingest_takes_the_rule_too(tmp_path: Path) -> None:
    runs = [str(p) for p in sorted((REPEATS / "runs").glob("*.json"))]
    out = tmp_path / "runs.parquet"
    refused = iopress("ingest", *runs, "-o", str(out))
    assert refused.returncode == 1 and "measured in 3 runs" in refused.stderr
    assert not out.exists()
    kept = iopress("ingest", *runs, "-o", str(out), "--repeats", "newest")
    assert kept.returncode == 0 and kept.stdout == "read: 3, accepted: 1, rejected: 2\n"
    assert pl.read_parquet(out)["source"].to_list() == [runs[1]]  # run-b: fio ran it last


def test_a_whole_sweep_run_twice_is_one_error_per_pair_of_files(tmp_path: Path) -> None:
    """fio's 4K sweep (5 levels, one file each) copied as a second run: each level's two
    files are named once, with its point; nothing is left out."""
    sweep = sorted((DATA / "fio-sweep" / "4k_r100").glob("*.json"))
    results = [
        read(p, ReadOptions(label=f"{run}/{p.name}"), "fio") for run in ("x", "y") for p in sweep
    ]
    with pytest.raises(InputErrors) as caught:
        combine(results)
    errors = caught.value.errors
    assert len(errors) == len(sweep)
    for path, error in zip(sweep, errors, strict=True):
        assert f"2 runs, one in each of x/{path.name}, y/{path.name}" in error.message
    kept = combine(results, rule="mean")
    assert kept.points.height == len(sweep) and kept.points["intervals"].to_list() == [2] * 5


READ_TWICE = (
    "same host and point already read from basic.csv, a view of the same run (a job's JSON "
    "and its own logs describe the same I/Os): each run is read once"
)


def test_a_view_read_twice_is_found_where_its_key_has_empty_columns() -> None:
    """The rows of one run's later view are rejected point by point, whichever columns of
    the point are empty (no target rate, no profile name: an empty value matches an
    empty one) and in the order of the rows; another host's point stays."""
    first = read(DATA / "iogen" / "basic.csv", ReadOptions(system="S")).intervals
    assert first["target_iops"].is_null().all() and first["profile"].is_null().all()
    later = first.with_columns(pl.lit("later.csv").alias("source"))
    other = later.head(1).with_columns(pl.lit("elsewhere").alias("host"))
    frame = pl.concat([first, later, other])
    run_of = {"basic.csv": "basic.csv", "later.csv": "basic.csv"}
    kept, rejects, again = _read_twice(frame, run_of, set())
    assert kept.drop("_host", "_run").equals(pl.concat([first, other]))
    assert [str(r) for r in rejects] == [
        f"later.csv: line {n}: {READ_TWICE}" for n in later["line"].to_list()
    ]
    assert again.equals(later)


@pytest.mark.parametrize(
    "sources",
    [
        '[[sources]]\npath = "raw/*.log"\n[[sources]]\npath = "raw/rep.json"\n',
        '[[sources]]\npath = "raw/rep.json"\n[[sources]]\npath = "raw/*.log"\n',
    ],
    ids=["logs-first", "json-first"],
)
def test_a_runs_json_is_kept_over_its_logs_in_either_order(tmp_path: Path, sources: str) -> None:
    """The logs listed before the JSON of their run gave the point the logs' figures (fio
    writes no window for a job's last partial second: 5,412,787 IOPS against fio's
    4,736,738); fio's final record is the point's, wherever the JSON is listed, and the
    logs' rows are the ones read twice."""
    folder = _report(tmp_path / "one", REPEATS / "logs" / "first", sources)
    ctx = prepare(folder)
    data = ctx.dataset
    assert not log_window(data, ctx.report)  # the logs gave no figure: their windows no matter
    assert data.points["source"].to_list() == ["raw/rep.json"]
    iops, lat, _ = _fio(REPEATS / "logs" / "first" / "rep.json")
    assert data.points["iops"].item() == pytest.approx(iops, rel=1e-9)
    assert data.points["lat_mean_us"].item() == pytest.approx(lat, rel=1e-6)
    twice = [r for r in data.rejects if "a view of the same run" in str(r.reason)]
    assert twice and {r.source for r in twice} == {"raw/rep_iops.1.log"}
    assert all("already read from raw/rep.json" in str(r.reason) for r in twice)
    assert data.intervals["source"].unique().to_list() == ["raw/rep.json"]
    assert data.records_read == data.accepted + len(data.rejects)
