"""The standard tables, each one small pure function of the points frame."""

from __future__ import annotations

import itertools
from collections.abc import Sequence
from typing import Any, Literal, get_args

import polars as pl

from pipeline.errors import NotFound
from pipeline.schema import POINT_KEY

PROFILE = ["setup", "queue_depth", "access", "block_size", "read_pct"]
Kind = Literal["speed", "optimum", "maximum"]
KINDS: tuple[Kind, ...] = get_args(Kind)
# The order of a profile's points: its parallelism levels in order, at each level its
# target rates in order and the point held to no rate last (the most load there:
# vdbench's "iorate=max" run before its curve, fio's job without rate_iops).
CURVE = ("parallelism", "target_iops")


def on_curve(
    frame: pl.DataFrame, first: Sequence[str] = (), descending: Sequence[bool] = ()
) -> pl.DataFrame:
    """``frame`` sorted by the columns ``first`` (``descending`` as given for them), then
    along the curve (``CURVE``)."""
    return frame.sort(
        [*first, *CURVE],
        descending=[*(descending or [False] * len(first)), False, False],
        nulls_last=[False] * len(first) + [False, True],
    )


def last_of_level(by: Sequence[str]) -> pl.Expr:
    """Of a frame in ``CURVE`` order: whether a point is its level's (``by`` and its
    parallelism) point of most load: the one held to no rate, else the highest target."""
    level = [*by, "parallelism"]
    return pl.int_range(pl.len()).over(level) == pl.len().over(level) - 1


def most_load(frame: pl.DataFrame, also: Sequence[str] = ()) -> pl.DataFrame:
    """Each level's point of most load (``last_of_level``): what a chart against
    parallelism places, one point per level, where a level's rate sweep would stand in one
    vertical line (a frame without targets as it is). ``also``: columns that part points
    beside the point key (the report of a site's comparison)."""
    if "target_iops" not in frame.columns or frame["target_iops"].null_count() == frame.height:
        return frame
    by = [c for c in (*POINT_KEY, *also) if c not in CURVE and c in frame.columns]
    return on_curve(frame, by).filter(last_of_level(by))


def with_curve(frame: pl.DataFrame, by: Sequence[str] = ()) -> pl.DataFrame:
    """``frame`` in ``CURVE`` order within ``by`` (a profile's key), with ``on_curve``:
    whether a point is on its profile's load curve, which the optimum's steps, the rate at
    the latency limit and the latency at a rate follow. Of one parallelism level every
    point (its rate sweep is the curve); of several, each level's point of most load (a
    level's rate sweep stands beside the curve: from one level's uncapped point to the
    next level's lowest target the load falls, and the optimum could not leave level 1)."""
    one = pl.col("parallelism").n_unique()
    one = (one.over(by) if by else one) == 1
    return on_curve(frame, by).with_columns((one | last_of_level(by)).alias("on_curve"))


def curve(frame: pl.DataFrame, by: Sequence[str] = ()) -> pl.DataFrame:
    """The points on their profile's curve (``with_curve``), in its order."""
    return with_curve(frame, by).filter(pl.col("on_curve")).drop("on_curve")


SEED_ORDER = [False, False, False, False, True]  # ``PROFILE`` descending: 100 % read first


def in_seed_order(df: pl.DataFrame, extra: list[str] | None = None) -> pl.DataFrame:
    """Random before sequential, small blocks first, 100 % read first (the seeds' order)."""
    by = [*PROFILE, *(extra or [])]
    return df.sort(by, descending=SEED_ORDER + [False] * len(extra or []))


def _with_latency(points: pl.DataFrame) -> pl.DataFrame:
    """Points without a measured latency (fio bw/iops logs alone) cannot enter these tables."""
    return points.filter(pl.col("lat_mean_us").is_not_null())


def min_latency(points: pl.DataFrame) -> pl.DataFrame:
    """Per profile the lowest mean service time and the parallelism it was measured at."""
    points = _with_latency(points)
    best = (
        points.sort([*PROFILE, "lat_mean_us", "parallelism"])
        .group_by(PROFILE, maintain_order=True)
        .first()
    )
    return in_seed_order(best.select(*PROFILE, "lat_mean_us", "parallelism", "target_iops"))


