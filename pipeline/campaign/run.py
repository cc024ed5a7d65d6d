"""``iopress run``: the planned points with fio, one after another, each result kept only
when it is complete and readable, so that a run can be stopped and resumed at any time."""

from __future__ import annotations

import contextlib
import hashlib
import hmac
import os
import platform
import shlex
import signal
import stat
import subprocess
import tempfile
import threading
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path

from pipeline.cache import signature
from pipeline.campaign import plan as planning
from pipeline.campaign.folder import Folder
from pipeline.campaign.model import CAMPAIGN_FILE, Campaign, Engine, load_campaign
from pipeline.campaign.plan import ENGINES, JOBS, PLAN_FILE, RAW
from pipeline.campaign.targets import (
    Record,
    Seen,
    adopt,
    create_missing,
    guard,
    identity,
    key,
    load_records,
    local,
    look,
    refresh,
    require_key,
    shared_folder,
    still,
)
from pipeline.dataset.results import cut_short, figures
from pipeline.errors import InputError
from pipeline.machine import Machine, save_machine
from pipeline.units import convert_time

ENV = f"{RAW}/env"  # the machine that ran fio, and the preconditioning's output
# raw/'s results of no planned point (a point planned no more, a file sent with the folder):
# kept, out of the report's sources (raw/*.json)
ASIDE = "unplanned"


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
    how: str = ""  # fio's command line (its hosts, its snapshots), signed with the result


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
    options = ["--output-format=json+", f"--status-interval={campaign.intervals.seconds}"]
    return _on_hosts(campaign, job, [*options, f"--output={output}"])


def _on_hosts(campaign: Campaign, job: Path, options: list[str]) -> list[str]:
    """fio with ``options`` running ``job`` where the campaign's targets are: on this
    machine, or on every fio server (a fio server's targets are its disks: preconditioning
    ran here, writing this machine's file or device of the same name)."""
    if campaign.hosts[0].address == "local":
        return ["fio", *options, str(job)]
    cmd = ["fio", *options]
    for host in campaign.hosts:  # fio writes a server's port after a comma
        cmd += [f"--client={host.address.replace(':', ',')}", str(job)]
    return cmd


@dataclass(frozen=True)
class Session:
    """What every fio of one run shares: the run's own folder (the job texts fio reads,
    its output) and the folder's lock, which fio and its workers hold with the run."""

    scratch: Path
    lock: int
    results: dict[str, object]  # plan.json's: point -> signature of its job and result
    campaign: Campaign


def _run_fio(cmd: list[str], name: str, folder: Path, session: Session) -> None:
    """fio in a process group of its own (Ctrl-C reaches the run, which stops fio:
    ``_stop``), holding the folder's lock with its workers."""
    process: subprocess.Popen[str] | None = None
    try:
        with _deferred() as caught:  # a Ctrl-C while fio starts would leave it running
            process = _start(cmd, session.lock)
        for number in caught:
            signal.raise_signal(number)  # its own handler now: Ctrl-C, SIGTERM's exit
        out, said = process.communicate()
    except OSError as err:
        _stop(process, session.lock)
        raise InputError(folder, name, f"fio could not start: {err}", "install fio") from None
    except BaseException:
        _stop(process, session.lock)
        raise
    if process.returncode:
        tail = (said or out or _written(cmd)).strip().splitlines()[-3:]
        raise InputError(
            folder / JOBS / f"{name}.fio",
            "",
            f"fio failed (exit {process.returncode}): {' / '.join(tail)}",
            "fix the campaign (iopress plan again) or the machine, then run again: "
            "finished points are kept",
        )


def _written(cmd: list[str]) -> str:
    """What fio wrote into its ``--output`` (where it puts its errors too)."""
    for part in cmd:
        if part.startswith("--output="):
            with contextlib.suppress(OSError):
                return Path(part.removeprefix("--output=")).read_text(errors="replace")[-4000:]
    return ""


