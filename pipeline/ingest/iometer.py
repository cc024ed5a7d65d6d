"""Iometer results CSV (2006/2008 and 1.1 headers). See docs/formats/iometer.md.

Each test (a ``'Results`` section) gives rows per ALL, MANAGER, PROCESSOR, WORKER and DISK.
The finest level recorded is read: each DISK row (one worker on one target), or each WORKER
row where the targets were not recorded; the ALL row is a cross-check of their sum."""

from __future__ import annotations

import csv
import io
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from pipeline.errors import InputError
from pipeline.ingest.base import NO_OPTIONS, ReadOptions, ReadResult, Reject, latest, stated_time
from pipeline.inputs import read_text
from pipeline.language.message import Message
from pipeline.units import convert_time, mega, split_label

NAME = "iometer"
DESCRIPTION = "Iometer results CSV (2006/2008 or 1.1 header)"
OPTIONS = NO_OPTIONS
EMPTY = None
HOSTS_SUMMED = False
HINT = "give Iometer's results file as it wrote it (the .csv of Results Since Start)"
SIGNATURE = "'Target Type,Target Name,Access Specification Name"
# bandwidth columns by header set: name, bytes in its MB (1.1 tells binary and decimal apart;
# before 1.1 Iometer's MBps divided by 1,048,576)
BANDWIDTH = (
    ("MiBps (Binary)", mega("binary")),
    ("MBps (Binary)", mega("binary")),
    ("MBps", mega("binary")),
)
DECIMAL = ("MBps (Decimal)", mega("decimal"))
AGREE_PCT = 0.1
LEVELS = ("DISK", "WORKER", "MANAGER", "ALL")  # the finest recorded is read
CPU = "% CPU Utilization"  # a MANAGER's (its host's) and the ALL row's; empty below them
MAX_COUNT = 1_000_000


def sniff(head: bytes) -> bool:
    text = head.decode("utf-8", errors="replace").removeprefix("\ufeff").lstrip()
    return text.startswith("'Test Type,Test Description") or SIGNATURE in text


@dataclass
class _Spec:
    name: str
    line: int
    parts: list[list[str]] = field(default_factory=list)  # size, % of size, % reads, % random…


@dataclass
class _Test:
    number: int
    line: int
    specs: dict[str, _Spec]
    header: list[str] = field(default_factory=list)
    rows: list[tuple[int, list[str]]] = field(default_factory=list)


@dataclass
class _File:
    version: str | None = None
    times: list[int | None] = field(default_factory=list)  # each 'Time Stamp, ms since the epoch
    specs: dict[str, _Spec] = field(default_factory=dict)
    tests: list[_Test] = field(default_factory=list)


class _BadRow(Exception):
    """A row that cannot become a record: the reason (a reject key) and its values."""

    def __init__(self, key: str, **values: object) -> None:
        self.reason = Message.of(f"iometer.{key}", **values)
        super().__init__(str(self.reason))


def read(path: Path, options: ReadOptions) -> ReadResult:
    parsed = _parse(path, read_text(path))
    label = options.source_label(path)
    rows: list[dict[str, Any]] = []
    rejects: list[Reject] = []
    notes: list[str] = []
    for test in parsed.tests:
        accepted, rejected, said = _test_rows(test, parsed, options, label)
        rows += accepted
        rejects += rejected
        notes += said
    result = ReadResult(None, rejects, len(rows) + len(rejects), notes, label, rows=rows)
    result.run_time = latest(parsed.times)
    return result


# --- the file's sections --------------------------------------------------------------------


def _lines(path: Path, text: str) -> list[tuple[int, list[str]]]:
    lines = text.splitlines()
    try:
        rows = [next(csv.reader(io.StringIO(line)), []) for line in lines]
    except csv.Error as err:
        raise InputError(path, "", f"not a CSV file: {err}", HINT) from None
    return [(n, [c.strip() for c in cells]) for n, cells in enumerate(rows, start=1) if cells]


def _parse(path: Path, text: str) -> _File:
    found = _File()
    marker = ""
    spec: _Spec | None = None
    for n, cells in _lines(path, text):
        if cells[0].startswith("'"):
            marker = ",".join(cells).lower()
            if marker == "'results":
                found.tests.append(_Test(len(found.tests) + 1, n, dict(found.specs)))
            elif marker.startswith(SIGNATURE.lower()) and found.tests:
                found.tests[-1].header = [cells[0].lstrip("'"), *cells[1:]]
            elif marker == "'access specifications":
                found.specs = {}
            continue
        spec = _content(found, marker, n, cells, spec)
    if not found.tests:
        raise InputError(path, "line 1", "no 'Results section (no test)", HINT)
    return found


