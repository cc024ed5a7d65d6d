"""Drawing one Vega-Lite spec: the work of a chart worker process. It imports nothing
but vl-convert, so a worker is ready in a fraction of a second. Vega runs once per chart:
the PDF is converted from the SVG (a quarter of the time of a second Vega run, and the
same bytes as ``vegalite_to_pdf``)."""

from __future__ import annotations

import json

import vl_convert as vlc


def render(job: tuple[str, str, tuple[str, ...]]) -> tuple[bytes, ...]:
    """(Vega-Lite JSON, d3 number locale JSON, kinds out of "svg" and "pdf") -> the
    drawings, in the order of the kinds."""
    spec_text, locale_text, kinds = job
    svg = str(vlc.vegalite_to_svg(json.loads(spec_text), format_locale=json.loads(locale_text)))
    made = {"svg": svg.encode("utf-8")}
    if "pdf" in kinds:
        made["pdf"] = bytes(vlc.svg_to_pdf(svg))
    return tuple(made[kind] for kind in kinds)
