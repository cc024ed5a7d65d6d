"""CrystalDiskMark "Save text" / "Copy" exports (versions 3 to 8; KDiskMark writes the
same). See docs/formats/crystaldiskmark.md.

Each result line (``SEQ    1MiB (Q=  8, T= 1):   531.458 MB/s [ 506.8 IOPS] < 15726.77 us>``)
is one record and one point: the test's block size, queue depth and threads, read, write or
the mix, its MB/s in the unit the header declares, IOPS and latency where printed."""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from pipeline.errors import InputError
from pipeline.ingest.base import (
    NO_OPTIONS,
    ReadOptions,
    ReadResult,
    Reject,
    latest,
    stated_time,
    text_lines,
)
from pipeline.inputs import read_text
from pipeline.language.message import Message
from pipeline.units import mega, parse_block_size

NAME = "crystaldiskmark"
DESCRIPTION = "CrystalDiskMark text export (Save text / Copy), versions 3 to 8"
OPTIONS = NO_OPTIONS
EMPTY = None
HOSTS_SUMMED = False
HINT = "give CrystalDiskMark's text export as it saved it (File > Save text)"
_BANNER = re.compile(r"^\s*(CrystalDiskMark|KDiskMark)\b", re.MULTILINE)
_VERSION = re.compile(r"\b(?:CrystalDiskMark|KDiskMark)\s*\(?\s*(\d[\w.]*(?: (?:x64|x86|ARM64))?)")
_UNIT = re.compile(r"MB/s\s*=\s*([\d,]+)\s*bytes?/s")
_SECTION = re.compile(r"^\s*\[(Read|Write|Mix)\](.*)$")
_CANDIDATE = re.compile(r":.*\b[KMG]B/s\b")
_RESULT = re.compile(
    r"^(?P<name>[^:]+?)\s*:\s*(?P<rate>\d+(?:\.\d+)?)\s*(?P<unit>[KMG]B/s)"
    r"(?:\s*\[\s*(?P<iops>\d+(?:\.\d+)?)\s*IOPS\s*\])?"
    r"(?:\s*<\s*(?P<lat>\d+(?:\.\d+)?)\s*us\s*>)?\s*$"
)
_BLOCK = re.compile(r"(\d+)\s*(KiB|MiB|KB|MB|K|M)\b")
_QUEUE = re.compile(r"\bQD?\s*=\s*(\d+)")
_THREADS = re.compile(r"\bT\s*=\s*(\d+)")
_MIX = re.compile(r"Read\s*(\d+)\s*%")
_MEASURE = re.compile(r"Measure\s+(\d+)\s*sec")
_DATE = re.compile(r"^\s*Date\s*:\s*(.+?)\s*$")  # the footer's ``Date: 2021/06/22 17:19:21``
_FOOTER = ("Profile", "Test", "Mode", "Time", "Date", "OS", "Comment", "Mix Ratio")
DEFAULT_MEASURE_S = 5.0  # CrystalDiskMark's measuring time when the export does not say
MAX_COUNT = 1_000_000


def sniff(head: bytes) -> bool:
    text = head.decode("utf-8", errors="replace").removeprefix("\ufeff")
    top = "\n".join(text.splitlines()[:6])
    return bool(_BANNER.search(top)) and "MB/s =" in text


@dataclass
class _Setup:
    """What the export says about the whole run."""

    unit: float  # bytes/s in one MB/s
    version: str | None
    measure_s: float
    mix: float | None  # the read share of [Mix] tests


class _BadTest(Exception):
    """A result line that cannot become a row: the reason (a reject key) and its values."""

    def __init__(self, key: str, **values: object) -> None:
        self.reason = Message.of(f"crystaldiskmark.{key}", **values)
        super().__init__(str(self.reason))


def read(path: Path, options: ReadOptions) -> ReadResult:
    text = read_text(path)
    lines = text_lines(text, path, "CrystalDiskMark")
    setup, notes = _setup(path, text)
    label = options.source_label(path)
    rows: list[dict[str, Any]] = []
    rejects: list[Reject] = []
    seen: dict[tuple[object, ...], int] = {}
    for n, line, section in _results(lines):
        where = Message.of("where.line", line=n)
        try:
            point = _point(line, section, setup)
            _once(point, n, seen)
        except _BadTest as bad:
            rejects.append(Reject(label, where, bad.reason))
            continue
        rows.append({**point, **_common(options, setup, label, n)})
    if not rows and not rejects:
        raise InputError(path, "line 1", "no result line (… : 123.456 MB/s …) found", HINT)
    notes += _footer(lines)
    result = ReadResult(None, rejects, len(rows) + len(rejects), notes, label, rows=rows)
    result.run_time = _date(lines)
    return result


def _setup(path: Path, text: str) -> tuple[_Setup, list[str]]:
    notes: list[str] = []
    unit = _UNIT.search(text)
    if unit is None:
        notes.append("no unit line: MB/s taken as 1,000,000 bytes/s, CrystalDiskMark's")
    value = float(unit[1].replace(",", "")) if unit else mega("decimal")
    if not 1000 <= value <= 1 << 30:
        where = f"line {text[: unit.start()].count(chr(10)) + 1}" if unit else "line 1"
        what = f"the unit line's MB/s = {unit[1] if unit else ''} bytes/s is no rate unit"
        raise InputError(path, where, what, HINT)
    version = _VERSION.search(text)
    measure = _MEASURE.search(text)
    seconds = float(measure[1]) if measure and int(measure[1]) > 0 else DEFAULT_MEASURE_S
    mix = _mix_ratio(text)
    return _Setup(value, version[1] if version else None, seconds, mix), notes