def _levels(points: pl.DataFrame, margin_pct: float = 0.0) -> pl.DataFrame:
    """Each profile's levels in order, flagged whether the step up to them pays.

    A step pays while the relative IOPS gain is at least the relative latency gain
    (seed 004: "solange die Leistung stärker steigt als die Latenz"), less the report's
    noise margin in percentage points. ``shortfall_pp``: by how much a step misses the
    rule, beyond the margin (it pays at 0 or less; how sure an optimum is compares this
    with the noise, so a margin cannot make a miss inside the noise look clear);
    ``noise_pct``: the interval noise of its two points (the larger IOPS deviation; none
    where a point has one interval).
    """
    iops_gain = pl.col("iops") / pl.col("iops").shift(1) - 1
    lat_gain = pl.col("lat_mean_us") / pl.col("lat_mean_us").shift(1) - 1
    this = pl.when(pl.col("intervals") > 1).then(pl.col("iops_dev_pct"))
    before = this.shift(1)
    noise = pl.when(this.is_not_null() & before.is_not_null()).then(pl.max_horizontal(this, before))
    return (
        curve(points, PROFILE)
        .with_columns(
            ((lat_gain - iops_gain) * 100 - margin_pct).over(PROFILE).alias("shortfall_pp"),
            noise.over(PROFILE).alias("noise_pct"),
        )
        .with_columns((pl.col("shortfall_pp") <= 0).fill_null(True).alias("pays"))
        .with_columns(pl.col("pays").cast(pl.Int8).cum_min().over(PROFILE).alias("run"))
    )


def _optimum(levels: pl.DataFrame) -> pl.DataFrame:
    """The last level of the unbroken run of paying steps from the first level."""
    return levels.filter(pl.col("run") == 1).group_by(PROFILE, maintain_order=True).last()


def _next_step(levels: pl.DataFrame) -> pl.DataFrame:
    """The first step that does not pay (none: the optimum is the last level)."""
    failing = levels.filter(pl.col("run") == 0).group_by(PROFILE, maintain_order=True).first()
    return failing.select(
        *PROFILE, pl.col("parallelism").alias("next"), "shortfall_pp", "noise_pct"
    )


def optimum_steps(points: pl.DataFrame, margin_pct: float = 0.0) -> pl.DataFrame:
    """Per profile how sure the optimum is: the step after it, by how many percentage
    points it misses, and the interval noise of its two points."""
    levels = _levels(_with_latency(points), margin_pct)
    optimum = _optimum(levels).select(*PROFILE, pl.col("parallelism").alias("optimum"))
    joined = optimum.join(_next_step(levels), on=list(PROFILE), how="left", nulls_equal=True)
    return in_seed_order(joined)


def _pick(kind: Kind, chosen: pl.DataFrame) -> pl.DataFrame:
    return chosen.select(
        *PROFILE,
        pl.lit(kind).alias("kind"),
        "parallelism",
        "target_iops",  # a rate sweep's point: which target rate (else empty)
        "iops",
        "bytes_per_s",
        "lat_mean_us",
        # the load generators' CPU load, where the tool measured it
        pl.col("cpu_pct")
        if "cpu_pct" in chosen.columns
        else pl.lit(None, pl.Float64).alias("cpu_pct"),
    )


