"""The dataset schema: one declarative table per level.

Every column is described once — name, dtype, unit, range check and the locale key of
its label. The polars schema, the range checks, table headers and axis titles all come
from here.

Schema history (bump SCHEMA_VERSION and note the change here):
  1 — 2026-11-21: first version (intervals and points levels).
  2 — 2026-11-21: queue_depth and the nullable target_iops (a requested rate, e.g.
      vdbench iorate=, fio rate_iops=) join the point key; nullable tool_version,
      per-direction read/write IOPS and bytes/s, lat_max_us and latency percentiles.
  3 — 2026-11-25: nullable attributes of a point, not of its key: block_split (fio
      bssplit, "4K/8K/64K 50/30/20"; block_size is then the split's mean), compress_pct
      and dedupe_pct (fio buffer_compress_percentage, dedupe_percentage).
  4 — 2026-11-25: the nullable profile (a named workload mix: Iometer's "File Server",
      report.toml [[profiles]]) joins the point key; empty for a profile known by its
      block size, access and read share alone.
  5 — 2026-11-29: the nullable percentile_of: what the latency percentiles are of, "lat"
      (the service time, as lat_mean_us) or "clat" (fio's completion latency, without
      the submission latency: fio's default), empty without percentiles.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from dataclasses import dataclass
from typing import get_args

import polars as pl

from pipeline.inputs import CONTROL
from pipeline.units import Access

SCHEMA_VERSION = 5
# the versions a dataset may have to be read: 2 lacks the nullable attributes of 3, 3 the
# profile name of 4 (empty), 4 what its percentiles are of (empty: not known)
READABLE_VERSIONS = ("2", "3", "4", "5")
METADATA_KEY = "iopress.schema_version"

Check = Callable[[pl.Expr], pl.Expr]


def _positive(e: pl.Expr) -> pl.Expr:
    return e > 0


def _non_negative(e: pl.Expr) -> pl.Expr:
    return e >= 0


def _percent(e: pl.Expr) -> pl.Expr:
    return (e >= 0) & (e <= 100)


def _access(e: pl.Expr) -> pl.Expr:
    return e.is_in(list(get_args(Access)))


LATENCY_KINDS = ("lat", "clat")  # percentile_of: fio's names of the two


def _latency_kind(e: pl.Expr) -> pl.Expr:
    return e.is_in(list(LATENCY_KINDS))


MAX_NAME = 256  # characters of a name taken from data (a host name has at most 253)


def _plain(e: pl.Expr) -> pl.Expr:
    """No control character (``inputs.CONTROL``) and at most ``MAX_NAME`` characters: a
    name taken from data, printed in tables, captions and the PDF's metadata."""
    return ~e.str.contains(CONTROL) & (e.str.len_chars() <= MAX_NAME)


@dataclass(frozen=True)
class Field:
    name: str
    dtype: type[pl.DataType] | pl.DataType
    unit: str
    label: str
    check: Check | None = None
    nullable: bool = False


_KEY = [
    Field("system", pl.String, "", "field.system", _plain),
    Field("setup", pl.String, "", "field.setup", _plain),
    Field("tool", pl.String, "", "field.tool", _plain),
    Field("access", pl.String, "", "field.access", _access),
    Field("read_pct", pl.Float64, "%", "field.read_pct", _percent),
    Field("block_size", pl.Int64, "B", "field.block_size", _positive),
    Field("parallelism", pl.Int64, "workers/host", "field.parallelism", _positive),
    Field("queue_depth", pl.Int64, "I/Os/worker", "field.queue_depth", _positive),
    Field("target_iops", pl.Float64, "IOPS", "field.target_iops", _positive, True),
    # a named workload mix ("File Server", "Database"): shown by its name
    Field("profile", pl.String, "", "field.profile", _plain, True),
]

# what a point's data was, besides its key: one value per point (normalise checks), empty
# where the tool does not say
_ATTRIBUTES = [
    Field("block_split", pl.String, "", "field.block_split", _plain, True),
    Field("compress_pct", pl.Float64, "%", "field.compress_pct", _percent, True),
    Field("dedupe_pct", pl.Float64, "%", "field.dedupe_pct", _percent, True),
]
ATTRIBUTES: tuple[str, ...] = tuple(f.name for f in _ATTRIBUTES)

