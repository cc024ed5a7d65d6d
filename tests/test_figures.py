"""One rounding and one unit per figure: a number printed twice reads the same, in the
text, the tables, the charts and the datasheet (issue 31 items 6 and 7)."""

from __future__ import annotations

import re
import shutil
from pathlib import Path

import pytest

from pipeline.build import BuildResult, prepare
from pipeline.charts import CHARTS
from pipeline.language.fmt import latency_unit
from pipeline.report.context import ReportContext
from tests.conftest import DATA, pdf_text

# a figure of the text: a number, and the unit the text prints after it (if any)
NUMBER = r"\d+(?:[’',.]\d+)*"
UNITS = ("ms", "µs", "MB/s", "GB/s", "IOPS", "CHF", "USD", "W", "TB")
FIGURE = re.compile(rf"(?<![\w.,’']){NUMBER}(?:[ \u00a0]({'|'.join(map(re.escape, UNITS))}))?")
LATENCY = ("ms", "µs")


def _flat(text: str) -> str:
    """Text as a reader searches it: one space for any run of white space."""
    return re.sub(r"\s+", " ", text.replace("\u00a0", " "))


def _figures(markdown: str) -> list[str]:
    """The figures of a filled narrative section worth a table: those with a unit, and
    numbers with a thousands mark or decimals (a bare "4 KB", "1:3" or "3.5 times" is
    words or a ratio, no figure of a table)."""
    text = _flat(markdown.replace("\\", ""))
    found = []
    for match in FIGURE.finditer(text):
        unit = match.group(1)
        number = match.group(0).split(" ")[0]
        if (unit in UNITS and unit != "TB") or re.search(r"[’',]", number):
            found.append(match.group(0))
    return found


def _in(figure: str, text: str) -> bool:
    """``figure`` in ``text`` with the same digits: latencies with their unit (tables print
    it in every cell), other figures as a number of their own (a rate's unit is the row's)."""
    number, _, unit = figure.partition(" ")
    wanted = re.escape(figure if unit in LATENCY else number)
    return re.search(rf"(?<![\d.,’']){wanted}(?![\d’']|[.,]\d)", text) is not None


def _audit(ctx: ReportContext, pdf: Path, lang: str) -> list[str]:
    printed = _flat(pdf_text(pdf))
    views = ctx.views(ctx.formatter(lang)).values()
    tables = " | ".join(
        _flat(" ".join([v.caption, *v.header, *(s.text for row in v.rows for c in row for s in c)]))
        for v in views
    )
    missing = []
    for name, section in ctx.filled[lang].items():
        for figure in _figures(section.text):
            if not _in(figure, printed):
                missing.append(f"{lang} {name}: {figure!r} is not printed so in the PDF")
            elif not _in(figure, tables):
                missing.append(f"{lang} {name}: {figure!r} is in no table")
    return missing


@pytest.mark.slow
def test_every_figure_of_the_text_is_a_table_figure_with_the_same_digits(
    fs840_build: BuildResult, a800_shared: BuildResult
) -> None:
    """The example PDFs: each figure the text prints (pdftotext of the build) is found in
    a table of the same PDF with the same digits and unit: 3’070 CHF (not 3’070.18),
    0.59 ms (not 590 µs), 1’008’045 with the tables' thousands mark (not 1′008′045)."""
    missing = []
    for built in (fs840_build, a800_shared):
        for lang in ("de", "en"):
            pdf = built.out / f"{built.ctx.report.id}.{lang}.pdf"
            missing += _audit(built.ctx, pdf, lang)
    assert missing == []


def test_the_audit_finds_a_figure_no_table_prints() -> None:
    figures = _figures("costs 3,070.18 CHF, 0.59 ms, 4 KB, 1:3 and 3\\.5 times, 1,000 IOPS")
    assert figures == ["3,070.18 CHF", "0.59 ms", "1,000 IOPS"]
    assert not _in("3,070.18 CHF", "3,070 CHF / 1,023 CHF*")
    assert _in("3,070 CHF", "per TB 3,070 CHF / 1,023 CHF*")
    assert not _in("0.5 ms", "1,008,045 @ 0.55 ms")
    assert _in("1,008,045 IOPS", "1,008,045 @ 0.50 ms (P 256)")


