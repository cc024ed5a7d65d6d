"""A content-hashed cache: outputs stored under the hash of everything they are made from,
so unchanged charts, documents and bundles are not made again. ``IOPRESS_CACHE`` names the
folder (default ``~/.cache/iopress``); deleting it is always safe."""

from __future__ import annotations

import hashlib
import os
import tempfile
from collections.abc import Callable
from pathlib import Path


def folder() -> Path:
    root = os.environ.get("IOPRESS_CACHE") or Path.home() / ".cache" / "iopress"
    return Path(root)


def key(*parts: bytes | str) -> str:
    digest = hashlib.sha256()
    for part in parts:
        data = part.encode("utf-8") if isinstance(part, str) else part
        digest.update(len(data).to_bytes(8, "little"))
        digest.update(data)
    return digest.hexdigest()


def get(name: str) -> bytes | None:
    path = folder() / name[:2] / name
    try:
        return path.read_bytes()
    except OSError:
        return None


def put(name: str, data: bytes) -> None:
    """Store atomically; a cache that cannot be written is no error (it is only a cache)."""
    target = folder() / name[:2] / name
    try:
        target.parent.mkdir(parents=True, exist_ok=True)
        with tempfile.NamedTemporaryFile(dir=target.parent, delete=False) as tmp:
            tmp.write(data)
        os.replace(tmp.name, target)
    except OSError:
        pass


def cached(name: str, make: Callable[[], bytes]) -> bytes:
    found = get(name)
    if found is None:
        found = make()
        put(name, found)
    return found
