"""A campaign folder someone else sent cannot destroy data (issue #32): ``run`` writes no
target that holds data unless ``--destroy-data`` names it, however the folder's plan.json
vouches for it; devices and images are judged by libblkid's probe and iopress's own
signatures (LVM2 on a loop device where the machine allows one); writes into the folder
never follow a planted link; and a campaign's counts, sizes and run time are bounded."""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import re
import shutil
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest

from pipeline.campaign.model import load_campaign
from pipeline.campaign.targets import builtin, guard, look, signatures
from pipeline.errors import InputError, InputErrors
from tests.cli import iopress

FIO = shutil.which("fio")
needs_fio = pytest.mark.skipif(FIO is None, reason="fio is not installed (make test installs it)")
WAITS = pytest.mark.xdist_group("waits")
MiB = 1 << 20

CAMPAIGN = """
id = "safe"
system = "A file"
vendor = "Linux"
direct = false
levels = [1]
rate_iops = [500]
[[profiles]]
access = "random"
block_sizes = ["4K"]
read_pct = [{read}]
[intervals]
count = 1
seconds = 1
[[targets]]
path = "{target}"
{size}
"""


def _campaign(tmp: Path, target: Path | str, read: int = 0, size: str = "4M") -> Path:
    text = CAMPAIGN.format(read=read, target=target, size=f'size = "{size}"' if size else "")
    path = tmp / "campaign.toml"
    path.write_text(text, encoding="utf-8")
    return path


