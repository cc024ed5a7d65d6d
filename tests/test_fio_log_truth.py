"""fio's interval logs beyond the plain case, each against fio's own JSON of the same run
(a helper's audit found each of these a wrong figure): a per-I/O log's last, partial
second; two jobs in one run (fio numbers its threads across them); a bw log alone with
other block sizes for reads and writes; a log of window maxima; a log of two runs; and a
point whose hosts were read from files of other kinds."""

from __future__ import annotations

import json
from typing import Any

import pytest

from pipeline import ingest
from pipeline.dataset.assemble import combine
from pipeline.errors import InputError
from pipeline.ingest.base import ReadOptions, ReadResult
from pipeline.normalise import to_points
from tests.conftest import DATA

LOGS = DATA / "fio-log"


def _read(name: str, **options: Any) -> ReadResult:
    return ingest.read(LOGS / name, ReadOptions(root=LOGS, **options))


def _jobs(stem: str, name: str | None = None) -> list[dict[str, Any]]:
    jobs = json.loads((LOGS / f"{stem}.json").read_text(encoding="utf-8"))["jobs"]
    return [j for j in jobs if name is None or j["jobname"] == name]


def _fio_iops(jobs: list[dict[str, Any]], side: str | None = None) -> float:
    return float(sum(j[s]["iops"] for j in jobs for s in ((side,) if side else ("read", "write"))))


def test_a_per_io_logs_last_partial_second_is_rejected_not_diluted() -> None:
    """2.5 s of I/O at 200 IOPS: the third second holds half a second's I/Os; counted
    over a whole second it made 166.7 IOPS of the point, and a 40 % interval deviation."""
    result = _read("tail_iops.1.log")
    assert [r.reason.key for r in result.rejects] == ["log.partial"]
    assert result.records_read == result.accepted + len(result.rejects) == 3
    point = to_points(result.intervals).row(0, named=True)
    assert point["iops"] == pytest.approx(_fio_iops(_jobs("tail")), rel=0.01)
    assert point["iops_dev_pct"] < 1


def test_a_per_io_log_without_its_runtime_leaves_out_its_last_window() -> None:
    """Without fio's JSON the job's end is unknown: the log's last window may be partial."""
    params = {"rw": "randrw", "bs": "4k", "rwmixread": 50}
    from pipeline.dataset.sources import reader_options

    result = _read("tail_iops.1.log", options=reader_options({"params": params}))
    assert [dict(r.where.values)["window"] for r in result.rejects] == ["3"]


def test_two_jobs_of_one_run_are_read_by_fios_thread_numbers() -> None:
    """[a] writes a_*.1.log, [b] with numjobs=2 b_*.2.log and b_*.3.log: b's logs were
    taken for its clones 2 and 3 of 2, and the point had one clone's IOPS."""
    b = _read("b_iops.2.log")
    assert set(b.intervals["parallelism"]) == {2}
    assert set(b.intervals["target_iops"]) == {4000.0}
    iops = to_points(b.intervals)["iops"][0]
    assert iops == pytest.approx(_fio_iops(_jobs("twojobs", "b")), rel=0.01)
    assert _read("b_iops.3.log").notes == ["clone of the job of b_iops.2.log: read with it"]
    a = to_points(_read("a_iops.1.log").intervals)
    assert a["iops"][0] == pytest.approx(_fio_iops(_jobs("twojobs", "a")), rel=0.01)


def test_a_bw_log_alone_takes_each_directions_own_block_size() -> None:
    """bs=4k,16k: the writes' 16 KiB/s per I/O were divided by the reads' 4 KiB (4,003
    write IOPS for 1,000)."""
    point = to_points(_read("bwonly_bw.1.log").intervals).row(0, named=True)
    (job,) = _jobs("bwonly")
    for side in ("read", "write"):
        assert point[f"{side}_iops"] == pytest.approx(job[side]["iops"], rel=0.02), side


def test_logs_of_window_maxima_give_rates_not_latency() -> None:
    """log_max_value=1: the lat log holds each window's maximum (52 times fio's mean in an
    audit); the iops and bw logs are unchanged, so the rates are read, the latency not."""
    result = _read("maxval_iops.1.log")
    assert result.intervals["lat_mean_us"].null_count() == result.accepted > 0
    assert any("each window's maximum (log_max_value)" in n for n in result.notes)
    iops = to_points(result.intervals)["iops"][0]
    assert iops == pytest.approx(_fio_iops(_jobs("maxval")), rel=0.02)


def test_a_log_of_two_runs_is_refused_by_its_line() -> None:
    path = LOGS / "bad" / "appended" / "solo_iops.1.log"
    with pytest.raises(InputError) as raised:
        ingest.read(path, ReadOptions(root=path.parent))
    assert raised.value.where == "line 5"
    assert raised.value.message.startswith("the time starts again (200 ms after 801 ms")


def test_a_host_read_from_its_json_beside_one_read_from_its_logs_is_refused() -> None:
    """One 2.5 s interval of one host beside 1 s windows of the other: summed interval by
    interval, the first second got a whole run's rate more."""
    whole = ingest.read(LOGS / "tail.json", ReadOptions(root=LOGS, host="a"))
    windows = _read("tail_iops.1.log", host="b")
    with pytest.raises(
        InputError, match=r"host a's intervals last 2\.5\d* s, host b's \(tail_iops\.1\.log\) 1 s"
    ) as raised:
        combine([whole, windows])
    assert "read every host of a point from the same kind of file" in (raised.value.hint or "")


