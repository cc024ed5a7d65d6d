"""The one-page datasheet: same layout for every system, figures computed, both languages."""

from __future__ import annotations

import ast
import re
import shutil
from pathlib import Path

import pytest
from pypdf import PdfReader

from pipeline.build import BuildResult
from pipeline.prepare import prepare
from pipeline.publish import write_datasheets
from pipeline.render import datasheet
from pipeline.report import datasheet_view as D
from pipeline.report import views as V
from pipeline.report.context import ReportContext
from pipeline.report.datasheet_view import Profile
from tests.conftest import DATA, FS840, ROOT, pdf_text


def _text(path: Path) -> str:
    return re.sub(r"\s+", " ", pdf_text(path))


@pytest.mark.parametrize(
    ("lang", "words"),
    [
        (
            "de",
            [
                "Datenblatt",
                "IBM FlashSystem 840",
                "Minimale Latenz",
                "230 µs",
                "1’008’045",
                "13’928 MB/s",  # as the whitepaper's performance table: 13’928 @ 40 ms
                "IO Rate bei Latenzgrenze",
            ],
        ),
        (
            "en",
            [
                "Datasheet",
                "IBM FlashSystem 840",
                "Minimum latency",
                "230 µs",
                "1,008,045",
                "13,928 MB/s",
                "I/O rate at the latency limit",
            ],
        ),
    ],
)
def test_datasheet_in_build(fs840_build: BuildResult, lang: str, words: list[str]) -> None:
    path = fs840_build.out / f"fs840-datasheet.{lang}.pdf"
    assert len(PdfReader(path).pages) == 1
    text = _text(path)
    for word in words:
        assert word in text, word


def test_footprint_and_spc1_groups_when_configured(tmp_path: Path) -> None:
    report = tmp_path / "r"
    shutil.copytree(FS840, report)
    toml = report / "report.toml"
    toml.write_text(
        toml.read_text(encoding="utf-8") + '\n[datasheet]\nfootprint = "FS 900"\n'
        'spc1 = "AE00008"\n',
        encoding="utf-8",
    )
    ctx = prepare(report)
    titles = [title for title, _ in datasheet.groups(ctx, ctx.formatter("en"))]
    assert titles == [
        "Minimum latency",
        "Maximum performance",
        "I/O rate at the latency limit",
        # FS 900's records on the FS 840's page: said whose they are
        "Space and power: FS 900",
        "SPC-1: FS 900",
    ]
    paths = write_datasheets(report, tmp_path / "out")
    text = _text(paths[1])
    assert "440,011" in text and "708,702 USD" in text and "1,611 USD" in text
    assert "1.3 W" in text
    # and what the figures rest on: not "every figure computed" beside stated ones
    said = " ".join(text.split())
    assert "every measured figure computed from the report's raw data" in said
    assert "Space and power as the report states them." in said
    assert "SPC-1 figures from the published result AE00008." in said
    # everything configured still fits one page, the key figures included
    for path in paths:
        assert len(PdfReader(path).pages) == 1, path
        assert "Key figures" in _text(path) or "Kennzahlen" in _text(path)


def test_same_layout_for_every_system(fs840_context: ReportContext) -> None:
    a800 = prepare(FS840.parent / "a800")
    fs840 = fs840_context
    for lang in ("de", "en"):
        one = [t for t, _ in datasheet.groups(fs840, fs840.formatter(lang))]
        two = [t for t, _ in datasheet.groups(a800, a800.formatter(lang))]
        assert one == two
        labels_one = [
            i.label for _, items in datasheet.groups(fs840, fs840.formatter(lang)) for i in items
        ]
        assert len(labels_one) == 10


def test_tiles_show_only_measured_profiles_with_units(a800_shared: BuildResult) -> None:
    """a800 measured 8K only: no empty 4K tiles, no limit without its value; rates carry
    their unit and units keep their case (no "MS")."""
    ctx = a800_shared.ctx
    found = dict(datasheet.groups(ctx, ctx.formatter("en")))
    assert [i.label for i in found["Minimum latency"]] == [
        "8K random 100% read",
        "8K random 100% write",
    ]
    limits = found["I/O rate at the latency limit"]
    # interpolated where the curve crosses the limit: "≈", as in the whitepaper
    assert [i.value for i in limits] == ["≈\u00a0691,944 IOPS", "≈\u00a0359,224 IOPS"]
    assert all(
        i.label.endswith("≤\u00a01.0\u00a0ms") for i in limits
    )  # one line: sign, figure, unit
    template = (ROOT / "templates" / "typst" / "datasheet.typ").read_text(encoding="utf-8")
    assert "upper(label)" not in template


