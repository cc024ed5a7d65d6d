"""Intervals -> points.

Per interval, hosts are summed: IOPS and bytes/s add up, latency is the I/O-weighted mean
(read and write latency weighted by read and write I/Os). Then the intervals of a point
are combined as totals over the run: IOPS and bytes/s weighted by interval length (all
I/Os over all time), latency weighted by I/Os — the same averages vdbench prints as
``avg_2-60`` — with the minimum, maximum and largest relative deviation of the IOPS.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any

import polars as pl

from pipeline.errors import InputError
from pipeline.schema import (
    ATTRIBUTES,
    INTERVAL_FIELDS,
    PERCENTILES,
    POINT_FIELDS,
    POINT_KEY,
    conform,
    conformed,
)


def _weighted(value: str, weight: pl.Expr) -> pl.Expr:
    """I/O-weighted mean that ignores rows without a value (e.g. no writes at 100 % read)."""
    w = pl.when(pl.col(value).is_not_null()).then(weight).otherwise(0.0)
    total = w.sum()
    return pl.when(total > 0).then((pl.col(value).fill_null(0.0) * w).sum() / total)


DIRECTIONAL = ("read_iops", "write_iops", "read_bytes_per_s", "write_bytes_per_s")


def _sum_or_null(name: str) -> pl.Expr:
    """Hosts add up; an interval where no host reported the value stays empty."""
    return pl.when(pl.col(name).is_not_null().any()).then(pl.col(name).sum()).alias(name)


def _upper_bounds() -> list[pl.Expr]:
    """Maximum and percentiles cannot be combined exactly from summaries: keep the largest
    (an upper bound; exact when one record makes the point, e.g. fio group_reporting);
    percentiles of fio's completion latency where any record's are (``_percentile_of``)."""
    names = ["lat_max_us", *(f"lat_{p}_us" for p in PERCENTILES)]
    return [*(pl.col(n).max() for n in names), _percentile_of()]


def _percentile_of() -> pl.Expr:
    """What the percentiles of several records are of: "clat" where any record's are
    (the lesser claim), else theirs."""
    of = pl.col("percentile_of")
    clat = pl.when((of == "clat").any()).then(pl.lit("clat"))
    return clat.otherwise(of.drop_nulls().first()).alias("percentile_of")


@functools.cache
def _interval_sums() -> tuple[pl.Expr, ...]:
    """The hosts of each interval of a point summed: built once (building them costs more
    than running them over a few thousand rows). Tool versions and sources stay lists
    until the point joins them (``_point_means``): joined here, an interval without one
    host's file would list the other files twice."""
    ios = pl.col("iops") * pl.col("interval_s")
    reads = _measured_ios("read_iops", ios * pl.col("read_pct") / 100)
    writes = _measured_ios("write_iops", ios * (100 - pl.col("read_pct")) / 100)
    return (
        pl.col("iops").sum(),
        pl.col("bytes_per_s").sum(),
        *(_sum_or_null(c) for c in DIRECTIONAL),
        _weighted("lat_mean_us", ios).alias("lat_mean_us"),
        _weighted("read_lat_mean_us", reads).alias("read_lat_mean_us"),
        _weighted("write_lat_mean_us", writes).alias("write_lat_mean_us"),
        pl.col("cpu_pct").mean(),
        *_upper_bounds(),
        pl.col("tool_version").drop_nulls().unique(),
        *_attributes(),
        pl.col("interval_s").max(),
        ios.sum().alias("ios"),
        reads.sum().alias("reads"),
        writes.sum().alias("writes"),
        pl.col("host").n_unique().alias("hosts"),
        pl.col("source").unique().alias("source"),
    )


def _measured_ios(rate: str, planned: pl.Expr) -> pl.Expr:
    """A direction's I/Os in the interval, which weigh its latency: as measured where the
    tool gave the direction's rate (vdbench's observed read%, fio's sides), else as the
    mix asked for (``planned``): a 75 % read point that read 74 % weighs as it ran."""
    return (
        pl.when(pl.col(rate).is_not_null())
        .then(pl.col(rate) * pl.col("interval_s"))
        .otherwise(planned)
    )