@pytest.mark.parametrize(
    ("latencies", "unit"),
    [
        ([140.0, 40_000.0], "ms"),  # fs840: 0.14 ms … 40 ms
        ([100.0, 3.0e6], "ms"),  # 0.10 ms still needs two decimals only
        ([99.0, 5_000.0], "µs"),  # 0.099 ms would need three: 99 µs, 5’000 µs
        ([0.035, 0.25], "µs"),  # fio's null engine: 0.035 µs, never 0.000035 ms
        ([], "ms"),
        ([0.0, float("nan"), None, 250.0], "ms"),  # nothing measured is no figure
    ],
)
def test_one_latency_unit_per_document(latencies: list[float | None], unit: str) -> None:
    assert latency_unit(latencies) == unit


def _null_engine_report(tmp_path: Path) -> Path:
    """A report of Debian's fio on the null engine (tests/data/fio-sweep: 4K random
    reads, 1 to 16 jobs): latencies of a few tenths of a µs."""
    folder = tmp_path / "null"
    shutil.copytree(DATA / "reports" / "mixed" / "text", folder / "text")
    shutil.copytree(DATA / "fio-sweep" / "4k_r100", folder / "raw")
    (folder / "report.toml").write_text(
        'id = "null"\nauthor = "t"\nversion = "1"\ndate = 2026-11-21\n'
        'title = { de = "Null", en = "Null" }\nclassification = "intern"\n'
        'sponsor = { de = "Ohne.", en = "None." }\n'
        '[system]\nname = "null engine"\nvendor = "fio"\n'
        '[[sources]]\npath = "raw"\n',
        encoding="utf-8",
    )
    return folder


def test_a_null_engine_sweep_prints_every_latency_in_microseconds(tmp_path: Path) -> None:
    """fio's null engine: one table printed "0.000035 ms", the next "0.035 µs"; now
    every table, the chart axes and the text's words say µs, and "(P 2)" stays one."""
    ctx = prepare(_null_engine_report(tmp_path))
    fmt = ctx.formatter("en")
    assert fmt.latency_unit == "µs"
    views = ctx.views(fmt)
    cells = [s.text for v in views.values() for row in v.rows for c in row[1:] for s in c]
    latencies = [c for c in cells if re.search(r"\d (ms|µs)", c)]
    assert latencies and all(" µs" in c and " ms" not in c for c in latencies), latencies
    assert not any("0.000" in c for c in cells), cells
    performance = [s.text for row in views["performance"].rows for s in row[1]]
    assert all(re.search(r"\(P\u00a0\d+\)$", text) for text in performance), performance
    spec = CHARTS["standard"](ctx.dataset.points, fmt).to_dict()
    assert spec["hconcat"][1]["encoding"]["y"]["title"] == "Service time [µs]"


@pytest.mark.slow
def test_one_unit_per_kind_of_figure_in_whitepaper_and_datasheet(
    fs840_build: BuildResult, a800_shared: BuildResult
) -> None:
    """The a800 whitepaper said 590 µs where its datasheet said 0.59 ms, and a datasheet
    page 11.5 GB/s beside 11’776 MB/s: every latency of a document and its datasheet in
    one unit (the examples': ms), every bandwidth in MB/s."""
    for built in (fs840_build, a800_shared):
        for lang in ("de", "en"):
            name = built.ctx.report.id
            texts = [
                pdf_text(built.out / f"{name}{kind}.{lang}.pdf") for kind in ("", "-datasheet")
            ]
            text = _flat(" ".join(texts))
            assert set(re.findall(r"\d (ms|µs)\b", text)) == {"ms"}, (name, lang)
            assert "µs" not in text and "GB/s" not in text, (name, lang)
    a800 = _flat(pdf_text(a800_shared.out / "a800-datasheet.en.pdf"))
    assert "11,776 MB/s" in a800 and "648,293 IOPS, 0.59 ms (P 128)" in a800
