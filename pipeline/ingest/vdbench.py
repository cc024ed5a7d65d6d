"""vdbench ``flatfile.html`` (raw block runs). See docs/formats/vdbench.md."""

from __future__ import annotations

import itertools
import re
import statistics
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import polars as pl

from pipeline.errors import InputError
from pipeline.ingest.base import NO_OPTIONS, ReadOptions, ReadResult, Reject
from pipeline.inputs import read_text
from pipeline.language.message import Message
from pipeline.schema import INTERVAL_FIELDS, POINT_KEY, conform
from pipeline.units import convert_time, mega

NAME = "vdbench"
DESCRIPTION = "vdbench flatfile.html of raw (SD/WD) block runs"
OPTIONS = NO_OPTIONS
EMPTY = None
HOSTS_SUMMED = True  # flatfile.html: totals over every hd= host, threads over them all
REQUIRED = (
    "tod",
    "run",
    "interval",
    "rate",
    "mb/sec",
    "resp",
    "xfersize",
    "threads",
    "rdpct",
    "seekpct",
)
FILESYSTEM_COLUMNS = ("reqstdops", "mkdir", "filecount", "fwd")
_AVG = re.compile(r"^avg_(\d+)-(\d+)$")
_TOD = re.compile(r"^(\d+):(\d\d):(\d\d(?:\.\d+)?)$")
AVG_TOLERANCE_PCT = 0.1


def sniff(head: bytes) -> bool:
    text = head.decode("utf-8", errors="replace")
    header = re.search(r"^\s*tod\s+Run\s+Interval\s", text, re.MULTILINE)
    return header is not None or "'flatfile.html' contains Vdbench" in text


@dataclass
class _Run:
    """The rows of one run definition (RD) and its avg_ line."""

    rows: list[tuple[int, dict[str, str]]] = field(default_factory=list)
    avg: tuple[int, int, dict[str, str]] | None = None
    avg_line: int = 0


def _lines(text: str) -> list[tuple[int, str]]:
    return [
        (n, line)
        for n, line in enumerate(text.splitlines(), start=1)
        if line.strip() and not line.lstrip().startswith(("*", "<"))
    ]


def _header(path: Path, lines: list[tuple[int, str]]) -> tuple[int, list[str]]:
    for n, line in lines:
        cells = line.split()
        if [c.lower() for c in cells[:3]] == ["tod", "run", "interval"]:
            return n, [c.lower() for c in cells]
    if "Run totals" in "".join(line for _, line in lines[:5]):
        raise InputError(
            path,
            "line 1",
            "this is totals.html, not flatfile.html",
            "give vdbench's flatfile.html (totals.html serves as a cross-check)",
        )
    raise InputError(
        path,
        "line 1",
        "no flatfile header (tod Run Interval …) found",
        "give vdbench's flatfile.html",
    )


def _check_columns(path: Path, line: int, header: list[str]) -> None:
    if any(c.startswith(FILESYSTEM_COLUMNS) for c in header):
        raise InputError(
            path,
            f"line {line}",
            "file-system (FSD/FWD) flatfile: not supported yet",
            "iopress reads vdbench raw block runs (SD/WD) for now",
        )
    missing = [c for c in REQUIRED if c not in header]
    if missing:
        raise InputError(
            path,
            f"line {line}",
            f"missing column(s): {', '.join(missing)}",
            "give an unmodified vdbench flatfile.html",
        )


def _runs(
    path: Path, lines: list[tuple[int, str]], header_line: int, header: list[str]
) -> dict[str, _Run]:
    runs: dict[str, _Run] = {}
    for n, line in lines:
        if n <= header_line:
            continue
        cells = line.split()
        if len(cells) != len(header):
            raise InputError(
                path,
                f"line {n}",
                f"{len(cells)} fields, the header has {len(header)}",
                "give an unmodified vdbench flatfile.html",
            )
        row = dict(zip(header, cells, strict=True))
        run = _current(runs, row["run"])
        avg = _AVG.match(row["interval"])
        if avg:
            run.avg, run.avg_line = (int(avg[1]), int(avg[2]), row), n
        else:
            run.rows.append((n, row))
    return runs


