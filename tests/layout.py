"""The layout check of produced PDFs, read from the words Poppler finds on each page
(``pdftotext -bbox``) and the headings of the PDF outline:

- no text printed over text (two word boxes overlapping);
- nothing of the body in the bottom margin but the footer line (a table running on);
- no heading at the end of a page (the text it heads on the next one);
- no page of the body more than ``MAX_EMPTY`` empty at its foot (a figure or table pushed
  to the next page while text could have filled the gap), but the title and contents
  pages and the last one.

A finding names the PDF, the page and the words. ``make test`` installs poppler-utils
(Debian) when it is missing.
"""

from __future__ import annotations

import html
import re
import shutil
import subprocess
from collections import defaultdict
from dataclasses import dataclass
from pathlib import Path

from pypdf import PdfReader
from pypdf.generic import Destination

PDFTOTEXT = shutil.which("pdftotext")
CM = 72 / 2.54
OVERLAP = 0.25  # share of the smaller box two words may not share
SLACK = 1.0  # pt: glyph boxes of adjacent lines may touch
GRID = 24.0  # pt: the cells words are sorted into before they are compared


@dataclass(frozen=True)
class Word:
    text: str
    x0: float
    y0: float  # from the top of the page, as Poppler gives it
    x1: float
    y1: float

    def area(self) -> float:
        return max(0.0, self.x1 - self.x0) * max(0.0, self.y1 - self.y0)

    def shared(self, other: Word) -> float:
        w = min(self.x1, other.x1) - max(self.x0, other.x0) - SLACK
        h = min(self.y1, other.y1) - max(self.y0, other.y0) - SLACK
        return w * h if w > 0 and h > 0 else 0.0


@dataclass
class Page:
    number: int  # from 1
    height: float
    words: list[Word]


# pdftotext -bbox: one <page> per page, one <word> per word (its text XML-escaped)
_BOX = re.compile(
    r'<page width="[^"]*" height="(?P<height>[^"]*)">'
    r'|<word xMin="(?P<x0>[^"]*)" yMin="(?P<y0>[^"]*)" xMax="(?P<x1>[^"]*)" yMax="(?P<y1>[^"]*)">'
    r"(?P<text>[^<]*)</word>"
)


def pdftotext(pdf: Path, *options: str) -> str:
    """Poppler's text of ``pdf`` (``pdftotext`` with ``options``)."""
    assert PDFTOTEXT, "pdftotext (poppler-utils) is needed; make test installs it"
    run = subprocess.run(
        [PDFTOTEXT, *options, "-enc", "UTF-8", str(pdf), "-"], capture_output=True, check=True
    )
    return run.stdout.decode("utf-8")


def pages(pdf: Path) -> list[Page]:
    found: list[Page] = []
    for m in _BOX.finditer(pdftotext(pdf, "-bbox")):
        if m["height"] is not None:
            found.append(Page(len(found) + 1, float(m["height"]), []))
        else:
            box = (float(m["x0"]), float(m["y0"]), float(m["x1"]), float(m["y1"]))
            found[-1].words.append(Word(html.unescape(m["text"]), *box))
    return found


