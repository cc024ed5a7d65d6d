"""fio --status-interval output: a JSON snapshot every N seconds, each cumulative since
the start. The intervals are the differences between consecutive snapshots: I/Os, bytes
and runtime subtract; the mean latency of an interval is the latency sum of the later
snapshot less that of the earlier one, over the interval's I/Os. Percentiles cannot be
subtracted and are left out; the maximum is the run's so far (an upper bound)."""

from __future__ import annotations

from typing import Any

DIRECTIONS = ("read", "write")
LATENCY_KEYS = ("lat_ns", "lat", "clat_ns", "clat")


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
    seconds = ms / 1000
    return {
        "iops": ios / seconds if seconds > 0 else 0.0,
        "bw_bytes": moved / seconds if seconds > 0 else 0.0,
        "runtime": ms,
        "total_ios": ios,
        **_latency(cur, prev, ios),
    }


def _delta(cur: dict[str, Any], prev: dict[str, Any] | None) -> dict[str, Any]:
    before = prev or {}
    record = {k: v for k, v in cur.items() if k not in DIRECTIONS}
    record["job_runtime"] = _number(cur, "job_runtime") - _number(before, "job_runtime")
    for name in DIRECTIONS:
        record[name] = _direction(cur.get(name), before.get(name))
    return record


def intervals(snapshots: list[list[Any]]) -> list[list[Any]] | None:
    """Per interval, the records of the run during it; None when the snapshots do not
    hold the same jobs in the same order (then only the final snapshot can be used)."""
    names = [[r.get("jobname") if isinstance(r, dict) else None for r in s] for s in snapshots]
    if any(n != names[-1] for n in names):
        return None
    out, prev = [], [None] * len(snapshots[0])
    for snapshot in snapshots:
        out.append(
            [
                _delta(r, p) if isinstance(r, dict) else r
                for r, p in zip(snapshot, prev, strict=True)
            ]
        )
        prev = snapshot
    return out