def _current(runs: dict[str, _Run], name: str) -> _Run:
    """The run a row of RD ``name`` belongs to: a loop of a run definition (forthreads=,
    forxfersize=) repeats its name, each loop closed by its avg_ line, so a row after that
    line begins the next loop ("rd1", then "rd1 #2"): merged, every loop took the last
    loop's avg_ line, its CPU and its warm-up."""
    loops = [k for k in runs if k == name or k.startswith(f"{name} #")]
    last = runs.get(loops[-1]) if loops else None
    if last is not None and last.avg is None:
        return last
    key = name if last is None else f"{name} #{len(loops) + 1}"
    return runs.setdefault(key, _Run())


def _seconds(tod: str) -> float | None:
    match = _TOD.match(tod)
    if not match:
        return None
    return int(match[1]) * 3600 + int(match[2]) * 60 + float(match[3])


def _interval_length(run: _Run) -> float:
    """vdbench's interval= from the time of day of consecutive rows (median, 0.1 s)."""
    times = [t for _, row in run.rows if (t := _seconds(row["tod"])) is not None]
    deltas = [b - a for a, b in itertools.pairwise(times) if b > a]
    return round(statistics.median(deltas), 1) if deltas else 1.0


class _BadRecord(Exception):
    """A flatfile record that cannot become a row (the reader makes it a reject)."""

    def __init__(self, key: str, **values: object) -> None:
        self.reason = Message.of(f"vdbench.{key}", **values)
        super().__init__(str(self.reason))


def _num(row: dict[str, str], key: str, optional: bool = False) -> float | None:
    text = row.get(key, "n/a")
    if text == "n/a":
        if optional:
            return None
        raise _BadRecord("na", column=repr(key))
    try:
        return float(text)
    except ValueError:
        raise _BadRecord("not_number", column=repr(key), value=repr(text)) from None


def _maybe(row: dict[str, str], key: str) -> float | None:
    """A figure for a cross-check: None when absent or unreadable (never an error)."""
    try:
        return _num(row, key, True)
    except _BadRecord:
        return None


def _need(row: dict[str, str], key: str) -> float:
    value = _num(row, key)
    assert value is not None
    return value


def _record(row: dict[str, str], mib: float, length: float) -> dict[str, Any]:
    seek = _need(row, "seekpct")
    rate = _need(row, "rate")
    if rate < 0 or _need(row, "resp") < 0:
        raise _BadRecord("negative")
    threads = _need(row, "threads")
    if threads < 1 or threads != int(threads):
        raise _BadRecord("threads", value=f"{threads:g}")
    return {
        "access": "random" if seek > 0 else "sequential",
        "read_pct": _need(row, "rdpct"),
        "block_size": int(_need(row, "xfersize")),
        "parallelism": int(threads),
        "queue_depth": 1,
        "target_iops": _target(row),
        "interval": int(row["interval"]),
        "interval_s": length,
        "iops": rate,
        "bytes_per_s": _need(row, "mb/sec") * mib,
        **_directions(row, rate, _need(row, "mb/sec") * mib),
        "lat_mean_us": convert_time(_need(row, "resp"), "ms"),
        "read_lat_mean_us": _scaled(_num(row, "read_resp", True)),
        "write_lat_mean_us": _scaled(_num(row, "write_resp", True)),
        "lat_max_us": _scaled(_num(row, "resp_max", True)),
        "tool_version": row.get("version") if row.get("version", "n/a") != "n/a" else None,
    }


def _directions(row: dict[str, str], rate: float, bytes_per_s: float) -> dict[str, float | None]:
    """Split by vdbench's observed read% (its requested rdpct names the point)."""
    share = _num(row, "read%", True)
    if share is None:
        return {}
    r = share / 100
    return {
        "read_iops": rate * r,
        "write_iops": rate * (1 - r),
        "read_bytes_per_s": bytes_per_s * r,
        "write_bytes_per_s": bytes_per_s * (1 - r),
    }


def _interval(text: str) -> int:
    try:
        return int(text)
    except ValueError:
        raise _BadRecord("interval", value=repr(text)) from None


def _target(row: dict[str, str]) -> float | None:
    """vdbench's requested rate (iorate=); 'max' or n/a means none."""
    try:
        value = float(row.get("reqrate", "n/a"))
    except ValueError:
        return None
    return value if value > 0 else None


def _scaled(ms: float | None) -> float | None:
    return None if ms is None or ms <= 0 else convert_time(ms, "ms")


