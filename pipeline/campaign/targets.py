"""What a campaign's targets hold, and the guard that keeps ``iopress run`` from writing
over data: a device or image is judged by libblkid's probe (``wipefs``, util-linux) and
iopress's own signatures; a non-empty file holds data unless iopress created it itself
(recorded in plan.json by device, inode, size and change time, and signed with the user's
secret key, ``cache.signature``: anyone who can stat a file can read those fields, so a
plan.json a colleague wrote could name a user's file; no one else can sign it)."""

from __future__ import annotations

import contextlib
import hmac
import json
import os
import shutil
import stat
import subprocess
from collections.abc import Iterator
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import BinaryIO

from pipeline.cache import NOTES, key_file, signature
from pipeline.campaign.model import Campaign, Target
from pipeline.errors import InputError

KiB = 1024
ZFS_MAGIC = (b"\x0c\xb1\xba\x00", b"\x00\xba\xb1\x0c")  # uberblock 0x00bab10c, either endian
MD_MAGIC = b"\xfc\x4e\x2b\xa9"  # md RAID superblock 0xa92b4efc, little endian
# (offset from the start, bytes, libblkid's name): partition tables, file systems, volume
# managers, RAID and caches; those at the end of a device follow in _from_end
SIGNATURES: tuple[tuple[int, bytes, str], ...] = (
    (510, b"\x55\xaa", "dos"),  # MBR, GPT's protective MBR, FAT and NTFS boot sectors
    (512, b"EFI PART", "gpt"),
    (4096, b"EFI PART", "gpt"),  # 4K sectors
    (1080, b"\x53\xef", "ext4"),  # ext2/3/4
    (0, b"XFSB", "xfs"),
    (65600, b"_BHRfS_M", "btrfs"),
    (4086, b"SWAPSPACE2", "swap"),
    (4086, b"SWAP-SPACE", "swap"),
    (3, b"NTFS    ", "ntfs"),
    (3, b"-FVE-FS-", "BitLocker"),
    (54, b"FAT1", "vfat"),
    (82, b"FAT32   ", "vfat"),
    (0, b"LUKS\xba\xbe", "crypto_LUKS"),
    (16 * KiB, b"SKUL\xba\xbe", "crypto_LUKS"),  # LUKS2's second header
    *((sector * 512, b"LABELONE", "LVM2_member") for sector in range(4)),
    (536, b"LVM2 001", "LVM2_member"),
    (0, MD_MAGIC, "linux_raid_member"),  # md 1.1
    (4 * KiB, MD_MAGIC, "linux_raid_member"),  # md 1.2
    (32769, b"CD001", "iso9660"),
    (32769, b"BEA01", "udf"),
    (4096 + 24, bytes.fromhex("c68573f64e1a45ca8265f57f48ba6d81"), "bcache"),
    (0, b"hsqs", "squashfs"),
    (1024, b"\x10\x20\xf5\xf2", "f2fs"),
    (65588, b"ReIsEr", "reiserfs"),
    (0, b"bluestore block device", "ceph_bluestore"),
    (32, b"ORCLDISK", "oracleasm"),
    # ZFS: uberblocks from 128 KiB in each of the two labels at the start
    *(
        (label + 128 * KiB + at * KiB, magic, "zfs_member")
        for label in (0, 256 * KiB)
        for at in range(128)
        for magic in ZFS_MAGIC
    ),
)
HEAD = 1 << 20  # every offset above lies in the first MiB


def _from_end(size: int) -> Iterator[tuple[int, bytes, str]]:
    """Signatures at the end: GPT's backup header, md 0.90 and 1.0, ZFS labels 2 and 3."""
    yield size - 512, b"EFI PART", "gpt"
    yield (size & ~(64 * KiB - 1)) - 64 * KiB, MD_MAGIC, "linux_raid_member"
    yield (size - 8 * KiB) & ~(4 * KiB - 1), MD_MAGIC, "linux_raid_member"
    end = size & ~(256 * KiB - 1)
    for label in (end - 512 * KiB, end - 256 * KiB):
        for at in range(128):
            for magic in ZFS_MAGIC:
                yield label + 128 * KiB + at * KiB, magic, "zfs_member"


def builtin(path: Path) -> list[str]:
    """iopress's own signatures in ``path`` (libblkid's names), each once."""
    fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | os.O_CLOEXEC)
    try:
        size = os.lseek(fd, 0, os.SEEK_END)
        head = os.pread(fd, HEAD, 0)
        start = max(0, size - HEAD)
        tail = os.pread(fd, size - start, start)
    finally:
        os.close(fd)
    found = [name for at, magic, name in SIGNATURES if head[at : at + len(magic)] == magic]
    for at, magic, name in _from_end(size):
        if at >= start and tail[at - start : at - start + len(magic)] == magic:
            found.append(name)
    return list(dict.fromkeys(found))


