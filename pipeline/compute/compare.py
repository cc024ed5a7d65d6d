"""Two measurements of the same profiles compared: per profile the maximum I/O rate (MB/s
for sequential access), the minimum latency, the rate at the optimum and at the latency
limit, and the rate at every parallelism level both sides measured (the worst level
shown), each with the interval spread of the point it was read from. A change is a
regression only when it is worse by more than the threshold and by more than the noise
(the spreads of both sides added)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Literal, get_args

import polars as pl

from pipeline.compute.tables import (
    PROFILE,
    SEED_ORDER,
    iops_at_latency,
    min_latency,
    on_curve,
    performance,
)
from pipeline.config import Report
from pipeline.errors import UsageError
from pipeline.language.message import Message
from pipeline.validate import rounds

Metric = Literal["iops", "lat", "optimum", "limit", "level"]
METRICS: tuple[Metric, ...] = get_args(Metric)
Status = Literal[
    "regression", "improvement", "within noise", "within threshold", "unchanged", "not reached"
]
MATCH = [c for c in PROFILE if c != "setup"] + ["setup"]
POINT = [*PROFILE, "parallelism"]
# the figure read at every common level: matched level by level, the worst one kept
LEVEL = [*MATCH, "metric", "parallelism", "target_iops"]


@dataclass(frozen=True)
class Settings:
    """How each side's figures are derived (the report's settings, or report.toml's
    defaults: 1 ms up to 32K blocks, 3 ms above, no optimum margin)."""

    limits_us: tuple[float, float] = (1000.0, 3000.0)
    small_block: int = 32 * 1024
    margin_pp: float = 0.0

    @classmethod
    def of(cls, report: Report) -> Settings:
        limits = report.latency_limits
        return cls((limits.small_us, limits.large_us), limits.small_block, report.optimum_margin_pp)

    def stored(self) -> dict[str, float]:
        """As a build stores them with its dataset (dataset.write's ``figures``)."""
        small, large = self.limits_us
        return {
            "small_us": small,
            "large_us": large,
            "small_block": self.small_block,
            "margin_pp": self.margin_pp,
        }

    @classmethod
    def read(cls, found: dict[str, float]) -> Settings:
        """From a dataset's stored figures (dataset.read_figures); defaults where absent."""
        base = cls().stored() | found
        limits = (base["small_us"], base["large_us"])
        return cls(limits, int(base["small_block"]), base["margin_pp"])


@dataclass
class Comparison:
    rows: pl.DataFrame  # one per profile and metric: old, new, change, noise, status
    only_old: pl.DataFrame  # profiles measured on one side only
    only_new: pl.DataFrame
    apart: pl.DataFrame = field(default_factory=pl.DataFrame)  # both, no common level
    notes: list[Message] = field(default_factory=list)  # what was matched, and how
    old_points: pl.DataFrame = field(default_factory=pl.DataFrame)  # as compared (aligned)
    new_points: pl.DataFrame = field(default_factory=pl.DataFrame)
    targets_differ: int = 0  # levels matched though their target rates differ
    levels_apart: int = 0  # points of a common level left without a match (other targets)
    # profiles of both sides at levels OLD measured and NEW did not ("missing": the levels)
    lost: pl.DataFrame = field(default_factory=pl.DataFrame)

    @property
    def regressions(self) -> pl.DataFrame:
        return self.rows.filter(pl.col("status") == "regression")

    @property
    def unknown_noise(self) -> int:
        """How many figures were judged without a noise (the threshold alone) as a point
        had one interval or a side none; a figure with no point on a side ("not
        reached") is not judged at all, so not counted, nor is one of ``none_within``."""
        judged = self.rows.filter(pl.col("status") != "not reached")
        return judged["noise_pct"].null_count() - self.none_within

    @property
    def none_within(self) -> int:
        """How many rates at a latency limit were judged without a noise as one side has
        no point within the limit (its rate is 0: there is no point to have a noise)."""
        zero = (pl.col("old") == 0) | (pl.col("new") == 0)
        judged = self.rows.filter(
            (pl.col("status") != "not reached") & (pl.col("metric") == "limit") & zero
        )
        return judged["noise_pct"].null_count()


def spreads(intervals: pl.DataFrame, per_target: bool = False) -> pl.DataFrame:
    """Per point the largest deviation of one round from the point's mean, in % of the
    mean: of the I/O rate (IOPS and bytes/s) and of the latency (see validate.rounds).
    The target rates of a rate sweep at one parallelism are measured apart and the
    largest of their spreads is taken (the tables' rows do not name the rate), unless
    ``per_target`` (the figure of every level, which compares each rate on its own)."""

    def spread(c: str, name: str) -> pl.Expr:
        mean = pl.col(c).mean()
        found = ((pl.col(c) - mean).abs().max() / mean * 100).fill_nan(None)
        # one round deviates from nothing: its noise is not known, not 0
        return pl.when(pl.col(c).count() > 1).then(found).alias(name)

    names = ("iops_noise", "bytes_per_s_noise", "lat_noise")
    each = (
        rounds(intervals)
        .group_by([*POINT, "target_iops"])
        .agg(
            spread("iops", "iops_noise"),
            spread("bytes_per_s", "bytes_per_s_noise"),
            spread("lat_mean_us", "lat_noise"),
        )
    )
    return each if per_target else each.group_by(POINT).agg(pl.col(n).max() for n in names)


def _by_access(sequential: pl.Expr, random: pl.Expr) -> pl.Expr:
    """The rate the seeds state per profile: bytes/s for sequential access, else IOPS."""
    return pl.when(pl.col("access") == "sequential").then(sequential).otherwise(random)


def figures(points: pl.DataFrame, intervals: pl.DataFrame, s: Settings) -> pl.DataFrame:
    """Per profile and metric: the value, its unit, the parallelism it was read at and the
    interval spread there (null where the point has one interval)."""
    perf = performance(points, s.margin_pp)
    parts = {
        "iops": perf.filter(pl.col("kind") == "maximum"),
        "optimum": perf.filter(pl.col("kind") == "optimum"),
        # null where every point is above the limit: the rate there is none (0)
        # an interpolated rate is held to no target: its lower point's is not its own
        "limit": iops_at_latency(points, s.limits_us, s.small_block).with_columns(
            pl.col("iops", "bytes_per_s").fill_null(0.0),
            pl.when(pl.col("measured")).then(pl.col("target_iops")).alias("target_iops"),
        ),
        "lat": min_latency(points),
        "level": on_curve(points, PROFILE, SEED_ORDER),
    }
    noise = spreads(intervals)
    own = spreads(intervals, per_target=True)  # a level's figure: its target rate's own
    found = []
    rate = (
        _by_access(pl.col("bytes_per_s"), pl.col("iops")),
        _by_access(pl.lit("B/s"), pl.lit("IOPS")),
        _by_access(pl.col("bytes_per_s_noise"), pl.col("iops_noise")),
    )
    latency = (pl.col("lat_mean_us"), pl.lit("µs"), pl.col("lat_noise"))
    for metric, table in parts.items():
        value, unit, noise_col = latency if metric == "lat" else rate
        on, spread = ([*POINT, "target_iops"], own) if metric == "level" else (POINT, noise)
        found.append(
            table.with_columns(value.alias("value"))
            .join(spread, on=on, how="left", nulls_equal=True)
            .select(
                *PROFILE,
                pl.lit(metric).alias("metric"),
                "value",
                unit.alias("unit"),
                "parallelism",
                # the target rate of the figure's point (a rate sweep's), whatever metric
                pl.col("target_iops").cast(pl.Float64),
                noise_col.alias("noise_pct"),
            )
        )
    return pl.concat(found, how="vertical_relaxed")


def labels(frame: pl.DataFrame) -> pl.DataFrame:
    return frame.select(MATCH).unique(maintain_order=True)


def status(worse: float | None, noise: float | None, threshold: float) -> Status:
    """A change worse by more than the threshold and the noise is a regression; better by
    as much an improvement; otherwise it says which of the two it stayed within. No change
    to measure (a rate of 0 at the latency limit on both sides): not reached. Noise not
    known (None): the threshold alone judges (``Comparison.unknown_noise`` says so)."""
    noise = 0.0 if noise is None else noise
    if worse is None:
        return "not reached"
    if abs(worse) < 1e-9:
        return "unchanged"
    if abs(worse) <= threshold:
        return "within threshold"
    if abs(worse) <= noise:
        return "within noise"
    return "regression" if worse > 0 else "improvement"


def _matched(old: pl.DataFrame, new: pl.DataFrame) -> tuple[pl.DataFrame, int, int]:
    """Both sides' figures side by side: a profile's figures by profile, the figure of every
    level also by its level (and target rate); how many levels were matched across target
    rates, and how many points of either side had no match (``_by_level``)."""
    flat = [*MATCH, "metric"]
    at_level = pl.col("metric") == "level"
    both = old.filter(~at_level).join(
        new.filter(~at_level), on=flat, how="inner", suffix="_new", nulls_equal=True
    )
    levels, loose, apart = _by_level(old.filter(at_level), new.filter(at_level))
    both = pl.concat([both, levels], how="diagonal_relaxed")
    both = both.rename({"value": "old", "value_new": "new", "noise_pct": "noise_old"})
    both = both.rename({"noise_pct_new": "noise_new", "parallelism": "parallelism_old"})
    return both, loose, apart


def _by_level(old: pl.DataFrame, new: pl.DataFrame) -> tuple[pl.DataFrame, int, int]:
    """The points of every common level matched by their target rate; a level each side
    measured once, at different targets (a rate cap set on one side), is matched all the
    same (its achieved rate is what changed). Also how many were so matched, and how many
    points of either side are left without a match."""
    exact = old.join(new, on=LEVEL, how="inner", suffix="_new", nulls_equal=True)
    exact = exact.with_columns(pl.col("target_iops").alias("target_iops_new"))
    cell = [*MATCH, "metric", "parallelism"]
    once = [f.filter(pl.len().over(cell) == 1) for f in (old, new)]
    loose = once[0].join(once[1], on=cell, how="inner", suffix="_new", nulls_equal=True)
    loose = loose.filter(~pl.col("target_iops").eq_missing(pl.col("target_iops_new")))
    apart = old.height + new.height - 2 * (exact.height + loose.height)
    levels = pl.concat([exact, loose], how="diagonal_relaxed")
    return levels.with_columns(pl.col("parallelism").alias("parallelism_new")), loose.height, apart


def _change() -> pl.Expr:
    """The change in % of the old value; from none to some an improvement beyond any
    threshold; none on both sides at one level is no change."""
    return (
        pl.when(pl.col("old") > 0)
        .then((pl.col("new") - pl.col("old")) / pl.col("old") * 100)
        .when(pl.col("new") > 0)
        .then(float("inf"))
        .when(pl.col("metric") == "level")
        .then(0.0)
        .otherwise(None)
    )


def _worst_level(rows: pl.DataFrame) -> pl.DataFrame:
    """Per profile one row of the figure read at every level: a level that regressed
    before any other (the largest drop of those), else the level that changed most for
    the worse."""
    at_level = pl.col("metric") == "level"
    order = [pl.col("status") != "regression", pl.col("worse_pct"), pl.col("parallelism_old")]
    worst = (
        rows.filter(at_level)
        .with_row_index("_first")
        .with_columns(pl.col("_first").min().over(MATCH))  # the profiles' order
        .sort(order, descending=[False, True, False], nulls_last=True)
        .group_by(MATCH, maintain_order=True)
        .first()
        .sort("_first")
    )
    return pl.concat([rows.filter(~at_level), worst.select(rows.columns)])


def compare(
    old: pl.DataFrame, new: pl.DataFrame, threshold_pct: float, metrics: tuple[Metric, ...]
) -> Comparison:
    """``figures`` of both sides matched by profile (and setup)."""
    old, new = (f.filter(pl.col("metric").is_in(list(metrics))) for f in (old, new))
    both, loose, apart = _matched(old, new)
    change = _change()
    worse = pl.when(pl.col("metric") == "lat").then(change).otherwise(-change)
    both = both.with_columns(change.alias("change_pct"), worse.alias("worse_pct"))
    both = both.with_columns(
        # not known where either side's is not (a point of one interval, no intervals)
        (pl.col("noise_old") + pl.col("noise_new")).alias("noise_pct")
    )
    verdicts = [
        status(w, n, threshold_pct)
        for w, n in zip(both["worse_pct"], both["noise_pct"], strict=True)
    ]
    both = _worst_level(both.with_columns(pl.Series("status", verdicts, pl.String)))
    rows = both.select(
        *MATCH,
        "metric",
        "unit",
        "old",
        "new",
        "change_pct",
        "noise_old",
        "noise_new",
        "noise_pct",
        "status",
        "parallelism_old",
        pl.col("parallelism_new"),
        # the level figure's target rates, where a side has one (a rate sweep, a cap)
        pl.col("target_iops").alias("target_iops_old"),
        "target_iops_new",
    )
    only_old = labels(old).join(labels(new), on=MATCH, how="anti", nulls_equal=True)
    only_new = labels(new).join(labels(old), on=MATCH, how="anti", nulls_equal=True)
    return Comparison(rows, only_old, only_new, targets_differ=loose, levels_apart=apart)


def common_points(
    old: pl.DataFrame, new: pl.DataFrame
) -> tuple[pl.DataFrame, pl.DataFrame, Message | None]:
    """The (profile, parallelism) cells both sides measured; the profiles measured on both
    sides but at no common level; and a note when the parallelism grids differ."""
    cells = [*MATCH, "parallelism"]
    both = old.select(cells).unique().join(new.select(cells).unique(), on=cells, nulls_equal=True)
    if both.is_empty():
        raise UsageError(
            "the two sides have no profile and parallelism level in common: nothing to compare"
        )
    apart = labels(old).join(labels(new), on=MATCH, nulls_equal=True)
    apart = apart.join(labels(both), on=MATCH, how="anti", nulls_equal=True)
    a, b = (sorted(set(f["parallelism"].to_list())) for f in (old, new))
    note = None
    if a != b:
        note = Message.in_table("compare", "note_levels", old=_levels(a), new=_levels(b))
    return both, apart, note


def levels_lost(old: pl.DataFrame, new: pl.DataFrame) -> pl.DataFrame:
    """The profiles both sides measured at a common level where NEW lacks levels OLD
    measured ("missing": those levels): compared over the common levels alone, OLD's
    maximum at a level NEW left out would be compared with a lower one of its own and a
    run that stopped early would pass the gate."""
    cells = [*MATCH, "parallelism"]
    gone = (
        old.select(cells)
        .unique()
        .join(new.select(cells).unique(), on=cells, how="anti", nulls_equal=True)
    )
    shared = old.select(cells).join(new.select(cells), on=cells, nulls_equal=True)
    gone = gone.join(labels(shared), on=MATCH, how="semi", nulls_equal=True)
    return gone.group_by(MATCH, maintain_order=True).agg(
        pl.col("parallelism").unique().sort().alias("missing")
    )


def _levels(levels: list[int]) -> str:
    """1–512 (18), or the one level."""
    return f"{levels[0]}–{levels[-1]} ({len(levels)})" if len(levels) > 1 else str(levels[0])