def _digest(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def _user_file(tmp: Path, size: int = 4 * MiB) -> Path:
    data = tmp / "database.db"
    data.write_bytes(os.urandom(size))
    return data


# 1. a file that holds data --------------------------------------------------------------


@pytest.mark.parametrize(
    ("read", "size", "mb"),
    [(0, "4M", 4), (100, "16M", 4), (0, "400M", 4), (70, "", 1)],
    ids=["writes", "reads-but-fio-lays-it-out", "100x-the-size", "mixed-no-size"],
)
def test_run_never_writes_a_file_that_holds_data(
    tmp_path: Path, read: int, size: str, mb: int
) -> None:
    data = _user_file(tmp_path, mb * MiB)
    before = _digest(data)
    folder = tmp_path / "c"
    planned = iopress("plan", _campaign(tmp_path, data, read, size), "-o", folder)
    assert planned.returncode == 0, planned
    assert f"target {data}: file, {mb * MiB:,} bytes; holds data;" in planned.stdout
    assert f"--destroy-data {data}" in planned.stdout
    ran = iopress("run", folder)
    assert ran.returncode == 1 and "Traceback" not in ran.stderr, ran
    assert f"{folder / 'campaign.toml'}: targets[0].path: {data} holds data" in ran.stderr
    assert f"--destroy-data {data}" in ran.stderr
    assert _digest(data) == before and not list((folder / "raw").glob("*.json"))


def test_a_read_only_campaign_on_a_large_enough_file_needs_nothing(tmp_path: Path) -> None:
    data = _user_file(tmp_path)
    campaign = load_campaign(_campaign(tmp_path, data, read=100, size="4M"))
    seen = look(campaign, {})
    assert seen[0].holds == ("data",) and not seen[0].writes
    guard(tmp_path / "campaign.toml", tmp_path, seen, [])


def test_an_empty_file_holds_nothing_and_a_missing_one_is_created_empty(tmp_path: Path) -> None:
    empty = tmp_path / "empty.bin"
    empty.touch()
    campaign = load_campaign(_campaign(tmp_path, empty))
    assert look(campaign, {})[0].holds == ()
    new = tmp_path / "new.bin"
    folder = tmp_path / "c"
    planned = iopress("plan", _campaign(tmp_path, new), "-o", folder)
    assert planned.returncode == 0, planned
    assert new.stat().st_size == 0
    assert f"target {new}: file, 0 bytes; holds nothing but fio's data" in planned.stdout
    created = json.loads((folder / "plan.json").read_text())["created"]
    assert [c["path"] for c in created] == [str(new)]


def test_a_missing_device_is_never_created_and_run_names_it(tmp_path: Path) -> None:
    """A device not attached on the planning machine: plan creates no file for it (in
    /dev, as root, it could), run refuses it by name."""
    device = f"/dev/iopress-test-{os.getpid()}"
    folder = tmp_path / "c"
    planned = iopress("plan", _campaign(tmp_path, device, size=""), "-o", folder)
    assert planned.returncode == 0 and f"target {device}: missing" in planned.stdout
    assert not os.path.lexists(device)
    ran = iopress("run", folder)
    assert ran.returncode == 1 and f"targets[0].path: {device} does not exist" in ran.stderr
    assert not os.path.lexists(device)


def _forge(folder: Path, data: Path, **change: int) -> None:
    """plan.json naming the user's file: every stat field right, but ``change``."""
    st = data.stat()
    record = {"path": str(data), "dev": st.st_dev, "ino": st.st_ino, "size": st.st_size}
    record |= {"ctime_ns": st.st_ctime_ns, "mtime_ns": st.st_mtime_ns} | change
    plan = json.loads((folder / "plan.json").read_text())
    (folder / "plan.json").write_text(json.dumps(plan | {"created": [record]}))


@pytest.mark.parametrize("change", ["ctime_ns", "ino", "path"])
def test_a_planted_plan_json_cannot_vouch_for_a_users_file(tmp_path: Path, change: str) -> None:
    """A folder sent with a plan.json naming the user's file (its inode, size and times
    copied, as tar keeps them) does not make it iopress's: the kernel's change time, to
    the nanosecond, is no sender's to know or set."""
    data = _user_file(tmp_path)
    before = _digest(data)
    folder = tmp_path / "c"
    assert iopress("plan", _campaign(tmp_path, data), "-o", folder).returncode == 0
    wrong = {"ctime_ns": data.stat().st_ctime_ns + 1, "ino": data.stat().st_ino + 1}
    _forge(folder, data, **({change: wrong[change]} if change != "path" else {}))
    if change == "path":  # a relative name for the same file
        plan = json.loads((folder / "plan.json").read_text())
        plan["created"][0]["path"] = os.path.relpath(data)
        plan["created"][0]["ctime_ns"] += 1
        (folder / "plan.json").write_text(json.dumps(plan))
    assert iopress("plan", _campaign(tmp_path, data), "-o", folder).returncode == 0
    assert json.loads((folder / "plan.json").read_text())["created"] == []  # not kept
    _forge(folder, data, **({change: wrong[change]} if change != "path" else {"ctime_ns": 1}))
    ran = iopress("run", folder)
    assert ran.returncode == 1 and f"{data} holds data" in ran.stderr, ran
    assert _digest(data) == before


@pytest.mark.parametrize("mac", ["absent", "", "copied", "own"])
def test_a_record_right_to_the_nanosecond_is_no_one_elses_to_write(
    tmp_path: Path, mac: str
) -> None:
    """Every field of a record (device, inode, size, both times) is what stat() tells
    anyone who may look into the folder: a colleague forged plan.json for the user's file
    with them, and run wrote it without --destroy-data. A record needs the signature of
    this user's key; one copied from another record does not fit."""
    data = _user_file(tmp_path)
    before = _digest(data)
    mine = tmp_path / "mine"
    assert iopress("plan", _campaign(tmp_path, tmp_path / "new.bin"), "-o", mine).returncode == 0
    own = json.loads((mine / "plan.json").read_text())["created"][0]
    folder = tmp_path / "c"
    assert iopress("plan", _campaign(tmp_path, data), "-o", folder).returncode == 0
    _forge(folder, data)
    plan = json.loads((folder / "plan.json").read_text())
    if mac != "absent":
        plan["created"][0]["mac"] = {"": "", "copied": own["mac"]}.get(mac, "0" * 64)
    (folder / "plan.json").write_text(json.dumps(plan))
    assert own["mac"] and len(own["mac"]) == 64
    ran = iopress("run", folder)
    assert ran.returncode == 1 and f"{data} holds data" in ran.stderr, ran
    assert _digest(data) == before


def test_a_record_never_vouches_for_a_link(tmp_path: Path) -> None:
    """The created file replaced by a link to the user's file, recorded as the link is:
    still the user's data."""
    target, data = tmp_path / "target.bin", _user_file(tmp_path)
    folder = tmp_path / "c"
    assert iopress("plan", _campaign(tmp_path, target), "-o", folder).returncode == 0
    target.unlink()
    target.symlink_to(data)
    st = os.lstat(target)
    record = {"path": str(target), "dev": st.st_dev, "ino": st.st_ino, "size": st.st_size}
    record |= {"ctime_ns": st.st_ctime_ns, "mtime_ns": st.st_mtime_ns}
    plan = json.loads((folder / "plan.json").read_text())
    (folder / "plan.json").write_text(json.dumps(plan | {"created": [record]}))
    ran = iopress("run", folder)
    assert ran.returncode == 1 and f"{target} holds data" in ran.stderr, ran


def test_destroy_data_names_the_file_by_any_of_its_names(tmp_path: Path) -> None:
    data = _user_file(tmp_path)
    campaign = load_campaign(_campaign(tmp_path, data))
    seen = look(campaign, {})
    link = tmp_path / "alias"
    link.symlink_to(data)
    guard(tmp_path / "campaign.toml", tmp_path, seen, [str(link)])
    with pytest.raises(InputError, match=r"targets\[0\]\.path"):
        guard(tmp_path / "campaign.toml", tmp_path, seen, [str(tmp_path / "other")])


@needs_fio
@WAITS
def test_a_file_iopress_created_is_written_and_resumed_without_destroy_data(
    tmp_path: Path,
) -> None:
    target = tmp_path / "target.bin"
    folder = tmp_path / "c"
    assert iopress("plan", _campaign(tmp_path, target), "-o", folder).returncode == 0
    first = iopress("run", folder)
    assert first.returncode == 0, first
    assert target.stat().st_size == 4 * MiB  # fio laid it out
    (folder / "raw" / next(p.name for p in (folder / "raw").glob("*.json"))).unlink()
    again = iopress("run", folder)  # fio's data, recorded again: no --destroy-data
    assert again.returncode == 0, again
    with target.open("r+b") as fh:  # someone else writes it: it holds data again
        fh.write(b"user data")
    for result in (folder / "raw").glob("*.json"):
        result.unlink()
    ran = iopress("run", folder)
    assert ran.returncode == 1 and f"{target} holds data" in ran.stderr, ran


@needs_fio
@WAITS
def test_a_fio_servers_targets_need_destroy_data_to_be_written(tmp_path: Path) -> None:
    """iopress cannot see a fio server's disks: writing them needs the target named."""
    source = _campaign(tmp_path, tmp_path / "remote.bin")
    source.write_text(
        source.read_text() + '[[hosts]]\nname = "s"\naddress = "127.0.0.1:1"\n', encoding="utf-8"
    )
    folder = tmp_path / "c"
    planned = iopress("plan", source, "-o", folder)
    assert "on the fio servers" in planned.stdout and "--destroy-data" in planned.stdout
    assert not (tmp_path / "remote.bin").exists()  # not created here
    ran = iopress("run", folder)
    assert ran.returncode == 1 and "out of iopress's sight" in ran.stderr, ran


# 2. devices and images: libblkid and the built-in signatures ------------------------------


def _lvm_image(path: Path, size: int = 32 * MiB) -> Path:
    """An LVM2 physical volume's label (pvcreate writes it into sector 1)."""
    with path.open("wb") as fh:
        fh.truncate(size)
        fh.seek(512)
        fh.write(b"LABELONE" + bytes(16) + b"LVM2 001")
    return path


@pytest.fixture
def lvm_target(tmp_path: Path) -> Iterator[Path]:
    """A loop device holding an LVM2 label where the machine allows one (root), else
    the image file itself."""
    image = _lvm_image(tmp_path / "pv.img")
    losetup = shutil.which("losetup") or shutil.which("losetup", path="/usr/sbin:/sbin")
    attached = None
    if losetup and os.geteuid() == 0:
        done = subprocess.run(
            [losetup, "--find", "--show", str(image)], capture_output=True, text=True, check=False
        )
        attached = done.stdout.strip() if done.returncode == 0 else None
    try:
        yield Path(attached) if attached else image
    finally:
        if attached and losetup:
            subprocess.run([losetup, "--detach", attached], check=False)


def test_an_lvm_physical_volume_is_not_written_without_destroy_data(lvm_target: Path) -> None:
    before = _digest(lvm_target)
    tmp = Path(os.environ.get("TMPDIR", "/tmp"))
    work = Path(str(lvm_target) + ".d") if lvm_target.is_file() else None
    work = work or Path(tmp) / f"iopress-lvm-{os.getpid()}"
    work.mkdir(exist_ok=True)
    try:
        folder = work / "c"
        planned = iopress("plan", _campaign(work, lvm_target, size=""), "-o", folder)
        assert planned.returncode == 0, planned
        assert "holds LVM2_member" in planned.stdout
        ran = iopress("run", folder)
        assert ran.returncode == 1 and f"{lvm_target} holds LVM2_member" in ran.stderr, ran
        assert _digest(lvm_target) == before
    finally:
        shutil.rmtree(work)


def _image(tmp: Path, at: int, magic: bytes, size: int = 4 * MiB) -> Path:
    path = tmp / f"sig-{at}.img"
    with path.open("wb") as fh:
        fh.truncate(size)
        fh.seek(at)
        fh.write(magic)
    return path


MD = b"\xfc\x4e\x2b\xa9"
SIZE = 4 * MiB


@pytest.mark.parametrize(
    ("at", "magic", "name"),
    [
        (512, b"LABELONE", "LVM2_member"),
        (4096, MD, "linux_raid_member"),  # md 1.2
        (SIZE - 64 * 1024, MD, "linux_raid_member"),  # md 0.90 at the end
        (128 * 1024 + 5 * 1024, b"\x0c\xb1\xba\x00", "zfs_member"),
        (32769, b"CD001", "iso9660"),
        (4120, bytes.fromhex("c68573f64e1a45ca8265f57f48ba6d81"), "bcache"),
        (0, b"LUKS\xba\xbe", "crypto_LUKS"),
        (SIZE - 512, b"EFI PART", "gpt"),  # the backup header
    ],
)
def test_built_in_signatures(tmp_path: Path, at: int, magic: bytes, name: str) -> None:
    image = _image(tmp_path, at, magic, SIZE)
    assert name in builtin(image) and name in signatures(image)
    assert builtin(_image(tmp_path, 0, b"", SIZE)) == []


SBIN = "/usr/sbin:/sbin"
UTIL_LINUX = shutil.which("mkfs.minix", path=SBIN) and shutil.which("wipefs", path=SBIN)


@pytest.mark.skipif(not UTIL_LINUX, reason="util-linux is not installed (make test installs it)")
def test_libblkid_is_asked_for_what_iopress_does_not_know(tmp_path: Path) -> None:
    """A minix file system: iopress's own signatures miss it, libblkid knows it."""
    image = tmp_path / "minix.img"
    image.write_bytes(bytes(8 * MiB))
    mkfs = shutil.which("mkfs.minix", path=SBIN)
    assert mkfs
    subprocess.run([mkfs, str(image)], capture_output=True, check=True)
    assert builtin(image) == [] and "minix" in signatures(image)


# 3. links planted in a received campaign folder -------------------------------------------


def _planned(tmp: Path) -> Path:
    folder = tmp / "c"
    assert iopress("plan", _campaign(tmp, tmp / "target.bin"), "-o", folder).returncode == 0
    return folder


def _outside(tmp: Path) -> Path:
    victim = tmp / "victim.txt"
    victim.write_text("the user's file\n")
    return victim


def _refused(ran: object, link: Path) -> None:
    text = str(ran)
    assert "exit 1" in text and f"{link}: is a link" in text and "Traceback" not in text, text


@needs_fio
@WAITS
@pytest.mark.parametrize("planted", ["raw/env/machine.json", "raw/env", "raw", "plan.json"])
def test_run_never_writes_through_a_planted_link(tmp_path: Path, planted: str) -> None:
    folder = _planned(tmp_path)
    victim = _outside(tmp_path)
    link = folder / planted
    if link.is_dir():
        shutil.rmtree(link)
    else:
        link.unlink(missing_ok=True)
    link.parent.mkdir(parents=True, exist_ok=True)
    outside_dir = tmp_path / "outside"
    outside_dir.mkdir()
    (outside_dir / "env").mkdir()
    (outside_dir / "machine.json").symlink_to(victim)
    (outside_dir / "env" / "machine.json").symlink_to(victim)
    target = victim if planted.endswith(".json") else outside_dir
    link.symlink_to(target)
    ran = iopress("run", folder)
    _refused(ran, link)
    assert victim.read_text() == "the user's file\n"
    assert sorted(p.name for p in outside_dir.iterdir()) == ["env", "machine.json"]


@pytest.mark.parametrize(
    "planted", ["report.toml", "text/de/summary.md", "text/en", "jobs", "campaign.toml"]
)
def test_plan_never_writes_through_a_planted_link(tmp_path: Path, planted: str) -> None:
    folder = _planned(tmp_path)
    victim = _outside(tmp_path)
    outside_dir = tmp_path / "outside"
    outside_dir.mkdir()
    (outside_dir / "keep.fio").write_text("the user's job\n")
    link = folder / planted
    shutil.rmtree(link) if link.is_dir() else link.unlink()
    dangling = tmp_path / "created-outside"
    link.symlink_to(outside_dir if "." not in link.name else dangling)
    if planted == "campaign.toml":
        link.unlink()
        link.symlink_to(victim)
    ran = iopress("plan", _campaign(tmp_path, tmp_path / "target.bin"), "-o", folder)
    _refused(ran, link)
    assert victim.read_text() == "the user's file\n" and not dangling.exists()
    assert sorted(p.name for p in outside_dir.iterdir()) == ["keep.fio"]


# 10. limits --------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("old", "new", "words"),
    [
        ("levels = [1]", "levels = [10000000]", "levels[0]: Input should be less than or equal"),
        ("levels = [1]", "levels = [1]\nqueue_depth = 65537000", "queue_depth[0]: Input should"),
        ('block_sizes = ["4K"]', 'block_sizes = ["2048G"]', "block_sizes: '2048G'"),
        ('size = "4M"', 'size = "2000000000G"', "targets[0].size: '2000000000G' is not a"),
        ("rate_iops = [500]", "rate_iops = [1000000000000000]", "rate_iops[0]: Input should"),
        ("levels = [1]", f"levels = {list(range(1, 100_002))}", "100,001 points are more"),
        ("count = 1\nseconds = 1", "count = 1000\nseconds = 3600", "longer than a day"),
        ("levels = [1]", f"levels = {list(range(1, 400))}", "over a year"),
    ],
    ids=["levels", "queue", "block", "size", "rate", "points", "point-time", "run-time"],
)
def test_a_campaign_is_bounded(tmp_path: Path, old: str, new: str, words: str) -> None:
    """As the report side: at most 10⁶ workers per host and I/Os in flight, 1 TiB blocks;
    and at most 100,000 job files, a day per point, a year in all."""
    path = _campaign(tmp_path, tmp_path / "target.bin")
    text = path.read_text().replace(old, new)
    if "over a year" in words:
        text = text.replace("seconds = 1", "seconds = 86400")
    path.write_text(text, encoding="utf-8")
    with pytest.raises((InputError, InputErrors)) as err:
        load_campaign(path)
    assert str(path) in str(err.value) and words in str(err.value)
    ran = iopress("plan", path, "-o", tmp_path / "c")
    assert ran.returncode == 1 and words in ran.stderr and "Traceback" not in ran.stderr
    assert not (tmp_path / "c").exists()


