"""Reconstruct IOgen raw data for the a800 example from published figures.

The numbers are NOT measurements. The 48 vCPU setup is reconstructed from seed 004
(In&Out whitepaper "NetApp AFA A800 Performance", 2019), Tabelle 2: for each test the
curve passes exactly through the published speed, optimum and maximum points (IOPS or
GB/s, GB = 1024³ bytes, and latency), geometric in between, so that seed 004's optimum
rule ("as long as performance rises faster than latency") finds the published optimum.
The 4 vCPU setup is ILLUSTRATIVE: seed 004 shows it only as curves (saturating at 192
processes for random reads, up to 256 for random writes); its anchors below are chosen to
match that description, not published numbers. Three hosts, parallelism per host, three
intervals of 20 s per point.

Run:  python data/examples/a800/generate.py   (writes raw/a800-48vcpu.iogen.csv, …-4vcpu…)
"""

from __future__ import annotations

import random
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from reconstruct import curve, intervals

HOSTS = ("vm1", "vm2", "vm3")
INTERVALS = 3
INTERVAL_S = 20.0
GIB = 1024**3
RANDOM_LEVELS = [1, 2, 4, 8, 16, 32, 64, 96, 128, 160, 192, 256, 320, 384, 448, 512]
SEQUENTIAL_LEVELS = [1, 2, 4, 8, 12, 16, 20, 24, 28, 32]

# test -> (block KiB, access, read %, levels, anchors: (level, IOPS or GB/s, latency µs))
SETUPS: dict[str, dict[str, tuple[int, str, int, list[int], list[tuple[int, float, float]]]]] = {
    "48vcpu": {  # seed 004 Tabelle 2
        "8K read": (
            8,
            "random",
            100,
            RANDOM_LEVELS,
            [(1, 11308, 261), (128, 648293, 590), (384, 732767, 1571), (512, 726000, 2140)],
        ),
        "8K write": (
            8,
            "random",
            0,
            RANDOM_LEVELS,
            [(1, 9963, 297), (64, 296158, 647), (512, 572022, 2833)],
        ),
        "128K read": (
            128,
            "sequential",
            100,
            SEQUENTIAL_LEVELS,
            [(1, 2.8, 1141), (16, 11.5, 4419), (32, 11.3, 8990)],
        ),
        "128K write": (
            128,
            "sequential",
            0,
            SEQUENTIAL_LEVELS,
            [(1, 1.2, 2446), (24, 10.4, 7385), (32, 11.0, 9416)],
        ),
    },
    "4vcpu": {  # illustrative, see the module text
        "8K read": (
            8,
            "random",
            100,
            RANDOM_LEVELS[:12],
            [(1, 11050, 268), (128, 598000, 642), (192, 640000, 905), (256, 633000, 1215)],
        ),
        "8K write": (
            8,
            "random",
            0,
            RANDOM_LEVELS[:12],
            [(1, 9720, 305), (64, 281000, 683), (256, 418000, 1840)],
        ),
        "128K read": (
            128,
            "sequential",
            100,
            SEQUENTIAL_LEVELS,
            [(1, 2.7, 1180), (16, 11.3, 4500), (32, 11.2, 9080)],
        ),
        "128K write": (
            128,
            "sequential",
            0,
            SEQUENTIAL_LEVELS,
            [(1, 1.15, 2540), (24, 10.1, 7600), (32, 10.6, 9770)],
        ),
    },
}

HEADER = (
    "host;test;block_size;access;read_pct;processes;interval;interval_s;ios;mb_s;"
    "service_ms;read_service_ms;write_service_ms;cpu_pct"
)


def to_iops(value: float, kib: int, access: str) -> float:
    """Anchors give IOPS for random tests and GB/s (1024³) for sequential ones."""
    return value * GIB / (kib * 1024) if access == "sequential" else value


def rows(
    rng: random.Random,
    name: str,
    kib: int,
    access: str,
    mix: int,
    p: int,
    iops: float,
    lat_us: float,
) -> list[str]:
    out = []
    for n, h, count, lat in intervals(rng, iops, lat_us, [1.0] * len(HOSTS), INTERVALS, INTERVAL_S):
        rate = count / INTERVAL_S
        read = f"{lat / 1000:.6f}" if mix == 100 else ""
        write = f"{lat / 1000:.6f}" if mix == 0 else ""
        cpu = min(95.0, 3 + 0.00009 * rate * kib**0.5)
        out.append(
            f"{HOSTS[h]};{name.replace(' ', '_')};{kib}K;{access};{mix};{p};{n};"
            f"{INTERVAL_S:g};{count};{rate * kib / 1024:.6f};{lat / 1000:.6f};{read};"
            f"{write};{cpu:.1f}"
        )
    return out


def generate(setup: str) -> str:
    rng = random.Random(800 if setup == "48vcpu" else 804)
    lines = [
        f"# IOgen export — RECONSTRUCTED from seed 004 ({setup}), not measured. "
        "Made by generate.py.",
        HEADER,
    ]
    for name, (kib, access, mix, levels, anchors) in SETUPS[setup].items():
        points = [(p, to_iops(v, kib, access), lat) for p, v, lat in anchors]
        values = curve(points, levels)
        for p in levels:
            iops, lat = values[p]
            lines += rows(rng, name, kib, access, mix, p, iops, lat)
    return "\n".join(lines) + "\n"


def main() -> None:
    for setup in SETUPS:
        out = Path(__file__).with_name("raw") / f"a800-{setup}.iogen.csv"
        out.write_text(generate(setup), encoding="utf-8")
        print(f"wrote {out}")


if __name__ == "__main__":
    main()
