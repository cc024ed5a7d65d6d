"""Locale number formatting: the one place that turns raw numbers into text.

Rounding is half-up on the decimal value (babel's default half-even is not what readers
expect from a printed table), then babel applies the locale's symbols: de-CH
``1’008’045`` and ``0.55``; en ``1,008,045``.
"""

from __future__ import annotations

import datetime as dt
import math
from decimal import ROUND_HALF_UP, Decimal

from babel.dates import format_date
from babel.numbers import format_decimal, get_decimal_symbol, get_group_symbol

from pipeline.render.locale import Strings
from pipeline.units import block_label

MIB = 1024.0**2


class Formatter:
    def __init__(self, strings: Strings) -> None:
        self.t = strings
        self.locale = strings("format.locale")

    def number(self, value: float, places: int = 0) -> str:
        quantum = Decimal(1).scaleb(-places)
        rounded = Decimal(repr(float(value))).quantize(quantum, rounding=ROUND_HALF_UP)
        pattern = "#,##0" + ("." + "0" * places if places else "")
        return str(
            format_decimal(rounded, format=pattern, locale=self.locale, decimal_quantization=True)
        )

    def integer(self, value: float) -> str:
        return self.number(value, 0)

    def lat_ms(self, us: float) -> str:
        """Two significant digits below 10 ms, whole milliseconds above: 0.55, 1.4, 15."""
        ms = us / 1000
        places = 0 if round(ms, 1) >= 10 or ms <= 0 else max(0, 1 - math.floor(math.log10(ms)))
        return f"{self.number(ms, places)} {self.t('unit.ms')}"

    def lat_us(self, us: float) -> str:
        return f"{self.integer(us)} {self.t('unit.us')}"

    def mb_s(self, bytes_per_s: float) -> str:
        return self.integer(bytes_per_s / MIB)

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