def _images(path: Path) -> int:
    return sum(len(page.images) for page in PdfReader(path).pages)


def test_key_figures_and_chart_fill_the_page(a800_shared: BuildResult) -> None:
    """The page below the tiles: the whitepaper's chart of the first random profile and
    the key figures (speed, optimum, maximum) of the datasheet's profiles."""
    ctx = a800_shared.ctx
    ref = datasheet.chart(ctx)
    assert ref is not None and ref.block_size == 8192 and ref.access == "random"
    assert ref in ctx.charts  # the same chart as in the whitepaper
    rows = datasheet.key_figures(ctx, ctx.formatter("en"))
    assert [r[0] for r in rows] == [
        "8K random 100% read",
        "8K random 100% write",
        "128K seq. 100% read",
        "128K seq. 100% write",
    ]
    # seed 004 Tabelle 2 (48 vCPU): optimum 648'293 IOPS at 128, maximum 732'767 at 384
    assert rows[0][2].startswith("648,293 IOPS") and rows[0][2].endswith("(P\u00a0128)")
    assert rows[0][3].startswith("732,767 IOPS") and rows[0][3].endswith("(P\u00a0384)")
    assert rows[2][3].endswith("(P\u00a016)") and "MB/s" not in rows[2][3]
    # in the units of the whitepaper's key-figures table (seed 004: 590 µs, 11.5 GB/s)
    assert rows[0][2] == "648,293 IOPS, 590\u00a0µs (P\u00a0128)"
    assert rows[2][3].startswith("11.5\u00a0GB/s, ")
    for lang in ("de", "en"):
        path = a800_shared.out / f"a800-datasheet.{lang}.pdf"
        assert len(PdfReader(path).pages) == 1
        text = _text(path)
        assert ("Kennzahlen" if lang == "de" else "Key figures") in text
        assert ("648’293" if lang == "de" else "648,293") in text


def test_the_datasheet_module_only_lays_out() -> None:
    """The datasheet picked its rows itself (its own filters of the tables and points);
    it now takes them from the report's datasheet view and reads no frame."""
    tree = ast.parse((ROOT / "pipeline" / "render" / "datasheet.py").read_text("utf-8"))
    imported = {
        a.name.split(".")[0] for n in ast.walk(tree) if isinstance(n, ast.Import) for a in n.names
    }
    imported |= {
        (n.module or "").split(".")[0] for n in ast.walk(tree) if isinstance(n, ast.ImportFrom)
    }
    assert "polars" not in imported
    touched = {n.attr for n in ast.walk(tree) if isinstance(n, ast.Attribute)}
    assert not touched & {"filter", "dataset", "row", "iter_rows", "get"}, touched


def _whitepaper_cell(ctx: ReportContext, name: str, profile: Profile, lang: str) -> str:
    """The whitepaper's cell of table ``name`` at the datasheet's setup and profile."""
    fmt, table, setup = ctx.formatter(lang), ctx.frame(name), D.setup(ctx)
    keys = [  # the whitepaper's rows, in its order
        (k.access, k.block, dict(k.extra).get("setup", setup)) for k in V._profiles(table, fmt)
    ]
    index = keys.index((profile.access, profile.block, setup))
    column = 1 + V._mixes(table).index(profile.read_pct)
    return ctx.views(fmt)[name].rows[index][column][0].text


@pytest.mark.parametrize("lang", ["de", "en"])
def test_the_datasheet_shows_the_whitepapers_cells(
    fs840_context: ReportContext, a800_shared: BuildResult, lang: str
) -> None:
    """The datasheet's minimum latencies and limits are the whitepaper's cells of the
    same rows (a800: of the datasheet's setup, one of two)."""
    for ctx in (fs840_context, a800_shared.ctx):
        sheet, fmt = D.sheet(ctx), ctx.formatter(lang)
        found = dict(datasheet.groups(ctx, fmt))
        latencies = found[fmt.t("datasheet.latency")]
        assert len(latencies) == len(sheet.latency) > 0
        for item, (profile, _) in zip(latencies, sheet.latency, strict=True):
            assert item.value == _whitepaper_cell(ctx, "min_latency", profile, lang)
        limits = found[fmt.t("datasheet.limit")]
        assert len(limits) == len(sheet.limits) > 0
        for item, (profile, _) in zip(limits, sheet.limits, strict=True):
            assert item.value == _whitepaper_cell(ctx, "iops_at_latency", profile, lang)


