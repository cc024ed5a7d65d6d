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
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import polars as pl
import pytest

from pipeline import ingest
from pipeline.build import build
from pipeline.campaign import plan as planning
from pipeline.campaign.model import Campaign, Engine, load_campaign
from pipeline.campaign.targets import guard, look, signatures
from pipeline.errors import InputError, InputErrors
from pipeline.ingest.base import ReadOptions
from pipeline.normalise import to_points
from tests.cli import iopress, iopress_session
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
    assert '{{ maximum("1K", "random", 100).iops }} IOPS mit' in summary
    text = tmp_path / "c" / "text" / "en"  # units and the profile in every sentence
    assert (
        '.iops }} IOPS at 1K random 100% read, with a minimum latency of {{ min_latency("1K"'
        in (text / "summary.md").read_text()
    )
    assert (text / "conclusion.md").read_text() == (
        'The optimum is {{ optimum("1K", "random", 100).iops }} IOPS at '
        '{{ optimum("1K", "random", 100).lat_mean_ms }} (1K random 100% read).\n'
    )
    assert "queue depth 1 at parallelism 1, 2, 4, 8, 16, 32, 64, 96" in toml
    assert "3 intervals of 20 s per point; target /dev/sdx" in toml


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


def _final(result: Path) -> dict[str, Any]:
    """fio's final document of a result."""
    text, decoder, index, last = result.read_text(), json.JSONDecoder(), 0, None
    while (index := text.find("{", index)) >= 0:
        last, index = decoder.raw_decode(text, index)
    assert isinstance(last, dict)
    return last


def _snapshots(result: Path) -> str:
    """Each document of a result (status snapshots, then the final one) per job: runtime,
    I/Os and latency samples of reads, to tell from a failure's log where figures went."""
    text, decoder, index, lines = result.read_text(), json.JSONDecoder(), 0, [result.name]
    while (index := text.find("{", index)) >= 0:
        doc, index = decoder.raw_decode(text, index)
        for job in doc.get("jobs") or []:
            r = job.get("read", {})
            n = (r.get("lat_ns") or {}).get("N")
            lines.append(f"  rt {r.get('runtime')} ios {r.get('total_ios')} lat N {n}")
    return "\n".join(lines)


def _same_latency(ours: float, result: Path) -> bool:
    """Our mean latency is fio's final one; or, where fio's latency statistics hold an I/O
    its total_ios does not count (the one that completes as the run ends: lat_ns N 4001,
    total_ios 4000, io_bytes of 4001), within what that one sample can move the mean:
    iopress weights latency by I/Os, and a status snapshot's interval has no other weight."""
    job = _final(result)["jobs"][0]
    theirs = _fio_figures(result)[1]
    extra, slack = 0.0, 0.0
    for d in ("read", "write"):
        lat, ios = job[d]["lat_ns"], job[d]["total_ios"]
        if ios:
            extra += abs(lat.get("N", ios) - ios)
            slack = max(slack, lat["max"] / 1000 / ios)
    return abs(ours - theirs) <= 1e-9 * theirs + extra * slack


def _fio_figures(result: Path) -> tuple[float, float]:
    """IOPS and mean latency (µs) of fio's final document, as fio computed them."""
    last = _final(result)
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
    job = iopress_session("run", folder)
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
    assert itself.returncode == 0 and "0 regressions" in itself.stdout
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
    iops, _ = _fio_figures(result)
    assert point["iops"][0] == pytest.approx(iops, rel=1e-6)
    assert _same_latency(point["lat_mean_us"][0], result)


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


EXAMPLES = ROOT / "data" / "examples" / "campaigns"


@pytest.mark.parametrize(
    ("name", "points", "run_time"),
    [
        ("tiny", 4, "4 points × 3 s = 12 s"),
        ("seed000", 324, "324 points × 60 s = 5 h 24 min"),
        ("seed002", 55, "55 points × 70 s = 1 h 4 min"),
    ],
)
def test_each_example_campaign_plans_its_points_and_run_time(
    tmp_path: Path, name: str, points: int, run_time: str
) -> None:
    """The example campaigns plan as their comments and docs/campaign.md say; README and
    docs/campaign.md name each one."""
    source = EXAMPLES / f"{name}.toml"
    run = iopress("plan", source, "-o", tmp_path / "c", cwd=tmp_path)
    assert run.returncode == 0, run.stderr
    assert f"run time: {run_time}" in run.stdout and f"{points} job files" in run.stdout
    assert len(list((tmp_path / "c" / "jobs").glob("0*.fio"))) == points
    assert run_time in source.read_text(encoding="utf-8") or name == "tiny"
    for doc in ("README.md", "docs/campaign.md"):
        assert f"{name}.toml" in (ROOT / doc).read_text(encoding="utf-8"), doc
    assert run_time in (ROOT / "docs" / "campaign.md").read_text(encoding="utf-8")


