"""Every chart with line styles says in its legend what each style means, drawn as a
stroke in that style's dash (issue 36): not the filled circles Vega-Lite draws for a line
with points, which show no dash at all."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import polars as pl
import pytest
import vl_convert as vlc

from pipeline.charts import CHARTS
from pipeline.charts.draw import draw
from pipeline.charts.export import save
from pipeline.charts.overlay import overlay_chart
from pipeline.prepare import prepare
from pipeline.report.context import ReportContext
from tests.conftest import DATA, ROOT
from tests.svgtext import legend_symbols

EXAMPLES = ROOT / "data" / "examples"


@pytest.fixture(scope="module")
def a800() -> ReportContext:
    return prepare(EXAMPLES / "a800")


def _dashed(node: Any) -> bool:
    """Whether any view of a Vega-Lite spec encodes a line style."""
    if isinstance(node, dict):
        return "strokeDash" in node.get("encoding", {}) or any(map(_dashed, node.values()))
    return isinstance(node, list) and any(map(_dashed, node))


def _legends(node: Any) -> Iterator[dict[str, Any]]:
    """Every legend of a compiled Vega spec, however deep in its groups."""
    if isinstance(node, dict):
        yield from node.get("legends", [])
        for value in node.values():
            yield from _legends(value)
    elif isinstance(node, list):
        for value in node:
            yield from _legends(value)


def style_legend_faults(spec: dict[str, Any]) -> list[str]:
    """Each legend of a line style that Vega would draw as anything but a visible stroke
    (a circle, or a stroke without ink); none where the spec has no line style."""
    vega = vlc.vegalite_to_vega(json.dumps(spec))
    styled = [legend for legend in _legends(vega) if "strokeDash" in legend]
    faults = [] if styled or not _dashed(spec) else ["no legend of the line styles"]
    for legend in styled:
        ink = legend.get("encode", {}).get("symbols", {}).get("update", {}).get("stroke", {})
        if legend.get("symbolType") != "stroke" or ink.get("value") == "transparent":
            faults.append(f"{legend.get('symbolType')} symbols, stroke {ink}")
    return faults


def _charts(ctx: ReportContext, lang: str = "en") -> dict[str, dict[str, Any]]:
    fmt = ctx.formatter(lang)
    return {
        r.stem: draw(r, ctx.dataset.points, ctx.histograms.get(r.stem), fmt).to_dict()
        for r in ctx.charts
    }


def _styled(a800: ReportContext) -> dict[str, dict[str, Any]]:
    """Every chart of a800 and of a frontend/backend pair, the setups compared and the
    comparison's overlay: each kind that draws line styles, and the others."""
    fmt = a800.formatter("de")
    points = a800.dataset.points.filter(pl.col("block_size") == 8192)
    one = points.filter(pl.col("setup") == "48vcpu", pl.col("read_pct") == 100)
    return {
        **_charts(a800),
        **_charts(prepare(DATA / "fio-levels" / "fb")),
        "setups": CHARTS["setups"](points, fmt).to_dict(),
        "overlay": overlay_chart(one, one, fmt, ("alt", "neu")).to_dict(),
    }


def test_every_line_style_has_a_stroke_in_the_legend(a800: ReportContext) -> None:
    charts = _styled(a800)
    dashed = {stem for stem, spec in charts.items() if _dashed(spec)}
    assert {"dual_axis_random_8k_r100", "setups", "overlay"} <= dashed
    assert any(stem.startswith("frontend_backend") for stem in dashed)
    faults = {stem: style_legend_faults(spec) for stem, spec in charts.items()}
    assert {stem: found for stem, found in faults.items() if found} == {}


@pytest.mark.parametrize("kind", ["setups", "dual_axis"])
def test_the_drawn_legend_shows_each_dash(a800: ReportContext, kind: str, tmp_path: Path) -> None:
    """In the static SVG (the site's; the PDF is made from it): reads solid and writes
    dashed, IOPS solid and latency dashed, each a stroke in ink beside its name."""
    fmt = a800.formatter("en")
    points = a800.dataset.points.filter(pl.col("block_size") == 8192)
    if kind == "dual_axis":
        points = points.filter(pl.col("read_pct") == 100)
    paths = save(CHARTS[kind](points, fmt), tmp_path / kind, fmt, ("svg",))
    strokes = [s for s in legend_symbols(paths["svg"]) if s.is_stroke]
    assert [s.dash for s in strokes] == ["1,0", "6,4"]
