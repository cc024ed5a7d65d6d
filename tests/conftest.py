"""Shared fixtures. The example report is built once per session. Every session has its
own empty output cache, so no test passes thanks to an earlier run's cached drawings."""

from __future__ import annotations

import fcntl
import os
import tempfile
from pathlib import Path

import pytest

from pipeline.build import BuildResult, build, prepare
from pipeline.report.context import ReportContext

ROOT = Path(__file__).resolve().parent.parent
DATA = Path(__file__).resolve().parent / "data"
FS840 = ROOT / "data" / "examples" / "fs840"
A800 = ROOT / "data" / "examples" / "a800"
SHARED = ROOT.parent / "shared"


def _session_cache() -> str:
    """An empty cache per test run, shared by its parallel workers (pytest-xdist): a
    worker finds the charts and documents another one already made."""
    run = os.environ.get("PYTEST_XDIST_TESTRUNUID")
    if not run:
        return tempfile.mkdtemp(prefix="iopress-test-cache-")
    folder = Path(tempfile.gettempdir()) / f"iopress-test-cache-{run}"
    folder.mkdir(exist_ok=True)
    return str(folder)


os.environ["IOPRESS_CACHE"] = _session_cache()


@pytest.fixture(scope="session")
def fs840_context() -> ReportContext:
    return prepare(FS840)


def _shared_build(factory: pytest.TempPathFactory, folder: Path, ctx: ReportContext) -> BuildResult:
    """``folder`` built once per test run: the first worker (pytest-xdist) builds it, the
    others wait for it and read the same output (a failed build is tried again)."""
    base = factory.getbasetemp()
    shared = (base.parent if os.environ.get("PYTEST_XDIST_WORKER") else base) / "shared-build"
    out, done = shared / folder.name, shared / f"{folder.name}.done"
    shared.mkdir(exist_ok=True)
    with (shared / f"{folder.name}.lock").open("w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if done.exists():
            return BuildResult(out, ctx.dataset, ctx)
        result = build(folder, out)
        done.touch()
        return result


@pytest.fixture(scope="session")
def fs840_build(
    tmp_path_factory: pytest.TempPathFactory, fs840_context: ReportContext
) -> BuildResult:
    return _shared_build(tmp_path_factory, FS840, fs840_context)


@pytest.fixture(scope="session")
def a800_shared(tmp_path_factory: pytest.TempPathFactory) -> BuildResult:
    return _shared_build(tmp_path_factory, A800, prepare(A800))
