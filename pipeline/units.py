"""Unit parsing. Everything is converted to base units: bytes, µs, IOPS, bytes/s.

Convention (as in the seed whitepapers): K/KB/KiB = 1024 bytes in block sizes.
For rates, the unit must say which it means: ``MiB/s`` (1024²) or ``MB/s`` (10⁶).
"""

from __future__ import annotations

import re

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

RATE_UNITS = {
    "B/s": 1.0,
    "KiB/s": 1024.0,
    "MiB/s": 1024.0**2,
    "GiB/s": 1024.0**3,
    "KB/s": 1e3,
    "MB/s": 1e6,
    "GB/s": 1e9,
}

TIME_UNITS_US = {"ns": 1e-3, "us": 1.0, "µs": 1.0, "ms": 1e3, "s": 1e6}

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
    if value <= 0 or value != int(value):
        raise ValueError(f"block size {text!r} must be a positive whole number of bytes")
    return int(value)


def block_label(size: int) -> str:
    """Bytes -> the short label used in reports: 4096 -> '4K', 1048576 -> '1024K'."""
    if size % 1024 == 0:
        return f"{size // 1024}K"
    return f"{size}B"
