"""fio --status-interval output: a JSON snapshot every N seconds, each cumulative since
the job's counters last started. The intervals are the differences between consecutive
snapshots: I/Os, bytes and runtime subtract; the mean latency of an interval is the
latency sum of the later snapshot less that of the earlier one, over the interval's I/Os.
Percentiles cannot be subtracted and are left out; the maximum is the run's so far (an
upper bound).

fio starts a job's counters again when its ``ramp_time`` ends, when it has laid out its
file, and when its ``startdelay`` is over: a job's figures before that are not part of
its final result. A restart shows as a counter that goes down (runtime, I/Os, bytes), or
as a snapshot with I/O but no latency sample (fio takes none during ``ramp_time``)
followed by one with samples. From the job's last restart on, its snapshots are
differenced anew (the first against zero); the snapshots before it are not data."""

from __future__ import annotations

import itertools
import operator
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from pipeline.units import convert_time

DIRECTIONS = ("read", "write")
LATENCY_KEYS = ("lat_ns", "lat", "clat_ns", "clat")
COUNTERS = ("runtime", "total_ios", "io_bytes")


def _number(d: dict[str, Any], key: str) -> float:
    value = d.get(key, 0)
    return float(value) if isinstance(value, int | float) else 0.0


def _latency(cur: dict[str, Any], prev: dict[str, Any], ios: float) -> dict[str, Any]:
    """The latency entries of one direction for the interval (mean by difference)."""
    found = {}
    for key in LATENCY_KEYS:
        now, before = cur.get(key), prev.get(key) or {}
        if isinstance(now, dict) and isinstance(before, dict):
            total = _number(now, "mean") * _number(cur, "total_ios")
            total -= _number(before, "mean") * _number(prev, "total_ios")
            found[key] = {"mean": total / ios if ios > 0 else 0.0, "max": now.get("max", 0)}
    return found


def _direction(cur: Any, prev: Any) -> dict[str, Any]:
    if not isinstance(cur, dict):
        return {}
    prev = prev if isinstance(prev, dict) else {}
    ios = _number(cur, "total_ios") - _number(prev, "total_ios")
    ms = _number(cur, "runtime") - _number(prev, "runtime")
    moved = _number(cur, "io_bytes") - _number(prev, "io_bytes")
    seconds = convert_time(ms, "ms", "s")
    return {
        "iops": ios / seconds if seconds > 0 else 0.0,
        "bw_bytes": moved / seconds if seconds > 0 else 0.0,
        "runtime": ms,
        "total_ios": ios,
        **_latency(cur, prev, ios),
    }


CPU = ("usr_cpu", "sys_cpu")  # % of the job's runtime so far: subtracted as CPU time


def _delta(cur: dict[str, Any], prev: dict[str, Any] | None) -> dict[str, Any]:
    before = prev or {}
    record = {k: v for k, v in cur.items() if k not in DIRECTIONS}
    record["job_runtime"] = _number(cur, "job_runtime") - _number(before, "job_runtime")
    for name in DIRECTIONS:
        record[name] = _direction(cur.get(name), before.get(name))
    for name in CPU:
        if isinstance(cur.get(name), int | float) and record["job_runtime"] > 0:
            used = _number(cur, name) * _number(cur, "job_runtime")
            used -= _number(before, name) * _number(before, "job_runtime")
            record[name] = max(0.0, used / record["job_runtime"])
    return record


def _sides(record: dict[str, Any]) -> list[dict[str, Any]]:
    return [d for name in DIRECTIONS if isinstance(d := record.get(name), dict)]


def _went_down(prev: dict[str, Any], cur: dict[str, Any]) -> bool:
    if _number(cur, "job_runtime") < _number(prev, "job_runtime"):
        return True
    pairs = [(cur.get(name), prev.get(name)) for name in DIRECTIONS]
    return any(
        _number(now, k) < _number(before, k)
        for now, before in pairs
        if isinstance(now, dict) and isinstance(before, dict)
        for k in COUNTERS
    )


def _sampled(record: dict[str, Any]) -> bool:
    """Has fio taken a latency sample of the job (``N``, or before fio 3.x a mean or a
    maximum above 0)?"""
    for side in _sides(record):
        for key in LATENCY_KEYS:
            stats = side.get(key)
            if isinstance(stats, dict) and (
                _number(stats, "N") > 0 or _number(stats, "mean") > 0 or _number(stats, "max") > 0
            ):
                return True
    return False


def _unsampled_io(record: dict[str, Any]) -> bool:
    return any(_number(s, "total_ios") > 0 for s in _sides(record)) and not _sampled(record)


def restarted(prev: Any, cur: Any) -> bool:
    """Did fio start the job's counters again between two of its snapshots?"""
    if not isinstance(prev, dict) or not isinstance(cur, dict):
        return False
    return _went_down(prev, cur) or (_unsampled_io(prev) and _sampled(cur))