def _neighbours(words: list[Word]) -> set[tuple[int, int]]:
    """Index pairs (i < j) of words whose boxes fall into a common cell of a GRID-point
    grid: two boxes that overlap always do, and a line of dot leaders is not compared
    with itself word by word."""
    cells: dict[tuple[int, int], list[int]] = defaultdict(list)
    for i, w in enumerate(words):
        for x in range(int(w.x0 // GRID), int(w.x1 // GRID) + 1):
            for y in range(int(w.y0 // GRID), int(w.y1 // GRID) + 1):
                cells[(x, y)].append(i)
    return {(i, j) for found in cells.values() for k, i in enumerate(found) for j in found[k + 1 :]}


def overprinted(page: Page) -> list[str]:
    """Pairs of words whose boxes share more than OVERLAP of the smaller one."""
    words = sorted(page.words, key=lambda w: w.y0)
    found = []
    for i, j in sorted(_neighbours(words)):
        a, b = words[i], words[j]
        smaller = min(a.area(), b.area())
        if smaller > 0 and a.shared(b) > OVERLAP * smaller:
            found.append(f"page {page.number}: {a.text!r} over {b.text!r}")
    return found


def in_bottom_margin(page: Page, margin_cm: float) -> list[str]:
    """Words below the body other than the footer line (the lowest line of the page); a
    word is below when its middle is (descenders of the last line may reach further)."""
    bottom = page.height - margin_cm * CM
    low = [w for w in page.words if (w.y0 + w.y1) / 2 > bottom]
    if not low:
        return []
    footer = max(w.y0 for w in low)
    return [
        f"page {page.number}: {w.text!r} in the bottom margin"
        for w in low
        if abs(w.y0 - footer) > 2.0
    ]


def _headings(pdf: Path) -> list[tuple[str, int, float]]:
    """Title, page (from 1) and distance from the page top of each outline heading."""
    reader = PdfReader(pdf)
    found: list[tuple[str, int, float]] = []

    def walk(items: list[object]) -> None:
        for item in items:
            if isinstance(item, list):
                walk(item)
            elif isinstance(item, Destination) and item.top is not None:
                page = reader.get_destination_page_number(item)
                assert page is not None, item.title
                height = float(reader.pages[page].mediabox.height)
                found.append((str(item.title), page + 1, height - float(item.top)))

    walk(list(reader.outline))
    return found


def stranded_headings(pdf: Path, paged: list[Page], margin_cm: float) -> list[str]:
    """Headings with nothing of the body below them on their page."""
    found = []
    for title, number, top in _headings(pdf):
        page = paged[number - 1]
        bottom = page.height - margin_cm * CM
        line = [w for w in page.words if abs(w.y0 - top) < 20 and w.text in title]
        below = max((w.y1 for w in line), default=top) + 2.0
        if not any(below < w.y0 and (w.y0 + w.y1) / 2 <= bottom for w in page.words):
            found.append(f"page {number}: heading {title!r} ends the page")
    return found


MAX_EMPTY = 0.45  # share of a page's body left empty below its last line


def empty_share(page: Page, top_cm: float, margin_cm: float) -> float:
    """How much of the page's body (between the margins) is empty below its last line."""
    top, bottom = top_cm * CM, page.height - margin_cm * CM
    body = [w.y1 for w in page.words if top <= (w.y0 + w.y1) / 2 <= bottom]
    return (bottom - max(body, default=top)) / (bottom - top)


def half_empty(paged: list[Page], top_cm: float, margin_cm: float, front: int) -> list[str]:
    """Pages of the body (after the ``front`` pages, before the last) more than
    ``MAX_EMPTY`` empty."""
    found = []
    for page in paged[front:-1]:
        share = empty_share(page, top_cm, margin_cm)
        if share > MAX_EMPTY:
            found.append(f"page {page.number}: {share:.0%} of the page empty at its foot")
    return found


def check(pdf: Path, margin_cm: float, top_cm: float = 2.6, front: int = 2) -> list[str]:
    """Every layout finding of ``pdf``, whose pages have a bottom margin of ``margin_cm``
    and a top one of ``top_cm``, and ``front`` pages before the body (title, contents)."""
    paged = pages(pdf)
    found = [f for page in paged for f in overprinted(page)]
    found += [f for page in paged for f in in_bottom_margin(page, margin_cm)]
    found += stranded_headings(pdf, paged, margin_cm)
    found += half_empty(paged, top_cm, margin_cm, front)
    return [f"{pdf.name}: {f}" for f in found]


# the bottom margins of the templates (templates/typst/*.typ)
MARGINS = {"whitepaper": 2.4, "datasheet": 1.5}


def check_output(out: Path) -> list[str]:
    """The layout findings of every whitepaper and datasheet of a build output."""
    found = []
    for pdf in sorted(out.glob("*.pdf")):
        kind = "datasheet" if "-datasheet." in pdf.name else "whitepaper"
        found += check(pdf, MARGINS[kind])
    return found
