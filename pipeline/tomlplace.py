"""Where an item of an inline array lies in a TOML text (``figures = [ {…}, {…} ]``).

``tomllib`` gives values, not places; ``config.toml_line`` finds a key's line under its
table header, which tells the items of an inline array apart no better than "the first".
This scans the array itself, as TOML reads it (strings, literal strings, multi-line
strings and comments skipped), to the n-th item and the key inside it.
"""

from __future__ import annotations

import re

_OPEN, _CLOSE = "[{", "]}"
_QUOTES = ('"""', "'''", '"', "'")


def item_line(text: str, array: str, index: int, key: str | None) -> int | None:
    """The line (from 1) of ``key`` in item ``index`` of the inline array ``array`` (or of
    the item's start where it has no such key); None where ``array = [`` is not written
    once in ``text`` or has no such item."""
    starts = [m.end() for m in re.finditer(rf"(?m)^\s*{re.escape(array)}\s*=\s*\[", text)]
    if len(starts) != 1:
        return None
    span = _item(text, starts[0], index)
    if span is None:
        return None
    begin, end = span
    inside = re.search(rf"[\s{{,]{re.escape(key)}\s*=", text[begin:end]) if key else None
    at = begin + inside.start() + 1 if inside else begin
    return text.count("\n", 0, at) + 1


def _item(text: str, start: int, index: int) -> tuple[int, int] | None:
    """The span of item ``index`` of the array whose ``[`` ends at ``start``: from its
    first character to the comma or bracket after it."""
    depth, i, item, begin = 1, start, 0, None
    while i < len(text) and depth:
        char = text[i]
        if depth == 1 and begin is None and not char.isspace() and char not in ",]#":
            begin = i
        depth += (char in _OPEN) - (char in _CLOSE)
        if (char == "," and depth == 1) or depth == 0:
            if item == index:
                return None if begin is None else (begin, i)
            item, begin = item + 1, None
        i = _past(text, i)
    return None


def _past(text: str, i: int) -> int:
    """The index after the character at ``i``, or after the string or comment it opens."""
    if text[i] == "#":
        end = text.find("\n", i)
        return len(text) if end < 0 else end
    for quote in _QUOTES:
        if text.startswith(quote, i):
            return _string_end(text, i + len(quote), quote)
    return i + 1


def _string_end(text: str, i: int, quote: str) -> int:
    """The index after the string whose body starts at ``i``: a backslash escapes the next
    character in a basic string, not in a literal one."""
    while i < len(text):
        if text.startswith(quote, i):
            return i + len(quote)
        i += 2 if text[i] == "\\" and quote[0] == '"' else 1
    return len(text)