def _start(cmd: list[str], lock: int) -> subprocess.Popen[str]:
    return subprocess.Popen(
        cmd,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        process_group=0,
        pass_fds=(lock,),
    )


def _stop(process: subprocess.Popen[str] | None, lock: int) -> None:
    """fio stopped as Ctrl-C stops it: its workers (each a session of its own, out of
    reach of its group) told to end and waited for; where it does not end within
    ``STOP_SECONDS``, every process holding the folder's lock (fio and its workers: they
    inherit it) is killed (killing fio's first process alone left a worker writing the
    target until its run time ended)."""
    if process is None:
        return
    with contextlib.suppress(ProcessLookupError):
        process.send_signal(signal.SIGINT)
    try:
        process.communicate(timeout=STOP_SECONDS)
    except subprocess.TimeoutExpired:
        for pid in [process.pid, *holders(lock)]:
            with contextlib.suppress(ProcessLookupError, PermissionError):
                os.kill(pid, signal.SIGKILL)
        process.wait()


def holders(lock: int) -> list[int]:
    """The other processes that hold the file open as ``lock`` (Linux: /proc)."""
    held = os.fstat(lock)
    found = []
    for pid in filter(str.isdigit, os.listdir("/proc")):
        if int(pid) == os.getpid():
            continue
        with contextlib.suppress(OSError):
            for fd in os.listdir(f"/proc/{pid}/fd"):
                with contextlib.suppress(OSError):
                    st = os.stat(f"/proc/{pid}/fd/{fd}")
                    if (st.st_dev, st.st_ino) == (held.st_dev, held.st_ino):
                        found.append(int(pid))
                        break
    return found


STOP_SECONDS = 30


@contextlib.contextmanager
def _deferred() -> Iterator[list[int]]:
    """Ctrl-C and SIGTERM held back (listed) while the block runs, where this is the
    main thread (only it takes signals in Python)."""
    caught: list[int] = []
    if threading.current_thread() is not threading.main_thread():
        yield caught
        return
    old = {n: signal.signal(n, lambda got, _: caught.append(got)) for n in STOPS}
    try:
        yield caught
    finally:
        for number, handler in old.items():
            signal.signal(number, handler)


STOPS = (signal.SIGINT, signal.SIGTERM)


def run_point(
    folder: Folder, campaign: Campaign, job: Job, session: Session, check: Callable[[], None]
) -> Done:
    """One point: kept when its result is already valid; else ``check`` (the targets
    judged again), fio run on the checked job text into this run's own folder, and its
    output written into the campaign folder only when it is complete and sound (synced
    before it takes its name: a machine that stops leaves no half of it)."""
    result = f"{RAW}/{job.name}.json"
    kept = _kept(folder, result, job, session)
    if kept:
        return Done(job.name, True, *kept)
    check()
    output = _fio(lambda j, o: command(campaign, j, o), job, session, folder.root)
    found = sound(output, job)
    if isinstance(found, str):
        raise InputError(
            folder.root / result,
            "",
            f"fio's output is not sound: {found}",
            "mend what it names, then run again: finished points are kept",
        )
    data = output.read_bytes()
    folder.write(result, data, sync=True)
    session.results[job.name] = _vouch(job, data, session) or ""
    return Done(job.name, False, *found)


def _kept(folder: Folder, result: str, job: Job, session: Session) -> tuple[float, float] | None:
    """The figures of a result a run of this user measured with this very job text (a
    result of an earlier plan, or one that came with the folder, is measured again), if
    it is sound."""
    if not _vouched(folder, result, job, session):
        return None
    return valid(folder.root / result, job)


def _vouched(folder: Folder, result: str, job: Job, session: Session) -> bool:
    if not folder.check(result):
        return False
    signed = session.results.get(job.name)
    expected = _vouch(job, (folder.root / result).read_bytes(), session)
    if not isinstance(signed, str) or not expected:
        return False
    return hmac.compare_digest(signed, expected)


