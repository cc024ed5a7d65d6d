"""elbencho results: ``--csvfile`` (and ``--jsonfile``, the same fields), and the text of
``--resfile`` (``elbencho_text``, read into the same fields). See docs/formats/elbencho.md.

Each row is one phase of one run; its READ and WRITE phases are records (the others, such
as MKDIRS or STAT, move no blocks and are rejected with that reason)."""

from __future__ import annotations

import csv
import io
import re
from pathlib import Path
from typing import Any

from pipeline.errors import InputError
from pipeline.ingest import elbencho_text
from pipeline.ingest.base import NO_OPTIONS, ReadOptions, ReadResult, Reject, latest, stated_time
from pipeline.inputs import parse_json, read_text
from pipeline.language.message import Message
from pipeline.units import IEC_RATES, convert_time, parse_block_size

NAME = "elbencho"
DESCRIPTION = "elbencho results file (--csvfile, --jsonfile or --resfile)"
OPTIONS = NO_OPTIONS
EMPTY = None
HOSTS_SUMMED = False
HINT = "give elbencho's --csvfile (or --jsonfile, --resfile) as it wrote it"
REQUIRED = ("operation", "threads", "block size", "IO depth", "time ms [last]", "IOPS [last]")
_RWMIX = re.compile(r'"--rwmixpct"\s+"(\d+)"|--rwmixpct[= ](\d+)')
MAX_COUNT = 1_000_000
MIB = IEC_RATES["MiB/s"]  # elbencho's MiB/s


def sniff(head: bytes) -> bool:
    text = head.decode("utf-8", errors="replace").removeprefix("\ufeff").lstrip()
    first = text.splitlines()[0] if text else ""
    csv_header = "operation" in first and "IOPS [last]" in first and "MiB/s [last]" in first
    json = text[:1] in "[{" and '"IOPS [last]"' in text
    return csv_header or json or elbencho_text.sniff(text)


class _BadPhase(Exception):
    """A phase that cannot become a row: the reason (a reject key) and its values."""

    def __init__(self, key: str, **values: object) -> None:
        self.reason = Message.of(f"elbencho.{key}", **values)
        super().__init__(str(self.reason))


def read(path: Path, options: ReadOptions) -> ReadResult:
    text = read_text(path).removeprefix("\ufeff")
    phases = _phases(path, text)
    label = options.source_label(path)
    rows: list[dict[str, Any]] = []
    rejects: list[Reject] = []
    notes: list[str] = []
    for number, (line, fields) in enumerate(phases, start=1):
        try:
            _text_settings(fields)
            row = _phase(fields, notes, line)
        except _BadPhase as bad:
            rejects.append(Reject(label, _where(line, number), bad.reason))
            continue
        rows.append({**row, **_common(options, label, fields, number, line)})
    result = ReadResult(None, rejects, len(rows) + len(rejects), notes, label, rows=rows)
    result.run_time = latest([stated_time(f.get(elbencho_text.DATE, "")) for _, f in phases])
    return result


def _phases(path: Path, text: str) -> list[tuple[int, dict[str, str]]]:
    if text.lstrip()[:1] in "[{":
        return _json(path, text)
    return elbencho_text.phases(path, text) if elbencho_text.sniff(text) else _csv(path, text)


def _text_settings(fields: dict[str, str]) -> None:
    """A --resfile phase has its run's settings from the COMMAND LINE line; one of a run
    with --rwmixpct gives no split of its reads and writes."""
    if not fields.get("_text"):
        return
    if "command" not in fields and fields.get("operation", "").upper() in ("READ", "WRITE"):
        raise _BadPhase("no_command")
    if fields.get("rwmixpct") and fields.get("operation", "").upper() == "WRITE":
        raise _BadPhase("rwmix_text")


def _place(line: int) -> str:
    return f"line {line}" if line else "a --jsonfile object"


def _where(line: int, number: int) -> Message:
    if line:
        return Message.of("where.line", line=line)
    return Message.of("where.text", text=f"[{number - 1}]")  # an object of --jsonfile


def _csv(path: Path, text: str) -> list[tuple[int, dict[str, str]]]:
    """Rows by the header's names; elbencho appends to an existing file, so a header line
    repeated further down starts a new header."""
    found: list[tuple[int, dict[str, str]]] = []
    header: list[str] = []
    try:
        lines = [next(csv.reader(io.StringIO(line)), []) for line in text.splitlines()]
    except csv.Error as err:
        raise InputError(path, "", f"not a CSV file: {err}", HINT) from None
    for n, cells in enumerate(lines, start=1):
        if not cells or not any(c.strip() for c in cells):
            continue
        if "operation" in cells and "IOPS [last]" in cells:
            header = [c.strip() for c in cells]
            _check(path, n, header)
        elif not header:
            raise InputError(path, f"line {n}", "no header line before the data", HINT)
        else:
            found.append((n, dict(zip(header, (c.strip() for c in cells), strict=False))))
    return found


def _check(path: Path, line: int, header: list[str]) -> None:
    missing = [c for c in REQUIRED if c not in header]
    if missing:
        raise InputError(path, f"line {line}", f"missing column(s): {', '.join(missing)}", HINT)


def _json(path: Path, text: str) -> list[tuple[int, dict[str, str]]]:
    doc = parse_json(text, path)
    items = doc if isinstance(doc, list) else [doc]
    if not all(isinstance(item, dict) for item in items):
        raise InputError(path, "line 1", "not a list of elbencho result objects", HINT)
    found = []
    for item in items:
        fields = {str(k): "" if v is None else str(v) for k, v in item.items()}
        _check(path, 1, list(fields))
        found.append((0, fields))
    return found


