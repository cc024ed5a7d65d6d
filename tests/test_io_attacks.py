"""Issue #32, items 8, 9 and 11: what a build read and what it writes, under attack.

Provenance describes the bytes the readers read (a name swapped for a link during the
build changes nothing); a hard link out is noted; writing the output fails as one line
(disk full, a folder it may not write, a name too long), never a traceback, the earlier
output kept; JSON nested 200,000 deep is an input error; ``ingest`` never overwrites its
input; a folder of bad files is summarised; ``verify --published`` refuses a FIFO; one
build at a time writes an output folder."""

from __future__ import annotations

import contextlib
import csv
import errno
import fcntl
import hashlib
import os
import shutil
import subprocess
import sys
import time
import tracemalloc
from collections.abc import Iterator
from pathlib import Path

import pytest

from pipeline import build as build_module
from pipeline import inputs
from pipeline.dataset.sources import read_sources
from pipeline.errors import InputError
from pipeline.prepare import prepare
from tests.cli import ROOT, Ran, iopress
from tests.conftest import DATA

SHOWN = 20  # pipeline.errors.SHOWN: errors and rejects printed in full
MIXED = DATA / "reports" / "mixed"
FIO_LOG = DATA / "fio-log"


def report_copy(tmp_path: Path, logs: bool = False) -> Path:
    """The mixed report (with fio logs and their JSON in raw/ when ``logs``)."""
    report = Path(shutil.copytree(MIXED, tmp_path / "report"))
    if logs:
        # both clones of the job: one alone is refused (the job's sum would lack the other)
        clones = [f"win_{m}.{c}.log" for m in ("iops", "lat", "bw") for c in (1, 2)]
        for name in (*clones, "win.json"):
            shutil.copy(FIO_LOG / name, report / "raw" / name)
        toml = report / "report.toml"
        added = '\n[[sources]]\npath = "raw/win_iops.1.log"\nformat = "fio-log"\n'
        toml.write_text(toml.read_text(encoding="utf-8") + added, encoding="utf-8")
    return report


