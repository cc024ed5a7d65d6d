"""A content-hashed cache: outputs stored under the hash of everything they are made from,
so unchanged charts, documents and bundles are not made again. ``IOPRESS_CACHE`` names the
folder (default ``~/.cache/iopress``); deleting it is always safe."""

from __future__ import annotations

import contextlib
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


# Notes for the user: entries that failed their check (and were made again).
NOTES: list[str] = []
_DIGEST = 32  # an entry is the SHA-256 of its content, then the content


def get(name: str) -> bytes | None:
    """The entry, if present and its content matches its hash; a damaged or altered one
    is removed and noted, and counts as missing."""
    path = folder() / name[:2] / name
    try:
        stored = path.read_bytes()
    except OSError:
        return None
    digest, data = stored[:_DIGEST], stored[_DIGEST:]
    if hashlib.sha256(data).digest() == digest:
        return data
    NOTES.append(f"cache entry {path} failed its content check; made again")
    with contextlib.suppress(OSError):
        path.unlink()
    return None


def put(name: str, data: bytes) -> None:
    """Store atomically; a cache that cannot be written is no error (it is only a cache)."""
    target = folder() / name[:2] / name
    try:
        target.parent.mkdir(parents=True, exist_ok=True)
        with tempfile.NamedTemporaryFile(dir=target.parent, delete=False) as tmp:
            tmp.write(hashlib.sha256(data).digest() + data)
        os.replace(tmp.name, target)
    except OSError:
        pass


def cached(name: str, make: Callable[[], bytes]) -> bytes:
    found = get(name)
    if found is None:
        found = make()
        put(name, found)
    return found
