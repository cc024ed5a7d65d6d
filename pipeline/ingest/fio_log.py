"""fio interval logs (``NAME_iops.N.log`` and siblings). See docs/formats/fio-log.md.

Read streaming with polars (scan, lazy aggregation, streaming collect): a 50-million-line
log never becomes 50 million Python objects.
"""

from __future__ import annotations

import configparser
import ipaddress
import itertools
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any, ClassVar, Literal

import polars as pl
from pydantic import Field, field_validator

from pipeline.config import Strict
from pipeline.errors import InputError
from pipeline.ingest import fio, fio_params
from pipeline.ingest.base import ReadOptions, ReadResult
from pipeline.inputs import read_head, read_text, stream
from pipeline.language.message import Message
from pipeline.schema import INTERVAL_FIELDS, conform
from pipeline.units import MAX_COUNT, TIME_UNITS_US, convert_time, parse_block_size


class FioParams(Strict):
    """fio job options for logs without a JSON or job file beside them (fio's names)."""

    synonyms: ClassVar[dict[str, str]] = {
        "block_size": "bs",
        "blocksize": "bs",
        "readwrite": "rw",
        "queue_depth": "iodepth",
        "threads": "numjobs",
        "jobs": "numjobs",
    }
    rw: Literal["read", "write", "rw", "readwrite", "randread", "randwrite", "randrw"] = "read"
    bs: str = "4k"
    numjobs: int = Field(default=1, ge=1, le=MAX_COUNT)
    iodepth: int = Field(default=1, ge=1, le=MAX_COUNT)
    rwmixread: float | None = Field(default=None, ge=0, le=100)
    rwmixwrite: float | None = Field(default=None, ge=0, le=100)
    log_avg_msec: int = Field(default=0, ge=0)
    rate_iops: str | None = None
    rate: str | None = None
    latency_unit: Literal["ns", "us"] = "ns"

    @field_validator("bs", "rate_iops", "rate", mode="before")
    @classmethod
    def _text(cls, v: Any) -> Any:
        return str(v) if isinstance(v, int) and not isinstance(v, bool) else v

    @field_validator("bs")
    @classmethod
    def _block(cls, v: str) -> str:
        parse_block_size(v)
        return v

    def options(self) -> dict[str, str]:
        """The options as fio writes them (strings), without those left unset."""
        return {k: str(v) for k, v in self.model_dump(exclude_none=True).items()}


NAME = "fio-log"
DESCRIPTION = (
    "fio interval logs NAME_{iops,bw,lat,clat,slat}.N.log (parameters from JSON or job file)"
)
LOG_NAME = re.compile(
    r"^(?P<prefix>.+?)_(?P<metric>iops|bw|lat|clat|slat)(?:\.(?P<job>\d+))?\.log$"
)
OPTIONS = {"params": FioParams}  # report.toml [sources.params]
EMPTY = LOG_NAME  # fio writes empty logs (e.g. slat with some engines)
HOSTS_SUMMED = False
PRIMARY_ORDER = ("iops", "bw", "lat", "clat")
COLUMNS = ("time_ms", "value", "ddir", "bs", "offset", "prio", "extra")
_LINE = re.compile(rb"^\s*\d+\s*,\s*\d+\s*,\s*[012]\s*,\s*\d+(\s*,\s*\d+){0,3}\s*$")
PER_IO_WINDOW_MS = 1000


def sniff(head: bytes) -> bool:
    lines = [ln for ln in head.splitlines()[:3] if ln.strip()]
    return bool(lines) and all(_LINE.match(ln) for ln in lines[: max(1, len(lines) - 1)])


@dataclass(frozen=True)
class _Job:
    """What the log itself does not say: the job's profile, window and latency unit."""

    profile: dict[str, Any]
    window_ms: int | None
    lat_scale: float  # to µs: fio 3.x logs ns, fio 2.x µs
    version: str | None
    origin: str
    origin_path: Path | None = None
    clones: tuple[int, ...] = ()  # the log indices of this job's clones (numjobs)
    run_time: int | None = None  # fio's time stamp of the JSON read (``fio.run_time``)
    runtime_ms: float | None = None  # how long its shortest clone ran (its JSON's runtime)
    max_values: bool = False  # log_max_value: each window's maximum logged, not its mean
    # the block size of reads and of writes (bs=4k,16k); (0, 0): the profile's for both;
    # None: a direction mixes sizes (bssplit=...,...) unlike the other
    sizes: tuple[int, int] | None = (0, 0)
    epoch: bool = False  # log_unix_epoch: times since 1970, not since the job's start


