"""The line of each record of a fio JSON document (that of its "jobname" key; of its
opening brace where it has none), for the provenance of its row and the place of its
reject. The decoded records carry no positions, so they are found in the
text again: quickly by their "jobname" keys (fio writes one per record, records in order),
or, where that does not tell every record apart, by following the JSON's strings and
nesting to the elements of the records' array."""

from __future__ import annotations

import json
import re
from typing import Any

_JOBNAME = re.compile(r'"jobname"\s*:\s*("(?:[^"\\]|\\.)*")')
_TOKEN = re.compile(r'"(?:[^"\\]|\\.)*"|[{}\[\],:]')
_VISIBLE = re.compile(r"\S")


def record_lines(text: str, start: int, key: str, records: list[Any]) -> list[int]:
    """The line of each of ``records``, the array ``key`` of the JSON document that starts
    at offset ``start`` of ``text`` (records without a place found get the document's
    first line)."""
    offsets = _by_jobname(text, start, records)
    if offsets is None:  # a record without its own "jobname" key: its neighbours' would do
        offsets = _own_keys(text, _elements(text, start, key), records)
    first = _line(text, start)
    lines, line, pos = [], first, start
    for i in range(len(records)):
        if i >= len(offsets):
            lines.append(first)
            continue
        line += text.count("\n", pos, offsets[i])
        pos = offsets[i]
        lines.append(line)
    return lines


def _line(text: str, offset: int) -> int:
    return text.count("\n", 0, offset) + 1


def _by_jobname(text: str, start: int, records: list[Any]) -> list[int] | None:
    """The offset of each record's "jobname" key, found in order; None unless every record
    has one and each key found holds the record's own name."""
    offsets, pos = [], start
    for record in records:
        name = record.get("jobname") if isinstance(record, dict) else None
        if not isinstance(name, str):
            return None
        found = text.find('"jobname"', pos + 1)
        key = _JOBNAME.match(text, found) if found >= 0 else None
        if key is None or json.loads(key.group(1)) != name:
            return None
        offsets.append(found)
        pos = found
    return offsets


def _own_keys(text: str, starts: list[int], records: list[Any]) -> list[int]:
    """Each record's "jobname" key where it has one (the offset of its element else)."""
    ends = [*starts[1:], len(text)]
    offsets = []
    for begin, end, record in zip(starts, ends, records, strict=False):
        name = record.get("jobname") if isinstance(record, dict) else None
        key = _JOBNAME.search(text, begin, end) if isinstance(name, str) else None
        found = key is not None and json.loads(key.group(1)) == name
        offsets.append(key.start() if key is not None and found else begin)
    return offsets


def _elements(text: str, start: int, key: str) -> list[int]:
    """The offset of each element of the document's top-level array ``key``: the JSON from
    ``start`` read token by token (strings whole, so no bracket inside one counts)."""
    depth, name, last, array = 0, json.dumps(key), "", 0
    offsets: list[int] = []
    for token in _TOKEN.finditer(text, start):
        mark = token.group()
        if mark[0] == '"':
            last = mark
        elif mark in "{[":
            depth += 1
            if mark == "[" and depth == 2 and last == name and not array:
                array = depth
                offsets.append(token.end())
        elif mark in "}]":
            if depth == array:
                return _starts(text, offsets, token.start())
            depth -= 1
        elif mark == "," and depth == array:
            offsets.append(token.end())
        if depth == 0:
            break
    return []


def _starts(text: str, after: list[int], end: int) -> list[int]:
    """Where each element begins: the first character after ``[`` or its ``,`` (an empty
    array has none)."""
    found = (_VISIBLE.search(text, pos, end) for pos in after)
    return [visible.start() for visible in found if visible]
