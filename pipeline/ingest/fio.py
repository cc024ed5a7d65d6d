"""fio JSON and json+ output, fio 2.x and 3.x, plain or client/server. See docs/formats/fio.md."""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import polars as pl

from pipeline.errors import InputError
from pipeline.ingest import fio_params
from pipeline.ingest.base import ReadOptions, ReadResult, Reject, read_text
from pipeline.schema import INTERVAL_FIELDS, PERCENTILES, conform

NAME = "fio"
DESCRIPTION = "fio --output-format=json or json+ (2.x, 3.x, client/server), text around it allowed"
ALL_CLIENTS = "All clients"
# fio computes "All clients" from summed I/Os over the longest runtime, the hosts' records
# over their own runtimes: they differ by the runtime spread, typically well under 1 %.
CROSS_CHECK_PCT = 1.0
_DOC_START = re.compile(r"^\{", re.MULTILINE)


def sniff(head: bytes) -> bool:
    """A fio JSON key or fio's client banner in the first bytes."""
    text = head.decode("utf-8", errors="replace")
    return (
        '"fio version"' in text
        or ("fio=fio-" in text and "hostname=" in text)
        or ('"jobs"' in text and '"jobname"' in text)
    )


@dataclass(frozen=True)
class _Document:
    data: dict[str, Any]
    start: int
    notes: list[str]


def _documents(text: str) -> tuple[list[tuple[int, dict[str, Any]]], str]:
    """Every JSON object that starts a line, with its offset; and the first decoding error."""
    decoder = json.JSONDecoder()
    found, first_error = [], ""
    for match in _DOC_START.finditer(text):
        try:
            obj, _ = decoder.raw_decode(text, match.start())
        except json.JSONDecodeError as exc:
            first_error = first_error or f"line {exc.lineno}, column {exc.colno}: {exc.msg}"
            continue
        if isinstance(obj, dict) and ("jobs" in obj or "client_stats" in obj):
            found.append((match.start(), obj))
    return found, first_error


def _final_document(path: Path, text: str) -> _Document:
    found, error = _documents(text)
    if not found:
        where, _, message = error.partition(": ")
        raise InputError(
            path,
            where or "line 1",
            f"no fio JSON result found{': ' + message if message else ''}",
            "give the output of fio --output-format=json or json+",
        )
    start, data = found[-1]
    notes = []
    if len(found) > 1:
        notes.append(
            f"{len(found)} JSON documents (--status-interval output?): the final one, "
            f"at line {_line(text, start)}, is used"
        )
    if text[: found[0][0]].strip():
        notes.append(f"text before the JSON (lines 1-{_line(text, found[0][0]) - 1}) skipped")
    return _Document(data, start, notes)


def _line(text: str, offset: int) -> int:
    return text.count("\n", 0, offset) + 1


def _record_lines(text: str, start: int, count: int) -> list[int]:
    """The line of each record's "jobname" key, in order (records are written in order)."""
    lines, pos = [], start
    for _ in range(count):
        pos = text.find('"jobname"', pos + 1)
        lines.append(_line(text, pos) if pos >= 0 else _line(text, start))
    return lines


def read(path: Path, options: ReadOptions) -> ReadResult:
    text = read_text(path)
    doc = _final_document(path, text)
    key = "client_stats" if "client_stats" in doc.data else "jobs"
    records = doc.data.get(key)
    if not isinstance(records, list):
        raise InputError(
            path, key, "is not a list of job records", "give fio's unmodified JSON output"
        )
    params = fio_params.Resolver(path, doc.data)
    lines = _record_lines(text, doc.start, len(records))
    label = options.source_label(path)
    rows, rejects, notes = [], [], list(doc.notes)
    for i, record in enumerate(records):
        if isinstance(record, dict) and record.get("jobname") == ALL_CLIENTS:
            continue
        try:
            rows.append(_row(record, params, options, label, lines[i], doc.data))
        except fio_params.JobError as err:
            rejects.append(Reject(label, f"{key}[{i}] (line {lines[i]})", str(err)))
    notes += params.notes + _cross_check(records, rows)
    frame = conform(
        pl.DataFrame(rows, schema={f.name: f.dtype for f in INTERVAL_FIELDS}), INTERVAL_FIELDS
    )
    return ReadResult(frame, rejects, len(rows) + len(rejects), notes)


def _cross_check(records: list[Any], rows: list[dict[str, Any]]) -> list[str]:
    """fio's own "All clients" sum against the sum of the per-host records."""
    total = [r for r in records if isinstance(r, dict) and r.get("jobname") == ALL_CLIENTS]
    if not total:
        return []
    theirs = sum(_direction(total[0], d).iops for d in ("read", "write"))
    ours = sum(float(r["iops"]) for r in rows)
    diff = abs(ours - theirs) / max(theirs, ours, 1e-9) * 100
    verdict = "agrees with" if diff <= CROSS_CHECK_PCT else "DIFFERS from"
    return [
        f"'All clients' record ({theirs:.1f} IOPS) {verdict} the sum of the hosts "
        f"({ours:.1f} IOPS, {diff:.2f} % apart); it is used as a cross-check only"
    ]


