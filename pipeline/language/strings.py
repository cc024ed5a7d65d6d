"""Strings per language, from ``locales/<lang>.toml``. A missing key is an error."""

from __future__ import annotations

import tomllib
from functools import cache
from typing import Any, Literal

from babel import Locale

from pipeline.paths import LOCALES


class MissingString(KeyError):
    """A string key that the locale file does not define."""


def _flatten(table: dict[str, Any], prefix: str = "") -> dict[str, str]:
    flat: dict[str, str] = {}
    for key, value in table.items():
        name = f"{prefix}{key}"
        if isinstance(value, dict):
            flat.update(_flatten(value, name + "."))
        else:
            flat[name] = str(value)
    return flat


@cache
def load(lang: str) -> dict[str, str]:
    with (LOCALES / f"{lang}.toml").open("rb") as fh:
        return _flatten(tomllib.load(fh))


Variant = Literal["servers", "vms"]  # what generated the load: report.toml load_generators


@cache
def _with_variant(lang: str, variant: Variant) -> dict[str, str]:
    """The language's strings, those of the variant's table (``[vms]``) in place of the
    plain ones they repeat: "per VM" where the load came from VMs."""
    table = load(lang)
    prefix = f"{variant}."
    return table | {k.removeprefix(prefix): v for k, v in table.items() if k.startswith(prefix)}


class Strings:
    """``t("section.summary")`` or ``t("chart.caption", block="4 KB", access="Random")``."""

    def __init__(self, lang: str, variant: Variant = "servers") -> None:
        self.lang = lang
        self.table = _with_variant(lang, variant)

    def __call__(self, key: str, **values: object) -> str:
        try:
            text = self.table[key]
        except KeyError:
            raise MissingString(f"locales/{self.lang}.toml has no string {key!r}") from None
        return text.format(**values) if values else text

    def count(self, key: str, number: float, **values: object) -> str:
        """The string for ``number`` things in the language's plural form (CLDR rules via
        babel): ``key.one``, ``key.other`` and, where a language has them, ``key.few`` …;
        the number itself goes in formatted by the caller (e.g. ``n=fmt.integer(3)``)."""
        form = Locale.parse(self("format.locale").replace("-", "_")).plural_form(abs(number))
        chosen = f"{key}.{form}" if f"{key}.{form}" in self.table else f"{key}.other"
        return self(chosen, **values)

    def mix(self, read_pct: float, short: bool = False) -> str:
        prefix = "mix.short_" if short else "mix."
        key = {100.0: "r100", 70.0: "r70", 0.0: "r0"}.get(read_pct)
        if key:
            return self(prefix + key)
        read = f"{read_pct:g}"
        return self(prefix + "other", read=read, write=f"{100 - read_pct:g}")

    def access(self, access: str, long: bool = False, start: bool = False) -> str:
        """The access pattern's name: short (a table's row), ``long`` (in a sentence) or as
        the ``start`` of a title or heading ("Random: …", not "random: …")."""
        return self(f"access.{access}" + ("_start" if start else "_long" if long else ""))
