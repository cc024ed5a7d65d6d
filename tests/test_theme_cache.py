"""Material's templates compiled at `make setup` (pipeline/render/theme_cache.py): a build
uses them instead of compiling, never writes their folder, and uses a file only for the
template source it was compiled from, in an environment that compiles alike."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import jinja2
import pytest

from pipeline.render import theme_cache

Cache = theme_cache.InstalledBytecodeCache


@pytest.fixture
def cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Cache:
    """A fresh cache over an empty folder, in place of the installation's."""
    fresh = Cache(tmp_path / "jinja")
    monkeypatch.setattr(theme_cache, "COMPILED", fresh)
    return fresh


def _compiled(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The templates jinja compiles from now on in a theme environment (one the cache is
    attached to: the i18n plugin reads Material's language partials with its own)."""
    names: list[str] = []
    compile_ = jinja2.Environment.compile

    def spy(
        self: jinja2.Environment, source: Any, name: Any = None, filename: Any = None, *rest: Any
    ) -> Any:
        if isinstance(self.bytecode_cache, Cache):
            names.append(str(name))
        return compile_(self, source, name, filename, *rest)

    monkeypatch.setattr(jinja2.Environment, "compile", spy)
    return names


def _page(site: Path) -> str:
    return (site / "index.html").read_text(encoding="utf-8")


def test_a_build_compiles_no_template_that_setup_compiled(
    cache: Cache, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    folder = theme_cache.precompile(tmp_path / "setup")
    assert len(list(folder.rglob("*.cache"))) > 40  # Material's pages and partials
    cache.memory.clear()  # a new process
    compiled = _compiled(monkeypatch)
    page = _page(theme_cache.one_page_site(tmp_path / "build"))
    assert compiled == []
    assert page == _page(tmp_path / "setup" / "site")


def test_a_build_never_writes_the_folder(cache: Cache, tmp_path: Path) -> None:
    theme_cache.one_page_site(tmp_path / "build")
    assert not cache.folder.exists()
    assert cache.memory  # compiled once for the process (the second language reuses it)


def test_a_file_for_another_source_is_not_used(
    cache: Cache, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Every file replaced by the code of another template (or by garbage): the build
    compiles the templates itself and makes the same page."""
    folder = theme_cache.precompile(tmp_path / "setup")
    files = sorted(folder.rglob("*.cache"))
    other = files[0].read_bytes()
    for n, path in enumerate(files[1:]):
        path.write_bytes(other if n % 2 else b"not jinja bytecode")
    cache.memory.clear()
    compiled = _compiled(monkeypatch)
    page = _page(theme_cache.one_page_site(tmp_path / "build"))
    assert len(compiled) > 10
    assert page == _page(tmp_path / "setup" / "site")


def test_an_environment_that_compiles_otherwise_has_a_folder_of_its_own() -> None:
    plain = theme_cache.signature(jinja2.Environment())
    assert theme_cache.signature(jinja2.Environment()) == plain
    assert theme_cache.signature(jinja2.Environment(trim_blocks=True)) != plain
    assert theme_cache.signature(jinja2.Environment(extensions=["jinja2.ext.i18n"])) != plain
    other = jinja2.Environment()
    other.filters["date"] = str
    assert theme_cache.signature(other) != plain


def test_the_theme_templates_come_from_the_installation_only(
    cache: Cache, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """docs/security.md: the loader searches the installation's template folders, never
    the docs folder a build writes from a report."""
    searched: list[str] = []
    attach = theme_cache.attach

    def spy(env: jinja2.Environment) -> None:
        assert isinstance(env.loader, jinja2.FileSystemLoader)
        searched.extend(str(p) for p in env.loader.searchpath)
        attach(env)

    monkeypatch.setattr(theme_cache, "attach", spy)
    theme_cache.one_page_site(tmp_path / "build")
    assert searched
    assert all(Path(p).is_relative_to(sys.prefix) for p in searched), searched


def test_each_environment_keeps_its_own_folder(cache: Cache) -> None:
    """The signature was the cache's, set by the environment attached last: a second
    environment that compiles otherwise moved the first one's lookups into its folder."""
    first, second = jinja2.Environment(), jinja2.Environment(trim_blocks=True)
    theme_cache.attach(first)
    theme_cache.attach(second)
    found = [e.bytecode_cache for e in (first, second)]
    assert all(isinstance(c, Cache) for c in found)
    signatures = [c.signature for c in found if isinstance(c, Cache)]
    assert signatures == [theme_cache.signature(first), theme_cache.signature(second)]
    assert len(set(signatures)) == 2
