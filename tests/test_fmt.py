"""Locale number formatting: the one place numbers become text."""

from __future__ import annotations

import pytest

from pipeline.language.fmt import Formatter, significant_places
from pipeline.language.strings import Strings


@pytest.mark.parametrize(
    ("value", "places"),
    [
        (0.55, 2),
        (0.5, 2),
        (1.4, 1),
        (9.94, 1),
        (9.96, 0),
        (15.0, 0),
        (0.99999, 1),
        (0.0994, 3),
        (0.0, 0),
    ],
)
def test_significant_places(value: float, places: int) -> None:
    assert significant_places(value) == places


@pytest.mark.parametrize(
    ("lang", "expected"),
    [
        ("de", ["1’008’045", "0.55 ms", "1.0 ms", "15 ms", "230 µs", "12’984", "2.5"]),
        ("en", ["1,008,045", "0.55 ms", "1.0 ms", "15 ms", "230 µs", "12,984", "2.5"]),
    ],
)
def test_formats_per_language(lang: str, expected: list[str]) -> None:
    fmt = Formatter(Strings(lang))
    got = [
        fmt.integer(1008045),
        fmt.lat_ms(550),
        fmt.lat_ms(999.99),
        fmt.lat_ms(15000),
        fmt.lat_us(230.4),
        fmt.mb_s(12984 * 1024**2),
        fmt.number(2.45, 1),
    ]
    assert got == expected


def test_rounding_is_half_up_not_half_even() -> None:
    fmt = Formatter(Strings("en"))
    assert [fmt.integer(0.5), fmt.integer(1.5), fmt.integer(2.5)] == ["1", "2", "3"]


def test_derived_figures_print_no_false_precision() -> None:
    from pipeline.language import Formatter, Strings

    fmt = Formatter(Strings("en"))
    assert [fmt.derived(v) for v in (3070.18, 22.81, 100 / 3, 4.2349, 0.5549)] == [
        "3,070",
        "23",
        "33",
        "4.2",
        "0.55",
    ]
