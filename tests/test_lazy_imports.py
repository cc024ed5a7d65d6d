"""A build imports its output libraries only when it writes outputs (altair when it
makes the first chart spec): a refused report, `iopress --help` and an up-to-date build
never pay for altair (≈ 0.16 s), mkdocs, xlsxwriter, typst or Vega. Checked in a fresh
interpreter: the test session has imported them all."""

from __future__ import annotations

import subprocess
import sys

from tests.conftest import FS840

LATER = ("altair", "vl_convert", "mkdocs", "xlsxwriter", "typst")

PREPARED = f"""
import sys
import pipeline.cli, pipeline.commands, pipeline.build
from pipeline.prepare import prepare
prepare(__import__("pathlib").Path({str(FS840)!r}), False, None)
print(" ".join(sorted(m for m in {LATER!r} if m in sys.modules)))
"""


def test_a_prepared_report_has_imported_no_output_library() -> None:
    done = subprocess.run(
        [sys.executable, "-c", PREPARED], capture_output=True, text=True, check=True
    )
    assert done.stdout.split() == []
