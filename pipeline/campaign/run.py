"""``iopress run``: the planned points with fio, one after another, each result kept only
when it is complete and readable, so that a run can be stopped and resumed at any time."""

from __future__ import annotations

import contextlib
import json
import os
import platform
import shlex
import stat
import subprocess
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import cast

from pipeline import ingest
from pipeline.campaign import plan as planning
from pipeline.campaign.model import CAMPAIGN_FILE, Campaign, Engine, load_campaign
from pipeline.campaign.plan import ENGINES, JOBS, RAW
from pipeline.errors import InputError, UsageError
from pipeline.ingest.base import ReadOptions, interval_frame, problems
from pipeline.machine import Machine, save_machine

# Signatures of data a write would destroy: (offset, bytes). Partition tables and the
# common Linux file systems; blkid knows more, and is asked first.
SIGNATURES = (
    (510, b"\x55\xaa"),  # MBR (and the protective MBR of GPT)
    (512, b"EFI PART"),  # GPT
    (1080, b"\x53\xef"),  # ext2/3/4
    (0, b"XFSB"),  # XFS
    (65600, b"_BHRfS_M"),  # btrfs
    (4086, b"SWAPSPACE2"),  # swap
    (3, b"NTFS    "),  # NTFS
    (0, b"LUKS\xba\xbe"),  # LUKS
)


@dataclass(frozen=True)
class Done:
    """One point's outcome: run now, or kept from an earlier run; its IOPS and latency."""

    name: str
    skipped: bool
    iops: float
    lat_us: float


def holds_data(path: Path) -> bool:
    """Does the device (or image) start with a partition table or a file system?"""
    try:
        with path.open("rb") as fh:
            head = fh.read(65608)
    except OSError:
        return False
    return any(head[at : at + len(sig)] == sig for at, sig in SIGNATURES)


def _writes(campaign: Campaign) -> bool:
    mixes = [m for p in campaign.profiles for m in p.read_pct]
    return campaign.precondition or any(m < 100 for m in mixes)


def guard(campaign: Campaign, destroy: list[str]) -> None:
    """A write to a device that holds a file system or partition table needs
    ``--destroy-data DEVICE`` naming that very device."""
    if not _writes(campaign):
        return
    for target in campaign.targets:
        path = Path(target.path)
        with contextlib.suppress(OSError):
            if not stat.S_ISBLK(path.stat().st_mode) or not holds_data(path):
                continue
            if target.path not in destroy:
                raise UsageError(
                    f"{target.path} holds a file system or partition table, and the campaign "
                    f"writes to it; to destroy its data, name it: --destroy-data {target.path}"
                )


def figures(result: Path) -> tuple[float, float] | str:
    """The point's IOPS and mean latency (µs) when ``result`` is complete fio output whose
    figures ``build`` accepts, by the same rule: it reads, and records are accepted. Records
    rejected with their reason are listed by ``build`` as for any fio output: the snapshots
    before fio starts a job's counters again (laying out a new file, ``ramp_time``) are
    not part of fio's final figures, not a defect of the run. Else why not."""
    try:
        read = ingest.read(result, ReadOptions(root=result.parent), "fio")
    except (InputError, OSError, ValueError) as err:
        return str(err)
    found = problems(read, result)
    if found or not read.rows:
        return str(found[0]) if found else "no interval was accepted"
    rows = interval_frame(read.rows)
    ios = float((rows["iops"] * rows["interval_s"]).sum())
    seconds = float(rows["interval_s"].sum())
    lat = float((rows["lat_mean_us"].fill_null(0.0) * rows["iops"] * rows["interval_s"]).sum())
    return (ios / seconds if seconds else 0.0), (lat / ios if ios else 0.0)


def valid(result: Path) -> tuple[float, float] | None:
    """``figures`` of a sound result, or None."""
    found = figures(result)
    return None if isinstance(found, str) else found


def command(campaign: Campaign, job: Path, output: Path) -> list[str]:
    """fio for one point: on this machine, or on every fio server at once (synchronous)."""
    cmd = [
        "fio",
        "--output-format=json+",
        f"--status-interval={campaign.intervals.seconds}",
        f"--output={output}",
    ]
    if campaign.hosts[0].address == "local":
        return [*cmd, str(job)]
    for host in campaign.hosts:  # fio writes a server's port after a comma
        cmd += [f"--client={host.address.replace(':', ',')}", str(job)]
    return cmd


def _run_fio(cmd: list[str], name: str, folder: Path) -> None:
    try:
        done = subprocess.run(cmd, capture_output=True, text=True, check=False)
    except OSError as err:
        raise InputError(folder, name, f"fio could not start: {err}", "install fio") from None
    if done.returncode:
        tail = (done.stderr or done.stdout).strip().splitlines()[-3:]
        raise InputError(
            folder / JOBS / f"{name}.fio",
            "",
            f"fio failed (exit {done.returncode}): {' / '.join(tail)}",
            "fix the campaign (iopress plan again) or the machine, then run again: "
            "finished points are kept",
        )