def performance(points: pl.DataFrame, margin_pct: float = 0.0) -> pl.DataFrame:
    """Per profile the speed (the first point of its curve: the lowest parallelism, of a
    rate sweep at one level the lowest target), optimum and maximum (highest IOPS) points.

    The optimum is the last level of the unbroken run of paying steps from the first level.
    """
    measured = _with_latency(points)
    levels = _levels(measured, margin_pct)
    speed = levels.group_by(PROFILE, maintain_order=True).first()
    optimum = _optimum(levels)
    # of every point: a level's rate sweep beside the curve may hold the highest IOPS
    maximum = (
        measured.sort([*PROFILE, "iops", "parallelism"], descending=[False] * 5 + [True, False])
        .group_by(PROFILE, maintain_order=True)
        .first()
    )
    parts = [_pick(k, df) for k, df in zip(KINDS, (speed, optimum, maximum), strict=True)]
    table = pl.concat(parts).with_columns(pl.col("kind").cast(pl.Enum(list(KINDS))).alias("_kind"))
    sure = _next_step(levels).select(
        *PROFILE, pl.lit("optimum").alias("kind"), "shortfall_pp", "noise_pct"
    )
    table = table.join(sure, on=[*PROFILE, "kind"], how="left", nulls_equal=True)
    table = pl.concat([table, _unmeasured(points, table)], how="diagonal_relaxed")
    return in_seed_order(table, ["_kind"]).drop("_kind")


def _unmeasured(points: pl.DataFrame, table: pl.DataFrame) -> pl.DataFrame:
    """The maximum of each profile whose tool printed no latency (CrystalDiskMark 3 to 6):
    its highest IOPS, without a latency, speed or optimum (the rule needs the latency)."""
    rest = points.join(table.select(PROFILE).unique(), on=PROFILE, how="anti", nulls_equal=True)
    best = (
        rest.sort([*PROFILE, "iops", "parallelism"], descending=[False] * 5 + [True, False])
        .group_by(PROFILE, maintain_order=True)
        .first()
    )
    kind = pl.lit("maximum").cast(pl.Enum(list(KINDS))).alias("_kind")
    return _pick("maximum", best).with_columns(kind)


def _narrow(
    table: pl.DataFrame,
    access: str,
    block_size: int,
    read_pct: float,
    setup: str | None = None,
    queue_depth: int | None = None,
) -> pl.DataFrame:
    """The rows of one profile, in the setup and queue depth named (an unknown one is
    ``NotFound``, naming those there are)."""
    cond = (
        (pl.col("access") == access)
        & (pl.col("block_size") == block_size)
        & (pl.col("read_pct") == read_pct)
    )
    for name, wanted in (("setup", setup), ("queue_depth", queue_depth)):
        if wanted is not None:
            known = table[name].unique().sort().to_list()
            if wanted not in known:
                raise NotFound(f"no {name} {wanted!r}: one of {known}")
            cond = cond & (pl.col(name) == wanted)
    return table.filter(cond)


def _one_profile(rows: pl.DataFrame, what: str) -> None:
    """``rows`` hold one profile of one setup and queue depth, else ``NotFound`` naming
    what tells them apart."""
    apart = [n for n in ("setup", "queue_depth") if rows[n].n_unique() > 1]
    if apart:
        choices = ", ".join(f"{n}=… (one of {sorted(set(rows[n].to_list()))})" for n in apart)
        raise NotFound(
            f"{rows.height} values for {what}: "
            f"name the {' and the '.join(n.replace('_', ' ') for n in apart)}: {choices}"
        )


def cell(
    table: pl.DataFrame,
    access: str,
    block_size: int,
    read_pct: float,
    kind: str | None = None,
    setup: str | None = None,
    queue_depth: int | None = None,
) -> dict[str, object]:
    """One row of a table as a dict; ``NotFound`` when the cell is absent or ambiguous
    (then naming what tells the rows apart: the setup, the queue depth)."""
    rows = _narrow(table, access, block_size, read_pct, setup, queue_depth)
    if kind is not None:
        rows = rows.filter(pl.col("kind") == kind)
    what = f"{access} {block_size} B {read_pct:g} % read"
    if rows.is_empty():
        raise NotFound(
            f"no {kind or 'value'} for {what}" + (f" in setup {setup!r}" if setup else "")
        )
    if rows.height > 1:
        _one_profile(rows, what)
    return rows.row(0, named=True)


def levels(
    points: pl.DataFrame,
    access: str,
    block_size: int,
    read_pct: float,
    setup: str | None = None,
    queue_depth: int | None = None,
) -> list[dict[str, Any]]:
    """The measured points of one profile in the order of its curve (``CURVE``), with a
    latency; ``NotFound`` as ``cell``."""
    rows = _narrow(_with_latency(points), access, block_size, read_pct, setup, queue_depth)
    what = f"{access} {block_size} B {read_pct:g} % read"
    if rows.is_empty():
        raise NotFound(f"no measured point for {what}" + (f" in setup {setup!r}" if setup else ""))
    _one_profile(rows, what)
    return list(with_curve(rows).iter_rows(named=True))


