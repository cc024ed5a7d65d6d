"""The rows of every file read into one dataset: hosts named, the schema's checks, one
run read in two views (read twice), a point measured in several runs (report.toml
``repeats``), every record accounted for (read = accepted + rejected)."""

from __future__ import annotations

import itertools
from collections.abc import Callable, Sequence
from typing import Any

import polars as pl

from pipeline import ingest
from pipeline.config import REPORT_FILE, NamedProfile, Repeats
from pipeline.dataset import Dataset, alignment, repeats
from pipeline.dataset.hosts import same_host
from pipeline.errors import InputError, InputErrors
from pipeline.ingest.base import Reject, interval_frame
from pipeline.language.fmt import Formatter
from pipeline.language.message import Message
from pipeline.language.strings import Strings
from pipeline.normalise import check_attributes, to_points
from pipeline.paths import TOOL
from pipeline.schema import INTERVAL_FIELDS, violations
from pipeline.validate import point_name


def combine(
    results: list[ingest.ReadResult],
    failed: Sequence[InputError] = (),
    hosts: Callable[[list[str]], dict[str, str]] | None = None,
    rule: Repeats = "refuse",
    profiles: Sequence[NamedProfile] = (),
) -> Dataset:
    """All files' interval rows, checked once more against the schema's declared checks;
    files that ``failed`` as a whole count as one rejected record each (--keep-going).
    ``hosts`` names the hosts found (``[[hosts]]``) before a point read twice is looked
    for: fio's JSON says ``perf36:8765`` where its logs' folder says ``perf36``. A point
    measured in several runs is resolved by ``rule`` (report.toml ``repeats``); the
    workload mixes ``profiles`` names (report.toml ``[[profiles]]``) take their names."""
    intervals = named(_in_file_order(results), profiles)
    mapping = hosts(intervals["host"].unique().sort().to_list()) if hosts else {}
    if mapping:
        intervals = intervals.with_columns(pl.col("host").replace(mapping))
    intervals, schema_rejects = _schema_rejects(intervals)
    check_attributes(intervals)  # before runs of one point are looked for: 1:1 and 2:1
    run_of = repeats.runs(results)
    intervals, twice, again = _read_twice(intervals, run_of, repeats.accounts(results))
    found = _repeated(intervals, results, run_of, rule)
    intervals, older = repeats.apply(intervals, rule, found)
    intervals, partial = alignment.aligned(intervals)
    intervals = intervals.drop("_host", repeats.RUN)
    rejects = [rej for r in results for rej in r.rejects] + schema_rejects + twice + older
    rejects += partial
    finals = named(interval_frame([row for r in results for row in r.reference]), profiles)
    finals = finals.with_columns(pl.col("host").replace(mapping)) if mapping else finals
    rejects += [_failed(e) for e in failed]
    notes = [f"{r.source}: {n}" for r in results for n in r.notes]
    read = sum(r.records_read for r in results) + len(failed)
    sidecars = {r.source: r.sidecars for r in results if r.sidecars}
    formats = {r.source: r.format for r in results}
    references = pl.concat([again, finals])
    points = to_points(intervals, finals)
    return Dataset(intervals, points, rejects, read, notes, sidecars, formats, found, references)


def named(intervals: pl.DataFrame, profiles: Sequence[NamedProfile]) -> pl.DataFrame:
    """Rows of a fixed block size whose access, block size and read share a named
    profile has take its name (a name the tool gave stays)."""
    if not profiles or intervals.is_empty():
        return intervals
    name = pl.lit(None, pl.String)
    for p in profiles:
        same = (
            (pl.col("access") == p.access)
            & (pl.col("block_size") == p.block_size)
            & (pl.col("read_pct") == p.read_pct)
        )
        name = pl.when(same).then(pl.lit(p.name[TOOL])).otherwise(name)
    fixed = pl.col("block_split").is_null() if "block_split" in intervals.columns else True
    own = pl.col("profile") if "profile" in intervals.columns else pl.lit(None, pl.String)
    return intervals.with_columns(pl.coalesce(own, pl.when(fixed).then(name)).alias("profile"))


def _failed(err: InputError) -> Reject:
    """A file that failed as a whole (--keep-going): one reject, the error's words."""
    where = Message.of("where.text", text=err.where) if err.where else Message.of("where.file")
    return Reject(str(err.path), where, Message.of("file_failed", message=err.message))


def _in_file_order(results: list[ingest.ReadResult]) -> pl.DataFrame:
    """One frame of every file's rows, in the order of the files (the "read twice" check
    keeps the first file's): each file's own frame, or the shared frame of consecutive
    files (``Batch``; files read one by one get theirs here)."""
    ingest.batched(results)
    frames: list[pl.DataFrame] = []
    for shared, run in itertools.groupby(results, key=lambda r: r.batch):
        members = list(run)
        if shared is None:
            frames += [m.frame for m in members if m.frame is not None]
        elif sum(m.span[1] for m in members) == shared.frame.height:
            frames.append(shared.frame)
        else:  # some files of the batch are not here
            frames += [m.intervals for m in members]
    return pl.concat([*frames, interval_frame([])])