def _mib(text: str) -> float:
    """MB = 1024² unless the flatfile says it reported decimal megabytes."""
    return mega("decimal") if re.search(r"MB\s*=\s*1000\s*\*\s*1000", text) else mega("binary")


def read(path: Path, options: ReadOptions) -> ReadResult:
    text = read_text(path)
    lines = _lines(text)
    header_line, header = _header(path, lines)
    _check_columns(path, header_line, header)
    runs = _runs(path, lines, header_line, header)
    label, mib = options.source_label(path), _mib(text)
    rows: list[dict[str, Any]] = []
    rejects: list[Reject] = []
    notes: list[str] = []
    by_run: dict[str, list[dict[str, Any]]] = {}
    whole: list[dict[str, Any]] = []
    first: dict[tuple[Any, ...], str] = {}  # each point's first run
    for name, run in runs.items():
        accepted, rejected = _read_run(name, run, mib, options, label)
        accepted, again = _once(name, run, accepted, first, label)
        rejected += again
        rows += accepted
        rejects += rejected
        whole += _whole_run(run, accepted, mib, options, label)
        notes += _seek_note(name, run) + _avg_check(name, run, accepted, mib)
        by_run[name] = accepted
    totals = path.with_name("totals.html")
    used = totals.is_file() and totals != path and options.may_read(path, totals)
    notes += _totals_check(path, totals, by_run, mib) if used else []
    frame = conform(
        pl.DataFrame(rows, schema={f.name: f.dtype for f in INTERVAL_FIELDS}), INTERVAL_FIELDS
    )
    sidecars = [totals] if used else []
    result = ReadResult(frame, rejects, len(rows) + len(rejects), notes, label, sidecars=sidecars)
    result.reference = whole
    return result


def _once(
    name: str,
    run: _Run,
    accepted: list[dict[str, Any]],
    first: dict[tuple[Any, ...], str],
    label: str,
) -> tuple[list[dict[str, Any]], list[Reject]]:
    """A run's rows, or none where an earlier run measured its point: two loops of one RD
    over a parameter the point does not name (forseekpct=(50,100), forcompratio) are two
    runs of it, not more load (summed, each interval doubled); as fio's repeated group."""
    if not accepted:
        return accepted, []
    key = tuple(accepted[0].get(c) for c in POINT_KEY)
    earlier = first.setdefault(key, name)
    if earlier == name:
        return accepted, []
    reason = Message.of("vdbench.repeated", first=earlier)
    wheres = [
        Message.of("where.vdbench", line=n, run=name, interval=row["interval"])
        for n, row in run.rows
        if n in {r["line"] for r in accepted}
    ]
    return [], [Reject(label, where, reason) for where in wheres]


def _read_run(
    name: str, run: _Run, mib: float, options: ReadOptions, label: str
) -> tuple[list[dict[str, Any]], list[Reject]]:
    length = _interval_length(run)
    first, last = (run.avg[0], run.avg[1]) if run.avg else (1, 10**9)
    # vdbench measures CPU per run: its avg_ line holds the run's; the interval rows carry
    # the run before's (n/a in the first run), so they are not the interval's load
    cpu = _maybe(run.avg[2], "cpu_used") if run.avg else None
    rows, rejects = [], []
    for n, row in run.rows:
        where = Message.of("where.vdbench", line=n, run=name, interval=row["interval"])
        try:
            interval = _interval(row["interval"])
            if not first <= interval <= last:
                raise _BadRecord("warm_up", first=first, last=last)
            rec = _record(row, mib, length) | {"cpu_pct": cpu}
        except _BadRecord as err:
            rejects.append(Reject(label, where, err.reason))
            continue
        rows.append(_placed(rec, options, label, n))
    return rows, rejects


def _placed(rec: dict[str, Any], options: ReadOptions, label: str, line: int) -> dict[str, Any]:
    """A record with what names its point and its place."""
    return {
        **rec,
        "system": options.system,
        "setup": options.setup,
        "tool": NAME,
        "host": f"{options.host}",
        "source": label,
        "line": line,
    }


def _whole_run(
    run: _Run, accepted: list[dict[str, Any]], mib: float, options: ReadOptions, label: str
) -> list[dict[str, Any]]:
    """The run's avg_ line as a record of the whole run beside its intervals (not counted,
    as fio's final records): the run's CPU is its figure, so the manifest cites its line,
    and validation compares it with the intervals' averages."""
    if run.avg is None or not accepted:
        return []
    first, last, row = run.avg
    length = _interval_length(run) * (last - first + 1)
    try:
        rec = _record({**row, "interval": "1"}, mib, length)
    except _BadRecord:
        return []
    cpu = _maybe(row, "cpu_used")
    return [_placed(rec | {"cpu_pct": cpu}, options, label, run.avg_line)]