# a target path that names another file than the one checked ------------------------------


def test_a_path_fio_would_expand_is_refused(tmp_path: Path) -> None:
    """fio expands ${VAR} in filename=: '${PWD}/../x' was checked as the literal text (a
    new, empty file) while fio wrote the file it expands to."""
    with pytest.raises(InputErrors, match=r"targets\[0\]\.path: .*fio expands '\$'"):
        load_campaign(_campaign(tmp_path, "${PWD}/../victim"))


@pytest.mark.parametrize(
    ("path", "said"),
    [
        ("{d}/db ", "strips blanks"),  # fio wrote db: the blank is stripped
        (" {d}/db", "strips blanks"),
        ("{d}/db;bench.bin", "';', '#' and"),  # fio reads db (';' starts a comment)
        ("{d}/db#bench.bin", "';', '#' and"),
        ("{d}/a\\\\", "';', '#' and"),  # 'a\\' + ':' + next target: one file 'a:next'
    ],
)
def test_a_path_fio_reads_as_another_file_is_refused(tmp_path: Path, path: str, said: str) -> None:
    """fio's job-file parser strips a value's blanks, ends it at ';' or '#' and reads '\\'
    as an escape: a new file "db " was checked (and created empty) while fio wrote the
    user's db beside it."""
    with pytest.raises(InputErrors, match=rf"targets\[0\]\.path: .*{re.escape(said)}"):
        load_campaign(_campaign(tmp_path, path.format(d=tmp_path)))


