"""Shared fixtures. The example report is built once per session. Every test run has its
own empty output cache, so no test passes thanks to an earlier run's cached drawings."""

from __future__ import annotations

import fcntl
import hashlib
import os
import pickle
import re
import shutil
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import TypeVar

import pytest

from pipeline.build import BuildResult, build
from pipeline.prepare import prepare
from pipeline.report.context import ReportContext
from tests.layout import pdftotext

T = TypeVar("T")

ROOT = Path(__file__).resolve().parent.parent
DATA = Path(__file__).resolve().parent / "data"
FS840 = ROOT / "data" / "examples" / "fs840"
A800 = ROOT / "data" / "examples" / "a800"
SHARED = ROOT.parent / "shared"


def _run_folder() -> tuple[Path, bool]:
    """One scratch folder per test run, and whether this process made it: the first
    process (pytest-xdist's controller, whose environment the workers inherit) makes it,
    and removes it at the end (``pytest_unconfigure``). It holds the run's output cache,
    empty at the start and shared by the workers, and the texts read from PDFs."""
    known = os.environ.get("IOPRESS_TEST_RUN")
    if known and os.environ.get("PYTEST_XDIST_WORKER"):  # elsewhere a stale or foreign one
        return Path(known), False
    made = Path(tempfile.mkdtemp(prefix="iopress-test-run-"))
    os.environ["IOPRESS_TEST_RUN"] = str(made)
    return made, True


_RUN: dict[str, Path] = {}  # "folder"; "made" too where this process made it


def pytest_configure() -> None:
    """The run's folder before any test is collected (in xdist's controller before its
    workers start, so that they inherit it); a script importing this module makes none."""
    folder, made = _run_folder()
    _RUN["folder"] = folder
    if made:
        _RUN["made"] = folder
    os.environ["IOPRESS_CACHE"] = str(folder / "cache")
    os.environ["IOPRESS_CACHE_KEY"] = str(folder / "cache.key")  # never the user's own


def pytest_unconfigure() -> None:
    if "made" in _RUN:
        shutil.rmtree(_RUN["made"], ignore_errors=True)


def pdf_text(path: Path) -> str:
    """A PDF's text as Poppler reads it (``pdftotext -raw``: in the order it is printed,
    pages joined by line breaks), once per content and test run: several tests read the
    same PDF of a shared build. A word hyphenated at a line end keeps its hyphen ("-"
    where Poppler gives a soft hyphen); the invisible word joiners typst puts before page
    numbers are left out."""
    digest = hashlib.sha256(path.read_bytes()).hexdigest()
    texts = _RUN["folder"] / "pdf-text"
    kept = texts / f"{digest}.txt"
    if kept.is_file():
        return kept.read_text(encoding="utf-8")
    text = pdftotext(path, "-raw").replace("\u2060", "").replace("\xad\n", "-\n")
    text = text.replace("\f", "\n").rstrip("\n")
    texts.mkdir(parents=True, exist_ok=True)
    part = kept.with_name(f".{digest}.{os.getpid()}")
    part.write_text(text, encoding="utf-8")
    part.replace(kept)  # whole or not at all, whichever worker wins
    return text


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """Tests of an xdist group first (``--dist loadgroup`` in `make test` gives a group
    whole to one worker, tests.test_scheduling): "waits" (fio running) on one worker and
    "browser" on the other overlap mypy instead of leaving a core idle later. Then the slow
    tests, so that none of them is the last one running while the other worker has nothing
    left."""
    items.sort(
        key=lambda item: (
            item.get_closest_marker("xdist_group") is None,
            item.get_closest_marker("slow") is None,
        )
    )


@pytest.fixture(scope="session")
def fs840_context() -> ReportContext:
    return prepare(FS840)


def once_per_run(factory: pytest.TempPathFactory, name: str, make: Callable[[Path], T]) -> T:
    """``make(folder)`` once per test run: the first worker (pytest-xdist) makes it, the
    others wait and read its pickled result (a failure is tried again by the next)."""
    base = factory.getbasetemp()
    shared = (base.parent if os.environ.get("PYTEST_XDIST_WORKER") else base) / "shared-build"
    shared.mkdir(exist_ok=True)
    done = shared / f"{name}.pickle"
    with (shared / f"{name}.lock").open("w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if done.exists():
            found: T = pickle.loads(done.read_bytes())
            return found
        made = make(shared / name)
        done.write_bytes(pickle.dumps(made))
        return made


def _shared_build(factory: pytest.TempPathFactory, folder: Path, ctx: ReportContext) -> BuildResult:
    """``folder`` built once per test run (the context is this worker's own)."""
    out = once_per_run(factory, folder.name, lambda out: build(folder, out).out)
    return BuildResult(out, ctx.dataset, ctx)


@pytest.fixture(scope="session")
def fs840_build(
    tmp_path_factory: pytest.TempPathFactory, fs840_context: ReportContext
) -> BuildResult:
    return _shared_build(tmp_path_factory, FS840, fs840_context)


@pytest.fixture(scope="session")
def a800_shared(tmp_path_factory: pytest.TempPathFactory) -> BuildResult:
    return _shared_build(tmp_path_factory, A800, prepare(A800))


def typst_text(source: str) -> str:
    """A typst source with the boxes that keep short words whole (``whole_words``) taken
    out and the literals they split joined: `#"70% "#box[#"Read"]` reads `#"70% Read"`."""
    unboxed = re.sub(r'#box\[#("(?:[^"\\]|\\.)*")\]', r"#\1", source)
    return unboxed.replace('"#"', "")


def edited_copy(source: Path, folder: Path, old: str, new: str) -> Path:
    """A copy of the report folder ``source`` at ``folder`` with ``old`` replaced by ``new``
    in its report.toml (which must hold ``old``)."""
    import shutil

    shutil.copytree(source, folder)
    toml = folder / "report.toml"
    text = toml.read_text(encoding="utf-8")
    assert old in text
    toml.write_text(text.replace(old, new), encoding="utf-8")
    return folder