RATE = ("iops", "bytes_per_s")


def _on_curve(levels: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The rows on their profile's curve (``with_curve``'s flag; a row without it is)."""
    return [r for r in levels if r.get("on_curve", True)]


def _crossings(levels: list[dict[str, Any]], limit: float) -> list[dict[str, Any]]:
    """The rate where latency crosses ``limit`` upwards between two neighbouring points of
    the curve, linear between them, with the lower one's parallelism."""
    found = []
    for below, after in itertools.pairwise(_on_curve(levels)):
        if below["lat_mean_us"] <= limit < after["lat_mean_us"]:
            frac = (limit - below["lat_mean_us"]) / (after["lat_mean_us"] - below["lat_mean_us"])
            rate = {k: below[k] + frac * (after[k] - below[k]) for k in RATE}
            lower = {k: below.get(k) for k in ("parallelism", "target_iops")}
            found.append(rate | lower | {"measured": False})
    return found


def rate_at_limit(levels: list[dict[str, Any]], limit: float) -> dict[str, Any]:
    """The highest I/O rate reached with latency at most ``limit``: the best measured point
    under it, or where the curve crosses it (interpolated) if that is higher; never below
    a measured point under the limit. Empty if every point is above the limit."""
    under = [
        {k: r.get(k) for k in (*RATE, "parallelism", "target_iops")} | {"measured": True}
        for r in levels
        if r["lat_mean_us"] <= limit
    ]
    candidates = under + _crossings(levels, limit)
    if not candidates:
        return dict.fromkeys((*RATE, "parallelism", "target_iops", "measured"))
    return max(candidates, key=lambda c: (c["iops"], c["bytes_per_s"]))


def iops_at_latency(
    points: pl.DataFrame, limits: tuple[float, float], small_block: int
) -> pl.DataFrame:
    """Per profile the I/O rate at the latency limit: ``limits[0]`` for blocks up to
    ``small_block``, ``limits[1]`` above (the report's ``[latency_limits]``)."""
    rows = []
    ordered = with_curve(_with_latency(points), PROFILE)
    for key, group in ordered.group_by(PROFILE, maintain_order=True):
        profile = dict(zip(PROFILE, key, strict=True))
        limit = limits[0] if profile["block_size"] <= small_block else limits[1]
        levels = list(group.iter_rows(named=True))
        rows.append({**profile, "limit_us": limit, **rate_at_limit(levels, limit)})
    table = pl.DataFrame(
        rows,
        schema={
            **{c: points.schema[c] for c in PROFILE},
            "limit_us": pl.Float64,
            "iops": pl.Float64,
            "bytes_per_s": pl.Float64,
            "parallelism": pl.Int64,
            "target_iops": pl.Float64,  # a rate sweep's point (interpolated: the lower one's)
            "measured": pl.Boolean,  # False: interpolated between two measured points
        },
    )
    return in_seed_order(table)


def latency_at_rate(levels: list[dict[str, Any]], iops: float) -> tuple[float, bool] | None:
    """The mean latency at ``iops`` on a profile's measured curve, and whether it was
    measured there: where the curve, followed from its first level, first reaches the
    rate (a level measured at it, or linear in the rate between two neighbouring levels
    that enclose it); None outside the measured rates (never extrapolated)."""
    levels = _on_curve(levels)
    for before, level in zip([None, *levels], levels, strict=False):
        if level["iops"] == iops:
            return float(level["lat_mean_us"]), True
        if before is not None and min(before["iops"], level["iops"]) < iops < max(
            before["iops"], level["iops"]
        ):
            frac = (iops - before["iops"]) / (level["iops"] - before["iops"])
            lat = before["lat_mean_us"] + frac * (level["lat_mean_us"] - before["lat_mean_us"])
            return float(lat), False
    return None