def test_a_link_before_dot_dot_is_judged_as_the_kernel_resolves_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """'l/../.bashrc' with l a link in the received folder: judged lexically it was a new
    file beside l, while the kernel (and fio) follow l first and reach the user's file."""
    victim_dir = tmp_path / "home" / "sub"
    victim_dir.mkdir(parents=True)
    victim = tmp_path / "home" / ".bashrc"
    victim.write_text("alias ll='ls -l'\n", encoding="utf-8")
    sent = tmp_path / "sent"
    sent.mkdir()
    (sent / "l").symlink_to(victim_dir)
    monkeypatch.chdir(sent)
    campaign = load_campaign(_campaign(sent, "l/../.bashrc", size=""))
    (seen,) = look(campaign, {})
    assert seen.holds == ("data",) and seen.writes
    with pytest.raises(InputError, match="holds data"):
        guard(sent / "campaign.toml", sent, [seen], [])


# several targets: one fio job ----------------------------------------------------------------


def _two_targets(tmp: Path, first: Path, second: Path, read: int, sizes: tuple[str, str]) -> Path:
    text = CAMPAIGN.format(read=read, target=first, size=f'size = "{sizes[0]}"' if sizes[0] else "")
    text += f'[[targets]]\npath = "{second}"\n' + (f'size = "{sizes[1]}"\n' if sizes[1] else "")
    path = tmp / "campaign.toml"
    path.write_text(text, encoding="utf-8")
    return path


def test_targets_of_different_sizes_are_refused(tmp_path: Path) -> None:
    """fio divides one job's size among its files: a size per target cannot be kept."""
    source = _two_targets(tmp_path, tmp_path / "a", tmp_path / "b", 0, ("4M", "8M"))
    with pytest.raises(InputErrors, match="several targets are one fio job: give each the same"):
        load_campaign(source)
    with pytest.raises(InputErrors, match="several targets are one fio job"):
        load_campaign(_two_targets(tmp_path, tmp_path / "a", tmp_path / "b", 0, ("4M", "")))


def test_a_read_only_campaign_on_two_targets_never_lays_a_users_file_out(tmp_path: Path) -> None:
    """Targets big.dat (8 MiB, size 4M) and user.db (1 MiB): the job's size=4M gave each
    file 2 MiB, so fio laid user.db out anew, while plan said the campaign only read it.
    Each file is now laid out to the size given (filesize=), and user.db, smaller, is
    judged as written."""
    big, user = _user_file(tmp_path, 8 * MiB), tmp_path / "user.db"
    user.write_bytes(os.urandom(MiB))
    before = _digest(user)
    campaign = load_campaign(_two_targets(tmp_path, big, user, 100, ("4M", "4M")))
    seen = look(campaign, {})
    assert [s.writes for s in seen] == [False, True]
    with pytest.raises(InputError, match=f"{re.escape(str(user))} holds data, and the campaign"):
        guard(tmp_path / "campaign.toml", tmp_path, seen, [])
    assert _digest(user) == before


@needs_fio
def test_two_new_targets_are_each_laid_out_to_their_size(tmp_path: Path) -> None:
    """size=4M over two files made two files of 2 MiB: the report measured half the
    working set the campaign named."""
    first, second = tmp_path / "a.bin", tmp_path / "b.bin"
    folder = tmp_path / "c"
    planned = iopress("plan", _two_targets(tmp_path, first, second, 0, ("4M", "4M")), "-o", folder)
    assert planned.returncode == 0, planned
    job = next((folder / "jobs").glob("0001-*.fio")).read_text(encoding="utf-8")
    assert f"filename={first}:{second}\nfilesize=4194304\n" in job
    ran = iopress("run", folder)
    assert ran.returncode == 0, ran
    assert first.stat().st_size == second.stat().st_size == 4 * MiB


# between the points of a run -------------------------------------------------------------


