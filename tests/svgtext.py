"""The text boxes of a chart's static SVG (as vl-convert draws it): every ``<text>`` with
its position summed over the enclosing ``translate`` transforms, its width estimated from
its length and font size (Liberation Sans: ≈ 0.6 em a character at most, digits 0.56)."""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET
from dataclasses import dataclass
from pathlib import Path

TRANSLATE = re.compile(r"translate\(([-\d.e]+),\s*([-\d.e]+)\)")
EM = 0.55  # mean advance of a character, in em
SVG = "{http://www.w3.org/2000/svg}"


@dataclass(frozen=True)
class Box:
    text: str
    x0: float
    y0: float
    x1: float
    y1: float

    def overlaps(self, other: Box) -> bool:
        return (
            min(self.x1, other.x1) - max(self.x0, other.x0) > 1
            and min(self.y1, other.y1) - max(self.y0, other.y0) > 1
        )


def _shift(node: ET.Element) -> tuple[float, float] | None:
    """The node's translation; None where it is rotated (a y axis title)."""
    transform = node.get("transform", "")
    if "rotate" in transform:
        return None
    found = TRANSLATE.search(transform)
    return (float(found[1]), float(found[2])) if found else (0.0, 0.0)


def boxes(svg: Path) -> list[Box]:
    found: list[Box] = []

    def walk(node: ET.Element, x: float, y: float) -> None:
        shift = _shift(node)
        if shift is None:
            return
        x, y = x + shift[0], y + shift[1]
        if node.tag == f"{SVG}text" and (node.text or "").strip():
            found.append(_box(node, x, y))
            return
        for child in node:
            walk(child, x, y)

    walk(ET.parse(svg).getroot(), 0.0, 0.0)
    return found


def _box(node: ET.Element, x: float, y: float) -> Box:
    size = float(node.get("font-size", "11px").removesuffix("px"))
    text = node.text or ""
    width = EM * size * len(text)
    anchor = node.get("text-anchor", "start")
    left = x - width if anchor == "end" else x - width / 2 if anchor == "middle" else x
    return Box(text, left, y - 0.8 * size, left + width, y + 0.2 * size)


def overlapping(svg: Path) -> list[str]:
    """Each pair of texts of ``svg`` whose boxes overlap."""
    found = boxes(svg)
    return [
        f"{svg.name}: {a.text!r} over {b.text!r}"
        for i, a in enumerate(found)
        for b in found[i + 1 :]
        if a.overlaps(b)
    ]


@dataclass(frozen=True)
class Symbol:
    """A legend entry's symbol as drawn: its path, stroke and dash (``""``: none)."""

    path: str
    stroke: str
    dash: str

    @property
    def is_stroke(self) -> bool:
        """A line drawn in ink (Vega's ``stroke`` shape), not a circle or a filled shape."""
        line = re.fullmatch(r"M-?[\d.]+,0L[\d.]+,0", self.path) is not None
        return line and self.stroke not in ("", "none", "transparent")


def legend_symbols(svg: Path) -> list[Symbol]:
    """Every legend symbol of ``svg``, in the order drawn."""
    found = []
    for group in ET.parse(svg).getroot().iter(f"{SVG}g"):
        if "role-legend-symbol" in group.get("class", ""):
            found += [
                Symbol(p.get("d", ""), p.get("stroke", ""), p.get("stroke-dasharray", ""))
                for p in group.iter(f"{SVG}path")
            ]
    return found
