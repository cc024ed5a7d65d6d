"""mkdocs hooks of the site build (named in mkdocs.yml).

The i18n plugin builds the site once per language, each time with a new jinja
environment. Its templates come compiled from the installation (`make setup`,
``theme_cache``), or are compiled once per process and kept in its memory, shared by
those builds; a build never writes compiled code to disk. The theme's file listing
(mkdocs copies the theme's static files) is made once per process too, without walking
Material's thousands of icons in dot folders, which mkdocs' own filter leaves out
anyway."""

from __future__ import annotations

import functools
import os
import posixpath
import re
from typing import Any

from jinja2 import Environment, FileSystemLoader
from mkdocs.plugins import event_priority

from pipeline.render import theme_cache


@functools.cache
def theme_files(folders: tuple[str, ...]) -> tuple[str, ...]:
    """What jinja's ``FileSystemLoader.list_templates`` gives for ``folders``, less the
    files inside dot folders (mkdocs skips those: patterns ``.*`` and ``*/.*``)."""
    found: set[str] = set()
    for folder in folders:
        for here, dirs, names in os.walk(folder):
            dirs[:] = [d for d in dirs if not d.startswith(".")]
            rel = os.path.relpath(here, folder).replace(os.sep, "/")
            found.update(name if rel == "." else f"{rel}/{name}" for name in names)
    return tuple(sorted(found))


def _listing(make: Any) -> Any:
    def get_env() -> Environment:
        env: Environment = make()
        loader = env.loader
        if isinstance(loader, FileSystemLoader):
            folders = tuple(str(p) for p in loader.searchpath)
            loader.list_templates = lambda: list(theme_files(folders))  # type: ignore[method-assign]
        theme_cache.use(env)
        return env

    get_env.iopress = True  # type: ignore[attr-defined]
    return get_env


# First of the plugins' on_config: the search plugin's loads a template (its language's
# strings) from an environment of its own, which gets the compiled templates too. The
# i18n plugin builds each language with the same configuration: wrapped once.
@event_priority(100)
def on_config(config: Any) -> Any:
    if not getattr(config.theme.get_env, "iopress", False):
        config.theme.get_env = _listing(config.theme.get_env)
    return config


def on_env(env: Environment, config: Any, files: Any) -> Environment:
    theme_cache.attach(env)
    return env


# The language switch: the i18n plugin gives the home pages absolute links ("/de/"), which
# lead nowhere from file:// or a site in a sub-folder. They are made relative to the page.
_SWITCH = re.compile(r'(<a href=")(/[^"]*)(" hreflang=)')


def relative(target: str, page_url: str) -> str:
    """``target`` (absolute on the site) as seen from the page at ``page_url``."""
    folder = posixpath.dirname("/" + page_url) if not page_url.endswith("/") else "/" + page_url
    found = posixpath.relpath(target, folder or "/")
    return f"{found}/" if found == "." or target.endswith("/") else found


def on_post_page(output: str, page: Any, config: Any) -> str:
    return _SWITCH.sub(lambda m: m[1] + relative(m[2], page.url) + m[3], output)


# The 404 page: a site has one, at its root (a server shows it at any address), but each
# language's build wrote it there, so the last language's (German) replaced the default
# language's, its language switch pointing at the last page built. Each later language's
# build writes the default language's page again.
_NOT_FOUND: list[str] = []


def on_post_template(output_content: str, template_name: str, config: Any) -> str:
    if template_name != "404.html":
        return output_content
    i18n = config.plugins.get("i18n")
    if i18n is None or i18n.is_default_language_build:
        _NOT_FOUND[:] = [output_content]
        return output_content
    return _NOT_FOUND[0] if _NOT_FOUND else output_content
