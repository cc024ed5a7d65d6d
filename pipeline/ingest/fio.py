"""fio JSON and json+ output, fio 2.x and 3.x, plain or client/server. See docs/formats/fio.md."""

from __future__ import annotations

import contextlib
import json
import math
import operator
import re
from collections.abc import Collection, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, NamedTuple, TypedDict

import msgspec
import orjson
import polars as pl

from pipeline.config import LARGEST
from pipeline.errors import InputError
from pipeline.ingest import fio_lines, fio_params, fio_status
from pipeline.ingest.base import NO_OPTIONS, ReadOptions, ReadResult, Reject
from pipeline.inputs import CONTROL, read_text
from pipeline.language.message import Message
from pipeline.schema import PERCENTILES, POINT_KEY
from pipeline.units import TIME_UNITS_US, convert_time

NAME = "fio"
DESCRIPTION = "fio --output-format=json or json+ (2.x, 3.x, client/server), text around it allowed"
OPTIONS = NO_OPTIONS
EMPTY = None
HOSTS_SUMMED = False
ALL_CLIENTS = "All clients"
FIO_PERCENTILE_KEYS = ("50.000000", "90.000000", "99.000000", "99.900000", "99.990000")
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
    snapshots: list[tuple[int, dict[str, Any]]] = field(default_factory=list)


# a JSON document the file ends inside of (its decoding stopped at the end of the text)
CUT_SHORT = (
    "the file ends inside its JSON (cut short: fio stopped, a full disk, or a copy made "
    "while fio wrote it)"
)


def _documents(text: str) -> tuple[list[tuple[int, dict[str, Any]]], str, int]:
    """Every JSON object that starts a line, with its offset; the first decoding error;
    and where the last one ends."""
    decoder = json.JSONDecoder()
    found, first_error, end, failed = [], "", 0, 0
    inside = 0  # the end of the last object decoded: a line's "{" before it is nested in it
    for match in _DOC_START.finditer(text):
        if match.start() < inside:
            continue
        if failed >= MAX_BROKEN:  # each try may read to the text's end: thousands, for ever
            break
        try:
            obj, inside = decoder.raw_decode(text, match.start())
        except json.JSONDecodeError as exc:
            # stopped at the end of the text, or in a string the text ends inside of
            cut = not text[exc.pos :].strip() or exc.msg.startswith("Unterminated string")
            said = CUT_SHORT if cut else exc.msg
            first_error = first_error or f"line {exc.lineno}, column {exc.colno}: {said}"
            failed += 1
            continue
        if isinstance(obj, dict) and ("jobs" in obj or "client_stats" in obj):
            found.append((match.start(), obj))
            end = inside
    return found, first_error, end


MAX_BROKEN = 4  # documents that do not decode, tried before the rest of a file is given up


class _Stats(TypedDict, total=False):
    mean: float
    max: float
    percentile: dict[str, float]


class _Side(TypedDict, total=False):
    iops: float
    bw_bytes: float
    bw: float
    runtime: float
    total_ios: float
    lat_ns: _Stats
    lat: _Stats
    clat_ns: _Stats
    clat: _Stats
    slat_ns: _Stats
    slat: _Stats


_Job = TypedDict(
    "_Job",
    {
        "jobname": Any,
        "groupid": Any,
        "hostname": Any,
        "port": Any,
        "job options": dict[str, Any],
        "job_runtime": float,
        "error": Any,
        "usr_cpu": Any,
        "sys_cpu": Any,
        "read": _Side,
        "write": _Side,
    },
    total=False,
)
_Result = TypedDict(
    "_Result",
    {
        "fio version": Any,
        "timestamp": Any,
        "timestamp_ms": Any,
        "global options": dict[str, Any],
        "jobs": list[_Job],
        "client_stats": list[_Job],
    },
    total=False,
)
# Only the fields iopress reads, decoded to plain dicts; the rest (percentile bins of
# json+, iodepth tables, disk_util ...) is skipped without building it. A file whose
# fields do not have fio's types (edited by hand) is read again in full, so that each
# bad record is rejected on its own, with its reason.
_TYPED = msgspec.json.Decoder(_Result)