def _wipefs() -> str | None:
    """util-linux's wipefs (libblkid's probe), also where /usr/sbin is not on PATH."""
    return shutil.which("wipefs") or shutil.which("wipefs", path="/usr/sbin:/sbin")


def blkid(path: Path) -> list[str]:
    """The signatures libblkid finds in ``path`` (``wipefs --no-act``, which lists every
    one, where ``blkid -p`` names one); OSError where it cannot tell."""
    program = _wipefs()
    if program is None:
        return []  # the built-in signatures alone (util-linux: make setup installs it)
    try:
        done = subprocess.run(
            [program, "--no-act", "--json", str(path)],
            capture_output=True,
            text=True,
            timeout=60,
            check=False,
        )
        if done.returncode:
            raise OSError(done.stderr.strip().splitlines()[-1:] or ["wipefs failed"])
        found = json.loads(done.stdout or '{"signatures": []}')["signatures"]
        return [f"{s['type']}" for s in found]
    except (subprocess.TimeoutExpired, ValueError, KeyError, TypeError) as err:
        raise OSError(f"wipefs: {err}") from None


def signatures(path: Path) -> list[str]:
    """Every signature of data in a device or image: libblkid's and iopress's own."""
    return list(dict.fromkeys([*blkid(path), *builtin(path)]))


@dataclass(frozen=True)
class Record:
    """A target file iopress created itself, as iopress last left it."""

    path: str
    dev: int
    ino: int
    size: int
    ctime_ns: int
    mtime_ns: int

    @classmethod
    def of(cls, path: str) -> Record:
        """The file ``path`` now; OSError where it is no regular file (a link, say)."""
        st = os.stat(path, follow_symlinks=False)
        if not stat.S_ISREG(st.st_mode):
            raise OSError(f"{path} is no regular file")
        return cls(path, st.st_dev, st.st_ino, st.st_size, st.st_ctime_ns, st.st_mtime_ns)

    def current(self) -> bool:
        """Is the file still the one iopress left (nothing else wrote it since)?"""
        try:
            return Record.of(self.path) == self
        except OSError:
            return False


def key(target: Target) -> str:
    """The target file's real name, links resolved as the kernel resolves them for fio
    (``l/../x`` with ``l`` a link is not ``./x``): a record of one working folder is no
    other's, and the file judged is the file fio writes."""
    return os.path.realpath(target.path)


def load_records(plan: dict[str, object]) -> dict[str, Record]:
    """The still current records of plan.json's ``created`` that this user's iopress
    signed (all others are dropped)."""
    entries = plan.get("created")
    found = [_record(e) for e in (entries if isinstance(entries, list) else [])]
    return {r.path: r for r in found if r is not None}


def _record(entry: object) -> Record | None:
    if not isinstance(entry, dict):
        return None
    fields = dict(entry)
    mac = fields.pop("mac", None)
    try:
        record = Record(**fields)
    except TypeError:
        return None
    values = asdict(record)
    well_typed = isinstance(values.pop("path"), str)
    well_typed &= all(type(v) is int for v in values.values())
    expected = _signed(record) if well_typed else None
    signed = isinstance(mac, str) and expected is not None and hmac.compare_digest(expected, mac)
    return record if signed and record.current() else None


def _signed(record: Record) -> str | None:
    """The record's signature with this user's key: every field of it (the kernel's
    times can be read by anyone who can stat the file, so a record alone proves
    nothing; a colleague's plan.json naming a user's file could not be told apart)."""
    return signature("campaign-record", json.dumps(asdict(record), sort_keys=True).encode())


def require_key() -> None:
    """The user's key must sign the records and results: without it a run measured, then
    took its own file for the user's data (and kept no result)."""
    if signature("campaign-key", b"") is None:
        said = NOTES[-1] if NOTES else "it cannot be read or made"
        raise InputError(
            key_file(),
            "",
            f"the key that signs a campaign's records and results cannot be used ({said})",
            "set IOPRESS_CACHE_KEY to a file of your own, or remove this one if it is "
            "yours (a new key is made, mode 600)",
        )


def dump_records(records: dict[str, Record]) -> list[dict[str, object]]:
    return [asdict(r) | {"mac": _signed(r) or ""} for r in records.values()]


def local(campaign: Campaign) -> bool:
    return campaign.hosts[0].address == "local"


def _creatable(target: Target) -> bool:
    """A missing target iopress creates: a file (it has a size), not a device not
    attached here."""
    return bool(target.size) and not key(target).startswith("/dev/")


