"""Material's templates compiled once, at `make setup`, into the installation.

Jinja compiles every template of the theme to Python code before it renders it: ≈ 50
templates, about half a second of each cold build. `make setup` runs ``precompile``: a
one-page site built with the house configuration, every template of the theme compiled
on the way and written as Jinja bytecode into ``.venv/share/iopress/jinja`` (beside the
vega-embed bundle). A build reads that folder and never writes it: what it compiles
itself stays in its memory, shared by the per-language builds of one process.

A bytecode file is a marshalled code object: loading one runs code. The folder is
therefore written by ``precompile`` only (the installation, never a build), and a file is
used only for the template whose source it was compiled from (Jinja compares a checksum
of the source) in an environment compiled alike (``signature``, part of the folder's
name). The templates are the theme's own files in the installation; a report's texts
reach them as the content of a page, never as template source (docs/security.md)."""

from __future__ import annotations

import contextlib
import hashlib
import os
import tempfile
from pathlib import Path
from typing import Any

import jinja2
from jinja2.bccache import Bucket, BytecodeCache

from pipeline.paths import INSTALLED

FOLDER = INSTALLED / "jinja"


def signature(env: jinja2.Environment) -> str:
    """What besides a template's source decides the code Jinja compiles from it."""
    settings = [
        jinja2.__version__,
        *sorted(env.extensions),
        *sorted(env.filters),
        *sorted(env.tests),
        repr(getattr(env, "newstyle_gettext", None)),
        env.block_start_string,
        env.block_end_string,
        env.variable_start_string,
        env.variable_end_string,
        env.comment_start_string,
        env.comment_end_string,
        repr(env.line_statement_prefix),
        repr(env.line_comment_prefix),
        repr((env.trim_blocks, env.lstrip_blocks, env.keep_trailing_newline)),
        repr((env.newline_sequence, env.optimized, env.is_async)),
        repr(env.autoescape) if isinstance(env.autoescape, bool) else "autoescape: a function",
    ]
    return hashlib.sha256("\n".join(settings).encode("utf-8")).hexdigest()[:16]


class InstalledBytecodeCache(BytecodeCache):
    """Compiled templates from this process's memory, else from the installation's folder
    (read only). New code goes to memory; to the folder only while ``writing`` (setup)."""

    def __init__(self, folder: Path, memory: dict[str, Any] | None = None, sig: str = "") -> None:
        self.folder = folder
        self.memory: dict[str, Any] = {} if memory is None else memory
        self.writing = False
        self.signature = sig

    def bound(self, sig: str) -> InstalledBytecodeCache:
        """This cache for an environment of signature ``sig`` (its memory shared): each
        environment looks in its own subfolder, whatever other environments exist."""
        made = InstalledBytecodeCache(self.folder, self.memory, sig)
        made.writing = self.writing
        return made

    def _file(self, bucket: Bucket) -> Path:
        return self.folder / self.signature / f"{bucket.key}.cache"

    def load_bytecode(self, bucket: Bucket) -> None:
        found = self.memory.get(f"{self.signature}:{bucket.key}:{bucket.checksum}")
        if found is not None:
            bucket.code = found
            return
        try:
            with self._file(bucket).open("rb") as handle:
                bucket.load_bytecode(handle)  # kept only if its source checksum matches
        except OSError:
            return

    def dump_bytecode(self, bucket: Bucket) -> None:
        self.memory[f"{self.signature}:{bucket.key}:{bucket.checksum}"] = bucket.code
        if self.writing:
            _write_atomically(self._file(bucket), bucket.bytecode_to_string())


def _write_atomically(path: Path, data: bytes) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, part = tempfile.mkstemp(dir=path.parent, suffix=".part")
    with os.fdopen(fd, "wb") as handle:
        handle.write(data)
    os.replace(part, path)


COMPILED = InstalledBytecodeCache(FOLDER)


def use(env: jinja2.Environment) -> None:
    """Use the compiled templates in ``env`` (any environment of the theme)."""
    env.bytecode_cache = COMPILED.bound(signature(env))


def attach(env: jinja2.Environment) -> None:
    """Use the compiled templates in ``env`` (the theme's, from mkdocs' ``on_env``); while
    precompiling, compile every template of the theme into the folder."""
    use(env)
    if COMPILED.writing:
        for name in env.list_templates(filter_func=_is_page_template):
            _compile(env, name)


def _compile(env: jinja2.Environment, name: str) -> None:
    """``name`` compiled; a template of a plugin the house configuration leaves out (the
    blog's, with filters only that plugin adds) does not compile here, nor is it used."""
    with contextlib.suppress(jinja2.TemplateError):
        env.get_template(name)


def _is_page_template(name: str) -> bool:
    """The theme's HTML templates (its assets folder holds scripts, not templates)."""
    return name.endswith((".html", ".xml")) and not name.startswith("assets/")


def precompile(work: Path) -> Path:
    """`make setup`: a one-page site built in ``work``, every theme template compiled into
    the folder on the way; returns the folder."""
    COMPILED.writing = True
    try:
        one_page_site(work)
    finally:
        COMPILED.writing = False
    return COMPILED.folder


def one_page_site(work: Path) -> Path:
    """A site of one page in both languages, built with the house configuration (its
    plugins, Markdown extensions and theme) into ``work/site``."""
    import logging

    from mkdocs.commands.build import build
    from mkdocs.config import load_config

    from pipeline.paths import MKDOCS_CONFIG

    logging.getLogger("mkdocs").setLevel(logging.ERROR)
    docs = work / "docs"
    docs.mkdir(parents=True)
    for suffix in ("", ".de"):
        (docs / f"index{suffix}.md").write_text("# iopress\n\nText.\n", encoding="utf-8")
    site = work / "site"
    build(load_config(config_file=str(MKDOCS_CONFIG), docs_dir=str(docs), site_dir=str(site)))
    return site


def install() -> Path:
    """`make setup`'s step: ``precompile`` in a temporary folder."""
    with tempfile.TemporaryDirectory(prefix="iopress-theme-") as tmp:
        return precompile(Path(tmp))
