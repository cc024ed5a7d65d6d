"""Archival and accessible PDFs: PDF/A-2b and PDF/UA-1 declared, every font embedded,
alt text on every figure in the report's language, byte-identical rebuilds."""

from __future__ import annotations

import itertools
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any, cast

import pytest
from pypdf import PdfReader
from pypdf.generic import ArrayObject, DictionaryObject, StreamObject

from pipeline.build import BuildResult
from pipeline.report.context import ReportContext
from tests.conftest import pdf_text


def _xmp(path: Path) -> str:
    root = _root(PdfReader(path))
    data: bytes = cast(StreamObject, root["/Metadata"].get_object()).get_data()
    return data.decode("utf-8")


def _fonts(resources: Any, seen: set[int]) -> Iterator[DictionaryObject]:
    resources = resources.get_object() if resources is not None else None
    if not isinstance(resources, DictionaryObject) or id(resources) in seen:
        return
    seen.add(id(resources))
    fonts = resources.get("/Font")
    for font in (fonts.get_object() if fonts is not None else {}).values():
        yield font.get_object()
    xobjects = resources.get("/XObject")
    for xobject in (xobjects.get_object() if xobjects is not None else {}).values():
        obj = xobject.get_object()
        yield from _fonts(obj.get("/Resources"), seen)


def _root(reader: PdfReader) -> DictionaryObject:
    """The document's catalog (pypdf types the trailer's entries as any PDF object)."""
    return cast(DictionaryObject, reader.trailer["/Root"])


def _embedded(font: DictionaryObject) -> bool:
    if "/DescendantFonts" in font:
        font = cast(ArrayObject, font["/DescendantFonts"])[0].get_object()
    if font.get("/Subtype") == "/Type3":
        return True
    desc = font.get("/FontDescriptor")
    return desc is not None and any(
        k in desc.get_object() for k in ("/FontFile", "/FontFile2", "/FontFile3")
    )


def _alts(node: Any) -> Iterator[str]:
    node = node.get_object() if hasattr(node, "get_object") else node
    if isinstance(node, DictionaryObject):
        if "/Alt" in node:
            yield str(node["/Alt"])
        if "/K" in node:
            yield from _alts(node["/K"])
    elif isinstance(node, ArrayObject):
        for item in node:
            yield from _alts(item)


@pytest.mark.parametrize("lang", ["de", "en"])
def test_standards_fonts_and_alt_text(fs840_build: BuildResult, lang: str) -> None:
    path = fs840_build.out / f"fs840.{lang}.pdf"
    xmp = _xmp(path)
    assert re.search(r"pdfaid:part>2<", xmp) and re.search(r"pdfaid:conformance>B<", xmp)
    assert re.search(r"pdfuaid:part>1<", xmp)
    reader = PdfReader(path)
    seen: set[int] = set()
    fonts = [f for page in reader.pages for f in _fonts(page.get("/Resources"), seen)]
    assert fonts and all(_embedded(f) for f in fonts)
    assert any("LiberationSans" in str(f.get("/BaseFont")) for f in fonts)
    alts = list(_alts(_root(reader)["/StructTreeRoot"]))
    charts = len(list((fs840_build.out / "charts").glob(f"*.{lang}.svg")))
    assert len(alts) == charts
    word = "Diagramm" if lang == "de" else "chart"
    assert all(word.lower() in a.lower() for a in alts), alts


def test_document_language_and_title(fs840_build: BuildResult) -> None:
    reader = PdfReader(fs840_build.out / "fs840.de.pdf")
    assert str(_root(reader).get("/Lang")).startswith("de")
    assert reader.metadata is not None
    assert (
        reader.metadata.title == "IBM Full Flash Storage für Kern-Applikationen auf Power Systemen"
    )


def test_appendix_provenance_and_quality(fs840_build: BuildResult) -> None:
    import hashlib

    from tests.conftest import FS840

    digest = hashlib.sha256((FS840 / "raw" / "fs840.iogen.csv").read_bytes()).hexdigest()
    text = pdf_text(fs840_build.out / "fs840.en.pdf").replace("\n", " ")
    flat = "".join(text.split())
    assert digest in flat  # printed in four lines of 16
    assert "Recordsread:1,944,accepted:1,944,rejected:0." in flat
    assert "Intervaldeviationpermeasuredpointin%" in flat
    assert "vl-convert-python" in text


