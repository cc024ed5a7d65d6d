"""A language is files, not code: a locale file and the report's texts in it. A
pseudo-language (``xx``, every string of English in «guillemets») is added to a copy of
the locales and of fs840, and the report builds in it: PDFs, datasheet and site."""

from __future__ import annotations

import ast
import os
import re
import shutil
import tomllib
from pathlib import Path

import pytest

from tests.cli import iopress_process
from tests.conftest import ROOT

PSEUDO = "xx"
KEPT = ("format", "cli")  # the number format's settings; the command line's (English only)


def pseudo_locale(english: str) -> str:
    """en.toml with every string bracketed, its [format] kept and its [cli] left out."""
    lines, table = [], ""
    for line in english.splitlines():
        if line.startswith("["):
            table = line.strip("[] ")
        string = re.match(r'^(\s*[\w.]+\s*=\s*)"(.*)"\s*(#.*)?$', line)
        if string and not table.startswith(KEPT):
            line = f'{string[1]}"«{string[2]}»"'
        if not table.startswith("cli"):
            lines.append(line)
    return "\n".join(lines) + "\n"


def pseudo_report(toml: str) -> str:
    """report.toml with each English text given in the pseudo-language too."""
    out = []
    for line in toml.splitlines():
        if line.startswith('en = "'):
            out += [line, f'{PSEUDO} = "«{line[len("en = ") + 1 : -1]}»"']
        else:
            out.append(re.sub(r'(\ben = "((?:[^"\\]|\\.)*)")', rf'\1, {PSEUDO} = "«\2»"', line))
    return "\n".join(out) + "\n"


@pytest.mark.slow
def test_a_language_added_as_files_builds(tmp_path: Path) -> None:
    locales = tmp_path / "locales"
    shutil.copytree(ROOT / "locales", locales)
    english = (locales / "en.toml").read_text(encoding="utf-8")
    (locales / f"{PSEUDO}.toml").write_text(pseudo_locale(english), encoding="utf-8")
    report = tmp_path / "fs840"
    shutil.copytree(ROOT / "data" / "examples" / "fs840", report)
    shutil.copytree(report / "text" / "en", report / "text" / PSEUDO)
    toml = pseudo_report((report / "report.toml").read_text(encoding="utf-8"))
    assert f"{PSEUDO} = " in toml and tomllib.loads(toml)
    (report / "report.toml").write_text(toml, encoding="utf-8")
    out = tmp_path / "out"
    env = {**os.environ, "IOPRESS_LOCALES": str(locales)}
    ran = iopress_process("build", report, "-o", out, env=env)
    assert ran.returncode == 0, ran
    for name in (f"fs840.{PSEUDO}.pdf", f"fs840-datasheet.{PSEUDO}.pdf"):
        assert (out / name).is_file(), name
    source = (out / f"fs840.{PSEUDO}.typ").read_text(encoding="utf-8")
    assert "«Figure»" in source and "«Management summary»" in source
    page = (out / "site" / PSEUDO / "fs840.html").read_text(encoding="utf-8")
    assert "«IBM all-flash storage for core applications on Power Systems»" in page


def test_the_pseudo_locale_has_every_key_of_english() -> None:
    english = (ROOT / "locales" / "en.toml").read_text(encoding="utf-8")
    pseudo = tomllib.loads(pseudo_locale(english))
    assert set(pseudo) == set(tomllib.loads(english)) - {"cli"}
    assert pseudo["doc"]["figure"] == "«Figure»"
    assert pseudo["format"] == tomllib.loads(english)["format"]


def test_the_site_has_the_documents_languages(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A locale file added is a language of the site, one removed is none (mkdocs.yml
    lists the house languages)."""
    from mkdocs.config import load_config

    from pipeline.language import strings
    from pipeline.paths import MKDOCS_CONFIG
    from pipeline.render.site import site_languages

    configured = load_config(config_file=str(MKDOCS_CONFIG)).plugins["i18n"].config.languages
    assert [x.locale for x in site_languages(configured, ("de", "en"))] == ["en", "de"]
    assert [x.locale for x in site_languages(configured, ("en",))] == ["en"]
    shutil.copytree(ROOT / "locales", tmp_path / "locales")
    english = (ROOT / "locales" / "en.toml").read_text(encoding="utf-8")
    (tmp_path / "locales" / f"{PSEUDO}.toml").write_text(pseudo_locale(english), encoding="utf-8")
    monkeypatch.setattr(strings, "LOCALES", tmp_path / "locales")
    try:
        added = site_languages(configured, ("de", "en", PSEUDO))[-1]
    finally:
        strings.load.cache_clear()
        strings._with_variant.cache_clear()
    assert (added.locale, added.name, added.default) == (PSEUDO, "English", False)
    assert added.theme == {"language": "en"}


def test_the_site_default_is_mkdocs_yml_s_where_it_is_a_language(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The site's default language (pages without a suffix) was the constant "en" beside
    mkdocs.yml's: it is mkdocs.yml's default where a locale file is there for it, else the
    first language, and exactly one language is the default."""
    from mkdocs.config import load_config

    from pipeline.paths import MKDOCS_CONFIG
    from pipeline.render import site

    configured = load_config(config_file=str(MKDOCS_CONFIG)).plugins["i18n"].config.languages
    assert site.default_language(configured, ("de", "en")) == "en"
    assert site.default_language(configured, ("de", "fr")) == "de"
    alone = site.site_languages(configured, ("de",))
    assert [(x.locale, x.default) for x in alone] == [("de", True)]
    monkeypatch.setattr(site, "LANGS", ("de", "en"))
    assert (site.suffix("en"), site.suffix("de")) == ("", ".de")


def test_no_code_lists_the_languages() -> None:
    """A language is a locale file: no module of the pipeline spells one, but the command
    line's (``paths.TOOL``, the one locale with a [cli] table)."""
    langs = {path.stem for path in (ROOT / "locales").glob("*.toml")}
    found = []
    for path in sorted((ROOT / "pipeline").rglob("*.py")):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        found += [
            f"{path.relative_to(ROOT)}:{node.lineno}: {node.value!r}"
            for node in ast.walk(tree)
            if isinstance(node, ast.Constant) and node.value in langs
        ]
    assert [place.split(":")[0] for place in found] == ["pipeline/paths.py"], found
