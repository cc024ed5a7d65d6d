"""fio JSON of many files at once: the regular ones (one JSON document each, fio 3.x's
fields with fio's types, no record that would be rejected or noted) decoded into Structs
of only the fields read, their raw figures gathered into columns, the rows and checks
computed as whole-frame operations. A file where anything is irregular is left to the
reader of one file (``fio.read``), which gives its rejects, reasons and notes; so this
path only ever gives what that one would (tests/test_fio_fast.py compares them).

The arithmetic is ``fio._direction`` and ``fio._measures``' own, step by step (IEEE
floating point gives the same bits in polars as in Python for the same operations)."""

from __future__ import annotations

import functools
from pathlib import Path
from typing import Any, NamedTuple

import msgspec
import polars as pl
from msgspec import UNSET, UnsetType, field

from pipeline.config import LARGEST
from pipeline.ingest import fio, fio_params
from pipeline.ingest.base import INTERVAL_SCHEMA, Batch, ReadOptions, ReadResult
from pipeline.units import NS_PER


class _Table(msgspec.Struct, gc=False):
    """The percentiles a row takes, by fio's keys (the others skipped, not built)."""

    p50: float = field(name="50.000000")  # one missing: the reader of one file reads it
    p90: float = field(name="90.000000")
    p99: float = field(name="99.000000")
    p999: float = field(name="99.900000")
    p9999: float = field(name="99.990000")


class _Stats(msgspec.Struct, gc=False):
    mean: float = 0.0
    max: float = 0.0
    percentile: _Table | UnsetType = UNSET


class _Side(msgspec.Struct, gc=False):
    iops: float = 0.0
    bw_bytes: float | UnsetType = UNSET
    bw: float = 0.0
    runtime: float | UnsetType = UNSET
    total_ios: float = 0.0
    lat_ns: _Stats | UnsetType = UNSET
    clat_ns: _Stats | UnsetType = UNSET
    slat_ns: _Stats | UnsetType = UNSET
    # fio 2.x's statistics in µs: a file that has them is left to the reader of one file
    # (it does not decode here); null is what it takes for none
    lat: None = None
    clat: None = None
    slat: None = None


class _Job(msgspec.Struct, gc=False):
    jobname: str
    # decoded once per text (_profiles); fio's "All clients" record has none
    options: msgspec.Raw = field(name="job options", default=msgspec.Raw(b""))
    groupid: int = 0
    hostname: str | UnsetType = UNSET
    port: int | UnsetType = UNSET
    job_runtime: float = 0.0
    error: int | None = 0
    usr_cpu: float | UnsetType = UNSET
    sys_cpu: float | UnsetType = UNSET
    read: _Side | UnsetType = UNSET
    write: _Side | UnsetType = UNSET


class _Doc(msgspec.Struct, gc=False):
    version: str = field(name="fio version", default="")
    timestamp: int | UnsetType = UNSET
    timestamp_ms: int | UnsetType = UNSET
    globals: msgspec.Raw = field(name="global options", default=msgspec.Raw(b"{}"))
    jobs: list[_Job] | UnsetType = UNSET
    client_stats: list[_Job] | UnsetType = UNSET


_DECODER = msgspec.json.Decoder(_Doc)
_NO_SIDE = _Side()
_NO_STATS = _Stats()
_JOBNAME = b'"jobname"'
SCALE = fio._SCALE["lat_ns"]  # fio 3.x's nanoseconds in µs
MS_PER_S = NS_PER["s"] // NS_PER["ms"]  # what units.convert_time divides ms by for s


class File(NamedTuple):
    """A file read for this path: its bytes, and what the reader of one file is given."""

    path: Path
    options: ReadOptions
    data: bytes


class _Parsed(NamedTuple):
    file: File
    doc: _Doc
    records: list[_Job]
    lines: list[int]
    profiles: list[dict[str, Any]]
    notes: list[str]