def _averages(rows: list[dict[str, Any]]) -> dict[str, float]:
    """Averages over the accepted intervals as vdbench forms them: rate over time, MB/sec
    over time, response time over I/Os."""
    seconds = sum(r["interval_s"] for r in rows) or 1.0
    ios = sum(r["iops"] * r["interval_s"] for r in rows) or 1.0
    return {
        "rate": ios / seconds,
        "mb/sec": sum(r["bytes_per_s"] * r["interval_s"] for r in rows) / seconds,
        "resp": convert_time(
            sum(r["iops"] * r["interval_s"] * r["lat_mean_us"] for r in rows) / ios, "µs", "ms"
        ),
    }


def _disagree(ours: dict[str, float], theirs: dict[str, float | None]) -> list[str]:
    """Names whose printed value differs from ours beyond its printed precision and 0.1 %."""
    return [
        k
        for k, v in ours.items()
        if theirs.get(k) is not None
        and abs(v - float(theirs[k] or 0)) > 0.006 + AVG_TOLERANCE_PCT / 100 * abs(v)
    ]


def _avg_check(name: str, run: _Run, rows: list[dict[str, Any]], mib: float) -> list[str]:
    """Our averages of the accepted intervals against vdbench's own avg_ line."""
    if run.avg is None:
        return [f"run {name}: no avg_ line; all intervals are used"]
    if not rows:
        return []
    ours = _averages(rows)
    ours["mb/sec"] /= mib
    off = _disagree(ours, {k: _maybe(run.avg[2], k) for k in ours})
    label = f"avg_{run.avg[0]}-{run.avg[1]}"
    if off:
        return [f"run {name}: averages of {', '.join(off)} differ from vdbench's {label} line"]
    return [f"run {name}: averages agree with vdbench's {label} line"]


_TOTALS_RUN = re.compile(r"Starting RD=([^;\s]+);")
# time and label may touch; a time starts after a non-digit (else a line of 2 million
# digits is tried from each of them: hours)
_TOTALS_AVG = re.compile(r"(?<!\d)\d+:\d\d:\d\d\.\d+\s*avg_\d+-\d+\s+(.+)")


def _totals(path: Path) -> dict[str, dict[str, float | None]]:
    """Run -> (rate, MB/sec, resp) of the avg_ lines in totals.html beside the flatfile."""
    found: dict[str, dict[str, float | None]] = {}
    run = None
    for line in read_text(path).splitlines():
        if start := _TOTALS_RUN.search(line):
            run = start[1]
        elif run and (avg := _TOTALS_AVG.search(line)):
            cells = avg[1].split()
            row = {"rate": cells[0], "mb/sec": cells[1], "resp": cells[4]} if len(cells) > 4 else {}
            found[run] = {k: _maybe(row, k) for k in ("rate", "mb/sec", "resp")}
            run = None
    return found


def _totals_check(
    path: Path, totals_path: Path, by_run: dict[str, list[dict[str, Any]]], mib: float
) -> list[str]:
    try:
        totals = _totals(totals_path)
    except InputError:
        return ["totals.html beside the flatfile could not be read as a cross-check"]
    checked: list[str] = []
    off: list[str] = []
    for run, rows in by_run.items():
        if run in totals and rows:
            ours = _averages(rows)
            ours["mb/sec"] /= mib
            (off if _disagree(ours, totals[run]) else checked).append(run)
    if off:
        return [f"totals.html DIFFERS from the flatfile averages for run(s) {', '.join(off)}"]
    return [f"totals.html agrees for run(s) {', '.join(checked)}"] if checked else []


def _seek_note(name: str, run: _Run) -> list[str]:
    seeks = {row.get("seekpct") for _, row in run.rows} - {"0", "0.0000", "100", "100.0000"}
    if not seeks or seeks == {"n/a"}:
        return []
    return [
        f"run {name}: seekpct {', '.join(sorted(s for s in seeks if s))} is neither 0 nor "
        "100; any seek > 0 counts as random access"
    ]
