"""Language is data: both locale files define the same keys, and every key used exists."""

from __future__ import annotations

import re

import pytest

from pipeline.config import LANGS
from pipeline.language.strings import MissingString, Strings, load
from pipeline.paths import TOOL
from tests.conftest import ROOT

KEY_USE = re.compile(r"""\bt\(\s*f?["']([a-z_]+\.[a-z_.0-9]+)["']""")
PREFIX_USE = re.compile(r"""["']((?:mix|access|kind|field)\.)""")


ENGLISH_ONLY = "cli."  # the command line speaks English (docs/architecture.md)
REJECT = "reject."  # the readers' Message keys: tests/test_messages.py checks their use
VARIANT = "vms."  # strings in place of plain ones: used where the plain one is


@pytest.mark.parametrize("lang", [lang for lang in LANGS if lang != TOOL])
def test_every_language_has_the_keys_of_english(lang: str) -> None:
    """Every locale file (a language of the documents) has English's keys, [cli] aside."""
    other = set(load(lang))
    en = {k for k in load(TOOL) if not k.startswith(ENGLISH_ONLY)}
    assert sorted(other - en) == []
    assert sorted(en - other) == []


def test_the_languages_are_the_locale_files() -> None:
    assert tuple(sorted(p.stem for p in (ROOT / "locales").glob("*.toml"))) == LANGS


def _used_keys() -> set[str]:
    keys = set()
    for path in (ROOT / "pipeline").rglob("*.py"):
        keys |= set(KEY_USE.findall(path.read_text(encoding="utf-8")))
    return keys


def test_every_key_used_in_code_exists() -> None:
    used = _used_keys()
    assert len(used) > 30, "the key scanner found too few keys: is the pattern still right?"
    for lang in LANGS:
        missing = sorted(
            k
            for k in used
            if not k.endswith(".") and k not in load(lang) and not k.startswith(ENGLISH_ONLY)
        )
        assert missing == [], f"{lang}: {missing}"


def _code() -> str:
    return "\n".join(p.read_text(encoding="utf-8") for p in (ROOT / "pipeline").rglob("*.py"))


def _is_used(key: str, code: str, literals: set[str], prefixes: set[str]) -> bool:
    """Named in full, as a plural family (``key.one``), or built from a prefix the code
    writes (``f"chart.alt_{kind}"``, ``"mix.short_" + key``) and a rest it names."""
    if key in literals or key.rsplit(".", 1)[0] in literals:
        return True
    for prefix in prefixes:
        rest = key[len(prefix) :] if key.startswith(prefix) else ""
        if rest and (rest in literals or any(p in literals for p in rest.split("_"))):
            return True
    return False


def test_every_key_is_used() -> None:
    """No dead strings: every key of the locale files is used by the code."""
    code = _code()
    literals = set(re.findall(r"[\"']([A-Za-z0-9_.]+)[\"']", code))
    prefixes = set(re.findall(r"f?[\"']([a-z_]+\.[a-z_]*)[{\"']", code)) - {"."}
    unused = sorted(
        k
        for k in load("en")
        if not k.startswith((REJECT, VARIANT)) and not _is_used(k, code, literals, prefixes)
    )
    assert unused == []


def test_the_dead_key_check_sees_a_dead_key() -> None:
    code = 'fmt.t("doc.figure") + fmt.t(f"chart.alt_{kind}") where kind = "dual"'
    literals = {"doc.figure", "dual"}
    prefixes = {"chart.alt_"}
    assert _is_used("chart.alt_dual", code, literals, prefixes)
    assert not _is_used("doc.nowhere", code, literals, prefixes)


def test_every_schema_and_table_column_label_exists() -> None:
    from pipeline.compute.registry import TABLES
    from pipeline.schema import INTERVAL_FIELDS, POINT_FIELDS

    columns = [f for t in TABLES for f in t.columns]
    for lang in LANGS:
        strings = Strings(lang)
        for f in (*INTERVAL_FIELDS, *POINT_FIELDS, *columns):
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


@pytest.mark.parametrize(
    ("lang", "n", "expected"),
    [
        ("en", 1, "Each point was measured in one interval of 20 s."),
        ("en", 3, "Each point was measured in 3 intervals of 20 s; the mean is shown."),
        ("de", 1, "Jeder Messpunkt wurde in einem Intervall von 20 s gemessen."),
        (
            "de",
            3,
            "Pro Messpunkt wurden 3 Intervalle von 20 s gemessen; angegeben ist der Mittelwert.",
        ),
    ],
)
def test_counts_take_the_plural_form_of_the_language(lang: str, n: int, expected: str) -> None:
    assert Strings(lang).count("method.intervals", n, n=str(n), seconds="20") == expected


def test_one_server_and_one_process_are_singular() -> None:
    for lang, server, process in (
        ("en", "one server", "1 process"),
        ("de", "einem Server", "1 Prozess"),
    ):
        t = Strings(lang)
        assert server in t.count("method.hosts", 1, n="1")
        assert t.count("table.parallelism", 1, n="1") == process
        assert t.count("table.parallelism", 2, n="2") != process


@pytest.mark.parametrize("lang", LANGS)
def test_every_variant_string_replaces_a_plain_one(lang: str) -> None:
    table = load(lang)
    orphans = sorted(k for k in table if k.startswith(VARIANT) and k[len(VARIANT) :] not in table)
    assert orphans == []
    assert Strings(lang, "vms")("field.host") == "VM" != Strings(lang)("field.host")


@pytest.mark.parametrize("lang", ["de", "en"])
def test_the_unsure_note_names_the_table_that_shows_by_how_much(lang: str) -> None:
    """The "(?)" note said "the appendix shows by how much"; the site has no appendix, so
    it names the table (on the site under "Data and method") by its caption."""
    strings = load(lang)
    assert strings["appendix.optimum_caption"] in strings["table.unsure_note"]
