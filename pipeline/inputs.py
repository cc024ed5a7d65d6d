"""Reading an untrusted report folder: one containment rule and one text decoder.

A report folder may come from anybody (auditors build folders vendors sent them). Every
file a build reads goes through :func:`inside`: it must resolve, symlinks included, to a
path inside the folder (or inside the SPC-1 catalogue, for catalogue ids). Text is decoded
by :func:`decode`: UTF-8 (with or without BOM), UTF-16 and UTF-32 with a BOM, strictly;
anything else, and a NUL character, is an error naming the line.
"""

from __future__ import annotations

import codecs
import contextlib
import hashlib
import io
import json
import os
import stat
from collections import Counter
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from pipeline.errors import InputError

# Control characters: C0, DEL, C1, and the bidi embeddings, overrides and isolates, which
# reorder what a line shows ("Trojan Source"). A name taken from data holds none of them
# (they would reach the terminal, the report and file names); the consoles write them out.
CONTROL = "[\x00-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069]"

OUTSIDE_HINT = "keep every file the report names inside the report folder (no links out)"
# Whole-file readers (fio JSON, IOgen and vdbench tables, narrative, TOML) refuse larger
# files up front instead of growing without bound; fio logs are streamed and not limited.
MAX_TEXT_BYTES = 512 * 1024 * 1024
MAX_TOML_BYTES = 16 * 1024 * 1024  # a TOML file (report.toml, SPC-1 records, mappings)
DEEP = "nested deeper than iopress reads (arrays or objects in each other)"

# Longest BOM first: the UTF-32-LE BOM begins with the UTF-16-LE one.
_BOMS = (
    (codecs.BOM_UTF32_LE, "utf-32-le"),
    (codecs.BOM_UTF32_BE, "utf-32-be"),
    (codecs.BOM_UTF8, "utf-8"),
    (codecs.BOM_UTF16_LE, "utf-16-le"),
    (codecs.BOM_UTF16_BE, "utf-16-be"),
)


def is_inside(root: Path, path: Path) -> bool:
    """Does ``path`` resolve (symlinks included) to ``root`` or below it?"""
    return real(path).is_relative_to(resolved(root))


def real(path: Path) -> Path:
    """``path`` with its links resolved (``Path.resolve``): a file that is no link is its
    folder's resolution and its name, the folder resolved once while a ledger is open
    (7,500 files in one folder: one ``lstat`` each, not one per part of the path)."""
    try:
        if path.name in ("", ".", "..") or path.is_symlink():
            return path.resolve()
        return resolved(path.parent) / path.name
    except RuntimeError:  # Python 3.11: "Symlink loop from …"
        raise InputError(path, "", "a link loop", "remove the link or point it at a file") from None


def resolved(root: Path) -> Path:
    """``root`` with its links resolved: once while a ledger is open (a build resolves its
    report folder once, not again for every file it checks), else now."""
    for book in _LEDGERS:
        found = book.resolved.get(root)
        if found is not None:
            return found
    found = root.resolve()
    if _LEDGERS:
        _LEDGERS[0].resolved[root] = found
    return found


def inside(root: Path, name: str | Path, where: Path | str = "", place: str = "") -> Path:
    """``root / name`` if it resolves inside ``root``; else an error naming ``where``
    (the file that named it) and ``place`` (where in that file)."""
    path = root / name
    if not is_inside(root, path):
        raise InputError(
            where or path,
            place,
            f"{str(name)!r} points outside the report folder",
            OUTSIDE_HINT,
        )
    return path


def parse_json(text: str, path: Path | str) -> Any:
    """JSON text as Python values; bad JSON, or nesting deeper than the parser follows,
    is an error naming the line and column."""
    try:
        return json.loads(text)
    except json.JSONDecodeError as err:
        where, what = f"line {err.lineno}, column {err.colno}", f"not JSON: {err.msg}"
        raise InputError(path, where, what, "write it again") from None
    except RecursionError:
        raise InputError(path, "", DEEP, "give the file as the tool wrote it") from None