def _whole(text: str, bins: bool = False) -> dict[str, Any] | None:
    """Fast path: the file is one JSON document and nothing else. With ``bins`` the whole
    document (json+ histogram bins included), for a histogram chart."""
    if not text.lstrip().startswith("{"):
        return None
    try:
        obj: Any = _full(text) if bins else _TYPED.decode(text)
    except msgspec.ValidationError:
        obj = _full(text)
    except msgspec.DecodeError:
        return None
    return obj if isinstance(obj, dict) and ("jobs" in obj or "client_stats" in obj) else None


def _full(text: str) -> Any:
    try:
        return orjson.loads(text)
    except orjson.JSONDecodeError:
        return None


def final_document(path: Path, text: str, bins: bool = False) -> _Document:
    whole = _whole(text, bins)
    if whole is not None:
        return _Document(whole, text.index("{"), [])
    found, error, end = _documents(text)
    if not found:
        where, _, message = error.partition(": ")
        hint = "give the output of fio --output-format=json or json+"
        if message == CUT_SHORT:
            hint = "run the job again, or leave the file out (--keep-going lists it as a reject)"
        raise InputError(
            path,
            where or "line 1",
            f"no fio JSON result found{': ' + message if message else ''}",
            hint,
        )
    start, data = found[-1]
    notes = []
    if len(found) > 1:
        notes.append(
            f"{len(found)} JSON documents (--status-interval output): the intervals are "
            "the differences between consecutive snapshots"
        )
    if text[: found[0][0]].strip():
        notes.append(before_note(_line(text, found[0][0])))
    if text[end:].strip():  # e.g. fio's warnings, or a shell's output appended
        first = _line(text, end + len(text[end:]) - len(text[end:].lstrip()))
        notes.append(
            f"text after the JSON ({_span(first, _line(text, len(text.rstrip())))}) skipped"
        )
    return _Document(data, start, notes, found)


def before_note(line: int) -> str:
    """The note on text before a JSON document that starts on ``line`` (fio's client
    banner: ``<host> ...`` lines)."""
    return f"text before the JSON ({_span(1, line - 1)}) skipped"


def _span(first: int, last: int) -> str:
    """Lines ``first`` to ``last`` in words: "line 3" or "lines 3-7"."""
    return f"line {first}" if first == last else f"lines {first}-{last}"


def _line(text: str, offset: int) -> int:
    return text.count("\n", 0, offset) + 1


def read(path: Path, options: ReadOptions) -> ReadResult:
    text = read_text(path)
    doc = final_document(path, text)
    key = "client_stats" if "client_stats" in doc.data else "jobs"
    records = doc.data.get(key)
    if not isinstance(records, list):
        raise InputError(
            path, key, "is not a list of job records", "give fio's unmodified JSON output"
        )
    _check_text(path, text, doc, key)
    params = fio_params.Resolver(path, doc.data, options.root)
    batches = _batches(doc, key, records)
    served = len(batches) == 1 and key == "client_stats"
    later = fio_status.server_snapshots(records, params.clones_per_record) if served else {}
    runs = _run_jobs(records, params, set(later))
    head = {"system": options.system, "setup": options.setup, "tool": NAME}
    version = str(doc.data.get("fio version", "")) or None
    ctx = _Context(params, options, runs, options.source_label(path), head, version)
    lines = fio_lines.batch_lines(text, key, [(b.start, b.records) for b in batches])
    rows, rejects, groups = _interval_rows(batches, lines, key, ctx, later)
    rows, repeated = _one_run_per_profile(rows, groups, ctx.label)
    notes = doc.notes + params.notes + _cross_check(records, rows)
    read = len(rows) + len(rejects) + len(repeated)
    result = ReadResult(None, rejects + repeated, read, notes, ctx.label, rows, params.used)
    if len(batches) > 1:  # fio's final cumulative record: the whole run, to compare with
        result.reference = _final_rows(records, lines[-1], ctx)
    result.run_time = run_time(doc.data)
    return result


