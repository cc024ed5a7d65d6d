"""The fingerprint of a build: everything its output depends on (the report folder, the
SPC-1 catalogue, iopress's own code and resources, the pinned dependencies, the options).
Standard library only, so that an unchanged build is recognised before anything heavy is
imported. The stamp also lists every output file with its size: an output folder that
was changed by hand is built again."""

from __future__ import annotations

import hashlib
import os
from pathlib import Path

from pipeline.inputs import walk

ROOT = Path(__file__).resolve().parent.parent
OWN = ("pipeline", "templates", "locales", "figures", "data/spc1")
OWN_FILES = ("mkdocs.yml", "requirements.lock", "pyproject.toml")
STAMP = ".iopress-fingerprint"


def _files(folder: Path) -> list[Path]:
    """Every file below ``folder``, links not followed (a link is an entry of its own)."""
    found = []
    for top, dirs, files in walk(folder):
        dirs[:] = [d for d in dirs if d != "__pycache__"]
        here = Path(top)
        found += [here / n for n in files] + [here / d for d in dirs if (here / d).is_symlink()]
    return sorted(found)


def _content(path: Path, root: Path) -> bytes:
    """A file's hash; a link that leads outside ``root`` counts by where it points (the
    build refuses it; its target is never read)."""
    if path.is_symlink() and not path.resolve().is_relative_to(root.resolve()):
        return b"link:" + os.readlink(path).encode()
    if path.is_dir():
        return b"dir-link:" + os.readlink(path).encode()
    if not path.is_file():
        return b"not a regular file"  # a FIFO or device is never read
    info = path.stat()
    if info.st_size > HASHED_BYTES:  # by its state: a sparse 8 GB file, never read, took 50 s
        state = (info.st_size, info.st_mtime_ns, info.st_ctime_ns, info.st_ino, info.st_dev)
        return b"large:" + repr(state).encode()
    with path.open("rb") as fh:  # streamed: a huge file costs time, not memory
        return hashlib.file_digest(fh, "sha256").digest()


# Files larger than this count by their size, times and inode, not their bytes: any write
# changes the change time (ctime), which no user can set back; the build itself hashes
# every file it reads (the ledger), whatever its size.
HASHED_BYTES = 64 * 1024 * 1024


def fingerprint(report: Path, options: str = "") -> str | None:
    """None when an input cannot be read: the build then runs and reports it properly."""
    try:
        return _digest(report, options)
    except (OSError, RuntimeError):  # RuntimeError: a link loop (Path.resolve)
        return None


def _digest(report: Path, options: str) -> str:
    digest = hashlib.sha256(options.encode())
    for base in (report, *(ROOT / d for d in OWN)):
        for path in _files(base):
            digest.update(os.fsencode(path.relative_to(base)) + b"\0")  # any name
            digest.update(_content(path, base))
    for name in OWN_FILES:
        digest.update(hashlib.sha256((ROOT / name).read_bytes()).digest())
    return digest.hexdigest()


def _listing(out: Path) -> list[str]:
    return [
        f"{path.stat().st_size} {path.relative_to(out).as_posix()}"
        for path in _files(out)
        if path.name != STAMP
    ]


def up_to_date(out: Path, print_: str | None) -> bool:
    """True when ``out`` holds a complete build whose inputs had the fingerprint ``print_``."""
    stamp_file = out / STAMP
    if print_ is None or not stamp_file.is_file():
        return False
    lines = stamp_file.read_text(encoding="utf-8").splitlines()
    return bool(lines) and lines[0] == print_ and lines[1:] == _listing(out)


def stamp(out: Path, print_: str | None) -> None:
    """Record that ``out`` was built from inputs with the fingerprint ``print_`` (taken
    before the build began, so that inputs edited during a build are noticed next time)."""
    if print_ is None:
        return
    lines = [print_, *_listing(out)]
    (out / STAMP).write_text("\n".join(lines) + "\n", encoding="utf-8")