@dataclass(frozen=True)
class Intervals:
    """Per snapshot, each job's record for the interval that ends with it; and per
    snapshot, the jobs (by position) whose counters fio started again later: those
    records are not data."""

    batches: list[list[Any]]
    before: list[set[int]]


def _start(series: list[Any]) -> int:
    """The index of a job's first snapshot after its last restart (0: none)."""
    starts = [k for k in range(1, len(series)) if restarted(series[k - 1], series[k])]
    return starts[-1] if starts else 0


def intervals(snapshots: list[list[Any]]) -> Intervals | None:
    """The intervals of the snapshots; None when they do not hold the same jobs in the
    same order (then only the final snapshot can be used)."""
    names = [[r.get("jobname") if isinstance(r, dict) else None for r in s] for s in snapshots]
    if any(n != names[-1] for n in names):
        return None
    starts = [_start([s[i] for s in snapshots]) for i in range(len(snapshots[0]))]
    batches, before = [], []
    for k, snapshot in enumerate(snapshots):
        batch = []
        for i, record in enumerate(snapshot):
            prev = snapshots[k - 1][i] if k > starts[i] else None
            batch.append(_delta(record, prev) if isinstance(record, dict) else record)
        batches.append(batch)
        before.append({i for i, start in enumerate(starts) if k < start})
    return Intervals(batches, before)


# A fio server started with --status-interval sends its snapshots to the client, which
# writes each as one more record of the same job and server in client_stats: cumulative
# figures, not more load. Clones of a job (numjobs) run side by side: about the same
# runtime, or (size-based) the same I/Os; a snapshot holds each clone's record. Snapshots
# run on: each record's runtime and I/Os not below the one before, the last record's
# runtime far beyond the first's.
SNAPSHOT_SPAN = 1.5  # the last record's job_runtime over the first's, at least


def _ios(record: dict[str, Any]) -> float:
    return sum(_number(side, "total_ios") for side in _sides(record))


def _is_series(chain: list[dict[str, Any]], strict: bool = False) -> bool:
    """Snapshots of one clone: runtimes and I/Os not falling (a clone that ended, or a
    final record after the last snapshot, repeats its figures; ``strict``: rising), the
    last runtime far beyond the first (what parts snapshots from clones)."""
    runtimes = [_number(r, "job_runtime") for r in chain]
    moved = [_ios(r) for r in chain]
    step = operator.lt if strict else operator.le
    rising = all(step(a, b) for a, b in itertools.pairwise(runtimes))
    grew = all(step(a, b) for a, b in itertools.pairwise(moved))
    return rising and grew and runtimes[-1] >= SNAPSHOT_SPAN * max(runtimes[0], 1.0)


def server_snapshots(
    records: list[Any], clones: Callable[[dict[str, Any]], int] | None = None
) -> dict[int, int]:
    """The client_stats records (by position) that are a fio server's earlier status
    snapshots of a job, each with the position of the same clone's last record (the whole
    run). ``clones``: how many records of a job one snapshot holds (its numjobs; 1 under
    group_reporting); unknown, one. Only a server's records (they name their host): a
    local run's clones are no snapshots, however their runtimes fall."""
    chains: dict[tuple[Any, ...], list[int]] = {}
    for i, r in enumerate(records):
        if isinstance(r, dict) and r.get("jobname") != "All clients" and r.get("hostname"):
            names = r.get("hostname"), r.get("port"), r.get("jobname"), r.get("groupid")
            key = tuple(map(repr, names))
            chains.setdefault(key, []).append(i)
    earlier: dict[int, int] = {}
    for found in chains.values():
        k = max(1, clones(records[found[-1]])) if clones else 1
        for chain in _per_clone(found, records, k):
            earlier |= {i: chain[-1] for i in chain[:-1]}
    return earlier


def _per_clone(found: list[int], records: list[Any], k: int) -> list[list[int]]:
    """A job's records on one server as series of snapshots, one per clone: with numjobs=k
    (no group_reporting) each snapshot holds k records side by side, so the records run
    890, 890, 1,891, 1,890 ms ... and the k-th of each snapshot is one clone's series
    (read as 12 clones of one job, six snapshots of two were 6x the load). Empty where
    they are no series of snapshots."""
    # a group_reporting record is one per snapshot whatever numjobs says (fio's JSON omits
    # a bare group_reporting): records rising one after another are one series
    if k > 1 and _is_series([records[i] for i in found], strict=True):
        return [found]
    if len(found) % k or len(found) // k < 2:
        return []
    chains = [found[i::k] for i in range(k)]
    if all(_is_series([records[i] for i in chain]) for chain in chains):
        return chains
    return []