def _two_points(tmp: Path, target: Path | str, seconds: int = 1) -> Path:
    """A planned campaign of two points (levels 1 and 2) writing ``target``."""
    text = _campaign(tmp, target).read_text(encoding="utf-8")
    text = text.replace("levels = [1]", "levels = [1, 2]").replace(
        "seconds = 1", f"seconds = {seconds}"
    )
    (tmp / "campaign.toml").write_text(text, encoding="utf-8")
    folder = tmp / "c"
    planned = iopress("plan", tmp / "campaign.toml", "-o", folder)
    assert planned.returncode == 0, planned
    return folder


@needs_fio
def test_a_job_file_edited_during_the_run_is_not_what_fio_runs(tmp_path: Path) -> None:
    """The job files were checked once, then read by fio at every point: one edited while
    point 1 ran (filename= the user's file, exec_prerun=) was run. fio now reads the text
    iopress checked."""
    from pipeline.campaign.run import run

    data = _user_file(tmp_path)
    before = _digest(data)
    folder = _two_points(tmp_path, tmp_path / "bench.bin")
    marker = tmp_path / "PWNED"

    def edit(done: int, _total: int, _last: object) -> None:
        if done == 1:
            job = next((folder / "jobs").glob("0002-*.fio"))
            text = job.read_text(encoding="utf-8").replace(str(tmp_path / "bench.bin"), str(data))
            job.write_text(text + f"exec_prerun=touch {marker}\n", encoding="utf-8")

    assert len(run(folder, [], edit)) == 2
    assert not marker.exists() and _digest(data) == before
    from pipeline.ingest.fio import final_document

    path = next((folder / "raw").glob("0002-*.json"))
    result = final_document(path, path.read_text(encoding="utf-8")).data
    assert result["global options"]["filename"] == str(tmp_path / "bench.bin")


@needs_fio
def test_a_target_link_moved_during_the_run_is_judged_again(tmp_path: Path) -> None:
    """A target that is a link to a scratch file (named with --destroy-data), pointed at
    the user's file after point 1: point 2 wrote the user's file. Each point judges its
    targets again, and --destroy-data names what the link named as the run began."""
    from pipeline.campaign.run import run

    data = _user_file(tmp_path)
    before = _digest(data)
    scratch = tmp_path / "scratch.bin"
    scratch.write_bytes(os.urandom(4 * MiB))
    link = tmp_path / "target"
    link.symlink_to(scratch)
    folder = _two_points(tmp_path, link)

    def move(done: int, _total: int, _last: object) -> None:
        if done == 1:
            link.unlink()
            link.symlink_to(data)

    with pytest.raises(InputError, match=f"{re.escape(str(link))} holds data"):
        run(folder, [str(link)], move)
    assert _digest(data) == before
    assert len(list((folder / "raw").glob("0*.json"))) == 1  # point 1 kept


@needs_fio
def test_a_result_cut_after_a_snapshot_is_not_kept(tmp_path: Path) -> None:
    """fio's output of a 2 × 1 s point cut after its first status snapshot (a machine that
    stopped before the file was whole) read as sound, and a resumed run kept it."""
    text = _campaign(tmp_path, tmp_path / "bench.bin").read_text(encoding="utf-8")
    (tmp_path / "campaign.toml").write_text(text.replace("count = 1", "count = 2"), "utf-8")
    folder = tmp_path / "c"
    assert iopress("plan", tmp_path / "campaign.toml", "-o", folder).returncode == 0
    assert iopress("run", folder).returncode == 0
    result = next((folder / "raw").glob("0001-*.json"))
    whole = result.read_text(encoding="utf-8")
    second = whole.index('"fio version"', whole.index('"fio version"') + 1)
    result.write_text(whole[: whole.rindex("{", 0, second)], encoding="utf-8")
    ran = iopress("run", folder)
    assert ran.returncode == 0 and "1 run, 0 kept" in ran.stdout + ran.stderr, ran
    assert len(result.read_text(encoding="utf-8")) > len(whole) // 2


# a run stopped, and runs at once ------------------------------------------------------------


def _started(folder: Path) -> subprocess.Popen[bytes]:
    """``iopress run folder`` in a session of its own, once fio runs its first point."""
    import time

    from tests.cli import iopress_session

    job = iopress_session("run", folder)
    deadline = time.monotonic() + 60
    while not _fio_of(folder) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert _fio_of(folder), "fio did not start"
    return job


def _fio_of(folder: Path) -> list[int]:
    """The fio processes holding ``folder``'s lock (fio and its workers)."""
    lock = os.path.realpath(folder / ".iopress.lock")
    found = []
    for pid in filter(str.isdigit, os.listdir("/proc")):
        with contextlib.suppress(OSError):
            if "fio" not in Path(f"/proc/{pid}/comm").read_text():
                continue
            fds = Path(f"/proc/{pid}/fd")
            if any(os.path.realpath(fds / fd) == lock for fd in os.listdir(fds)):
                found.append(int(pid))
    return found


@needs_fio
@pytest.mark.parametrize("stop", ["SIGTERM", "SIGINT"])
def test_a_stopped_run_leaves_no_fio_writing(tmp_path: Path, stop: str) -> None:
    """SIGTERM killed fio's first process and left its worker (a session of its own)
    writing the target until its run time ended, beside the next run. fio is now stopped
    as Ctrl-C stops it, workers included, before the run exits."""
    import signal

    folder = _two_points(tmp_path, tmp_path / "bench.bin", seconds=20)
    job = _started(folder)
    os.killpg(job.pid, getattr(signal, stop))
    assert job.wait(60) != 0
    assert _fio_of(folder) == []


@needs_fio
def test_a_second_run_waits_for_the_first_and_its_fio(tmp_path: Path) -> None:
    """Two runs of one folder deleted each other's part files and measured at once; a
    run killed with kill -9 left a fio writing, and the next run measured beside it. The
    folder is held by one run, and by its fio until that ends."""
    import signal

    folder = _two_points(tmp_path, tmp_path / "bench.bin", seconds=3)
    job = _started(folder)
    second = iopress("run", folder)
    assert second.returncode == 1 and "another iopress plan or run" in second.stderr, second
    os.kill(job.pid, signal.SIGKILL)
    job.wait(60)
    assert _fio_of(folder), "fio ended with the run"
    orphan = iopress("run", folder)
    assert orphan.returncode == 1 and "(or a fio it started)" in orphan.stderr, orphan
    replanned = iopress("plan", tmp_path / "campaign.toml", "-o", folder)
    assert replanned.returncode == 1 and "another iopress plan or run" in replanned.stderr


# a result belongs to its job, the folder to its user ---------------------------------------


