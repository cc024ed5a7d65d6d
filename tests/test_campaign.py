"""Campaigns end to end with Debian's fio: plan -> run -> build, resumed after an
interruption, locally and through two fio servers; the tables equal fio's own figures.

`make test` installs fio when missing; outside CI the fio tests skip without it."""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import polars as pl
import pytest

from pipeline import ingest
from pipeline.build import build
from pipeline.campaign import plan as planning
from pipeline.campaign.model import load_campaign
from pipeline.campaign.targets import guard, look, signatures
from pipeline.errors import InputError, InputErrors
from pipeline.ingest.base import ReadOptions
from pipeline.normalise import to_points
from tests.cli import iopress
from tests.conftest import ROOT

FIO = shutil.which("fio")
# fio runs for seconds at a low rate: these tests mostly wait. One worker runs them first
# (tests.conftest), beside mypy and the other worker's builds.
WAITS = pytest.mark.xdist_group("waits")
needs_fio = pytest.mark.skipif(
    FIO is None and os.environ.get("CI") != "true",
    reason="fio is not installed (make test installs it)",
)

TINY = """
id = "tiny"
system = "A file on {where}"
vendor = "Linux"
levels = [1, 2, 4]
rate_iops = [2000]  # fio idles between I/Os: the test leaves the CPU to the others
[[profiles]]
access = "random"
block_sizes = ["4K"]
read_pct = [100]
[[profiles]]
access = "sequential"
block_sizes = ["64K"]
read_pct = [0]
[intervals]
count = 1
seconds = 1
[[targets]]
path = "{target}"
size = "16M"
"""


def _campaign(tmp: Path, extra: str = "", direct: bool = False) -> Path:
    text = TINY.format(where="tmp", target=tmp / "target.bin") + extra
    if not direct:  # a tmpfs refuses O_DIRECT
        text = text.replace('id = "tiny"', 'id = "tiny"\ndirect = false')
    path = tmp / "campaign.toml"
    path.write_text(text, encoding="utf-8")
    return path


def test_plan_of_seed_000_writes_324_job_files_and_prints_the_run_time(tmp_path: Path) -> None:
    source = tmp_path / "campaign.toml"
    source.write_text(
        'id = "seed000"\nsystem = "IBM FlashSystem 840"\nvendor = "IBM"\n'
        '[[targets]]\npath = "/dev/sdx"\n',
        encoding="utf-8",
    )
    run = iopress("plan", source, "-o", tmp_path / "c")
    assert run.returncode == 0, run.stderr
    assert "run time: 324 points × 60 s = 5 h 24 min" in run.stdout
    jobs = sorted((tmp_path / "c" / "jobs").glob("*.fio"))
    assert len(jobs) == 324
    first = jobs[0].read_text()
    assert "numjobs=1\n" in first and "bs=1024\n" in first and "rw=randread" in first
    assert "runtime=60" in first
    mixed = next(j for j in jobs if "-r70-p512" in j.name).read_text()
    assert "rw=randrw" in mixed and "rwmixread=70" in mixed and "numjobs=512" in mixed
    assert "--status-interval" not in first  # a command-line option of iopress run
    toml = (tmp_path / "c" / "report.toml").read_text()
    assert 'path = "raw/*.json"' in toml and "[[hosts]]" in toml and "[[setups]]" in toml
    summary = (tmp_path / "c" / "text" / "de" / "summary.md").read_text()
    assert '{{ maximum("1K", "random", 100).iops }}' in summary


def test_run_time_words() -> None:
    assert planning.duration(324 * 70) == "6 h 18 min"
    assert planning.duration(150) == "2 min 30 s"
    assert planning.duration(45) == "45 s"


