"""Drawing one Vega-Lite spec: the work of a chart worker process. It imports nothing
but vl-convert, so a worker is ready in a fraction of a second."""

from __future__ import annotations

import json

import vl_convert as vlc


def render(job: tuple[str, str, str]) -> bytes:
    """(Vega-Lite JSON, d3 number locale JSON, "svg" or "pdf") -> the drawing."""
    spec_text, locale_text, kind = job
    spec, locale = json.loads(spec_text), json.loads(locale_text)
    if kind == "svg":
        return str(vlc.vegalite_to_svg(spec, format_locale=locale)).encode("utf-8")
    return bytes(vlc.vegalite_to_pdf(spec, format_locale=locale))