def encoding_of(raw: bytes) -> tuple[str, int]:
    """The encoding a BOM announces (UTF-8 without one) and the BOM's length."""
    for bom, name in _BOMS:
        if raw.startswith(bom):
            return name, len(bom)
    return "utf-8", 0


def utf8_head(raw: bytes) -> bytes:
    """The first bytes of a file as UTF-8 (for format sniffing), whatever its BOM says."""
    name, skip = encoding_of(raw)
    if name == "utf-8":
        return raw
    return raw[skip:].decode(name, errors="ignore").encode("utf-8")


def decode(raw: bytes, path: Path | str) -> str:
    """Text of a file's bytes; bad bytes and NUL are errors naming the line."""
    name, skip = encoding_of(raw)
    try:
        text = raw[skip:].decode(name)
    except UnicodeDecodeError as exc:
        line = raw[: skip + exc.start].count(b"\n" if name == "utf-8" else "\n".encode(name)) + 1
        raise InputError(
            path,
            f"line {line}",
            f"not {name.upper()} text (byte {skip + exc.start})",
            "save the file as UTF-8",
        ) from None
    if "\0" in text:
        line = text[: text.index("\0")].count("\n") + 1
        raise InputError(path, f"line {line}", "NUL character in text", "remove it")
    return text


def read_bytes(path: Path, limit: int = MAX_TEXT_BYTES) -> bytes:
    """A whole file, refused up front when it is larger than ``limit``; opened once, and
    what was read is entered in the ledgers (see :func:`ledger`). Read with ``os.read``,
    without a file object (its buffer costs more than the read of a small file)."""
    return _read_seen(path, limit)[0]


def read_alone(path: Path, root: Path | None) -> tuple[bytes, dict[str, Seen]]:
    """``read_bytes`` of a file, with what a ledger of ``root`` (None: of no folder)
    opened around that read alone would hold, and its errors; without the cost of a
    ledger per file where many are read one after the other (fio's JSON)."""
    inner = resolved(root) if root is not None else None
    data, seen = _read_seen(path, MAX_TEXT_BYTES)
    if inner is not None and not Path(seen.real).is_relative_to(inner):
        raise InputError(path, "", "points outside the report folder", OUTSIDE_HINT)
    return data, {os.path.abspath(path): seen}


def _read_seen(path: Path, limit: int) -> tuple[bytes, Seen]:
    fd, info = _open_regular(path)
    try:
        if info.st_size > limit:
            raise _too_large(path, info.st_size, limit)
        data = _read_fd(fd, info.st_size + 1)  # not limit + 1: a buffer that large costs
        if len(data) > info.st_size:  # grew since it was opened
            data += _read_fd(fd, limit + 1 - len(data))
        if len(data) > limit:
            raise _too_large(path, len(data), limit)
        seen = _record(path, fd, info, hashlib.sha256(data).hexdigest(), len(data))
    except OSError as exc:
        raise InputError(path, "", f"cannot read: {exc.strerror}", "check the path") from None
    finally:
        os.close(fd)
    return data, seen


def _read_fd(fd: int, size: int) -> bytes:
    """Up to ``size`` bytes, fewer only at the end of the file."""
    data = os.read(fd, size)
    if not data or len(data) == size:  # the whole of a regular file, as a rule
        return data
    parts = [data]
    size -= len(data)
    while size > 0 and (part := os.read(fd, size)):
        parts.append(part)
        size -= len(part)
    return b"".join(parts)


def read_head(path: Path, size: int) -> bytes:
    """A file's first ``size`` bytes (to recognise its format); a regular file only."""
    with _opened(path) as (fh, _):
        return fh.read(size)


def _too_large(path: Path, size: int, limit: int) -> InputError:
    return InputError(
        path,
        "",
        f"file too large to read whole ({size:,} bytes; the limit is {limit:,})",
        "split it into one file per run, or check that the right file is named",
    )


