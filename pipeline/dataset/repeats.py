"""One point measured in more than one run, and one run read in more than one view.

A run is one execution of the tool. Its files are views of it: a fio JSON and the interval
logs of the same job (their reader took the job's options from that JSON, a sidecar)
describe the same I/Os. Within a run a host's point is read once: the rows of the view
the others were read with (the JSON, ``accounts``), else of the first listed view, are
kept, the others' rejected ("read twice").

A point (of one host) measured in several runs is a repeat, resolved by report.toml
``repeats`` (docs/report.md):

- ``refuse`` (the default): the build stops, naming the point and every file of it;
- ``newest``: the most recent run is kept and the others' rows are rejected. Most recent:
  by the time the run's files state (``ReadResult.run_time``: fio's ``timestamp_ms``,
  DiskSpd's start time, …) where every run of the point states one (of equal ones, the
  run listed last), else the run listed last (report.toml's order, a glob's in sorted
  order), its rejects saying so rather than calling the others older;
- ``mean``: every run is kept, its intervals numbered after the earlier run's, so that the
  point averages the runs as it averages intervals (IOPS and bytes/s by time, latency by
  I/Os).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import polars as pl

from pipeline.config import Repeats
from pipeline.ingest.base import ReadResult, Reject, latest
from pipeline.language.message import Message
from pipeline.schema import POINT_KEY

RUN = "_run"  # the column naming each row's run: the first listed file of its views
KEY = [*POINT_KEY, "_host"]  # a host's point ("_host": its name with its port resolved)


@dataclass(frozen=True)
class Repeat:
    """A host's point measured in several runs: the file of each that gave the point,
    oldest run first."""

    point: dict[str, Any]  # the POINT_KEY columns
    host: str
    runs: tuple[str, ...]
    by_time: bool  # ordered by the times the files state (else in the order listed)


def runs(results: Sequence[ReadResult]) -> dict[str, str]:
    """Each file's run, as the first listed file of the views of that run: a file and
    every source its reader read beside it (a log's JSON) are one run."""
    order = {r.source: i for i, r in reversed(list(enumerate(results)))}
    if not any(r.sidecars for r in results):
        return {source: source for source in order}
    by_path = {r.path.resolve(): r.source for r in results if r.path is not None}
    parent = {source: source for source in order}

    def root(source: str) -> str:
        while parent[source] != source:
            source = parent[source]
        return source

    for result in results:
        for side in result.sidecars:
            other = by_path.get(side.resolve())
            if other is not None:
                a, b = sorted((root(result.source), root(other)), key=order.__getitem__)
                parent[b] = a
    return {source: root(source) for source in order}


def accounts(results: Sequence[ReadResult]) -> set[str]:
    """The files that another view of their run was read with (the fio JSON a log's
    reader took the job from): the run's own account, whose rows are kept over the other
    views' wherever they are listed (fio's final record, not the logs' windows, which miss
    a job's last partial window)."""
    read_with = {side.resolve() for r in results for side in r.sidecars}
    if not read_with:
        return set()
    return {r.source for r in results if r.path is not None and r.path.resolve() in read_with}


Stamp = Callable[[str], "int | None"]  # a file -> when its run ran (ms since the epoch), if known


def stamps(results: Sequence[ReadResult], run_of: dict[str, str]) -> Stamp:
    """When a file's run ran, as its files state it (``ReadResult.run_time``: fio's time
    stamp, DiskSpd's start time, …; the latest of the run's files); None where none does."""
    known: dict[str, int | None] = {}
    for result in results:
        run = run_of.get(result.source, result.source)
        known[run] = latest([known.get(run), result.run_time])
    return lambda source: known.get(run_of.get(source, source))


def find(intervals: pl.DataFrame, stamp: Stamp | None = None) -> list[Repeat]:
    """Every host's point measured in several runs (``intervals`` in file order, with
    ``_host``, each run's point read from one file), its runs oldest first: by ``stamp``
    (the times the files state) where every run of the point has one, else in the order listed
    (the order alone without ``stamp``)."""
    grouped = intervals.group_by(KEY, maintain_order=True).agg(
        pl.col("source").unique(maintain_order=True).alias("runs")
    )
    found = []
    for row in grouped.filter(pl.col("runs").list.len() > 1).iter_rows(named=True):
        listed: list[str] = row["runs"]
        when = {run: (stamp(run) if stamp else None, i) for i, run in enumerate(listed)}
        by_time = all(time is not None for time, _ in when.values())
        ordered = sorted(listed, key=lambda run: (when[run][0] or 0, when[run][1]))
        ordered = ordered if by_time else listed
        point = {k: row[k] for k in POINT_KEY}
        found.append(Repeat(point, str(row["_host"]), tuple(ordered), by_time))
    return found


def _marked(intervals: pl.DataFrame, found: list[Repeat]) -> pl.DataFrame:
    """The intervals with the rank of their run among the point's runs (0 the oldest) and
    whether it is the newest; both empty where the point was measured once."""
    rows = [
        {**r.point, "_host": r.host, "source": run, "_rank": i, "_newest": i == len(r.runs) - 1}
        for r in found
        for i, run in enumerate(r.runs)
    ]
    schema = pl.Schema({k: intervals.schema[k] for k in (*KEY, "source")})
    schema |= {"_rank": pl.Int64(), "_newest": pl.Boolean()}
    ranks = pl.DataFrame(rows, schema=schema)
    return intervals.join(ranks, on=[*KEY, "source"], how="left", nulls_equal=True)


def newest(intervals: pl.DataFrame, found: list[Repeat]) -> tuple[pl.DataFrame, list[Reject]]:
    """Keep each repeated point's newest run; the older runs' rows are rejected."""
    if not found:
        return intervals, []
    marked = _marked(intervals, found)
    kept = {(tuple(r.point.values()), r.host): r for r in found}
    older = pl.col("_newest").not_()  # null (not repeated) is kept
    rejects = [
        Reject(
            row["source"],
            Message.of("where.line", line=row["line"]),
            _older(kept[(tuple(row[k] for k in POINT_KEY), row["_host"])]),
        )
        for row in marked.filter(older.fill_null(False)).iter_rows(named=True)
    ]
    return marked.filter(~older.fill_null(False)).drop("_rank", "_newest"), rejects


def _older(repeat: Repeat) -> Message:
    if repeat.by_time:
        return Message.of("repeat_older_time", newest=repeat.runs[-1])
    return Message.of("repeat_older_listed", newest=repeat.runs[-1])


def mean(intervals: pl.DataFrame, found: list[Repeat]) -> pl.DataFrame:
    """Every run of a repeated point kept: the n-th run's intervals numbered after the
    point's last interval times n, so that they are further intervals of the point."""
    if not found:
        return intervals
    marked = _marked(intervals, found)
    stride = pl.col("interval").max().over(list(POINT_KEY))
    shifted = pl.col("interval") + pl.col("_rank").fill_null(0) * stride
    return marked.with_columns(shifted.alias("interval")).drop("_rank", "_newest")


def uneven(intervals: pl.DataFrame) -> list[dict[str, Any]]:
    """The points whose hosts were measured in different numbers of runs: their mean
    would sum some hosts' runs with nothing (``mean`` refuses them)."""
    counts = intervals.group_by(KEY).agg(pl.col(RUN).n_unique().alias("n"))
    per_point = counts.group_by(list(POINT_KEY)).agg(pl.col("n").n_unique().alias("kinds"))
    return list(per_point.filter(pl.col("kinds") > 1).drop("kinds").iter_rows(named=True))


def apply(
    intervals: pl.DataFrame, rule: Repeats, found: list[Repeat]
) -> tuple[pl.DataFrame, list[Reject]]:
    """The intervals after ``rule`` (``refuse`` is the caller's error)."""
    if rule == "newest":
        return newest(intervals, found)
    if rule == "mean":
        return mean(intervals, found), []
    return intervals, []