def _content(
    found: _File, marker: str, n: int, cells: list[str], spec: _Spec | None
) -> _Spec | None:
    """A line under ``marker``; returns the access specification being read."""
    if marker == "'version":
        found.version = cells[0] or None
    elif marker == "'time stamp":  # 2026-11-24 11:00:00:000, local time (taken as UTC)
        found.times.append(stated_time(cells[0], ("%Y-%m-%d %H:%M:%S:%f", "%Y-%m-%d %H:%M:%S")))
    elif marker.startswith("'access specification name"):
        spec = found.specs[cells[0]] = _Spec(cells[0], n)
    elif marker.startswith("'size,% of size") and spec is not None:
        spec.parts.append(cells)
    elif marker.startswith(SIGNATURE.lower()) and found.tests:
        found.tests[-1].rows.append((n, cells))
    return spec


# --- one test's rows --------------------------------------------------------------------------


def _test_rows(
    test: _Test, parsed: _File, options: ReadOptions, label: str
) -> tuple[list[dict[str, Any]], list[Reject], list[str]]:
    if not test.header:
        return [], [], [f"test {test.number} (line {test.line}): no results header, nothing read"]
    table = [(n, dict(zip(test.header, cells, strict=False))) for n, cells in test.rows]
    records = [(n, cells, host or options.host) for n, cells, host in _records(table)]
    workers = _workers(records)
    rows, rejects = [], []
    for n, cells, host in records:
        try:
            row = _row(cells, test, host, workers)
        except _BadRow as bad:
            rejects.append(Reject(label, Message.of("where.line", line=n), bad.reason))
            continue
        rows.append({**row, **_common(options, parsed, label, n, test)})
    return rows, rejects, _cross_check(test, table, rows)


Table = list[tuple[int, dict[str, str]]]
Record = tuple[int, dict[str, str], str]


def _records(table: Table) -> list[Record]:
    """The finest level recorded, each with its manager (the host, and the host's CPU load)
    and, for a DISK row, its worker's access specification and name."""
    kinds = {cells.get("Target Type", "").upper() for _, cells in table}
    level = next((k for k in LEVELS if k in kinds), "")
    found: list[Record] = []
    host, cpu, worker = "", "", {}
    for n, cells in table:
        kind = cells.get("Target Type", "").upper()
        if kind == "MANAGER":
            host, cpu = cells.get("Target Name", ""), cells.get(CPU, "")
        elif kind == "WORKER":
            worker = cells
        if kind == level:
            inherited = {k: v for k, v in worker.items() if v and not cells.get(k)}
            own = {"_worker": worker.get("Target Name", ""), "_cpu": cells.get(CPU) or cpu}
            found.append((n, {**cells, **inherited, **own}, host))
    return found


def _workers(records: list[Record]) -> dict[tuple[str, str], int]:
    """Workers per host and access specification: the parallelism (of MANAGER or ALL rows,
    where no worker was recorded: their ``# Workers``)."""
    seen: dict[tuple[str, str], set[str]] = {}
    for _, cells, host in records:
        key = (host, cells.get("Access Specification Name", ""))
        seen.setdefault(key, set()).add(cells["_worker"])
    return {key: len(names) for key, names in seen.items()}


def _parallelism(cells: dict[str, str], host: str, workers: dict[tuple[str, str], int]) -> int:
    if cells.get("Target Type", "").upper() in ("DISK", "WORKER"):
        return workers[(host, cells.get("Access Specification Name", ""))]
    value = _number(cells, "# Workers")
    if value is None or value != int(value) or not 1 <= value <= MAX_COUNT:
        raise _BadRow("workers", value=repr(cells.get("# Workers", "")))
    return int(value)


def _row(
    cells: dict[str, str], test: _Test, host: str, workers: dict[tuple[str, str], int]
) -> dict[str, Any]:
    name = cells.get("Access Specification Name", "")
    spec = test.specs.get(name)
    if spec is None:
        raise _BadRow("spec", name=repr(name))
    iops = _number(cells, "IOps")
    if not iops:
        raise _BadRow("no_io")
    return {
        **_profile(spec),
        "host": host,
        "parallelism": _parallelism(cells, host, workers),
        "queue_depth": _queue_depth(cells),
        "interval_s": _seconds(cells, iops),
        "cpu_pct": _number({CPU: cells["_cpu"]}, CPU, True),
        **_figures(cells, iops),
    }


