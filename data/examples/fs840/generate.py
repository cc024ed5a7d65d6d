"""Reconstruct IOgen raw data for the fs840 example from published figures.

The numbers are NOT measurements. They are reconstructed from the published results of
the In&Out position paper "IBM Full Flash Storage für Kern Applikationen auf Power
Systemen" (2016, seed 000): Tabelle 4 (minimum latency) and Tabelle 3 (maximum IOPS or
MB/s @ latency, and the smaller values printed in italics). For every block size × mix
the curve passes exactly through those anchors, in between it is interpolated
geometrically over the parallelism levels, and each point is split into 2 hosts × 3
intervals of 20 s with small deterministic deviations whose averages give back the
anchors exactly.

Run:  python data/examples/fs840/generate.py   (writes raw/fs840.iogen.csv)
"""

from __future__ import annotations

import random
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from reconstruct import curve, intervals, nearest_level

LEVELS = [1, 2, 4, 8, 16, 32, 64, 96, 128, 160, 180, 192, 224, 256, 320, 384, 448, 512]
HOSTS = (("p760", 0.6), ("S824", 0.4))  # host name, share of the I/Os
INTERVALS = 3
INTERVAL_S = 20.0
MIB = 1024 * 1024
MIXES = (100, 70, 0)

# block size (KiB), access, minimum latency µs per mix (Tabelle 4)
MIN_LATENCY = {
    (1, "random"): (200, 200, 140),
    (4, "random"): (230, 215, 159),
    (8, "random"): (243, 226, 167),
    (64, "random"): (377, 442, 273),
    (256, "sequential"): (735, 1236, 966),
    (1024, "sequential"): (2287, 3567, 2024),
}

# (maximum, latency ms), (italic value, latency ms) or None — IOPS for random, MB/s
# (MB = 1024² bytes) for sequential (Tabelle 3)
MAXIMA = {
    (1, "random"): (((1008045, 0.5), None), ((725193, 1.0), None), ((290227, 3.0), (247648, 0.4))),
    (4, "random"): (((1003798, 0.55), None), ((823630, 0.8), None), ((483881, 1.4), (421038, 0.4))),
    (8, "random"): (
        ((852405, 0.8), (724893, 0.4)),
        ((533513, 1.4), (406353, 0.7)),
        ((324283, 2.4), (260508, 0.4)),
    ),
    (64, "random"): (
        ((155441, 5.0), (134534, 0.8)),
        ((83608, 10.0), (63594, 3.0)),
        ((49934, 10.0), (39941, 0.7)),
    ),
    (256, "sequential"): (
        ((12984, 15.0), (8076, 3.0)),
        ((6032, 32.0), (3648, 6.0)),
        ((3601, 45.0), (2141, 3.0)),
    ),
    (1024, "sequential"): (
        ((13928, 40.0), (11352, 20.0)),
        ((8137, 78.0), (6973, 18.0)),
        ((5297, 105.0), (3170, 18.0)),
    ),
}

HEADER = (
    "host;test;block_size;access;read_pct;processes;interval;interval_s;ios;mb_s;"
    "service_ms;read_service_ms;write_service_ms;cpu_pct"
)


def anchors(kib: int, access: str, mix_index: int) -> list[tuple[int, float, float]]:
    """(level, IOPS, latency µs) through which the curve must pass."""
    hosts = len(HOSTS)
    l0 = MIN_LATENCY[(kib, access)][mix_index]
    (vmax, lmax_ms), italic = MAXIMA[(kib, access)][mix_index]
    to_iops = (MIB / (kib * 1024)) if access == "sequential" else 1.0
    imax, lmax = vmax * to_iops, lmax_ms * 1000
    pmax = nearest_level(imax * lmax / 1e6 / hosts, LEVELS[2:])
    points = [(1, hosts / (l0 / 1e6), float(l0)), (pmax, imax, lmax)]
    if italic is not None:
        iopt, lopt = italic[0] * to_iops, italic[1] * 1000
        popt = nearest_level(iopt * lopt / 1e6 / hosts, [p for p in LEVELS if 1 < p < pmax])
        points.append((popt, iopt, lopt))
    if pmax < LEVELS[-1]:
        iend = imax * 0.985
        lend = max(hosts * LEVELS[-1] / iend * 1e6, lmax * (LEVELS[-1] / pmax) ** 0.5)
        points.append((LEVELS[-1], iend, lend))
    return sorted(points)


def rows_for_point(
    rng: random.Random, kib: int, access: str, mix: int, p: int, iops: float, lat_us: float
) -> list[str]:
    shares = [share for _, share in HOSTS]
    return [
        row(HOSTS[h][0], kib, access, mix, p, n, c, lat, iops)
        for n, h, c, lat in intervals(rng, iops, lat_us, shares, INTERVALS, INTERVAL_S)
    ]


def row(
    host: str,
    kib: int,
    access: str,
    mix: int,
    p: int,
    interval: int,
    count: int,
    lat_us: float,
    point_iops: float,
) -> str:
    iops = count / INTERVAL_S
    mb_s = iops * kib / 1024
    k_write = 0.8
    k_read = (1 - (100 - mix) / 100 * k_write) / (mix / 100) if mix else 0.0
    read = f"{lat_us * k_read / 1000:.6f}" if mix else ""
    write = f"{lat_us * k_write / 1000:.6f}" if mix == 70 else ""
    write = f"{lat_us / 1000:.6f}" if mix == 0 else write
    load = point_iops * kib / (1.05e6 * 4 if access == "random" else 14000 * 1024)
    cpu = min(97.5, 2 + 95 * load**0.8)
    test = f"{kib}K_{access[:3]}_{mix}R"
    return (
        f"{host};{test};{kib}K;{access};{mix};{p};{interval};{INTERVAL_S:g};{count};"
        f"{mb_s:.6f};{lat_us / 1000:.6f};{read};{write};{cpu:.1f}"
    )


def generate() -> str:
    rng = random.Random(840)
    lines = [
        "# IOgen 4.0 export — RECONSTRUCTED from the published figures of the In&Out "
        "position paper (2016), not measured. Made by generate.py.",
        HEADER,
    ]
    for kib, access in MIN_LATENCY:
        for m, mix in enumerate(MIXES):
            values = curve(anchors(kib, access, m), LEVELS)
            for p in LEVELS:
                iops, lat = values[p]
                lines += rows_for_point(rng, kib, access, mix, p, iops, lat)
    return "\n".join(lines) + "\n"


def main() -> None:
    out = Path(__file__).with_name("raw") / "fs840.iogen.csv"
    out.write_text(generate(), encoding="utf-8")
    print(f"wrote {out}")


if __name__ == "__main__":
    main()
