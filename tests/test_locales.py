"""Language is data: both locale files define the same keys, and every key used exists."""

from __future__ import annotations

import re

import pytest

from pipeline.config import LANGS
from pipeline.render.locale import MissingString, Strings, load
from tests.conftest import ROOT

KEY_USE = re.compile(r"""\bt\(\s*f?["']([a-z_]+\.[a-z_.0-9]+)["']""")
PREFIX_USE = re.compile(r"""["']((?:mix|access|kind|field)\.)""")


def test_both_languages_have_the_same_keys() -> None:
    de, en = set(load("de")), set(load("en"))
    assert sorted(de - en) == []
    assert sorted(en - de) == []


def _used_keys() -> set[str]:
    keys = set()
    for path in (ROOT / "pipeline").rglob("*.py"):
        keys |= set(KEY_USE.findall(path.read_text(encoding="utf-8")))
    return keys


def test_every_key_used_in_code_exists() -> None:
    used = _used_keys()
    assert len(used) > 30, "the key scanner found too few keys: is the pattern still right?"
    for lang in LANGS:
        missing = sorted(k for k in used if not k.endswith(".") and k not in load(lang))
        assert missing == [], f"{lang}: {missing}"


def test_every_schema_label_exists() -> None:
    from pipeline.schema import INTERVAL_FIELDS, POINT_FIELDS

    for lang in LANGS:
        strings = Strings(lang)
        for f in (*INTERVAL_FIELDS, *POINT_FIELDS):
            assert strings(f.label)


def test_a_missing_key_is_an_error() -> None:
    with pytest.raises(MissingString, match=r"locales/de\.toml has no string 'no\.such'"):
        Strings("de")("no.such")


def test_standard_mixes_and_access_patterns_have_names() -> None:
    for lang in LANGS:
        t = Strings(lang)
        assert {t.mix(m) for m in (100.0, 70.0, 0.0)} == {t("mix.r100"), t("mix.r70"), t("mix.r0")}
        assert t.mix(50.0).startswith("50%")
        assert t.access("random") and t.access("sequential", long=True)