def histogram_log(path: Path) -> InputError | None:
    """The error of a fio histogram log (``write_hist_log``), by its name; None for any
    other file."""
    if "_clat_hist" not in path.name and "_lat_hist" not in path.name:
        return None
    return InputError(
        path,
        "file name",
        "fio histogram logs (write_hist_log) are not supported yet",
        "use the job's JSON result or its iops/bw/lat logs",
    )


def _siblings(path: Path, options: ReadOptions) -> dict[str, Path]:
    if (refused := histogram_log(path)) is not None:
        raise refused
    match = LOG_NAME.match(path.name)
    if not match:
        raise InputError(
            path,
            "file name",
            "not a fio log name",
            "fio names its logs NAME_iops.N.log, NAME_bw.N.log, NAME_lat.N.log …",
        )
    job = f".{match['job']}" if match["job"] else ""
    found = {
        m: path.with_name(f"{match['prefix']}_{m}{job}.log")
        for m in ("iops", "bw", "lat", "clat", "slat")
    }
    # an empty log (e.g. slat with an engine that has no submission latency) says nothing
    return {
        m: p
        for m, p in found.items()
        if p.is_file() and options.may_read(path, p) and p.stat().st_size > 0
    }


def _prefix(path: Path) -> str:
    match = LOG_NAME.match(path.name)
    return match["prefix"] if match else ""


def _writes_log(opts: dict[str, str], jobname: str, prefix: str) -> bool:
    """Did this job write logs named ``prefix``? (write_*_log=NAME; fio's default is the
    job name.)"""
    named = {opts.get(k) for k in ("write_iops_log", "write_bw_log", "write_lat_log")}
    return prefix in named or prefix == jobname


def _clone_index(path: Path) -> int:
    """fio's thread number of a log (``NAME_iops.3.log``: 3); 0 for a log without one
    (per_job_logs=0): the first thread of the job that writes that name."""
    match = LOG_NAME.match(path.name)
    return int(match["job"]) if match and match["job"] else 0


def _thread(threads: list[tuple[str, dict[str, str]]], clone: int, prefix: str) -> int | None:
    """The index in ``threads`` (job name and options, in fio's numbering) of log number
    ``clone`` if its job wrote logs named ``prefix`` (0: the first thread that did)."""
    if clone == 0:
        return next((i for i, (n, o) in enumerate(threads) if _writes_log(o, n, prefix)), None)
    if not 1 <= clone <= len(threads) or not _writes_log(
        threads[clone - 1][1], threads[clone - 1][0], prefix
    ):
        return None
    return clone - 1


def _candidates(path: Path, options: ReadOptions) -> list[Path]:
    """Files that may describe the log's job: beside it and up to two folders above,
    never outside the report folder."""
    files: list[Path] = []
    for folder in options.sidecar_folders(path):
        if folder.is_dir():
            files += sorted(
                p
                for p in folder.iterdir()
                if p.is_file() and p.suffix != ".log" and options.may_read(path, p)
            )
    return files


def _from_json(candidate: Path, clone: int, prefix: str, host: str) -> _Job | None:
    """The job of log number ``clone`` (fio numbers its threads across every job of the
    run: ``[a]`` writes a_iops.1.log, ``[b]`` with numjobs=2 b_iops.2.log and .3) in the
    JSON ``candidate``, if it wrote logs named ``prefix``; of a client/server run the
    records of ``host`` (each server numbers its own threads)."""
    try:
        if not fio.sniff(read_head(candidate, 8192)):  # a regular file only, never blocks
            return None
        doc = fio.final_document(candidate, read_text(candidate)).data
    except InputError:
        return None
    resolver = fio_params.Resolver(candidate, doc, candidate.parent)
    threads = _expand(_records(doc, host), resolver)
    named = [(str(r.get("jobname", "")), resolver.options(r)) for r in threads]
    index = _thread(named, clone, prefix)
    if index is None:
        return None
    record, opts = threads[index], named[index][1]
    version = str(doc.get("fio version", "")) or None
    scale = 1.0 if version and version.startswith("fio-2") else TIME_UNITS_US["ns"]
    same = [
        (i, rec)
        for i, (rec, (name, o)) in enumerate(zip(threads, named, strict=True), start=1)
        if name == named[index][0] and o == opts
    ]
    return _Job(
        resolver.profile(record),
        _window(opts),
        scale,
        version,
        candidate.name,
        candidate,
        tuple(i for i, _ in same),
        fio.run_time(doc),
        _shortest([rec for _, rec in same]),
        fio_params.flag(opts, "log_max_value"),
        _sizes(opts),
        fio_params.flag(opts, "log_unix_epoch"),
    )