@needs_fio
def test_a_result_of_an_earlier_plan_is_measured_again(tmp_path: Path) -> None:
    """Planned again for another target and run time, the folder's results of the first
    plan were kept ("0 run, 1 kept"): fio had measured a.bin for 1 s. A result is kept
    only with the signature of the job text it was measured with; one from elsewhere (a
    signature not this user's) is measured again too."""
    source = _campaign(tmp_path, tmp_path / "a.bin")
    folder = tmp_path / "c"
    assert iopress("plan", source, "-o", folder).returncode == 0
    assert iopress("run", folder).returncode == 0
    source.write_text(source.read_text("utf-8").replace("a.bin", "b.bin"), encoding="utf-8")
    assert iopress("plan", source, "-o", folder).returncode == 0
    ran = iopress("run", folder)
    assert "1 run, 0 kept" in ran.stdout + ran.stderr, ran
    assert "1 run, 0 kept" not in (again := iopress("run", folder)).stdout + again.stderr
    plan = json.loads((folder / "plan.json").read_text())
    plan["results"] = {name: "0" * 64 for name in plan["results"]}
    (folder / "plan.json").write_text(json.dumps(plan))
    ran = iopress("run", folder)
    assert "1 run, 0 kept" in ran.stdout + ran.stderr, ran


def test_planning_into_a_folder_never_removes_the_users_files(tmp_path: Path) -> None:
    """`iopress plan campaign.toml -o .` in a folder holding the user's jobs/ deleted
    their job files and wrote over their plan.json. Their files stay; a plan.json or a
    job file iopress would replace is an error naming it."""
    lab = tmp_path / "lab"
    (lab / "jobs").mkdir(parents=True)
    _campaign(lab, tmp_path / "bench.bin")
    (lab / "jobs" / "my-tuned-test.fio").write_text("[mine]\n", encoding="utf-8")
    (lab / "jobs" / "notes.new").write_text("notes\n", encoding="utf-8")
    (lab / "plan.json").write_text('{"mine": true}\n', encoding="utf-8")
    refused = iopress("plan", lab / "campaign.toml", "-o", lab)
    assert refused.returncode == 1 and f"{lab / 'plan.json'}: not a plan iopress wrote" in (
        refused.stderr
    ), refused
    (lab / "plan.json").unlink()
    assert iopress("plan", lab / "campaign.toml", "-o", lab).returncode == 0
    assert (lab / "jobs" / "my-tuned-test.fio").read_text() == "[mine]\n"
    assert (lab / "jobs" / "notes.new").read_text() == "notes\n"
    planned = next((lab / "jobs").glob("0001-*.fio"))
    assert iopress("plan", lab / "campaign.toml", "-o", lab).returncode == 0  # again: its own
    (lab / "plan.json").unlink()
    planned.write_text("[mine too]\n", encoding="utf-8")
    refused = iopress("plan", lab / "campaign.toml", "-o", lab)
    assert f"{planned}: not a job file iopress planned" in refused.stderr, refused


def test_a_link_to_nothing_is_not_created_through(tmp_path: Path) -> None:
    """A target that is a link to nothing: plan created the file at its destination
    (through the link), and fio then replaced the link with a file of its own."""
    (tmp_path / "other").mkdir()
    dangling = tmp_path / "dangling"
    dangling.symlink_to(tmp_path / "other" / "x.bin")
    folder = tmp_path / "c"
    planned = iopress("plan", _campaign(tmp_path, dangling), "-o", folder)
    assert planned.returncode == 0, planned
    assert not (tmp_path / "other" / "x.bin").exists() and dangling.is_symlink()
    ran = iopress("run", folder)
    assert ran.returncode == 1 and "a link to nothing" in ran.stderr, ran


def test_a_link_fio_would_lay_out_needs_destroy_data(tmp_path: Path) -> None:
    """A link to an empty file smaller than the size: fio unlinks the link and lays a
    file out in its place (the user's link gone, the file measured on another disk)."""
    (tmp_path / "empty.bin").touch()
    link = tmp_path / "link"
    link.symlink_to(tmp_path / "empty.bin")
    (seen,) = look(load_campaign(_campaign(tmp_path, link)), {})
    assert seen.at_risk and "a link, which fio replaces with a file" in seen.holds[-1]


@needs_fio
def test_destroy_data_once_is_enough(tmp_path: Path) -> None:
    """After a run with --destroy-data the file holds fio's data alone: the next run
    asked for --destroy-data again, every time."""
    data = _user_file(tmp_path)
    folder = tmp_path / "c"
    assert iopress("plan", _campaign(tmp_path, data), "-o", folder).returncode == 0
    assert iopress("run", folder, "--destroy-data", data).returncode == 0
    for result in (folder / "raw").glob("*.json"):
        result.unlink()
    again = iopress("run", folder)
    assert again.returncode == 0, again


# a second review's findings --------------------------------------------------------------------


def test_preconditioning_runs_where_the_targets_are() -> None:
    """With fio servers, preconditioning ran on this machine: its file or device of the
    target's name was written twice in full, unchecked (the servers' disks were meant)."""
    from pipeline.campaign.model import Campaign, Host, Target
    from pipeline.campaign.run import _on_hosts

    campaign = Campaign(
        id="x",
        system="S",
        vendor="V",
        targets=[Target(path="/dev/sdb")],
        hosts=[Host(name="a", address="10.0.0.1"), Host(name="b", address="10.0.0.2:8766")],
        precondition=True,
    )
    cmd = _on_hosts(campaign, Path("pre.fio"), ["--output-format=json"])
    assert cmd == [
        "fio",
        "--output-format=json",
        "--client=10.0.0.1",
        "pre.fio",
        "--client=10.0.0.2,8766",
        "pre.fio",
    ]


@needs_fio
def test_destroy_data_adopts_a_file_only_once_fio_wrote_it(tmp_path: Path) -> None:
    """--destroy-data recorded the file as iopress's before fio wrote it: a run that
    stopped first (here: no fio to start) left a user's file recorded, and the next run
    wrote it without --destroy-data. A result is also the target's it measured: a new
    file at the name is measured again, not kept."""
    data = _user_file(tmp_path)
    before = _digest(data)
    folder = tmp_path / "c"
    assert iopress("plan", _campaign(tmp_path, data), "-o", folder).returncode == 0
    stopped = iopress("run", folder, "--destroy-data", data, PATH=str(tmp_path / "nofio"))
    assert stopped.returncode == 1 and "fio could not start" in stopped.stderr, stopped
    assert json.loads((folder / "plan.json").read_text())["created"] == []
    ran = iopress("run", folder)
    assert ran.returncode == 1 and "holds data" in ran.stderr, ran
    assert _digest(data) == before
    assert iopress("run", folder, "--destroy-data", data).returncode == 0
    data.unlink()
    _user_file(tmp_path)  # a new file of the user's at the name
    again = iopress("run", folder)
    assert again.returncode == 1 and "holds data" in again.stderr, again