def _attributes() -> list[pl.Expr]:
    """A point's block-size split and compressibility: one value (``check_attributes``)."""
    return [pl.col(a).drop_nulls().first() for a in ATTRIBUTES]


def check_attributes(intervals: pl.DataFrame) -> None:
    """One point, one kind of data: records of a point that differ in their block-size
    split or compressibility (fio runs of 1:1 and 2:1 data under one setup) would be
    averaged into one point; an input error names the point and its files."""
    if intervals.is_empty():
        return
    conformed = conform(intervals, INTERVAL_FIELDS)
    varied = _varied(conformed)
    for name, check in _CHECKS:
        if name in varied:
            check(intervals)
    if not varied.intersection(ATTRIBUTES):
        return
    mixed = (
        conformed.group_by(list(POINT_KEY))
        .agg(
            *(pl.col(a).cast(pl.String).unique().sort(nulls_last=True) for a in ATTRIBUTES),
            pl.col("source").unique().sort(),
        )
        .filter(pl.any_horizontal(pl.col(a).list.len() > 1 for a in ATTRIBUTES))
    )
    if not mixed.is_empty():
        raise _mixed(mixed.row(0, named=True))


def _varied(conformed: pl.DataFrame) -> set[str]:
    """The columns that the checks of ``check_attributes`` group, among those that hold
    more than one value in the whole frame (an empty one counts, attributes compared as
    their text): where a column holds one value, no group of rows holds two, and its check
    cannot fail. One query, usually all the checks there are."""
    names = {*(c for c, _ in _CHECKS), *ATTRIBUTES}
    counts = conformed.select(pl.col(c).cast(pl.String).n_unique() for c in sorted(names))
    return {c for c, n in counts.row(0, named=True).items() if n > 1}


def _check_split_sizes(intervals: pl.DataFrame) -> None:
    """A split is known by its mean size in the tables (``block_size``): two profiles of
    one mean size, a split and a fixed size or two splits, would be one row."""
    if "block_split" not in intervals.columns:
        return
    shared = (
        intervals.group_by("block_size")
        .agg(pl.col("block_split").unique().sort(nulls_last=True), pl.col("source").unique())
        .filter(pl.col("block_split").list.len() > 1)
    )
    if shared.is_empty():
        return
    row = shared.row(0, named=True)
    names = " and ".join("a fixed size" if n is None else repr(n) for n in row["block_split"])
    raise InputError(
        ", ".join(sorted(row["source"])),
        f"block size {row['block_size']} B",
        f"{names} have one block size (a split's is its mean): the tables would make them one",
        "change a split's shares (bssplit) so that its mean block size differs",
    )


def _check_profile_names(intervals: pl.DataFrame) -> None:
    """A profile is one row of the tables by its access, block size and read share, shown
    by its name where it has one: two names there (or a name and none) would be one row."""
    if "profile" not in intervals.columns:
        return
    shared = (
        intervals.group_by("access", "block_size", "read_pct")
        .agg(pl.col("profile").unique().sort(nulls_last=True), pl.col("source").unique())
        .filter(pl.col("profile").list.len() > 1)
        .sort("access", "block_size", "read_pct")
    )
    if shared.is_empty():
        return
    row = shared.row(0, named=True)
    names = " and ".join("no name" if n is None else repr(n) for n in row["profile"])
    raise InputError(
        ", ".join(sorted(row["source"])),
        f"{row['access']} {row['block_size']} B {row['read_pct']:g} % read",
        f"{names} are one profile (access, block size and read share): the tables would "
        "make them one row",
        "name the profile once in report.toml ([[profiles]] name = ...), or give the "
        "workload mixes different figures",
    )