def run_time(data: dict[str, Any]) -> int | None:
    """When the run ended, ms since the epoch: fio's ``timestamp_ms`` (else ``timestamp``,
    seconds), if the JSON has it."""
    stamp = data.get("timestamp_ms")
    if isinstance(stamp, int) and not isinstance(stamp, bool):
        return stamp
    seconds = data.get("timestamp")
    if isinstance(seconds, int) and not isinstance(seconds, bool):
        return round(convert_time(seconds, "s", "ms"))
    return None


class _Context(NamedTuple):
    """What turns a record of one file into a row."""

    params: fio_params.Resolver
    options: ReadOptions
    runs: dict[int, Any]  # per record of the final result: its profile, or its rejection
    label: str
    head: dict[str, Any]  # the columns every row of the file starts with
    version: str | None  # fio's version


def _interval_rows(
    batches: list[_Batch],
    lines: list[list[int]],
    key: str,
    ctx: _Context,
    later: dict[int, int],
) -> tuple[list[dict[str, Any]], list[Reject], list[object]]:
    """The rows of every interval, the rejected records, and each row's reporting group;
    ``later``: records that a fio server's later snapshot of the same job holds whole."""
    rows, rejects, groups = [], [], []
    interval, many = 0, len(batches) > 1
    for batch, places in zip(batches, lines, strict=True):
        interval += any(i not in batch.before for i in range(len(batch.records)))
        for i, record in enumerate(batch.records):
            if isinstance(record, dict) and record.get("jobname") == ALL_CLIENTS:
                continue
            try:
                if i in batch.before:
                    raise fio_params.JobError("restarted")
                if i in later:
                    raise fio_params.JobError("server_snapshot", line=places[later[i]])
                place = _Place(ctx.label, places[i], interval, many)
                rows.append(_row(record, i, place, ctx))
                groups.append(record.get("groupid", 0))
            except fio_params.JobError as err:
                where = Message.of("where.record", path=f"{key}[{i}]", line=places[i])
                rejects.append(Reject(ctx.label, where, err.reason))
    return rows, rejects, groups


def _final_rows(records: list[Any], lines: list[int], ctx: _Context) -> list[dict[str, Any]]:
    """The rows of fio's final record of each job (the whole run, not counted): what the
    intervals of --status-interval output add up to (validation compares them)."""
    found = []
    for i, record in enumerate(records):
        if isinstance(record, dict) and record.get("jobname") != ALL_CLIENTS:
            with contextlib.suppress(fio_params.JobError):
                found.append(_row(record, i, _Place(ctx.label, lines[i], 1), ctx))
    return found


_CONTROL = re.compile(CONTROL)
_TEXT_FIELDS = ("jobname", "hostname", "groupid", "port", "job options")


def _texts(value: Any, place: str) -> Iterator[tuple[str, str]]:
    """Every string of ``value`` (keys too), with its JSON path."""
    if isinstance(value, str):
        yield place, value
    elif isinstance(value, dict):
        for k, v in value.items():
            yield f"{place}.{k}", str(k)
            yield from _texts(v, f"{place}.{k}")