@pytest.mark.parametrize(
    ("change", "words"),
    [
        ("levels = [1, 2, 4]", ["levels = [4, 2]", "levels", "rising"]),
        ('block_sizes = ["4K"]', ['block_sizes = ["4Q"]', "block_sizes", "'4Q'"]),
        ('vendor = "Linux"', ['vendor = "Linux"\nnumjob = 3', "numjob", "unknown key 'numjob'"]),
    ],
)
def test_bad_campaign_names_file_and_field(tmp_path: Path, change: str, words: list[str]) -> None:
    path = _campaign(tmp_path)
    path.write_text(path.read_text().replace(change, words[0]), encoding="utf-8")
    with pytest.raises((InputError, InputErrors)) as err:
        load_campaign(path)
    for word in [str(path), *words[1:]]:
        assert word in str(err.value)


def test_a_device_with_a_file_system_needs_destroy_data(tmp_path: Path) -> None:
    image = tmp_path / "disk.img"
    image.write_bytes(b"\0" * 1080 + b"\x53\xef" + b"\0" * 70000)
    assert "ext4" in signatures(image)
    (tmp_path / "blank.img").write_bytes(b"\0" * 70000)
    assert signatures(tmp_path / "blank.img") == []
    source = _campaign(tmp_path)
    campaign = load_campaign(source)
    guard(source, tmp_path, look(campaign, {}), [])  # a new file holds nothing
    if Path("/dev/loop0").exists() and signatures(Path("/dev/loop0")):
        device = campaign.model_copy(update={"targets": [{"path": "/dev/loop0"}]})
        with pytest.raises(InputError, match="--destroy-data /dev/loop0"):
            guard(source, tmp_path, look(device, {}), [])


def test_a_target_path_cannot_add_fio_options(tmp_path: Path) -> None:
    path = _campaign(tmp_path)
    text = path.read_text().replace(
        'size = "16M"', 'size = "16M"\n[[targets]]\npath = "x\\nioengine=exec"'
    )
    path.write_text(text, encoding="utf-8")
    with pytest.raises(InputErrors) as err:
        load_campaign(path)
    assert "targets[1].path" in str(err.value) and "line break" in str(err.value)


def test_an_edited_job_file_is_refused_not_run(tmp_path: Path) -> None:
    folder = tmp_path / "c"
    assert iopress("plan", _campaign(tmp_path), "-o", folder).returncode == 0
    job = sorted((folder / "jobs").glob("*.fio"))[0]
    marker = tmp_path / "ran"
    job.write_text(
        job.read_text()
        .replace("ioengine=psync", f"ioengine=exec\nprogram=touch {marker}")
        .replace("ioengine=io_uring", f"ioengine=exec\nprogram=touch {marker}")
        .replace("ioengine=libaio", f"ioengine=exec\nprogram=touch {marker}"),
        encoding="utf-8",
    )
    run = iopress("run", folder)
    assert run.returncode == 1 and "Traceback" not in run.stderr
    assert job.name in run.stderr and "not as iopress plan writes it" in run.stderr
    assert not marker.exists() and not list((folder / "raw").glob("*.json"))


def _fio_figures(result: Path) -> tuple[float, float]:
    """IOPS and mean latency (µs) of fio's final document, as fio computed them."""
    text, decoder, index, last = result.read_text(), json.JSONDecoder(), 0, None
    while (index := text.find("{", index)) >= 0:
        last, index = decoder.raw_decode(text, index)
    assert isinstance(last, dict)
    total_iops, ios, lat = 0.0, 0.0, 0.0
    # fio servers: one record per host in client_stats, beside their sum "All clients"
    jobs = last.get("jobs") or [j for j in last["client_stats"] if j["jobname"] != "All clients"]
    for job in jobs:
        for d in ("read", "write"):
            total_iops += job[d]["iops"]
            ios += job[d]["total_ios"]
            lat += job[d]["lat_ns"]["mean"] * job[d]["total_ios"] / 1000
    return total_iops, lat / ios


