"""Where a build may write, and how its output replaces an earlier one.

An output folder must be missing, empty, or an earlier iopress output (it holds
``.iopress-output``); it may not be, hold or lie inside the report folder. Anything else
is refused before anything is touched. Output is made in a staging folder beside the
target and swapped in atomically (``renameat2(RENAME_EXCHANGE)`` on Linux), so a kill at
any moment leaves the old or the new output under the name; the next build clears what
a killed build left behind.
"""

from __future__ import annotations

import contextlib
import ctypes
import errno
import fcntl
import hashlib
import os
import secrets
import shutil
from collections.abc import Iterator
from pathlib import Path

from pipeline.errors import OutputError, UsageError

MARK = ".iopress-output"
OLD_STAMP = ".iopress-fingerprint"  # outputs of iopress before the mark existed
_RENAME_EXCHANGE = 2
_AT_FDCWD = -100


def _is_output(folder: Path) -> bool:
    return (folder / MARK).is_file() or (folder / OLD_STAMP).is_file()


# What an output folder holds (its mark says; a mark of before the kinds, by its files):
# a command replaces only an output of its own kind (compare -o pointed at a build output
# replaced its PDFs, site and manifest); datasheets may go beside a build's.
KINDS = ("build", "compare", "site", "datasheet")
_MAY_WRITE_INTO = {"datasheet": ("datasheet", "build")}


def output_kind(folder: Path) -> str | None:
    """The kind of iopress output ``folder`` holds; None where it cannot be told."""
    with contextlib.suppress(OSError, UnicodeDecodeError):
        words = (folder / MARK).read_text(encoding="utf-8").split()
        if len(words) == 3 and words[1] in KINDS:  # "iopress build output"
            return words[1]
    found = {"compare.csv": "compare", "manifest.json": "build", "site": "site"}
    return next((kind for name, kind in found.items() if (folder / name).exists()), None)


def mark_text(kind: str) -> str:
    return f"iopress {kind} output\n"


def _check_kind(target: Path, out: Path, kind: str | None) -> None:
    if kind is None or not _is_output(target):
        return
    theirs = output_kind(target)
    if theirs is not None and theirs not in _MAY_WRITE_INTO.get(kind, (kind,)):
        raise UsageError(
            f"output folder {out} holds an iopress {theirs} output: writing the {kind} "
            "there would replace it",
            "name another folder for it (-o)",
        )


def check_target(out: Path, report: Path | None = None, kind: str | None = None) -> Path:
    """The absolute output folder (relative paths against the working folder), or a
    ``UsageError`` when writing there could destroy something that is not ours (or an
    iopress output of another ``kind``)."""
    target = Path(os.path.abspath(out)).resolve()
    if report is not None:
        folder = report.resolve()
        if target == folder or folder.is_relative_to(target) or target.is_relative_to(folder):
            raise UsageError(
                f"output folder {out} is, holds or lies inside the report folder {report}",
                "write the output elsewhere, e.g. -o build/<id>",
            )
    if target.exists() and not target.is_dir():
        raise UsageError(f"output {out} is a file, not a folder", "name a folder")
    if target.is_dir() and any(target.iterdir()) and not _is_output(target):
        raise UsageError(
            f"output folder {out} is not empty and holds no earlier iopress output",
            "name a missing or empty folder, or an earlier iopress output",
        )
    _check_kind(target, out, kind)
    return target


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def _stem(out: Path) -> str:
    """The output's name as its scratch folders and lock file begin: shortened with a
    hash where it is long (a name has at most 255 bytes, and these add ~40)."""
    name = out.name
    if len(os.fsencode(name)) <= MAX_STEM:
        return name
    return f"{name[:32]}~{hashlib.sha256(os.fsencode(name)).hexdigest()[:16]}"


MAX_STEM = 64  # bytes


def _leftovers(out: Path) -> Iterator[tuple[Path, str]]:
    """(folder, "tmp" or "old") left by builds into ``out`` whose process is gone."""
    prefix = f".{_stem(out)}."
    found = out.parent.iterdir() if out.parent.is_dir() else iter(())
    for path in (p for p in found if p.name.startswith(prefix)):
        kind, _, rest = path.name[len(prefix) :].partition("-")
        pid = rest.partition("-")[0]
        if kind in ("tmp", "old") and pid.isdigit() and not _alive(int(pid)):
            yield path, kind


def clear_leftovers(out: Path) -> None:
    """Remove what killed builds left; an old output whose new one never arrived goes
    back under its name."""
    for path, kind in sorted(_leftovers(out), key=lambda p: p[1]):
        if kind == "old" and not out.exists():
            path.rename(out)
        else:
            shutil.rmtree(path, ignore_errors=True)