def _qd_campaign(tmp_path: Path, change: str) -> Campaign:
    """The tiny campaign with ``change`` for its levels: top-level keys in their place,
    [[grid]] blocks at the end."""
    keys, grid, blocks = change.partition("[[grid]]")
    text = _campaign(tmp_path).read_text().replace("levels = [1, 2, 4]\n", keys)
    (tmp_path / "campaign.toml").write_text(text + grid + blocks, encoding="utf-8")
    return load_campaign(tmp_path / "campaign.toml")


def test_queue_depths_times_levels_and_grids_plan_their_pairs(tmp_path: Path) -> None:
    """queue_depth as a list plans the product with the levels; [[grid]] blocks their union
    (seed 002); one depth, as a number, names its job files as before."""
    product = _qd_campaign(tmp_path, "queue_depth = [1, 4, 16]\nlevels = [1, 2, 4]\n")
    assert len(product.pairs()) == 9 and product.depths == [1, 4, 16]
    found = planning.points(product)  # 2 profiles × 1 mix × 9, each at the one rate
    assert len(found) == 18 and found[3].name == "0004-random-4k-r100-p1-qd4-q2000"
    engine: Engine = "io_uring"
    assert "iodepth=16\n" in planning.job_file(product, found[8], engine)
    assert "numjobs=4\n" in planning.job_file(product, found[8], engine)
    grid = "[[grid]]\nqueue_depth = [1, 2, 4, 8, 16, 32]\nlevels = [1]\n"
    grid += "[[grid]]\nqueue_depth = 4\nlevels = [1, 2, 4, 8, 16]\n"
    seed002 = _qd_campaign(tmp_path, grid)
    assert seed002.pairs() == [(d, 1) for d in (1, 2, 4, 8, 16, 32)] + [
        (4, n) for n in (2, 4, 8, 16)
    ]
    one = _qd_campaign(tmp_path, "queue_depth = 4\nlevels = [1, 2]\n")
    assert one.depths == [4] and planning.points(one)[0].name == "0001-random-4k-r100-p1-q2000"
    assert "iodepth=4\n" in planning.job_file(one, planning.points(one)[0], engine)


@pytest.mark.parametrize(
    ("change", "words"),
    [
        ("queue_depth = [4, 1]\nlevels = [1]\n", ["queue_depth", "rising"]),
        ("queue_depth = 0\nlevels = [1]\n", ["queue_depth", "at least 1"]),
        ("queue_depth = []\nlevels = [1]\n", ["queue_depth", "at least 1 item"]),
        ("levels = [1]\n[[grid]]\nqueue_depth = 1\nlevels = [2]\n", ["[[grid]]", "levels"]),
        ('engine = "psync"\nqueue_depth = [1, 2]\nlevels = [1]\n', ["psync", "queue_depth = 1"]),
    ],
)
def test_bad_queue_depths_name_file_and_reason(
    tmp_path: Path, change: str, words: list[str]
) -> None:
    with pytest.raises((InputError, InputErrors)) as err:
        _qd_campaign(tmp_path, change)
    for word in [str(tmp_path / "campaign.toml"), *words]:
        assert word in str(err.value)


def _method_and_stubs(out: Path, report_id: str) -> dict[str, str]:
    return {lang: (out / f"{report_id}.{lang}.typ").read_text("utf-8") for lang in ("de", "en")}


@needs_fio
@WAITS
def test_queue_depth_by_threads_campaign_runs_and_its_method_names_them(tmp_path: Path) -> None:
    """QD 1, 4, 16 × threads 1, 2, 4 for a profile of two mixes: 18 points, run (1 s each,
    rate-limited), built; the method names the engine, buffered I/O, the depths and the
    intervals; the stubs carry units, the profile and the depths."""
    source = _campaign(tmp_path)
    text = source.read_text()
    second = text.index("[[profiles]]", text.index("[[profiles]]") + 1)
    text = text[:second] + text[text.index("[intervals]") :]  # one profile
    text = text.replace("read_pct = [100]", "read_pct = [100, 0]")
    text = text.replace("levels = [1, 2, 4]", "levels = [1, 2, 4]\nqueue_depth = [1, 4, 16]")
    source.write_text(text, encoding="utf-8")
    folder = tmp_path / "c"
    planned = iopress("plan", source, "-o", folder)
    assert planned.returncode == 0, planned.stderr
    assert "18 job files" in planned.stdout and "run time: 18 points × 1 s = 18 s" in planned.stdout
    run = iopress("run", folder)
    assert run.returncode == 0, run.stderr
    engine = json.loads((folder / "plan.json").read_text())["engine"]
    out = build(folder, tmp_path / "out").out
    points = pl.read_parquet(out / "dataset.parquet")
    assert points.height == 18 and sorted(set(points["queue_depth"])) == [1, 4, 16]
    typ = _method_and_stubs(out, "tiny")
    assert f"engine {engine}, buffered I/O (page cache)" in typ["en"]
    assert "queue depth 1, 4, 16 at parallelism 1, 2, 4 per host" in typ["en"]
    assert "Queue depths (I/Os in flight per worker): 1, 4, 16, each at every" in typ["en"]
    assert "Queue Depths (gleichzeitige I/Os je Worker): 1, 4, 16" in typ["de"]
    assert f"Engine {engine}, gepufferte I/O" in typ["de"]
    assert "Each point was measured in " in typ["en"]  # intervals: the tiny example's test
    assert " IOPS (queue depth 16) at 4K random 100% read" in typ["en"]
    assert " (4K random 100% read)." in typ["en"] and " IOPS (Queue Depth 16)" in typ["de"]


