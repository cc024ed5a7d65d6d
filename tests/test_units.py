"""Units are declared once, in pipeline/units.py: every conversion goes through it."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from pipeline.units import KIOPS, PRINTED_UNITS, TIME_UNITS_US, convert_time, per_kiops

PACKAGE = Path(__file__).resolve().parents[1] / "pipeline"
INLINE = re.compile(r"\* 1000|/ 1000")  # a unit's factor written where it is used


def test_no_factor_of_a_unit_outside_units() -> None:
    found = [
        f"{path.relative_to(PACKAGE)}:{n}: {line.strip()}"
        for path in sorted(PACKAGE.rglob("*.py"))
        if path.name != "units.py"
        for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1)
        if INLINE.search(line)
    ]
    assert not found, found


@pytest.mark.parametrize(
    ("value", "unit", "to", "expected"),
    [
        (2.5, "ms", "µs", 2500.0),
        (1500, "ms", "s", 1.5),
        (7, "s", "ms", 7000),
        (1234, "ns", "µs", 1.234),
        (0.55, "ms", "us", 0.55 * 1000),  # one rounding, as written inline before
        (0.7, "ms", "s", 0.7 / 1000),
        (1.0, "µs", "µs", 1.0),
    ],
)
def test_a_time_is_converted_by_a_whole_factor(
    value: float, unit: str, to: str, expected: float
) -> None:
    assert convert_time(value, unit, to) == expected


def test_price_per_kiops() -> None:
    assert per_kiops(1_000_000.0, 500_000.0) == 2000.0
    assert KIOPS == 1000


def test_a_printed_time_unit_is_the_time_units() -> None:
    assert {u: f for u, (d, f) in PRINTED_UNITS.items() if d == "time"} == {
        u: TIME_UNITS_US[u] for u in ("µs", "us", "ms", "s")
    }
