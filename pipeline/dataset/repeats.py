"""One point measured in more than one run, and one run read in more than one view.

A run is one execution of the tool. Its files are views of it: a fio JSON and the interval
logs of the same job (their reader took the job's options from that JSON, a sidecar)
describe the same I/Os. Within a run a host's point is read once: the first listed
view's rows are kept, the others' rejected ("read twice").

A point (of one host) measured in several runs is a repeat, resolved by report.toml
``repeats`` (docs/report.md):

- ``refuse`` (the default): the build stops, naming the point and every file of it;
- ``newest``: the most recent run is kept and the others' rows are rejected. Most recent:
  by fio's time stamp (``timestamp_ms`` of a run's JSON, or of the JSON beside its logs)
  where every run of the point has one (of equal ones, the run listed last), else the run
  listed last (report.toml's order, a glob's in sorted order);
- ``mean``: every run is kept, its intervals numbered after the earlier run's, so that the
  point averages the runs as it averages intervals (IOPS and bytes/s by time, latency by
  I/Os).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import polars as pl

from pipeline.config import Repeats
from pipeline.errors import InputError
from pipeline.ingest import fio
from pipeline.ingest.base import ReadResult, Reject
from pipeline.inputs import read_text
from pipeline.language.message import Message
from pipeline.schema import POINT_KEY
from pipeline.units import convert_time

RUN = "_run"  # the column naming each row's run: the first listed file of its views
KEY = [*POINT_KEY, "_host"]  # a host's point ("_host": its name with its port resolved)


@dataclass(frozen=True)
class Repeat:
    """A host's point measured in several runs: the file of each that gave the point,
    oldest run first."""

    point: dict[str, Any]  # the POINT_KEY columns
    host: str
    runs: tuple[str, ...]
    by_time: bool  # ordered by fio's time stamps (else in the order listed)


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


Stamp = Callable[[str], "int | None"]  # a file -> its run's fio time stamp (ms), if any


def stamps(results: Sequence[ReadResult], run_of: dict[str, str]) -> Stamp:
    """The fio time stamp of a file's run (ms since the epoch, when the run ended): the
    latest of its files', each its own as a fio JSON or that of the fio JSON its reader
    read beside it; None where no file of the run has one. Read when first asked for."""
    files: dict[str, list[ReadResult]] = {}
    for result in results:
        files.setdefault(run_of.get(result.source, result.source), []).append(result)
    known: dict[str, int | None] = {}

    def stamp(source: str) -> int | None:
        run = run_of.get(source, source)
        if run not in known:
            found = [s for r in files.get(run, []) if (s := _stamp(_json_views(r))) is not None]
            known[run] = max(found, default=None)
        return known[run]

    return stamp


def _json_views(result: ReadResult) -> list[Path]:
    if result.format == fio.NAME and result.path is not None:
        return [result.path]
    return [p for p in result.sidecars if p.suffix != ".log"]


def _stamp(paths: list[Path]) -> int | None:
    for path in paths:
        try:
            doc = fio.final_document(path, read_text(path), bins=True).data  # all of it
        except (InputError, OSError):
            continue
        stamp = doc.get("timestamp_ms")
        if isinstance(stamp, int) and not isinstance(stamp, bool):
            return stamp
        seconds = doc.get("timestamp")
        if isinstance(seconds, int) and not isinstance(seconds, bool):
            return int(convert_time(seconds, "s", "ms"))
    return None


def find(intervals: pl.DataFrame, stamp: Stamp | None = None) -> list[Repeat]:
    """Every host's point measured in several runs (``intervals`` in file order, with
    ``_host``, each run's point read from one file), its runs oldest first: by ``stamp``
    (fio's time stamp) where every run of the point has one, else in the order listed
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