def read_text(path: Path, limit: int = MAX_TEXT_BYTES) -> str:
    return decode(read_bytes(path, limit), path)


# --- what was read: the ledger ------------------------------------------------------------


@dataclass(frozen=True)
class Seen:
    """What was read from one file: where it really lay (the open file's own path, links
    resolved), its size and the SHA-256 of the bytes read, and how many names it has."""

    real: str
    size: int
    sha256: str
    device: int
    inode: int
    links: int


@dataclass
class Ledger:
    """The files read while it is open, by the name they were opened under (absolute),
    the folders every read must lie in (none: anywhere), and the folders resolved while
    it is open (by their name as given)."""

    roots: tuple[Path, ...] = ()
    seen: dict[str, Seen] = field(default_factory=dict)
    pinned: list[tuple[Path, int, os.stat_result]] = field(default_factory=list)
    resolved: dict[Path, Path] = field(default_factory=dict)


_LEDGERS: list[Ledger] = []
CHANGED_HINT = "build again once nothing writes into the report folder"


@contextlib.contextmanager
def ledger(*roots: Path) -> Iterator[Ledger]:
    """Record every file read inside the block (nested ledgers all record it); a file read
    twice with other bytes, or one whose open file lies outside ``roots``, is an error.
    Files pinned for streaming (:func:`stream`) are closed when the block ends."""
    book = Ledger(tuple(resolved(r) for r in roots))
    book.resolved.update(zip(roots, book.roots, strict=True))
    _LEDGERS.append(book)
    try:
        yield book
        _unchanged(book)
    finally:
        _LEDGERS.remove(book)
        for _, fd, _ in book.pinned:
            os.close(fd)


def _unchanged(book: Ledger) -> None:
    """A pinned file was hashed, then read again by its reader: written in between (its
    size or time changed), the hash would not describe what the reader read."""
    for path, fd, info in book.pinned:
        now = os.fstat(fd)
        if (now.st_size, now.st_mtime_ns) != (info.st_size, info.st_mtime_ns):
            raise InputError(path, "", "changed while the build read it", CHANGED_HINT)


def enter(path: Path | str, seen: Seen) -> None:
    """Enter a read done elsewhere (a worker process) into the open ledgers."""
    if not _LEDGERS:
        return
    name = os.path.abspath(path)
    for book in _LEDGERS:
        before = book.seen.get(name)
        if before is not None and before.sha256 != seen.sha256:
            raise InputError(path, "", "changed while the build read it", CHANGED_HINT)
        if book.roots and not any(Path(seen.real).is_relative_to(r) for r in book.roots):
            raise InputError(path, "", "points outside the report folder", OUTSIDE_HINT)
        book.seen[name] = seen


def _record(path: Path, fd: int, info: os.stat_result, sha256: str, size: int) -> Seen:
    seen = Seen(_real(fd, path), size, sha256, info.st_dev, info.st_ino, info.st_nlink)
    enter(path, seen)
    return seen


def _real(fd: int, path: Path) -> str:
    """The path of the open file itself (a name swapped after the open does not change
    it); the name resolved where the system has no /proc."""
    try:
        return os.readlink(f"/proc/self/fd/{fd}")
    except OSError:
        return str(path.resolve())


@contextlib.contextmanager
def _opened(path: Path) -> Iterator[tuple[io.BufferedReader, os.stat_result]]:
    """``path`` opened for reading if it is a regular file. Non-blocking: a FIFO or a
    device is refused at once instead of waiting for a writer."""
    fd, info = _open_regular(path)
    with os.fdopen(fd, "rb") as fh:
        try:
            yield fh, info
        except OSError as exc:
            raise InputError(path, "", f"cannot read: {exc.strerror}", "check the path") from None


