"""Ingest truth on real fio output (tests/data/fio-truth, made by Debian's fio): rate
sweeps, per-clone logs, several servers on one address, UTF-16/32 JSON, files that give
nothing. Every run a user can give counts once, correctly; a refusal writes nothing."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import polars as pl
import pytest

from pipeline import ingest
from pipeline.errors import InputError
from pipeline.ingest.base import ReadOptions, problems
from pipeline.normalise import to_points
from tests.cli import iopress

TRUTH = Path(__file__).resolve().parent / "data" / "fio-truth"


def _read(path: Path) -> ingest.ReadResult:
    return ingest.read(path, ReadOptions(root=TRUTH))


def test_two_rate_limited_jobs_are_two_points_with_target_and_achieved_rate() -> None:
    result = _read(TRUTH / "rate" / "rate.json")
    points = to_points(result.intervals).sort("target_iops")
    assert points["target_iops"].to_list() == [500.0, 2000.0]
    assert points["intervals"].to_list() == [1, 1]  # a group is a run, not an interval
    doc = json.loads((TRUTH / "rate" / "rate.json").read_text(encoding="utf-8"))
    achieved = sorted(j["read"]["iops"] for j in doc["jobs"])
    assert points["iops"].to_list() == pytest.approx(achieved)


def test_rate_in_bytes_becomes_a_target_io_rate() -> None:
    points = to_points(_read(TRUTH / "rate" / "rate_bytes.json").intervals)
    # rate=4m at 4k: 1024 IOPS; rate=2m,1m: 512 read + 256 write
    assert sorted(points["target_iops"].to_list()) == [768.0, 1024.0]


def test_per_clone_logs_add_up_to_the_runs_json() -> None:
    doc = json.loads((TRUTH / "clones" / "cl.json").read_text(encoding="utf-8"))
    for direction, column in (("read", "read_iops"), ("write", "write_iops")):
        theirs = sum(j[direction]["iops"] for j in doc["jobs"])
        ours = _read(TRUTH / "clones" / "cl_iops.1.log").intervals[column].mean()
        assert isinstance(ours, float)
        assert abs(ours - theirs) / theirs < 0.15, (direction, ours, theirs)
    second = _read(TRUTH / "clones" / "cl_iops.2.log")
    assert second.skipped and second.notes == ["clone of the job of cl_iops.1.log: read with it"]


def test_empty_slat_logs_are_skipped_with_a_note() -> None:
    for clone in (1, 2):
        result = _read(TRUTH / "clones" / f"cl_slat.{clone}.log")
        assert result.skipped and result.accepted == 0
        assert result.notes == ["empty log: nothing to read"]


def test_two_servers_on_one_address_are_two_hosts() -> None:
    result = _read(TRUTH / "cs" / "cs.json")
    assert sorted(set(result.intervals["host"])) == ["127.0.0.1:8765", "127.0.0.1:8766"]
    assert to_points(result.intervals)["hosts"].to_list() == [2]


@pytest.mark.parametrize("name", ["randread.utf16le.json", "randread.ps51.json"])
def test_utf16_with_bom_reads_like_utf8(name: str) -> None:
    plain = _read(TRUTH / "utf16" / "randread.json").intervals
    other = _read(TRUTH / "utf16" / name).intervals
    assert other.drop("source", "line").equals(plain.drop("source", "line"))


def test_utf32_with_bom_reads_like_utf8() -> None:
    plain = _read(TRUTH / "utf16" / "randread.json").intervals
    other = _read(TRUTH / "utf16" / "randread.utf32le.json").intervals
    assert other["iops"].to_list() == plain["iops"].to_list()


def test_a_file_with_no_job_is_a_problem() -> None:
    path = TRUTH / "empty" / "no_jobs.json"
    (found,) = problems(_read(path), path)
    assert found.message == "holds no job record"


def test_a_file_whose_every_record_is_rejected_is_a_problem() -> None:
    path = TRUTH / "empty" / "error.json"
    (found,) = problems(_read(path), path)
    assert found.message.startswith("none of its 1 records was accepted; the first: ")


@pytest.mark.parametrize("name", ["no_jobs.json", "error.json", "cs_dropped.json"])
def test_ingest_of_a_file_that_gives_nothing_exits_1_and_writes_nothing(
    tmp_path: Path, name: str
) -> None:
    run = iopress("ingest", str(TRUTH / "empty" / name), "-o", str(tmp_path / "d.parquet"))
    assert run.returncode == 1, run.stdout
    assert f"error: {TRUTH / 'empty' / name}" in run.stderr
    assert "Traceback" not in run.stderr
    assert list(tmp_path.iterdir()) == []


def test_messages_are_never_folded(tmp_path: Path) -> None:
    deep = tmp_path / ("a-rather-long-folder-name-" * 4) / ("another-long-one-" * 3)
    deep.mkdir(parents=True)
    shutil.copy(TRUTH / "empty" / "no_jobs.json", deep / "no_jobs.json")
    run = iopress("ingest", str(deep / "no_jobs.json"), "-o", str(tmp_path / "d.parquet"))
    assert f"error: {deep / 'no_jobs.json'}: holds no job record" in run.stderr.splitlines()


def test_rate_sweep_points_keep_their_parameters() -> None:
    rows = _read(TRUTH / "rate" / "rate.json").intervals
    assert set(rows["queue_depth"]) == {1} and set(rows["block_size"]) == {4096}
    assert rows.filter(pl.col("target_iops") == 500).height == 1


def test_repeated_profile_in_a_later_group_is_rejected_not_summed(tmp_path: Path) -> None:
    doc = json.loads((TRUTH / "rate" / "rate.json").read_text(encoding="utf-8"))
    doc["jobs"][1]["job options"] = dict(doc["jobs"][0]["job options"])
    path = tmp_path / "again.json"
    path.write_text(json.dumps(doc), encoding="utf-8")
    result = ingest.read(path, ReadOptions())
    assert result.accepted == 1 and len(result.rejects) == 1
    assert "group 1 repeats the profile of group 0" in str(result.rejects[0].reason)


def test_unknown_read_of_a_sidecar_outside_the_root_is_not_done(tmp_path: Path) -> None:
    """A log whose job JSON lies only above the root is not described by it."""
    logs = tmp_path / "report" / "raw"
    logs.mkdir(parents=True)
    for log in (TRUTH / "clones").glob("cl_*.1.log"):
        shutil.copy(log, logs / log.name)
    shutil.copy(TRUTH / "clones" / "cl.json", tmp_path / "cl.json")
    with pytest.raises(InputError, match="no fio JSON or job file describes"):
        ingest.read(logs / "cl_iops.1.log", ReadOptions(root=tmp_path / "report"))


MIXED = Path(__file__).resolve().parent / "data" / "reports" / "mixed"


def _report(tmp_path: Path, sources: str, extra: str = "", top: str = "") -> Path:
    """The mixed test report with other sources (and more report.toml: ``top`` for keys
    of the top level, ``extra`` for tables)."""
    folder = tmp_path / "report"
    shutil.copytree(MIXED, folder)
    text = (folder / "report.toml").read_text(encoding="utf-8")
    head = text[: text.index("[[sources]]")]
    (folder / "report.toml").write_text(top + head + extra + sources, encoding="utf-8")
    return folder


def test_two_servers_on_one_address_under_their_report_names(tmp_path: Path) -> None:
    from pipeline.prepare import prepare

    folder = _report(
        tmp_path,
        '[[sources]]\npath = "raw/cs.json"\n',
        '[[hosts]]\nname = "left"\nraw = ["127.0.0.1:8765"]\n'
        '[[hosts]]\nname = "right"\nraw = ["127.0.0.1:8766"]\n',
    )
    shutil.copy(TRUTH / "cs" / "cs.json", folder / "raw" / "cs.json")
    ctx = prepare(folder)
    assert sorted(set(ctx.dataset.intervals["host"])) == ["left", "right"]
    assert ctx.dataset.points["hosts"].to_list() == [2]
    assert not [p for p in ctx.problems if p.rule == "littles_law"]


@pytest.mark.parametrize(("units", "mega"), [("binary", 1024**2), ("decimal", 1e6)])
def test_vendor_figure_round_trip_is_exact(tmp_path: Path, units: str, mega: float) -> None:
    from pipeline.prepare import prepare

    figure = (
        '[[vendor_figures]]\naccess = "sequential"\nblock_size = "256K"\nread_pct = 100\n'
        'metric = "bytes_per_s"\nvalue = 8000\nunit = "MB/s"\n'
    )
    sources = '[[sources]]\npath = "raw/vdbench.html"\n'  # 256K sequential reads
    folder = _report(tmp_path, sources, top=f'units = "{units}"\n')
    with (folder / "report.toml").open("a", encoding="utf-8") as fh:
        fh.write(figure)
    ctx = prepare(folder)
    assert ctx.report.vendor_figures[0].base_value(ctx.report.units) == 8000 * mega
    assert ctx.formatter("en").bandwidth(8000 * mega, "MB/s") == "8,000"
    assert ctx.formatter("de").bandwidth(8000 * mega, "MB/s") == "8’000"


def test_a_build_with_a_file_that_gives_nothing_exits_1_and_writes_nothing(
    tmp_path: Path,
) -> None:
    folder = _report(
        tmp_path, '[[sources]]\npath = "raw/fio.json"\n[[sources]]\npath = "raw/none.json"\n'
    )
    shutil.copy(TRUTH / "empty" / "no_jobs.json", folder / "raw" / "none.json")
    out = tmp_path / "out"
    run = iopress("build", str(folder), "-o", str(out))
    assert run.returncode == 1 and "raw/none.json: holds no job record" in run.stderr
    assert not out.exists()
    assert sorted(p.name for p in tmp_path.iterdir()) == ["report"]
    kept = iopress("build", str(folder), "-o", str(out), "--keep-going")
    assert kept.returncode == 0, kept.stderr
    assert "raw/none.json: file: holds no job record" in kept.stderr


def test_clones_of_two_job_sections_in_one_group_add_up_to_the_parallelism() -> None:
    result = _read(TRUTH / "sections" / "split.json")  # [p] numjobs=1 + [q] numjobs=3
    points = to_points(result.intervals)
    assert points["parallelism"].to_list() == [4]
    doc = json.loads((TRUTH / "sections" / "split.json").read_text(encoding="utf-8"))
    assert points["iops"].item() == pytest.approx(sum(j["read"]["iops"] for j in doc["jobs"]))


def test_a_group_report_of_several_sections_is_rejected_not_read_as_fewer_jobs() -> None:
    # group_reporting over [p] numjobs=2 + [q] numjobs=2: fio names only p's options
    result = _read(TRUTH / "sections" / "grouped.json")
    assert result.intervals.is_empty()
    [reject] = result.rejects
    assert "about 4 jobs" in str(reject.reason) and "numjobs=2" in str(reject.reason)


def test_a_group_report_of_one_section_keeps_its_numjobs() -> None:
    points = to_points(_read(TRUTH / "sections" / "one.json").intervals)
    assert points["parallelism"].to_list() == [4]


SWEEP = Path(__file__).resolve().parent / "data" / "fio-sweep"
BLOCKS = {"4k": 4096, "8k": 8192, "64k": 65536, "256k": 262144, "1m": 1048576}


def test_a_real_sweep_reads_as_its_75_points() -> None:
    """bench-fio's layout (tests/data/fio-sweep): each file one point, whose block size,
    mix and parallelism are those its folder and name say it was run with."""
    files = sorted(SWEEP.glob("*/*.json"))
    read = [ingest.read(p, ReadOptions(root=SWEEP), "fio") for p in files]
    assert len(files) == 75 and all(r.accepted == r.records_read == 1 for r in read)
    for path, result in zip(files, read, strict=True):
        block, mix = path.parent.name.split("_r")
        points = to_points(result.intervals)
        assert points.height == 1, path
        point = points.row(0, named=True)
        access = "sequential" if block in ("256k", "1m") else "random"
        assert (point["block_size"], point["read_pct"]) == (BLOCKS[block], float(mix)), path
        assert (point["access"], point["parallelism"]) == (access, int(path.stem.split("-")[2]))


def test_a_fio_servers_status_snapshots_are_not_summed_as_load() -> None:
    """Servers started with --status-interval send snapshots: the client writes each as
    one more cumulative record of the same job and server in client_stats. They were
    summed as load (two servers at 500 IOPS read as ~4,000); now each server's last record
    is the run and the earlier ones are rejected, naming the record that holds the run."""
    path = TRUTH / "cs" / "cs_snapshots.json"
    result = _read(path)
    text = path.read_text(encoding="utf-8")
    doc = json.loads(text[text.index("{") :])
    records = [r for r in doc["client_stats"] if r["jobname"] != "All clients"]
    last = {r["port"]: r for r in records}  # each server's last record: the whole run
    assert len(records) > len(last) == 2
    assert result.rows is not None
    assert len(result.rows) == 2 and len(result.rejects) == len(records) - 2
    assert {r.reason.key for r in result.rejects} == {"fio.server_snapshot"}
    assert result.records_read == len(result.rows) + len(result.rejects)
    point = to_points(result.intervals)
    assert point["iops"][0] == pytest.approx(sum(r["read"]["iops"] for r in last.values()))
    # one job per server: the snapshots were counted as clones (parallelism 4, target 2,000)
    assert (point["parallelism"][0], point["target_iops"][0]) == (1, 500.0)


def test_snapshots_of_a_servers_clones_are_snapshots_too() -> None:
    """numjobs=2 on each server: every snapshot holds both clones side by side (890,
    890, 1,891, 1,890 ms ...), so no record rose on the one before and all of them were
    clones: 16 records read as parallelism 8 with 4x the load."""
    path = TRUTH / "cs" / "cs_snapshots2.json"
    result = _read(path)
    text = path.read_text(encoding="utf-8")
    doc = json.loads(text[text.index("{") :])
    records = [r for r in doc["client_stats"] if r["jobname"] != "All clients"]
    servers = {r["port"] for r in records}
    assert len(result.rows or []) == 2 * len(servers)  # two clones per server, once each
    assert {r.reason.key for r in result.rejects} == {"fio.server_snapshot"}
    assert result.records_read == len(result.rows or []) + len(result.rejects)
    point = to_points(result.intervals).row(0, named=True)
    assert (point["parallelism"], point["target_iops"]) == (2, 1000.0)
    finals = [[r for r in records if r["port"] == port][-2:] for port in servers]
    total = sum(r["read"]["iops"] for final in finals for r in final)  # the last snapshot's
    assert point["iops"] == pytest.approx(total, rel=0.01)


def test_clones_on_a_fio_server_stay_clones() -> None:
    """numjobs on a server gives records of one job name side by side (about the same
    runtime): load to add, not snapshots."""
    result = _read(TRUTH / "cs" / "cs_names.json")
    assert not [r for r in result.rejects if r.reason.key == "fio.server_snapshot"]


def _record(runtime: float, ios: float, host: str | None = "srv") -> dict[str, object]:
    side = {"total_ios": ios, "runtime": runtime, "iops": ios / runtime * 1000}
    found: dict[str, object] = {"jobname": "j", "groupid": 0, "job_runtime": runtime}
    found |= {"read": side, "write": {"total_ios": 0, "runtime": 0, "iops": 0}}
    return found | ({"hostname": host, "port": 8765} if host else {})


def test_a_local_runs_clones_are_never_a_servers_snapshots() -> None:
    """Four size-based clones of a local run finished at 467, 483, 1,957 and 1,004 ms:
    read as two clones of two snapshots, half the load was rejected (a review)."""
    from pipeline.ingest.fio_status import server_snapshots

    local = [_record(t, 1000.0, None) for t in (467.0, 483.0, 1957.0, 1004.0)]
    assert server_snapshots(local, lambda r: 2) == {}
    served = [_record(t, t) for t in (890.0, 890.0, 1891.0, 1890.0, 2896.0, 2896.0)]
    assert server_snapshots(served, lambda r: 2) == {0: 4, 1: 5, 2: 4, 3: 5}
    # group_reporting (bare, so not in fio's JSON): one record per snapshot despite numjobs
    grouped = [_record(t, t) for t in (900.0, 1900.0, 2900.0, 3900.0)]
    assert server_snapshots(grouped, lambda r: 2) == {0: 3, 1: 3, 2: 3}
    # a final record repeating the last snapshot's figures (ramp_time, a clone that ended)
    frozen = [_record(t, i) for t, i in ((1000.0, 500.0), (2000.0, 1000.0), (2000.0, 1000.0))]
    assert server_snapshots(frozen, lambda r: 1) == {0: 2, 1: 2}