def _phase(fields: dict[str, str], notes: list[str], line: int) -> dict[str, Any]:
    operation = fields.get("operation", "").upper()
    if operation not in ("READ", "WRITE"):
        raise _BadPhase("phase", operation=repr(fields.get("operation", "")))
    seconds = convert_time(_number(fields, "time ms [last]"), "ms", "s")
    block = _block(fields)
    writes = _number(fields, "IOPS [last]")
    reads = _optional(fields, "rwmix read IOPS [last]") if operation == "WRITE" else None
    iops = writes + (reads or 0.0)
    if seconds <= 0 or iops <= 0:
        raise _BadPhase("no_io")
    read_pct = _read_pct(fields, operation, reads, iops, notes, line)
    notes += _rate_check(fields, iops * block, line)
    if _optional(fields, "hosts") not in (None, 1.0):
        notes.append(f"{_place(line)}: the figures are the sum of {fields['hosts']} hosts")
    read_iops = iops if operation == "READ" else reads or 0.0
    return {
        "access": "random" if _flag(fields.get("random", "0")) else "sequential",
        "read_pct": read_pct,
        "block_size": block,
        "parallelism": _count(fields, "threads"),
        "queue_depth": _count(fields, "IO depth"),
        "target_iops": None,
        "interval_s": seconds,
        "iops": iops,
        "bytes_per_s": iops * block,
        "read_iops": read_iops,
        "write_iops": iops - read_iops,
        "read_bytes_per_s": read_iops * block,
        "write_bytes_per_s": (iops - read_iops) * block,
        **_latencies(fields, operation, reads or 0.0),
        "cpu_pct": _percent(fields.get("CPU% [last]", "")),
    }


def _rate_check(fields: dict[str, str], rate: float, line: int) -> list[str]:
    """IOPS × block size against elbencho's MiB/s (printed in whole MiB/s, rounded down)."""
    printed = [fields.get(c, "") for c in ("MiB/s [last]", "rwmix read MiB/s [last]")]
    try:
        total = sum(float(text) for text in printed if text)
    except ValueError:
        return []
    ours = rate / MIB
    if not printed[0] or total <= ours < total + 2 + total / 100:
        return []
    return [f"{_place(line)}: IOPS × block size is {ours:.1f} MiB/s, elbencho says {total:g}"]


def _number(fields: dict[str, str], column: str) -> float:
    text = fields.get(column, "")
    try:
        value = float(text)
    except ValueError:
        raise _BadPhase("not_number", column=repr(column), value=repr(text)) from None
    if not 0 <= value < 1e18:
        raise _BadPhase("not_number", column=repr(column), value=repr(text))
    return value


def _optional(fields: dict[str, str], column: str) -> float | None:
    return _number(fields, column) if fields.get(column, "") else None


def _block(fields: dict[str, str]) -> int:
    text = fields.get("block size", "")
    try:
        block = parse_block_size(text)
    except ValueError:
        raise _BadPhase("block", value=repr(text)) from None
    if block > 1 << 40:
        raise _BadPhase("block", value=repr(text))
    return block


def _count(fields: dict[str, str], column: str) -> int:
    value = _number(fields, column)
    if value != int(value) or not 1 <= value <= MAX_COUNT:
        raise _BadPhase("count", column=repr(column), value=repr(fields.get(column, "")))
    return int(value)


def _flag(text: str) -> bool:
    return text.strip().lower() in ("1", "true", "yes")


def _read_pct(
    fields: dict[str, str],
    operation: str,
    reads: float | None,
    iops: float,
    notes: list[str],
    line: int,
) -> float:
    """READ 100, WRITE 0; a write phase with reads mixed in (--rwmixpct): the share asked
    for on the command line, else the share measured (noted)."""
    if operation == "READ" or not reads:
        return 100.0 if operation == "READ" else 0.0
    asked = _RWMIX.search(fields.get("command", ""))
    if asked:
        return float(asked[1] or asked[2])
    measured = round(100 * reads / iops)
    notes.append(f"{_place(line)}: no --rwmixpct in the command: read share {measured} % measured")
    return float(measured)


def _latencies(fields: dict[str, str], operation: str, reads: float) -> dict[str, Any]:
    """READ: its IO latency; WRITE: the writes' and, mixed in, the reads' (their mean
    weighted by the I/Os of each)."""
    own = _us(fields, "IO lat us [avg]")
    top = [_us(fields, "IO lat us [max]"), _us(fields, "rwmix read IO lat us [max]")]
    found: dict[str, Any] = {"lat_max_us": max((v for v in top if v), default=None)}
    if operation == "READ":
        return found | {"lat_mean_us": own, "read_lat_mean_us": own}
    mixed = _us(fields, "rwmix read IO lat us [avg]") if reads else None
    writes = _number(fields, "IOPS [last]")
    mean = own
    if own is not None and mixed is not None:
        mean = (own * writes + mixed * reads) / (writes + reads)
    return found | {"lat_mean_us": mean, "write_lat_mean_us": own, "read_lat_mean_us": mixed}


def _us(fields: dict[str, str], column: str) -> float | None:
    value = _optional(fields, column)
    return value if value else None


def _percent(text: str) -> float | None:
    try:
        value = float(text)
    except ValueError:
        return None
    return value if 0 <= value <= 100 else None


def _common(
    options: ReadOptions, label: str, fields: dict[str, str], number: int, line: int
) -> dict[str, Any]:
    return {
        "system": options.system,
        "setup": options.setup,
        "tool": NAME,
        "tool_version": fields.get("version") or None,
        "host": options.host,
        "interval": number,
        "source": label,
        "line": line or number,
    }
