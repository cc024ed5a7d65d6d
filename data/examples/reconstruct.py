"""Shared helpers for the example generators: raw interval data reconstructed from
published figures (anchors), so that the published values come back exactly.

Not measurement: every generator that uses this says so in its output.
"""

from __future__ import annotations

import itertools
import math
import random
from collections.abc import Iterator


def nearest_level(target: float, allowed: list[int]) -> int:
    """The level closest to ``target`` on a log scale."""
    return min(allowed, key=lambda p: abs(math.log(p) - math.log(target)))


def curve(
    points: list[tuple[int, float, float]], levels: list[int]
) -> dict[int, tuple[float, float]]:
    """IOPS and latency at every level, geometric between the anchors (level, IOPS, µs)."""
    out = {}
    for (p0, i0, l0), (p1, i1, l1) in itertools.pairwise(points):
        for p in levels:
            if p0 <= p <= p1:
                t = math.log(p / p0) / math.log(p1 / p0)
                out[p] = (i0 * (i1 / i0) ** t, l0 * (l1 / l0) ** t)
    return out


def split(total: int, shares: list[float]) -> list[int]:
    """Whole numbers in the given proportions that add up to ``total`` exactly."""
    parts = [round(total * s / sum(shares)) for s in shares]
    parts[-1] = total - sum(parts[:-1])
    return parts


def host_latencies(rng: random.Random, lat: float, counts: list[int]) -> list[float]:
    """Latency per host whose I/O-weighted mean is exactly ``lat``."""
    first = [lat * (1 + rng.uniform(-0.03, 0.03)) for _ in counts[:-1]]
    rest = (lat * sum(counts) - sum(f * c for f, c in zip(first, counts, strict=False))) / (
        counts[-1]
    )
    return [*first, rest]


def intervals(
    rng: random.Random, iops: float, lat_us: float, shares: list[float], count: int, seconds: float
) -> Iterator[tuple[int, int, int, float]]:
    """(interval, host index, I/O count, latency µs) whose totals give back ``iops`` and
    ``lat_us`` exactly (time-weighted rate, I/O-weighted latency)."""
    total = round(iops * seconds * count)
    per_interval = split(total, [1 + rng.uniform(-0.02, 0.02) for _ in range(count)])
    dev = [rng.uniform(-0.01, 0.01) for _ in range(count - 1)]
    dev.append(-sum(c * d for c, d in zip(per_interval, dev, strict=False)) / per_interval[-1])
    for n, (ios, d) in enumerate(zip(per_interval, dev, strict=True), start=1):
        counts = split(ios, [s * (1 + rng.uniform(-0.05, 0.05)) for s in shares])
        lats = host_latencies(rng, lat_us * (1 + d), counts)
        for h, (c, lat) in enumerate(zip(counts, lats, strict=True)):
            yield n, h, c, lat
