"""Writing into a campaign folder that may have come from someone else: never through a
link. Every folder on the way is opened without following links (``O_NOFOLLOW``) and
must be a real folder; a file is written as a new file beside its place and renamed over
it (a rename replaces a name, it never writes through it). A link planted where iopress
writes is an error naming it, and nothing outside the folder is touched."""

from __future__ import annotations

import contextlib
import errno
import fcntl
import os
import secrets
import stat
from collections.abc import Callable, Iterator
from pathlib import Path

from pipeline.errors import InputError

LOCK = ".iopress.lock"  # held by one plan or run (and its fio) at a time
_DIR = os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC
_NEW = os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC
LINK_HINT = (
    "remove it: iopress writes into a campaign folder only through real folders and "
    "files (a received folder may plant a link to overwrite a file elsewhere)"
)


def planted(path: Path, what: str = "a link") -> InputError:
    return InputError(path, "", f"is {what}, where iopress writes", LINK_HINT)


class Folder:
    """A campaign folder (the one the command line names) and the writes into it."""

    def __init__(self, root: Path) -> None:
        self.root = root

    @contextlib.contextmanager
    def opened(self, rel: str, create: bool = True) -> Iterator[int]:
        """A descriptor of the folder ``rel`` (``jobs``, ``raw/env``), every part of the
        way a real folder, made where missing when ``create``."""
        fd = os.open(self.root, os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC)
        try:
            done = self.root
            for part in Path(rel).parts:
                done = done / part
                if create:
                    with contextlib.suppress(FileExistsError):
                        os.mkdir(part, dir_fd=fd)
                inner = self._step(fd, part, done)
                os.close(fd)
                fd = inner
            yield fd
        finally:
            os.close(fd)

    @staticmethod
    def _step(fd: int, part: str, path: Path) -> int:
        try:
            return os.open(part, _DIR, dir_fd=fd)
        except OSError as err:
            if err.errno in (errno.ELOOP, errno.ENOTDIR):
                is_link = stat.S_ISLNK(os.stat(part, dir_fd=fd, follow_symlinks=False).st_mode)
                raise planted(path, "a link" if is_link else "not a folder") from None
            raise

    @contextlib.contextmanager
    def locked(self) -> Iterator[int]:
        """The folder held for one ``plan`` or ``run`` at a time: an exclusive lock on its
        ``LOCK`` file (mode 600: no one else can take it), kept while the descriptor is
        open anywhere (``run`` hands it to fio, whose workers keep it: a run killed with
        ``kill -9`` leaves a fio that still writes, and the folder stays held until it
        ends). The file locked must still be the one at the name: a lock file removed
        meanwhile would let a second run take a new one."""
        for _ in range(10):
            fd = self._lock_file()
            try:
                self._take(fd)
                if self._current(fd):
                    break
            except BaseException:
                os.close(fd)
                raise
            os.close(fd)
        else:
            raise InputError(self.root / LOCK, "", "keeps being replaced", "leave it be")
        try:
            yield fd
        finally:
            os.close(fd)

    def _lock_file(self) -> int:
        flags = os.O_RDWR | os.O_CREAT | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC
        with self.opened(".") as folder:
            try:
                fd = os.open(LOCK, flags, 0o600, dir_fd=folder)
            except OSError as err:
                said = f"not a file iopress can lock ({err.strerror})"
                raise planted(self.root / LOCK, said) from None
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            os.close(fd)
            raise planted(self.root / LOCK, "not a regular file")
        return fd

    def _take(self, fd: int) -> None:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            raise InputError(
                self.root,
                "",
                "another iopress plan or run (or a fio it started) is using this folder",
                "wait until it ends (at most the point's run time after the run was "
                "stopped), then run again: finished points are kept",
            ) from None

    def _current(self, fd: int) -> bool:
        """Is the locked file still the one named ``LOCK`` in the folder?"""
        with self.opened(".") as folder:
            try:
                named = os.stat(LOCK, dir_fd=folder, follow_symlinks=False)
            except FileNotFoundError:
                return False
        held = os.fstat(fd)
        return (named.st_dev, named.st_ino) == (held.st_dev, held.st_ino)

    def check(self, rel: str) -> bool:
        """Does ``rel`` exist (as a regular file)? A link or anything else there is an
        error naming it."""
        path = Path(rel)
        with self.opened(str(path.parent)) as fd:
            return _regular(fd, path.name, self.root / rel)

    def write_with(self, rel: str, write: Callable[[Path], None], keep: bool = False) -> bool:
        """``write(path)`` fills a new file, renamed to ``rel`` afterwards (over an
        existing regular file, unless ``keep``); False where kept."""
        return self._replace(rel, keep, lambda _, path: write(path))

    def write(self, rel: str, text: str | bytes, keep: bool = False, sync: bool = False) -> bool:
        """Write ``text`` (UTF-8) to ``rel``; False where ``keep`` kept a file there. With
        ``sync`` the file is on the disk before it takes its name, and the name after."""
        data = text.encode("utf-8") if isinstance(text, str) else text

        def fill(fd: int, _: Path) -> None:
            with os.fdopen(fd, "wb", closefd=False) as fh:
                fh.write(data)
            if sync:
                os.fsync(fd)

        return self._replace(rel, keep, fill, sync)

    def _replace(
        self, rel: str, keep: bool, fill: Callable[[int, Path], None], sync: bool = False
    ) -> bool:
        path = Path(rel)
        with self.opened(str(path.parent)) as fd:
            if _regular(fd, path.name, self.root / rel) and keep:
                return False
            temp = f".{path.name}.{secrets.token_hex(4)}.new"
            try:
                new = os.open(temp, _NEW, 0o644, dir_fd=fd)
                try:
                    fill(new, self.root / path.parent / temp)
                finally:
                    os.close(new)
                os.replace(temp, path.name, src_dir_fd=fd, dst_dir_fd=fd)
                if sync:
                    os.fsync(fd)
            finally:
                with contextlib.suppress(FileNotFoundError):
                    os.unlink(temp, dir_fd=fd)
        return True

    def set_aside(self, folder: str, keep: Callable[[str], bool], into: str) -> list[str]:
        """The regular files of ``folder`` that ``keep`` refuses moved into its subfolder
        ``into`` (under a new name where one is there), never deleted; their names."""
        moved = []
        with self.opened(folder) as src, self.opened(f"{folder}/{into}") as dst:
            for name in sorted(os.listdir(src)):
                if keep(name) or not _regular(src, name, self.root / folder / name):
                    continue
                new = name
                while _there(dst, new):
                    new = f"{secrets.token_hex(2)}-{name}"
                os.rename(name, new, src_dir_fd=src, dst_dir_fd=dst)
                moved.append(name)
        return moved

    def remove(self, folder: str, keep: Callable[[str], bool]) -> None:
        """Remove the entries of ``folder`` that ``keep`` refuses (links as links)."""
        with self.opened(folder) as fd:
            for name in os.listdir(fd):
                if not keep(name):
                    with contextlib.suppress(FileNotFoundError, IsADirectoryError):
                        os.unlink(name, dir_fd=fd)


def _there(fd: int, name: str) -> bool:
    try:
        os.stat(name, dir_fd=fd, follow_symlinks=False)
    except FileNotFoundError:
        return False
    return True


def _regular(fd: int, name: str, path: Path) -> bool:
    """True for a regular file ``name``, False where nothing is; an error otherwise."""
    try:
        mode = os.stat(name, dir_fd=fd, follow_symlinks=False).st_mode
    except FileNotFoundError:
        return False
    if stat.S_ISLNK(mode):
        raise planted(path)
    if not stat.S_ISREG(mode):
        raise planted(path, "not a regular file")
    return True
