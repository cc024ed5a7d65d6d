"""A content-hashed cache: outputs stored under the hash of everything they are made from,
so unchanged charts, documents and bundles are not made again. ``IOPRESS_CACHE`` names the
folder (default ``~/.cache/iopress``); deleting it is always safe.

An entry is trusted only when it proves it was made by this user: it starts with the
HMAC-SHA256 of its name and content under a secret key that lives apart from the cache
(``IOPRESS_CACHE_KEY``, default ``~/.config/iopress/cache.key``, made on first use, mode
600). Whoever can write the cache (a shared or restored cache folder) cannot read the key,
so cannot make an entry that passes; a content hash stored beside the content proved
nothing (a forger recomputes it). The cache folder must be the user's own and writable by
no one else, and the key file private, or the cache is not used (with a note). Entries
are opened without following links and without blocking, and only regular files up to
``MAX_ENTRY`` bytes are read; anything else is a miss with a note, and made again. The
cache keeps to a size (``IOPRESS_CACHE_MB``, default 2048): the entries used longest ago
are removed (``prune``)."""

from __future__ import annotations

import contextlib
import errno
import hashlib
import hmac
import os
import re
import secrets
import stat
import time
from collections.abc import Callable, Iterator
from pathlib import Path

MAX_ENTRY = 512 * 1024 * 1024  # bytes of content (the largest entry, a PDF, is far below)
_MAC = 32  # an entry is the HMAC-SHA256 of its name and content, then the content
_KEY_BYTES = 32
_FILE = os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC
_DIR = os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC
_NEW = os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC

# Notes for the user: entries that failed their check (and were made again), a cache not
# used. Each once.
NOTES: list[str] = []


class Unusable(Exception):
    """The cache folder or its key cannot be trusted: the cache is not used."""


def folder() -> Path:
    root = os.environ.get("IOPRESS_CACHE") or Path.home() / ".cache" / "iopress"
    return Path(root)


def key_file() -> Path:
    """Where the secret key is: apart from the cache, in the user's configuration."""
    given = os.environ.get("IOPRESS_CACHE_KEY")
    if given:
        return Path(given)
    config = os.environ.get("XDG_CONFIG_HOME") or Path.home() / ".config"
    return Path(config) / "iopress" / "cache.key"


def key(*parts: bytes | str) -> str:
    digest = hashlib.sha256()
    for part in parts:
        data = part.encode("utf-8") if isinstance(part, str) else part
        digest.update(len(data).to_bytes(8, "little"))
        digest.update(data)
    return digest.hexdigest()


def _note(text: str) -> None:
    if text not in NOTES:
        NOTES.append(text)


# --- the key ---------------------------------------------------------------------------

_SECRETS: dict[Path, bytes] = {}


def _secret() -> bytes:
    path = key_file()
    if path not in _SECRETS:
        _SECRETS[path] = _load_key(path)
    return _SECRETS[path]


def _load_key(path: Path) -> bytes:
    try:
        try:
            return _read_key(path)
        except FileNotFoundError:
            _make_key(path)
            return _read_key(path)
    except OSError as exc:
        raise Unusable(
            f"cache key {path} cannot be read or made ({exc.strerror}): the cache is not used"
        ) from None


def _read_key(path: Path) -> bytes:
    fd = os.open(path, _FILE)
    try:
        info = os.fstat(fd)
        private = stat.S_ISREG(info.st_mode) and info.st_uid == os.getuid()
        if not private or info.st_mode & 0o077 or info.st_size != _KEY_BYTES:
            raise Unusable(
                f"cache key {path} is not a private file of {_KEY_BYTES} bytes (the user's "
                "own, mode 600): the cache is not used; remove it and a new one is made"
            )
        return os.read(fd, _KEY_BYTES)
    finally:
        os.close(fd)


def _make_key(path: Path) -> None:
    """A new random key, mode 600; a key another build made meanwhile is kept."""
    path.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
    tmp = path.with_name(f".{path.name}.{secrets.token_hex(8)}")
    fd = os.open(tmp, _NEW, 0o600)
    try:
        os.write(fd, secrets.token_bytes(_KEY_BYTES))
    finally:
        os.close(fd)
    try:
        with contextlib.suppress(FileExistsError):
            os.link(tmp, path)  # never replaces an existing key
    finally:
        tmp.unlink(missing_ok=True)


