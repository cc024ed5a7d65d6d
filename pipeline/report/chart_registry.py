"""Every chart kind of a report, declared once.

A ``Chart`` names what it is drawn from, what one chart of the kind is drawn per, the
column on its x axis, when a report shows it without ``[[charts]]``, its caption and alt
text keys, its latency axis's unit, where it goes (whitepaper section, site, datasheet)
and the function that makes its Vega-Lite spec. The plan (``report/plan``), the drawing
(``charts/draw``), the whitepaper, the site, the datasheet, the manifest and the docs
(docs/charts.md) all read this list; adding a kind is one entry plus its spec function
(docs/architecture.md).

The spec function sits in ``pipeline/charts`` (a layer above this one) and is named here
as ``"module:function"``; ``charts/draw.spec`` resolves it and a test checks that every
name resolves.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Literal

import polars as pl

from pipeline.compute.tables import most_load

Takes = Literal["points", "bins", "cost"]  # the profile's points, a fio json+ file, the cost table
Place = Literal["results", "cost"]  # the whitepaper section the chart is printed in
Rule = Callable[[pl.DataFrame], bool]  # true of the points of one chart of the kind
Shows = Callable[[pl.DataFrame], pl.DataFrame]  # the points a chart of the kind can place
Colours = Literal["mix", "setup", "own"]  # a colour per mix, per setup, or its own legend

PROFILE = ("setup", "access", "block_size", "read_pct")
LEVELS = ("queue_depth", "parallelism")
SERIES = 3  # block sizes at one level, mix and setup that make a block-size series


def varies(points: pl.DataFrame, column: str, within: tuple[str, ...]) -> bool:
    """``column`` takes more than one value among the points of one ``within`` group."""
    if points.is_empty():
        return False
    found = points.group_by(list(within)).agg(pl.col(column).n_unique().alias("n"))
    return int(found["n"].max()) > 1  # type: ignore[arg-type]


def _parallelism_sweep(points: pl.DataFrame) -> bool:
    """Several parallelism levels at one profile and queue depth, each at one target rate
    (a rate sweep is drawn as a response curve instead)."""
    return varies(points, "parallelism", (*PROFILE, "queue_depth")) and not _rate_sweep(points)


def _rate_sweep(points: pl.DataFrame) -> bool:
    """Several target rates at one parallelism: read as latency over the I/O rate reached;
    against parallelism its rates would stand in one vertical line."""
    return varies(points, "target_iops", (*PROFILE, *LEVELS))


def _depth_sweep(points: pl.DataFrame) -> bool:
    return varies(points, "queue_depth", (*PROFILE, "parallelism"))


def sized(points: pl.DataFrame) -> pl.DataFrame:
    """The points of one transfer size and no workload name: a named mix (Iometer's File
    Server, a [[profiles]] name) or a block split has no place on a block-size axis."""
    for column in ("profile", "block_split"):
        if column in points.columns:
            points = points.filter(pl.col(column).is_null())
    return points


def block_series(points: pl.DataFrame) -> pl.DataFrame:
    """The points of block-size series: the sizes of one mix and setup at one queue depth
    and parallelism where ``SERIES`` of them or more were measured there, more sizes than
    the levels each was measured at (seed 002's IOMeter runs: 512 B … 1 MiB at QD 8 beside
    a 4K queue-depth sweep; twelve sizes at numjobs 1 and 4: a series at each). Block sizes
    each swept over many levels (fs840's four over 18 parallelism levels) are drawn over
    the levels."""
    found = sized(points)
    if found.is_empty():
        return found
    levels = pl.struct(*LEVELS).n_unique().over(PROFILE)
    sizes = pl.col("block_size").n_unique().over("setup", "access", "read_pct", *LEVELS)
    return found.filter((sizes >= SERIES) & (sizes > levels))


def _block_series(points: pl.DataFrame) -> bool:
    """A block-size series among the points of the chart."""
    return not block_series(points).is_empty()


def named(points: pl.DataFrame) -> pl.DataFrame:
    """The points of named workload mixes (Iometer's Database, a [[profiles]] name)."""
    if "profile" not in points.columns:
        return points.clear()
    return points.filter(pl.col("profile").is_not_null())


def _named_mixes(points: pl.DataFrame) -> bool:
    """Two named mixes or more at one level (seed 002's application scenarios)."""
    return named(points)["profile"].n_unique() > 1


def _several_setups(points: pl.DataFrame) -> bool:
    return points["setup"].n_unique() > 1


def _setups_over_depth(points: pl.DataFrame) -> bool:
    """Several setups, and a queue depth swept (seed 002's 4K reads with 1 and 2 links)."""
    return _several_setups(points) and _depth_sweep(points)


def _with_percentiles(points: pl.DataFrame) -> bool:
    return points["lat_p99_us"].drop_nulls().len() > 0


@dataclass(frozen=True)
class Chart:
    """One chart kind."""

    name: str  # the kind: report.toml ``kind``, the file stem's first word
    spec: str  # "module:function" in pipeline/charts making its Vega-Lite spec
    what: str  # one line for docs/charts.md
    takes: Takes = "points"
    per: tuple[str, ...] = ()  # one chart per value of these columns
    levels: tuple[str, ...] = ("queue_depth",)  # also per these where a setup has several
    x: str | None = "parallelism"  # the column on its x axis: one value there is no chart
    default: Rule | None = None  # shown without [[charts]] when true of the points
    instead: str | None = None  # the kind drawn where this one's axis has one value
    needs: str | None = None  # a column its points must have (percentiles: lat_p99_us)
    shows: Shows | None = None  # the points it can place (block size: its series), if not all
    title: str = ""  # locale key of its caption (and title)
    alt: str = ""  # locale key of its alt text
    method: str = ""  # locale key of its sentence in the method section (method.chart_<name>)
    latency: str | None = None  # unit of its latency axis (ms: in µs for fast documents)
    place: Place = "results"
    site: bool = True
    datasheet: int | None = None  # the datasheet's chart: the lowest rank present
    colours: Colours = "mix"  # what its colours mean: the document's palette (report/palette)
    several: Colours | None = None  # what they mean where it draws several setups, if other
    compares: bool = False  # it compares setups: not drawn of a profile one setup measured

    def points(self, points: pl.DataFrame) -> pl.DataFrame:
        """The points a chart of this kind can place: against parallelism, each level's
        point of most load (its rate sweep is the response chart's)."""
        found = self.shows(points) if self.shows is not None else points
        return most_load(found) if self.x == "parallelism" else found


CHARTS: tuple[Chart, ...] = (
    Chart(
        "standard",
        "pipeline.charts.standard:standard_chart",
        "IOPS (MB/s sequential) and service time against parallelism, one colour per mix "
        "(seed 000)",
        per=("setup", "access", "block_size"),
        default=_parallelism_sweep,  # also where no kind's rule holds: then left out, noted
        instead="queue_depth",
        title="chart.caption",
        alt="chart.alt",
        latency="ms",
        datasheet=0,
    ),
    Chart(
        "queue_depth",
        "pipeline.charts.levels:queue_depth_chart",
        "IOPS (MB/s) and service time against queue depth at fixed parallelism, one colour "
        "per mix; a QD × parallelism grid as small multiples, a column per parallelism (seed 002)",
        per=("setup", "access", "block_size"),
        levels=(),
        x="queue_depth",
        default=_depth_sweep,
        instead="standard",
        title="chart.queue_depth_title",
        alt="chart.alt_queue_depth",
        latency="ms",
        datasheet=3,
    ),
    Chart(
        "block_size",
        "pipeline.charts.levels:block_size_chart",
        "MB/s and IOPS against block size, one colour per mix; with several setups a column "
        "per mix, one colour per setup (seed 002's IOMeter charts)",
        per=("access",),
        levels=LEVELS,
        x="block_size",
        default=_block_series,
        shows=block_series,
        several="setup",  # a column per mix, a line per setup
        title="chart.block_size_title",
        alt="chart.alt_block_size",
    ),
    Chart(
        "mixes",
        "pipeline.charts.levels:mixes_chart",
        "named workload mixes (Iometer's Database, File Server …) as bars, MB/s above IOPS, "
        "one bar per setup (seed 002's application scenarios)",
        per=("access",),
        levels=LEVELS,
        x="profile",
        default=_named_mixes,
        shows=named,
        title="chart.mixes_title",
        alt="chart.alt_mixes",
        colours="setup",
    ),
    Chart(
        "dual_axis",
        "pipeline.charts.family:dual_axis_chart",
        "IOPS (MB/s) solid on the left axis, latency dashed on the right, one colour per "
        "setup (seed 004)",
        per=("access", "block_size", "read_pct"),
        default=_several_setups,
        title="chart.dual_title",
        alt="chart.alt_dual",
        latency="µs",
        datasheet=1,
        colours="setup",
    ),
    Chart(
        "setups",
        "pipeline.charts.family:setups_chart",
        "setups compared: colour per setup, reads solid, writes dashed (other mixes "
        "dotted); throughput and service time (seed 003)",
        per=("access", "block_size"),
        default=_several_setups,
        instead="setups_depth",
        title="chart.setups_title",
        alt="chart.alt_setups",
        latency="ms",
        colours="setup",
        compares=True,
    ),
    Chart(
        "setups_depth",
        "pipeline.charts.family:setups_chart",
        "setups compared over queue depth at fixed parallelism: colour per setup, reads "
        "solid, writes dashed; throughput and service time (seed 002's 1 and 2 links)",
        per=("access", "block_size"),
        levels=("parallelism",),
        x="queue_depth",
        default=_setups_over_depth,
        instead="setups",
        title="chart.setups_depth_title",
        alt="chart.alt_setups_depth",
        latency="ms",
        colours="setup",
        compares=True,
    ),
    Chart(
        "frontend_backend",
        "pipeline.charts.pairs:frontend_backend_chart",
        "the setup pairs of report.toml `frontend_backend`: colour per pair, frontend "
        "(cache) solid, backend dashed; throughput and service time (seed 003)",
        per=("access", "block_size", "read_pct"),
        default=None,  # shown where report.toml declares pairs (report/plan)
        title="chart.frontend_backend_title",
        alt="chart.alt_frontend_backend",
        latency="ms",
        colours="setup",
    ),
    Chart(
        "response",
        "pipeline.charts.family:response_chart",
        "service time against I/O rate per mix; the zone under the latency limit shaded (seed 001)",
        per=("setup", "access", "block_size"),
        x=None,
        default=_rate_sweep,
        title="chart.response_title",
        alt="chart.alt_response",
        latency="ms",
        datasheet=2,
    ),
    Chart(
        "stability",
        "pipeline.charts.family:stability_chart",
        "mean IOPS with the band from the slowest to the fastest interval (auditors)",
        per=("setup", "access", "block_size"),
        title="chart.stability_title",
        alt="chart.alt_stability",
    ),
    Chart(
        "percentiles",
        "pipeline.charts.family:percentiles_chart",
        "latency p50, p90, p99, p99.9, p99.99 against parallelism (log axis), where the "
        "tool reported them (fio)",
        per=("setup", "access", "block_size", "read_pct"),
        default=_with_percentiles,
        needs="lat_p99_us",
        colours="own",
        title="chart.percentiles_title",
        alt="chart.alt_percentiles",
        latency="µs",
    ),
    Chart(
        "histogram",
        "pipeline.charts.family:histogram_chart",
        "I/Os per latency bin (log axis) from one fio json+ job's `bins`",
        takes="bins",
        colours="own",
        levels=(),
        x=None,
        title="chart.histogram_title",
        alt="chart.alt_histogram",
        latency="µs",
    ),
    Chart(
        "cost",
        "pipeline.charts.cost:cost_chart",
        "price per TB and per 1000 IOPS by system and year (seed 000)",
        takes="cost",
        colours="own",
        levels=(),
        x=None,
        title="chart.cost_title",
        alt="chart.cost_alt",
        place="cost",
    ),
)

BY_NAME: dict[str, Chart] = {c.name: c for c in CHARTS}


def colours_of(chart: Chart, setups: int) -> Colours:
    """What the colours of ``chart`` mean in a document of ``setups`` setups."""
    return chart.several if chart.several is not None and setups > 1 else chart.colours


def declared(name: str) -> Chart:
    return BY_NAME[name]