def _check_text(path: Path, text: str, doc: _Document, key: str) -> None:
    """The text iopress takes from fio's output (names, options, version) holds no
    control character (decoded from \\u001b, \\u0000 ...): it would reach the report,
    the terminal and file names. Of every snapshot, where there are several."""
    if _plain(text):
        return
    for start, data in doc.snapshots or [(doc.start, doc.data)]:
        fields = {k: data.get(k) for k in ("fio version", "global options")}
        records = data.get(key)
        for i, record in enumerate(records if isinstance(records, list) else []):
            if isinstance(record, dict):
                fields |= {f"{key}[{i}].{f}": record.get(f) for f in _TEXT_FIELDS}
        for place, found in (t for name, v in fields.items() for t in _texts(v, name)):
            if bad := _CONTROL.search(found):
                raise InputError(
                    path,
                    f"{place} (JSON document at line {_line(text, start)})",
                    f"control character {bad[0]!r} in the text {found!r}",
                    "give fio's unmodified output (fio writes no control characters)",
                )


def _plain(text: str) -> bool:
    """No decoded string of the text can hold a control character: it is ASCII (no C1
    character, no bidi override), has no escape (\\u001b, \\n ...) and no DEL; JSON
    decoders refuse the other C0 characters raw in a string. Most of fio's output: its
    strings need not be walked one by one."""
    return text.isascii() and "\\" not in text and "\x7f" not in text


class _Batch(NamedTuple):
    """One interval's records and the offset of their JSON document; ``before``: the
    records (by position) of jobs whose counters fio started again later."""

    start: int
    records: list[Any]
    before: set[int]


def _batches(doc: _Document, key: str, records: list[Any]) -> list[_Batch]:
    """One batch for a plain result, one per snapshot for --status-interval output
    (differences of consecutive snapshots)."""
    snaps = [(start, d.get(key)) for start, d in doc.snapshots]
    if len(snaps) < 2 or not all(isinstance(s, list) and s for _, s in snaps):
        return [_Batch(doc.start, records, set())]
    found = fio_status.intervals([s for _, s in snaps if isinstance(s, list)])
    if found is None:
        return [_Batch(doc.start, records, set())]
    return [
        _Batch(start, batch, before)
        for (start, _), batch, before in zip(snaps, found.batches, found.before, strict=True)
    ]


def _cross_check(records: list[Any], rows: list[dict[str, Any]]) -> list[str]:
    """fio's own "All clients" sum against the sum of the per-host records."""
    total = [r for r in records if isinstance(r, dict) and r.get("jobname") == ALL_CLIENTS]
    if not total:
        return []
    try:
        theirs = sum(_direction(total[0], d).iops for d in ("read", "write"))
    except fio_params.JobError as err:
        return [f"'All clients' record unusable as a cross-check: {err}"]
    return [cross_check_note(theirs, sum(float(r["iops"]) for r in rows))]


def cross_check_note(theirs: float, ours: float) -> str:
    """fio's "All clients" IOPS against the hosts' sum, as a note."""
    diff = abs(ours - theirs) / max(theirs, ours, 1e-9) * 100
    verdict = "agrees with" if diff <= CROSS_CHECK_PCT else "DIFFERS from"
    return (
        f"'All clients' record ({theirs:.1f} IOPS) {verdict} the sum of the hosts "
        f"({ours:.1f} IOPS, {diff:.2f} % apart); it is used as a cross-check only"
    )


_NO_PERCENTILES: dict[str, float | None] = {f"lat_{name}_us": None for name in PERCENTILES}
# the row's percentile columns without a table: the figures and what they are of
_NO_TABLE: dict[str, float | str | None] = {**_NO_PERCENTILES, "percentile_of": None}
_LATENCY = (*fio_status.LATENCY_KEYS, "slat_ns", "slat")
# names ending in _ns are fio 3.x nanoseconds, the others fio 2.x microseconds
_SCALE = {key: TIME_UNITS_US["ns"] if key.endswith("_ns") else 1.0 for key in _LATENCY}


class _Direction(NamedTuple):
    iops: float
    bytes_per_s: float
    ios: float = 0.0
    runtime_s: float = 0.0
    lat_us: float | None = None
    lat_max_us: float | None = None
    percentiles: dict[str, float | str | None] = _NO_TABLE  # the row's columns


