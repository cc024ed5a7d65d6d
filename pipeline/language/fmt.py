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
from collections.abc import Iterable, Sequence
from decimal import ROUND_HALF_UP, Decimal
from typing import Any

from babel import Locale
from babel.dates import format_date
from babel.lists import format_list
from babel.numbers import NumberPattern, get_decimal_symbol, get_group_symbol, parse_pattern

from pipeline.language.strings import Strings
from pipeline.units import TIME_UNITS_US, Convention, block_label, kilo, mega

SMALL_US = 100.0  # below this fastest latency a document's ms columns print in µs

# µs (latencies) or B/s (bandwidth) in one unit a table may print a figure in, and the
# locale key of its symbol; the raw figures are in µs and B/s (the schema's base units)
LATENCY_UNITS: dict[str, tuple[float, str]] = {
    "ms": (TIME_UNITS_US["ms"], "unit.ms"),
    "µs": (TIME_UNITS_US["µs"], "unit.us"),
}
BANDWIDTH_UNITS = ("MB/s", "GB/s")


def small_latencies(latencies_us: Iterable[float | None]) -> bool:
    """Whether a document's fastest latency is below 100 µs: then the figures of its ms
    columns print in µs (``Formatter.unit``), as ms would need a third decimal or more
    (fio's null engine: 0.035 µs, never 0.000035 ms)."""
    shown = [v for v in latencies_us if v is not None and v > 0 and math.isfinite(v)]
    return bool(shown) and min(shown) < SMALL_US


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


@functools.lru_cache(maxsize=1 << 16)
def _number(value: str, places: int, locale: str) -> str:
    """``Formatter.number`` of the float written ``value``, made once per process: a
    document prints the same levels, sizes and figures many times (≈ 4,000 numbers for
    fs840, ≈ 12 µs each through babel)."""
    rounded = _half_up(float(value), places)
    # a figure that rounds to zero prints none of its sign ("-0" of -0.0 or -0.0001)
    shown = abs(rounded) if rounded == 0 else rounded
    return str(_pattern(places).apply(shown, _babel_locale(locale)))


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
        small: bool = False,
        blocks: dict[int, str] | None = None,
    ) -> None:
        self.t = strings
        self.locale = locale or strings("format.locale")  # a babel locale, e.g. de_DE
        _babel_locale(self.locale)  # an unknown locale fails here, not at the first number
        self.setups = setups or {}  # setup name -> its description in this language
        self.units = units
        self.mega = mega(units)  # bytes in the MB the report prints
        self.small = small  # the document's fastest latency is below 100 µs
        # mean block size -> the block-size split it stands for ("4K/8K/64K 50/30/20"),
        # or the name of the workload mix ("File Server")
        self.blocks = blocks or {}
        # (access, block size, read share) -> the name of a workload mix ("Database")
        self.profiles: dict[tuple[str, int, float], str] = {}
        # a named profile's name in the dataset (report.toml's in the tool's language) ->
        # its name in this document's language
        self.profile_names: dict[str, str] = {}
        # per profile (tables.PROFILE's values) the tools whose points give a CPU figure:
        # fio's is of one worker, not the server
        self.cpu_tools: dict[tuple[Any, ...], frozenset[str]] = {}

    @property
    def region(self) -> str | None:
        """The locale's country in lower case ("ch"), for typst's hyphenation and quotes."""
        return self.locale.split("_")[1].lower() if "_" in self.locale else None

    def setup(self, name: str) -> str:
        return self.setups.get(name) or name

    def number(self, value: float, places: int = 0) -> str:
        return _number(repr(float(value)), places, self.locale)

    def integer(self, value: float) -> str:
        return self.number(value, 0)

    def listing(self, items: Sequence[str]) -> str:
        """``items`` as the locale joins a list ("a, b and c"; "a, b, and c")."""
        return str(format_list(list(items), locale=_babel_locale(self.locale)))

    def unit(self, declared: str) -> str:
        """The unit a table column declared in ``declared`` prints in: its own, but ms in
        µs where the document's fastest latency is below 100 µs (``small_latencies``)."""
        return "µs" if declared == "ms" and self.small else declared

    def latency(self, us: float, unit: str) -> str:
        """A latency in ``unit`` (ms or µs), with the unit: two significant digits below
        10, whole from 10 up (0.55 ms, 1.4 ms, 15 ms; 230 µs, 0.31 µs). A no-break space
        keeps the unit on its figure's line (a narrow cell broke "0.048 / µs")."""
        return f"{self.few(us / self.divisor(unit))}\u00a0{self.symbol(unit)}"

    def divisor(self, unit: str) -> float:
        """Base units (µs, B/s) in one ``unit`` (charts scale their axis by it)."""
        if unit in LATENCY_UNITS:
            return LATENCY_UNITS[unit][0]
        if unit not in BANDWIDTH_UNITS:
            raise KeyError(unit)
        return self.mega * (kilo(self.units) if unit == "GB/s" else 1)

    def symbol(self, unit: str) -> str:
        if unit in LATENCY_UNITS:
            return self.t(LATENCY_UNITS[unit][1])
        return self.t({"MB/s": "unit.mb_s", "GB/s": "unit.gb_s"}[unit])

    def axis_title(self, unit: str) -> str:
        """A chart's latency axis in ``unit``."""
        return self.t("chart.latency", unit=self.symbol(unit))

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

    def bandwidth(self, bytes_per_s: float, unit: str) -> str:
        """Bandwidth in ``unit`` without the unit. MB/s: whole, two significant digits
        below 10 (1.7, never 2). GB/s by the convention (seed 004: 11.5 GB/s, GB = 1024³ B):
        one decimal, two significant digits below 1 GB/s (0.12, never 0.1)."""
        value = bytes_per_s / self.divisor(unit)
        if unit == "MB/s":
            return self.few(value)
        return self.number(value, 1 if value >= 1 else max(1, significant_places(value)))

    def few(self, value: float) -> str:
        """A figure that is whole from 10 up, with two significant digits below."""
        small = abs(value) < 10
        return self.number(value, significant_places(abs(value))) if small else self.integer(value)

    def block(self, size: int) -> str:
        """A profile's block size, or the split a mean size stands for (fio bssplit)."""
        return self.blocks.get(size) or block_label(size)

    def profile(self, access: str, block_size: int, read_pct: float) -> str | None:
        """The name of the workload mix of these figures, if it has one."""
        return self.profiles.get((access, block_size, read_pct))

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