def create_missing(source: Path, campaign: Campaign, records: dict[str, Record]) -> list[str]:
    """Create each missing target file (one with a size) empty, never through a link or
    over a file, for fio to lay out, and record it: iopress may write it. The files
    created (a new file may take a removed one's inode number)."""
    if not local(campaign):
        return []
    made = []
    for index, target in enumerate(campaign.targets):
        path = key(target)
        if os.path.lexists(path) or os.path.lexists(target.path) or not _creatable(target):
            continue  # a link to nothing is no place to create a file: judged as it is
        try:
            flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC
            os.close(os.open(path, flags, 0o644))
        except OSError as err:
            raise InputError(
                source,
                f"targets[{index}].path",
                f"{target.path} cannot be created: {err.strerror}",
                "give a file in an existing folder you may write, or a device",
            ) from None
        records[path] = Record.of(path)
        made.append(path)
    return made


def refresh(records: dict[str, Record], campaign: Campaign) -> None:
    """After fio ran: the files iopress created, as fio left them. Only the same file
    (device and inode), or one fio laid out in its place (a smaller file now of the
    target's size): a file someone put at the name while fio ran is no one's to record
    (gone ones, and such, are dropped)."""
    sizes = {key(t): t.size_bytes for t in campaign.targets}
    for path, old in list(records.items()):
        try:
            new = Record.of(path)
        except OSError:
            del records[path]
            continue
        same = (new.dev, new.ino) == (old.dev, old.ino)
        laid_out = old.size < (sizes.get(path) or 0) == new.size
        if same or laid_out:
            records[path] = new
        else:
            del records[path]


@dataclass(frozen=True)
class Seen:
    """A target as ``plan`` prints it and ``run`` judges it."""

    index: int
    target: Target
    kind: str  # file, new (iopress creates it), device, missing, other or remote
    size: int | None  # bytes, where known
    holds: tuple[str, ...]  # the data it holds (libblkid's names, "data"); () for none
    created: bool  # a file iopress created (plan.json)
    writes: bool  # the campaign writes to it, or fio lays the file out anew
    shared: str = ""  # why others could swap the file: a folder on its way, its entry

    @property
    def at_risk(self) -> bool:
        return self.writes and bool(self.holds)


def _writes(campaign: Campaign) -> bool:
    mixes = [m for p in campaign.profiles for m in p.read_pct]
    return campaign.precondition or any(m < 100 for m in mixes)


def _file(path: str, st: os.stat_result, records: dict[str, Record]) -> tuple[str, ...]:
    record = records.get(path)
    if (record is not None and record.current()) or st.st_size == 0:
        return ()
    try:
        return tuple(signatures(Path(path))) or ("data",)
    except OSError:
        return ("data",)


def _device(path: str) -> tuple[int | None, tuple[str, ...]]:
    try:
        with open(path, "rb") as fh:
            size = fh.seek(0, os.SEEK_END)
            written = _not_zeros(fh, size)
        found = tuple(signatures(Path(path)))
    except OSError as err:
        return None, (f"unknown data (it cannot be read: {err})",)
    return size, found or (("data (no signature, but not zeros)",) if written else ())


SAMPLES = 64  # places a device is read at, SAMPLE bytes each, to tell it from an empty one
SAMPLE = 64 * 1024


