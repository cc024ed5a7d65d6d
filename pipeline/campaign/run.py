"""``iopress run``: the planned points with fio, one after another, each result kept only
when it is complete and readable, so that a run can be stopped and resumed at any time."""

from __future__ import annotations

import contextlib
import os
import platform
import shlex
import stat
import subprocess
import tempfile
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path

from pipeline.campaign import plan as planning
from pipeline.campaign.folder import Folder
from pipeline.campaign.model import CAMPAIGN_FILE, Campaign, Engine, load_campaign
from pipeline.campaign.plan import ENGINES, JOBS, PLAN_FILE, RAW
from pipeline.campaign.targets import create_missing, guard, load_records, look, refresh
from pipeline.dataset.results import cut_short, figures
from pipeline.errors import InputError
from pipeline.machine import Machine, save_machine

ENV = f"{RAW}/env"  # the machine that ran fio, and the preconditioning's output


@dataclass(frozen=True)
class Done:
    """One point's outcome: run now, or kept from an earlier run; its IOPS and latency."""

    name: str
    skipped: bool
    iops: float
    lat_us: float


@dataclass(frozen=True)
class Job:
    """One point's job: its name, the text checked (fio is given this text, in a folder
    of this run's own, not the job file, which could change while the run goes on) and
    how long fio runs it in all (its runtime × its workers, as fio sums them)."""

    name: str
    text: str
    planned_ms: int


def sound(result: Path, job: Job) -> tuple[float, float] | str:
    """``figures`` of a result that is fio's complete output of ``job``, else why not."""
    found = figures(result)
    if isinstance(found, str):
        return found
    try:
        short = cut_short(result, job.planned_ms)
    except (InputError, OSError, ValueError) as err:
        return str(err)
    return short or found


def valid(result: Path, job: Job) -> tuple[float, float] | None:
    """``sound``'s figures, or None."""
    found = sound(result, job)
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


def run_point(
    folder: Folder, campaign: Campaign, job: Job, scratch: Path, check: Callable[[], None]
) -> Done:
    """One point: kept when its result is already valid; else ``check`` (the targets
    judged again), fio run on the checked job text into this run's own folder, and its
    output written into the campaign folder only when it is complete and sound (synced
    before it takes its name: a machine that stops leaves no half of it)."""
    result = f"{RAW}/{job.name}.json"
    kept = valid(folder.root / result, job) if folder.check(result) else None
    if kept:
        return Done(job.name, True, *kept)
    check()
    output = _fio(campaign, job, scratch, folder.root)
    found = sound(output, job)
    if isinstance(found, str):
        raise InputError(
            folder.root / result,
            "",
            f"fio's output is not sound: {found}",
            "mend what it names, then run again: finished points are kept",
        )
    folder.write(result, output.read_bytes(), sync=True)
    return Done(job.name, False, *found)


def _fio(campaign: Campaign, job: Job, scratch: Path, root: Path) -> Path:
    """fio on ``job``'s text, written into ``scratch`` (this run's own folder, no one
    else's to change), its output there too; the output's path."""
    source, output = scratch / f"{job.name}.fio", scratch / f"{job.name}.json"
    source.write_text(job.text, encoding="utf-8")
    output.unlink(missing_ok=True)
    _run_fio(command(campaign, source, output), job.name, root)
    return output


@contextlib.contextmanager
def private() -> Iterator[Path]:
    """A folder of this run's own (mode 700) for the job texts fio reads and its output."""
    with tempfile.TemporaryDirectory(prefix="iopress-run-") as made:
        yield Path(made)


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


def _planned_engine(folder: Folder, plan: dict[str, object]) -> Engine:
    for engine in ENGINES:
        if plan.get("engine") == engine:
            return engine
    raise InputError(folder.root / PLAN_FILE, "engine", "not planned", "run iopress plan")


def check_jobs(folder: Folder, campaign: Campaign, plan: dict[str, object]) -> list[Job]:
    """The points to run (preconditioning first, where planned), each job file exactly as
    ``iopress plan`` writes it from campaign.toml: a job file edited by hand (fio can run
    commands: ioengine=exec) is refused, never run; so is a link in its place."""
    engine = _planned_engine(folder, plan)
    runtime = campaign.intervals.count * campaign.intervals.seconds * 1000
    jobs = [
        Job(p.name, planning.job_file(campaign, p, engine), runtime * p.level)
        for p in planning.points(campaign)
    ]
    if campaign.precondition:
        jobs.insert(0, Job("precondition", planning.precondition_job(campaign, engine), 0))
    for name, text in ((j.name, j.text) for j in jobs):
        path = folder.root / JOBS / f"{name}.fio"
        if not folder.check(f"{JOBS}/{name}.fio") or _text(path) != text:
            raise InputError(
                path,
                "",
                "missing, or not as iopress plan writes it from campaign.toml",
                f"run iopress plan campaign.toml -o {folder.root} again (it keeps report.toml)",
            )
    return jobs


def _text(path: Path) -> str:
    return path.read_text(encoding="utf-8", errors="replace")


def _precondition(folder: Folder, job: Job, scratch: Path) -> None:
    """SNIA preconditioning, once: its fio output is raw/env/precondition.json."""
    if folder.check(f"{ENV}/precondition.json"):
        return
    source, output = scratch / "precondition.fio", scratch / "precondition.json"
    source.write_text(job.text, encoding="utf-8")
    cmd = ["fio", "--output-format=json", f"--output={output}", str(source)]
    _run_fio(cmd, "precondition", folder.root)
    folder.write(f"{ENV}/precondition.json", output.read_bytes(), sync=True)


def run(
    folder: Path, destroy: list[str], step: Callable[[int, int, Done | None], None]
) -> list[Done]:
    """Every planned point in order (``step`` after each); preconditioning first. The
    targets are judged first: one that holds data is written only when ``destroy``
    names it; the files iopress created are recorded again after each fio run."""
    source = folder / CAMPAIGN_FILE
    campaign = load_campaign(source)
    space = Folder(folder)
    plan = planning.read_plan(space)
    jobs = check_jobs(space, campaign, plan)
    records = load_records(plan)
    create_missing(source, campaign, records)

    def check() -> None:  # before every fio run: a link may point elsewhere now
        guard(source, folder, look(campaign, records), destroy)

    check()
    planning.save_plan(space, plan, records)
    space.write_with(f"{ENV}/machine.json", lambda p: save_machine(machine(campaign), p))
    space.remove(RAW, keep=lambda n: not (n.startswith(".") and n.endswith(".json.part")))
    todo = [j for j in jobs if j.name != "precondition"]
    done: list[Done] = []
    try:
        with private() as scratch:
            for job in jobs[: len(jobs) - len(todo)]:
                _precondition(space, job, scratch)
            step(0, len(todo), None)
            for job in todo:
                done.append(run_point(space, campaign, job, scratch, check))
                refresh(records)
                planning.save_plan(space, plan, records)
                step(len(done), len(todo), done[-1])
    finally:  # fio wrote the files iopress created: they are its own still
        refresh(records)
        planning.save_plan(space, plan, records)
    return done
