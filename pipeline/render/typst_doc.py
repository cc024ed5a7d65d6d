"""The whitepaper as typst source, and the PDF compiled from it.

User and data strings enter typst only as string literals (``#"…"``), so characters such
as ``#``, ``$``, ``*`` or ``<`` appear literally and never act as markup.
"""

from __future__ import annotations

import datetime as dt
import functools
import re
from collections.abc import Iterable
from dataclasses import dataclass
from importlib import metadata
from pathlib import Path

import typst

from pipeline import cache
from pipeline.config import Report
from pipeline.console import visible
from pipeline.errors import InputError
from pipeline.language.fmt import Formatter
from pipeline.paths import FONTS
from pipeline.report.views import Cell, TableView

TEMPLATE_NAME = "whitepaper.typ"


def lit(text: str) -> str:
    """A typst string literal; other control characters than newline and tab are shown
    as the console shows them (``\\x00``: no font has a glyph for them, and typst refuses
    a PDF/A with a character it cannot display)."""
    escaped = (
        visible(text.replace("\r", ""), keep="\t")
        .replace("\\", "\\\\")
        .replace('"', '\\"')
        .replace("\n", "\\n")
        .replace("\t", "\\t")
    )
    return f'"{escaped}"'


def content(text: str) -> str:
    """Literal text as typst content."""
    return f"[#{lit(text)}]"


def heading(text: str, level: int = 1, numbered: bool = True) -> str:
    numbering = "" if numbered else ", numbering: none"
    return f"#heading(level: {level}{numbering}, {lit(text)})\n"


def contact(lines: list[str]) -> str:
    """The author block's lines: the first (the author's name) in bold."""
    return f"#contact(({', '.join(lit(line) for line in lines)},))\n"


def paragraph(text: str) -> str:
    return f"#par({lit(text)})\n"


def bullets(items: Iterable[str]) -> str:
    return "".join(f"- #{lit(item)}\n" for item in items)


# words short enough that breaking them looks wrong ("Wri-te", "with-out", "Ar-ray",
# "CrystalD-iskMark"): up to 9 letters in a header's fixed column, 15 in a row's name,
# whose column widens to its words; a long compound may still break ("Intervallrau-schen")
HEADER_WORD, LABEL_WORD = 9, 15


@functools.cache
def _short(longest: int) -> re.Pattern[str]:
    return re.compile(rf"\b[^\W\d_]{{2,{longest}}}\b")


def whole_words(text: str, longest: int) -> str:
    """Literal text as typst markup whose words of at most ``longest`` letters typst does
    not hyphenate (each in a box; typst's show rules doing the same over a table cost
    half a second a document)."""
    parts, at = [], 0
    for match in _short(longest).finditer(text):
        if match.start() > at:
            parts.append(f"#{lit(text[at : match.start()])}")
        parts.append(f"#box[#{lit(match.group())}]")
        at = match.end()
    if at < len(text):
        parts.append(f"#{lit(text[at:])}")
    return "".join(parts)


def _cell(cell: Cell, label: bool = False) -> str:
    """A cell's spans, one per line; a row's name (``label``) with its short words whole."""
    parts = []
    for span in cell:
        if span.style == "plain":
            parts.append(whole_words(span.text, LABEL_WORD) if label else f"#{lit(span.text)}")
        elif span.style == "link":
            parts.append(f"#link({lit(span.href)}, {lit(span.text)})")
        else:
            parts.append(f"#{span.style}({lit(span.text)})")
    return "[" + " \\ ".join(parts) + "]"


def table(view: TableView) -> str:
    n = len(view.header) - 1
    # wide tables share the width, the label column taking a larger share
    first = "auto" if n <= 3 else f"{max(2, n // 4)}fr"
    cols = f"({first}, " + ", ".join(["1fr"] * n) + ")"
    if view.widths:  # the view's own (validation: a sentence beside short words)
        if len(view.widths) != len(view.header):  # typst would shift the cells silently
            raise ValueError(f"table {view.name}: {len(view.widths)} widths, {n + 1} columns")
        cols = "(" + ", ".join(view.widths) + ",)"
    header = "(" + ", ".join(f"[{whole_words(h, HEADER_WORD)}]" for h in view.header) + ",)"
    rows = ",\n    ".join(
        ", ".join(_cell(c, x == 0) for x, c in enumerate(row)) for row in view.rows
    )
    small = "true" if n > 8 else "false"  # wide tables in a smaller font
    aligns = "(" + ", ".join("left" if x else "right" for x in view.left()) + ",)"
    body = f"    {rows},\n" if view.rows else ""  # no row: the header alone (no stray comma)
    made = (
        f"#figure(\n  data-table(columns: {cols}, aligns: {aligns}, small: {small},\n"
        f"    header: {header},\n"
        f"{body}  ),\n  caption: {content(view.caption)},\n) <tab-{view.name}>\n"
    )
    return made if _long(view) else f"#block(breakable: false)[\n{made}]\n"


WHOLE_LINES = 20  # a table of at most this many lines stays on one page (≈ half of it)
LINE_CHARS = 95  # characters of the table font in one line of the text width


def _long(view: TableView) -> bool:
    """Does the table need more than about half a page? A shorter one is kept whole
    (moved to the next page rather than started with a row or two at a page foot, which
    leaves at most that half empty); a longer one breaks between rows, its header
    repeated. A cell's lines are its spans, each wrapped at its column's share of the
    line (a setup's long name takes two or three)."""
    share = LINE_CHARS // max(len(view.header), 1)
    lines = sum(max((_lines(cell, share) for cell in row), default=1) for row in view.rows)
    return lines > WHOLE_LINES


