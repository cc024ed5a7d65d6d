"""What DiskSpd's text and XML results have in common, as the two parsers give it to
``diskspd`` (which turns it into interval rows). See docs/formats/diskspd.md."""

from __future__ import annotations

from dataclasses import dataclass, field

from pipeline.language.message import Message

# how DiskSpd prints when it ran (``2021/04/16 19:03:38 UTC``)
TIME_LAYOUTS = ("%Y/%m/%d %H:%M:%S UTC", "%Y/%m/%d %H:%M:%S")

# the latency figures read from DiskSpd's percentile tables or <Bucket>s, by schema name
PERCENTILE_NAMES = ("p50", "p90", "p99", "p999", "p9999", "max")


@dataclass(frozen=True)
class Profile:
    """A target's workload as the input parameters (``<Profile>``) give it."""

    access: str  # random | sequential
    read_pct: float
    block_size: int
    queue_depth: int  # outstanding I/Os per thread and target


@dataclass
class Measured:
    """One thread × target of a time span: what it did over the measured time.
    ``problem`` says why it cannot become a row (a figure that is not a number)."""

    thread: str
    path: str
    line: int
    where: Message
    ios: int = 0
    bytes: int = 0
    read_ios: int | None = None
    read_bytes: int | None = None
    write_ios: int | None = None
    write_bytes: int | None = None
    lat_ms: float | None = None
    read_lat_ms: float | None = None
    write_lat_ms: float | None = None
    problem: Message | None = None


@dataclass
class Span:
    """One DiskSpd time span (``-ag`` … one test): its targets' profiles and results.
    ``seconds`` is None when DiskSpd says the test was interrupted before measuring."""

    number: int
    line: int
    place: str = ""  # its XML path (text: none)
    targets: dict[str, Profile] = field(default_factory=dict)
    seconds: float | None = None
    measured: list[Measured] = field(default_factory=list)
    # "" (all targets) or a target's path -> percentile name -> ms (None: N/A)
    percentiles: dict[str, dict[str, float | None]] = field(default_factory=dict)
    cpu_pct: float | None = None
    has_results: bool = False


@dataclass
class Run:
    """A whole DiskSpd result file."""

    host: str | None = None
    version: str | None = None
    time: int | None = None  # when it ran (``start time:``, ``<RunTime>``), ms since the epoch
    spans: list[Span] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)


class BadFigure(Exception):
    """A figure of one thread × target that is not a number (the record is rejected)."""

    def __init__(self, column: str, value: str) -> None:
        self.reason = Message.of("diskspd.not_number", column=repr(column), value=repr(value))
        super().__init__(str(self.reason))


def whole(text: str) -> bool:
    """ASCII digits only (``str.isdigit`` also takes ``²``, which ``int`` refuses)."""
    return text.isascii() and text.isdigit()
