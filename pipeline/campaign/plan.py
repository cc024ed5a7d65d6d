"""``iopress plan``: one fio job file per point, the report folder around them, and the run
time, before anything runs."""

from __future__ import annotations

import datetime as dt
import json
import os
import re
import subprocess
from dataclasses import dataclass
from pathlib import Path

from pipeline.campaign.folder import Folder
from pipeline.campaign.model import CAMPAIGN_FILE, PSYNC, Campaign, Engine
from pipeline.campaign.targets import (
    Record,
    Seen,
    create_missing,
    dump_records,
    load_records,
    look,
    require_key,
)
from pipeline.errors import InputError
from pipeline.inputs import read_text
from pipeline.units import parse_block_size

JOBS = "jobs"  # folder of the job files, in run order
PLAN_FILE = "plan.json"  # the engine, and the target files iopress created (targets.py)
RAW = "raw"  # fio's JSON per point (the report's source); raw/env: each host's machine
ENGINES: tuple[Engine, ...] = ("io_uring", "libaio", "psync")  # best first
RW = {("random", 100.0): "randread", ("random", 0.0): "randwrite"}
RW |= {("sequential", 100.0): "read", ("sequential", 0.0): "write"}


@dataclass(frozen=True)
class Point:
    index: int
    access: str
    block: str
    read_pct: float
    level: int
    rate_iops: int | None = None
    queue_depth: int = 1
    depth_named: bool = False  # the campaign has several queue depths: the name says which

    @property
    def name(self) -> str:
        mix = f"r{self.read_pct:g}".replace(".", "_")
        depth = f"-qd{self.queue_depth}" if self.depth_named else ""
        rate = f"-q{self.rate_iops}" if self.rate_iops else ""
        profile = f"{self.access}-{self.block.lower()}-{mix}"
        return f"{self.index:04d}-{profile}-p{self.level}{depth}{rate}"


@dataclass(frozen=True)
class Planned:
    points: list[Point]
    targets: list[Seen]


def points(campaign: Campaign) -> list[Point]:
    """Every point in run order: profile by profile, then the queue depths × levels
    (campaign.pairs: each depth's levels rising), each at every rate."""
    rates: list[int | None] = list(campaign.rate_iops) or [None]
    named = len(campaign.depths) > 1
    mixes = [(p.access, b, r) for p in campaign.profiles for b in p.block_sizes for r in p.read_pct]
    found: list[Point] = []
    for access, block, read_pct in mixes:
        for depth, level in campaign.pairs():
            for rate in rates:
                index = len(found) + 1
                found.append(Point(index, access, block, read_pct, level, rate, depth, named))
    return found


def best_engine() -> Engine:
    """The best I/O engine this machine's fio offers (psync is always there)."""
    try:
        text = subprocess.run(
            ["fio", "--enghelp"], capture_output=True, text=True, timeout=30, check=False
        ).stdout
    except (OSError, subprocess.TimeoutExpired):
        return "psync"
    offered = {line.strip() for line in text.splitlines()}
    return next((e for e in ENGINES if e in offered), "psync")


def _rw(point: Point) -> list[str]:
    known = RW.get((point.access, point.read_pct))
    if known:
        return [f"rw={known}"]
    mixed = "randrw" if point.access == "random" else "rw"
    return [f"rw={mixed}", f"rwmixread={point.read_pct:g}"]


def _data(campaign: Campaign) -> list[str]:
    """``[data]``: compressible buffers, filled anew for every write (refill_buffers) so
    that each carries the ratio asked for; the report reads both options back."""
    data = campaign.data
    if data is None:
        return []
    lines = [f"buffer_compress_percentage={data.compress_pct}", "refill_buffers=1"]
    return lines + ([f"dedupe_percentage={data.dedupe_pct}"] if data.dedupe_pct else [])


