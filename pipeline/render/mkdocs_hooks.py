"""mkdocs hooks of the site build (named in mkdocs.yml).

The i18n plugin builds the site once per language, each time with a new jinja
environment that compiles the Material templates again. Compiled templates are kept in
this process's memory and shared by those builds; never on disk, where a cached code
object would be a way to run code."""

from __future__ import annotations

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