def _open_regular(path: Path) -> tuple[int, os.stat_result]:
    """A descriptor of ``path`` if it is a regular file, and its state."""
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | os.O_CLOEXEC)
    except OSError as exc:
        raise InputError(path, "", f"cannot read: {exc.strerror}", "check the path") from None
    info = os.fstat(fd)
    if not stat.S_ISREG(info.st_mode):  # before fdopen, which refuses a folder with a traceback
        os.close(fd)
        raise InputError(path, "", "not a regular file (a FIFO, device or folder)", "name a file")
    return fd, info


def digest(path: Path) -> Seen:
    """Enter a file read only to be listed (streamed: a large file costs time, not
    memory), and what was entered."""
    seen, fd, _ = _hashed(path)
    os.close(fd)
    return seen


def stream(path: Path) -> str:
    """A name under which a reader that opens files itself (polars) reads the very file
    hashed here: ``/proc/self/fd/N`` of an open file kept until the ledger closes; the
    name itself outside a ledger, or where the system has no /proc."""
    if not _LEDGERS or not os.path.isdir("/proc/self/fd"):
        return str(path)
    _, fd, info = _hashed(path)
    _LEDGERS[-1].pinned.append((path, fd, info))
    return f"/proc/self/fd/{fd}"


def _hashed(path: Path) -> tuple[Seen, int, os.stat_result]:
    """What is in ``path`` (entered in the ledgers), a descriptor of it open still, and
    its state before it was read."""
    with _opened(path) as (fh, info):
        found = hashlib.file_digest(fh, "sha256").hexdigest()
        seen = _record(path, fh.fileno(), info, found, fh.tell())
        return seen, os.dup(fh.fileno()), info


LINKED = "also has a name outside the report folder (a hard link); listed as read here"


def hard_links(root: Path, seen: Mapping[str, Seen]) -> list[str]:
    """A note for each file read in ``root`` that has more names (hard links) than the
    folder holds: the others lie outside, where containment by path cannot look. Its
    bytes are what was read and hashed, so the provenance still describes it."""
    top = root.resolve()
    many = {
        (s.device, s.inode): s
        for s in seen.values()
        if s.links > 1 and Path(s.real).is_relative_to(top)
    }
    if not many:
        return []
    count = Counter(key for key in _inodes(top) if key in many)
    return [
        f"{Path(s.real).relative_to(top).as_posix()}: {LINKED}"
        for key, s in many.items()
        if count[key] < s.links
    ]


def _inodes(top: Path) -> Iterator[tuple[int, int]]:
    for folder, _, files in walk(top):
        for name in files:
            try:
                info = os.lstat(os.path.join(folder, name))
            except OSError:  # a path too long to name, a folder not to be entered
                continue
            yield info.st_dev, info.st_ino


def walk(top: Path | str) -> Iterator[tuple[str, list[str], list[str]]]:
    """``os.walk(top)``, top down and links not followed, on a stack instead of by
    recursion: Python 3.11's walk recursed, and a folder 1,300 deep gave a RecursionError.
    A linked folder is listed among the folders (as os.walk does) but not entered; the
    caller may prune the folders list; a folder that cannot be listed is skipped."""
    stack = [os.fspath(top)]
    while stack:
        here = stack.pop()
        try:
            with os.scandir(here) as entries:
                found = [(e.name, e.is_dir(), e.is_symlink()) for e in entries]
        except OSError:
            continue
        dirs = [name for name, is_dir, _ in found if is_dir]
        files = [name for name, is_dir, _ in found if not is_dir]
        yield here, dirs, files
        links = {name for name, is_dir, link in found if is_dir and link}
        stack += [os.path.join(here, d) for d in reversed(dirs) if d not in links]


def too_deep(top: Path, limit: int) -> Path | None:
    """The first folder below ``top`` more than ``limit`` folders down, if any (searched
    before a ``**`` glob, which recurses: see :func:`walk`)."""
    base = len(top.parts)
    for here, dirs, _ in walk(top):
        if len(Path(here).parts) - base >= limit and dirs:
            return Path(here) / dirs[0]
    return None