def job_file(campaign: Campaign, point: Point, engine: Engine) -> str:
    """The fio job of one point: every host runs it with ``level`` workers."""
    iv = campaign.intervals
    lines = [
        f"; iopress campaign {campaign.id}: point {point.index} ({point.name})",
        "[global]",
        f"ioengine={engine}",
        f"direct={int(campaign.direct)}",
        "time_based=1",
        f"runtime={iv.count * iv.seconds}",
        *([f"ramp_time={iv.warm_up}"] if iv.warm_up else []),
        *_files(campaign),
        "group_reporting=1",
        # percentiles of the service time (lat), as the mean: fio's default are of the
        # completion latency alone (clat, without the submission latency)
        "lat_percentiles=1",
        f"numjobs={point.level}",
        f"iodepth={point.queue_depth}",
        f"bs={parse_block_size(point.block)}",
        *_rw(point),
    ]
    lines += _data(campaign)
    if point.rate_iops:
        lines.append(f"rate_iops={_rate(campaign, point)}")
    return "\n".join([*lines, f"[{point.name}]", ""])


def _rate(campaign: Campaign, point: Point) -> str:
    """Each worker's cap: one value for reads or writes alone; a mix's split by its read
    share (fio caps each direction on its own: one value of 500 at 50 % reads ran 1,000
    I/Os a second)."""
    rate = point.rate_iops or 0
    per_worker = max(1, round(rate / (point.level * len(campaign.hosts))))
    if not 0 < point.read_pct < 100:
        return str(per_worker)
    reads = max(1, round(per_worker * point.read_pct / 100))
    return f"{reads},{max(1, per_worker - reads)}"


PRECONDITION = "precondition"  # the preconditioning's job, beside the points'


def _files(campaign: Campaign) -> list[str]:
    """The job's files and their size in bytes: ``size`` of one file; ``filesize`` of
    several (fio divides ``size`` among them: two 4 MiB targets were 2 MiB each, and a
    1 MiB file judged as only read was laid out anew to 2 MiB)."""
    files = [f"filename={':'.join(t.path for t in campaign.targets)}"]
    if campaign.file_size is None:
        return files
    name = "size" if len(campaign.targets) == 1 else "filesize"
    return [*files, f"{name}={campaign.file_size}"]


def precondition_job(campaign: Campaign, engine: Engine) -> str:
    """SNIA preconditioning: the whole target written twice, sequentially in 128 KiB."""
    return "\n".join(
        [
            f"; iopress campaign {campaign.id}: preconditioning (the target written twice)",
            "[global]",
            f"ioengine={engine}",
            f"direct={int(campaign.direct)}",  # a tmpfs refuses O_DIRECT here too
            *_files(campaign),
            "rw=write",
            "bs=128k",
            "iodepth=32",
            "loops=2",
            "[precondition]",
            "",
        ]
    )


def duration(seconds: int) -> str:
    """``6 h 18 min``, ``2 min 30 s``, ``45 s``."""
    hours, rest = divmod(seconds, 3600)
    minutes, secs = divmod(rest, 60)
    parts = [f"{hours} h"] * bool(hours) + [f"{minutes} min"] * bool(minutes)
    parts += [f"{secs} s"] * bool(secs and not hours)
    return " ".join(parts) or "0 s"


def run_time(campaign: Campaign) -> str:
    """``324 points × 60 s = 5 h 24 min`` (fio's own start-up and preconditioning not counted)."""
    n, each = len(points(campaign)), campaign.point_seconds
    return f"{n} points × {each} s = {duration(n * each)}"


MAX_PLAN = 256 << 20  # bytes of plan.json: ≈ 400 per point (its job, its result) and file


def read_plan(folder: Folder) -> dict[str, object]:
    """plan.json: the engine, the point count and the target files iopress created
    ({} where missing or unreadable: plan writes it again, run refuses)."""
    if not folder.check(PLAN_FILE):
        return {}
    try:
        found = json.loads(read_text(folder.root / PLAN_FILE, MAX_PLAN))
    except (InputError, ValueError, RecursionError):
        return {}
    return found if isinstance(found, dict) else {}


def save_plan(folder: Folder, plan: dict[str, object], records: dict[str, Record]) -> None:
    folder.write(PLAN_FILE, json.dumps({**plan, "created": dump_records(records)}, indent=1))


