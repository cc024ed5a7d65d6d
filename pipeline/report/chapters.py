"""The chapters of a report, in order: report.toml ``chapters`` or the standard order.

A standard chapter is named by its key and holds generated parts, a text
(``text/<lang>/<stem>.md``) or both; a chapter of the author's own is a text with a title.
A chapter with nothing to show is left out (no sponsor: no preliminary note). Where
``chapters`` is given, a standard chapter that has something to show must be listed:
nothing the report holds disappears because it was not named.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import get_args

from pipeline.compute import registry
from pipeline.compute.registry import Section
from pipeline.config import REPORT_FILE, ChapterKey, Report
from pipeline.errors import InputError

STANDARD: tuple[ChapterKey, ...] = get_args(ChapterKey)  # in their standard order
# the text file (stem) of each standard chapter that has one
TEXT_OF: dict[str, str] = {
    "introduction": "introduction",
    "summary": "summary",
    "setup": "setup",
    "method": "method",
    "results": "results",
    "cost": "economics",
    "conclusion": "conclusion",
    "author": "author",
}
# the registry's sections of tables that each standard chapter shows
TABLE_SECTIONS: dict[str, tuple[Section, ...]] = {
    "performance": ("performance",),
    "latency": ("latency",),
    "cost": ("cost",),
    "footprint": ("footprint",),
    "spc1": ("spc1", "sizing"),
    "speedup": ("speedup",),
}
OWN = "own"


@dataclass(frozen=True)
class Chapter:
    """One chapter: its standard key (or ``OWN``), its text's stem and an own title."""

    key: str
    text: str | None
    title: dict[str, str] | None = None


def declared(report: Report) -> list[Chapter]:
    """The report's chapters in order (standard or listed), empty ones included."""
    listed = report.chapters if report.chapters is not None else STANDARD
    return [
        Chapter(c, TEXT_OF.get(c))
        if isinstance(c, str)
        else Chapter(OWN, c.file.removesuffix(".md"), c.title)
        for c in listed
    ]


def texts(report: Report) -> list[str]:
    """The stems of the text files the chapters read, in order."""
    return [c.text for c in declared(report) if c.text]


def holds(report: Report, shown: list[str], charts: list[str], placed: set[str]) -> dict[str, str]:
    """Standard chapter -> what it shows besides its text, for those that show something:
    ``shown`` tables and ``charts`` that no directive (``placed``) puts elsewhere."""
    found = {"setup": "the system and hosts", "method": "the benchmark profiles"}
    if report.sponsor or report.reconstructed:
        found["preliminary"] = "the sponsor disclosure or the note on reconstructed data"
    if any(c not in placed for c in charts):
        found["results"] = "the charts"
    for key, sections in TABLE_SECTIONS.items():
        tables = [t.name for t in registry.TABLES if t.section in sections and t.name in shown]
        if any(t not in placed for t in tables):
            found[key] = "the tables " + ", ".join(t for t in tables if t not in placed)
    return found


def unlisted(
    report: Report, shown: list[str], charts: list[str], placed: set[str]
) -> list[InputError]:
    """A standard chapter with something to show that ``chapters`` leaves out."""
    if report.chapters is None:
        return []
    listed = {c.key for c in declared(report)}
    return [
        InputError(
            REPORT_FILE,
            "chapters",
            f"chapter {key!r} is not listed, but holds {what}",
            f"add {key!r} to chapters where it belongs (see docs/report.md)",
        )
        for key, what in holds(report, shown, charts, placed).items()
        if key not in listed
    ]


def own_texts(
    report: Report, folder: Path, found: Mapping[str, Mapping[str, object]]
) -> list[InputError]:
    """An own chapter is its text: the file must be there (in every language, ``found``
    by language and stem), and may not be a standard chapter's."""
    problems = []
    for chapter in (c for c in declared(report) if c.key == OWN and c.text):
        name = f"{chapter.text}.md"
        if chapter.text in TEXT_OF.values():
            key = next(k for k, t in TEXT_OF.items() if t == chapter.text)
            problems.append(
                InputError(
                    REPORT_FILE,
                    "chapters",
                    f"{name} is the text of the chapter {key!r}",
                    f"list {key!r} instead, or give your chapter another file name",
                )
            )
            continue
        problems += [
            InputError(
                folder / "text" / lang / name,
                "",
                f"chapter {chapter.title[lang] if chapter.title else name!r} has no text",
                f"write text/{lang}/{name}, or leave the chapter out of chapters",
            )
            for lang, texts in found.items()
            if chapter.text not in texts
        ]
    return problems
