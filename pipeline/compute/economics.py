"""Cost, footprint, SPC-1 comparison, sizing and speed-up tables (seed 000 Tabellen 5–8).

Every number is computed from the report's inputs and the SPC-1 records, never typed;
each function returns a polars frame in base units (TB, IOPS, W, µs, currency units); the
registry (``compute/registry.py``) casts it to the declared columns.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Sequence

import polars as pl

from pipeline.config import CostRecord, FootprintRecord, SpeedupCase
from pipeline.dataset import Spc1Record
from pipeline.units import convert_time, per_kiops


def cost(records: Sequence[CostRecord]) -> pl.DataFrame:
    """Price per TB (also after compression) and per 1000 IOPS, per system and year."""
    rows = [
        {
            "system": r.system,
            "year": r.year,
            "capacity_tb": r.capacity_tb,
            "iops": r.iops,
            "price": r.price,
            "currency": r.currency,
            "price_per_tb": r.price / r.capacity_tb,
            "compression_ratio": r.compression_ratio,
            "price_per_tb_effective": (
                r.price / (r.capacity_tb * r.compression_ratio) if r.compression_ratio else None
            ),
            "price_per_kiops": per_kiops(r.price, r.iops),
        }
        for r in records
    ]
    return pl.DataFrame(rows)


def footprint(records: Sequence[FootprintRecord], rack_units: int = 42) -> pl.DataFrame:
    """Power per TB and per 1000 IOPS; capacity and IOPS of one rack filled with the system."""
    rows = []
    for r in records:
        per_rack = rack_units // r.rack_units
        rows.append(
            {
                "system": r.system,
                "capacity_tb": r.capacity_tb,
                "iops": r.iops,
                "rack_units": r.rack_units,
                "power_w": r.power_w,
                "w_per_tb": r.power_w / r.capacity_tb,
                "w_per_kiops": per_kiops(r.power_w, r.iops),
                "tb_per_rack": per_rack * r.capacity_tb if per_rack else r.capacity_tb,
                "iops_per_rack": per_rack * r.iops if per_rack else r.iops,
            }
        )
    return pl.DataFrame(rows)


def spc1(records: Sequence[Spc1Record]) -> pl.DataFrame:
    """Seed 000 Tabelle 7: each record's response-time ramp with price and capacity."""
    rows = [
        {
            "system": r.short_name,
            "submission": r.submission,
            "load_pct": p.load_pct,
            "iops": p.iops,
            "lat_mean_us": convert_time(p.lat_ms, "ms"),
            "price": r.price,
            "price_per_kiops": per_kiops(r.price, r.spc1_iops),
            "currency": r.currency,
            "capacity_tb": r.capacity_tb,
        }
        for r in records
        for p in sorted(r.ramp, key=lambda p: -p.load_pct)
    ]
    return pl.DataFrame(rows)


def iops_at_load(record: Spc1Record, load_pct: float) -> float:
    """IOPS at a load level: the ramp's own point, else linear between ramp points (from 0)."""
    points = [(0.0, 0.0)] + [(p.load_pct, p.iops) for p in record.ramp]
    for (l0, i0), (l1, i1) in itertools.pairwise(points):
        if l0 <= load_pct <= l1:
            return i0 + (i1 - i0) * (load_pct - l0) / (l1 - l0)
    return record.spc1_iops * load_pct / 100


def latency_at_iops(record: Spc1Record, iops: float) -> float:
    """Response time interpolated linearly on the ramp; below its lowest point, that point's."""
    ramp = record.ramp
    if iops <= ramp[0].iops:
        return ramp[0].lat_ms
    for low, high in itertools.pairwise(ramp):
        if low.iops <= iops <= high.iops:
            return low.lat_ms + (high.lat_ms - low.lat_ms) * (iops - low.iops) / (
                high.iops - low.iops
            )
    return ramp[-1].lat_ms


def sizing(
    records: Sequence[Spc1Record], targets: Sequence[float], max_load_pct: float = 50
) -> pl.DataFrame:
    """Seed 000 Tabelle 8: the fewest units whose load stays ≤ the limit, per target
    (``capacity_iops``: theirs at the limit), and the load they size for with its latency:
    the target shared by the units, or the ramp's lowest point where the target is below
    it, as no latency is published there (seed 000: 300'986 IOPS @ 0.39 ms for 200'000)."""
    rows = []
    for target in targets:
        for r in records:
            at_limit = iops_at_load(r, max_load_pct)
            units = max(1, math.ceil(target / at_limit - 1e-9))
            each = max(target / units, r.ramp[0].iops)
            rows.append(
                {
                    "system": r.short_name,
                    "target_iops": float(target),
                    "max_load_pct": max_load_pct,
                    "units": units,
                    "capacity_iops": units * at_limit,
                    "load_iops": units * each,
                    "lat_mean_us": convert_time(latency_at_iops(r, each), "ms"),
                    "price": units * r.price,
                    "currency": r.currency,
                }
            )
    return pl.DataFrame(rows)


def speedup(cases: Sequence[SpeedupCase]) -> pl.DataFrame:
    """Amdahl: the I/O share gets faster by old/new, the rest stays; gain = time saved."""
    rows = []
    for c in cases:
        io_speedup = c.old_ms / c.new_ms
        remaining = (1 - c.io_share) + c.io_share / io_speedup
        rows.append(
            {
                "case": c.case,
                "io_share_pct": c.io_share * 100,
                "old_lat_mean_us": convert_time(c.old_ms, "ms"),
                "new_lat_mean_us": convert_time(c.new_ms, "ms"),
                "io_speedup": io_speedup,
                "app_gain_pct": (1 - remaining) * 100,
            }
        )
    return pl.DataFrame(rows)