_MEASURES = [
    Field("iops", pl.Float64, "IOPS", "field.iops", _non_negative),
    Field("bytes_per_s", pl.Float64, "B/s", "field.bytes_per_s", _non_negative),
    *(
        Field(f"{d}_{m}", pl.Float64, u, f"field.{d}_{m}", _non_negative, True)
        for d in ("read", "write")
        for m, u in (("iops", "IOPS"), ("bytes_per_s", "B/s"))
    ),
    # empty only where the tool logged no latency (fio bw/iops logs alone)
    Field("lat_mean_us", pl.Float64, "µs", "field.lat_mean_us", _positive, True),
    Field("read_lat_mean_us", pl.Float64, "µs", "field.read_lat_mean_us", _positive, True),
    Field("write_lat_mean_us", pl.Float64, "µs", "field.write_lat_mean_us", _positive, True),
    Field("cpu_pct", pl.Float64, "%", "field.cpu_pct", _percent, True),
    Field("lat_max_us", pl.Float64, "µs", "field.lat_max_us", _positive, True),
    *(
        Field(f"lat_{p}_us", pl.Float64, "µs", f"field.lat_{p}_us", _positive, True)
        for p in ("p50", "p90", "p99", "p999", "p9999")
    ),
    # what the percentiles are of: the service time ("lat", as lat_mean_us) or fio's
    # completion latency ("clat": without the submission latency, fio's default)
    Field("percentile_of", pl.String, "", "field.percentile_of", _latency_kind, True),
]

PERCENTILES: dict[str, float] = {
    "p50": 50.0,
    "p90": 90.0,
    "p99": 99.0,
    "p999": 99.9,
    "p9999": 99.99,
}

INTERVAL_FIELDS: tuple[Field, ...] = (
    *_KEY,
    *_ATTRIBUTES,
    Field("host", pl.String, "", "field.host", _plain),
    Field("interval", pl.Int64, "", "field.interval", _positive),
    Field("interval_s", pl.Float64, "s", "field.interval_s", _positive),
    *_MEASURES,
    Field("tool_version", pl.String, "", "field.tool_version", _plain, True),
    Field("source", pl.String, "", "field.source"),
    Field("line", pl.Int64, "", "field.line", _positive),
)

POINT_FIELDS: tuple[Field, ...] = (
    *_KEY,
    *_ATTRIBUTES,
    Field("hosts", pl.Int64, "", "field.hosts", _positive),
    *_MEASURES,
    Field("intervals", pl.Int64, "", "field.intervals", _positive),
    Field("iops_min", pl.Float64, "IOPS", "field.iops_min", _non_negative),
    Field("iops_max", pl.Float64, "IOPS", "field.iops_max", _non_negative),
    Field("iops_dev_pct", pl.Float64, "%", "field.iops_dev_pct", _non_negative),
    Field("tool_version", pl.String, "", "field.tool_version", _plain, True),
    Field("source", pl.String, "", "field.source"),
)

POINT_KEY: tuple[str, ...] = tuple(f.name for f in _KEY)


def polars_schema(fields: tuple[Field, ...]) -> pl.Schema:
    return pl.Schema({f.name: f.dtype for f in fields})


def field(name: str, fields: tuple[Field, ...] = POINT_FIELDS) -> Field:
    for f in fields:
        if f.name == name:
            return f
    raise KeyError(name)


def conform(df: pl.DataFrame, fields: tuple[Field, ...]) -> pl.DataFrame:
    """Select and cast the schema's columns in schema order; absent nullable ones are null."""
    return df.select(conformed(fields, frozenset(df.columns)))


@functools.lru_cache(maxsize=64)
def conformed(fields: tuple[Field, ...], columns: frozenset[str]) -> tuple[pl.Expr, ...]:
    """``conform``'s expressions for a frame of ``columns``: built once for each."""
    return tuple(
        (pl.col(f.name) if f.name in columns or not f.nullable else pl.lit(None))
        .cast(f.dtype)
        .alias(f.name)
        for f in fields
    )


def violations(df: pl.DataFrame, fields: tuple[Field, ...]) -> pl.DataFrame:
    """One row per (row index, column) whose value breaks its field's check or nullability,
    by row, then in the order of ``fields`` (one query: a check each is 3 collects)."""
    if not fields:
        return pl.DataFrame()
    if not any(df.select(_any_broken(fields)).row(0)):  # the common case: one pass
        return pl.DataFrame(schema={"_row": pl.UInt32, "column": pl.String, "value": pl.String})
    indexed = df.lazy().with_row_index("_row")
    hits = [
        indexed.filter(_broken(f)).select(
            pl.col("_row"),
            pl.lit(f.name).alias("column"),
            pl.col(f.name).cast(pl.String).alias("value"),
        )
        for f in fields
    ]
    return pl.concat(hits).sort("_row", maintain_order=True).collect()


@functools.cache
def _any_broken(fields: tuple[Field, ...]) -> list[pl.Expr]:
    """Per field, whether any row breaks it: built once (building the expressions costs
    more than running them over a few thousand rows)."""
    return [_broken(f).any().alias(f.name) for f in fields]


LARGEST = 1e15  # a figure beyond is a typing error or an overflow (infinity, 1e308)


def _broken(f: Field) -> pl.Expr:
    bad = pl.col(f.name).is_null() if not f.nullable else pl.lit(False)
    if f.check is not None:
        bad = bad | ~f.check(pl.col(f.name)).fill_null(True)
    if f.dtype == pl.Float64:  # every reader's figures, as fio's reader checks its own
        sane = pl.col(f.name).is_finite() & (pl.col(f.name).abs() <= LARGEST)
        bad = bad | ~sane.fill_null(True)
    return bad
