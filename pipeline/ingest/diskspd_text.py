"""DiskSpd's text results (``-Rtext``, the default). See docs/formats/diskspd.md."""

from __future__ import annotations

import re
from collections.abc import Callable
from pathlib import Path

from pipeline.errors import InputError
from pipeline.ingest.base import latest, stated_time, text_lines
from pipeline.ingest.diskspd_parts import (
    TIME_LAYOUTS,
    BadFigure,
    Measured,
    Profile,
    Run,
    Span,
    whole,
)
from pipeline.language.message import Message
from pipeline.units import parse_block_size

HINT = "give DiskSpd's text output as it wrote it (-Rtext)"
_TIMESPAN = re.compile(r"^\s*timespan:\s*(\d+)\s*$")
_PATH = re.compile(r"^\s*path:\s*'(.*)'\s*$")
_RESULTS = re.compile(r"^\s*Results for timespan (\d+):")
_TEST_TIME = re.compile(r"^\s*actual test time:\s*([\d.]+)\s*s\s*$")
_REQUESTS = re.compile(r"^\s*request count:\s*(\d+)\s*$")
_COMPUTER = re.compile(r"^\s*computer name:\s*(.*?)\s*$")
_CPU_AVG = re.compile(r"^\s*avg\.\s*\|\s*([\d.]+)%")
_SECTIONS = {"Total IO": "total", "Read IO": "read", "Write IO": "write"}
_PERCENTILE_HEAD = re.compile(r"^\s*%-ile\s*\|")
_FILE = re.compile(r"^(.*) \(\d+(?:B|KiB|MiB|GiB)\)$")
INTERRUPTED = "The test was interrupted before the measurements began"
# DiskSpd's percentile rows -> the names iopress keeps
_PERCENTILE_ROWS = {
    "50th": "p50",
    "90th": "p90",
    "99th": "p99",
    "3-nines": "p999",
    "4-nines": "p9999",
    "max": "max",
}
# the line above the table of all targets' percentiles: 2.0 and 2.2
_ALL_TARGETS = ("total:", "total latency distribution:")
Lines = list[tuple[int, str]]


def parse(text: str, path: Path) -> Run:
    lines = text_lines(text, path, "DiskSpd")
    run = Run(time=_start_time(lines))
    spans = _input_parameters(path, lines)
    _results(path, lines, spans, run)
    run.spans = list(spans.values())
    return run


_START = re.compile(r"^\s*start time:\s*(.+?)\s*$")


def _start_time(lines: Lines) -> int | None:
    """When the run started (``start time: 2021/04/16 19:03:38 UTC``), the latest if
    several are printed."""
    found = [_START.match(line) for _, line in lines if "start time" in line]
    return latest([stated_time(m[1], TIME_LAYOUTS) for m in found if m])


# --- the input parameters: each time span's targets and their profiles ---------------------

_SETTINGS: tuple[tuple[re.Pattern[str], Callable[[re.Match[str]], tuple[str, str]]], ...] = (
    (re.compile(r"performing read test"), lambda m: ("write", "0")),
    (re.compile(r"performing write test"), lambda m: ("write", "100")),
    (
        re.compile(r"performing mix test \(read/write ratio: (\d+)/(\d+)\)"),
        lambda m: ("write", m[2]),
    ),
    (re.compile(r"^\s*block size:\s*(\S+)\s*$"), lambda m: ("block", m[1])),
    (re.compile(r"using random I/O"), lambda m: ("access", "random")),
    (re.compile(r"using (?:interlocked )?sequential I/O"), lambda m: ("access", "sequential")),
    (re.compile(r"outstanding I/O operations(?: per thread)?:\s*(\d+)"), lambda m: ("qd", m[1])),
)


def _input_parameters(path: Path, lines: Lines) -> dict[int, Span]:
    """Time span number -> its span with the targets' profiles (queue depth from the results
    when DiskSpd prints it there: -F with -O)."""
    spans: dict[int, Span] = {}
    settings: dict[tuple[int, str], tuple[int, dict[str, str]]] = {}
    span: Span | None = None
    current: dict[str, str] | None = None
    for n, line in lines:
        if _RESULTS.match(line):
            break
        if match := _TIMESPAN.match(line):
            span = spans.setdefault(int(match[1]), Span(int(match[1]), n))
            current = None
        elif (match := _PATH.match(line)) and span is not None:
            current = {}
            settings.setdefault((span.number, match[1]), (n, current))
        elif current is not None:
            current.update(_setting(line))
    if not spans:
        raise InputError(path, "line 1", "no time span in DiskSpd's input parameters", HINT)
    for (number, target), (n, found) in settings.items():
        spans[number].targets[target] = _profile(path, n, target, found)
    return spans


def _setting(line: str) -> dict[str, str]:
    for pattern, value in _SETTINGS:
        if match := pattern.search(line):
            key, text = value(match)
            return {key: text}
    return {}