def _mix_ratio(text: str) -> float | None:
    """The read share of the mix: ``[Mix] Read 70%/Write 30%`` or ``Mix Ratio : Read 70%``."""
    for line in text.splitlines():
        if ((section := _SECTION.match(line)) and section[1] == "Mix") or "Mix Ratio" in line:
            share = _MIX.search(line)
            if share and int(share[1]) <= 100:
                return float(share[1])
    return None


def _results(lines: list[tuple[int, str]]) -> list[tuple[int, str, str]]:
    """(line, text, section) of every line that reports a rate."""
    found = []
    section = ""
    for n, line in lines:
        if match := _SECTION.match(line):
            section = match[1]
        elif _CANDIDATE.search(line) and not line.lstrip().startswith("*"):
            found.append((n, line, section))
    return found


def _point(line: str, section: str, setup: _Setup) -> dict[str, Any]:
    match = _RESULT.match(line.strip())
    if match is None:
        raise _BadTest("line", text=repr(line.strip()[:80]))
    if match["unit"] != "MB/s":
        raise _BadTest("unit", unit=match["unit"])
    name = match["name"]
    access, block = _access(name), _block(name)
    read_pct = _read_pct(name, section, setup)
    rate = float(match["rate"]) * setup.unit
    if rate <= 0:
        raise _BadTest("zero")
    iops = float(match["iops"]) if match["iops"] else rate / block
    lat = float(match["lat"]) if match["lat"] else None
    return {
        "access": access,
        "read_pct": read_pct,
        "block_size": block,
        "parallelism": _count(_THREADS, name),
        "queue_depth": _count(_QUEUE, name),
        "target_iops": None,
        "iops": iops,
        "bytes_per_s": rate,
        **_directions(read_pct, iops, rate, lat if lat and lat > 0 else None),
    }


def _access(name: str) -> str:
    if re.search(r"\b(?:SEQ|Seq|Sequential)\b", name):
        return "sequential"
    if re.search(r"\b(?:RND|Random)\b", name):
        return "random"
    raise _BadTest("access", name=repr(name.strip()))


def _block(name: str) -> int:
    """The block size the test names; CrystalDiskMark 3 to 6 name none for sequential tests:
    1 MiB, or 128 KiB where the line gives a queue depth (5 and 6's ``Seq Q32T1``)."""
    match = _BLOCK.search(name)
    if match:
        size = parse_block_size(f"{match[1]}{match[2]}")
        if 0 < size <= 1 << 40:
            return size
        raise _BadTest("block", name=repr(name.strip()))
    if _access(name) == "sequential":
        return 128 * 1024 if _QUEUE.search(name) else 1024 * 1024
    raise _BadTest("block", name=repr(name.strip()))


def _read_pct(name: str, section: str, setup: _Setup) -> float:
    direction = next((d for d in ("Read", "Write", "Mix") if re.search(rf"\b{d}\b", name)), "")
    direction = direction or section
    if direction == "Read":
        return 100.0
    if direction == "Write":
        return 0.0
    if direction != "Mix":
        raise _BadTest("direction", name=repr(name.strip()))
    if setup.mix is None:
        raise _BadTest("mix", name=repr(name.strip()))
    return setup.mix


def _count(pattern: re.Pattern[str], name: str) -> int:
    match = pattern.search(name)
    value = int(match[1]) if match else 1
    if not 1 <= value <= MAX_COUNT:
        raise _BadTest("count", name=repr(name.strip()))
    return value


def _directions(read_pct: float, iops: float, rate: float, lat: float | None) -> dict[str, Any]:
    """Read or write tests: all of it one direction; the mix: not split (not printed)."""
    figures: dict[str, Any] = {"lat_mean_us": lat}
    if read_pct in (0.0, 100.0):
        share = read_pct / 100
        figures |= {"read_iops": iops * share, "write_iops": iops * (1 - share)}
        figures |= {"read_bytes_per_s": rate * share, "write_bytes_per_s": rate * (1 - share)}
        figures["read_lat_mean_us" if share else "write_lat_mean_us"] = lat
    return figures


_KEY = ("access", "read_pct", "block_size", "parallelism", "queue_depth")


def _once(point: dict[str, Any], line: int, seen: dict[tuple[object, ...], int]) -> None:
    key = tuple(point[k] for k in _KEY)
    if key in seen:
        raise _BadTest("duplicate", first=seen[key])
    seen[key] = line


def _common(options: ReadOptions, setup: _Setup, label: str, line: int) -> dict[str, Any]:
    return {
        "system": options.system,
        "setup": options.setup,
        "tool": NAME,
        "tool_version": setup.version,
        "host": options.host,
        "interval": 1,
        "interval_s": setup.measure_s,
        "source": label,
        "line": line,
    }


def _footer(lines: list[tuple[int, str]]) -> list[str]:
    """The run's description as the export gives it: test size and runs, the drive and how
    full it was, date, OS, comment."""
    said = []
    for _, line in lines:
        key, _, value = line.strip().partition(":")
        if key.strip() in _FOOTER and value.strip():
            said.append(f"{key.strip()}: {value.strip()}")
    return said


def _date(lines: list[tuple[int, str]]) -> int | None:
    """When the run ran, as the footer's ``Date:`` says (local time: taken as UTC)."""
    found = [_DATE.match(line) for _, line in lines if "Date" in line]
    return latest([stated_time(m[1], ("%Y/%m/%d %H:%M:%S",)) for m in found if m])