def _lines(cell: Cell, share: int) -> int:
    return sum(-(-len(span.text) // share) or 1 for span in cell) or 1


def figure(
    path: str, caption: str, alt: str, label: str = "", width: str = "100%", float: bool = False
) -> str:
    """A numbered figure; a ``float`` one goes to the foot of its page, or of the next
    where it does not fit, the text after it filling the rest, rather than leaving a gap.
    Never to a page's top: a float there stood above its own chapter's heading (an
    image of chapter 2 above "1 Preliminary note")."""
    tail = f" <fig-{label}>" if label else ""
    placement = "  placement: bottom,\n" if float else ""
    return (
        f"#figure(\n  image({lit(path)}, width: {width}, alt: {lit(alt)}),\n"
        f"{placement}  caption: {content(caption)},\n){tail}\n"
    )


@dataclass(frozen=True)
class Meta:
    """What the title page and the running heads show, in the document's language."""

    fmt: Formatter
    title: str
    date: dt.date
    subtitle: str = ""
    author: str = ""
    organisation: str = ""
    version: str = ""
    classification: str = ""
    notice: str = ""

    @classmethod
    def of(cls, r: Report, fmt: Formatter) -> Meta:
        lang = fmt.t.lang
        return cls(
            fmt,
            r.title[lang],
            r.date,
            r.subtitle[lang],
            r.author,
            r.organisation,
            r.version,
            r.classification[lang],
            fmt.t("doc.reconstructed") if r.reconstructed else "",
        )

    def typst(self) -> str:
        t, lang, d = self.fmt.t, self.fmt.t.lang, self.date
        region = self.fmt.region
        labels = {
            k: t(f"doc.{k}")
            for k in ("figure", "table", "page", "version", "date", "classification", "toc")
        }
        labels["page-of"] = t("doc.page_of")
        fields = {
            "lang": lang,
            "title": self.title,
            "subtitle": self.subtitle,
            "author": self.author,
            "organisation": self.organisation,
            "version": self.version,
            "date": self.fmt.date(d),
            "classification": self.classification,
            "notice": self.notice,
        }
        items = [f"{k}: {lit(v)}" for k, v in fields.items()]
        items.append(f"region: {lit(region) if region else 'none'}")
        items.append(f"doc-date: datetime(year: {d.year}, month: {d.month}, day: {d.day})")
        items.append("labels: (" + ", ".join(f"{k}: {lit(v)}" for k, v in labels.items()) + ")")
        return "(\n  " + ",\n  ".join(items) + ",\n)"


def document(meta: Meta, body: list[str]) -> str:
    head = f'#import "{TEMPLATE_NAME}": *\n#show: whitepaper.with({meta.typst()})\n\n'
    return head + "\n".join(body)


def _inputs(source: Path, root: Path) -> list[Path]:
    """What a document is made from: its source, the templates and charts beside it, and
    the fonts."""
    charts = sorted((root / "charts").glob("*.svg")) if (root / "charts").is_dir() else []
    charts += sorted((root / "images").glob("*")) if (root / "images").is_dir() else []
    fonts = sorted(p for p in FONTS.iterdir() if p.is_file())
    return [source, *sorted(root.glob("*.typ")), *charts, *fonts]


def _name(path: Path, root: Path) -> str:
    if path.is_relative_to(root):
        return path.relative_to(root).as_posix()
    return f"fonts/{path.relative_to(FONTS).as_posix()}"


def compile_pdf(source: Path, output: Path, root: Path, date: dt.date) -> None:
    """PDF/A-2b and PDF/UA-1, fonts from the project's font folder embedded, with a fixed
    timestamp (the report date) so the same inputs give the same bytes."""
    stamp = int(dt.datetime(date.year, date.month, date.day, tzinfo=dt.UTC).timestamp())
    inputs = _inputs(source, root)
    name = cache.key(
        "typst",
        metadata.version("typst"),
        str(stamp),
        *(_name(p, root) for p in inputs),  # content names only: no staging folder
        *(p.read_bytes() for p in inputs),
    )
    output.write_bytes(cache.cached(name, lambda: _compile(source, root, stamp)))


def _compile(source: Path, root: Path, stamp: int) -> bytes:
    try:
        return bytes(
            typst.compile(
                str(source),
                root=str(root),
                timestamp=stamp,
                font_paths=[str(FONTS)],
                pdf_standards=["a-2b", "ua-1"],
            )
        )
    except typst.TypstError as exc:
        raise _no_glyph(source, str(exc)) or InputError(
            source.name,
            "typst",
            f"the document does not compile: {exc}",
            "iopress writes this source itself, so this is a bug: please report it with "
            "the report folder (nothing was written)",
        ) from None


_NO_GLYPH = re.compile(r'the text `"(?P<text>.+?)"` could not be displayed with font')
_TYPST_ESCAPE = re.compile(r"\\u\{([0-9a-fA-F]{1,6})\}|\\(.)")  # as typst's repr writes them


def _no_glyph(source: Path, message: str) -> InputError | None:
    """A character the embedded fonts cannot show (an archival PDF embeds every glyph it
    shows): the report's text's fault, named, not "a bug" (a Chinese vendor's name)."""
    found = _NO_GLYPH.search(message)
    if found is None:
        return None
    text = _TYPST_ESCAPE.sub(lambda m: chr(int(m[1], 16)) if m[1] else m[2], found["text"])
    shown = ", ".join(f"{c!r} (U+{ord(c):04X})" for c in dict.fromkeys(text))
    return InputError(
        source.name,
        "typst",
        f"the report's fonts have no glyph for {shown}",
        "write it otherwise or leave it out (search report.toml and the texts for it): "
        "the PDF embeds the fonts of templates/fonts, which have none for it",
    )