def _finite_float(value: object) -> bool:
    """A float not beyond any measured figure (nan and inf are not within the bounds):
    what msgspec gives for fio's numbers, tested first as the common case."""
    return value.__class__ is float and -LARGEST <= value <= LARGEST


def _num(d: dict[str, Any], key: str, where: str, default: float = 0.0) -> float:
    """A numeric field, or a JobError naming it: fio JSON edited by hand can hold anything."""
    value = d.get(key, default)
    if value.__class__ is float and -LARGEST <= value <= LARGEST:  # the common case, inline
        return value
    if isinstance(value, bool) or not isinstance(value, int | float) or not math.isfinite(value):
        raise fio_params.JobError("not_number", field=f"{where}.{key}", value=repr(value))
    if abs(value) > LARGEST:
        raise fio_params.JobError(
            "too_large", field=f"{where}.{key}", value=repr(value), max=f"{LARGEST:g}"
        )
    return float(value)


def _stats(
    d: dict[str, Any], names: tuple[str, ...], where: str
) -> tuple[dict[str, Any], float, float] | None:
    """The first latency statistics object of ``names`` that has I/O, its scale to µs
    (names ending in _ns are fio 3.x nanoseconds, the others fio 2.x microseconds) and its
    mean in µs."""
    for key in names:
        stats = d.get(key)
        if isinstance(stats, dict) and (mean := _num(stats, "mean", f"{where}.{key}")) > 0:
            return stats, _SCALE[key], mean * _SCALE[key]
    return None


def _clat_plus_slat(d: dict[str, Any], where: str) -> float | None:
    total = 0.0
    for names in (("clat_ns", "slat_ns"), ("clat", "slat")):
        if isinstance(d.get(names[0]), dict):
            for key in names:
                part = d.get(key)
                if isinstance(part, dict):
                    total += _num(part, "mean", f"{where}.{key}") * _SCALE[key]
            return total or None
    return None


_PERCENTILE_SOURCES = ("lat_ns", "clat_ns", "lat", "clat")
# what a table's percentiles are of: the service time (lat, fio's lat_percentiles=1), else
# the completion latency (clat: fio's default, without the submission latency)
_LATENCY_OF = {"lat_ns": "lat", "lat": "lat", "clat_ns": "clat", "clat": "clat"}


_PERCENTILE_COLUMNS = tuple(zip(_NO_PERCENTILES, FIO_PERCENTILE_KEYS, strict=True))


def _percentiles(d: dict[str, Any], where: str) -> dict[str, float | str | None]:
    """The row's percentile columns (None where fio has none above 0), from the first
    statistics with a percentile table and I/O, and what they are of (``_LATENCY_OF``)."""
    for key in _PERCENTILE_SOURCES:
        stats = d.get(key)
        if not isinstance(stats, dict) or not isinstance(table := stats.get("percentile"), dict):
            continue
        if _num(stats, "mean", f"{where}.{key}") > 0:
            found = _table(table, _SCALE[key], where)
            if any(v is not None for v in found.values()):  # a table of zeros: the next
                return {**found, "percentile_of": _LATENCY_OF[key]}
    return _NO_TABLE


def _table(table: dict[str, Any], scale: float, where: str) -> dict[str, float | None]:
    """A percentile table's figures in µs, read by fio's keys."""
    out: dict[str, float | None] = {}
    for column, fio_key in _PERCENTILE_COLUMNS:
        value: Any = table.get(fio_key)
        if not _finite_float(value):
            return _percentiles_by_value(table, scale, where)
        out[column] = value * scale if value > 0 else None
    return out