def plan(source: Path, out: Path, campaign: Campaign, engine: Engine) -> Planned:
    """The campaign folder ``out``: campaign.toml, jobs/, raw/ and the report skeleton
    (report.toml and text/ are written only where missing: they are the author's).
    A missing target file is created empty (fio lays it out) and recorded in plan.json."""
    if out.exists() and not out.is_dir():
        raise InputError(out, "", "is a file, not a folder", "give a new folder")
    if out.exists() and any(out.iterdir()) and not (out / CAMPAIGN_FILE).is_file():
        raise InputError(out, "", "folder is not empty and holds no campaign", "give a new folder")
    if engine == "psync" and campaign.depths[-1] > 1:  # the engine this machine offers
        raise InputError(source, "queue_depth", PSYNC, "install fio with io_uring or libaio")
    require_key()  # before anything is made: a refused plan leaves no folder
    out.mkdir(parents=True, exist_ok=True)
    folder = Folder(out)
    with folder.locked():  # not while a run (or its fio) uses the folder
        return _write(folder, source, campaign, engine)


def _write(folder: Folder, source: Path, campaign: Campaign, engine: Engine) -> Planned:
    found = points(campaign)
    before = read_plan(folder)
    records = load_records(before)
    jobs = {f"{p.name}.fio": job_file(campaign, p, engine) for p in found}
    if campaign.precondition:
        jobs[f"{PRECONDITION}.fio"] = precondition_job(campaign, engine)
    _own_jobs(folder, before, jobs)
    kept = _kept(before, create_missing(source, campaign, records))
    if not folder.check(CAMPAIGN_FILE) or not os.path.samefile(source, folder.root / CAMPAIGN_FILE):
        folder.write(CAMPAIGN_FILE, source.read_bytes())
    for name, text in jobs.items():
        folder.write(f"{JOBS}/{name}", text)
    with folder.opened(RAW):
        pass
    plan = {"engine": engine, "points": len(found), "jobs": sorted(jobs)}
    save_plan(folder, plan | kept, records)
    _skeleton(folder, campaign, engine)
    return Planned(found, look(campaign, records))


_OWN_JOB = re.compile(r"^(\d{4}-[a-z0-9_.-]+|precondition)\.fio$")  # as ``Point.name`` makes


def _own_jobs(folder: Folder, before: dict[str, object], jobs: dict[str, str]) -> None:
    """jobs/ cleared of the job files an earlier plan wrote (and a killed plan's part
    files), and of nothing else: planning into a folder that held campaign.toml deleted
    the user's own files there. A file of the user's that a new job file would replace,
    or a plan.json iopress did not write, is an error naming it."""
    if folder.check(PLAN_FILE) and "engine" not in before:
        raise InputError(folder.root / PLAN_FILE, "", "not a plan iopress wrote", MOVE)
    with folder.opened(JOBS) as fd:
        names = os.listdir(fd)
    listed = before.get("jobs")
    ours = {n for n in names if n in listed} if isinstance(listed, list) else set()
    # a plan from before the list: the job files named as iopress names them that this
    # plan writes again may be replaced, and nothing is removed
    again = set(filter(_OWN_JOB.match, jobs)) if before and listed is None else set()
    for name in names:
        if name in jobs and name not in ours | again and _text(folder, name) != jobs[name]:
            raise InputError(folder.root / JOBS / name, "", "not a job file iopress planned", MOVE)
    folder.remove(JOBS, keep=lambda name: name not in ours and not _PART.match(name))


def _kept(before: dict[str, object], made: list[str]) -> dict[str, object]:
    """What a new plan keeps of the earlier one: its results' signatures (each vouches
    for a result only while the job text it was measured with is the job's), the
    preconditioning's only where no target file was made anew."""
    results = before.get("results")
    if not isinstance(results, dict):
        return {}
    return {"results": {k: v for k, v in results.items() if not (made and k == PRECONDITION)}}


def _text(folder: Folder, name: str) -> str | None:
    if not folder.check(f"{JOBS}/{name}"):
        return None
    return read_text(folder.root / JOBS / name, 1 << 20)


MOVE = "move it out of the campaign folder (iopress plan writes jobs/ and plan.json)"
_PART = re.compile(r"^\..+\.[0-9a-f]{8}\.new$")  # Folder's part files


def _skeleton(folder: Folder, campaign: Campaign, engine: Engine) -> None:
    from pipeline.campaign.skeleton import report_toml, sections

    folder.write("report.toml", report_toml(campaign, engine, dt.date.today()), keep=True)
    for lang, texts in sections(campaign).items():
        for name, text in texts.items():
            folder.write(f"text/{lang}/{name}.md", text, keep=True)