def read_files(files: list[File]) -> list[ReadResult | None]:
    """Each file's result, or None where the file is not regular (read it one by one)."""
    parsed = [_parse(f) for f in files]
    good = [p for p in parsed if p is not None]
    if not good:
        return [None] * len(files)
    frame = _frame(good)
    taken = _per_file(frame)
    shared = Batch(frame.filter(_TAKEN).select(_schema()))
    results: list[ReadResult | None] = []
    offset, k = 0, -1
    for p in parsed:
        k += p is not None
        if p is None or k not in taken:
            results.append(None)
            continue
        count, theirs, ours = taken[k]
        results.append(_result(p, shared, (offset, count), theirs, ours))
        offset += count
    return results


_TAKEN = pl.col("_keep") & ~pl.col("_all")  # the rows given: "All clients" is not one


@functools.cache
def _schema() -> list[pl.Expr]:
    """The interval columns, in the schema's order and types (made once)."""
    return [pl.col(n).cast(t) for n, t in INTERVAL_SCHEMA.items()]


def _per_file(frame: pl.DataFrame) -> dict[int, tuple[int, float | None, float]]:
    """Per file taken: its rows, fio's "All clients" IOPS (None without the record) and
    the sum of the rows' IOPS as ``fio._cross_check`` adds them."""
    found: dict[int, tuple[int, float | None, float]] = {}
    columns = ("_file", "_keep", "_all", "iops", "read_iops", "write_iops")
    lists = [frame[c].to_list() for c in columns]
    for k, keep, every, iops, read, write in zip(*lists, strict=True):
        if not keep:
            continue
        count, theirs, ours = found.get(k, (0, None, 0))
        if every:
            found[k] = (count, 0 + read + write, ours)
        else:
            found[k] = (count + 1, theirs, ours + iops)
    return found


def _parse(file: File) -> _Parsed | None:
    """The file decoded, with its records' lines and profiles, if it is regular so far."""
    data = file.data
    start = _start(data)
    if start is None or not _plain(data):
        return None
    try:
        doc = _DECODER.decode(memoryview(data)[start:])
    except (msgspec.ValidationError, msgspec.DecodeError, RecursionError):
        return None  # (nested too deep: the reader of one file says so)
    records = doc.client_stats if doc.client_stats is not UNSET else doc.jobs
    if records is UNSET or not _regular(records):
        return None
    lines = _lines(data, start, len(records))
    found = _profiles(file, doc, records)
    if lines is None or found is None:
        return None
    profiles, notes = found
    if data[:start].strip():  # fio's client banner, as the reader of one file notes it
        notes = [fio.before_note(data.count(b"\n", 0, start) + 1), *notes]
    return _Parsed(file, doc, records, lines, profiles, notes)


def _start(data: bytes) -> int | None:
    """Where the one JSON document starts: the file's start, or the first line that
    starts with "{" after text (fio's client banner, ``<host> ...`` lines); the document
    must then run to the file's end (else the decode fails: the reader of one file)."""
    if data.lstrip().startswith(b"{"):
        return 0
    found = data.find(b"\n{")
    return None if found < 0 else found + 1


def _regular(records: list[_Job]) -> bool:
    """A job record among them (else the reader of one file says there is none), and no
    group or port beyond a frame's integers (no port is)."""
    job = False
    for r in records:
        if abs(r.groupid) >= _HUGE or (r.port is not UNSET and abs(r.port) >= _HUGE):
            return False
        job = job or r.jobname != fio.ALL_CLIENTS
    return job


_HUGE = 2**62


def _plain(data: bytes) -> bool:
    """``fio._plain`` of the bytes: ASCII without escapes or DEL."""
    return data.isascii() and b"\\" not in data and b"\x7f" not in data


def _lines(data: bytes, start: int, count: int) -> list[int] | None:
    """The line of each record, by its "jobname" key (``fio_lines``' quick way), where
    the file holds exactly one per record and none overlap; else None. ``start``: where
    the document starts."""
    start = data.index(b"{", start)
    line = 1 + data.count(b"\n", 0, start)
    if data.find(b"\n", start) < 0:  # the document on one line: each record's too
        return [line] * count
    if data.count(_JOBNAME, start) != count:
        return None
    lines, pos = [], start
    offset = data.find(_JOBNAME, start)
    while offset >= 0:
        if data.find(b"\n", pos, offset) >= 0:
            line += data.count(b"\n", pos, offset)
        pos = offset
        lines.append(line)
        offset = data.find(_JOBNAME, offset + 1)
    return lines if len(lines) == count else None


