"""The terminal: one console for results (stdout), one for messages (stderr).

Light on purpose (rich only): the CLI prints a refusal without loading the pipeline.

What iopress prints holds text from data (file names, host and setup names, tool output):
an escape sequence or NUL in it could clear the screen, retitle the window or fake
output. Every text these consoles print, tables and titles too, passes ``visible``: C0 and
C1 control characters (newline excepted) and the bidirectional overrides are shown as
``\\x1b``, ``\\x00``, ``\\u202e``; a byte of a file name that is not UTF-8 as ``\\xff``."""

from __future__ import annotations

import os
import re
import sys
from typing import Union

from rich.console import Console, HighlighterType, JustifyMethod, OverflowMethod
from rich.markup import escape
from rich.style import Style
from rich.text import Text

from pipeline import inputs

# inputs.CONTROL but newline (a message's lines stay lines), and lone surrogates: a byte of
# a file name that is not UTF-8 (``\udcff`` in Python) prints as ``\xff``, as ``ls -b``
# and every error (``errors.shown``) print it
CONTROL = re.compile(f"(?!\n){inputs.CONTROL}|[\ud800-\udfff]")


SURROGATE_BYTES = 0xDC00  # + a byte 0x80-0xff that is not UTF-8: Python's surrogateescape


def _shown(found: re.Match[str]) -> str:
    code = ord(found.group())
    if SURROGATE_BYTES + 0x80 <= code <= SURROGATE_BYTES + 0xFF:
        code -= SURROGATE_BYTES
    return f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}"


def visible(text: str, keep: str = "") -> str:
    """``text`` with every control character but newline (and those in ``keep``) written
    out (``\\x1b``)."""
    return CONTROL.sub(
        lambda found: found.group() if found.group() in keep else _shown(found), text
    )


class SafeConsole(Console):
    """A console that never sends a control character of its texts to the terminal (its
    own colour codes are styles, added after this)."""

    def render_str(
        self,
        text: str,
        *,
        style: Union[str, Style] = "",  # noqa: UP007 (rich's signature)
        justify: JustifyMethod | None = None,
        overflow: OverflowMethod | None = None,
        emoji: bool | None = None,
        markup: bool | None = None,
        highlight: bool | None = None,
        highlighter: HighlighterType | None = None,
    ) -> Text:
        return super().render_str(
            visible(text),
            style=style,
            justify=justify,
            overflow=overflow,
            emoji=emoji,
            markup=markup,
            highlight=highlight,
            highlighter=highlighter,
        )


# Output into a pipe or a file is as wide as it needs (rich took 80 columns there and cut
# table cells to "10,105,…"); a terminal's own width, or COLUMNS, is kept.
PIPED = None if sys.stdout.isatty() or "COLUMNS" in os.environ else 1000

# soft_wrap: one line per message, never folded at 80 columns, so grep finds file names
out_console = SafeConsole(soft_wrap=True, width=PIPED)
err_console = SafeConsole(stderr=True, soft_wrap=True)


def print_error(err: Exception) -> None:
    err_console.print(f"[red]error:[/red] {escape(str(err))}", highlight=False)
