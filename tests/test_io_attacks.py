"""Issue #32, items 8, 9 and 11: what a build read, under attack.

Provenance describes the bytes the readers read (a name swapped for a link during the
build changes nothing); a hard link out is noted; JSON nested 200,000 deep is an input
error; a FIFO is refused at once."""

from __future__ import annotations

import hashlib
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from pipeline import build as build_module
from pipeline import inputs
from pipeline.build import prepare
from pipeline.errors import InputError
from tests.cli import ROOT, Ran, iopress
from tests.conftest import DATA

MIXED = DATA / "reports" / "mixed"
FIO_LOG = DATA / "fio-log"


def report_copy(tmp_path: Path, logs: bool = False) -> Path:
    """The mixed report (with fio logs and their JSON in raw/ when ``logs``)."""
    report = Path(shutil.copytree(MIXED, tmp_path / "report"))
    if logs:
        for name in ("win_iops.1.log", "win_lat.1.log", "win_bw.1.log", "win.json"):
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
    read = build_module.ingest_report

    def read_then_swap(*args: object, **kwargs: object) -> object:
        dataset = read(*args, **kwargs)  # type: ignore[arg-type]
        for name in SWAPPED:
            target = outside / Path(name).name
            target.write_bytes((report / name).read_bytes() + b"\n\n")
            (report / name).unlink()
            (report / name).symlink_to(target)
        return dataset

    monkeypatch.setattr(build_module, "ingest_report", read_then_swap)
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


# --- deep JSON, FIFOs -----------------------------------------------------------------------


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


def test_verify_refuses_a_fifo_at_once(tmp_path: Path) -> None:
    fifo = tmp_path / "published.csv"
    os.mkfifo(fifo)
    env = {**os.environ, "PYTHONPATH": str(ROOT), "COLUMNS": "1000"}
    command = [sys.executable, "-m", "pipeline.cli", "verify", str(MIXED), "--published", str(fifo)]
    try:
        done = subprocess.run(command, env=env, capture_output=True, text=True, timeout=120)
    except subprocess.TimeoutExpired:
        pytest.fail("verify waited for a writer on the FIFO")
    one_line_refusal(Ran(done.returncode, done.stdout, done.stderr), str(fifo), "not a regular")


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
