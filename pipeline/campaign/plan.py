"""``iopress plan``: one fio job file per point, the report folder around them, and the run
time, before anything runs."""

from __future__ import annotations

import datetime as dt
import json
import shutil
import subprocess
from dataclasses import dataclass
from pathlib import Path

from pipeline.campaign.model import CAMPAIGN_FILE, Campaign, Engine
from pipeline.errors import InputError
from pipeline.units import parse_block_size

JOBS = "jobs"  # folder of the job files, in run order
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

    @property
    def name(self) -> str:
        mix = f"r{self.read_pct:g}".replace(".", "_")
        rate = f"-q{self.rate_iops}" if self.rate_iops else ""
        return f"{self.index:04d}-{self.access}-{self.block.lower()}-{mix}-p{self.level}{rate}"


def points(campaign: Campaign) -> list[Point]:
    """Every point in run order: profile by profile, the levels (and rates) rising."""
    rates: list[int | None] = list(campaign.rate_iops) or [None]
    found: list[Point] = []
    for profile in campaign.profiles:
        for block in profile.block_sizes:
            for read_pct in profile.read_pct:
                for level in campaign.levels:
                    for rate in rates:
                        point = Point(len(found) + 1, profile.access, block, read_pct, level, rate)
                        found.append(point)
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
        f"filename={':'.join(t.path for t in campaign.targets)}",
        *([f"size={campaign.targets[0].size}"] if campaign.targets[0].size else []),
        "group_reporting=1",
        f"numjobs={point.level}",
        f"iodepth={campaign.queue_depth}",
        f"bs={parse_block_size(point.block)}",
        *_rw(point),
    ]
    if point.rate_iops:
        per_worker = max(1, round(point.rate_iops / (point.level * len(campaign.hosts))))
        lines.append(f"rate_iops={per_worker}")
    return "\n".join([*lines, f"[{point.name}]", ""])


def precondition_job(campaign: Campaign, engine: Engine) -> str:
    """SNIA preconditioning: the whole target written twice, sequentially in 128 KiB."""
    return "\n".join(
        [
            f"; iopress campaign {campaign.id}: preconditioning (the target written twice)",
            "[global]",
            f"ioengine={engine}",
            "direct=1",
            f"filename={':'.join(t.path for t in campaign.targets)}",
            *([f"size={campaign.targets[0].size}"] if campaign.targets[0].size else []),
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


def plan(source: Path, out: Path, campaign: Campaign, engine: Engine) -> list[Point]:
    """The campaign folder ``out``: campaign.toml, jobs/, raw/ and the report skeleton
    (report.toml and text/ are written only where missing: they are the author's)."""
    if out.exists() and any(out.iterdir()) and not (out / CAMPAIGN_FILE).is_file():
        raise InputError(out, "", "folder is not empty and holds no campaign", "give a new folder")
    found = points(campaign)
    (out / JOBS).mkdir(parents=True, exist_ok=True)
    (out / RAW).mkdir(exist_ok=True)
    if source.resolve() != (out / CAMPAIGN_FILE).resolve():
        shutil.copyfile(source, out / CAMPAIGN_FILE)
    for old in (out / JOBS).glob("*.fio"):
        old.unlink()
    for point in found:
        (out / JOBS / f"{point.name}.fio").write_text(
            job_file(campaign, point, engine), encoding="utf-8"
        )
    if campaign.precondition:
        (out / JOBS / "precondition.fio").write_text(
            precondition_job(campaign, engine), encoding="utf-8"
        )
    (out / JOBS / "plan.json").write_text(json.dumps({"engine": engine, "points": len(found)}))
    _skeleton(out, campaign, engine)
    return found


def _skeleton(out: Path, campaign: Campaign, engine: Engine) -> None:
    from pipeline.campaign.skeleton import report_toml, sections

    if not (out / "report.toml").exists():
        (out / "report.toml").write_text(
            report_toml(campaign, engine, dt.date.today()), encoding="utf-8"
        )
    for lang, texts in sections(campaign).items():
        folder = out / "text" / lang
        folder.mkdir(parents=True, exist_ok=True)
        for name, text in texts.items():
            if not (folder / f"{name}.md").exists():
                (folder / f"{name}.md").write_text(text, encoding="utf-8")