@needs_fio
@WAITS
def test_local_campaign_plan_run_resume_build(tmp_path: Path) -> None:
    folder = tmp_path / "c"
    source = _campaign(tmp_path)  # 2 profiles x 2 levels: 4 points of 1 s each
    source.write_text(source.read_text().replace("[1, 2, 4]", "[1, 2]"), encoding="utf-8")
    assert iopress("plan", source, "-o", folder).returncode == 0
    # interrupted (Ctrl-C reaches the whole process group) once the second point runs
    job = subprocess.Popen(
        [sys.executable, "-m", "pipeline.cli", "run", str(folder)],
        env={**os.environ, "PYTHONPATH": str(ROOT)},
        start_new_session=True,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    raw = folder / "raw"
    deadline = time.monotonic() + 60
    while len(list(raw.glob("*.json"))) < 2 and time.monotonic() < deadline:
        time.sleep(0.05)
    os.killpg(job.pid, signal.SIGINT)
    job.wait(60)
    finished = {p.name: p.stat().st_mtime_ns for p in raw.glob("*.json")}
    assert 2 <= len(finished) < 4 and not list(raw.glob(".*.part"))
    again = iopress("run", folder)
    assert again.returncode == 0, again.stderr
    assert f"4 points: {4 - len(finished)} run, {len(finished)} kept" in again.stdout
    assert all(
        p.stat().st_mtime_ns == finished[p.name] for p in raw.glob("*.json") if p.name in finished
    )
    assert "4 points: 0 run, 4 kept" in iopress("run", folder).stdout
    machine = json.loads((raw / "env" / "machine.json").read_text())
    assert machine["fio"].startswith("fio-") and machine["kernel"]
    result = build(folder, tmp_path / "out")
    assert {p.name for p in result.out.glob("*.pdf")} >= {"tiny.de.pdf", "tiny.en.pdf"}
    _tables_equal_fio(result.out, raw)
    _provenance(folder, result.out, machine)
    itself = iopress("compare", folder, result.out)  # the campaign against its own build
    assert itself.returncode == 0 and "0 regression(s)" in itself.stdout
    assert "unchanged" in itself.stdout and "within" not in itself.stdout


@needs_fio
@WAITS
def test_warm_up_on_a_target_that_does_not_exist_completes_first_time(tmp_path: Path) -> None:
    """warm_up = 2 (fio's ramp_time) on a file fio lays out first: fio starts its counters
    again when the ramp ends, the snapshots before are rejected (not measured) and the
    point is accepted at the first try; its figures are fio's final ones."""
    text = _campaign(tmp_path).read_text()
    second = text.index("[[profiles]]", text.index("[[profiles]]") + 1)
    text = text[:second] + text[text.index("[intervals]") :]  # one profile, one level
    text = text.replace("[1, 2, 4]", "[1]").replace("count = 1", "count = 2\nwarm_up = 2")
    (tmp_path / "campaign.toml").write_text(text, encoding="utf-8")
    assert not (tmp_path / "target.bin").exists()
    folder = tmp_path / "c"
    assert iopress("plan", tmp_path / "campaign.toml", "-o", folder).returncode == 0
    run = iopress("run", folder)
    assert run.returncode == 0, run.stderr
    assert "1 points: 1 run, 0 kept" in run.stdout
    result = next((folder / "raw").glob("*.json"))
    read = ingest.read(result, ReadOptions(root=folder), "fio")
    reasons = {r.reason.key for r in read.rejects}  # idle: the final record adds nothing
    assert "fio.restarted" in reasons and reasons <= {"fio.restarted", "fio.idle"}
    point = to_points(read.intervals)
    iops, lat = _fio_figures(result)
    assert point["iops"][0] == pytest.approx(iops, rel=1e-6)
    assert point["lat_mean_us"][0] == pytest.approx(lat, rel=1e-6)


def _provenance(folder: Path, out: Path, machine: dict[str, str]) -> None:
    """The machine, the command line and every job file in the report's provenance."""
    typ = (out / "tiny.en.typ").read_text(encoding="utf-8")
    assert "Load generator" in typ and machine["fio"] in typ and machine["cpu"] in typ
    assert "fio --output-format=json+ --status-interval=1" in typ
    # four job files (plan.json lies beside jobs/, not in it): a row each, with its SHA-256
    jobs = sorted((folder / "jobs").iterdir())
    assert len(jobs) == 4
    for job in jobs:
        digest = hashlib.sha256(job.read_bytes()).hexdigest()
        assert all(digest[i : i + 16] in typ for i in range(0, 64, 16))
    assert "Lastgenerator" in (out / "tiny.de.typ").read_text(encoding="utf-8")
    listed = {f["path"] for f in json.loads((out / "manifest.json").read_text())["inputs"]}
    assert {f"jobs/{p.name}" for p in (folder / "jobs").iterdir()} <= listed
    assert {"campaign.toml", "raw/env/machine.json"} <= listed
    hive = out / "parquet" / "points" / "system=A%20file%20on%20tmp" / "setup=default"
    hive = hive / "tiny.parquet"
    assert pl.read_parquet(hive).height == 4


def _tables_equal_fio(out: Path, raw: Path) -> None:
    perf = pl.read_csv(out / "tables" / "performance.csv").filter(pl.col("kind") == "maximum")
    assert perf.height == 2
    for row in perf.iter_rows(named=True):
        mix = "r100" if row["read_pct"] == 100 else "r0"
        name = f"*-{row['access']}-*-{mix}-p{row['parallelism']}-q*.json"
        iops, lat = _fio_figures(next(raw.glob(name)))
        assert row["iops"] == pytest.approx(iops, rel=1e-9)
        assert row["lat_mean_us"] == pytest.approx(lat, rel=1e-9)


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


@pytest.fixture
def two_fio_servers(tmp_path: Path) -> Iterator[list[int]]:
    ports, servers = [_free_port(), _free_port()], []
    for port in ports:
        servers.append(
            subprocess.Popen(
                ["fio", f"--server=127.0.0.1,{port}"],
                stdout=subprocess.DEVNULL,
                stderr=subprocess.DEVNULL,
                cwd=tmp_path,
            )
        )
    time.sleep(0.5)
    yield ports
    for server in servers:
        server.terminate()
        server.wait(10)


@needs_fio
@WAITS
def test_campaign_through_two_fio_servers(tmp_path: Path, two_fio_servers: list[int]) -> None:
    hosts = "".join(
        f'\n[[hosts]]\nname = "server{i}"\naddress = "127.0.0.1:{port}"\n'
        for i, port in enumerate(two_fio_servers)
    )
    source = _campaign(tmp_path, hosts)
    # fio servers report the run as a whole (no --status-interval snapshots): one interval;
    # one level (a client run costs 1.3 s more than its runtime), two workers per host
    text = source.read_text().replace("levels = [1, 2, 4]", "levels = [2]")
    source.write_text(text, encoding="utf-8")
    folder = tmp_path / "c"
    assert iopress("plan", source, "-o", folder).returncode == 0
    # a fio server's disks are out of sight: writing them needs the target named
    run = iopress("run", folder, "--destroy-data", tmp_path / "target.bin")
    assert run.returncode == 0, run.stderr
    server = f"127.0.0.1:{two_fio_servers[0]}"  # what its host's admin runs there
    described = folder / "raw" / "env" / "machine-server0.json"
    assert iopress("machine", "--host", server, "-o", described).returncode == 0
    result = build(folder, tmp_path / "out")
    points = pl.read_parquet(result.out / "dataset.parquet")
    assert set(points["hosts"].to_list()) == {2}  # both servers' load summed per point
    toml = (folder / "report.toml").read_text(encoding="utf-8")
    for i, port in enumerate(two_fio_servers):  # one [[hosts]] each, its name in the data
        assert f'name = "server{i}"' in toml and f'raw = ["127.0.0.1:{port}"]' in toml
    _tables_equal_fio(result.out, folder / "raw")
    typ = (result.out / "tiny.en.typ").read_text(encoding="utf-8")
    assert f"--client=127.0.0.1,{two_fio_servers[1]}" in typ and typ.count("Load generator") == 2
    assert server in typ