def _percentiles_by_value(
    table: dict[str, Any], scale: float, where: str
) -> dict[str, float | None]:
    """A table whose keys are not fio's usual spelling (or whose values are not floats).
    fio's own spelling of a percentile wins over another of the same value ("50" beside
    "50.000000"), as where the table is read by fio's keys."""
    by_value = {f"{float(k):g}": v for k, v in table.items() if _is_number(k)}
    out: dict[str, float | None] = {}
    for column, p, fio_key in zip(
        _NO_PERCENTILES, PERCENTILES.values(), FIO_PERCENTILE_KEYS, strict=True
    ):
        if fio_key in table:
            by_value[f"{p:g}"] = table[fio_key]
        value = _num(by_value, f"{p:g}", f"{where}.percentile")
        out[column] = value * scale if value > 0 else None
    return out


def _is_number(text: str) -> bool:
    try:
        float(text)
    except ValueError:
        return False
    return True


_IDLE = _Direction(0.0, 0.0)


def _direction(record: dict[str, Any], name: str) -> _Direction:
    """One direction's figures; of a direction without I/O only its rates (the rest is
    not used)."""
    d = record.get(name)
    if not isinstance(d, dict):
        return _IDLE
    iops = _num(d, "iops", name)
    bw = _num(d, "bw_bytes", name) if "bw_bytes" in d else _num(d, "bw", name) * 1024
    runtime_s = convert_time(_num(d, "runtime", name), "ms", "s")
    if iops <= 0:
        return _Direction(iops, bw, runtime_s=runtime_s)
    if runtime_s <= 0 and "runtime" in d:
        raise fio_params.JobError("no_runtime")
    ios = _num(d, "total_ios", name) if d.get("total_ios") else iops * runtime_s
    stat = _stats(d, ("lat_ns", "lat"), name)
    lat = stat[2] if stat else _clat_plus_slat(d, name)
    lat_max = _num(stat[0], "max", name) * stat[1] if stat else None
    return _Direction(iops, bw, ios, runtime_s, lat, lat_max or None, _percentiles(d, name))


def _measures(record: dict[str, Any], within_run: bool = False) -> dict[str, Any]:
    """The row's figures. ``within_run``: the record is an interval of --status-interval
    output, where time without I/O (a stall, the end of the run) is a measured 0 IOPS."""
    read, write = _direction(record, "read"), _direction(record, "write")
    active = tuple(d for d in (read, write) if d.iops > 0)
    if not active:
        ran = max(read.runtime_s, write.runtime_s)
        if ran > 0 and within_run:
            return {**_NOTHING, "interval_s": ran}
        if ran or _num(record, "job_runtime", "job"):
            raise fio_params.JobError("no_io")
        raise fio_params.JobError("idle")
    first, last = active[0], active[-1]  # the same where one direction has I/O
    if first.lat_us is None or last.lat_us is None:
        raise fio_params.JobError("no_latency")
    two = len(active) == 2
    ios = _add(first.ios, last.ios, two) or 1.0
    runtime = max(first.runtime_s, last.runtime_s) or convert_time(
        _num(record, "job_runtime", "job"), "ms", "s"
    )
    if runtime <= 0:
        raise fio_params.JobError("no_runtime")
    lat = _add(first.ios * (first.lat_us or 0.0), last.ios * (last.lat_us or 0.0), two)
    return {
        "iops": _add(first.iops, last.iops, two),
        "bytes_per_s": _add(first.bytes_per_s, last.bytes_per_s, two),
        "lat_mean_us": lat / ios,
        "read_iops": read.iops,
        "write_iops": write.iops,
        "read_bytes_per_s": read.bytes_per_s,
        "write_bytes_per_s": write.bytes_per_s,
        "read_lat_mean_us": read.lat_us if read.iops > 0 else None,
        "write_lat_mean_us": write.lat_us if write.iops > 0 else None,
        "lat_max_us": max(first.lat_max_us or 0.0, last.lat_max_us or 0.0) or None,
        **(_NO_TABLE if two else first.percentiles),
        "interval_s": runtime,
    }