def test_words_are_set_left_and_figures_right(fs840_build: BuildResult) -> None:
    """In the input files' table the tool column (words) shares its left edge, the size
    column (figures) its right edge."""
    from tests.layout import pages

    words = []
    for page in pages(fs840_build.out / "fs840.en.pdf"):
        head = [w for w in page.words if w.text == "SHA-256"]  # the table's header
        words += [w for w in page.words if head and w.y0 > head[0].y1]
    tools = [w for w in words if w.text in ("narrative", "iogen", "report")]
    sizes = [w for w in words if w.text in ("168,300", "5,938", "998")]  # raw, toml, summary
    assert len(tools) > 10 and len(sizes) == 3
    assert max(w.x0 for w in tools) - min(w.x0 for w in tools) < 0.5
    assert max(w.x1 for w in tools) - min(w.x1 for w in tools) > 5
    assert max(w.x1 for w in sizes) - min(w.x1 for w in sizes) < 0.5


def _heights(page: Any) -> dict[str, float]:
    """Each text run of a page and its height (text matrix times current matrix)."""
    heights: dict[str, float] = {}
    page.extract_text(
        visitor_text=lambda text, cm, tm, *_: heights.setdefault(
            text.strip(), tm[4] * cm[1] + tm[5] * cm[3] + cm[5]
        )
    )
    return heights


def test_a_long_table_breaks_across_pages_without_overprinting(
    fs840_context: ReportContext, tmp_path: Path
) -> None:
    """120 rows (a 75-file sweep's provenance is such a table): the table continues page
    after page with its header repeated, every row once, no two rows at one height."""
    import datetime as dt
    import shutil

    from pipeline.paths import TEMPLATES
    from pipeline.render import typst_doc as T
    from pipeline.report.views import Span, TableView

    # "r000": a name of one letter is no word kept whole (a box, a text run of its own)
    rows = [[[Span(f"r{i:03d}")], [Span("x " * (i % 7))]] for i in range(120)]
    view = TableView("long", "A long table", ["Name", "Value"], rows)
    meta = T.Meta.of(fs840_context.report, fs840_context.formatter("en"))
    source = tmp_path / "long.typ"
    source.write_text(T.document(meta, [T.heading("Long"), T.table(view)]), encoding="utf-8")
    shutil.copy(TEMPLATES / "typst" / T.TEMPLATE_NAME, tmp_path / T.TEMPLATE_NAME)
    T.compile_pdf(source, tmp_path / "long.pdf", tmp_path, dt.date(2026, 1, 1))
    seen: list[str] = []
    pages_with_rows = 0
    for page in PdfReader(tmp_path / "long.pdf").pages:
        heights = _heights(page)
        found = sorted(t for t in heights if re.fullmatch(r"r\d{3}", t))
        if not found:
            continue
        pages_with_rows += 1
        assert "Name" in heights, "the header repeats on every page of the table"
        ys = sorted(heights[t] for t in found)
        assert all(b - a > 5 for a, b in itertools.pairwise(ys)), "two rows at one height"
        seen += found
    assert seen == [f"r{i:03d}" for i in range(120)]
    assert pages_with_rows >= 3


def test_short_words_of_headers_and_row_names_stay_whole() -> None:
    """'70% Read / 30% Wri-te', 'with-out', 'CrystalD-iskMark' broke in narrow columns:
    their words are boxes now; a long compound may still break."""
    from pipeline.render.typst_doc import LABEL_WORD, whole_words

    said = whole_words("256K Seq. 70% Read / 30% Write", LABEL_WORD)
    assert '#box[#"Write"]' in said and '#box[#"Read"]' in said and '#"256K "' in said
    assert whole_words("Speicherbereitstellungsinfrastrukturdienst", LABEL_WORD).count("box") == 0
    escaped = '#"a \\""#box[#"quoted"]#"\\" \\\\ "#box[#"word"]'
    assert whole_words('a "quoted" \\ word', 9) == escaped
