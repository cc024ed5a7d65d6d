"""The output cache and the build fingerprint: what makes a second build cheap must never
make it wrong."""

from __future__ import annotations

import contextlib
import hashlib
import hmac
import os
import shutil
import stat
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import Any

import pytest

from pipeline import cache
from pipeline.fingerprint import fingerprint, stamp, up_to_date
from tests.conftest import FS840, ROOT


@pytest.fixture()
def own_cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("IOPRESS_CACHE", str(tmp_path / "cache"))
    monkeypatch.setenv("IOPRESS_CACHE_KEY", str(tmp_path / "config" / "cache.key"))
    monkeypatch.setattr(cache, "NOTES", [])
    return tmp_path / "cache"


def test_key_keeps_part_boundaries() -> None:
    assert cache.key("ab", "c") != cache.key("a", "bc")
    assert cache.key("a", b"b") == cache.key(b"a", "b")


def test_put_then_get(own_cache: Path) -> None:
    name = cache.key("x")
    assert cache.get(name) is None
    cache.put(name, b"drawing")
    assert cache.get(name) == b"drawing"
    stored = (own_cache / name[:2] / name).read_bytes()
    secret = (own_cache.parent / "config" / "cache.key").read_bytes()
    mac = hmac.new(secret, name.encode() + b"\0drawing", hashlib.sha256).digest()
    assert stored == mac + b"drawing"
    assert cache.NOTES == []


def test_cached_makes_once(own_cache: Path) -> None:
    made: list[int] = []

    def make() -> bytes:
        made.append(1)
        return b"pdf"

    assert cache.cached(cache.key("y"), make) == cache.cached(cache.key("y"), make) == b"pdf"
    assert made == [1]