def _add(first: float, last: float, two: bool) -> float:
    """Of one direction or both, as sum() adds them (from 0: 0 + -0.0 is 0.0)."""
    return 0.0 + first + last if two else 0.0 + first


_NOTHING: dict[str, Any] = {
    **dict.fromkeys(("iops", "bytes_per_s", "read_iops", "write_iops"), 0.0),
    **dict.fromkeys(("read_bytes_per_s", "write_bytes_per_s"), 0.0),
    **dict.fromkeys(("lat_mean_us", "read_lat_mean_us", "write_lat_mean_us", "lat_max_us")),
    **_NO_TABLE,
}


def _cpu(record: dict[str, Any]) -> float | None:
    usr, sys = record.get("usr_cpu"), record.get("sys_cpu")
    if isinstance(usr, int | float) and isinstance(sys, int | float):
        return min(100.0, float(usr) + float(sys))
    return None


class _Place(NamedTuple):
    """Where a row comes from: the source's label, the record's line, its interval (of
    --status-interval output, ``snapshot`` True; else 1, the whole run)."""

    source: str
    line: int
    interval: int
    snapshot: bool = False


def _row(record: Any, job: int, place: _Place, ctx: _Context) -> dict[str, Any]:
    """The row of one record (of an interval, or the final record) of the ``job``-th job
    of the final result, or a JobError."""
    if not isinstance(record, dict):
        raise fio_params.JobError("not_record")
    run = ctx.runs.get(job)
    if isinstance(run, fio_params.JobError):
        raise run
    profile = run if run is not None else ctx.params.profile(record)
    measures = _measures(record, place.snapshot)
    return {
        **ctx.head,
        "host": host_of(record, ctx.options.host),
        "interval": place.interval,
        **profile,
        **measures,
        "cpu_pct": _cpu(record),
        "tool_version": ctx.version,
        "source": place.source,
        "line": place.line,
    }


def _check_members(record: dict[str, Any], workers: int) -> None:
    """A lower bound on the jobs one record sums: ``job_runtime`` adds up the run time of
    every job of a reporting group, a direction's ``runtime`` is the longest of them. Under
    group_reporting fio names only the first job section's options (its numjobs), so a
    group of several sections would otherwise pass as fewer jobs than ran."""
    total = _num(record, "job_runtime", "job")
    longest = 0.0
    for side in (record.get("read"), record.get("write")):
        if isinstance(side, dict):
            longest = max(longest, _num(side, "runtime", "job"))
    if longest > 0 and total > workers * (longest + 1) * MEMBER_SLACK:
        raise fio_params.JobError(
            "group_members", workers=workers, jobs=round(total / longest), job=record.get("jobname")
        )


def _check_error(record: dict[str, Any]) -> None:
    """fio's ``error`` of a job (an errno; 0 when it ran through): a job that failed did
    not measure what its options say."""
    code = record.get("error", 0)
    if code not in (0, None):
        raise fio_params.JobError("job_error", code=repr(code))


MEMBER_SLACK = 1.01  # job_runtime and a direction's runtime come from two clocks


def _run_jobs(
    records: list[Any], params: fio_params.Resolver, snapshots: Collection[int] = ()
) -> dict[int, Any]:
    """Per record of the final result (by position): its profile, or the JobError that
    rejects it. A profile's parallelism is the number of jobs that ran together: without
    group_reporting fio prints one record per job clone, and the clones of one group with
    one profile add up, whichever job section they come from (numjobs counts only one
    section's). A record that sums more jobs than its options say is rejected. Read from
    the final result, not from --status-interval snapshots: fio's job_runtime of a job
    still in its startdelay is garbage there. A fio server's earlier snapshots
    (``snapshots``, by position) are not jobs that ran together: counted as clones, a job
    of four snapshots read as parallelism 4."""
    found: dict[int, Any] = {}
    same: dict[tuple[Any, ...], list[int]] = {}
    for i, record in enumerate(records):
        if not isinstance(record, dict) or record.get("jobname") == ALL_CLIENTS:
            continue
        try:
            _check_error(record)
            found[i] = profile = params.profile(record)
            _check_members(record, profile["parallelism"])
        except fio_params.JobError as err:
            found[i] = err
            continue
        if i in snapshots:
            continue
        target, workers = profile["target_iops"], profile["parallelism"]
        group = repr(record.get("groupid", 0))  # hand-edited JSON: anything, hashable or not
        key = (host_of(record, ""), group, target and target / workers)
        same.setdefault((*key, *_CLONE_KEY(profile)), []).append(i)
    for members in (m for m in same.values() if len(m) > 1):
        found.update({i: _as_clones(found[i], len(members)) for i in members})
    return found


