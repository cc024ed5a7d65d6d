"""Saving a chart as SVG, PDF and Vega-Lite JSON."""

from __future__ import annotations

import json
from pathlib import Path

import altair as alt
import vl_convert as vlc

from pipeline.render.fmt import Formatter

KINDS = ("svg", "pdf", "vl.json")


def save(
    chart: alt.TopLevelMixin, stem: Path, fmt: Formatter, kinds: tuple[str, ...] = KINDS
) -> dict[str, Path]:
    """Write ``stem.svg``, ``stem.pdf`` and ``stem.vl.json`` (or the ``kinds`` asked for);
    returns the paths by kind."""
    spec = chart.to_dict()
    locale = fmt.d3_locale()
    paths = {kind: stem.with_name(f"{stem.name}.{kind}") for kind in kinds}
    if "svg" in paths:
        paths["svg"].write_text(vlc.vegalite_to_svg(spec, format_locale=locale), encoding="utf-8")
    if "pdf" in paths:
        paths["pdf"].write_bytes(vlc.vegalite_to_pdf(spec, format_locale=locale))
    if "vl.json" in paths:
        paths["vl.json"].write_text(
            json.dumps(spec, indent=1, sort_keys=True, ensure_ascii=False), encoding="utf-8"
        )
    return paths