def _vouch(job: Job, data: bytes, session: Session) -> str | None:
    """The signature (this user's key) of a point's job text, fio's command line, the
    targets as they are (their real paths and the files there, after fio wrote them: it
    may lay a file out anew) and the result they gave: a result is measured again when
    any of them is another (two intervals of 1 s and one of 2 s have the same job text,
    not the same command; a relative target resumed from another folder is another
    file)."""
    how = f"{job.how} {_targets_now(session.campaign)}"
    parts = (job.text.encode("utf-8"), how.encode("utf-8"), data)
    digests = b"".join(hashlib.sha256(part).digest() for part in parts)
    return signature("campaign-result", job.name.encode("utf-8") + b"\0" + digests)


def _fio(fio: Callable[[Path, Path], list[str]], job: Job, session: Session, root: Path) -> Path:
    """``fio(job file, output)`` on ``job``'s text, written into the session's folder
    (this run's own, no one else's to change), its output there too; the output's path."""
    source = session.scratch / f"{job.name}.fio"
    output = session.scratch / f"{job.name}.json"
    _private(source, job.text)
    output.unlink(missing_ok=True)
    _run_fio(fio(source, output), job.name, root, session)
    return output


def _private(path: Path, text: str) -> None:
    """``text`` into a new file of this run's own folder (never through a name there)."""
    path.unlink(missing_ok=True)
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC, 0o600)
    with os.fdopen(fd, "w", encoding="utf-8") as fh:
        fh.write(text)


@contextlib.contextmanager
def session(folder: Folder, results: dict[str, object], campaign: Campaign) -> Iterator[Session]:
    """The campaign folder held (one plan or run at a time), and a folder of this run's
    own (mode 700) for the job texts fio reads and its output."""
    base = tempfile.gettempdir()
    if shared := shared_folder(os.path.join(base, "x")):
        raise InputError(
            Path(base),
            "",
            f"the folder for temporary files lies in {shared}, "
            "which others may change: they could give fio another job text",
            "set TMPDIR to a folder of your own (or leave it unset: /tmp is sticky)",
        )
    with folder.locked() as lock, tempfile.TemporaryDirectory(prefix="iopress-run-") as made:
        yield Session(Path(made), lock, results, campaign)


