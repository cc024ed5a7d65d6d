"""The layout check (tests/layout.py) over every PDF the tests build: both examples, the
mixed-format test report, and a stress report (tests/stress.py). First it is shown to
find each fault in a PDF made to have them."""

from __future__ import annotations

import datetime as dt
import os
import re
import shutil
from pathlib import Path

import pytest
import typst

from pipeline.build import BuildResult, build
from pipeline.report.context import ReportContext
from tests import layout, stress
from tests.conftest import DATA, ROOT, pdf_text

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
Its text on the next page, and nothing more.
#pagebreak()
The last page.
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
    assert re.search(r"page 3: 9\d% of the page empty at its foot", found)
    assert "Footer" not in found and "Body" not in found
    assert "page 4" not in found  # the last page may end where it ends


def test_a_table_that_fits_a_page_is_never_split(
    fs840_context: ReportContext, tmp_path: Path
) -> None:
    """Twelve rows after text that leaves room for a few: the whole table moves to the
    next page rather than starting with a row or two at the foot of this one."""
    from pipeline.paths import TEMPLATES
    from pipeline.render import typst_doc as T
    from pipeline.report.views import Span, TableView

    rows = [[[Span(f"row-{i:02d}")], [Span("x")]] for i in range(12)]
    view = TableView("short", "A short table", ["Name", "Value"], rows)
    filler = [T.paragraph("Text above the table."), "#v(20cm)\n"]  # room for a few rows
    meta = T.Meta.of(fs840_context.report, fs840_context.formatter("en"))
    source = tmp_path / "short.typ"
    source.write_text(T.document(meta, [T.heading("Short"), *filler, T.table(view)]), "utf-8")
    shutil.copy(TEMPLATES / "typst" / T.TEMPLATE_NAME, tmp_path / T.TEMPLATE_NAME)
    T.compile_pdf(source, tmp_path / "short.pdf", tmp_path, dt.date(2026, 1, 1))
    holding = {
        p.number
        for p in layout.pages(tmp_path / "short.pdf")
        for w in p.words
        if w.text.startswith("row-")
    }
    assert len(holding) == 1, holding


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


@pytest.mark.parametrize("floats", [True, False])
def test_a_figure_that_does_not_fit_lets_the_text_fill_the_page(
    fs840_context: ReportContext, tmp_path: Path, floats: bool
) -> None:
    """A tall figure placed below the middle of a page, text after it: the figure floats
    to the next page and the text fills this one; a figure that does not float leaves
    the foot of the page empty, which the check finds."""
    from pipeline.paths import TEMPLATES
    from pipeline.render import typst_doc as T
    from tests.images import png

    (tmp_path / "tall.png").write_bytes(png(1000, 900))
    text = [T.paragraph("Text that could fill the page. " * 30) for _ in range(6)]
    parts = [
        T.heading("Tall"),
        "#v(9cm)\n",
        T.figure("tall.png", "Tall", "A tall image", float=floats),
    ]
    meta = T.Meta.of(fs840_context.report, fs840_context.formatter("en"))
    source = tmp_path / "tall.typ"
    source.write_text(T.document(meta, [*parts, *text, T.paragraph("The end.")]), "utf-8")
    shutil.copy(TEMPLATES / "typst" / T.TEMPLATE_NAME, tmp_path / T.TEMPLATE_NAME)
    T.compile_pdf(source, tmp_path / "tall.pdf", tmp_path, dt.date(2026, 1, 1))
    found = [f for f in layout.check(tmp_path / "tall.pdf", 2.4) if "empty" in f]
    assert (found == []) is floats, found


def test_i_o_is_never_broken_at_its_slash(tmp_path: Path) -> None:
    """ "maximum I/" at a line's end and "O rate" on the next (a comparison PDF): both
    templates keep "I/O" whole; typst breaks after the slash without the rule."""
    rule = 'show "I/O": it => box(it)'
    for name in ("whitepaper.typ", "datasheet.typ"):
        assert rule in (ROOT / "templates" / "typst" / name).read_text(encoding="utf-8"), name

    def broken(prefix: str) -> bool:
        """Is "I/O" split over two lines at any of the page widths tried?"""
        found = False
        for mm in range(14, 40):
            source = tmp_path / "io.typ"
            source.write_text(
                f"#set page(width: {mm}mm, height: auto, margin: 1pt)\n{prefix}maximum I/O rate\n",
                encoding="utf-8",
            )
            pdf = tmp_path / "io.pdf"
            pdf.write_bytes(typst.compile(str(source)))
            found = found or "I/\nO" in pdf_text(pdf)
        return found

    assert broken("")  # what the rule is for
    assert not broken(f"#{rule}\n")