def test_an_interval_only_some_hosts_have_is_rejected_not_summed() -> None:
    """clonefull logged six windows, clonetail (a 2.8 s run of the same job) five: as two
    hosts of one point, window 6 held one host's I/O and counted as both hosts' sum."""
    full = _read("clonefull_iops.1.log", host="a")
    tail = _read("clonetail_iops.1.log", host="b")
    data = combine([full, tail])
    missing = [r for r in data.rejects if r.reason.key == "hosts_missing"]
    assert [dict(r.reason.values) for r in missing] == [{"n": "1", "hosts": "2", "interval": "6"}]
    assert missing[0].source == "clonefull_iops.1.log"
    assert data.records_read == data.accepted + len(data.rejects)
    assert set(data.intervals["interval"]) == {1, 2, 3, 4, 5}


def test_a_group_reported_per_io_logs_partial_second_is_rejected_too() -> None:
    """group_reporting: fio's job_runtime is the clones' sum (5,001 ms for two clones of
    2.5 s), so the partial third second passed as whole (333 IOPS for 400)."""
    result = _read("tailgr_iops.1.log")
    assert [dict(r.where.values)["window"] for r in result.rejects] == ["3"]
    iops = to_points(result.intervals)["iops"][0]
    assert iops == pytest.approx(_fio_iops(_jobs("tailgr")), rel=0.01)


def test_per_io_logs_stamped_with_the_clock_leave_out_their_first_and_last_second() -> None:
    """log_unix_epoch=1: every window was compared with the runtime and rejected."""
    result = _read("epoch_iops.1.log")
    assert result.accepted >= 1 and len(result.rejects) == 2
    assert {r.reason.key for r in result.rejects} == {"log.partial"}


def test_a_log_without_a_thread_number_is_its_own_jobs() -> None:
    """per_job_logs=0: d_iops.log has no number; it was taken as thread 1 ([c]) and refused."""
    result = _read("d_iops.log")
    assert set(result.intervals["target_iops"]) == {2000.0}
    iops = to_points(result.intervals)["iops"][0]
    assert iops == pytest.approx(_fio_iops(_jobs("nonum", "d")), rel=0.01)


def test_a_server_is_named_whole_where_it_is_an_address() -> None:
    from pipeline.ingest.fio_log import _same_server

    assert _same_server("perf36", "perf36")
    assert _same_server("perf36.lab.example", "PERF36")
    assert not _same_server("127.0.0.1", "127.0.0.2")
    assert not _same_server("10.0.0.1", "10")
    assert _same_server("10.0.0.1", "10.0.0.1") and not _same_server("perf36", "")


def test_an_empty_write_size_is_fios_default() -> None:
    """bs=8k, gives writes fio's default of 4k (its JSON's io_bytes / total_ios)."""
    from pathlib import Path

    from pipeline.ingest.fio_params import Resolver, direction_sizes

    assert direction_sizes({"bs": "8k,"}) == (8192, 4096)
    assert direction_sizes({"bs": ",16k"}) == (4096, 16384)
    assert direction_sizes({"bs": "8k"}) == (8192, 8192)
    job = {"jobname": "w", "job options": {"rw": "randwrite", "bs": "8k,"}}
    assert Resolver(Path("x"), {}, None).profile(job)["block_size"] == 4096


def test_hosts_windows_of_other_lengths_are_refused_their_whole_runs_not() -> None:
    """1 s windows beside 0.5 s ones passed a 2x bound: host b's second k was added to
    host a's half second k. fio's JSON of each host (one interval, its whole run) adds
    rates, whatever the runs' lengths."""
    import polars as pl

    full = _read("clonefull_iops.1.log", host="a")
    slower = full.intervals.with_columns(pl.lit("b").alias("host"), pl.col("interval_s") * 2)
    other = ReadResult(slower, [], slower.height, source="b.log")
    with pytest.raises(InputError, match=r"host b's intervals last 1 s, host a's .* 0\.5 s"):
        combine([full, other])
    whole = ingest.read(LOGS / "tail.json", ReadOptions(root=LOGS, host="a"))
    longer = whole.intervals.with_columns(pl.lit("b").alias("host"), pl.col("interval_s") * 3)
    data = combine([whole, ReadResult(longer, [], longer.height, source="b.json")])
    assert data.points["hosts"][0] == 2 and data.rejects == []


def test_whole_runs_of_hosts_under_repeats_mean_are_not_windows() -> None:
    """repeats = "mean" numbers each run's one interval after the last: two hosts' fio
    JSON of 2 s and 3 s runs, twice each, were refused as windows of other lengths."""
    import polars as pl

    from pipeline.dataset import alignment
    from pipeline.dataset.repeats import RUN

    base = ingest.read(LOGS / "tail.json", ReadOptions(root=LOGS)).intervals
    rows = [
        base.with_columns(
            pl.lit(host).alias("_host"),
            pl.lit(f"{host}{run}.json").alias(RUN),
            pl.lit(run).cast(base.schema["interval"]).alias("interval"),
            pl.lit(length).alias("interval_s"),
        )
        for host, length in (("a", 2.0), ("b", 3.0))
        for run in (1, 2)
    ]
    kept, rejects = alignment.aligned(pl.concat(rows))
    assert kept.height == 4 and rejects == []
    windows = pl.concat(rows).with_columns(pl.lit("one").alias(RUN))  # one run: windows
    with pytest.raises(InputError, match="intervals last 3 s"):
        alignment.aligned(windows)


def test_a_per_io_log_of_clones_one_after_the_other_counts_them_all() -> None:
    """per_job_logs=0, numjobs=2: fio writes the second clone after the first, from its
    own time 0; refused as a second run, though each I/O is a line of its own."""
    result = _read("pio0_iops.log")
    assert result.rejects == []
    iops = to_points(result.intervals)["iops"][0]
    assert iops == pytest.approx(_fio_iops(_jobs("pio0")), rel=0.01)