def _records(doc: dict[str, Any], host: str) -> list[dict[str, Any]]:
    """A JSON's job records; of a client/server run's (``client_stats``) those of ``host``
    (or of its only server), without fio's "All clients" sum."""
    jobs = doc.get("jobs")
    if isinstance(jobs, list) and jobs:
        return [r for r in jobs if isinstance(r, dict)]
    found = doc.get("client_stats")
    if not isinstance(found, list):
        return []
    records = [r for r in found if isinstance(r, dict) and r.get("jobname") != fio.ALL_CLIENTS]
    servers = {str(r.get("hostname", "")) for r in records}
    if len(servers) == 1:
        return records
    return [r for r in records if _same_server(str(r.get("hostname", "")), host)]


def _same_server(hostname: str, host: str) -> bool:
    """fio's hostname of a server and the host a log was written on (pbench's
    ``clients/<host>/`` folder): equal, or a name equal up to its domain (an address
    only whole: 10.0.0.1 is not 10.0.0.2)."""
    if not host:
        return False
    if hostname.lower() == host.lower():
        return True
    if _address(hostname) or _address(host):
        return False
    return hostname.split(".")[0].lower() == host.split(".")[0].lower()


def _address(name: str) -> bool:
    try:
        ipaddress.ip_address(name.strip("[]"))
    except ValueError:
        return False
    return True


def _runtime(record: dict[str, Any]) -> float | None:
    """How long a job record ran, in ms: its directions' longest runtime (of a
    group_reporting record the longest clone's), else fio's job_runtime (of such a record
    the clones' sum: 5,001 ms for two clones of 2.5 s)."""
    sides = [record.get(d) for d in ("read", "write")]
    found = [_ms(side.get("runtime")) for side in sides if isinstance(side, dict)]
    known = [t for t in found if t is not None]
    return max(known) if known else _ms(record.get("job_runtime"))


def _ms(value: Any) -> float | None:
    number = isinstance(value, int | float) and not isinstance(value, bool)
    return float(value) if number and value > 0 else None


def _sizes(opts: dict[str, str]) -> tuple[int, int] | None:
    """``_Job.sizes`` of a job's options (a size fio refuses: the profile's, which says so)."""
    try:
        return fio_params.direction_sizes(opts)
    except fio_params.JobError:
        return (0, 0)


def _shortest(records: list[dict[str, Any]]) -> float | None:
    """How long the shortest of a job's clones ran, in ms; None if one does not say."""
    found = [_runtime(r) for r in records]
    known = [t for t in found if t is not None]
    return min(known) if known and len(known) == len(found) else None


def _expand(records: list[dict[str, Any]], resolver: fio_params.Resolver) -> list[dict[str, Any]]:
    """One entry per job clone, in fio's numbering: a job with numjobs=k has k records, or
    one aggregated record (group_reporting) that stands for all k clones."""
    by_name: dict[str, list[dict[str, Any]]] = {}
    for record in records:
        by_name.setdefault(str(record.get("jobname", "")), []).append(record)
    clones = []
    for group in by_name.values():
        k = fio_params.count(resolver.options(group[0]).get("numjobs", "1"))
        clones += group if len(group) == k else [group[0]] * k
    return clones


def _window(opts: dict[str, str]) -> int | None:
    text = opts.get("log_avg_msec", "0")
    return int(text) if text.isdigit() and int(text) > 0 else None