_Profile = tuple[dict[str, Any], list[str]] | None  # a profile and its notes, or refused
_CACHE: dict[tuple[bytes, str, bytes], _Profile] = {}
# profiles kept at most: emptied when full, so a long-lived process (a test run, a lab's
# archive read file by file) does not keep every job's options it ever read
CACHE_SIZE = 4096
_OPTIONS = msgspec.json.Decoder(dict[str, str])


def _profiles(
    file: File, doc: _Doc, records: list[_Job]
) -> tuple[list[dict[str, Any]], list[str]] | None:
    """Each record's profile (the "All clients" record's: an empty one) and the notes of
    resolving them, as ``fio_params.Resolver`` gives them; None if one is refused. Found
    by the text of the job's options and of the global options."""
    glob = bytes(doc.globals)
    profiles, notes = [], []
    for record in records:
        if record.jobname == fio.ALL_CLIENTS:
            profiles.append(_NO_PROFILE)
            continue
        if not bytes(record.options):
            return None  # a job without options: the reader of one file
        key = (glob, record.jobname, bytes(record.options))
        found = _CACHE.get(key, _UNKNOWN)
        if found is _UNKNOWN:
            if len(_CACHE) >= CACHE_SIZE:
                _CACHE.clear()
            found = _CACHE[key] = _resolve(file, key)
        if found is None:
            return None
        profiles.append(found[0])
        if found[1]:
            notes += [n for n in found[1] if n not in notes]
    return profiles, notes


_UNKNOWN: _Profile = ({}, [])  # not in the cache yet


def _resolve(file: File, key: tuple[bytes, str, bytes]) -> _Profile:
    glob, name, options = key
    try:
        record = {"jobname": name, "job options": _OPTIONS.decode(options)}
        resolver = fio_params.Resolver(
            file.path, {"global options": _OPTIONS.decode(glob)}, file.options.root
        )
        profile = resolver.profile(record)
    except (msgspec.ValidationError, msgspec.DecodeError, fio_params.JobError):
        return None
    return profile, resolver.notes


_PROFILE_COLUMNS = (
    "access",
    "read_pct",
    "block_size",
    "block_split",
    "parallelism",
    "queue_depth",
    "target_iops",
    "compress_pct",
    "dedupe_pct",
)
_NO_PROFILE: dict[str, Any] = dict.fromkeys(_PROFILE_COLUMNS)
_PROFILE_TYPES: dict[str, Any] = {c: INTERVAL_SCHEMA[c] for c in _PROFILE_COLUMNS}
_PROFILE_TYPES |= {"_port": pl.Int64, "_group": pl.Int64}
_FLAGS = ("_clat_set",)  # the raw columns that are not figures
_PCT_KEYS = fio.FIO_PERCENTILE_KEYS


def _columns(parsed: list[_Parsed]) -> dict[str, list[Any]]:
    """The raw fields of every record of the files, as columns."""
    recs = [r for p in parsed for r in p.records]
    cols: dict[str, list[Any]] = {
        "_file": [k for k, p in enumerate(parsed) for _ in p.records],
        "line": [n for p in parsed for n in p.lines],
        "_all": [r.jobname == fio.ALL_CLIENTS for r in recs],
        "_name": [r.jobname for r in recs],
        "_group": [r.groupid for r in recs],
        "_hostname": [r.hostname or None for r in recs],
        "_port": [r.port if r.port is not UNSET else None for r in recs],
        "_error": [r.error in (0, None) for r in recs],
        "_job_runtime": [r.job_runtime for r in recs],
        "_usr": [r.usr_cpu if r.usr_cpu is not UNSET else None for r in recs],
        "_sys": [r.sys_cpu if r.sys_cpu is not UNSET else None for r in recs],
    }
    for name in ("read", "write"):
        sides = [getattr(r, name) or _NO_SIDE for r in recs]
        cols |= {f"_{name}_{k}": v for k, v in _side_columns(sides).items()}
    profiles = [q for p in parsed for q in p.profiles]
    cols |= {c: [q[c] for q in profiles] for c in _PROFILE_COLUMNS}
    return cols


