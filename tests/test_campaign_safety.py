"""A campaign someone else sent cannot exhaust the machine (issue #32): its counts, sizes
and run time are bounded as the report side's."""

from __future__ import annotations

import hashlib
import os
import shutil
from pathlib import Path

import pytest

from pipeline.campaign.model import load_campaign
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


# 10. limits --------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("old", "new", "words"),
    [
        ("levels = [1]", "levels = [10000000]", "levels[0]: Input should be less than or equal"),
        ("levels = [1]", "levels = [1]\nqueue_depth = 65537000", "queue_depth: Input should"),
        ('block_sizes = ["4K"]', 'block_sizes = ["2048G"]', "block_sizes: Value error, '2048G'"),
        ('size = "4M"', 'size = "2000000000G"', "targets[0].size: Value error"),
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