def test_a_file_put_at_a_recorded_name_is_not_recorded(tmp_path: Path) -> None:
    """After a point, the file at a recorded name was recorded whatever it was: a user's
    file moved there while fio ran was written by the next point."""
    from pipeline.campaign.targets import Record, refresh

    target = tmp_path / "t.bin"
    target.write_bytes(b"\0" * (4 * MiB))
    records = {str(target): Record.of(str(target))}
    campaign = load_campaign(_campaign(tmp_path, target))
    refresh(records, campaign)
    assert list(records) == [str(target)]  # the same file, as fio left it
    user = _user_file(tmp_path)
    user.rename(target)
    refresh(records, campaign)
    assert records == {}


@pytest.mark.parametrize("where", ["target", "tmpdir"])
def test_a_folder_others_may_change_is_refused(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, where: str
) -> None:
    """A target (or the run's own folder) in a folder others may write: they could swap
    the file (or the job text) between iopress's check and fio's open."""
    import tempfile

    from pipeline.campaign.run import run

    shared = tmp_path / "shared"
    shared.mkdir()
    shared.chmod(0o777)
    target = (shared if where == "target" else tmp_path) / "bench.bin"
    folder = tmp_path / "c"
    assert iopress("plan", _campaign(tmp_path, target), "-o", folder).returncode == 0
    if where == "tmpdir":
        monkeypatch.setattr(tempfile, "tempdir", str(shared))
    with pytest.raises(InputError, match=f"{re.escape(str(shared))}, which others may change"):
        run(folder, [], lambda *_: None)
    shared.chmod(0o1777)  # sticky, as /tmp: only an entry's owner renames or removes it
    monkeypatch.setattr(tempfile, "tempdir", None)
    assert look(load_campaign(folder / "campaign.toml"), {})[0].shared == ""


@pytest.mark.parametrize("kind", ["link", "folder", "fifo"])
def test_a_lock_file_that_is_none_is_an_error_not_a_traceback(tmp_path: Path, kind: str) -> None:
    folder = tmp_path / "c"
    assert iopress("plan", _campaign(tmp_path, tmp_path / "b.bin"), "-o", folder).returncode == 0
    lock = folder / ".iopress.lock"
    lock.unlink()
    {"link": lambda: lock.symlink_to(tmp_path / "x"), "folder": lock.mkdir}.get(
        kind, lambda: os.mkfifo(lock)
    )()
    ran = iopress("run", folder)
    assert ran.returncode == 1 and "Traceback" not in ran.stderr, ran
    assert f"{lock}: is " in ran.stderr, ran


def test_a_lock_file_is_no_one_elses_to_hold(tmp_path: Path) -> None:
    folder = tmp_path / "c"
    assert iopress("plan", _campaign(tmp_path, tmp_path / "b.bin"), "-o", folder).returncode == 0
    assert (folder / ".iopress.lock").stat().st_mode & 0o777 == 0o600


def test_an_older_plan_never_removes_the_users_job_files(tmp_path: Path) -> None:
    """A plan.json without the list of its job files (an older iopress's, or one edited):
    files named as iopress names them were removed, the user's own among them."""
    folder = tmp_path / "c"
    source = _campaign(tmp_path, tmp_path / "b.bin")
    assert iopress("plan", source, "-o", folder).returncode == 0
    plan = json.loads((folder / "plan.json").read_text())
    del plan["jobs"]
    (folder / "plan.json").write_text(json.dumps(plan))
    mine = folder / "jobs" / "0099-my-tuned-job.fio"
    mine.write_text("[mine]\n", encoding="utf-8")
    assert iopress("plan", source, "-o", folder).returncode == 0
    assert mine.read_text(encoding="utf-8") == "[mine]\n"


def test_plan_into_a_file_is_an_error(tmp_path: Path) -> None:
    afile = tmp_path / "afile"
    afile.write_text("x", encoding="utf-8")
    ran = iopress("plan", _campaign(tmp_path, tmp_path / "b.bin"), "-o", afile)
    assert ran.returncode == 1 and "is a file, not a folder" in ran.stderr, ran


@needs_fio
def test_a_result_is_kept_only_for_the_same_command(tmp_path: Path) -> None:
    """count = 2 × 1 s and count = 1 × 2 s have one job text (runtime=2) but not one
    command (fio's snapshots every second or every two): the result was kept."""
    source = _campaign(tmp_path, tmp_path / "b.bin")
    text = source.read_text("utf-8").replace("count = 1", "count = 2")
    source.write_text(text, encoding="utf-8")
    folder = tmp_path / "c"
    assert iopress("plan", source, "-o", folder).returncode == 0
    assert iopress("run", folder).returncode == 0
    text = text.replace("count = 2", "count = 1").replace("seconds = 1", "seconds = 2")
    source.write_text(text, encoding="utf-8")
    assert iopress("plan", source, "-o", folder).returncode == 0
    ran = iopress("run", folder)
    assert "1 run, 0 kept" in ran.stdout + ran.stderr, ran


@needs_fio
def test_a_result_of_a_point_planned_no_more_leaves_the_report(tmp_path: Path) -> None:
    """Planned with levels 1 and 2, run, planned again with level 1: raw/ kept the level 2
    result and the report read it. It is set aside into raw/unplanned/, never deleted."""
    folder = _two_points(tmp_path, tmp_path / "b.bin")
    assert iopress("run", folder).returncode == 0
    text = (tmp_path / "campaign.toml").read_text("utf-8").replace("[1, 2]", "[1]")
    (tmp_path / "campaign.toml").write_text(text, encoding="utf-8")
    assert iopress("plan", tmp_path / "campaign.toml", "-o", folder).returncode == 0
    assert iopress("run", folder).returncode == 0
    assert [p.name for p in (folder / "raw").glob("*.json")] == [
        p.name for p in (folder / "raw").glob("0001-*.json")
    ]
    assert len(list((folder / "raw" / "unplanned").glob("0002-*.json"))) == 1