def _profile(path: Path, line: int, target: str, found: dict[str, str]) -> Profile:
    missing = [k for k in ("write", "block", "access") if k not in found]
    if missing:
        raise InputError(
            path, f"line {line}", f"target {target!r}: no {', '.join(missing)} given", HINT
        )
    try:
        block = parse_block_size(found["block"])
    except ValueError as err:
        raise InputError(path, f"line {line}", f"target {target!r}: {err}", HINT) from None
    if float(found["write"]) > 100:
        raise InputError(path, f"line {line}", f"target {target!r}: writes over 100 %", HINT)
    return Profile(
        access=found["access"],
        read_pct=100.0 - float(found["write"]),
        block_size=block,
        queue_depth=int(found.get("qd", "0")),
    )


# --- the results: per time span the thread tables and the percentile tables --------------


def _results(path: Path, lines: Lines, spans: dict[int, Span], run: Run) -> None:
    span: Span | None = None
    tables: dict[str, list[tuple[int, list[str]]]] = {}
    i = 0
    while i < len(lines):
        n, line = lines[i]
        text = line.strip()
        if match := _RESULTS.match(line):
            _finish(path, span, tables, run)
            span, tables = _span_of(path, n, spans, int(match[1])), {}
        elif match := _COMPUTER.match(line):
            run.host = run.host or match[1] or None
        elif span is not None:
            if text in _SECTIONS:
                tables[_SECTIONS[text]], i = _table(path, lines, i + 1)
                continue
            if _PERCENTILE_HEAD.match(line):
                i = _percentiles(lines, i, span)
                continue
            _span_line(line, span)
        i += 1
    _finish(path, span, tables, run)


def _span_of(path: Path, line: int, spans: dict[int, Span], number: int) -> Span:
    if number not in spans:
        raise InputError(
            path, f"line {line}", f"results for time span {number}, which has no parameters", HINT
        )
    spans[number].has_results = True
    return spans[number]


def _span_line(line: str, span: Span) -> None:
    if match := _TEST_TIME.match(line):
        span.seconds = float(match[1])
    elif match := _REQUESTS.match(line):
        for target, profile in list(span.targets.items()):
            if not profile.queue_depth:
                span.targets[target] = _with_depth(profile, int(match[1]))
    elif match := _CPU_AVG.match(line):
        span.cpu_pct = float(match[1])
    elif INTERRUPTED in line:
        span.seconds = None


def _with_depth(profile: Profile, depth: int) -> Profile:
    return Profile(profile.access, profile.read_pct, profile.block_size, depth)


def _table(path: Path, lines: Lines, start: int) -> tuple[list[tuple[int, list[str]]], int]:
    """The rows of one thread table (header, dashes, rows, dashes, ``total:``) as cells;
    the total line's first cell is ``total``. Returns the rows and the index after it."""
    rows: list[tuple[int, list[str]]] = []
    i = start
    while i < len(lines) and not lines[i][1].strip():
        i += 1
    if i >= len(lines) or not lines[i][1].lstrip().startswith("thread"):
        where = f"line {lines[min(i, len(lines) - 1)][0]}"
        raise InputError(
            path, where, "a thread table without its header (thread | bytes | …)", HINT
        )
    for n, line in lines[i:]:
        i += 1
        if line.strip().startswith("total:"):
            rows.append((n, ["total", *_cells(line.strip()[len("total:") :])]))
            break
        if line.strip() and not line.strip().startswith("-"):
            rows.append((n, _cells(line)))
    return rows, i


def _cells(line: str) -> list[str]:
    return [cell.strip() for cell in line.split("|")]


def _percentiles(lines: Lines, start: int, span: Span) -> int:
    """One percentile table (its scope named on the line before: a target, or total)."""
    scope = next((t.strip() for _, t in reversed(lines[:start]) if t.strip()), "")
    key = "" if scope.lower() in _ALL_TARGETS else scope.removesuffix(" latency distribution:")
    found: dict[str, float | None] = {}
    i = start + 1
    for _, line in lines[start + 1 :]:
        cells = _cells(line)
        if not line.strip() or (len(cells) != 4 and not line.strip().startswith("-")):
            break
        i += 1
        if cells[0] in _PERCENTILE_ROWS:
            found[_PERCENTILE_ROWS[cells[0]]] = _optional(cells[3])
    span.percentiles[key] = found
    return i


def _optional(text: str) -> float | None:
    try:
        value = float(text)
    except ValueError:
        return None
    return value if value > 0 else None


# --- one time span's threads: the three tables joined ------------------------------------

_COLUMNS = {"bytes": "bytes", "I/Os": "ios", "I/O per s": "iops", "AvgLat": "lat"}


def _finish(
    path: Path, span: Span | None, tables: dict[str, list[tuple[int, list[str]]]], run: Run
) -> None:
    if span is None or span.seconds is None:
        return
    if "total" not in tables:
        where = f"line {span.line}"
        raise InputError(path, where, f"time span {span.number} has no Total IO table", HINT)
    header = tables["total"][0][1] if tables["total"] else []
    total = tables["total"]
    span.seconds = _seconds(span.seconds, header, total)
    for index, (n, cells) in enumerate(total[1:]):
        if cells[0] == "total":
            run.notes.append(_total_check(span, header, cells))
            break
        span.measured.append(_measured(path, n, header, cells, tables, index + 1))


