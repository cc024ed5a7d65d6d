"""A Markdown extension of the site build (named in mkdocs.yml): the pages' tables, raw
HTML blocks (``site.html_table``), set aside whole before Python-Markdown parses raw HTML.

Python-Markdown passes a raw HTML block through untouched, but finds its end by parsing
it tag by tag (``md_in_html``'s parser): for a table of 300 rows as long as the inline
parsing of a Markdown table would take. A block that is exactly a table as the site
writes it — ``<table>`` and ``<thead>`` on lines of their own, after a blank line, to the
first line ``</table>`` — is stashed here with one search instead, as the HTML block
parser would have stashed it: the page is the same. Its text was escaped when it was
written (a "<" in a cell is "&lt;", so no cell can end the table early); stashing trusts
nothing that passing it through would not have trusted.
"""

from __future__ import annotations

import re
from typing import Any

from markdown import Extension, Markdown
from markdown.preprocessors import Preprocessor

_TABLE = re.compile(r"(?:^|(?<=\n\n))<table>\n<thead>\n.*?\n</table>(?=\n\n|\n?\Z)", re.DOTALL)


class TableStash(Preprocessor):  # type: ignore[misc]  # (untyped: Any)
    def run(self, lines: list[str]) -> list[str]:
        text = "\n".join(lines)
        if "<table>\n<thead>" not in text:
            return lines
        return _TABLE.sub(lambda m: self.md.htmlStash.store(m[0]), text).split("\n")


class RawTables(Extension):  # type: ignore[misc]  # (untyped: Any)
    def extendMarkdown(self, md: Markdown) -> None:
        # after fenced code (25: a table in a code block stays code), before the raw HTML
        # blocks (20)
        md.preprocessors.register(TableStash(md), "iopress_tables", 22)


def makeExtension(**kwargs: Any) -> RawTables:
    return RawTables(**kwargs)