def _from_job_file(candidate: Path, clone: int, prefix: str) -> _Job | None:
    if candidate.suffix not in fio_params.JOB_FILE_SUFFIXES:
        return None
    parser = fio_params.parser()
    try:
        parser.read_string(read_text(candidate))
    except (configparser.Error, InputError):
        return None
    glob = dict(parser["global"]) if parser.has_section("global") else {}
    sections = [
        (s, fio_params.normalise_options({**glob, **dict(parser[s])}))
        for s in parser.sections()
        if s != "global"
    ]
    # fio numbers the threads of every job of the file in turn (see ``_from_json``)
    owner = [
        n
        for n, (_, o) in enumerate(sections)
        for _ in range(fio_params.count(o.get("numjobs", "1")))
    ]
    index = _thread([sections[n] for n in owner], clone, prefix)
    if index is None:
        return None
    opts = {**fio_params.DEFAULTS, **sections[owner[index]][1]}
    same = tuple(i for i, n in enumerate(owner, start=1) if n == owner[index])
    record = {"job options": opts, "jobname": candidate.stem}
    profile = fio_params.Resolver(candidate, {}, candidate.parent).profile(record)
    return _Job(
        profile,
        _window(opts),
        TIME_UNITS_US["ns"],
        None,
        candidate.name,
        candidate,
        same,
        max_values=fio_params.flag(opts, "log_max_value"),
        sizes=_sizes(opts),
        epoch=fio_params.flag(opts, "log_unix_epoch"),
    )


def _from_options(options: ReadOptions) -> _Job | None:
    params = options.option("params", FioParams)
    if params is None:
        return None
    opts = {**fio_params.DEFAULTS, **params.options()}
    resolver = fio_params.Resolver(Path("."), {}, None)
    profile = resolver.profile({"job options": opts, "jobname": "config"})
    scale = 1.0 if opts.get("latency_unit") == "us" else TIME_UNITS_US["ns"]
    same = tuple(range(1, fio_params.count(opts.get("numjobs", "1")) + 1))
    return _Job(profile, _window(opts), scale, None, "report configuration", None, same)


def _job(path: Path, options: ReadOptions) -> _Job:
    configured = _from_options(options)
    if configured:
        return configured
    clone, prefix, candidates = _clone_index(path), _prefix(path), _candidates(path, options)
    # a JSON first: it also tells the fio version, and so the latency unit
    host = _host(path, options)
    found = (
        job
        for job in itertools.chain(
            (_from_json(c, clone, prefix, host) for c in candidates),
            (_from_job_file(c, clone, prefix) for c in candidates),
        )
        if job
    )
    job = next(found, None)
    if job is not None:
        return job
    raise InputError(
        path,
        "parameters",
        "no fio JSON or job file describes this log's job",
        "put fio's JSON output or the job file beside the logs, or give the "
        "parameters in report.toml [sources.params] (rw, bs, numjobs, iodepth, "
        "log_avg_msec)",
    )


def _scan(path: Path) -> pl.LazyFrame:
    source = stream(path)  # the file hashed for provenance, whatever its name leads to later
    with open(source, "rb") as fh:
        first = fh.readline()
    if not _LINE.match(first.rstrip(b"\r\n")):
        raise InputError(
            path,
            "line 1",
            "not a fio log line (time, value, direction, block size …)",
            "give fio's unmodified log",
        )
    width = min(max(len(first.split(b",")), 4), len(COLUMNS))
    names = COLUMNS[:width]
    lf = pl.scan_csv(
        source,
        has_header=False,
        new_columns=list(names),
        encoding="utf8-lossy",
        schema={n: pl.String for n in names},
        truncate_ragged_lines=True,
        quote_char=None,
    )
    numbers = [pl.col(n).str.strip_chars().cast(pl.Int64, strict=False) for n in names[:4]]
    return lf.with_row_index("line", offset=1).select("line", *numbers)