_SIDE_COLUMNS = (
    *("iops", "bw_bytes", "bw", "runtime", "total_ios", "lat", "lat_max"),
    *("clat_set", "clat", "slat", *(f"p{j}" for j in range(len(_PCT_KEYS))), "pof"),
)


def _side_columns(sides: list[_Side]) -> dict[str, list[Any]]:
    """A direction's raw figures, as columns (one tuple per record, then transposed)."""
    rows = [
        (
            s.iops,
            s.bw_bytes if s.bw_bytes is not UNSET else None,
            s.bw,
            s.runtime if s.runtime is not UNSET else None,
            s.total_ios,
            (lat := s.lat_ns or _NO_STATS).mean,
            lat.max,
            s.clat_ns is not UNSET,
            (s.clat_ns or _NO_STATS).mean,
            (s.slat_ns or _NO_STATS).mean,
            *_table(s),
        )
        for s in sides
    ]
    return dict(zip(_SIDE_COLUMNS, map(list, zip(*rows, strict=True)), strict=True))


_NO_TABLE = (None,) * (len(_PCT_KEYS) + 1)


def _table(side: _Side) -> tuple[float | str | None, ...]:
    """The raw percentiles of the first statistics with a table and a mean above 0
    (``fio._percentiles``) and what they are of; None where none has."""
    for stats, of in ((side.lat_ns, "lat"), (side.clat_ns, "clat")):
        if stats and stats.percentile and stats.mean > 0:
            t = stats.percentile
            # a table of zeros: the next (written out: a generator costs more than this)
            if t.p50 > 0 or t.p90 > 0 or t.p99 > 0 or t.p999 > 0 or t.p9999 > 0:
                return (t.p50, t.p90, t.p99, t.p999, t.p9999, of)
    return _NO_TABLE


def _frame(parsed: list[_Parsed]) -> pl.DataFrame:
    """Every record's row and whether the reader of one file would take it as it is
    (``_ok``); the checks of a file's records against each other included."""
    cols = _columns(parsed)
    heads = [
        (o.system, o.setup, o.source_label(p.file.path), p.doc.version or None, o.host)
        for p in parsed
        for o in [p.file.options]
        for _ in p.records
    ]
    names = ("system", "setup", "source", "tool_version", "_default_host")
    cols |= dict(zip(names, map(list, zip(*heads, strict=True)), strict=True))
    cols["_ms"] = [MS_PER_S] * len(heads)
    types: dict[str, Any] = {
        k: pl.Boolean if k.endswith(_FLAGS) else pl.String if k.endswith("_pof") else pl.Float64
        for k in cols
        if k.startswith(("_read_", "_write_", "_usr", "_sys"))
    }
    frame = pl.DataFrame(cols, schema_overrides=types | _PROFILE_TYPES)
    for step in _steps():
        frame = frame.with_columns(step)
    return frame


@functools.cache
def _steps() -> list[list[pl.Expr]]:
    """The columns ``_frame`` adds, step by step: made once (building them costs 3-4 ms),
    applied eagerly (a lazy query of them costs 5-6 ms more to plan than to run on a
    batch's rows)."""
    return [
        [
            pl.lit(fio.NAME).alias("tool"),
            pl.lit(1).alias("interval"),
            pl.lit(None).alias("profile"),
            *(_ACTIVE[d].alias(f"_{d}_active") for d in ("read", "write")),
        ],
        [*_direction("read"), *_direction("write"), _BOTH.alias("_two")],
        # the sums of I/Os (and of I/Os x latency) the mean latency divides
        [_add("ios").alias("_ios"), _add("ios", "lat").alias("_ios_lat")],
        _measures(),
        [_row_checks()],
        [_file_checks()],
        [pl.col("_ok").all().over("_file").alias("_keep")],
    ]


# a direction with I/O (its IOPS above 0), as a column once its step has made it: the
# columns that name the same test many times cost far less to run than the test
_ACTIVE = {d: pl.col(f"_{d}_iops") > 0 for d in ("read", "write")}
_BOTH = pl.col("_read_active") & pl.col("_write_active")  # made in step 0
_TWO = pl.col("_two")  # both directions have I/O (``_BOTH``, made in a step before)