def test_unwritable_cache_is_no_error(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    blocker = tmp_path / "file"
    blocker.write_text("not a folder")
    monkeypatch.setenv("IOPRESS_CACHE", str(blocker))
    assert cache.cached(cache.key("z"), lambda: b"made") == b"made"
    assert cache.get(cache.key("z")) is None


@pytest.fixture()
def report(tmp_path: Path) -> Path:
    return Path(shutil.copytree(FS840, tmp_path / "report"))


def test_fingerprint_follows_inputs_and_options(report: Path) -> None:
    before = fingerprint(report)
    assert fingerprint(report) == before
    assert fingerprint(report, "strict=True") != before
    (report / "report.toml").write_text(
        (report / "report.toml").read_text(encoding="utf-8") + "\n", encoding="utf-8"
    )
    assert fingerprint(report) != before


def test_fingerprint_sees_renamed_input(report: Path) -> None:
    before = fingerprint(report)
    first = sorted(p for p in report.rglob("*") if p.is_file())[-1]
    first.rename(first.with_name("renamed-" + first.name))
    assert fingerprint(report) != before


def test_stamp_covers_the_output_files(report: Path, tmp_path: Path) -> None:
    out = tmp_path / "out"
    (out / "charts").mkdir(parents=True)
    (out / "charts" / "a.svg").write_text("<svg/>")
    print_ = fingerprint(report)
    assert not up_to_date(out, print_)
    stamp(out, print_)
    assert up_to_date(out, print_)
    assert not up_to_date(out, fingerprint(report, "other"))
    (out / "charts" / "a.svg").write_text("<svg></svg>")
    assert not up_to_date(out, print_)
    stamp(out, print_)
    (out / "charts" / "a.svg").unlink()
    assert not up_to_date(out, print_)


def test_unreadable_input_means_no_fingerprint(
    report: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    def unreadable(self: Path) -> bytes:
        raise PermissionError(13, "Permission denied", str(self))

    monkeypatch.setattr(Path, "read_bytes", unreadable)  # as for a file of another user
    assert fingerprint(report) is None
    monkeypatch.undo()
    out = tmp_path / "out"
    out.mkdir()
    stamp(out, None)
    assert not (out / ".iopress-fingerprint").exists()
    assert not up_to_date(out, None)


# --- a cache someone else can write (issue 32) -----------------------------------------------


def _entry(own_cache: Path, name: str) -> Path:
    return own_cache / name[:2] / name


def test_the_key_is_made_private_apart_from_the_cache(own_cache: Path) -> None:
    cache.put(cache.key("k"), b"x")
    secret = own_cache.parent / "config" / "cache.key"
    assert stat.S_IMODE(secret.stat().st_mode) == 0o600
    assert stat.S_IMODE(secret.parent.stat().st_mode) == 0o700
    assert len(secret.read_bytes()) == 32
    assert stat.S_IMODE(own_cache.stat().st_mode) == 0o700
    assert not secret.is_relative_to(own_cache)


def test_key_in_the_users_configuration_by_default(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("IOPRESS_CACHE_KEY")
    monkeypatch.setenv("XDG_CONFIG_HOME", "/home/u/.config")
    assert cache.key_file() == Path("/home/u/.config/iopress/cache.key")


def test_an_entry_with_a_recomputed_content_hash_is_not_used(own_cache: Path) -> None:
    """Each entry stored its own SHA-256: a forger rewrote 14 chart entries with their
    hashes recomputed and the forged text went into the PDF and the site."""
    name = cache.key("chart")
    cache.put(name, b"<svg>real</svg>")
    forged = b"<svg>FORGED</svg>"
    _entry(own_cache, name).write_bytes(hashlib.sha256(forged).digest() + forged)
    assert cache.get(name) is None
    assert [n for n in cache.NOTES if "failed its check" in n and name in n]
    assert not _entry(own_cache, name).exists()  # removed: made again on the next put


def test_an_entry_signed_with_another_key_or_name_is_not_used(own_cache: Path) -> None:
    first, second = cache.key("a"), cache.key("b")
    cache.put(first, b"one")
    cache.put(second, b"two")
    _entry(own_cache, second).write_bytes(_entry(own_cache, first).read_bytes())  # replayed
    assert cache.get(second) is None
    other = hmac.new(b"k" * 32, first.encode() + b"\0forged", hashlib.sha256).digest()
    _entry(own_cache, first).write_bytes(other + b"forged")
    assert cache.get(first) is None


def _get_in_time(name: str, seconds: float = 10) -> tuple[bool, bytes | None]:
    """``cache.get`` on a thread: (finished, result)."""
    found: list[bytes | None] = []
    worker = threading.Thread(target=lambda: found.append(cache.get(name)), daemon=True)
    worker.start()
    worker.join(seconds)
    return bool(found), found[0] if found else None


def test_a_fifo_entry_is_a_miss_and_never_blocks(own_cache: Path) -> None:
    """A FIFO in place of an entry hung the build (reading waits for a writer)."""
    name = cache.key("fifo")
    cache.put(name, b"x")
    fifo = _entry(own_cache, name)
    fifo.unlink()
    os.mkfifo(fifo)
    try:
        finished, found = _get_in_time(name)
    finally:
        with contextlib.suppress(OSError):  # release a reader that blocked (old code)
            os.close(os.open(fifo, os.O_WRONLY | os.O_NONBLOCK))
    assert finished, "reading a FIFO entry blocked"
    assert found is None
    assert [n for n in cache.NOTES if "not a regular file" in n]


LINK_TO_ZERO = """
import os, resource, sys
resource.setrlimit(resource.RLIMIT_DATA, (1 << 30, 1 << 30))
from pipeline import cache
name = cache.key("zero")
cache.put(name, b"x")
entry = cache.folder() / name[:2] / name
entry.unlink()
entry.symlink_to(sys.argv[1])
print(cache.get(name), cache.NOTES)
"""


@pytest.mark.parametrize("target", ["/dev/zero", "outside"])
def test_a_linked_entry_is_a_miss_never_followed(target: str, own_cache: Path) -> None:
    """An entry linked to /dev/zero ended in a MemoryError traceback (here under a 1 GiB
    ceiling); a link to a file outside the cache is never read either."""
    if target == "outside":
        outside = own_cache.parent / "outside"
        outside.write_bytes(b"\0" * 64)
        target = str(outside)
    done = subprocess.run(
        [sys.executable, "-c", LINK_TO_ZERO, target],
        capture_output=True,
        text=True,
        timeout=60,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
        check=False,
    )
    assert done.returncode == 0, done.stderr[-2000:]
    assert done.stdout.startswith("None ") and "is a link" in done.stdout, done.stdout


def test_an_oversized_entry_is_a_miss(own_cache: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    name = cache.key("big")
    cache.put(name, b"x" * 100)
    monkeypatch.setattr(cache, "MAX_ENTRY", 99)
    assert cache.get(name) is None
    assert [n for n in cache.NOTES if "larger than 99 bytes" in n]


@pytest.mark.parametrize("mode", [0o777, 0o770, 0o722])
def test_a_cache_folder_others_can_write_is_not_used(mode: int, own_cache: Path) -> None:
    name = cache.key("shared")
    cache.put(name, b"x")
    own_cache.chmod(mode)
    assert cache.get(name) is None
    cache.put(cache.key("new"), b"y")
    assert not _entry(own_cache, cache.key("new")).exists()
    [note] = cache.NOTES
    assert "is writable by others" in note and "not used" in note


@pytest.mark.parametrize("problem", ["readable", "short", "link"])
def test_a_key_that_is_not_private_means_no_cache(problem: str, own_cache: Path) -> None:
    name = cache.key("k")
    cache.put(name, b"x")
    secret = own_cache.parent / "config" / "cache.key"
    if problem == "readable":
        secret.chmod(0o644)
    elif problem == "short":
        secret.write_bytes(b"1234")
    else:
        moved = secret.rename(secret.with_name("elsewhere"))
        secret.symlink_to(moved)
    cache._SECRETS.clear()
    assert cache.get(name) is None
    assert [n for n in cache.NOTES if "cache key" in n and "not used" in n]


def test_a_subfolder_that_is_a_link_is_not_written_through(own_cache: Path) -> None:
    name = cache.key("sub")
    cache.put(cache.key("other"), b"x")  # the cache folder exists
    elsewhere = own_cache.parent / "elsewhere"
    elsewhere.mkdir()
    (own_cache / name[:2]).symlink_to(elsewhere)
    cache.put(name, b"y")
    assert list(elsewhere.iterdir()) == []
    assert cache.get(name) is None


def test_many_cache_notes_are_summarised(capsys: pytest.CaptureFixture[str]) -> None:
    """A cache of an older iopress fails every entry's check once: the terminal shows
    the first notes and how many more, not hundreds of lines."""
    from pipeline.commands import print_notes
    from pipeline.errors import SHOWN

    print_notes([f"cache entry {i} failed its check; made again" for i in range(SHOWN + 30)])
    lines = capsys.readouterr().err.splitlines()
    assert len(lines) == SHOWN + 1 and "30 more" in lines[-1]


def test_a_huge_file_counts_in_the_fingerprint_by_its_state(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A hidden sparse 8 GB file no source names took 50 s to hash on every build (even
    an up-to-date one): a file over HASHED_BYTES counts by its size, times and inode,
    so a write to it still changes the fingerprint."""
    import os

    from pipeline import fingerprint as F

    monkeypatch.setattr(F, "HASHED_BYTES", 1000)
    folder = tmp_path / "r"
    folder.mkdir()
    big = folder / ".junk"
    with big.open("wb") as fh:
        fh.truncate(10**12)  # sparse: no byte of it is ever read
    read: list[str] = []
    real = hashlib.file_digest

    def digest(fh: Any, name: str) -> Any:
        read.append(fh.name)
        return real(fh, name)

    monkeypatch.setattr(hashlib, "file_digest", digest)
    first = F.fingerprint(folder)
    assert first is not None and str(big) not in read
    os.truncate(big, 10**12 + 1)
    assert F.fingerprint(folder) != first


def _aged(own_cache: Path, name: str, data: bytes, age: float) -> Path:
    cache.put(name, data)
    path = own_cache / name[:2] / name
    then = time.time() - age
    os.utime(path, (then, then))
    return path


def test_a_cache_over_its_size_loses_the_entries_used_longest_ago(
    own_cache: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(cache, "_PRUNED", [True])  # pruned by hand below
    names = [cache.key(str(i)) for i in range(10)]
    paths = [_aged(own_cache, n, b"x" * 1000, 1000 - i) for i, n in enumerate(names)]
    assert cache.get(names[0]) == b"x" * 1000  # used now: kept, though written first
    partial = own_cache / names[1][:2] / f".{names[1]}.0123456789ab"
    partial.write_bytes(b"half")
    os.utime(partial, (time.time() - 2 * cache.STALE_SECONDS,) * 2)
    size = 10 * (1000 + 32)  # what the ten hold, with their MACs
    with cache._root(create=False) as root:
        assert cache.prune(root, size) == 4  # under its size: only the stale partial
        removed = cache.prune(root, size - 1)
    assert removed == 3 * (1000 + 32)  # down to KEPT (80 %) of the size
    assert [p.exists() for p in paths] == [True] + [False] * 3 + [True] * 6
    assert not partial.exists()


def test_prune_removes_only_what_the_cache_writes(
    own_cache: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """IOPRESS_CACHE pointed at a folder of the user's own (a home): a 2 MB thesis.pdf in
    a two-letter folder was pruned as an entry."""
    monkeypatch.setattr(cache, "_PRUNED", [True])
    old = _aged(own_cache, cache.key("old"), b"x" * 1000, 1000)
    theirs = own_cache / "go" / "thesis.pdf"
    theirs.parent.mkdir()
    theirs.write_bytes(b"y" * 100_000)
    os.utime(theirs, (1, 1))  # older than any entry
    with cache._root(create=False) as root:
        cache.prune(root, 10)
    assert theirs.read_bytes() == b"y" * 100_000 and not old.exists()


@pytest.mark.parametrize("given", ["²", "9" * 5000, "1.5", "-5", "0", ""])
def test_a_cache_size_that_is_no_whole_number_leaves_the_default(
    given: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("IOPRESS_CACHE_MB", given)
    assert cache.limit() == cache.DEFAULT_MB * 1024 * 1024


def test_the_first_store_of_a_process_prunes_to_the_size_set(
    own_cache: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(cache, "_PRUNED", [])
    monkeypatch.setenv("IOPRESS_CACHE_MB", "1")
    old = [_aged(own_cache, cache.key("old", str(i)), b"y" * 300_000, 100) for i in range(4)]
    # the first put above pruned an almost empty cache; a new process prunes again
    monkeypatch.setattr(cache, "_PRUNED", [])
    cache.put(cache.key("new"), b"z")
    assert sum(p.exists() for p in old) == 2 and cache.get(cache.key("new")) == b"z"
    assert cache.limit() == 1024 * 1024
    monkeypatch.setenv("IOPRESS_CACHE_MB", "-5")
    assert cache.limit() == cache.DEFAULT_MB * 1024 * 1024


def test_an_entry_gone_while_prune_looks_is_passed_over(
    own_cache: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Another build's prune (or a partial write renamed) removed a file between the
    listing and its stat: the FileNotFoundError stopped this process's prune."""
    monkeypatch.setattr(cache, "_PRUNED", [True])
    names = [cache.key(str(i)) for i in range(3)]
    paths = [_aged(own_cache, n, b"x" * 1000, 100 - i) for i, n in enumerate(names)]
    real_scandir = os.scandir

    def vanishing(fd: int) -> Any:
        listed = list(real_scandir(fd))
        paths[0].unlink(missing_ok=True)  # gone after the listing
        return iter(listed)

    monkeypatch.setattr(os, "scandir", vanishing)
    with cache._root(create=False) as root:
        removed = cache.prune(root, 1500)
    assert removed > 0 and not paths[1].exists() and paths[2].exists()
