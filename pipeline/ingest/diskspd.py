"""Microsoft DiskSpd results, text (``-Rtext``) and XML (``-Rxml``). See
docs/formats/diskspd.md.

Each thread × target of a time span is one record: its I/Os and bytes over the measured
time, in the point of its target's profile; the threads of a profile are its parallelism."""

from __future__ import annotations

import re
from collections import defaultdict
from pathlib import Path
from typing import Any

from pipeline.ingest import diskspd_text, diskspd_xml
from pipeline.ingest.base import NO_OPTIONS, ReadOptions, ReadResult, Reject
from pipeline.ingest.diskspd_parts import PERCENTILE_NAMES, Measured, Profile, Run, Span
from pipeline.inputs import read_text
from pipeline.language.message import Message
from pipeline.units import convert_time

NAME = "diskspd"
DESCRIPTION = "Microsoft DiskSpd results, text (-Rtext) or XML (-Rxml)"
OPTIONS = NO_OPTIONS
EMPTY = None
HOSTS_SUMMED = False
_XML = re.compile(r"^\s*(?:<\?xml[^>]*\?>\s*)?<Results>\s*<System>")
_TEXT = re.compile(r"^Input parameters:\s*$[\s\S]*^\s*timespan:\s*\d+\s*$", re.MULTILINE)


def sniff(head: bytes) -> bool:
    text = head.decode("utf-8", errors="replace").removeprefix("\ufeff")
    return bool(_XML.match(text) or _TEXT.search(text))


def read(path: Path, options: ReadOptions) -> ReadResult:
    text = read_text(path)
    xml = text.lstrip().startswith("<")
    run = diskspd_xml.parse(text, path) if xml else diskspd_text.parse(text, path)
    label = options.source_label(path)
    rows: list[dict[str, Any]] = []
    rejects: list[Reject] = []
    notes = list(run.notes)
    for span in run.spans:
        accepted, rejected, said = _span_rows(span, run, options, label)
        rows += accepted
        rejects += rejected
        notes += said
    result = ReadResult(None, rejects, len(rows) + len(rejects), notes, label, rows=rows)
    result.run_time = run.time
    return result


def _span_rows(
    span: Span, run: Run, options: ReadOptions, label: str
) -> tuple[list[dict[str, Any]], list[Reject], list[str]]:
    if not span.has_results:
        return [], [], [f"time span {span.number}: no results in the file"]
    if span.seconds is None:
        where = Message.of("where.line", line=span.line)
        if span.place:
            where = Message.of("where.record", path=span.place, line=span.line)
        return [], [Reject(label, where, Message.of("diskspd.interrupted"))], []
    threads = _threads(span)
    rows, rejects = [], []
    seen: set[tuple[str, str]] = set()
    for measured in span.measured:
        profile = span.targets.get(measured.path)
        problem = _problem(measured, profile, seen)
        if problem is not None or profile is None:
            rejects.append(Reject(label, measured.where, problem or Message.of("diskspd.no_io")))
            continue
        common = _common(run, options, label, span, measured)
        rows.append({**common, **_point(profile, threads[profile]), **_figures(span, measured)})
    return rows, rejects, _total_note(span, rows)


def _problem(
    measured: Measured, profile: Profile | None, seen: set[tuple[str, str]]
) -> Message | None:
    if (measured.thread, measured.path) in seen:
        return Message.of("diskspd.again", thread=measured.thread, target=repr(measured.path))
    seen.add((measured.thread, measured.path))
    if measured.problem is not None:
        return measured.problem
    if profile is None:
        return Message.of("diskspd.target", target=repr(measured.path))
    if measured.ios == 0:
        return Message.of("diskspd.no_io")
    return None


def _threads(span: Span) -> dict[Profile, int]:
    """The threads that worked on each profile: its parallelism."""
    found: dict[Profile, set[str]] = defaultdict(set)
    for measured in span.measured:
        if (profile := span.targets.get(measured.path)) is not None:
            found[profile].add(measured.thread)
    return {profile: len(threads) for profile, threads in found.items()}


def _common(
    run: Run, options: ReadOptions, label: str, span: Span, measured: Measured
) -> dict[str, Any]:
    return {
        "system": options.system,
        "setup": options.setup,
        "tool": NAME,
        "tool_version": run.version,
        "host": run.host or options.host,
        "interval": span.number,
        "interval_s": span.seconds,
        "cpu_pct": span.cpu_pct if span.cpu_pct is not None and span.cpu_pct <= 100 else None,
        "source": label,
        "line": measured.line,
    }


def _point(profile: Profile, threads: int) -> dict[str, Any]:
    return {
        "access": profile.access,
        "read_pct": profile.read_pct,
        "block_size": profile.block_size,
        "parallelism": threads,
        "queue_depth": profile.queue_depth,
        "target_iops": None,
    }


def _figures(span: Span, measured: Measured) -> dict[str, Any]:
    seconds = span.seconds or 1.0
    figures: dict[str, Any] = {
        "iops": measured.ios / seconds,
        "bytes_per_s": measured.bytes / seconds,
        "lat_mean_us": _us(measured.lat_ms),
    }
    for direction in ("read", "write"):
        ios, size = getattr(measured, f"{direction}_ios"), getattr(measured, f"{direction}_bytes")
        figures[f"{direction}_iops"] = None if ios is None else ios / seconds
        figures[f"{direction}_bytes_per_s"] = None if size is None else size / seconds
        lat = getattr(measured, f"{direction}_lat_ms")
        figures[f"{direction}_lat_mean_us"] = _us(lat) if ios else None
    for name, value in _percentiles(span, measured).items():
        figures["lat_max_us" if name == "max" else f"lat_{name}_us"] = _us(value)
    # DiskSpd's percentiles are of the whole time of each I/O, as its mean
    shown = any(figures.get(f"lat_{name}_us") is not None for name in PERCENTILE_NAMES[:-1])
    figures["percentile_of"] = "lat" if shown else None
    return figures


def _percentiles(span: Span, measured: Measured) -> dict[str, float | None]:
    """The whole span's percentiles when all its targets are one profile (exact for the
    point); else the target's own (DiskSpd's text prints one table per target), or none."""
    if len(set(span.targets.values())) == 1:
        found = span.percentiles.get("", {})
    else:
        found = span.percentiles.get(measured.path, {})
    return {name: found.get(name) for name in PERCENTILE_NAMES}


def _us(ms: float | None) -> float | None:
    return None if ms is None or ms <= 0 else convert_time(ms, "ms")


def _total_note(span: Span, rows: list[dict[str, Any]]) -> list[str]:
    if not rows:
        return []
    iops = sum(r["iops"] for r in rows)
    return [
        f"time span {span.number}: {len(rows)} thread × target record(s) over "
        f"{span.seconds:.4f} s, {iops:.2f} I/O per s in all"
    ]
