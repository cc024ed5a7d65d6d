"""``campaign.toml``: what to measure, validated like report.toml (unknown keys refused)."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Annotated, Literal

from pydantic import BeforeValidator, Field, ValidationError, field_validator, model_validator

from pipeline.config import LANGS, LARGEST, Strict, from_validation, read_toml
from pipeline.errors import InputError
from pipeline.units import MAX_BLOCK, MAX_COUNT, MAX_RATE, Access, parse_block_size

CAMPAIGN_FILE = "campaign.toml"
# seed 000: 18 parallelism levels, 3 mixes, 1K…64K random and 256K, 1M sequential
SEED_LEVELS = [1, 2, 4, 8, 16, 32, 64, 96, 128, 160, 180, 192, 224, 256, 320, 384, 448, 512]
SEED_MIXES = [100.0, 70.0, 0.0]
Engine = Literal["io_uring", "libaio", "psync"]
_ADDRESS = re.compile(r"^[A-Za-z0-9][A-Za-z0-9.-]*(:[0-9]{1,5})?$")
# a campaign's limits beyond the report side's (levels, queue depth and block sizes as
# there: pipeline/units.py): every point is a job file, and each runs at most a day
MAX_POINTS = 100_000
MAX_POINT_SECONDS = 86_400
MAX_RUN_SECONDS = 366 * 86_400
PSYNC = (
    "psync is synchronous: one I/O in flight per worker whatever the queue depth; "
    'give engine = "io_uring" or "libaio", or queue_depth = 1'
)


def _size(text: str, largest: float) -> int:
    """The bytes of a size (``4K``, ``16G``); ValueError beyond ``largest``."""
    size = parse_block_size(text)  # ValueError: the size and why
    if size > largest:
        raise ValueError(f"{text!r} is more than iopress plans ({int(largest):,} bytes)")
    return size


class Profile(Strict):
    access: Access
    block_sizes: list[str] = Field(min_length=1)
    read_pct: list[float] = Field(default=SEED_MIXES, min_length=1)

    @field_validator("block_sizes")
    @classmethod
    def _sizes(cls, sizes: list[str]) -> list[str]:
        for size in sizes:
            _size(size, MAX_BLOCK)
        return sizes

    @field_validator("read_pct")
    @classmethod
    def _mixes(cls, mixes: list[float]) -> list[float]:
        if any(not 0 <= m <= 100 for m in mixes):
            raise ValueError("a read share is between 0 and 100")
        return mixes


SEED_PROFILES = [
    Profile(access="random", block_sizes=["1K", "4K", "8K", "64K"]),
    Profile(access="sequential", block_sizes=["256K", "1M"]),
]


def _rising(values: list[int]) -> list[int]:
    if any(v < 1 for v in values) or values != sorted(set(values)):
        raise ValueError("give whole numbers of at least 1, rising, each once")
    return values


def _one_or_list(value: object) -> object:
    """``queue_depth = 4`` is ``queue_depth = [4]``."""
    return [value] if isinstance(value, int) and not isinstance(value, bool) else value


Levels = Annotated[list[Annotated[int, Field(le=MAX_COUNT)]], Field(min_length=1)]
Depths = Annotated[Levels, BeforeValidator(_one_or_list)]  # one queue depth, or several


class Grid(Strict):
    """One block of queue depths × parallelism levels (``[[grid]]``): every depth at every
    level; several blocks plan their union (seed 002: QD 1…32 at one worker, and the
    workers rising at QD 4)."""

    queue_depth: Depths
    levels: Levels

    @field_validator("queue_depth", "levels")
    @classmethod
    def _rising(cls, values: list[int]) -> list[int]:
        return _rising(values)

    def pairs(self) -> list[tuple[int, int]]:
        """(queue depth, level) of every point, the depths outer, the levels rising."""
        return [(qd, level) for qd in self.queue_depth for level in self.levels]


class Intervals(Strict):
    count: int = Field(default=3, ge=1, le=1000)
    seconds: int = Field(default=20, ge=1, le=86400)
    warm_up: int = Field(default=0, ge=0, le=86400)  # seconds before the first interval


class Data(Strict):
    """What the writes carry (fio's buffer options), e.g. seed 001's 2:1 beside 1:1."""

    compress_pct: int = Field(ge=0, le=100)  # fio buffer_compress_percentage: 50 is 2:1
    dedupe_pct: int = Field(default=0, ge=0, le=100)  # fio dedupe_percentage


class Target(Strict):
    path: str = Field(min_length=1)
    size: str | None = None  # needed for a file that does not exist yet (e.g. "4G")

    @field_validator("path")
    @classmethod
    def _plain_path(cls, path: str) -> str:
        if ":" in path:
            raise ValueError("fio separates files with ':', so a path may not hold one")
        if any(ord(c) < 32 or ord(c) == 127 for c in path):  # a line break would add options
            raise ValueError("a path may not hold a line break or other control character")
        if "$" in path:  # fio expands ${VAR}: the file written would not be the one checked
            raise ValueError("fio expands '$' in a path (${HOME}): give the path itself")
        # fio's job-file parser ends a value at ';' or '#' (a comment), strips blanks at its
        # ends and reads '\' as an escape ('a\:b' is one file): the file fio wrote would
        # not be the one iopress checked
        if any(c in path for c in ";#\\"):
            raise ValueError("fio reads ';', '#' and '\\' in a path as its own: rename it")
        if path != path.strip():
            raise ValueError("fio strips blanks at a path's start and end: leave them out")
        return path

    @field_validator("size")
    @classmethod
    def _size(cls, size: str | None) -> str | None:
        if size is not None:
            _size(size, LARGEST)
        return size

    @property
    def size_bytes(self) -> int | None:
        """The size in bytes, as the job files give it to fio (fio reads "4MiB" as
        4,000,000 bytes and cuts "4.5M" to 4 bytes: its words are not iopress's)."""
        return None if self.size is None else parse_block_size(self.size)


class Host(Strict):
    name: str = Field(min_length=1, pattern=r"^[A-Za-z0-9][A-Za-z0-9_.-]*$")
    address: str = "local"  # or a fio server: host or host:port

    @field_validator("address")
    @classmethod
    def _address(cls, address: str) -> str:
        if address != "local" and not _ADDRESS.match(address):
            raise ValueError("give 'local' or a fio server as host or host:port")
        return address


class Campaign(Strict):
    id: str = Field(pattern=r"^[a-z0-9][a-z0-9_-]*$")
    system: str = Field(min_length=1)
    vendor: str = Field(min_length=1)
    title: dict[str, str] | None = None  # per language; default: the system's name
    author: str = ""
    organisation: str = ""
    profiles: list[Profile] = Field(default=SEED_PROFILES, min_length=1)
    levels: Levels = Field(default=SEED_LEVELS)
    queue_depth: Depths = Field(default=[1])  # one (``4``), or several: each at every level
    grid: list[Grid] = Field(default_factory=list)  # instead of levels × queue_depth
    intervals: Intervals = Intervals()
    engine: Engine | None = None  # None: the best this machine's fio offers
    direct: bool = True
    targets: list[Target] = Field(min_length=1)
    hosts: list[Host] = Field(default=[Host(name="local")], min_length=1)
    # a rate sweep: the target IOPS of all hosts together, each a point per level
    rate_iops: list[Annotated[int, Field(le=MAX_RATE)]] = Field(default_factory=list)
    precondition: bool = False  # SNIA: write the whole target twice before the points
    data: Data | None = None  # None: fio's own buffers

    @field_validator("levels", "queue_depth", "rate_iops")
    @classmethod
    def _rising(cls, values: list[int]) -> list[int]:
        return _rising(values)

    @model_validator(mode="after")
    def _one_grid(self) -> Campaign:
        both = {"levels", "queue_depth"} & self.model_fields_set
        if self.grid and both:
            raise ValueError(
                f"give either [[grid]] blocks or {' and '.join(sorted(both))}: "
                "each [[grid]] has its own queue_depth and levels"
            )
        return self

    @property
    def grids(self) -> list[Grid]:
        return self.grid or [Grid(queue_depth=self.queue_depth, levels=self.levels)]

    def pairs(self) -> list[tuple[int, int]]:
        """(queue depth, level) of every point, in run order, each once: the product of
        ``queue_depth`` and ``levels``, or the union of the [[grid]] blocks."""
        return list(dict.fromkeys(pair for grid in self.grids for pair in grid.pairs()))

    @property
    def depths(self) -> list[int]:
        """Every queue depth the campaign measures, rising."""
        return sorted({qd for qd, _ in self.pairs()})

    @property
    def all_levels(self) -> list[int]:
        """Every parallelism level the campaign measures, rising."""
        return sorted({level for _, level in self.pairs()})

    @model_validator(mode="after")
    def _one_size(self) -> Campaign:
        """Several targets are one fio job, whose ``filesize`` is every file's: one size
        for all of them, or none (each file or device used whole)."""
        sizes = {t.size_bytes for t in self.targets}
        if len(sizes) > 1:
            raise ValueError(
                "several targets are one fio job: give each the same size (fio lays every "
                "file out to it), or none (each existing file or device is used whole)"
            )
        return self

    @property
    def file_size(self) -> int | None:
        """Every target file's size in bytes (fio lays a smaller file out to it), if given."""
        return self.targets[0].size_bytes

    @model_validator(mode="after")
    def _hosts(self) -> Campaign:
        names = [h.name for h in self.hosts]
        if len(set(names)) != len(names):
            raise ValueError("two hosts have the same name")
        addresses = [h.address for h in self.hosts]
        if len(set(addresses)) != len(addresses):  # one fio server twice: its jobs twice
            raise ValueError("two hosts have the same address: give each fio server once")
        local = [h for h in self.hosts if h.address == "local"]
        if local and len(self.hosts) > 1:
            raise ValueError("'local' runs on this machine only: give every host a fio server")
        return self

    @model_validator(mode="after")
    def _bounded(self) -> Campaign:
        """At most MAX_POINTS job files, a day per point, a year in all."""
        mixes = sum(len(p.block_sizes) * len(p.read_pct) for p in self.profiles)
        rates = max(1, len(self.rate_iops))
        # the blocks' sum first (a grid overlapping another counts twice), then their union
        listed = sum(len(g.queue_depth) * len(g.levels) for g in self.grids)
        points = mixes * rates * (listed if listed > 10 * MAX_POINTS else len(self.pairs()))
        if points > MAX_POINTS:
            raise ValueError(f"{points:,} points are more than iopress plans ({MAX_POINTS:,})")
        if self.point_seconds > MAX_POINT_SECONDS:
            raise ValueError(
                f"[intervals]: a point of {self.point_seconds:,} s is longer than a day "
                f"({MAX_POINT_SECONDS:,} s)"
            )
        if points * self.point_seconds > MAX_RUN_SECONDS:
            raise ValueError(f"{points:,} points of {self.point_seconds:,} s run over a year")
        if self.engine == "psync" and self.depths[-1] > 1:
            raise ValueError(PSYNC)
        return self

    @field_validator("title")
    @classmethod
    def _languages(cls, title: dict[str, str] | None) -> dict[str, str] | None:
        if title is not None and sorted(title) != sorted(LANGS):
            raise ValueError(f"give the title in exactly these languages: {', '.join(LANGS)}")
        return title

    def titles(self) -> dict[str, str]:
        return self.title or {lang: self.system for lang in LANGS}

    @property
    def point_seconds(self) -> int:
        return self.intervals.warm_up + self.intervals.count * self.intervals.seconds


def load_campaign(path: Path) -> Campaign:
    """Read and validate a campaign file; every problem is reported at once."""
    if path.is_dir():
        path = path / CAMPAIGN_FILE
    if not path.is_file():
        raise InputError(path, "", "campaign file not found", "give the path of campaign.toml")
    try:
        return Campaign.model_validate(read_toml(path))
    except ValidationError as err:
        raise from_validation(path, err, "docs/campaign.md", Campaign) from None
