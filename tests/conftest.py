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
os.environ["IOPRESS_CACHE"] = tempfile.mkdtemp(prefix="iopress-test-cache-")


@pytest.fixture(scope="session")
def fs840_context() -> ReportContext:
    return prepare(FS840)


@pytest.fixture(scope="session")
def fs840_build(tmp_path_factory: pytest.TempPathFactory) -> BuildResult:
    return build(FS840, tmp_path_factory.mktemp("build") / "fs840")
