"""Unit parsing. Everything is converted to base units: bytes, µs, IOPS, bytes/s.

Convention (as in the seed whitepapers): K/KB/KiB = 1024 bytes in block sizes.
For rates, ``MiB/s`` is always 1024² B/s; ``MB/s`` follows the report's declared
convention (``units = "binary"``, the default, or ``"decimal"``), for input and output alike.
"""

from __future__ import annotations

import re
from typing import Literal

BLOCK_MULTIPLIERS = {
    "": 1,
    "B": 1,
    "K": 1024,
    "KB": 1024,
    "KIB": 1024,
    "M": 1024**2,
    "MB": 1024**2,
    "MIB": 1024**2,
    "G": 1024**3,
    "GB": 1024**3,
    "GIB": 1024**3,
}

# Limits of what a benchmark can be, for the data read (report side) and for a campaign
# planned: larger values are typing errors (and overflow a column, or the machine).
MAX_COUNT = 1_000_000  # fio numjobs and iodepth: workers per host, I/Os in flight per worker
MAX_BLOCK = 1 << 40  # a block size: 1 TiB
MAX_RATE = 1e12  # an I/O rate asked for (fio rate_iops, rate): IOPS or bytes/s

Convention = Literal["binary", "decimal"]
Access = Literal["random", "sequential"]  # the access pattern of a test
# KiB/MiB/GiB are always powers of 1024; KB/MB/GB follow the report's declared convention:
# "binary" (the seeds': KB = 1024 B, MB = 1024² B) or "decimal" (MB = 10⁶ B).
IEC_RATES = {"B/s": 1.0, "KiB/s": 1024.0, "MiB/s": 1024.0**2, "GiB/s": 1024.0**3}
PREFIX_POWER = {"KB/s": 1, "MB/s": 2, "GB/s": 3}


def kilo(convention: Convention) -> float:
    return 1024.0 if convention == "binary" else 1000.0


def mega(convention: Convention) -> float:
    """Bytes in the MB of the convention: what "MB/s" means in input and output."""
    return kilo(convention) ** 2


def rate_factor(unit: str, convention: Convention) -> float:
    """Bytes/s in one ``unit`` (B/s, KiB/s … or KB/s, MB/s, GB/s by the convention)."""
    if unit in IEC_RATES:
        return IEC_RATES[unit]
    return kilo(convention) ** PREFIX_POWER[unit]


# Time: nanoseconds in one unit, whole numbers, so that a conversion multiplies or divides
# by a whole factor (exact, as ``ms * 1000`` and ``ms / 1000`` are) and never by a rounded
# one; µs is the base unit.
NS_PER = {"ns": 1, "us": 1000, "µs": 1000, "ms": 1000**2, "s": 1000**3}
TIME_UNITS_US = {unit: ns / NS_PER["µs"] for unit, ns in NS_PER.items()}  # µs in one unit


def convert_time(value: float, unit: str, to: str = "µs") -> float:
    """A time in ``unit`` (ns, us, µs, ms, s) in the unit ``to`` (the base unit, µs, by
    default): 2.5 ms -> 2500.0 µs, 1500 ms -> 1.5 s."""
    have, want = NS_PER[unit], NS_PER[to]
    return value * (have // want) if have >= want else value / (want // have)


# Rates of I/Os: prices and power are stated per 1,000 IOPS (kIOPS), as the seeds and
# SPC-1's "price-performance" do.
KIOPS = 1000  # IOPS in one kIOPS


def per_kiops(amount: float, iops: float) -> float:
    """``amount`` (a price, watts) per 1,000 IOPS at ``iops``."""
    return amount / (iops / KIOPS)


POWER_UNITS_W = {"W": 1.0, "kW": 1000.0}  # watts in one unit

# Every unit a printed figure may carry, as (the dimension it measures, the factor to the
# dimension's base unit); MB/s and GB/s follow the report's convention (``rate_factor``).
PRINTED_UNITS: dict[str, tuple[str, float]] = {
    **{unit: ("time", TIME_UNITS_US[unit]) for unit in ("µs", "us", "ms", "s")},
    "IOPS": ("rate", 1.0),
    "IOs": ("rate", 1.0),
    **{unit: ("power", factor) for unit, factor in POWER_UNITS_W.items()},
    "TB": ("capacity", 1.0),
    "U": ("space", 1.0),
    "%": ("percent", 1.0),
    "×": ("factor", 1.0),
    "x": ("factor", 1.0),
    "1": ("count", 1.0),
    "CHF": ("money", 1.0),
    "USD": ("money", 1.0),
    "EUR": ("money", 1.0),
}

_SIZE = re.compile(r"^\s*(\d+(?:\.\d+)?)\s*([A-Za-z]*)\s*$")


def parse_block_size(text: str) -> int:
    """'4K', '4 KiB', '1024k', '4096' -> bytes. Raises ValueError with the reason."""
    match = _SIZE.match(text)
    if not match:
        raise ValueError(f"{text!r} is not a block size (examples: 4K, 64KiB, 1M, 4096)")
    number, suffix = match.groups()
    factor = BLOCK_MULTIPLIERS.get(suffix.upper())
    if factor is None:
        raise ValueError(f"unknown block size unit {suffix!r} in {text!r} (use B, K, M or G)")
    value = float(number) * factor
    if not 0 < value <= MAX_BLOCK:  # 400 digits are infinity as a float: no int() of it
        raise ValueError(f"{text!r} is not a block size from 1 byte to 1 TiB")
    if value != int(value):
        raise ValueError(f"block size {text!r} must be a positive whole number of bytes")
    return int(value)


def block_label(size: int) -> str:
    """Bytes -> the short label used in reports: 4096 -> '4K', 1048576 -> '1024K'."""
    if size % 1024 == 0:
        return f"{size // 1024}K"
    return f"{size}B"


def split_label(shares: list[tuple[int, float]]) -> str:
    """A block-size split by its sizes and their shares of the I/Os in percent:
    [(4096, 50), (8192, 30), (65536, 20)] -> '4K/8K/64K 50/30/20' (fio bssplit)."""
    sizes = "/".join(block_label(size) for size, _ in shares)
    return f"{sizes} {'/'.join(f'{pct:g}' for _, pct in shares)}"


def block_stem(size: int) -> str:
    """Bytes -> the block size in a file name: 4096 -> '4k', 1536 -> '1536b' (every size its
    own name: chart files of 1 KiB and 1536 B blocks never share one)."""
    return block_label(size).lower()


# The base unit of every number in the dataset and the tables (schema ``Field.unit``) and
# the dimension it measures; ``currency`` stands for the row's own currency column.
DIMENSIONS: dict[str, str] = {
    "IOPS": "rate",
    "B/s": "bandwidth",
    "µs": "time",
    "W": "power",
    "W/TB": "power",
    "W/kIOPS": "power",
    "TB": "capacity",
    "U": "space",
    "%": "percent",
    "currency": "money",
    "×": "factor",
    "1": "count",
    "B": "size",
    "s": "duration",
    "workers/host": "count",
    "I/Os/worker": "count",
}
