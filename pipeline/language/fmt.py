"""Locale number formatting: the one place that turns raw numbers into text.

Rounding is half-up on the decimal value (babel's default half-even is not what readers
expect from a printed table), then babel applies the locale's symbols: de-CH
``1’008’045`` and ``0.55`` (a report may choose de-DE or de-AT: ``1.008.045`` and
``0,55``); en ``1,008,045``.
"""

from __future__ import annotations

import datetime as dt
import functools
import math
from decimal import ROUND_HALF_UP, Decimal

from babel import Locale
from babel.dates import format_date
from babel.numbers import NumberPattern, get_decimal_symbol, get_group_symbol, parse_pattern

from pipeline.language.strings import Strings
from pipeline.units import Convention, block_label, kilo, mega


def _half_up(value: float, places: int) -> Decimal:
    return Decimal(repr(float(value))).quantize(Decimal(1).scaleb(-places), ROUND_HALF_UP)


def significant_places(value: float, digits: int = 2) -> int:
    """Decimal places that show ``digits`` significant digits, judged after rounding
    (0.99999 -> 1.0, not 1.00); none at or above 10."""
    if not value > 0 or not math.isfinite(value):  # NaN and infinity too
        return 0
    places = max(0, digits - 1 - math.floor(math.log10(value)))
    rounded = float(_half_up(value, places))
    if rounded >= 10:
        return 0
    if math.floor(math.log10(rounded)) > math.floor(math.log10(value)):
        return max(0, places - 1)
    return places


@functools.cache
def _babel_locale(name: str) -> Locale:
    """Babel's locale data, loaded once per process (kept here, not on a Formatter, so a
    Formatter stays small when pickled)."""
    return Locale.parse(name)


@functools.cache
def _pattern(places: int) -> NumberPattern:
    """Grouped thousands and ``places`` decimals (babel parses a pattern text anew on each
    ``format_decimal``: parsed once here, the same text is a third of the time)."""
    return parse_pattern("#,##0" + ("." + "0" * places if places else ""))


class Formatter:
    def __init__(
        self,
        strings: Strings,
        setups: dict[str, str] | None = None,
        units: Convention = "binary",
        locale: str | None = None,
    ) -> None:
        self.t = strings
        self.locale = locale or strings("format.locale")  # a babel locale, e.g. de_DE
        _babel_locale(self.locale)  # an unknown locale fails here, not at the first number
        self.setups = setups or {}  # setup name -> its description in this language
        self.units = units
        self.mega = mega(units)  # bytes in the MB the report prints

    @property
    def region(self) -> str | None:
        """The locale's country in lower case ("ch"), for typst's hyphenation and quotes."""
        return self.locale.split("_")[1].lower() if "_" in self.locale else None

    def setup(self, name: str) -> str:
        return self.setups.get(name) or name

    def number(self, value: float, places: int = 0) -> str:
        return str(_pattern(places).apply(_half_up(value, places), _babel_locale(self.locale)))

    def integer(self, value: float) -> str:
        return self.number(value, 0)

    def lat_ms(self, us: float) -> str:
        """Two significant digits below 10 ms, whole milliseconds above: 0.55, 1.4, 15."""
        ms = us / 1000
        return f"{self.number(ms, significant_places(ms))} {self.t('unit.ms')}"

    def amount(self, value: float) -> str:
        """Exact figures: whole numbers without decimals, anything else with two."""
        whole = abs(value - round(value)) <= 1e-9 * max(1.0, abs(value))
        return self.number(value, 0 if whole else 2)

    def money(self, value: float, currency: str) -> str:
        return f"{self.amount(value)} {currency}"

    def derived(self, value: float) -> str:
        """A computed ratio (price per TB, watts per 1000 IOPS) as the seeds print it:
        whole units from 10 up (3’070, 23), two significant digits below (4.2, 0.55) — the
        inputs are not more precise than that."""
        whole = abs(value - round(value)) <= 1e-9 * max(1.0, abs(value))
        small = abs(value) < 10 and not whole
        return self.number(value, significant_places(abs(value)) if small else 0)

    def lat_us(self, us: float) -> str:
        """Whole microseconds; two significant digits below 10 µs (fio's null engine and
        fast devices: 0.31 µs, never 0 µs)."""
        return f"{self.few(us)} {self.t('unit.us')}"

    def mb_s(self, bytes_per_s: float) -> str:
        """Whole MB/s; two significant digits below 10 MB/s (1.7, never 2)."""
        return self.few(bytes_per_s / self.mega)

    def gb_s(self, bytes_per_s: float) -> str:
        """GB by the convention (seed 004: 11.5 GB/s, GB = 1024³ B), one decimal; two
        significant digits below 1 GB/s (0.12, 0.0017: never 0.0 GB/s)."""
        gb = bytes_per_s / self.mega / kilo(self.units)
        return self.number(gb, 1 if gb >= 1 else max(1, significant_places(gb)))

    def few(self, value: float) -> str:
        """A figure that is whole from 10 up, with two significant digits below."""
        small = abs(value) < 10
        return self.number(value, significant_places(abs(value))) if small else self.integer(value)

    def block(self, size: int) -> str:
        return block_label(size)

    def date(self, value: dt.date) -> str:
        return str(format_date(value, format=self.t("format.date"), locale=self.locale))

    def d3_locale(self) -> dict[str, object]:
        """The same number style for Vega (charts) as babel gives the text."""
        return {
            "decimal": get_decimal_symbol(self.locale),
            "thousands": get_group_symbol(self.locale),
            "grouping": [3],
            "currency": ["", ""],
        }