def _profile(spec: _Spec) -> dict[str, Any]:
    """A specification's block size, read share and access; one of several lines (a mix
    such as Iometer's File Server) is a named profile: its sizes as a split (as fio's
    bssplit), the block size their mean, the read and random shares weighted by I/Os."""
    lines = [_spec_line(spec, part) for part in spec.parts]
    lines = [line for line in lines if line[1] > 0] if len(lines) > 1 else lines
    if not lines or abs(sum(share for _, share, _, _ in lines) - 100) > 1e-6:
        raise _BadRow("spec_shares", name=repr(spec.name), line=spec.line)
    reads = sum(share * read for _, share, read, _ in lines) / 100
    random = sum(share * rnd for _, share, _, rnd in lines) / 100
    split = [(size, share) for size, share, _, _ in lines]
    mixed = len(split) > 1
    return {
        "access": "random" if random > 0 else "sequential",
        "read_pct": round(reads, 6),
        "block_size": round(sum(size * share for size, share in split) / 100),
        "block_split": split_label(split) if mixed else None,
        "profile": (spec.name or None) if mixed else None,
        "target_iops": None,
    }


def _spec_line(spec: _Spec, part: list[str]) -> tuple[int, float, float, float]:
    """One line of a specification: size, % of size, % reads, % random."""
    cells = part + [""] * 4
    try:
        size, share, reads, random = (float(cells[i]) for i in range(4))
    except ValueError:
        raise _BadRow("spec_line", name=repr(spec.name), line=spec.line) from None
    whole = 0 < size <= 1 << 40 and size == int(size)
    if not whole or not all(0 <= v <= 100 for v in (share, reads, random)):
        raise _BadRow("spec_line", name=repr(spec.name), line=spec.line)
    return int(size), share, reads, random


def _number(cells: dict[str, str], column: str, optional: bool = False) -> float | None:
    text = cells.get(column, "")
    if not text and optional:
        return None
    try:
        value = float(text)
    except ValueError:
        raise _BadRow("not_number", column=repr(column), value=repr(text)) from None
    if not -1e18 < value < 1e18:
        raise _BadRow("not_number", column=repr(column), value=repr(text))
    return value


def _queue_depth(cells: dict[str, str]) -> int:
    value = _number(cells, "Queue Depth")
    if value is None or value != int(value) or not 1 <= value <= MAX_COUNT:
        raise _BadRow("queue_depth", value=repr(cells.get("Queue Depth", "")))
    return int(value)


def _seconds(cells: dict[str, str], iops: float) -> float:
    """The test's run time: its I/Os ÷ its IOps (Iometer writes the time in timer ticks)."""
    reads = _number(cells, "Read I/Os", True) or 0.0
    writes = _number(cells, "Write I/Os", True) or 0.0
    if reads + writes <= 0 or iops <= 0:
        raise _BadRow("no_time")
    return (reads + writes) / iops


def _bandwidth(cells: dict[str, str], prefix: str) -> float | None:
    for column, unit in (*BANDWIDTH, DECIMAL):
        if f"{prefix}{column}" in cells:
            value = _number(cells, f"{prefix}{column}", True)
            return None if value is None else value * unit
    return None


def _figures(cells: dict[str, str], iops: float) -> dict[str, Any]:
    if iops < 0:
        raise _BadRow("negative")
    figures: dict[str, Any] = {"iops": iops, "bytes_per_s": _bandwidth(cells, "")}
    if figures["bytes_per_s"] is None:
        raise _BadRow("no_bandwidth")
    for direction in ("Read", "Write"):
        low = direction.lower()
        figures[f"{low}_iops"] = _number(cells, f"{direction} IOps", True)
        figures[f"{low}_bytes_per_s"] = _bandwidth(cells, f"{direction} ")
        figures[f"{low}_lat_mean_us"] = _us(cells, f"Average {direction} Response Time")
    figures["lat_mean_us"] = _us(cells, "Average Response Time")
    figures["lat_max_us"] = _us(cells, "Maximum Response Time")
    return figures


def _us(cells: dict[str, str], column: str) -> float | None:
    value = _number(cells, column, True)
    return convert_time(value, "ms") if value is not None and value > 0 else None


def _common(
    options: ReadOptions, parsed: _File, label: str, line: int, test: _Test
) -> dict[str, Any]:
    return {
        "system": options.system,
        "setup": options.setup,
        "tool": NAME,
        "tool_version": parsed.version,
        "interval": test.number,
        "source": label,
        "line": line,
    }


def _cross_check(test: _Test, table: Table, rows: list[dict[str, Any]]) -> list[str]:
    """Iometer's ALL row against the sum of the rows read (as vdbench's totals)."""
    every = [cells for _, cells in table if cells.get("Target Type", "").upper() == "ALL"]
    if not every or not rows:
        return []
    try:
        printed = float(every[0].get("IOps", ""))
    except ValueError:
        return [f"test {test.number}: the ALL row's IOps is not a number"]
    ours = sum(r["iops"] for r in rows)
    agree = abs(ours - printed) <= 0.005 + AGREE_PCT / 100 * abs(printed)
    verdict = "agrees with" if agree else "DIFFERS from"
    return [f"test {test.number}: the ALL row's IOps {verdict} the sum of the rows read"]
