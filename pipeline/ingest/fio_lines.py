"""The line of each record of a fio JSON document (that of its own "jobname" key; of its
opening brace where it has none), for the provenance of its row and the place of its
reject. The decoded records carry no positions, so they are found in the text again:
quickly by the "jobname" keys, where the document holds exactly one per record (fio
writes one per record, records in order); else by walking the document with Python's
JSON decoder to the records' array and each record's own members."""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from typing import Any

_JOBNAME = '"jobname"'
_DECODER = json.JSONDecoder()
_GAP = re.compile(r"\s*")


def batch_lines(text: str, key: str, batches: Sequence[tuple[int, list[Any]]]) -> list[list[int]]:
    """Per batch (the offset of its JSON document in ``text``, its records from the
    document's array ``key``; documents in order) the line of each record. A document ends
    where the next begins."""
    found, line, pos = [], 1, 0
    ends = [start for start, _ in batches[1:]] + [len(text)]
    for (start, records), end in zip(batches, ends, strict=True):
        line += text.count("\n", pos, start)  # counted on, not from the start each time
        pos = start
        offsets = _by_jobname(text, start, end, records)
        if offsets is None:  # not one "jobname" per record: the records' own members
            offsets = [_own_key(text, e) for e in _elements(text, start, key)]
        found.append(_lines(text, start, line, offsets, len(records)))
    return found


def _lines(text: str, start: int, first: int, offsets: list[int], count: int) -> list[int]:
    """The line of each offset (on from ``start``, on line ``first``); records without
    an offset get ``first``."""
    lines, line, pos = [], first, start
    for offset in offsets[:count]:
        if text.find("\n", pos, offset) >= 0:  # (found at memory speed; counted slower)
            line += text.count("\n", pos, offset)
        pos = offset
        lines.append(line)
    return lines + [first] * (count - len(lines))


def _by_jobname(text: str, start: int, end: int, records: list[Any]) -> list[int] | None:
    """The offsets of the "jobname" keys, in order, where the document holds as many as
    it has records and every record has one (then each is its record's own); else None.
    One pass: the keys are counted as str.count counts them (not overlapping), which
    only text around the document can make differ from finding each one."""
    named = all(isinstance(r, dict) and _JOBNAME[1:-1] in r for r in records)
    if not named:
        return None
    offsets: list[int] = []
    counted, free = 0, start  # keys counted, and where the next counted one may begin
    pos = text.find(_JOBNAME, start, end)
    while pos >= 0:
        if pos >= free:
            counted, free = counted + 1, pos + len(_JOBNAME)
            if counted > len(records):
                return None
        if len(offsets) < len(records):
            offsets.append(pos)
        pos = text.find(_JOBNAME, pos + 1, end)
    return offsets if counted == len(records) else None


def _elements(text: str, start: int, key: str) -> list[int]:
    """The offset of each element of the array ``key`` (its last occurrence, the one a
    decoder keeps) of the JSON object at ``start``; none if the text does not decode."""
    try:
        members = _members(text, start)
        arrays = [at for name, at in members if name == key and text[at] == "["]
        return _array(text, _space(text, arrays[-1] + 1)) if arrays else []
    except (ValueError, IndexError, RecursionError):  # not JSON here
        return []


def _own_key(text: str, element: int) -> int:
    """The offset of the element's own "jobname" key (its last, the one a decoder keeps),
    or of the element itself."""
    try:
        keys = [at for name, at in _members(text, element, keys=True) if name == "jobname"]
    except (ValueError, IndexError, RecursionError):  # not an object
        return element
    return keys[-1] if keys else element


def _members(text: str, pos: int, keys: bool = False) -> list[tuple[str, int]]:
    """Each member of the JSON object at ``pos``: its name, and the offset of its value
    (of its key with ``keys``); the values are skipped whole by the decoder."""
    found: list[tuple[str, int]] = []
    pos = _past(text, pos, "{")
    while text[pos] != "}":
        name, after = _DECODER.raw_decode(text, pos)
        value = _past(text, after, ":")
        found.append((str(name), pos if keys else value))
        pos = _space(text, _DECODER.raw_decode(text, value)[1])
        if text[pos] == ",":
            pos = _space(text, pos + 1)
    return found


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