def describe(host: str = "local", targets: tuple[str, ...] = ()) -> Machine:
    """This machine: its name, fio's version, the kernel, the CPU, the memory and the
    models of the devices holding ``targets``."""
    try:
        fio = subprocess.run(["fio", "--version"], capture_output=True, text=True, check=False)
        version = fio.stdout.strip()
    except OSError:
        version = ""  # no fio here: the first point says so
    return Machine(
        host=host,
        hostname=platform.node(),
        fio=version,
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
    seconds = campaign.intervals.count * campaign.intervals.seconds
    runtime = round(convert_time(seconds, "s", "ms"))  # fio's job_runtime is in ms
    how = shlex.join(command(campaign, Path("JOB"), Path("OUTPUT")))
    jobs = [
        Job(p.name, planning.job_file(campaign, p, engine), runtime * p.level, how)
        for p in planning.points(campaign)
    ]
    if campaign.precondition:
        text = planning.precondition_job(campaign, engine)
        how = shlex.join(_preconditioning(campaign))
        jobs.insert(0, Job(planning.PRECONDITION, text, 0, how))
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


def _preconditioning(
    campaign: Campaign, job: Path = Path("JOB"), output: Path = Path("OUTPUT")
) -> list[str]:
    return _on_hosts(campaign, job, ["--output-format=json", f"--output={output}"])


def _precondition(folder: Folder, campaign: Campaign, job: Job, session: Session) -> bool:
    """SNIA preconditioning, once: its fio output is raw/env/precondition.json (one that
    came with the folder, of another job text, or of targets since replaced by other
    files does not count: the targets as they are are preconditioned)."""
    if _vouched(folder, f"{ENV}/precondition.json", job, session):
        return False
    output = _fio(lambda j, o: _preconditioning(campaign, j, o), job, session, folder.root)
    data = output.read_bytes()
    folder.write(f"{ENV}/precondition.json", data, sync=True)
    session.results[job.name] = _vouch(job, data, session) or ""
    return True


def run(
    folder: Path, destroy: list[str], step: Callable[[int, int, Done | None], None]
) -> list[Done]:
    """Every planned point in order (``step`` after each); preconditioning first. The
    folder is held by this run alone (and its fio). The targets are judged before every
    fio run: one that holds data is written only when ``destroy`` names it; the files
    iopress created are recorded again after each fio run."""
    source = folder / CAMPAIGN_FILE
    campaign = load_campaign(source)
    require_key()
    space = Folder(folder)
    results: dict[str, object] = {}
    with session(space, results, campaign) as held:
        plan, jobs, records = _read(space, campaign, source, results)
        agreed = {identity(d) for d in destroy}  # what --destroy-data names as the run begins

        judged: list[tuple[list[Seen], list[str]]] = []

        def check() -> None:  # before every fio run: a link may point elsewhere now
            # a fio server's targets are out of sight: the names are all there is
            named = still(destroy, agreed) if local(campaign) else destroy
            seen = look(campaign, records)
            guard(source, folder, seen, named)
            judged[:] = [(seen, named)]

        def after(ran: bool) -> None:  # fio wrote the files iopress created: its own still
            if ran and judged:  # a file --destroy-data named holds fio's data alone now
                adopt(*judged[0], records)
            refresh(records, campaign)
            planning.save_plan(space, plan, records)

        check()
        planning.save_plan(space, plan, records)
        space.write_with(f"{ENV}/machine.json", lambda p: save_machine(machine(campaign), p))
        space.remove(RAW, keep=lambda n: not (n.startswith(".") and n.endswith(".json.part")))
        planned = {f"{j.name}.json" for j in jobs}  # a result of no planned point: set aside
        space.set_aside(RAW, keep=lambda n: not n.endswith(".json") or n in planned, into=ASIDE)
        try:
            return _points(space, campaign, jobs, held, (check, after), step)
        finally:
            after(False)


def _read(
    space: Folder, campaign: Campaign, source: Path, results: dict[str, object]
) -> tuple[dict[str, object], list[Job], dict[str, Record]]:
    """plan.json (its results into ``results``), the checked jobs and the records of the
    files iopress created, the missing ones created now."""
    plan = planning.read_plan(space)
    found = plan.get("results")
    results.update(found if isinstance(found, dict) else {})
    plan["results"] = results
    jobs = check_jobs(space, campaign, plan)
    records = load_records(plan)
    if create_missing(source, campaign, records):  # a new file: preconditioned again
        results.pop(planning.PRECONDITION, None)
    return plan, jobs, records


def _targets_now(campaign: Campaign) -> str:
    """The targets as they are: each real path and the file or device there (a fio
    server's as written: out of sight)."""
    if not local(campaign):
        return " ".join(t.path for t in campaign.targets)
    return " ".join(f"{key(t)}={identity(key(t))}" for t in campaign.targets)


def _points(
    space: Folder,
    campaign: Campaign,
    jobs: list[Job],
    held: Session,
    around: tuple[Callable[[], None], Callable[[bool], None]],
    step: Callable[[int, int, Done | None], None],
) -> list[Done]:
    """Preconditioning where planned, then every point (``step`` after each); ``around``:
    what is done before each fio run (the targets judged) and after it (recorded)."""
    check, after = around
    todo = [j for j in jobs if j.name != planning.PRECONDITION]
    for job in (j for j in jobs if j.name == planning.PRECONDITION):
        check()
        after(_precondition(space, campaign, job, held))
    step(0, len(todo), None)
    done: list[Done] = []
    for job in todo:
        done.append(run_point(space, campaign, job, held, check))
        after(not done[-1].skipped)
        step(len(done), len(todo), done[-1])
    return done