def _not_zeros(fh: BinaryIO, size: int) -> bool:
    """Whether a device holds anything but zeros at its start, its end or ``SAMPLES``
    places between: a device without a signature may still hold data (a volume encrypted
    without a header, a database's raw volume, a disk whose first MiB was wiped)."""
    places = {0, max(0, size - SAMPLE)} | {size * i // SAMPLES for i in range(1, SAMPLES)}
    for place in sorted(places):
        fh.seek(place - place % 4096)
        if fh.read(SAMPLE).strip(b"\0"):
            return True
    return False


def _look(target: Target, records: dict[str, Record]) -> tuple[str, int | None, tuple[str, ...]]:
    path = key(target)
    try:
        st = os.stat(path)
    except FileNotFoundError:
        if os.path.lexists(path) or os.path.lexists(target.path):
            return "other", None, ("unknown data (a link to nothing)",)
        return ("new", 0, ()) if _creatable(target) else ("missing", None, ())
    except OSError as err:
        return "other", None, (f"unknown data (it cannot be read: {err.strerror})",)
    if stat.S_ISREG(st.st_mode):
        return "file", st.st_size, _file(path, st, records)
    if stat.S_ISBLK(st.st_mode):
        return "device", *_device(path)
    return "other", None, ("unknown data (neither a file nor a block device)",)


def look(campaign: Campaign, records: dict[str, Record]) -> list[Seen]:
    """Every target: what it is, its size, what it holds, and whether the campaign
    writes to it. A fio server's targets are out of sight: they may hold anything."""
    writes = _writes(campaign)
    seen = []
    for index, target in enumerate(campaign.targets):
        planned = target.size_bytes or 0
        if not local(campaign):
            out_of_sight = ("unknown data (on the fio servers: out of iopress's sight)",)
            seen.append(
                Seen(index, target, "remote", None, out_of_sight, False, writes or bool(planned))
            )
            continue
        kind, size, holds = _look(target, records)
        lays_out = kind in ("new", "file") and (size or 0) < planned
        if lays_out and os.path.islink(target.path):  # fio unlinks it and makes a file
            holds = (*holds, "a link, which fio replaces with a file where it lays it out")
        created = key(target) in records and not holds
        shared = _swappable(target.path) or _swappable(key(target))
        seen.append(Seen(index, target, kind, size, holds, created, writes or lays_out, shared))
    return seen


def _swappable(path: str) -> str:
    """Why someone else could put another file at ``path`` between iopress's check and
    fio's open, or "": a folder on its way they may change, or the entry itself theirs
    in a folder they may write (in a sticky folder an entry's owner may still rename
    over it)."""
    folder = shared_folder(path)
    if folder:
        return f"lies in {folder}, which others may change"
    try:
        entry = os.lstat(path)
    except OSError:
        return ""
    parent = os.stat(os.path.dirname(os.path.abspath(path)))
    written = parent.st_mode & (stat.S_IWGRP | stat.S_IWOTH)
    if written and entry.st_uid not in (0, os.getuid()):
        return "is another user's, in a folder others may write"
    return ""


def shared_folder(path: str) -> str:
    """The first folder on the way to ``path`` that someone else may change: writable by
    others (a sticky folder such as /tmp excepted: only its owners rename or remove its
    entries) or owned by another user than root and this one; "" where there is none.
    Someone who may change a folder on the way may swap the file between iopress's check
    and fio's open."""
    folder = os.path.dirname(os.path.abspath(path))
    while True:
        try:
            st = os.stat(folder)
        except OSError:
            return ""  # not there: nothing to swap in it
        others = st.st_mode & (stat.S_IWGRP | stat.S_IWOTH) and not st.st_mode & stat.S_ISVTX
        if others or st.st_uid not in (0, os.getuid()):
            return folder
        if folder == os.path.dirname(folder):
            return ""
        folder = os.path.dirname(folder)


def adopt(seen: list[Seen], destroy: list[str], records: dict[str, Record]) -> None:
    """The target files ``--destroy-data`` names, recorded as iopress's: once fio wrote
    them they hold its data alone, and the next run needs no ``--destroy-data``."""
    for s in seen:
        if s.kind == "file" and s.writes and named(s.target, destroy):
            with contextlib.suppress(OSError):
                records[key(s.target)] = Record.of(key(s.target))


def identity(path: str) -> tuple[int, int] | None:
    """The file or device ``path`` names now (links followed): its device and inode."""
    try:
        st = os.stat(path)
    except OSError:
        return None
    return st.st_dev, st.st_ino


def still(destroy: list[str], first: set[tuple[int, int] | None]) -> list[str]:
    """The names of ``--destroy-data`` that still name what they named when the run
    began (``first``: their identities then): a link moved to another file since names
    nothing the user agreed to destroy."""
    return [d for d in destroy if identity(d) in first]  # None: not here (a fio server's)


def named(target: Target, destroy: list[str]) -> bool:
    """Does ``--destroy-data`` name the target (as written, or the same file by its
    real name: /dev/mapper/x and /dev/dm-3)?"""
    real = {os.path.realpath(d) for d in destroy}
    return target.path in destroy or os.path.realpath(target.path) in real


def _named_as(target: Target) -> str:
    """How ``--destroy-data`` should name a target: as written, or, for a link, the file
    or device it names (which a moved link could not change)."""
    return key(target) if os.path.islink(target.path) else target.path


def guard(source: Path, folder: Path, seen: list[Seen], destroy: list[str]) -> None:
    """A write to a target that holds data needs ``--destroy-data TARGET`` naming it;
    a target that is not there (a device not attached) is an error too."""
    for s in seen:
        if s.shared and s.writes:
            raise InputError(
                source,
                f"targets[{s.index}].path",
                f"{s.target.path} {s.shared}: they could swap the file for another "
                "between iopress's check and fio's writes",
                "give a target of your own in folders only you (or root) may change, "
                "every folder up to / (mode 755; a sticky one as /tmp is, for your own file)",
            )
        if s.kind == "missing":
            raise InputError(
                source,
                f"targets[{s.index}].path",
                f"{s.target.path} does not exist",
                "attach the device, or give the file's size (iopress creates it)",
            )
        if s.at_risk and not named(s.target, destroy):
            raise InputError(
                source,
                f"targets[{s.index}].path",
                f"{s.target.path} holds {', '.join(s.holds)}, and the campaign writes to it",
                f"to destroy its data, name it: "
                f"iopress run {folder} --destroy-data {_named_as(s.target)}",
            )
