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
import os
import secrets
import shutil
from collections.abc import Iterator
from pathlib import Path

from pipeline.errors import UsageError

MARK = ".iopress-output"
OLD_STAMP = ".iopress-fingerprint"  # outputs of iopress before the mark existed
_RENAME_EXCHANGE = 2
_AT_FDCWD = -100


def _is_output(folder: Path) -> bool:
    return (folder / MARK).is_file() or (folder / OLD_STAMP).is_file()


def check_target(out: Path, report: Path | None = None) -> Path:
    """The absolute output folder (relative paths against the working folder), or a
    ``UsageError`` when writing there could destroy something that is not ours."""
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
    return target


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def _leftovers(out: Path) -> Iterator[tuple[Path, str]]:
    """(folder, "tmp" or "old") left by builds into ``out`` whose process is gone."""
    prefix = f".{out.name}."
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
    return out.parent / f".{out.name}.{kind}-{os.getpid()}-{secrets.token_hex(4)}"


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
def staging(out: Path) -> Iterator[Path]:
    """A folder that replaces ``out`` only if the block succeeds."""
    out.parent.mkdir(parents=True, exist_ok=True)
    clear_leftovers(out)
    work = scratch_name(out)
    work.mkdir()
    (work / MARK).write_text("iopress output\n", encoding="utf-8")
    try:
        yield work
    except BaseException:
        shutil.rmtree(work, ignore_errors=True)
        raise
    publish(work, out)
