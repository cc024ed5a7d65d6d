"""A point's hosts are summed interval by interval (``normalise.to_points``): each host
must have each interval, and the hosts' intervals must be of one length. A host read from
fio's JSON (one interval, the whole 15 s run) beside a host read from its 1 s logs added
a whole run's rate to the first second of the other's (16 % too many IOPS on pbench's
client/server sample); an interval only some hosts have sums too few."""

from __future__ import annotations

import polars as pl

from pipeline.dataset.repeats import RUN
from pipeline.errors import InputError
from pipeline.ingest.base import Reject
from pipeline.language.message import Message
from pipeline.schema import POINT_KEY

# a host's intervals (their median) at most this many times as long as another host's of
# the same point: fio's status snapshots of two hosts differ by milliseconds; 1 s windows
# beside 0.5 s ones would add a host's second k to the other's half second k
LENGTH_RATIO = 1.25
HOST = "_host"  # the host as the dataset compares them (``assemble._read_twice``)


def aligned(intervals: pl.DataFrame) -> tuple[pl.DataFrame, list[Reject]]:
    """The intervals every host of their point has, the rows of the others rejected; an
    error where a point's hosts' intervals differ in length (``LENGTH_RATIO``)."""
    if intervals[HOST].n_unique() <= 1:  # most campaigns: nothing to align, no query
        return intervals, []
    hosts = pl.col(HOST).n_unique()
    marked = intervals.with_columns(pl.struct(*POINT_KEY).rank("dense").alias("_point"))
    marked = marked.with_columns(
        hosts.over(["_point", "interval"]).alias("_there"), hosts.over("_point").alias("_hosts")
    )
    _same_lengths(marked)
    short = pl.col("_there") < pl.col("_hosts")
    rejects = [
        Reject(
            str(r["source"]),
            Message.of("where.line", line=r["line"]),
            Message.of("hosts_missing", n=r["_there"], hosts=r["_hosts"], interval=r["interval"]),
        )
        for r in marked.filter(short)
        .select("source", "line", "interval", "_there", "_hosts")
        .iter_rows(named=True)
    ]
    return marked.filter(~short).drop("_point", "_there", "_hosts"), rejects


def _same_lengths(marked: pl.DataFrame) -> None:
    """Refused: a point whose hosts' intervals (their median) differ in length beyond
    ``LENGTH_RATIO``, named by the file of its longest and of its shortest intervals."""
    # hosts of one interval per run each (fio's JSON of each; under repeats = "mean" one
    # per run) add their whole runs' rates, however long each ran
    per_run = pl.len().over("_point", HOST, RUN) if RUN in marked.columns else pl.len()
    windowed = marked.filter(per_run.max().over("_point") > 1)
    per_host = windowed.group_by("_point", HOST).agg(
        pl.col("interval_s").median().alias("length"),
        pl.col("source").first(),
        pl.col("line").cast(pl.Int64).min(),
    )
    ends = (
        per_host.sort("length")
        .group_by("_point")
        .agg(pl.all().first().name.suffix("_short"), pl.all().last().name.suffix("_long"))
    )
    bad = ends.filter(pl.col("length_long") > LENGTH_RATIO * pl.col("length_short"))
    if bad.is_empty():
        return
    row = bad.sort("_point").row(0, named=True)
    raise InputError(
        row["source_long"],
        f"line {row['line_long']}",
        f"host {row['_host_long']}'s intervals last {row['length_long']:g} s, host "
        f"{row['_host_short']}'s ({row['source_short']}) {row['length_short']:g} s, in one "
        "point: their figures cannot be added interval by interval",
        "read every host of a point from the same kind of file: fio's JSON for all, or "
        "the logs of all with one log_avg_msec",
    )