@needs_fio
def test_preconditioning_is_bound_to_the_targets_it_wrote(tmp_path: Path) -> None:
    """A target file removed and made again after preconditioning: its precondition.json
    counted, and the new file was measured without it."""
    target = tmp_path / "b.bin"
    source = _campaign(tmp_path, target)
    text = source.read_text("utf-8").replace('id = "safe"', 'id = "safe"\nprecondition = true')
    source.write_text(text, encoding="utf-8")
    folder = tmp_path / "c"
    planned = iopress("plan", source, "-o", folder)
    assert planned.returncode == 0, planned
    first = iopress("run", folder)
    assert first.returncode == 0, first
    pre = folder / "raw" / "env" / "precondition.json"
    stamp = pre.stat().st_mtime_ns
    assert iopress("run", folder).returncode == 0 and pre.stat().st_mtime_ns == stamp
    target.unlink()
    for result in (folder / "raw").glob("*.json"):
        result.unlink()
    assert iopress("plan", source, "-o", folder).returncode == 0
    assert iopress("run", folder).returncode == 0
    assert pre.stat().st_mtime_ns != stamp


@needs_fio
def test_fio_s_own_error_is_said(tmp_path: Path) -> None:
    """fio writes its errors into --output: the message said "fio failed (exit 1): "."""
    folder = tmp_path / "c"
    assert iopress("plan", _campaign(tmp_path, tmp_path / "b.bin"), "-o", folder).returncode == 0
    (tmp_path / "b.bin").unlink()
    (tmp_path / "b.bin").mkdir()  # fio cannot open a folder as its file
    ran = iopress("run", folder, "--destroy-data", tmp_path / "b.bin")
    assert ran.returncode == 1 and "fio failed (exit 1): " in ran.stderr, ran
    assert not ran.stderr.split("fio failed (exit 1): ")[1].startswith("\n"), ran


def test_the_processes_that_hold_a_runs_lock_are_found(tmp_path: Path) -> None:
    """A fio worker that does not end when asked (a session of its own, out of reach of
    fio's group) is found by the lock it inherited, to be killed."""
    from pipeline.campaign.folder import Folder
    from pipeline.campaign.run import holders

    folder = Folder(tmp_path)
    with folder.locked() as lock:
        child = subprocess.Popen(["sleep", "30"], pass_fds=(lock,), start_new_session=True)
        try:
            assert holders(lock) == [child.pid]
        finally:
            child.kill()
            child.wait()
        assert holders(lock) == []


def test_another_users_entry_in_a_sticky_folder_is_refused(tmp_path: Path) -> None:
    """A colleague's empty file in a sticky lab folder (mode 3775): sticky keeps others
    from renaming over your entries, not the colleague over their own, so they could swap
    it for a link to your file while fio starts (a review did, as another user)."""
    if os.getuid() != 0:
        pytest.skip("making a file another user's needs root")
    lab = tmp_path / "lab"
    lab.mkdir()
    lab.chmod(0o3775)
    target = lab / "bench.bin"
    target.touch()
    os.chown(target, 4343, 5000)
    (seen,) = look(load_campaign(_campaign(tmp_path, target)), {})
    assert seen.shared == "is another user's, in a folder others may write"
    with pytest.raises(InputError, match="is another user's, in a folder others may write"):
        guard(tmp_path / "campaign.toml", tmp_path, [seen], [])
    planned = iopress("plan", _campaign(tmp_path, target), "-o", tmp_path / "c")
    assert "iopress run refuses it (others could swap it" in planned.stdout, planned


def test_a_device_without_a_signature_but_not_zeros_holds_data(tmp_path: Path) -> None:
    """A device whose first MiB was wiped, or encrypted without a header, counted as
    holding nothing (no signature): a sample of it is read."""
    from pipeline.campaign.targets import _not_zeros

    image = tmp_path / "disk.img"
    image.write_bytes(bytes(8 * MiB))
    with image.open("rb") as fh:
        assert not _not_zeros(fh, 8 * MiB)
    with image.open("r+b") as fh:
        fh.seek(5 * MiB)
        fh.write(os.urandom(512 * 1024))
    with image.open("rb") as fh:
        assert _not_zeros(fh, 8 * MiB)


def test_one_fio_server_named_twice_is_refused(tmp_path: Path) -> None:
    text = _campaign(tmp_path, tmp_path / "b.bin").read_text(encoding="utf-8")
    text += '[[hosts]]\nname = "a"\naddress = "10.0.0.1:8765"\n'
    text += '[[hosts]]\nname = "b"\naddress = "10.0.0.1:8765"\n'
    (tmp_path / "campaign.toml").write_text(text, encoding="utf-8")
    with pytest.raises(InputErrors, match="two hosts have the same address"):
        load_campaign(tmp_path / "campaign.toml")


@needs_fio
def test_a_result_is_the_targets_it_measured(tmp_path: Path) -> None:
    """A relative target resumed from another folder is another file: its points were
    kept ("0 run, 1 kept") and the report mixed two targets."""
    here, there = tmp_path / "here", tmp_path / "there"
    here.mkdir()
    there.mkdir()
    source = _campaign(tmp_path, "bench.bin")
    folder = tmp_path / "c"
    assert iopress("plan", source, "-o", folder, cwd=here).returncode == 0
    assert iopress("run", folder, cwd=here).returncode == 0
    assert "0 run, 1 kept" in iopress("run", folder, cwd=here).stdout
    moved = iopress("run", folder, cwd=there)
    assert "1 run, 0 kept" in moved.stdout, moved


def test_a_key_that_cannot_sign_stops_plan_and_run_at_once(tmp_path: Path) -> None:
    """With a key iopress could not use, plan recorded an unsigned file, run measured a
    point and then took its own file for the user's data."""
    key = tmp_path / "someone-elses.key"
    key.write_bytes(os.urandom(32))
    key.chmod(0o644)
    planned = iopress(
        "plan", _campaign(tmp_path, tmp_path / "b.bin"), "-o", tmp_path / "c", IOPRESS_CACHE_KEY=key
    )
    assert planned.returncode == 1, planned
    assert f"{key}: the key that signs a campaign's records and results cannot be used" in (
        planned.stderr
    )
    assert not (tmp_path / "b.bin").exists()