def _mac(name: str, data: bytes) -> bytes:
    return hmac.new(_secret(), name.encode("ascii") + b"\0" + data, hashlib.sha256).digest()


def signature(name: str, data: bytes) -> str | None:
    """The HMAC-SHA256 (hex) of ``name`` and ``data`` with the user's secret key, which
    no one else can make (a campaign's records of the files iopress created); None where
    the key cannot be had (a note says why)."""
    try:
        return _mac(name, data).hex()
    except Unusable as exc:
        _note(str(exc))
        return None


# --- the folder ------------------------------------------------------------------------


@contextlib.contextmanager
def _root(create: bool) -> Iterator[int]:
    """The cache folder, open, checked: the user's own and writable by no one else."""
    root = folder()
    if create:
        root.mkdir(mode=0o700, parents=True, exist_ok=True)
    fd = os.open(root, os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC)  # may be a link
    try:
        info = os.fstat(fd)
        if info.st_uid != os.getuid() or info.st_mode & 0o022:
            raise Unusable(
                f"cache folder {root} is not the user's own or is writable by others (mode "
                f"{stat.S_IMODE(info.st_mode):o}): the cache is not used; chmod go-w it"
            )
        yield fd
    finally:
        os.close(fd)


@contextlib.contextmanager
def _shelf(root: int, name: str, create: bool) -> Iterator[int]:
    """The subfolder of entry ``name`` (never a link)."""
    if create:
        with contextlib.suppress(FileExistsError):
            os.mkdir(name[:2], 0o700, dir_fd=root)
    fd = os.open(name[:2], _DIR, dir_fd=root)
    try:
        yield fd
    finally:
        os.close(fd)


# --- entries ---------------------------------------------------------------------------


def _bad(shelf: int, name: str, why: str) -> None:
    _note(f"cache entry {folder() / name[:2] / name} {why}; made again")
    with contextlib.suppress(OSError):
        os.unlink(name, dir_fd=shelf)


def _read_entry(shelf: int, name: str) -> bytes | None:
    """The stored bytes: a regular file (not a link, FIFO or device) of bounded size."""
    try:
        fd = os.open(name, _FILE, dir_fd=shelf)
    except FileNotFoundError:
        return None
    except OSError as exc:
        link = exc.errno == errno.ELOOP
        _bad(shelf, name, "is a link" if link else f"cannot be opened ({exc.strerror})")
        return None
    try:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode):
            _bad(shelf, name, "is not a regular file")
            return None
        stored = _read_at_most(fd, _MAC + MAX_ENTRY)
    finally:
        os.close(fd)
    if stored is None:
        _bad(shelf, name, f"is larger than {MAX_ENTRY:,} bytes")
    return stored


def _read_at_most(fd: int, limit: int) -> bytes | None:
    """The file's bytes, or None when it holds more than ``limit`` (or grows past it)."""
    if os.fstat(fd).st_size > limit:
        return None
    chunks, size = [], 0
    while chunk := os.read(fd, 1 << 20):
        size += len(chunk)
        if size > limit:
            return None
        chunks.append(chunk)
    return b"".join(chunks)


def _verified(shelf: int, name: str, stored: bytes) -> bytes | None:
    mac, data = stored[:_MAC], stored[_MAC:]
    if hmac.compare_digest(mac, _mac(name, data)):
        return data
    _bad(shelf, name, "failed its check (not made by this user's iopress, or damaged)")
    return None


def get(name: str) -> bytes | None:
    """The entry, if present and proven this user's; a damaged, altered or foreign one is
    removed and noted, and counts as missing. A hit is marked used now (``prune`` removes
    the entries used longest ago)."""
    try:
        with _root(create=False) as root, _shelf(root, name, create=False) as shelf:
            stored = _read_entry(shelf, name)
            found = None if stored is None else _verified(shelf, name, stored)
            if found is not None:
                with contextlib.suppress(OSError):
                    os.utime(name, dir_fd=shelf, follow_symlinks=False)
            return found
    except Unusable as exc:
        _note(str(exc))
    except OSError:
        pass  # no cache (yet), or a subfolder that is a link: a miss
    return None


