"""The narrative's images (read and checked once with the report's other inputs:
``prepare.read_inputs``), numbered with the charts and
placed in the PDF and on the site under a name of their content (``images/<hash>.<ext>``)."""

from __future__ import annotations

import hashlib
from pathlib import Path

from pipeline import images
from pipeline.report.context import ReportContext

TEXT_WIDTH_CM = 16.6  # A4 less the whitepaper's margins
MAX_HEIGHT_CM = 11.0  # a portrait photo takes at most half a page
DPI = 150  # smaller images are shown at this resolution, not blown up


def line_of(text: str, url: str) -> int:
    """The line of ``text`` that names ``url`` (as a link target, a reference or at all)."""
    for pattern in (f"]({url}", f"]: {url}", url):
        at = text.find(pattern)
        if at >= 0:
            return text.count("\n", 0, at) + 1
    return 1


def file_name(picture: images.Picture) -> str:
    return f"images/{hashlib.sha256(picture.data).hexdigest()[:20]}.{picture.ext}"


def width_cm(picture: images.Picture) -> float:
    """The width it is shown at: the text's at most, its own at ``DPI`` at most, and no
    taller than ``MAX_HEIGHT_CM``."""
    width = min(TEXT_WIDTH_CM, picture.width / DPI * 2.54)
    height = width * picture.height / picture.width
    return round(width * min(1.0, MAX_HEIGHT_CM / height), 2)


def write(ctx: ReportContext, folder: Path) -> None:
    """Each image once into ``folder/images`` (named by content: the same photo in both
    languages is one file)."""
    for placed in {p.file: p for found in ctx.pictures.values() for p in found}.values():
        target = folder / placed.file
        target.parent.mkdir(exist_ok=True)
        target.write_bytes(placed.picture.data)