def _active(d: str) -> pl.Expr:
    return pl.col(f"_{d}_active")


# ms in a second, as a column: polars divides by a constant as a product with its
# reciprocal (1001 ms would be 1.0010000000000001 s, not Python's 1.001)
_MS = pl.col("_ms")


def _in_bounds(name: str) -> pl.Expr:
    return pl.col(name).is_null() | pl.col(name).abs().le(LARGEST)


def _direction(d: str) -> list[pl.Expr]:
    """``fio._direction`` of every record at once, and whether it passes its checks."""

    def c(k: str) -> pl.Expr:
        return pl.col(f"_{d}_{k}")

    iops, runtime_s, active = c("iops"), c("runtime").fill_null(0.0) / _MS, _active(d)
    bw = pl.when(c("bw_bytes").is_not_null()).then(c("bw_bytes")).otherwise(c("bw") * 1024)
    stat = c("lat") > 0
    part = pl.lit(0.0) + c("clat") * SCALE + c("slat") * SCALE
    lat = pl.when(stat).then(c("lat") * SCALE).when(c("clat_set") & (part != 0)).then(part)
    names = ("iops", "bw_bytes", "bw", "runtime", "total_ios", "lat", "lat_max", "clat")
    fields = [*names, "slat", *(f"p{j}" for j in range(len(_PCT_KEYS)))]
    # the largest magnitude of the figures (the decode gives neither NaN nor infinity)
    largest = pl.max_horizontal(*(pl.col(f"_{d}_{k}").abs() for k in fields))
    ok = largest.le(LARGEST).fill_null(True) & ~(
        active & (runtime_s <= 0) & c("runtime").is_not_null()
    )
    pct = [
        pl.when(active).then(pl.when(c(f"p{j}") > 0).then(c(f"p{j}") * SCALE))
        for j in range(len(_PCT_KEYS))
    ]
    return [
        iops.alias(f"{d}_iops"),
        bw.alias(f"{d}_bw"),
        runtime_s.alias(f"{d}_s"),
        pl.when(c("total_ios") != 0)
        .then(c("total_ios"))
        .otherwise(iops * runtime_s)
        .alias(f"{d}_ios"),
        pl.when(active).then(lat).alias(f"{d}_lat"),
        pl.when(active & stat).then(c("lat_max") * SCALE).alias(f"{d}_max"),
        ok.alias(f"{d}_ok"),
        *(p.alias(f"{d}_p{j}") for j, p in enumerate(pct)),
        # a table is taken only where one of its figures is above 0 (``_table``)
        pl.when(active).then(c("pof")).alias(f"{d}_pof"),
    ]


_PCT_COLUMNS = tuple(fio._NO_PERCENTILES)


def _pick(first: bool, name: str) -> pl.Expr:
    """Of the active directions the first (read where it has I/O) or the last."""
    if first:
        return pl.when(_active("read")).then(f"read_{name}").otherwise(f"write_{name}")
    return pl.when(_active("write")).then(f"write_{name}").otherwise(f"read_{name}")


def _add(name: str, of: str = "") -> pl.Expr:
    """``fio._add`` of both directions' ``name`` (or of the products ``name`` x ``of``)."""
    r, w, f = (pl.col(f"read_{name}"), pl.col(f"write_{name}"), _pick(True, name))
    if of:
        r, w, f = r * pl.col(f"read_{of}"), w * pl.col(f"write_{of}"), f * _pick(True, of)
    added = pl.when(_TWO).then(pl.lit(0.0) + r + w).otherwise(pl.lit(0.0) + f)
    # polars folds "0.0 + x" to x: -0.0 stays -0.0 where Python's 0.0 + -0.0 is 0.0
    return pl.when(added == 0).then(pl.lit(0.0)).otherwise(added)