def sha(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def one_line_refusal(ran: Ran, *words: str, code: int = 1) -> None:
    """Exit ``code``, no traceback, one error (with its hint) naming every one of ``words``."""
    text = ran.stdout + ran.stderr
    assert "Traceback" not in text, text[-3000:]
    assert ran.returncode == code, text[-3000:]
    errors = [line for line in text.splitlines() if line.startswith("error:")]
    assert len(errors) == 1, text[-3000:]
    for word in words:
        assert word in text, f"{word!r} not named:\n{text[-3000:]}"


def listing(folder: Path) -> list[tuple[str, str]]:
    return sorted(
        (p.relative_to(folder).as_posix(), sha(p) if p.is_file() else "dir")
        for p in folder.rglob("*")
    )


# --- item 8: provenance describes what was read --------------------------------------------


SWAPPED = ("raw/fio.json", "raw/win_iops.1.log", "raw/win.json")


def test_provenance_lists_the_bytes_read_when_names_are_swapped_for_links_out(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A raw file, a streamed fio log and a sidecar JSON are swapped for links to files
    outside right after they were read: the provenance lists the files the figures came
    from (their hash), never the outside ones."""
    report = report_copy(tmp_path, logs=True)
    before = {name: sha(report / name) for name in SWAPPED}
    outside = tmp_path / "outside"
    outside.mkdir()
    read = read_sources

    def read_then_swap(*args: object, **kwargs: object) -> object:
        dataset = read(*args, **kwargs)  # type: ignore[arg-type]
        for name in SWAPPED:
            target = outside / Path(name).name
            target.write_bytes((report / name).read_bytes() + b"\n\n")
            (report / name).unlink()
            (report / name).symlink_to(target)
        return dataset

    monkeypatch.setattr("pipeline.report.read.read_sources", read_then_swap)
    listed = {f.path: f.sha256 for f in prepare(report).inputs()}
    assert not [p for p in listed if "outside" in p], listed
    for name in SWAPPED:
        assert listed.get(name) == before[name], (name, listed)


def test_a_file_read_twice_with_other_bytes_is_an_error(tmp_path: Path) -> None:
    path = tmp_path / "a.toml"
    path.write_text("a = 1\n", encoding="utf-8")
    with inputs.ledger(tmp_path):
        inputs.read_text(path)
        path.write_text("a = 2\n", encoding="utf-8")
        with pytest.raises(InputError, match="changed while the build read it"):
            inputs.read_text(path)


def test_a_small_file_is_read_without_a_buffer_of_the_size_limit(tmp_path: Path) -> None:
    path = tmp_path / "small.json"
    path.write_bytes(b'{"jobs": []}\n')
    tracemalloc.start()
    try:
        assert inputs.read_bytes(path) == b'{"jobs": []}\n'
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert peak < 1_000_000, f"{peak:,} bytes allocated to read 13"


def test_a_file_larger_than_its_size_said_is_read_whole_and_still_limited() -> None:
    grows = Path("/proc/self/status")  # a regular file whose size reads as 0
    if not grows.is_file() or grows.stat().st_size:
        pytest.skip("no /proc")
    assert b"Name:" in inputs.read_bytes(grows)
    with pytest.raises(InputError, match="file too large to read whole"):
        inputs.read_bytes(grows, limit=10)


def test_a_name_swapped_for_a_link_out_after_its_check_is_not_read(tmp_path: Path) -> None:
    root, secret = tmp_path / "report", tmp_path / "secret.txt"
    root.mkdir()
    secret.write_text("key\n", encoding="utf-8")
    (root / "a.md").write_text("text\n", encoding="utf-8")
    path = inputs.inside(root, "a.md")  # checked: inside
    (root / "a.md").unlink()
    (root / "a.md").symlink_to(secret)  # then swapped
    with inputs.ledger(root), pytest.raises(InputError, match="outside the report folder"):
        inputs.read_text(path)


def test_a_hard_link_to_a_file_outside_is_noted_and_listed(tmp_path: Path) -> None:
    report = report_copy(tmp_path)
    outside = tmp_path / "fio.json"
    shutil.move(report / "raw" / "fio.json", outside)
    os.link(outside, report / "raw" / "fio.json")
    os.link(report / "raw" / "iogen.csv", report / "raw" / "iogen-copy.csv")  # both inside
    ctx = prepare(report)
    notes = [n for n in ctx.dataset.notes if "hard link" in n]
    assert len(notes) == 1 and notes[0].startswith("raw/fio.json: "), ctx.dataset.notes
    listed = {f.path: f.sha256 for f in ctx.inputs()}
    assert listed["raw/fio.json"] == sha(outside)


# --- item 9: writing the output fails as one line --------------------------------------------


@pytest.fixture(scope="module")
def built(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A good build of the mixed report (copied by each test that overwrites it)."""
    out = tmp_path_factory.mktemp("built") / "out"
    ran = iopress("build", MIXED, "-o", out)
    assert ran.returncode == 0, ran
    return out


def test_disk_full_is_one_line_and_the_old_output_stays(
    built: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    out = Path(shutil.copytree(built, tmp_path / "out"))
    before = listing(out)

    def full(ctx: object, work: Path) -> None:
        (work / "dataset.parquet").write_bytes(b"PAR1")
        raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC), str(work / "dataset.parquet"))

    monkeypatch.setattr(build_module, "write_data", full)
    ran = iopress("build", MIXED, "-o", out, "--force")
    one_line_refusal(ran, f"{out}/dataset.parquet", "No space left on device", "free space")
    assert listing(out) == before
    assert sorted(p.name for p in tmp_path.iterdir()) == ["out"]  # no staging left


@contextlib.contextmanager
def mounted(folder: Path, options: str) -> Iterator[None]:
    folder.mkdir()
    done = subprocess.run(
        ["mount", "-t", "tmpfs", "-o", options, "tmpfs", str(folder)],
        capture_output=True,
        check=False,
    )
    if done.returncode:
        pytest.skip("cannot mount a tmpfs here (not root)")
    try:
        yield
    finally:
        subprocess.run(["umount", "-l", str(folder)], check=False)


@pytest.mark.skipif(sys.platform != "linux", reason="tmpfs")
def test_a_real_full_disk_is_one_line(tmp_path: Path) -> None:
    disk = tmp_path / "disk"
    with mounted(disk, "size=600k"):
        ran = iopress("build", MIXED, "-o", disk / "out")
        one_line_refusal(ran, str(disk / "out"), "No space left on device")
        assert list(disk.iterdir()) == []


def test_output_under_proc_is_one_line(tmp_path: Path) -> None:
    ran = iopress("build", MIXED, "-o", "/proc/self/out")
    one_line_refusal(ran, "out", "cannot write the output")


@pytest.mark.skipif(sys.platform != "linux", reason="tmpfs")
def test_a_read_only_parent_is_one_line(tmp_path: Path) -> None:
    parent = tmp_path / "ro"
    if os.geteuid() == 0:
        context: contextlib.AbstractContextManager[None] = mounted(parent, "ro,size=1m")
    else:
        parent.mkdir()
        parent.chmod(0o555)
        context = contextlib.nullcontext()
    with context:
        ran = iopress("build", MIXED, "-o", parent / "out")
        one_line_refusal(ran, str(parent / "out"), "cannot write the output")


def test_an_id_too_long_for_a_file_name_is_an_input_error(tmp_path: Path) -> None:
    report = report_copy(tmp_path)
    toml = report / "report.toml"
    toml.write_text(
        toml.read_text(encoding="utf-8").replace('id = "mixed"', f'id = "{"a" * 245}"'),
        encoding="utf-8",
    )
    ran = iopress("build", report, "-o", tmp_path / "out")
    assert "Traceback" not in ran.stdout + ran.stderr, ran
    assert ran.returncode == 1, ran
    assert "report.toml: id" in ran.stderr and "128" in ran.stderr, ran


def test_a_long_output_name_builds(tmp_path: Path) -> None:
    """250 bytes: its staging folder's name (".NAME.tmp-PID-HEX") would be too long."""
    out = tmp_path / ("o" * 250)
    ran = iopress("build", MIXED, "-o", out)
    assert ran.returncode == 0, ran
    assert (out / "manifest.json").is_file()
    assert sorted(p.name for p in tmp_path.iterdir()) == [out.name]


DEEP = 200_000


def _deep_machine(report: Path) -> str:
    (report / "raw" / "env").mkdir()
    (report / "raw" / "env" / "machine.json").write_text("[" * DEEP + "]" * DEEP)
    toml = report / "report.toml"
    text = toml.read_text(encoding="utf-8")
    text = text.replace("\n[system]", '\nmachines = ["raw/env/machine.json"]\n\n[system]', 1)
    toml.write_text(text, encoding="utf-8")
    return "raw/env/machine.json"


def _deep_fio(report: Path) -> str:
    jobs = "[" * DEEP + "]" * DEEP
    (report / "raw" / "fio.json").write_text(f'{{"fio version": "fio-3.33", "jobs": {jobs}}}')
    return "raw/fio.json"


@pytest.mark.parametrize("place", [_deep_machine, _deep_fio])
def test_json_nested_200000_deep_is_an_input_error(place: object, tmp_path: Path) -> None:
    report = report_copy(tmp_path)
    name = place(report)  # type: ignore[operator]
    ran = iopress("tables", report, cwd=tmp_path)
    one_line_refusal(ran, name, "nested deeper")


# --- item 11: ingest onto its input, many bad files, a FIFO, concurrent builds -------------


def _same(raw: Path) -> Path:
    return raw


def _relative(raw: Path) -> Path:
    return raw.parent / "." / ".." / raw.parent.name / raw.name


def _symlink(raw: Path) -> Path:
    (raw.parent / "link.parquet").symlink_to(raw)
    return raw.parent / "link.parquet"


def _hard_link(raw: Path) -> Path:
    os.link(raw, raw.parent / "hard.parquet")
    return raw.parent / "hard.parquet"


def _intervals(raw: Path) -> Path:
    """The output's companion (x.intervals.parquet) is the input."""
    return raw.parent / raw.name.replace(".intervals.parquet", ".parquet")


def _rejects(raw: Path) -> Path:
    """The output's list of rejects (x.rejects.csv) is the input: it was replaced."""
    return raw.parent / raw.name.replace(".rejects.csv", ".parquet")


COMPANIONS = {_intervals: "fio.intervals.parquet", _rejects: "fio.rejects.csv"}


@pytest.mark.parametrize("name", [_same, _relative, _symlink, _hard_link, _intervals, _rejects])
def test_ingest_never_writes_over_its_input(name: object, tmp_path: Path) -> None:
    folder = tmp_path / "raw"
    folder.mkdir()
    raw = folder / COMPANIONS.get(name, "fio.json")  # type: ignore[call-overload]
    shutil.copy(MIXED / "raw" / "fio.json", raw)
    before = sha(raw)
    ran = iopress("ingest", raw, "--format", "fio", "-o", name(raw), cwd=tmp_path)  # type: ignore[operator]
    one_line_refusal(ran, "is the input", code=2)
    assert sha(raw) == before


def test_many_bad_files_are_summarised_and_all_listed(tmp_path: Path) -> None:
    bad = SHOWN + 15
    for i in range(bad):
        (tmp_path / f"bad{i:03}.json").write_text(f"not a benchmark {i}\n", encoding="utf-8")
    shutil.copy(MIXED / "raw" / "fio.json", tmp_path / "good.json")
    files = sorted(p.name for p in tmp_path.glob("*.json"))
    stopped = iopress("ingest", *files, "-o", "out.parquet", cwd=tmp_path)
    assert stopped.returncode == 1
    assert len(stopped.stderr.splitlines()) < 2 * SHOWN + 10, stopped
    assert "and 15 more" in stopped.stderr, stopped
    kept = iopress("ingest", *files, "-o", "out.parquet", "--keep-going", cwd=tmp_path)
    assert kept.returncode == 0, kept
    assert len(kept.stderr.splitlines()) < SHOWN + 10, kept
    assert "and 15 more, all of them in out.rejects.csv" in kept.stderr, kept
    with (tmp_path / "out.rejects.csv").open(encoding="utf-8") as fh:
        rows = list(csv.DictReader(fh))
    assert sorted(r["source"] for r in rows) == [f for f in files if f != "good.json"]


def test_a_build_with_many_failing_files_is_summarised(tmp_path: Path) -> None:
    report = report_copy(tmp_path)
    toml = report / "report.toml"
    sources = "".join(f'\n[[sources]]\npath = "raw/bad{i}.json"\n' for i in range(SHOWN + 5))
    for i in range(SHOWN + 5):
        (report / "raw" / f"bad{i}.json").write_text("garbage\n", encoding="utf-8")
    toml.write_text(toml.read_text(encoding="utf-8") + sources, encoding="utf-8")
    ran = iopress("tables", report, cwd=tmp_path)
    assert ran.returncode == 1
    assert f"{SHOWN + 5} input errors:" in ran.stderr and "and 5 more" in ran.stderr, ran
    assert len(ran.stderr.splitlines()) < 2 * SHOWN + 5, ran


def test_verify_refuses_a_fifo_at_once(tmp_path: Path) -> None:
    fifo = tmp_path / "published.csv"
    os.mkfifo(fifo)
    env = {**os.environ, "PYTHONPATH": str(ROOT), "COLUMNS": "1000"}
    command = [sys.executable, "-m", "pipeline.cli", "verify", str(MIXED), "--published", str(fifo)]
    try:
        done = subprocess.run(command, env=env, capture_output=True, text=True, timeout=120)
    except subprocess.TimeoutExpired:
        pytest.fail("verify waited for a writer on the FIFO")
    ran = Ran(done.returncode, done.stdout, done.stderr)
    one_line_refusal(ran, str(fifo), "not a regular", code=2)  # verify's 1: a figure differs


def test_a_build_into_an_output_another_build_writes_is_refused(tmp_path: Path) -> None:
    out = tmp_path / "out"
    path = out.parent / ".out.lock"  # output.lock_path
    with path.open("w") as held:
        fcntl.flock(held, fcntl.LOCK_EX)
        held.write("4242\n")
        held.flush()
        ran = iopress("build", MIXED, "-o", out)
    one_line_refusal(ran, str(out), "another iopress (process 4242)")
    assert not out.exists()


def test_concurrent_builds_into_one_output(tmp_path: Path) -> None:
    """Three builds started together: one writes, the others are refused with a message;
    the output is whole and nothing is left beside it."""
    out = tmp_path / "out"
    env = {**os.environ, "PYTHONPATH": str(ROOT), "COLUMNS": "1000"}
    command = [sys.executable, "-m", "pipeline.cli", "build", str(MIXED), "-o", str(out)]
    runs = [
        subprocess.Popen(command, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        for _ in range(3)
    ]
    done = [(p.wait(timeout=300), p.communicate()[1].decode()) for p in runs]
    codes = sorted(code for code, _ in done)
    assert codes[0] == 0, done
    refused = [err for code, err in done if code]
    assert refused, done  # they overlapped: each was told so
    assert all("another iopress" in err and "Traceback" not in err for err in refused), done
    assert (out / "manifest.json").is_file()
    time.sleep(0.1)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["out"]


def test_the_shown_count_is_the_pipelines() -> None:
    from pipeline import errors, output

    assert errors.SHOWN == SHOWN
    assert output.lock_path(Path("/x/out")) == Path("/x/.out.lock")


def test_a_streamed_log_written_while_read_is_an_error(tmp_path: Path) -> None:
    """A fio log is hashed through its open file, then read by polars through the same
    file: written in between, it is refused (the hash would not describe what was read)."""
    log = tmp_path / "win_iops.1.log"
    shutil.copy(FIO_LOG / "win_iops.1.log", log)
    with pytest.raises(InputError, match="changed while"), inputs.ledger(tmp_path):
        inputs.stream(log)
        with log.open("ab") as fh:
            fh.write(b"1000, 1, 0, 4096\n")


def test_ingest_refuses_a_fifo_at_once(tmp_path: Path) -> None:
    os.mkfifo(tmp_path / "fio.json")
    env = {**os.environ, "PYTHONPATH": str(ROOT), "COLUMNS": "1000"}
    command = [sys.executable, "-m", "pipeline.cli", "ingest", "fio.json", "-o", "x.parquet"]
    try:
        done = subprocess.run(
            command, env=env, cwd=tmp_path, capture_output=True, text=True, timeout=120
        )
    except subprocess.TimeoutExpired:
        pytest.fail("ingest waited for a writer on the FIFO")
    assert done.returncode == 1 and "fio.json: not a regular file" in done.stderr, done


def test_a_record_named_like_a_catalogue_file_is_listed_beside_it(tmp_path: Path) -> None:
    """A report's own spc1/AE00008.toml beside the catalogue's AE00008: both are read, so
    both are listed with their own hash (the catalogue file was named 'spc1/AE00008.toml'
    too, and one row hid the other's bytes); iopress's own files are marked iopress:."""
    from pipeline.build import build
    from pipeline.paths import ROOT
    from tests.conftest import FS840

    report = Path(shutil.copytree(FS840, tmp_path / "r"))
    forged = report / "spc1" / "AE00008.toml"
    forged.parent.mkdir()
    catalogue = ROOT / "data" / "spc1" / "AE00008.toml"
    forged.write_text(catalogue.read_text().replace("AE00008", "AE99999"))
    toml = report / "report.toml"
    old = 'spc1 = ["AE00008", "A00163"]'
    toml.write_text(toml.read_text().replace(old, 'spc1 = ["AE00008", "spc1/AE00008.toml"]'))
    out = build(report, tmp_path / "out").out
    with (out / "inputs.csv").open(encoding="utf-8") as f:
        listed = {row["path"]: row["sha256"] for row in csv.DictReader(f)}
    assert listed["spc1/AE00008.toml"] == sha(forged)
    assert listed["iopress:data/spc1/AE00008.toml"] == sha(catalogue)


def _fs840_with(tmp_path: Path, source: str, fmt: str = "iogen") -> Path:
    from tests.conftest import FS840

    report = Path(shutil.copytree(FS840, tmp_path / "r"))
    toml = report / "report.toml"
    added = f'\n[[sources]]\npath = "{source}"\nformat = "{fmt}"\n'
    toml.write_text(toml.read_text(encoding="utf-8") + added, encoding="utf-8")
    return report


@pytest.mark.parametrize(
    ("source", "said"),
    [
        ("*/../../../outside/*.csv", "has '..' in a pattern"),  # listed files outside
        ("*/../../../../../**/*.key", "has '..' in a pattern"),  # walked from /
        ("raw/" + "a" * 300 + ".csv", "is longer than a file name can be"),  # ENAMETOOLONG
        ("loop/x.csv", "a link loop"),  # loop -> loop: RuntimeError from resolve
    ],
)
def test_paths_the_file_system_refuses_are_one_line_errors(
    tmp_path: Path, source: str, said: str
) -> None:
    """Each was a traceback or a walk outside the folder (red team g1, g2root,
    a1_longname, a1_loop)."""
    report = _fs840_with(tmp_path, source)
    (report / "loop").symlink_to("loop")
    one_line_refusal(iopress("build", report, "-o", tmp_path / "out"), said)
    assert not (tmp_path / "out").exists()


def test_a_link_loop_named_by_nothing_and_a_name_not_utf8(tmp_path: Path) -> None:
    """A loop nobody names is no error (the up-to-date check skipped it with a
    traceback); a method file whose name is not UTF-8 is named as such."""
    from tests.conftest import FS840

    report = Path(shutil.copytree(FS840, tmp_path / "r"))
    (report / "text" / "loop").symlink_to("loop")
    ran = iopress("build", report, "-o", tmp_path / "out")
    assert ran.returncode == 0, ran
    (report / "jobs").mkdir()
    (report / os.fsdecode(b"jobs/bad\xff.fio")).write_text("[job]\n")
    toml = report / "report.toml"
    toml.write_text('method = ["jobs/*.fio"]\n' + toml.read_text(encoding="utf-8"))
    ran = iopress("build", report, "-o", tmp_path / "out2")
    one_line_refusal(ran, "method[0]", "is not UTF-8", "rename it")


def test_a_fifo_where_a_log_looks_for_its_json_does_not_block(tmp_path: Path) -> None:
    """fio_log sniffed a candidate JSON beside a log with a blocking open: a FIFO put there
    (after the is_file check) held the build until someone wrote into it."""
    import threading

    from pipeline.ingest import fio_log

    fifo = tmp_path / "win.json"
    os.mkfifo(fifo)
    found: list[object] = []
    reader = threading.Thread(target=lambda: found.append(fio_log._from_json(fifo, 1, "win", "")))
    reader.daemon = True
    reader.start()
    reader.join(10)
    if reader.is_alive():  # unblock the old code's open, so the test ends
        with open(os.open(fifo, os.O_WRONLY | os.O_NONBLOCK), "wb"):
            pass
        reader.join(5)
        pytest.fail("the sniff blocked on a FIFO")
    assert found == [None]