def test_the_datasheet_says_the_parallelism_is_per_server_where_several() -> None:
    """ "1,008,045 IOPS, 256 processes" of fs840 ran on 2 servers at once (256 each): the
    datasheet says so beside the figures, in the words of servers or VMs; a load from one
    server needs no word."""
    from pipeline.render.datasheet import _notice

    ctx = prepare(FS840)
    sheet = D.sheet(ctx)
    assert sheet.hosts == (2, 2)
    en, de = (_notice(ctx, sheet, ctx.formatter(lang)) for lang in ("en", "de"))
    assert "The load ran on 2 servers at once; the parallelism (P) is per server." in en
    assert "gleichzeitig auf 2 Servern; die Parallelität (P) gilt pro Server." in de
    one = prepare(DATA / "fio-levels" / "qd")
    assert D.sheet(one).hosts == (1, 1)
    assert "at once" not in _notice(one, D.sheet(one), one.formatter("en"))


def test_the_servers_are_those_of_the_datasheet_s_own_points(tmp_path: Path) -> None:
    """fs820's datasheet at queue depth 128 said "ran on 2 servers at once", the largest
    count of the whole setup; its points at QD 128 ran on one (Iometer's sweep on server
    1). At QD 8 (its test matrix) they ran on one or two, and the page says so."""
    from pipeline.render.datasheet import _notice

    ctx = prepare(ROOT / "data" / "examples" / "fs820")
    sheet = D.sheet(ctx)
    assert (sheet.setup, sheet.depth, sheet.hosts) == ("1link", 8, (1, 2))
    en, de = (_notice(ctx, sheet, ctx.formatter(lang)) for lang in ("en", "de"))
    assert "ran on 1 to 2 servers at once, depending on the point" in en
    assert "je nach Messpunkt gleichzeitig auf 1 bis 2 Servern" in de
    # its headline figures are QD 8's: the page says which others were measured (a
    # helper's new-user pass read "Max. IOPS 8,113,788" where QD 1 did 13.8 million)
    assert sheet.other_depths == (1, 2, 4, 16, 32, 64, 128)
    others = "also measured at 1, 2, 4, 16, 32, 64, 128: those figures are in the report"
    assert f"Queue depth 8 ({others})." in en
    assert "Queue Depth 8 (auch gemessen mit 1, 2, 4, 16, 32, 64, 128: " in de
    folder = Path(shutil.copytree(ROOT / "data" / "examples" / "fs820", tmp_path / "fs820"))
    with (folder / "report.toml").open("a", encoding="utf-8") as toml:
        toml.write("\n[datasheet]\nqueue_depth = 128\n")
    deep = prepare(folder)
    sheet = D.sheet(deep)
    assert (sheet.depth, sheet.hosts) == (128, (1, 1))
    assert "at once" not in _notice(deep, sheet, deep.formatter("en"))


def test_the_datasheet_shows_the_queue_depth_of_the_test_matrix(
    fs840_context: ReportContext,
) -> None:
    """fs820's deepest queue depth (128) held one profile of a queue-depth sweep: its
    datasheet showed a bandwidth of "–" and a minimum latency of 1,194 µs, where the
    test matrix (QD 8: 41 points, every block size) measured both."""
    from pipeline.render.datasheet import performance_items

    ctx = prepare(ROOT / "data" / "examples" / "fs820")
    items = performance_items(D.sheet(ctx), ctx.formatter("en"))
    assert all(item.value != "–" for item in items), items
    # the minimum latency and the maximum are those of QD 8, said where they stand
    titles = [title for title, _ in datasheet.groups(ctx, ctx.formatter("en"))]
    assert titles == [  # fs820 shows no table of rates at a limit: nor does its sheet
        "Minimum latency (queue depth 8)",
        "Maximum performance (queue depth 8)",
    ]
    german = [title for title, _ in datasheet.groups(ctx, ctx.formatter("de"))]
    assert german[1] == "Maximale Leistung (Queue Depth 8)"
    one = [title for title, _ in datasheet.groups(fs840_context, ctx.formatter("en"))]
    assert one[:2] == ["Minimum latency", "Maximum performance"]  # one queue depth


