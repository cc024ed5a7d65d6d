"""Shared fixtures. The example report is built once per session. Every session has its
own empty output cache, so no test passes thanks to an earlier run's cached drawings."""

from __future__ import annotations

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
def fs840_build(tmp_path_factory: pytest.TempPathFactory) -> BuildResult:
    return build(FS840, tmp_path_factory.mktemp("build") / "fs840")