def run_point(folder: Path, campaign: Campaign, name: str) -> Done:
    """One point: kept when its result is already valid, else run by fio into a part
    file that becomes the result only when it is valid (Ctrl-C: the part file goes)."""
    result = folder / RAW / f"{name}.json"
    kept = valid(result) if result.exists() else None
    if kept:
        return Done(name, True, *kept)
    part = folder / RAW / f".{name}.json.part"
    try:
        _run_fio(command(campaign, folder / JOBS / f"{name}.fio", part), name, folder)
        found = figures(part)
        if isinstance(found, str):
            raise InputError(part, "", f"fio's output is not complete: {found}", "run again")
        os.replace(part, result)
    finally:
        part.unlink(missing_ok=True)
    return Done(name, False, *found)


def describe(host: str = "local", targets: tuple[str, ...] = ()) -> Machine:
    """This machine: its name, fio's version, the kernel, the CPU, the memory and the
    models of the devices holding ``targets``."""
    fio = subprocess.run(["fio", "--version"], capture_output=True, text=True, check=False)
    return Machine(
        host=host,
        hostname=platform.node(),
        fio=fio.stdout.strip(),
        kernel=" ".join(platform.uname()[:3]),
        cpu=_cpu_model(),
        cpus=os.cpu_count(),
        memory_bytes=_memory(),
        targets={t: _device_model(Path(t)) for t in targets},
    )


def machine(campaign: Campaign) -> Machine:
    """The machine that runs fio, with the fio servers it drives and the command line
    of every point."""
    local = campaign.hosts[0].address == "local"
    found = describe(targets=tuple(t.path for t in campaign.targets) if local else ())
    cmd = shlex.join(command(campaign, Path(JOBS) / "POINT.fio", Path(RAW) / "POINT.json"))
    servers = [] if local else [h.address for h in campaign.hosts]
    return found.model_copy(update={"servers": servers, "command": cmd.replace("POINT", "{point}")})


def _memory() -> int | None:
    with contextlib.suppress(OSError, ValueError, IndexError):
        for line in Path("/proc/meminfo").read_text().splitlines():
            if line.startswith("MemTotal:"):
                return int(line.split()[1]) * 1024
    return None


def _cpu_model() -> str:
    with contextlib.suppress(OSError):
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    return platform.processor()


def _device_model(path: Path) -> str:
    """The model of the block device holding ``path`` (sysfs), or "" when unknown."""
    with contextlib.suppress(OSError, ValueError):
        st = path.stat() if path.exists() else path.parent.stat()
        dev = st.st_rdev if stat.S_ISBLK(st.st_mode) else st.st_dev
        sys = Path(f"/sys/dev/block/{os.major(dev)}:{os.minor(dev)}")
        for candidate in (sys / "device" / "model", sys / ".." / "device" / "model"):
            if candidate.exists():
                return candidate.read_text().strip()
    return ""


def _planned_engine(folder: Path) -> Engine:
    try:
        engine = json.loads((folder / JOBS / "plan.json").read_text())["engine"]
    except (OSError, ValueError, KeyError, TypeError):
        engine = None
    if engine not in ENGINES:
        raise InputError(folder / JOBS / "plan.json", "engine", "not planned", "run iopress plan")
    return cast(Engine, engine)


def check_jobs(folder: Path, campaign: Campaign) -> list[str]:
    """The points to run, each job file exactly as ``iopress plan`` writes it from
    campaign.toml: a job file edited by hand (fio can run commands: ioengine=exec) is
    refused, never run."""
    engine = _planned_engine(folder)
    expected = {p.name: planning.job_file(campaign, p, engine) for p in planning.points(campaign)}
    if campaign.precondition:
        expected["precondition"] = planning.precondition_job(campaign, engine)
    for name, text in expected.items():
        path = folder / JOBS / f"{name}.fio"
        if not path.is_file() or path.read_text(encoding="utf-8", errors="replace") != text:
            raise InputError(
                path,
                "",
                "missing, or not as iopress plan writes it from campaign.toml",
                f"run iopress plan campaign.toml -o {folder} again (it keeps report.toml)",
            )
    return [name for name in expected if name != "precondition"]


def run(
    folder: Path, destroy: list[str], step: Callable[[int, int, Done | None], None]
) -> list[Done]:
    """Every planned point in order (``step`` after each); preconditioning first."""
    campaign = load_campaign(folder / CAMPAIGN_FILE)
    todo = check_jobs(folder, campaign)
    guard(campaign, destroy)
    env = folder / RAW / "env"
    env.mkdir(parents=True, exist_ok=True)
    save_machine(machine(campaign), env / "machine.json")
    if campaign.precondition and not (env / "precondition.json").exists():
        pre = folder / JOBS / "precondition.fio"
        _run_fio(
            ["fio", "--output-format=json", f"--output={env / 'pre.part'}", str(pre)],
            "precondition",
            folder,
        )
        os.replace(env / "pre.part", env / "precondition.json")
    for stale in (folder / RAW).glob(".*.json.part"):  # left by a run killed with -9
        stale.unlink()
    done: list[Done] = []
    step(0, len(todo), None)
    for name in todo:
        done.append(run_point(folder, campaign, name))
        step(len(done), len(todo), done[-1])
    return done