@dataclass(frozen=True)
class _Direction:
    iops: float
    bytes_per_s: float
    ios: float
    runtime_s: float
    lat_us: float | None
    lat_max_us: float | None
    percentiles: dict[str, float]


def _number(value: Any, where: str) -> float:
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise fio_params.JobError(f"{where} is {value!r}, not a number")
    return float(value)


def _stat(d: dict[str, Any]) -> tuple[dict[str, Any], float] | None:
    """Total latency statistics and their scale to µs: fio 3.x ns, fio 2.x µs."""
    for key, scale in (("lat_ns", 1e-3), ("lat", 1.0)):
        stats = d.get(key)
        if isinstance(stats, dict) and stats.get("mean", 0) > 0:
            return stats, scale
    return None


def _clat_plus_slat(d: dict[str, Any]) -> float | None:
    total = 0.0
    for names, scale in ((("clat_ns", "slat_ns"), 1e-3), (("clat", "slat"), 1.0)):
        parts = [d.get(n) for n in names]
        if isinstance(parts[0], dict):
            for p in parts:
                total += _number(p.get("mean", 0), "latency mean") * scale if p else 0.0
            return total or None
    return None


def _percentiles(d: dict[str, Any]) -> dict[str, float]:
    for key, scale in (("lat_ns", 1e-3), ("clat_ns", 1e-3), ("lat", 1.0), ("clat", 1.0)):
        table = (d.get(key) or {}).get("percentile") if isinstance(d.get(key), dict) else None
        if isinstance(table, dict) and table:
            by_value = {float(k): v for k, v in table.items() if _is_number(k)}
            return {
                name: float(by_value[p]) * scale
                for name, p in PERCENTILES.items()
                if p in by_value and by_value[p] > 0
            }
    return {}


def _is_number(text: str) -> bool:
    try:
        float(text)
    except ValueError:
        return False
    return True


def _direction(record: dict[str, Any], name: str) -> _Direction:
    d = record.get(name)
    if not isinstance(d, dict):
        return _Direction(0.0, 0.0, 0.0, 0.0, None, None, {})
    iops = _number(d.get("iops", 0), f"{name}.iops")
    bw = d["bw_bytes"] if "bw_bytes" in d else _number(d.get("bw", 0), f"{name}.bw") * 1024
    runtime_s = _number(d.get("runtime", 0), f"{name}.runtime") / 1000
    ios = float(d.get("total_ios") or iops * runtime_s)
    stat = _stat(d)
    lat = stat[0]["mean"] * stat[1] if stat else _clat_plus_slat(d)
    lat_max = stat[0].get("max", 0) * stat[1] if stat else None
    return _Direction(iops, float(bw), ios, runtime_s, lat, lat_max or None, _percentiles(d))


def _measures(record: dict[str, Any]) -> dict[str, Any]:
    read, write = _direction(record, "read"), _direction(record, "write")
    active = [d for d in (read, write) if d.iops > 0]
    if not active:
        raise fio_params.JobError("the job did no reads or writes (read and write IOPS are 0)")
    if any(d.lat_us is None for d in active):
        raise fio_params.JobError("no latency statistics (lat/clat) for a direction with I/O")
    ios = sum(d.ios for d in active) or 1.0
    runtime = (
        max(d.runtime_s for d in active)
        or _number(record.get("job_runtime", 0), "job_runtime") / 1000
    )
    if runtime <= 0:
        raise fio_params.JobError("runtime is 0: fio wrote no runtime for this job")
    one = active[0] if len(active) == 1 else None
    return {
        "iops": sum(d.iops for d in active),
        "bytes_per_s": sum(d.bytes_per_s for d in active),
        "lat_mean_us": sum(d.ios * (d.lat_us or 0.0) for d in active) / ios,
        "read_lat_mean_us": read.lat_us if read.iops > 0 else None,
        "write_lat_mean_us": write.lat_us if write.iops > 0 else None,
        "lat_max_us": max((d.lat_max_us or 0.0) for d in active) or None,
        **{f"lat_{name}_us": (one.percentiles.get(name) if one else None) for name in PERCENTILES},
        "interval_s": runtime,
    }


def _cpu(record: dict[str, Any]) -> float | None:
    usr, sys = record.get("usr_cpu"), record.get("sys_cpu")
    if isinstance(usr, int | float) and isinstance(sys, int | float):
        return min(100.0, float(usr) + float(sys))
    return None


def _row(
    record: Any,
    params: fio_params.Resolver,
    options: ReadOptions,
    label: str,
    line: int,
    doc: dict[str, Any],
) -> dict[str, Any]:
    if not isinstance(record, dict):
        raise fio_params.JobError("is not a job record (an object)")
    profile = params.profile(record)
    group = record.get("groupid", 0)
    return {
        "system": options.system,
        "setup": options.setup,
        "tool": NAME,
        "host": str(record.get("hostname") or options.host),
        "interval": int(group) + 1 if isinstance(group, int) else 1,
        **profile,
        **_measures(record),
        "cpu_pct": _cpu(record),
        "tool_version": str(doc.get("fio version", "")) or None,
        "source": label,
        "line": line,
    }
