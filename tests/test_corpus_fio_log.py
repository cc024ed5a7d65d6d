"""fio interval logs from public projects (shared/corpus); skipped when it is absent."""

from __future__ import annotations

import polars as pl
import pytest

from pipeline import ingest
from pipeline.errors import InputError
from pipeline.ingest.base import ReadOptions
from pipeline.ingest.fio_log import FioParams
from tests.conftest import SHARED

CORPUS = SHARED / "corpus"
pytestmark = pytest.mark.skipif(not CORPUS.is_dir(), reason="shared/corpus not present")
SWEEP = CORPUS / "fio-3.33-null-generated" / "logs"
# each corpus project is read like a report folder: sidecars only from inside it
NULL_ROOT = ReadOptions(root=CORPUS / "fio-3.33-null-generated")
PBENCH_ROOT = ReadOptions(root=CORPUS / "fio-pbench")
# sweep.fio: six sections x numjobs=2, logs numbered 1..12 across the clones
SECTIONS = [
    ("random", 100.0, 1),
    ("random", 100.0, 8),
    ("random", 70.0, 1),
    ("random", 70.0, 8),
    ("random", 0.0, 1),
    ("random", 0.0, 8),
]


@pytest.mark.parametrize("clone", range(1, 13, 2))
def test_sweep_logs_match_their_job_sections(clone: int) -> None:
    result = ingest.read(SWEEP / f"sweep_iops.{clone}.log", NULL_ROOT)
    assert result.accepted >= 2
    access, read_pct, depth = SECTIONS[(clone - 1) // 2]
    rows = result.intervals
    assert set(rows["access"]) == {access}
    assert set(rows["read_pct"]) == {read_pct}
    assert set(rows["queue_depth"]) == {depth}
    assert set(rows["parallelism"]) == {2}
    assert set(rows["interval_s"]) == {0.25}


@pytest.mark.parametrize("clone", range(2, 13, 2))
def test_second_clone_is_read_with_the_first(clone: int) -> None:
    result = ingest.read(SWEEP / f"sweep_iops.{clone}.log", NULL_ROOT)
    assert result.skipped and result.accepted == 0
    assert result.notes == [f"clone of the job of sweep_iops.{clone - 1}.log: read with it"]


@pytest.mark.parametrize("clone", range(1, 13, 2))
def test_clone_logs_add_up_to_the_jobs_json(clone: int) -> None:
    """numjobs=2, per_job_logs: both clones' logs summed per window agree with fio's own
    JSON (group_reporting) for the same run, within the windowing error."""
    import json

    doc = json.loads((SWEEP.parent / "sweep.jsonplus.json").read_text(encoding="utf-8"))
    job = doc["jobs"][(clone - 1) // 2]
    theirs = job["read"]["iops"] + job["write"]["iops"]
    result = ingest.read(SWEEP / f"sweep_iops.{clone}.log", NULL_ROOT)
    ours = result.intervals["iops"].mean()
    assert isinstance(ours, float)
    assert abs(ours - theirs) / theirs < 0.15, (ours, theirs)
    assert {p.name for p in result.sidecars} >= {
        f"sweep_iops.{clone + 1}.log",
        "sweep.jsonplus.json",
    }


def test_client_server_logs_belong_to_their_host() -> None:
    folder = CORPUS / "fio-pbench" / "fio-0-fio3.7-clientserver" / "clients" / "perf36"
    result = ingest.read(folder / "fio_iops.1.log", PBENCH_ROOT)
    assert set(result.intervals["host"]) == {"perf36"}
    assert result.accepted == 15
    assert result.intervals.filter(pl.col("lat_mean_us") <= 0).is_empty()


def test_logs_without_parameters_need_them_from_the_configuration() -> None:
    import tarfile
    import tempfile
    from pathlib import Path

    with tempfile.TemporaryDirectory() as tmp:
        with tarfile.open(CORPUS / "fio-upstream-plot-samples" / "fio-logs.tar.gz") as tar:
            tar.extractall(tmp, filter="data")
        log = next(Path(tmp).rglob("*-read-para.results_iops.log"))
        with pytest.raises(InputError, match="no fio JSON or job file"):
            ingest.read(log, ReadOptions(), "fio-log")
        configured = ReadOptions(
            options={"params": FioParams(rw="read", bs="128k", log_avg_msec=500, latency_unit="us")}
        )
        result = ingest.read(log, configured, "fio-log")
        assert result.accepted > 100  # bw and iops logs only: IOPS and bandwidth, no latency
        assert result.intervals["lat_mean_us"].null_count() == result.accepted
        assert set(result.intervals["block_size"]) == {128 * 1024}
        assert any("latency stays empty" in n for n in result.notes)


def test_histogram_logs_are_refused_clearly() -> None:
    log = CORPUS / "fio-perfkitbenchmarker" / "pkb_fio_avg_1506559526.49_clat_hist.1.log"
    with pytest.raises(InputError, match=r"histogram logs .* not supported yet"):
        ingest.read(log, ReadOptions(), "fio-log")
    with pytest.raises(InputError, match=r"histogram logs .* not supported yet"):
        ingest.read(log, ReadOptions())  # sniffed: was "format not recognised"


def test_client_server_logs_take_their_hosts_records_of_the_runs_json() -> None:
    """pbench's client/server JSON keeps its records in client_stats: the logs were read
    with fio.job instead, as another run, and a build that kept "newest" added perf84's
    whole 15 s run to perf36's first second (16 % too many IOPS). Read with their JSON,
    the logs are that run's second view: its figures are the JSON's."""
    from pipeline.dataset.assemble import combine

    run = CORPUS / "fio-pbench" / "fio-0-fio3.7-clientserver"
    log = ingest.read(run / "clients" / "perf36" / "fio_iops.1.log", PBENCH_ROOT)
    assert log.notes[0].startswith("parameters from fio-result.txt;")
    whole = ingest.read(run / "fio-result.txt", PBENCH_ROOT)
    data = combine([whole, log], hosts=lambda names: {n: n.split(":")[0] for n in names})
    assert {r.reason.key for r in data.rejects} == {"read_twice"}
    (point,) = data.points.iter_rows(named=True)
    assert point["iops"] == pytest.approx(93_303.65, rel=1e-6)  # perf36 + perf84 records


def test_a_log_that_holds_two_runs_is_refused() -> None:
    """fio 2.x appended each run to the same log: the m2sw1 randwrite logs start again
    at 0 ms after 60 s; their windows mixed both runs."""
    import tarfile
    import tempfile
    from pathlib import Path

    with tempfile.TemporaryDirectory() as tmp:
        with tarfile.open(CORPUS / "fio-upstream-plot-samples" / "fio-logs.tar.gz") as tar:
            tar.extractall(tmp, filter="data")
        log = next(Path(tmp).rglob("m2sw1-128k-sdb-randwrite-para.results_iops.log"))
        params = FioParams(rw="randwrite", bs="128k", log_avg_msec=500, latency_unit="us")
        with pytest.raises(InputError, match=r"line 68: the time starts again \(0 ms after"):
            ingest.read(log, ReadOptions(options={"params": params}), "fio-log")