@needs_fio
@WAITS
def test_tiny_example_runs_first_time_on_a_new_file_and_equals_fio(tmp_path: Path) -> None:
    """The tiny example as a new user runs it: a file that does not exist yet, warm_up;
    run works the first time, build gives DE/EN PDFs with a percentile chart, the tables
    and percentiles are fio's own final figures, and the method counts 2 intervals."""
    assert not (tmp_path / "iopress-tiny.bin").exists()
    folder = tmp_path / "lab" / "tiny"
    planned = iopress("plan", EXAMPLES / "tiny.toml", "-o", folder, cwd=tmp_path)
    assert planned.returncode == 0, planned.stderr
    run = iopress("run", folder, cwd=tmp_path)
    assert run.returncode == 0, run.stderr
    assert "4 points: 4 run, 0 kept" in run.stdout
    assert (tmp_path / "iopress-tiny.bin").stat().st_size == 16 << 20  # laid out by fio
    out = build(folder, tmp_path / "out").out
    assert {p.name for p in out.glob("*.pdf")} >= {"tiny.de.pdf", "tiny.en.pdf"}
    assert list((out / "charts").glob("percentiles_random_4k_r100_qd4.en.svg"))
    points = pl.read_parquet(out / "dataset.parquet")
    for row in points.iter_rows(named=True):
        raw = folder / row["source"]
        iops, _ = _fio_figures(raw)
        # seen once under heavy load (1970.5 against fio's 1996.0): the snapshots say why
        assert row["iops"] == pytest.approx(iops, rel=1e-9), _snapshots(raw)
        assert _same_latency(row["lat_mean_us"], raw)
        assert row["lat_p99_us"] == pytest.approx(_fio_p99(raw), rel=1e-9)
        assert row["percentile_of"] == "lat"
    perf = pl.read_csv(out / "tables" / "performance.csv").filter(pl.col("kind") == "maximum")
    assert perf.height == 2  # one per queue depth
    for row in perf.iter_rows(named=True):
        same = points.filter(
            (pl.col("queue_depth") == row["queue_depth"])
            & (pl.col("parallelism") == row["parallelism"])
        )
        assert row["iops"] == pytest.approx(same["iops"][0], rel=1e-12)
    typ = _method_and_stubs(out, "tiny")
    assert "Each point was measured in 2 intervals of 1 s" in typ["en"]
    assert "3 intervals" not in typ["en"] and "Pro Messpunkt wurden 2 Intervalle" in typ["de"]
    assert "2 intervals of 1 s per point after a warm-up of 1 s" in typ["en"]
    assert "Queue depths (I/Os in flight per worker): 1, 4, each at every" in typ["en"]


def _fio_p99(result: Path) -> float:
    """p99 of fio's final document's read lat (µs), as fio computed it: the job asks for
    percentiles of the service time (lat_percentiles=1)."""
    read = _final(result)["jobs"][0]["read"]
    return float(read["lat_ns"]["percentile"]["99.000000"]) / 1000


@pytest.fixture
def snapshot_server(tmp_path: Path) -> Iterator[int]:
    """A fio server started with --status-interval: it sends its snapshots to the client."""
    port = _free_port()
    server = subprocess.Popen(
        ["fio", f"--server=127.0.0.1,{port}", "--status-interval=1"],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        cwd=tmp_path,
    )
    time.sleep(0.5)
    yield port
    server.terminate()
    server.wait(10)


@needs_fio
@WAITS
def test_a_fio_servers_status_snapshots_are_refused_not_added_up(
    tmp_path: Path, snapshot_server: int
) -> None:
    """fio's client writes a snapshot-sending server's job once per snapshot: run refuses
    the point, naming the server, instead of counting the snapshots as load."""
    host = f'\n[[hosts]]\nname = "server"\naddress = "127.0.0.1:{snapshot_server}"\n'
    source = _campaign(tmp_path, host)
    text = source.read_text().replace("levels = [1, 2, 4]", "levels = [1]")
    second = text.index("[[profiles]]", text.index("[[profiles]]") + 1)
    source.write_text(text[:second] + text[text.index("[intervals]") :], encoding="utf-8")
    source.write_text(source.read_text().replace("count = 1", "count = 3"), encoding="utf-8")
    folder = tmp_path / "c"
    assert iopress("plan", source, "-o", folder).returncode == 0
    run = iopress("run", folder, "--destroy-data", tmp_path / "target.bin")
    assert run.returncode == 1 and "Traceback" not in run.stderr
    assert f"the fio server 127.0.0.1:{snapshot_server} sent status snapshots" in run.stderr
    assert not list((folder / "raw").glob("*.json"))