def test_a_named_workload_mix_keeps_its_name_on_the_datasheet(tmp_path: Path) -> None:
    """The whitepaper's tables say "Datenbank-Lesen" where report.toml names 4K random
    reads so; the datasheet said "4K Random 100% Read"."""
    folder = Path(shutil.copytree(FS840, tmp_path / "fs840"))
    with (folder / "report.toml").open("a", encoding="utf-8") as toml:
        toml.write('\n[[profiles]]\nname = { de = "Datenbank-Lesen", en = "Database read" }\n')
        toml.write('access = "random"\nblock_size = "4K"\nread_pct = 100\n')
    ctx = prepare(folder)
    sheet = D.sheet(ctx)
    for lang, name in (("de", "Datenbank-Lesen"), ("en", "Database read")):
        labels = [item.label for item in datasheet.latency_items(sheet, ctx.formatter(lang))]
        assert name in labels and not any(
            " read" in label.lower() and "4K" in label for label in labels
        ), labels
        # the limit tile too (it said "4K random 100% read ≤ 1.0 ms")
        limits = [item.label for item in datasheet.limit_items(sheet, ctx.formatter(lang))]
        assert any(label.startswith(f"{name} ≤\u00a0") for label in limits), limits


def test_the_maxima_say_of_which_access() -> None:
    """The sweep's datasheet said "Max. IOPS 8,174,660" where its 256K reads reached
    8,971,972 IOPS: the figure is the random maximum, and its label now says so."""
    from pipeline.language import Formatter, Strings
    from pipeline.render.datasheet import performance_items

    ctx = prepare(FS840)
    for lang, words in (
        ("en", ["Max. IOPS (random)", "Max. bandwidth (sequential)"]),
        ("de", ["Max. IOPS (Random)", "Max. Bandbreite (Sequential)"]),
    ):
        items = performance_items(D.sheet(ctx), Formatter(Strings(lang)))
        assert [item.label for item in items] == words


def test_the_notice_says_target_rates_depth_and_units(tmp_path: Path) -> None:
    """vdbench's sample ran points held to 50, 500 and 5,000 IOPS at one queue depth:
    the sheet printed "50 IOPS (P 2)" as a speed with no word of the target, no queue
    depth and no unit basis; the whitepaper's method says all three."""
    from pipeline.render.datasheet import _notice
    from tests.test_method_rates import REPORT

    (tmp_path / "raw").mkdir()
    shutil.copy(DATA / "vdbench" / "vdbconvert_flatfile.html", tmp_path / "raw" / "flatfile.html")
    (tmp_path / "report.toml").write_text(REPORT, encoding="utf-8")
    ctx = prepare(tmp_path)
    sheet = D.sheet(ctx)
    assert sheet.depth is None and sheet.sole_depth is not None
    said = _notice(ctx, sheet, ctx.formatter("en"))
    assert f"Queue depth {sheet.sole_depth}." in said
    assert "The load generators were held to target rates of 50, 500, 5,000 IOPS." in said
    assert "Units: KB = 1024 bytes, MB = 1024² bytes." in said
    # no point lies under the latency limit: the whitepaper shows no such table, nor the sheet
    assert "iops_at_latency" not in ctx.shown and sheet.limits == []
    # and each key figure says the target its point was held to (50 reached, 5,000 not)
    [row] = datasheet.key_figures(ctx, ctx.formatter("en"))
    assert row[1].endswith("(P\u00a02, target\u00a050 IOPS)"), row
    assert row[3].startswith("310 IOPS") and row[3].endswith("target\u00a05,000 IOPS)"), row


@pytest.mark.parametrize(
    ("field", "value", "said"),
    [
        ("footprint", "FS 9000", "no [[footprint]] system 'FS 9000'"),
        ("spc1", "AE0008", "no SPC-1 record 'AE0008' in the report"),
    ],
)
def test_a_misspelt_record_of_the_datasheet_is_named(
    tmp_path: Path, field: str, value: str, said: str
) -> None:
    """A misspelt footprint or SPC-1 id dropped its tile without a word."""
    from pipeline.errors import InputError

    report = Path(shutil.copytree(FS840, tmp_path / "r"))
    toml = report / "report.toml"
    toml.write_text(
        toml.read_text(encoding="utf-8") + f'\n[datasheet]\n{field} = "{value}"\n', "utf-8"
    )
    with pytest.raises(InputError) as caught:
        D.sheet(prepare(report))
    assert caught.value.where == f"datasheet.{field}" and said in caught.value.message
    assert "name one of [" in caught.value.hint