def _measures() -> list[pl.Expr]:
    """``fio._measures`` of every record (where it would not raise), and its host."""
    ios = pl.col("_ios")  # made in a step before, as "_ios_lat" (``_steps``)
    ios = pl.when(ios != 0).then(ios).otherwise(1.0)
    ran = pl.max_horizontal(_pick(True, "s"), _pick(False, "s"))
    ran = pl.when(ran != 0).then(ran).otherwise(pl.col("_job_runtime") / _MS)
    most = pl.max_horizontal(_pick(True, "max").fill_null(0.0), _pick(False, "max").fill_null(0.0))
    # min_horizontal skips nulls: without usr_cpu or sys_cpu no figure (``fio._cpu``)
    used = pl.col("_usr") + pl.col("_sys")
    cpu = pl.when(used.is_not_null()).then(pl.min_horizontal(pl.lit(100.0), used))
    host = pl.coalesce("_hostname", "_default_host")
    port = pl.when(pl.col("_port").is_not_null()).then(
        pl.lit(":") + pl.col("_port").cast(pl.String)
    )
    return [
        _add("iops").alias("iops"),
        _add("bw").alias("bytes_per_s"),
        (pl.col("_ios_lat") / ios).alias("lat_mean_us"),
        pl.col("read_bw").alias("read_bytes_per_s"),
        pl.col("write_bw").alias("write_bytes_per_s"),
        pl.col("read_lat").alias("read_lat_mean_us"),
        pl.col("write_lat").alias("write_lat_mean_us"),
        pl.when(most != 0).then(most).alias("lat_max_us"),
        *(pl.when(~_TWO).then(_pick(True, f"p{j}")).alias(c) for j, c in enumerate(_PCT_COLUMNS)),
        pl.when(~_TWO).then(_pick(True, "pof")).alias("percentile_of"),
        ran.alias("interval_s"),
        cpu.alias("cpu_pct"),
        pl.concat_str(host, port.fill_null("")).alias("host"),
    ]


MEMBER_SLACK = fio.MEMBER_SLACK


def _row_checks() -> pl.Expr:
    """Would the reader of one file take the record as it is (``fio._row``,
    ``fio._check_error``, ``fio._check_members``)? Of "All clients" only its figures."""
    longest = pl.max_horizontal(
        pl.lit(0.0), pl.col("_read_runtime").fill_null(0.0), pl.col("_write_runtime").fill_null(0.0)
    )
    many = (longest > 0) & (
        pl.col("_job_runtime") > pl.col("parallelism") * (longest + 1) * MEMBER_SLACK
    )
    active = _active("read") | _active("write")
    taken = (
        pl.col("_error")
        & active
        & _pick(True, "lat").is_not_null()
        & _pick(False, "lat").is_not_null()
        & (pl.col("interval_s") > 0)
        & ~many
    )
    return (
        pl.col("read_ok")
        & pl.col("write_ok")
        & _in_bounds("_job_runtime")
        & (pl.col("_all") | taken)
    ).alias("_ok")


def _file_checks() -> pl.Expr:
    """No records of a file that fio's reader takes together: clones of one job
    (``fio._run_jobs``' key), a server's snapshots (``fio_status.server_snapshots``': one
    host, job name and group), a repeated reporting group (``fio._RUN_KEY``); at most one
    "All clients" record. (0.0 added: -0.0 and 0.0 are one key, as in Python.)"""
    one = ["_file", "_all", "host"]
    target, workers = pl.col("target_iops") + 0.0, pl.col("parallelism")
    point = ["access", pl.col("read_pct") + 0.0, "block_size", "queue_depth"]
    clones = pl.struct(*one, "_group", (target / workers).alias("_rate"), *point)
    runs = pl.struct(*one, *point, workers, target)
    snapshots = pl.struct(*one, "_name", "_group")
    alone = ~(clones.is_duplicated() | runs.is_duplicated() | snapshots.is_duplicated())
    return (pl.col("_ok") & alone & (pl.col("_all").sum().over("_file") <= 1)).alias("_ok")


def _result(
    p: _Parsed, shared: Batch, span: tuple[int, int], theirs: float | None, ours: float
) -> ReadResult:
    notes = list(p.notes)
    if theirs is not None:
        notes.append(fio.cross_check_note(theirs, ours))
    label = p.file.options.source_label(p.file.path)
    result = ReadResult(None, [], span[1], notes, label, None, [])
    result.batch, result.span = shared, span
    stamps = {"timestamp_ms": p.doc.timestamp_ms, "timestamp": p.doc.timestamp}
    result.run_time = fio.run_time({k: v for k, v in stamps.items() if v is not UNSET})
    return result