PROFILE = ("setup", "queue_depth", "access", "block_size", "read_pct")  # a row of the tables


def _check_one_tool(intervals: pl.DataFrame) -> None:
    """The tables and charts know a profile by its setup, queue depth, access, block size
    and read share, not by its tool: two tools' points there would be one curve."""
    both = (
        intervals.group_by(PROFILE)
        .agg(pl.struct("tool", "source").unique().sort().alias("by"))
        .filter(
            pl.col("by").list.eval(pl.element().struct.field("tool").n_unique()).list.first() > 1
        )
        .sort(PROFILE)
    )
    if both.is_empty():
        return
    row = both.row(0, named=True)
    tools: dict[str, list[str]] = {}
    for found in row["by"]:
        tools.setdefault(found["tool"], []).append(found["source"])
    said = " and ".join(f"{t} ({', '.join(sorted(s))})" for t, s in sorted(tools.items()))
    raise InputError(
        ", ".join(sorted({s for found in tools.values() for s in found})),
        f"setup {row['setup']!r}: {row['access']} {row['block_size']} B "
        f"{row['read_pct']:g} % read, queue depth {row['queue_depth']}",
        f"measured by {said}: the tables and charts would mix the tools' points in one profile",
        "give each tool's files a setup of their own (report.toml [[sources]] setup = ...)",
    )


# the column each check groups by its own key, in the order they are made
_CHECKS: tuple[tuple[str, Callable[[pl.DataFrame], None]], ...] = (
    ("block_split", _check_split_sizes),
    ("profile", _check_profile_names),
    ("tool", _check_one_tool),
)


def _mixed(row: dict[str, Any]) -> InputError:
    point = ", ".join(f"{k}={row[k]}" for k in POINT_KEY if row[k] is not None)
    what = "; ".join(
        f"{a}: {' and '.join('none' if v is None else str(v) for v in row[a])}"
        for a in ATTRIBUTES
        if len(row[a]) > 1
    )
    return InputError(
        ", ".join(row["source"]),
        point,
        f"the records of one point differ in {what}",
        "give each kind of data its own setup (report.toml [[sources]] setup = ...)",
    )


SHORT_ROUND = 0.5  # an interval shorter than this share of the point's median is a remainder


def full_round(over: list[str] | None = None) -> pl.Expr:
    """True for an interval that is a full round: fio's short last status snapshot (a
    remainder of the run, its rate from a handful of I/Os) is not. ``over``: the point's
    key, where the frame holds many points."""
    median = pl.col("interval_s").median()
    return pl.col("interval_s") >= SHORT_ROUND * (median.over(over) if over else median)


def to_points(intervals: pl.DataFrame, finals: pl.DataFrame | None = None) -> pl.DataFrame:
    """The points level: one row per system × setup × tool × profile × parallelism.
    ``finals``: fio's final records beside its --status-interval snapshots (whole-run
    percentiles)."""
    points = _points(intervals)
    return points if finals is None or finals.is_empty() else _whole_run(points, intervals, finals)


_PERCENTILE_COLUMNS = [f"lat_{p}_us" for p in PERCENTILES]


def _whole_run(points: pl.DataFrame, intervals: pl.DataFrame, finals: pl.DataFrame) -> pl.DataFrame:
    """Percentiles cannot be taken from differences of snapshots: where a point has none,
    those of fio's final records of its own files and hosts (the whole run: exact for one
    record, e.g. group_reporting; else the largest, an upper bound)."""
    key = [*POINT_KEY, "host", "source"]
    own = finals.join(intervals.select(key).unique(), on=key, how="semi", nulls_equal=True)
    found = own.group_by(list(POINT_KEY)).agg(
        *(pl.col(n).max() for n in _PERCENTILE_COLUMNS), _percentile_of()
    )
    missing = pl.all_horizontal(pl.col(n).is_null() for n in _PERCENTILE_COLUMNS)
    joined = points.join(found, on=list(POINT_KEY), how="left", suffix="_run", nulls_equal=True)
    return joined.with_columns(
        pl.when(missing).then(pl.col(f"{n}_run")).otherwise(pl.col(n)).alias(n)
        for n in (*_PERCENTILE_COLUMNS, "percentile_of")
    ).select(points.columns)


