"""Locale number formatting: the one place numbers become text."""

from __future__ import annotations

import re
import shutil
from pathlib import Path

import pytest

from pipeline.language.fmt import Formatter, significant_places
from pipeline.language.strings import Strings
from pipeline.prepare import prepare
from pipeline.render import whitepaper
from tests.conftest import FS840


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
        (
            "de",
            [
                "1’008’045",
                "0.55\u00a0ms",
                "1.0\u00a0ms",
                "15\u00a0ms",
                "230\u00a0µs",
                "12’984",
                "2.5",
            ],
        ),
        (
            "en",
            [
                "1,008,045",
                "0.55\u00a0ms",
                "1.0\u00a0ms",
                "15\u00a0ms",
                "230\u00a0µs",
                "12,984",
                "2.5",
            ],
        ),
    ],
)
def test_formats_per_language(lang: str, expected: list[str]) -> None:
    fmt = Formatter(Strings(lang))
    got = [
        fmt.integer(1008045),
        fmt.latency(550, "ms"),
        fmt.latency(999.99, "ms"),
        fmt.latency(15000, "ms"),
        fmt.latency(230.4, "µs"),
        fmt.bandwidth(12984 * 1024**2, "MB/s"),
        fmt.number(2.45, 1),
    ]
    assert got == expected


def test_small_figures_keep_two_significant_digits() -> None:
    """Sub-microsecond latencies (fio's null engine), a few MB/s, far below 1 GB/s: never
    printed as 0 µs, 2 MB/s or 0.0 GB/s."""
    fmt = Formatter(Strings("en"))
    assert [fmt.latency(v, "µs") for v in (0.31, 2.345, 9.94, 230.4)] == [
        "0.31\u00a0µs",
        "2.3\u00a0µs",
        "9.9\u00a0µs",
        "230\u00a0µs",
    ]
    assert [fmt.bandwidth(v * 1024**2, "MB/s") for v in (1.66, 67.2)] == ["1.7", "67"]
    gb = [fmt.bandwidth(v * 1024**3, "GB/s") for v in (11.52, 0.124, 0.00166)]
    assert gb == ["11.5", "0.12", "0.0017"]
    assert [fmt.few(v) for v in (-0.5, -12.4, float("nan"))] == ["-0.50", "-12", "NaN"]


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


@pytest.mark.parametrize("style", ["de-DE", "de-AT"])
def test_german_number_style_of_a_report(tmp_path: Path, style: str) -> None:
    """One thousands separator everywhere: text, tables and chart axes."""
    report = Path(shutil.copytree(FS840, tmp_path / "report"))
    toml = report / "report.toml"
    toml.write_text(f'number_style = "{style}"\n' + toml.read_text(encoding="utf-8"))
    ctx = prepare(report)
    de, en = whitepaper.body(ctx, "de"), whitepaper.body(ctx, "en")
    assert "1.008.045" in de and "1’008’045" not in de and "0,50\u00a0ms" in de
    assert "1,008,045" in en and "0.50\u00a0ms" in en
    assert ctx.formatter("de").d3_locale()["thousands"] == "."
    assert ctx.formatter("de").region == style[-2:].lower()
    summary = ctx.filled["de"]["summary"].text
    assert "’" not in re.sub(r"[A-Za-zäöü]’[a-z]", "", summary)  # no de-CH number left


def test_a_figure_that_rounds_to_zero_has_no_sign() -> None:
    """-0.0 (fio can give a rate as -0.0) and -0.0001 printed "-0" and "-0.00"."""
    for lang in ("en", "de"):
        fmt = Formatter(Strings(lang))
        assert [fmt.number(-0.0), fmt.number(-0.0001, 2), fmt.integer(-0.4)] == ["0", "0.00", "0"]
        assert fmt.number(-2.5, 1) == "-2.5"  # a figure that is not zero keeps its sign