def _check(path: Path, lf: pl.LazyFrame, window_ms: int | None, clones: int = 1) -> None:
    """A line that is not numbers makes the whole file suspect: name the first one. So
    does a time that starts again (fio 2.x appended a second run to the same log): its
    windows would mix the runs; but a per-I/O log without thread numbers of a job of
    ``clones`` holds them one after the other (``clones - 1`` restarts), and its I/Os
    counted per second over all of them are the job's."""
    broken = pl.any_horizontal(pl.all().exclude("line", "_before").is_null())
    again = (pl.col("time_ms").diff() < -(window_ms or PER_IO_WINDOW_MS)).fill_null(False)
    allowed = 0 if window_ms else clones - 1
    query = (
        lf.with_row_index("line", offset=1)
        .with_columns(pl.col("time_ms").shift(1).alias("_before"))
        .select(
            pl.col("line").filter(broken).first().alias("broken"),
            again.sum().alias("restarts"),
            *(pl.col(c).filter(again).first().alias(c) for c in ("line", "time_ms", "_before")),
        )
    )
    try:
        found = query.collect().row(0, named=True)
    except pl.exceptions.PolarsError as exc:
        raise InputError(
            path, "", f"cannot be read as a fio log: {exc}", "give fio's unmodified log"
        ) from None
    if found["broken"] is not None:
        raise InputError(
            path,
            f"line {found['broken']}",
            "not a fio log line (time, value, direction, block size …)",
            "give fio's unmodified log",
        )
    if found["restarts"] > allowed:
        raise InputError(
            path,
            f"line {found['line']}",
            f"the time starts again ({found['time_ms']:,} ms after {found['_before']:,} ms "
            "on the line before): the log holds more than one run (fio 2.x appended each "
            "run to the same file), or a job's clones one after the other (fio without "
            "per_job_logs writes them into one file; averaged, they cannot be told apart)",
            "split the log into one file per run, each with its JSON, or log with "
            "per_job_logs=1 (one file per clone)",
        )


