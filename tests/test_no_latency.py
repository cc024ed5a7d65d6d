"""Points without a latency (CrystalDiskMark 3 to 6 prints none) are each profile's
maximum in the performance table, without the latency; a table that has no row for the
report (minimum latency, I/O rate at a latency limit) is left out with a note naming it,
never printed empty (issue 37)."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from pipeline.build import build
from pipeline.prepare import prepare
from tests.conftest import DATA, pdf_text

REPORT = """id = "cdm"
author = "iopress tests"
version = "0.1"
date = 2026-11-25
title = { de = "CrystalDiskMark", en = "CrystalDiskMark" }
classification = "intern"

[system]
name = "SSD"
vendor = "lab"

[[sources]]
path = "raw/cdm6.txt"
"""


def _folder(tmp_path: Path, top: str = "") -> Path:
    folder = tmp_path / "cdm"
    (folder / "raw").mkdir(parents=True)
    shutil.copy(DATA / "crystaldiskmark" / "cdm6.txt", folder / "raw" / "cdm6.txt")
    shutil.copytree(DATA / "reports" / "mixed" / "text", folder / "text")
    (folder / "report.toml").write_text(top + REPORT, encoding="utf-8")
    return folder


def test_the_maximum_is_shown_without_latency(tmp_path: Path) -> None:
    ctx = prepare(_folder(tmp_path))
    assert ctx.dataset.points["lat_mean_us"].null_count() == ctx.dataset.points.height == 7
    assert ctx.shown == ["performance"]
    assert ctx.empty == ["min_latency", "iops_at_latency"]
    en = ctx.formatter("en")
    view = ctx.views(en)["performance"]
    cells = {row[0][0].text: [c[0].text for c in row[1:]] for row in view.rows}
    assert cells["4K random IOPS (QD\u00a08)"] == ["92,825 (P\u00a08)", "85,450 (P\u00a08)"]
    assert "the raw data give none for that profile (e.g. CrystalDiskMark 3 to 6" in view.note
    note = ctx.empty_note(en)
    assert note.startswith("Not shown, as no measured point has the latency they need: ")
    assert (
        "Minimum latency by block size; I/O rate at a latency of at most 1.0\u00a0ms / 3.0\u00a0ms"
        in note
    )


def test_a_declared_table_of_no_row_is_left_out_too(tmp_path: Path) -> None:
    ctx = prepare(_folder(tmp_path, 'tables = ["min_latency"]\n'))
    assert (ctx.shown, ctx.empty) == ([], ["min_latency"])


@pytest.mark.slow
def test_the_pdf_names_the_tables_left_out(tmp_path: Path) -> None:
    result = build(_folder(tmp_path), tmp_path / "out")
    en = " ".join(pdf_text(result.out / "cdm.en.pdf").split())
    assert "92,825 (P 8)" in en.replace("\u00a0", " ")
    assert "Not shown, as no measured point has the latency they need: Minimum latency" in en
    assert "Minimum latency by block size Pattern" not in en  # no empty table's header


LIMITS = "\n[latency_limits]\nsmall_us = 0.001\nlarge_us = 0.001\n"  # no point is within


def _over_the_limit(tmp_path: Path, placed: bool = False) -> Path:
    folder = tmp_path / "mixed"
    shutil.copytree(DATA / "reports" / "mixed", folder)
    with (folder / "report.toml").open("a", encoding="utf-8") as toml:
        toml.write(LIMITS)
    if placed:
        for lang in ("de", "en"):
            summary = folder / "text" / lang / "summary.md"
            summary.write_text(summary.read_text() + '\n{{ table("iops_at_latency") }}\n')
    return folder


def test_a_table_whose_every_cell_is_empty_is_left_out(tmp_path: Path) -> None:
    """Every point above the latency limit: the table has rows, each cell "–"."""
    ctx = prepare(_over_the_limit(tmp_path))
    frame = ctx.tables["iops_at_latency"]
    assert frame.height and frame["iops"].null_count() == frame.height
    assert "iops_at_latency" not in ctx.shown and ctx.empty == ["iops_at_latency"]
    note = ctx.empty_note(ctx.formatter("en"))
    # every point has a latency, all above the limit: not "has the latency they need"
    assert note == (
        "Not shown, as no measured point lies under the latency limit: "
        "I/O rate at a latency of at most 0.0010\u00a0µs."
    )


def test_a_placed_table_of_nothing_is_the_sentence(tmp_path: Path) -> None:
    ctx = prepare(_over_the_limit(tmp_path, placed=True))
    assert ctx.empty == ["iops_at_latency"] and "iops_at_latency" in ctx.placed("en")
    assert ctx.empty_note(ctx.formatter("en")) == ""  # said where the text places it
    from pipeline.render.whitepaper import body

    en = body(ctx, "en")
    assert en.count("no measured point lies under the latency limit") == 1


@pytest.mark.parametrize("lang", ["de", "en"])
def test_key_figures_have_no_column_of_speed_or_optimum(tmp_path: Path, lang: str) -> None:
    """Without latency a point is its profile's maximum alone: the key figures (the
    whitepaper's table and the datasheet's) show that one column, without a "–" column of
    speed or optimum, and a figure without an empty latency beside it."""
    from pipeline.render import datasheet

    ctx = prepare(_folder(tmp_path, 'tables = ["performance", "key_figures"]\n'))
    fmt = ctx.formatter(lang)
    view = ctx.views(fmt)["key_figures"]
    assert view.header[1:] == [fmt.t("kind.maximum")]
    assert all(len(row) == 2 for row in view.rows)
    rows = datasheet.key_figures(ctx, fmt)
    assert rows and all(len(row) == 2 for row in rows)
    assert all(fmt.t("table.none") not in row[1] for row in rows), rows
    assert rows[0][1].replace("\u00a0", " ").endswith("(P 1)"), rows


def test_a_report_with_latency_keeps_its_three_kinds(tmp_path: Path) -> None:
    ctx = prepare(_over_the_limit(tmp_path))
    fmt = ctx.formatter("en")
    from pipeline.render import datasheet

    assert all(len(row) == 4 for row in datasheet.key_figures(ctx, fmt))


def test_a_key_figure_without_latency_has_no_empty_line(tmp_path: Path) -> None:
    ctx = prepare(_folder(tmp_path, 'tables = ["performance", "key_figures"]\n'))
    fmt = ctx.formatter("en")
    cells = [row[1] for row in ctx.views(fmt)["key_figures"].rows]
    assert cells and all(len(cell) == 2 for cell in cells), cells  # parallelism, rate
    assert all(fmt.t("table.none") not in [s.text for s in cell] for cell in cells)
