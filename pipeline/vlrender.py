"""Drawing one Vega-Lite spec: the work of a chart worker process. It imports nothing
but vl-convert and typst, so a worker is ready in a fraction of a second. Vega runs once
per chart: the PDF is made from the SVG by typst (≈ 25 ms), with the project's fonts,
because vl-convert's own SVG-to-PDF orders its font objects differently from run to run
and typst gives the same bytes every time."""

from __future__ import annotations

import json
import re
import tempfile
from pathlib import Path

import typst
import vl_convert as vlc

from pipeline.paths import FONTS

# Labels Vega hides (labelOverlap) stay in the SVG with opacity 0: invisible, but still
# text a PDF reader finds, copies and prints over its neighbours. They are taken out.
_HIDDEN_TEXT = re.compile(
    r'<text\b[^>]*\sopacity="0"[^>]*>(?:[^<]|<tspan\b[^>]*>[^<]*</tspan>)*</text>'
)
CLEANING = "hidden text removed (1)"  # part of the cache key: change it with the cleaning

_PAGE = '#set page(width: auto, height: auto, margin: 0pt)\n#image("chart.svg", alt: "chart")\n'


def svg_to_pdf(svg: str) -> bytes:
    """One SVG as a one-page PDF of its own size, reproducibly."""
    with tempfile.TemporaryDirectory(prefix="iopress-chart-") as tmp:
        (Path(tmp) / "chart.svg").write_text(svg, encoding="utf-8")
        (Path(tmp) / "chart.typ").write_text(_PAGE, encoding="utf-8")
        return bytes(
            typst.compile(
                str(Path(tmp) / "chart.typ"),
                root=tmp,
                font_paths=[str(FONTS)],
                ignore_system_fonts=True,
                timestamp=0,
            )
        )


def visible(svg: str) -> str:
    """The SVG without the text Vega hid."""
    return _HIDDEN_TEXT.sub("", svg)


def render(job: tuple[str, str, tuple[str, ...]]) -> tuple[bytes, ...]:
    """(Vega-Lite JSON, d3 number locale JSON, kinds out of "svg" and "pdf") -> the
    drawings, in the order of the kinds."""
    spec_text, locale_text, kinds = job
    svg = visible(
        str(vlc.vegalite_to_svg(json.loads(spec_text), format_locale=json.loads(locale_text)))
    )
    made = {"svg": svg.encode("utf-8")}
    if "pdf" in kinds:
        made["pdf"] = svg_to_pdf(svg)
    return tuple(made[kind] for kind in kinds)