def _read_twice(
    intervals: pl.DataFrame, run_of: dict[str, str], accounts: set[str]
) -> tuple[pl.DataFrame, list[Reject], pl.DataFrame]:
    """The same host and point from two views of one run (a fio JSON and its own logs,
    ``repeats.runs``) would be summed as if concurrent, or its windows averaged with the
    whole run's: the rows of the run's own account (``repeats.accounts``: the JSON the
    logs were read with), else of the first file listed, are kept, the others' rejected,
    whatever their intervals. A host named once with its port and once without (fio
    client/server's JSON says ``perf36:8765``, the logs' folder ``perf36``) is one host
    here, as in ``host_names``. The rows kept carry ``_host`` and their run (``repeats.RUN``)."""
    key = [*repeats.KEY, repeats.RUN]
    alias = same_host(intervals["host"].unique().to_list())
    marked = intervals.with_columns(
        pl.col("host").replace(alias).alias("_host"),
        pl.col("source").replace(run_of).alias(repeats.RUN),
    )
    if all(source == run for source, run in run_of.items()):
        # each file its own run: a key's rows are of one file, none read twice
        return marked, [], intervals.clear()
    own = pl.col("source").filter(pl.col("source").is_in(list(accounts))).first().over(key)
    marked = marked.with_columns(own.fill_null(pl.col("source").first().over(key)).alias("_first"))
    clash = pl.col("source") != pl.col("_first")
    rejects = [
        Reject(
            r["source"],
            Message.of("where.line", line=r["line"]),
            Message.of("read_twice", first=r["_first"]),
        )
        for r in marked.filter(clash).iter_rows(named=True)
    ]
    again = marked.filter(clash).drop("_first", "_host", repeats.RUN)
    return marked.filter(~clash).drop("_first"), rejects, again


def _repeated(
    intervals: pl.DataFrame,
    results: list[ingest.ReadResult],
    run_of: dict[str, str],
    rule: Repeats,
) -> list[repeats.Repeat]:
    """The host's points measured in several runs, oldest run first; refused by default
    (every file of each named), and by ``mean`` where the hosts of a point have
    different numbers of runs."""
    if rule == "refuse":
        found = repeats.find(intervals)
        if found:
            raise InputErrors(_refused(found))
        return found
    if rule == "mean" and (uneven := repeats.uneven(intervals)):
        raise InputErrors([_uneven(p) for p in uneven])
    return repeats.find(intervals, repeats.stamps(results, run_of))


REPEATS_HINT = (
    'say in report.toml which to use: repeats = "newest" (the most recent run) or '
    '"mean" (their mean; iopress ingest: --repeats), or leave out the runs not wanted '
    "(see docs/report.md)"
)


def _refused(found: list[repeats.Repeat]) -> list[InputError]:
    """One error per set of files measuring the same points, naming each point."""
    fmt = Formatter(Strings(TOOL))
    by_files: dict[tuple[str, ...], list[str]] = {}
    for r in found:
        by_files.setdefault(r.runs, []).append(f"{point_name(r.point, fmt)} (host {r.host})")
    return [
        InputError(
            runs[0],
            "",
            f"{_points(points)} measured in {len(runs)} runs, one in each of {', '.join(runs)}",
            REPEATS_HINT,
        )
        for runs, points in by_files.items()
    ]


def _points(names: list[str], shown: int = 3) -> str:
    more = f" and {len(names) - shown} more points" if len(names) > shown else ""
    return ("the point " if len(names) == 1 else "the points ") + "; ".join(names[:shown]) + more


def _uneven(point: dict[str, Any]) -> InputError:
    name = point_name(point, Formatter(Strings(TOOL)))
    return InputError(
        REPORT_FILE,
        "repeats",
        f"the hosts of {name} were measured in different numbers of runs: "
        "their mean would add some hosts' runs to nothing",
        'give every host\'s runs, or use repeats = "newest"',
    )


def _shown(value: object) -> str:
    """A refused value as a reject names it: its start where it is long."""
    text = repr(value)
    return text if len(text) <= 80 else f"{text[:60]}… ({len(str(value)):,} characters)"


def _schema_rejects(intervals: pl.DataFrame) -> tuple[pl.DataFrame, list[Reject]]:
    """Rows a reader let through but the schema refuses become rejects, never silent drops."""
    bad = violations(intervals, INTERVAL_FIELDS)
    if bad.is_empty():
        return intervals, []
    rows = bad["_row"].unique().to_list()
    rejects = [
        Reject(
            str(intervals["source"][r]),
            Message.of("where.line_field", line=intervals["line"][r], field=repr(c)),
            Message.of("schema", value=_shown(v)),
        )
        for r, c, v in bad.unique("_row", keep="first", maintain_order=True).iter_rows()
    ]
    keep = intervals.with_row_index("_row").filter(~pl.col("_row").is_in(rows)).drop("_row")
    return keep, rejects