def _as_clones(profile: dict[str, Any], jobs: int) -> dict[str, Any]:
    rate = profile["target_iops"] / profile["parallelism"] if profile["target_iops"] else None
    return {**profile, "parallelism": jobs, "target_iops": rate and rate * jobs}


CLONE_KEY = ("access", "read_pct", "block_size", "queue_depth")
_CLONE_KEY = operator.itemgetter(*CLONE_KEY)


def host_of(record: dict[str, Any], default: str) -> str:
    """``host:port`` where fio names the port (client/server: several servers may share
    an address), else the host name, else ``default``."""
    host = str(record.get("hostname") or default)
    port = record.get("port")
    return f"{host}:{port}" if isinstance(port, int) and not isinstance(port, bool) else host


# a row's point, host and interval; fio names no workload mix (a profile's name comes
# from report.toml's [[profiles]], after reading)
_RUN_KEY = operator.itemgetter(*(k for k in POINT_KEY if k != "profile"), "host", "interval")


def _one_run_per_profile(
    rows: list[dict[str, Any]], groups: list[object], label: str
) -> tuple[list[dict[str, Any]], list[Reject]]:
    """Records of one reporting group run together and add up; a later group (stonewall)
    with the same profile on the same host is another run, not more load: rejected."""
    first: dict[tuple[Any, ...], object] = {}
    kept, rejects = [], []
    for row, group in zip(rows, groups, strict=True):
        key = _RUN_KEY(row)
        if first.setdefault(key, group) == group:
            kept.append(row)
        else:
            rejects.append(
                Reject(
                    label,
                    Message.of("where.line", line=row["line"]),
                    Message.of(
                        "fio.repeated_group", group=group, first=first[key], host=row["host"]
                    ),
                )
            )
    return kept, rejects


def latency_bins(path: Path, job: int) -> pl.DataFrame:
    """fio json+ latency histogram of one job record, reads and writes together:
    ``lat_us`` (the bin's latency) and ``count``. fio 3.x bins are keyed in ns."""
    doc = final_document(path, read_text(path), bins=True).data
    records = doc.get("client_stats") or doc.get("jobs") or []
    if not isinstance(records, list) or not 0 <= job < len(records):
        raise InputError(
            path,
            f"jobs[{job}]",
            "no such job record",
            f"choose a job between 0 and {max(len(records) - 1, 0)}",
        )
    counts: dict[float, float] = {}
    for direction in ("read", "write"):
        d = records[job].get(direction) if isinstance(records[job], dict) else None
        clat = d.get("clat_ns") if isinstance(d, dict) else None
        bins = clat.get("bins") if isinstance(clat, dict) else None
        for key, value in (bins or {}).items():
            if _is_number(key) and isinstance(value, int | float):
                us = convert_time(float(key), "ns")
                counts[us] = counts.get(us, 0.0) + float(value)
    if not counts:
        raise InputError(
            path,
            f"jobs[{job}].read.clat_ns.bins",
            "no latency bins",
            "run fio with --output-format=json+ (bins are only in json+)",
        )
    return pl.DataFrame({"lat_us": list(counts), "count": list(counts.values())}).sort("lat_us")