def _points(intervals: pl.DataFrame) -> pl.DataFrame:
    if intervals.is_empty():
        return conform(pl.DataFrame(schema={f.name: f.dtype for f in POINT_FIELDS}), POINT_FIELDS)
    # sorted: the sums below then add in the same order every run (same bits every
    # build). Two queries: as one, the optimiser drops a sort before a group_by.
    summed = (
        intervals.lazy()
        .select(conformed(INTERVAL_FIELDS, frozenset(intervals.columns)))
        .group_by([*POINT_KEY, "interval"])
        .agg(*_interval_sums())
        .sort([*POINT_KEY, "interval"])
        .collect()
    )
    points = summed.group_by(list(POINT_KEY)).agg(*_point_means()).with_columns(_spread())
    return points.select(conformed(POINT_FIELDS, _POINT_NAMES)).sort(list(POINT_KEY))


_POINT_NAMES = frozenset(f.name for f in POINT_FIELDS)


@functools.cache
def _point_means() -> tuple[pl.Expr, ...]:
    """A point's figures from its intervals' sums (``_interval_sums``): built once."""
    seconds = pl.col("interval_s")
    mean = (pl.col("iops") * seconds).sum() / seconds.sum()
    # the spread leaves out fio's short last status snapshot (a remainder of the run, its
    # rate from a handful of I/Os); the mean weighs it by its length
    full = pl.col("iops").filter(full_round())
    return (
        mean.alias("iops"),
        ((pl.col("bytes_per_s") * seconds).sum() / seconds.sum()).alias("bytes_per_s"),
        *(_directional(c, seconds) for c in DIRECTIONAL),
        _weighted("lat_mean_us", pl.col("ios")).alias("lat_mean_us"),
        _weighted("read_lat_mean_us", pl.col("reads")).alias("read_lat_mean_us"),
        _weighted("write_lat_mean_us", pl.col("writes")).alias("write_lat_mean_us"),
        # by time, like the rates: fio's few-ms remainder after its last snapshot weighs
        # as little as it lasted
        _weighted("cpu_pct", seconds).alias("cpu_pct"),
        *_upper_bounds(),
        _joined("tool_version"),
        *_attributes(),
        pl.col("hosts").max(),
        pl.len().alias("intervals"),
        full.min().alias("iops_min"),
        full.max().alias("iops_max"),
        _joined("source"),
    )


@functools.cache
def _spread() -> pl.Expr:
    """A point's spread of IOPS from its mean, minimum and maximum (``_point_means``):
    the same operations on the same values as inside the aggregation, where each use of
    the full rounds' minimum or maximum would find the rounds anew (a median per point)."""
    mean, low, high = pl.col("iops"), pl.col("iops_min"), pl.col("iops_max")
    dev = pl.max_horizontal(high - mean, mean - low)
    return pl.when(mean > 0).then(dev / mean * 100).otherwise(0.0).alias("iops_dev_pct")


def _directional(name: str, seconds: pl.Expr) -> pl.Expr:
    """One direction's rate by time over the intervals that give it; none where none
    does (0 / 0 gave NaN: every IOgen point's read_iops, which prints no direction)."""
    timed = seconds.filter(pl.col(name).is_not_null()).sum()
    return pl.when(timed > 0).then((pl.col(name) * seconds).sum() / timed).alias(name)


def _joined(name: str) -> pl.Expr:
    """The distinct values of the intervals' lists, sorted, as one text."""
    found = pl.col(name).list.explode(keep_nulls=False, empty_as_null=False)
    return found.unique().sort().str.join(", ").alias(name)
