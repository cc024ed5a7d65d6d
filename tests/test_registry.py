"""One declaration makes a table: computed, shown in its section of the PDF and on the
site, in the CSV downloads and the manifest with its units, and found by verify."""

from __future__ import annotations

import shutil
import zipfile
from dataclasses import replace
from pathlib import Path

import polars as pl
import pytest

from pipeline.build import BuildResult, build
from pipeline.compute import registry
from pipeline.compute.tables import min_latency
from pipeline.prepare import prepare
from pipeline.verify import verify
from tests.conftest import A800, DATA, FS840


def _slowest(inputs: registry.Inputs) -> pl.DataFrame:
    """A table no report had before: per profile the highest mean service time."""
    worst = inputs.points.sort("lat_mean_us", descending=True).group_by(
        list(registry.PROFILE_KEY), maintain_order=True
    )
    return min_latency(worst.first())


@pytest.mark.slow
def test_one_declaration_adds_a_table_everywhere(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    declared = replace(registry.BY_NAME["min_latency"], name="max_latency", compute=_slowest)
    monkeypatch.setattr(registry, "TABLES", (*registry.TABLES, declared))
    monkeypatch.setitem(registry.BY_NAME, "max_latency", declared)
    result = build(FS840, tmp_path / "out")
    table = pl.read_csv(result.out / "tables" / "max_latency.csv")
    assert table.columns == [f.name for f in declared.columns] and table.height == 18
    assert result.ctx.shown[-1] == "max_latency"
    typ = (result.out / "fs840.en.typ").read_text(encoding="utf-8")
    assert typ.count("<tab-max_latency>") == 1  # in the latency section, declared there
    manifest = (result.out / "manifest.json").read_text(encoding="utf-8")
    assert '"table": "max_latency"' in manifest and '"label_de"' in manifest
    row = table.filter(
        (pl.col("access") == "random")
        & (pl.col("block_size") == 4096)
        & (pl.col("read_pct") == 100)
    ).row(0, named=True)
    published = tmp_path / "published.csv"
    printed = f"{round(row['lat_mean_us'])} µs"
    published.write_text(
        f"table,row,column,printed\nmax_latency,random 4K 100,lat,{printed}\n", encoding="utf-8"
    )
    assert verify(result.ctx, published) == (1, 1, [])


def _two_setups(tmp_path: Path) -> Path:
    """Like a user's first try: two setups, one interval per point (fio, null engine)."""
    folder = tmp_path / "two"
    shutil.copytree(DATA / "reports" / "mixed", folder)
    shutil.copy(folder / "raw" / "fio.json", folder / "raw" / "fio_b.json")
    toml = (folder / "report.toml").read_text(encoding="utf-8")
    toml += '\n[[sources]]\npath = "raw/fio_b.json"\nsetup = "b"\n'
    toml += '\n[[setups]]\nname = "default"\n\n[[setups]]\nname = "b"\n'
    (folder / "report.toml").write_text(toml, encoding="utf-8")
    return folder


@pytest.mark.parametrize("example", ["fs840", "a800", "two"])
def test_every_shown_table_holds_its_frame(example: str, tmp_path: Path) -> None:
    """What the CSVs, the workbook and the manifest are written from holds every table the
    documents show (key_figures had none: it shows the performance frame)."""
    folder = {"fs840": FS840, "a800": A800}.get(example) or _two_setups(tmp_path)
    ctx = prepare(folder)
    assert ctx.shown and set(ctx.shown) <= set(ctx.tables)
    if example != "fs840":
        assert "key_figures" in ctx.shown
    assert set(ctx.tables) - set(ctx.shown) <= {"performance", *registry.SELECTABLE}


@pytest.mark.slow
def test_every_shown_table_has_its_csv_sheet_and_figures(a800_shared: BuildResult) -> None:
    out, shown = a800_shared.out, a800_shared.ctx.shown
    assert "key_figures" in shown
    with zipfile.ZipFile(out / "tables" / "tables.xlsx") as book:
        sheets = book.read("xl/workbook.xml").decode()
    manifest = (out / "manifest.json").read_text(encoding="utf-8")
    for name in shown:
        assert pl.read_csv(out / "tables" / f"{name}.csv").height, name
        assert f'name="{name}"' in sheets and f'"table": "{name}"' in manifest, name