def _write_entry(shelf: int, name: str, stored: bytes) -> None:
    tmp = f".{name}.{secrets.token_hex(6)}"
    fd = os.open(tmp, _NEW, 0o600, dir_fd=shelf)
    try:
        with os.fdopen(fd, "wb", closefd=False) as stream:
            stream.write(stored)
        os.replace(tmp, name, src_dir_fd=shelf, dst_dir_fd=shelf)
    except OSError:
        with contextlib.suppress(OSError):
            os.unlink(tmp, dir_fd=shelf)
        raise
    finally:
        os.close(fd)


def put(name: str, data: bytes) -> None:
    """Store atomically; a cache that cannot be written is no error (it is only a cache).
    The first store of a process prunes the cache to its size (``prune``)."""
    try:
        stored = _mac(name, data) + data
        with _root(create=True) as root:
            with _shelf(root, name, create=True) as shelf:
                _write_entry(shelf, name, stored)
            if not _PRUNED:
                _PRUNED.append(True)
                prune(root, limit())
    except Unusable as exc:
        _note(str(exc))
    except OSError:
        pass


# --- size ------------------------------------------------------------------------------

DEFAULT_MB = 2048  # the cache's size; IOPRESS_CACHE_MB sets another
KEPT = 0.8  # a cache over its size is pruned to this share of it
STALE_SECONDS = 24 * 3600  # a partial write (.name.xxxx) this old was abandoned
_PRUNED: list[bool] = []  # once per process


def limit() -> int:
    """The cache's size in bytes (``IOPRESS_CACHE_MB``; one that is no whole number of
    megabytes, or under one, leaves the default)."""
    given = os.environ.get("IOPRESS_CACHE_MB", "")
    whole = given.isascii() and given.isdigit() and len(given) <= 12  # not "²", nor 10⁴⁰⁰⁰
    megabytes = int(given) if whole and int(given) > 0 else DEFAULT_MB
    return megabytes * 1024 * 1024


def _entries(root: int) -> Iterator[tuple[float, int, int, str, str]]:
    """(last use, size, is partial, shelf, name) of every regular file on the shelves."""
    for shelf in os.listdir(root):
        if len(shelf) != 2:
            continue
        try:
            fd = os.open(shelf, _DIR, dir_fd=root)
        except OSError:
            continue
        try:
            for entry in os.scandir(fd):
                kind = _ENTRY.fullmatch(entry.name)  # only what put writes: a cache
                if not kind or entry.name.lstrip(".")[:2] != shelf:  # pointed at a home
                    continue
                try:  # gone meanwhile: another build's prune, a partial write renamed
                    info = entry.stat(follow_symlinks=False)
                except OSError:
                    continue
                if stat.S_ISREG(info.st_mode):
                    partial = int(kind["partial"] is not None)
                    yield info.st_mtime, info.st_size, partial, shelf, entry.name
        finally:
            os.close(fd)


# an entry's name (a SHA-256 in hex), or a write of one under way (``_write_entry``)
_ENTRY = re.compile(r"(?P<partial>\.)?[0-9a-f]{64}(?(partial)\.[0-9a-f]{12})")


def prune(root: int, size: int) -> int:
    """Remove the entries used longest ago until the cache holds at most ``KEPT`` of
    ``size`` bytes, where it holds more than ``size``; and partial writes a day old.
    Returns the bytes removed. An entry another build reads meanwhile is read whole (an
    open file outlives its name) or made again."""
    found = sorted(_entries(root))
    stale = time.time() - STALE_SECONDS
    gone = [e for e in found if e[2] and e[0] < stale]
    kept = [e for e in found if not e[2]]
    total = sum(e[1] for e in kept)
    if total > size:
        while kept and total > KEPT * size:
            oldest = kept.pop(0)
            total -= oldest[1]
            gone.append(oldest)
    for _, _, _, shelf, name in gone:
        with contextlib.suppress(OSError), _shelf(root, shelf, create=False) as fd:
            os.unlink(name, dir_fd=fd)
    return sum(e[1] for e in gone)


def cached(name: str, make: Callable[[], bytes]) -> bytes:
    found = get(name)
    if found is None:
        found = make()
        put(name, found)
    return found
