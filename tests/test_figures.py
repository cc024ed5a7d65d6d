"""One rounding and one unit per figure: a number printed twice reads the same, in the
text, the tables, the charts and the datasheet (issue 31 items 6 and 7). A figure's unit
is the one its table column declares (compute/registry.py, as the seeds print it)."""

from __future__ import annotations

import re
import shutil
from pathlib import Path

import pytest

from pipeline.build import BuildResult
from pipeline.charts import CHARTS
from pipeline.compute.registry import BY_NAME
from pipeline.language import Formatter, Strings
from pipeline.language.fmt import small_latencies
from pipeline.prepare import prepare
from pipeline.report.context import ReportContext
from pipeline.report.narrative import Section, Values, fill
from pipeline.report.plan import chart_alt
from pipeline.report.views import performance_view
from tests.cli import iopress
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
    590 µs as the key figures print it, 1’008’045 with the tables' thousands mark (not
    1′008′045)."""
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
    ("latencies", "small"),
    [
        ([140.0, 40_000.0], False),  # fs840: 0.14 ms … 40 ms
        ([100.0, 3.0e6], False),  # 0.10 ms still needs two decimals only
        ([99.0, 5_000.0], True),  # 0.099 ms would need three: 99 µs, 5’000 µs
        ([0.035, 0.25], True),  # fio's null engine: 0.035 µs, never 0.000035 ms
        ([], False),
        ([0.0, float("nan"), None, 250.0], False),  # nothing measured is no figure
    ],
)
def test_small_latencies_turn_ms_columns_into_microseconds(
    latencies: list[float | None], small: bool
) -> None:
    assert small_latencies(latencies) is small
    fmt = Formatter(Strings("en"), small=small)
    assert fmt.unit("ms") == ("µs" if small else "ms")
    assert (fmt.unit("µs"), fmt.unit("GB/s")) == ("µs", "GB/s")  # other units stay


def test_every_table_declares_the_units_the_seeds_print() -> None:
    """Seed 000 Tabelle 3 "1'003'798 @ 0.55 ms" and "12.984 @ 15 ms" (MB/s), Tabelle 4
    "230 µs", Tabellen 7/8 "@ 0.49 ms"; seed 004 Tabelle 2 "11.0 GB/s, 9'416 µs"."""
    declared = {
        ("performance", "lat_mean_us"): "ms",
        ("performance", "bytes_per_s"): "MB/s",
        ("key_figures", "lat_mean_us"): "µs",
        ("key_figures", "bytes_per_s"): "GB/s",
        ("min_latency", "lat_mean_us"): "µs",
        ("iops_at_latency", "limit_us"): "ms",
        ("iops_at_latency", "bytes_per_s"): "MB/s",
        ("spc1", "lat_mean_us"): "ms",
        ("spc1_sizing", "lat_mean_us"): "ms",
        ("speedup", "new_lat_mean_us"): "ms",
    }
    assert {k: BY_NAME[k[0]].unit(k[1]) for k in declared} == declared


def _cells(ctx: ReportContext, name: str, lang: str = "en") -> list[str]:
    view = ctx.views(ctx.formatter(lang))[name]
    return [s.text for row in view.rows for c in row[1:] for s in c]


def test_each_table_prints_the_unit_of_its_column(
    fs840_context: ReportContext, a800_shared: BuildResult
) -> None:
    """One unit per column, as the seeds print it, not one per document: fs840's minimum
    latencies in µs beside its maxima at ms, a800's key figures in GB/s and µs beside its
    performance table in MB/s and ms (the same optimum: 0.59 ms there, 590 µs here)."""
    assert "230\u00a0µs" in _cells(fs840_context, "min_latency")
    assert "1,003,798 @ 0.55\u00a0ms (P\u00a0256,\u00a0CPU\u00a094\u00a0%)" in _cells(
        fs840_context, "performance"
    )
    assert "12,984 @ 15\u00a0ms (P\u00a0384,\u00a0CPU\u00a091\u00a0%)" in _cells(
        fs840_context, "performance"
    )
    assert any(c.startswith("440,011 @ 0.49\u00a0ms") for c in _cells(fs840_context, "spc1"))
    a800 = a800_shared.ctx
    keys = _cells(a800, "key_figures")
    assert {"590\u00a0µs", "11.5\u00a0GB/s", "9,416\u00a0µs", "11.0\u00a0GB/s"} <= set(keys), keys
    assert not [c for c in keys if "MB/s" in c or " ms" in c]
    fmt = a800.formatter("en")
    perf = performance_view(a800.frame("performance"), [], fmt, "")  # not in the paper
    assert "648,293 @ 0.59\u00a0ms (P\u00a0128,\u00a0CPU\u00a058\u00a0%)" in [
        s.text for r in perf.rows for c in r for s in c
    ]


def _placeholders(ctx: ReportContext, text: str, tmp_path: Path) -> str:
    path = tmp_path / "summary.md"
    path.write_text(text, encoding="utf-8")
    fmt = ctx.formatter("en")
    values = Values(ctx.tables, fmt, {"table": [], "chart": []}, ctx.report)
    return fill(Section(path, text), values).text


def test_placeholders_print_in_the_unit_of_the_table_they_read(
    fs840_context: ReportContext, tmp_path: Path
) -> None:
    """``.lat_mean`` and ``value()`` print a latency as the table they read prints it; an
    attribute naming its unit (``.lat_mean_us``, ``.lat_mean_ms``) keeps that unit."""
    text = (
        '{{ maximum("4K", "random", 100).lat_mean }} | '
        '{{ min_latency("4K", "random", 100).lat_mean }} | '
        '{{ min_latency("4K", "random", 100).lat_mean_ms }} | '
        '{{ maximum("4K", "random", 100).lat_mean_us }} | '
        '{{ value("spc1_sizing", "FS 900", "lat_mean_us", target_iops=200000) }} | '
        '{{ value("speedup", "example-1", "new_lat_mean_us") }} | '
        '{{ maximum("256K", "sequential", 100).bytes_per_s }}'
    )
    got = _placeholders(fs840_context, text, tmp_path).replace("\\", "").split(" | ")
    assert got == [
        "0.55\u00a0ms",
        "230\u00a0µs",
        "0.23\u00a0ms",
        "550\u00a0µs",
        "0.29\u00a0ms",
        "0.25\u00a0ms",
        "12,984",
    ]


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
    """fio's null engine: one table printed "0.000035 ms", the next "0.035 µs"; now the
    ms columns print in µs too (the document's fastest latency is below 100 µs): every
    table, the limits, the chart axes, alt texts and placeholders say µs, and "(P 2)"
    stays one."""
    ctx = prepare(_null_engine_report(tmp_path))
    fmt = ctx.formatter("en")
    assert fmt.small
    views = ctx.views(fmt)
    cells = [s.text for v in views.values() for row in v.rows for c in row[1:] for s in c]
    latencies = [c for c in cells if re.search(r"\d\u00a0(ms|µs)", c)]
    assert latencies and all("\u00a0µs" in c and "\u00a0ms" not in c for c in latencies), latencies
    assert not any("0.000" in c for c in cells), cells
    assert "1,000\u00a0µs" in views["iops_at_latency"].caption
    performance = [s.text for row in views["performance"].rows for s in row[1]]
    unbroken = r"\(P\u00a0\d+(,\u00a0CPU\u00a0\d+\u00a0%)?\)$"  # with fio's CPU load
    assert all(re.search(unbroken, text) for text in performance), performance
    spec = CHARTS["standard"](ctx.dataset.points, fmt).to_dict()
    assert spec["hconcat"][1]["encoding"]["y"]["title"] == "Service time [µs]"
    standard = next(r for r in ctx.charts if r.kind == "standard")
    assert "service time in µs" in chart_alt(standard, fmt)
    said = _placeholders(ctx, '{{ maximum("4K", "random", 100).lat_mean }}', tmp_path)
    assert said.endswith("\u00a0µs") and "0.000" not in said


@pytest.mark.slow
def test_the_datasheet_prints_the_units_of_the_whitepapers_tables(
    fs840_build: BuildResult, a800_shared: BuildResult
) -> None:
    """The a800 whitepaper said 590 µs where its datasheet said 0.59 ms, and a datasheet
    page 11.5 GB/s beside 11’776 MB/s: the datasheet's figures are those of the
    min_latency table and of the table the whitepaper prints its maxima in (key_figures
    where shown: µs, GB/s; else performance: ms, MB/s), so one page has one bandwidth unit
    and each figure reads as in the whitepaper (fs840's 13’928 MB/s, never 13.6 GB/s)."""
    for built, unit in ((fs840_build, "MB/s"), (a800_shared, "GB/s")):
        for lang in ("de", "en"):
            name = built.ctx.report.id
            sheet = _flat(pdf_text(built.out / f"{name}-datasheet.{lang}.pdf"))
            assert set(re.findall(r"\d (MB/s|GB/s)", sheet)) == {unit}, (name, lang)
    paper = _flat(pdf_text(fs840_build.out / "fs840.en.pdf"))
    sheet = _flat(pdf_text(fs840_build.out / "fs840-datasheet.en.pdf"))
    assert "13,928 @ 40 ms" in paper and "13,928 MB/s" in sheet
    assert "1,003,798 @ 0.55 ms" in paper and "1,003,798 IOPS, 0.55 ms (P 256)" in sheet
    paper = _flat(pdf_text(a800_shared.out / "a800.en.pdf"))
    sheet = _flat(pdf_text(a800_shared.out / "a800-datasheet.en.pdf"))
    assert "648,293 IOPS, 590 µs (P 128)" in sheet and "590 µs" in paper
    assert "11.5 GB/s" in sheet and "11.5 GB/s" in paper


def test_iopress_tables_of_a_null_engine_dataset_prints_microseconds(tmp_path: Path) -> None:
    """``iopress tables DATASET`` judges the rule on the dataset as a report does: its
    performance table said 0.00044 ms beside the minimum latency's 0.047 µs."""
    dataset = tmp_path / "null.parquet"
    sources = sorted((DATA / "fio-sweep" / "4k_r100").glob("*.json"))
    assert iopress("ingest", *sources, "-o", dataset).returncode == 0
    shown = iopress("tables", dataset, "--lang", "en")
    assert shown.returncode == 0
    assert "8,174,660 @ 0.44\u00a0µs" in shown.stdout and "\u00a0ms" not in shown.stdout