def _windows(lf: pl.LazyFrame, window_ms: int | None) -> pl.LazyFrame:
    """Per window and direction: the mean value, the row count and the bytes (per-I/O logs).
    An averaged log's entries are weighted by the time each averages: fio writes a last,
    partial average when the job ends (at 15003 ms beside the one at 15000 ms), which
    weighed as much as the whole window before it."""
    if window_ms:
        interval = (pl.col("time_ms") / window_ms).round().cast(pl.Int64)
        # the time since the direction's entry before (fio writes in time order); the
        # first entry, one at the same time (a bs split) or out of order: a whole window
        since = pl.col("time_ms").diff().over("ddir")
        lf = lf.with_columns(
            pl.when(since > 0).then(since).otherwise(window_ms).cast(pl.Float64).alias("_span")
        )
        value = (pl.col("value") * pl.col("_span")).sum() / pl.col("_span").sum()
    else:
        interval = (pl.col("time_ms") // PER_IO_WINDOW_MS + 1).cast(pl.Int64)
        value = pl.col("value").mean()
    return (
        lf.with_columns(interval.alias("interval"))
        .group_by("interval", "ddir")
        .agg(
            value.alias("value"),
            pl.len().alias("n"),
            pl.col("bs").sum().alias("bytes"),
            pl.col("line").min().alias("line"),
        )
    )


def _metric(path: Path, window_ms: int | None, name: str, clones: int = 1) -> pl.LazyFrame:
    lf = _scan(path)
    _check(path, lf.drop("line"), window_ms, clones)
    return _windows(lf, window_ms).rename(
        {"value": name, "n": f"{name}_n", "bytes": f"{name}_bytes", "line": f"{name}_line"}
    )


def _joined(files: dict[str, Path], job: _Job) -> pl.DataFrame:
    # a log without a thread number holds every clone of its job (per_job_logs=0)
    clones = [len(job.clones) if _clone_index(p) == 0 and job.clones else 1 for p in files.values()]
    frames = [
        _metric(p, job.window_ms, m, k) for (m, p), k in zip(files.items(), clones, strict=True)
    ]
    joined = frames[0]
    for frame in frames[1:]:
        joined = joined.join(frame, on=["interval", "ddir"], how="full", coalesce=True)
    try:
        return joined.collect(engine="streaming")
    except pl.exceptions.PolarsError as exc:
        raise InputError(
            next(iter(files.values())),
            "",
            f"cannot be read as fio logs: {exc}",
            "give fio's unmodified logs",
        ) from None


def _per_direction(df: pl.DataFrame, job: _Job, block: pl.Expr) -> pl.DataFrame:
    """A clone's windows per direction: its rates, latency and whether partial. ``block``:
    each direction's block size, where only an iops or only a bw log gives its rate."""
    seconds = convert_time(job.window_ms or PER_IO_WINDOW_MS, "ms", "s")
    cols = set(df.columns)
    if job.window_ms:
        iops = pl.col("iops") if "iops" in cols else pl.col("bw") * 1024 / block
        bw = pl.col("bw") * 1024 if "bw" in cols else pl.col("iops") * block
    else:
        counted = next(m for m in ("lat", "clat", "iops", "bw") if m in cols)
        iops = pl.col(f"{counted}_n") / seconds
        bw = pl.col(f"{counted}_bytes") / seconds
    if "lat" in cols:
        lat = pl.col("lat")
    elif "clat" in cols:
        lat = pl.col("clat") + (pl.col("slat").fill_null(0) if "slat" in cols else 0)
    else:
        lat = pl.lit(None, pl.Float64)
    first_line = pl.min_horizontal(c for c in df.columns if c.endswith("_line"))
    return df.filter(pl.col("ddir") < 2).select(
        "interval",
        "ddir",
        first_line.alias("line"),
        iops.alias("iops"),
        bw.alias("bytes_per_s"),
        (lat * job.lat_scale).alias("lat"),
        pl.lit(seconds).alias("interval_s"),
        _partial(job).alias("partial"),
    )


RUNTIME_SLACK_MS = 10  # fio's runtime of a 2 s job: 2000 or 2001 ms, now and then 1999


def _partial(job: _Job) -> pl.Expr:
    """A per-I/O log's window the job ended inside: its I/Os counted over a whole window
    would give too low a rate (a 2.5 s run's third second holds half a second of I/O).
    Without the job's runtime (no JSON), the last window of the log may be one. An averaged
    log's entries are rates already (``_windows`` weighs a last, partial one by its time)."""
    if job.window_ms:
        return pl.lit(False)
    if job.epoch:  # seconds of the clock: the first and the last may each be partial
        first, last = pl.col("interval").min(), pl.col("interval").max()
        return (pl.col("interval") == first) | (pl.col("interval") == last)
    if job.runtime_ms is None:
        return pl.col("interval") == pl.col("interval").max()
    ends = pl.col("interval") * PER_IO_WINDOW_MS
    return ends > job.runtime_ms + RUNTIME_SLACK_MS


def _weighted_lat(weight: pl.Expr) -> pl.Expr:
    """Latency weighted by each direction's IOPS; empty (not NaN) where none was logged."""
    total = weight.filter(pl.col("lat").is_not_null()).sum()
    return pl.when(total > 0).then((pl.col("lat") * weight).sum() / total)


def _per_interval(df: pl.DataFrame) -> pl.DataFrame:
    def by(ddir: int) -> pl.Expr:
        return pl.col("lat").filter((pl.col("ddir") == ddir) & (pl.col("iops") > 0)).first()

    weight = pl.col("iops").fill_null(0)
    bytes_ = pl.col("bytes_per_s").fill_null(0)
    return (
        df.group_by("interval")
        .agg(
            weight.sum().alias("iops"),
            bytes_.sum(),
            weight.filter(pl.col("ddir") == 0).sum().alias("read_iops"),
            weight.filter(pl.col("ddir") == 1).sum().alias("write_iops"),
            bytes_.filter(pl.col("ddir") == 0).sum().alias("read_bytes_per_s"),
            bytes_.filter(pl.col("ddir") == 1).sum().alias("write_bytes_per_s"),
            _weighted_lat(weight).alias("lat_mean_us"),
            by(0).alias("read_lat_mean_us"),
            by(1).alias("write_lat_mean_us"),
            pl.col("lat").is_null().any().alias("lat_missing"),
            pl.col("interval_s").first(),
            pl.col("line").min(),
            pl.col("clones").min(),
            pl.col("partial").any(),
        )
        .sort("interval")
    )


def read(path: Path, options: ReadOptions) -> ReadResult:
    files = _siblings(path, options)
    label = options.source_label(path)
    if path not in files.values():
        return ReadResult(_empty(), [], 0, ["empty log: nothing to read"], label, skipped=True)
    primary = _primary(path, files, options)
    if primary != path:
        note = f"read together with {primary.name}"
        return ReadResult(_empty(), [], 0, [note], label, skipped=True)
    job = _job(path, options)
    lead = _lead(path, job)
    if lead != path:
        note = f"clone of the job of {lead.name}: read with it"
        return ReadResult(_empty(), [], 0, [note], label, skipped=True)
    clones = _clones(path, job, files, options)
    block = _block(path, job, {m for f in clones.values() for m in f})
    windows = _per_interval(
        _sum_clones([_per_direction(_joined(f, job), job, block) for f in clones.values()])
    )
    return _result(windows, job, options, label, path, clones)


def _clones(
    path: Path, job: _Job, files: dict[str, Path], options: ReadOptions
) -> dict[int, dict[str, Path]]:
    """The logs of each clone of the job (a log without a thread number: its own, which
    holds them all); an error where a clone's logs are missing (the sum would lack it).
    Latency logs of window maxima (log_max_value) are left out."""
    clones = {c: _siblings(_clone_path(path, c), options) for c in job.clones or (0,)}
    missing = [c for c, f in clones.items() if not f]
    if _clone_index(path) == 0 or not job.clones:
        clones = {0: files}
    elif missing:
        names = ", ".join(_clone_path(path, c).name for c in missing)
        raise InputError(
            path,
            "parameters",
            f"the job ran {len(job.clones)} clones ({job.origin}), but the logs of {names} "
            "are missing: its sum would lack them",
            "put every clone's logs beside this one, or check that the JSON or job file "
            "beside them describes this run",
        )
    if job.max_values and job.window_ms:
        clones = {c: {m: p for m, p in f.items() if m in ("iops", "bw")} for c, f in clones.items()}
    if not all(clones.values()):
        raise InputError(
            path,
            "parameters",
            f"the job logged each window's maximum (log_max_value in {job.origin}): its "
            "latency logs hold no mean, and it wrote no iops or bw log",
            "log IOPS or bandwidth too (write_iops_log, write_bw_log), or build from fio's JSON",
        )
    return clones


def _block(path: Path, job: _Job, metrics: set[str]) -> pl.Expr:
    """Each direction's block size, by which an averaged iops log's rate gives bandwidth
    or a bw log's gives IOPS (bs=4k,16k: reads 4K, writes 16K); an error where a direction
    mixes sizes and the logs hold only one of the two."""
    profile = pl.lit(float(job.profile["block_size"]))
    if not job.window_ms or {"iops", "bw"} <= metrics:
        return profile
    if job.sizes is None:
        raise InputError(
            path,
            "parameters",
            "reads and writes use different block-size splits (bssplit), so the "
            f"{'bw' if 'bw' in metrics else 'iops'} log alone gives no "
            f"{'IOPS' if 'bw' in metrics else 'bandwidth'}",
            "log both (write_iops_log and write_bw_log), or build from fio's JSON output",
        )
    read, write = (float(s) if s else None for s in job.sizes)
    return (
        pl.when(pl.col("ddir") == 1).then(pl.lit(write)).otherwise(pl.lit(read)).fill_null(profile)
    )


def _primary(path: Path, files: dict[str, Path], options: ReadOptions) -> Path:
    """The log that reads the job's logs: the first by ``PRIMARY_ORDER`` among those this
    read lists (a user who names only ``NAME_bw.1.log`` gets the job read through it,
    not left to an iops log nobody reads); any of them where the list is unknown."""
    order = [files[m] for m in PRIMARY_ORDER if m in files]
    if options.listed:
        order = [p for p in order if p in options.listed]
    return order[0] if order else path


def _clone_path(path: Path, clone: int) -> Path:
    """The same log of another clone of the job: NAME_iops.2.log -> NAME_iops.CLONE.log."""
    match = LOG_NAME.match(path.name)
    if not match or not clone:
        return path
    return path.with_name(f"{match['prefix']}_{match['metric']}.{clone}.log")


def _lead(path: Path, job: _Job) -> Path:
    """The log that reads all clones of the job: the lowest clone whose log exists."""
    for clone in sorted(job.clones):
        candidate = _clone_path(path, clone)
        if candidate.is_file() and candidate.stat().st_size > 0:
            return candidate
    return path


def _sum_clones(frames: list[pl.DataFrame]) -> pl.DataFrame:
    """Clones of one job run together: per window and direction their I/O rates add up,
    latency is weighted by each clone's IOPS (as fio's own JSON sums them)."""
    counted = pl.col("iops").is_not_null()  # fio's iops and bw logs miss a job's last window
    if len(frames) == 1:
        return frames[0].with_columns(clones=counted.cast(pl.UInt32))
    # a window partial for one clone (it started later: startdelay) is partial
    weight = pl.col("iops").fill_null(0)
    total = weight.filter(pl.col("lat").is_not_null()).sum()
    return (
        pl.concat(frames)
        .group_by("interval", "ddir")
        .agg(
            pl.col("line").min(),
            pl.col("iops").sum(),
            pl.col("bytes_per_s").sum(),
            pl.when(total > 0).then((pl.col("lat") * weight).sum() / total).alias("lat"),
            pl.col("interval_s").first(),
            counted.sum().alias("clones"),
            pl.col("partial").any(),
        )
    )


def _result(
    windows: pl.DataFrame,
    job: _Job,
    options: ReadOptions,
    label: str,
    path: Path,
    clones: dict[int, dict[str, Path]],
) -> ReadResult:
    from pipeline.ingest.base import Reject

    # Without any latency log the windows still carry IOPS and bandwidth (latency empty);
    # with one, a window it does not cover is rejected rather than half-filled; so is a
    # window that not every clone of the job logged (its sum would be too small).
    files = {f"{m}.{c}" if c else m: p for c, f in clones.items() for m, p in f.items()}
    logged = any(m.split(".")[0] in ("lat", "clat") for m in files)
    lat_gap = (pl.col("lat_missing") | pl.col("lat_mean_us").is_null()) if logged else pl.lit(False)
    short = pl.col("clones") < len(clones)
    bad = (pl.col("interval") < 1) | (pl.col("iops").fill_null(0) <= 0) | lat_gap | short
    bad = bad | pl.col("partial")
    rejects = [
        Reject(label, Message.of("where.window", window=r["interval"]), _why(r, len(clones)))
        for r in windows.filter(bad).iter_rows(named=True)
    ]
    rows = (
        windows.filter(~bad)
        .drop("lat_missing", "clones", "partial")
        .with_columns(
            **{k: pl.lit(v) for k, v in job.profile.items()},
            system=pl.lit(options.system),
            setup=pl.lit(options.setup),
            tool=pl.lit("fio"),
            host=pl.lit(_host(path, options)),
            tool_version=pl.lit(job.version),
            source=pl.lit(label),
        )
    )
    sidecars = [p for p in files.values() if p != path]
    sidecars += [job.origin_path] if job.origin_path else []
    notes = _notes(job, files, logged)
    result = ReadResult(
        conform(rows, INTERVAL_FIELDS), rejects, windows.height, notes, label, sidecars=sidecars
    )
    result.run_time = job.run_time
    return result


def _notes(job: _Job, files: dict[str, Path], logged: bool) -> list[str]:
    """What a log's reading rests on: where its parameters came from, the logs read, the
    window, and that latency stays empty without a latency log."""
    notes = [
        f"parameters from {job.origin}; logs read: {', '.join(sorted(files))}",
        f"window {job.window_ms or PER_IO_WINDOW_MS} ms"
        + ("" if job.window_ms else " (per-I/O log, grouped into 1 s windows)"),
    ]
    if job.max_values and job.window_ms:
        notes.append(
            "its latency logs hold each window's maximum (log_max_value), not its mean: left out"
        )
    if not logged:
        notes.append(
            "no lat or clat log beside this one: latency stays empty, and the "
            "latency tables leave these points out"
        )
    return notes


def _why(row: dict[str, Any], clones: int) -> Message:
    if row["interval"] < 1:
        return Message.of("log.time0")
    if not row["clones"]:
        return Message.of("log.no_count")
    if row["clones"] < clones:
        return Message.of("log.clones", n=row["clones"], clones=clones)
    if row["partial"]:
        return Message.of("log.partial")
    if row["iops"] <= 0:
        return Message.of("log.no_io")
    return Message.of("log.no_latency")


def _host(path: Path, options: ReadOptions) -> str:
    """Client/server logs sit in clients/<host>/ (pbench's layout)."""
    if path.parent.parent.name == "clients":
        return path.parent.name
    return options.host


def _empty() -> pl.DataFrame:
    return conform(pl.DataFrame(schema={f.name: f.dtype for f in INTERVAL_FIELDS}), INTERVAL_FIELDS)
