"""mkdocs hooks of the site build (named in mkdocs.yml).

The i18n plugin builds the site once per language, each time with a new jinja
environment that compiles the Material templates again. Compiled templates are kept in
this process's memory and shared by those builds; never on disk, where a cached code
object would be a way to run code."""

from __future__ import annotations

import posixpath
import re
from typing import Any

from jinja2 import Environment
from jinja2.bccache import Bucket, BytecodeCache


class MemoryBytecodeCache(BytecodeCache):
    def __init__(self) -> None:
        self.code: dict[str, Any] = {}

    def load_bytecode(self, bucket: Bucket) -> None:
        found = self.code.get(f"{bucket.key}:{bucket.checksum}")
        if found is not None:
            bucket.code = found

    def dump_bytecode(self, bucket: Bucket) -> None:
        self.code[f"{bucket.key}:{bucket.checksum}"] = bucket.code


COMPILED = MemoryBytecodeCache()


def on_env(env: Environment, config: Any, files: Any) -> Environment:
    env.bytecode_cache = COMPILED
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
