"""The line of each record of a fio JSON document (that of its "jobname" key; of its
opening brace where it has none), for the provenance of its row and the place of its
reject. The decoded records carry no positions, so they are found in the text again:
quickly by their "jobname" keys (fio writes one per record, records in order), or, where
that does not tell every record apart, by walking the document with Python's JSON decoder
to the elements of the records' array."""

from __future__ import annotations

import json
import re
from typing import Any

_JOBNAME = re.compile(r'"jobname"\s*:\s*("(?:[^"\\]|\\.)*")')
_DECODER = json.JSONDecoder()
_GAP = re.compile(r"\s*")


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
    """The offset of each element of the array ``key`` of the JSON object at ``start``:
    its keys and values walked with Python's JSON decoder, each value skipped whole (none
    if the text does not decode)."""
    try:
        pos = _past(text, start, "{")
        while True:
            name, pos = _DECODER.raw_decode(text, pos)
            pos = _past(text, pos, ":")
            if name == key:
                return _array(text, _past(text, pos, "["))
            pos = _past(text, _DECODER.raw_decode(text, pos)[1], ",")
    except (ValueError, IndexError):  # not JSON here, or no such key
        return []


def _array(text: str, pos: int) -> list[int]:
    """Where each element of the array whose first element is at ``pos`` begins."""
    offsets = []
    while text[pos] != "]":
        offsets.append(pos)
        pos = _space(text, _DECODER.raw_decode(text, pos)[1])
        if text[pos] == ",":
            pos = _space(text, pos + 1)
    return offsets


def _past(text: str, pos: int, mark: str) -> int:
    """The first character after ``mark`` and the space around it (ValueError if the next
    character is not ``mark``)."""
    pos = _space(text, pos)
    if text[pos] != mark:
        raise ValueError(f"{mark} expected at offset {pos}")
    return _space(text, pos + 1)


def _space(text: str, pos: int) -> int:
    """The first character at or after ``pos`` that is not white space."""
    gap = _GAP.match(text, pos)
    return gap.end() if gap else pos
