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


@pytest.fixture(scope="session")
def fs840_build(
    tmp_path_factory: pytest.TempPathFactory, fs840_context: ReportContext
) -> BuildResult:
    """fs840 built once per test run: the first worker (pytest-xdist) builds it, the others
    wait for it and read the same output (a failed build is tried again by the next)."""
    base = tmp_path_factory.getbasetemp()
    shared = base.parent if os.environ.get("PYTEST_XDIST_WORKER") else base
    out, done = shared / "shared-build" / "fs840", shared / "shared-build" / "fs840.done"
    out.parent.mkdir(exist_ok=True)
    with (shared / "shared-build" / "fs840.lock").open("w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if done.exists():
            return BuildResult(out, fs840_context.dataset, fs840_context)
        result = build(FS840, out)
        done.touch()
        return result