def scratch_name(out: Path, kind: str = "tmp") -> Path:
    return out.parent / f".{_stem(out)}.{kind}-{os.getpid()}-{secrets.token_hex(4)}"


@contextlib.contextmanager
def scratch(out: Path) -> Iterator[Path]:
    """A temporary folder beside ``out``, removed afterwards (or by the next build)."""
    path = scratch_name(out)
    path.mkdir(parents=True)
    try:
        yield path
    finally:
        shutil.rmtree(path, ignore_errors=True)


def _exchange(a: Path, b: Path) -> bool:
    """Swap two paths atomically; False where the system cannot."""
    try:
        libc = ctypes.CDLL(None, use_errno=True)
        rename = libc.renameat2
    except (OSError, AttributeError):
        return False
    done = rename(_AT_FDCWD, os.fsencode(a), _AT_FDCWD, os.fsencode(b), _RENAME_EXCHANGE)
    return int(done) == 0


def publish(work: Path, out: Path) -> None:
    """Put ``work`` under the name ``out``, replacing an earlier output atomically."""
    if not out.exists():
        work.rename(out)
    elif _exchange(work, out):
        shutil.rmtree(work, ignore_errors=True)
    else:
        old = scratch_name(out, "old")
        out.rename(old)
        work.rename(out)
        shutil.rmtree(old, ignore_errors=True)


@contextlib.contextmanager
def staging(out: Path, kind: str) -> Iterator[Path]:
    """A folder that replaces ``out`` only if the block succeeds; one build at a time
    (:func:`lock`); a failure to write is one line naming the file (:func:`writing`).
    Its mark says which ``kind`` of output it is."""
    with lock(out):
        with writing(out):
            clear_leftovers(out)
            work = scratch_name(out)
            work.mkdir()
            (work / MARK).write_text(mark_text(kind), encoding="utf-8")
        try:
            with writing(out, work):
                yield work
                publish(work, out)
        except BaseException:
            shutil.rmtree(work, ignore_errors=True)
            raise


@contextlib.contextmanager
def writing(out: Path, work: Path | None = None, whole: bool = False) -> Iterator[None]:
    """An ``OSError`` while writing ``out`` (disk full, a read-only folder, a name too
    long) as an ``OutputError`` naming the file as it would be called in ``out`` (with
    ``whole``, or when the system names none, ``out`` itself)."""
    try:
        yield
    except OSError as exc:
        name = str(out if whole or not exc.filename else exc.filename)
        if work is not None:
            name = name.replace(str(work), str(out), 1)
        why = f"cannot write the output: {exc.strerror or exc}"
        raise OutputError(name, why, _HINTS.get(exc.errno or 0, _HINT)) from None


_HINT = "write the output elsewhere (-o), into a folder you may write"
_HINTS = {
    errno.ENOSPC: "free space on that disk, or write the output elsewhere (-o)",
    errno.EDQUOT: "free space within your quota, or write the output elsewhere (-o)",
    errno.ENAMETOOLONG: "give the output folder (-o) or the report's id a shorter name",
}


# Locks held by this process (a command that builds several outputs, or builds and then
# stamps one, takes a lock it may already hold).
_HELD: dict[Path, int] = {}


@contextlib.contextmanager
def lock(out: Path) -> Iterator[None]:
    """Only one build at a time writes ``out``: a lock file beside it, held with
    ``flock``; a second build is refused, naming the first's process."""
    path = lock_path(out)
    if path in _HELD:
        yield
        return
    with writing(out, whole=True):
        out.parent.mkdir(parents=True, exist_ok=True)
        _HELD[path] = _acquire(path, out)
    try:
        yield
    finally:
        fd = _HELD.pop(path)
        with contextlib.suppress(OSError):
            path.unlink()
        os.close(fd)


def lock_path(out: Path) -> Path:
    return out.parent / f".{_stem(out)}.lock"


def _acquire(path: Path, out: Path) -> int:
    """The lock file's descriptor, locked; refused when another process holds it. A
    file unlinked by its holder in between is opened anew."""
    while True:
        fd = os.open(path, os.O_RDWR | os.O_CREAT | os.O_NOFOLLOW | os.O_CLOEXEC, 0o644)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            holder = "".join(c for c in os.pread(fd, 32, 0).decode("latin-1") if c.isdigit())
            os.close(fd)
            raise OutputError(
                out,
                f"another iopress (process {holder or '?'}) is writing this output",
                "wait until it has finished, or write the output elsewhere (-o)",
            ) from None
        if _same_file(fd, path):
            os.ftruncate(fd, 0)
            os.pwrite(fd, f"{os.getpid()}\n".encode(), 0)
            return fd
        os.close(fd)


def _same_file(fd: int, path: Path) -> bool:
    try:
        return os.stat(path, follow_symlinks=False).st_ino == os.fstat(fd).st_ino
    except FileNotFoundError:
        return False