def _total_check(span: Span, header: list[str], total: list[str]) -> str:
    """DiskSpd's own total line against the sum of its thread rows (as read)."""
    printed = [total[i] if i < len(total) else "" for i in (1, _index(header, "I/Os"))]
    ours = [str(sum(m.bytes for m in span.measured)), str(sum(m.ios for m in span.measured))]
    agree = printed == ours and _latency_agrees(span, header, total)
    verdict = "agrees with" if agree else "DIFFERS from"
    return f"time span {span.number}: the total line {verdict} the sum of the threads"


def _latency_agrees(span: Span, header: list[str], total: list[str]) -> bool:
    """The I/O-weighted mean of the threads' AvgLat (each printed to 1 µs) against the
    total line's: within the two roundings, 1 µs."""
    at = _index(header, "AvgLat")
    ios = sum(m.ios for m in span.measured if m.lat_ms is not None)
    if at >= len(total) or not ios:
        return True
    try:
        printed = float(total[at])
    except ValueError:
        return False
    ours = sum(m.ios * (m.lat_ms or 0.0) for m in span.measured) / ios
    return abs(ours - printed) <= 0.001 + 1e-9


def _seconds(printed: float, header: list[str], rows: list[tuple[int, list[str]]]) -> float:
    """The measured time: DiskSpd prints it rounded to 10 ms, but its rates are exact; the
    total line's I/Os ÷ I/O per s gives it more exactly (when it agrees with the print)."""
    total = next((cells for _, cells in rows if cells and cells[0] == "total"), None)
    if total is None or len(total) < len(header) - 1:
        return printed
    try:
        ios, iops = float(total[_index(header, "I/Os")]), float(total[_index(header, "I/O per s")])
    except (ValueError, IndexError):
        return printed
    if iops <= printed or ios <= 0:
        return printed
    exact = ios / iops
    return exact if abs(exact - printed) <= 0.005 + exact * 0.005 / iops + 1e-9 else printed


def _index(header: list[str], name: str) -> int:
    return header.index(name) if name in header else len(header)


def _measured(
    path: Path,
    line: int,
    header: list[str],
    cells: list[str],
    tables: dict[str, list[tuple[int, list[str]]]],
    index: int,
) -> Measured:
    if len(cells) != len(header):
        raise InputError(
            path, f"line {line}", f"{len(cells)} fields, the header has {len(header)}", HINT
        )
    thread, target = cells[0], _file(cells[-1])
    where = Message.of("where.diskspd", line=line, thread=thread, target=target)
    found = Measured(thread, target, line, where)
    at = line  # the line of the figure at fault
    try:
        _fill(found, "", header, cells)
        for direction in ("read", "write"):
            other = _same_row(path, tables.get(direction), index, thread, cells[-1], line)
            if other is not None:
                at = other[0]
                _fill(found, direction + "_", header, other[1])
    except BadFigure as bad:
        found.problem = bad.reason
        found.where = Message.of("where.diskspd", line=at, thread=thread, target=target)
    return found


def _same_row(
    path: Path,
    table: list[tuple[int, list[str]]] | None,
    index: int,
    thread: str,
    file: str,
    line: int,
) -> tuple[int, list[str]] | None:
    """The row of the same thread and target in the Read IO or Write IO table."""
    if table is None:
        return None
    if index >= len(table) or table[index][1][0] != thread or table[index][1][-1] != file:
        raise InputError(
            path,
            f"line {line}",
            f"thread {thread} ({file}) is not in the same place in the Read IO and Write IO tables",
            HINT,
        )
    return table[index]


def _fill(found: Measured, prefix: str, header: list[str], cells: list[str]) -> None:
    values = {key: cells[header.index(col)] for col, key in _COLUMNS.items() if col in header}
    if "bytes" not in values or "ios" not in values:
        raise BadFigure("bytes", "absent")
    setattr(found, f"{prefix}bytes", _whole("bytes", values["bytes"]))
    setattr(found, f"{prefix}ios", _whole("I/Os", values["ios"]))
    lat = values.get("lat")
    setattr(found, f"{prefix}lat_ms", _number("AvgLat", lat) if lat is not None else None)


def _whole(column: str, text: str) -> int:
    if not whole(text):
        raise BadFigure(column, text)
    return int(text)


def _number(column: str, text: str) -> float | None:
    try:
        value = float(text)
    except ValueError:
        raise BadFigure(column, text) from None
    if value != value or value in (float("inf"), float("-inf")) or value < 0:
        raise BadFigure(column, text)
    return value or None


def _file(cell: str) -> str:
    """``D:\\test.dat (150GiB)`` -> ``D:\\test.dat``: the target as the parameters name it."""
    match = _FILE.match(cell)
    return match[1] if match else cell
