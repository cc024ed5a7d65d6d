"""The layout check (tests/layout.py) over every PDF the tests build: both examples, the
mixed-format test report, and a stress report (tests/stress.py). First it is shown to
find each fault in a PDF made to have them."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
import typst

from pipeline.build import BuildResult, build
from tests import layout, stress
from tests.conftest import DATA

pytestmark = pytest.mark.skipif(
    layout.PDFTOTEXT is None and os.environ.get("CI") != "true",
    reason="pdftotext is not installed (make test installs poppler-utils)",
)

FAULTY = """
#set page(paper: "a4", margin: (x: 2.2cm, top: 2.6cm, bottom: 2.4cm),
  footer: [Footer line #h(1fr) page])
#set heading(numbering: "1.")
= Overprint
#place(dx: 0pt, dy: 0pt)[Overprinted words]
#place(dx: 3pt, dy: 1pt)[Overprinted words]
#v(1em)
Body text.
#place(bottom, dy: 0.6cm)[Runaway table row]
#pagebreak()
#v(1fr)
= Stranded heading
#pagebreak()
Its text on the next page.
"""


def test_the_check_finds_each_fault(tmp_path: Path) -> None:
    source = tmp_path / "faulty.typ"
    source.write_text(FAULTY, encoding="utf-8")
    pdf = tmp_path / "faulty.pdf"
    pdf.write_bytes(typst.compile(str(source)))
    found = "\n".join(layout.check(pdf, layout.MARGINS["whitepaper"]))
    assert "page 1: 'Overprinted' over 'Overprinted'" in found
    assert "page 1: 'Runaway' in the bottom margin" in found
    assert "page 2: heading '2. Stranded heading' ends the page" in found
    assert "Footer" not in found and "Body" not in found


def test_the_examples_pass(fs840_build: BuildResult, a800_shared: BuildResult) -> None:
    assert layout.check_output(fs840_build.out) + layout.check_output(a800_shared.out) == []


def test_the_mixed_test_report_passes(tmp_path: Path) -> None:
    out = build(DATA / "reports" / "mixed", tmp_path / "out").out
    assert layout.check_output(out) == []


@pytest.mark.slow
def test_the_stress_report_passes(tmp_path: Path) -> None:
    """300 raw files, five setups with 40-character names, 30 levels and one level."""
    report = stress.make(tmp_path / "stress")
    result = build(report, tmp_path / "out")
    assert len(result.ctx.dataset.formats) == 5 * 2 * len(stress.LEVELS)
    assert layout.check_output(result.out) == []
