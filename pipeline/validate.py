"""Validation rules: one small function per rule, every problem collected, none fatal by
itself (``--strict`` makes warnings fail). The problems appear in the report's appendix
and in ``OUT/validation.csv``."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Any, Literal

import polars as pl

from pipeline.config import REPORT_FILE, NamedProfile, Report
from pipeline.dataset import Dataset
from pipeline.ingest import get_format
from pipeline.ingest.base import UnitOptions
from pipeline.language.fmt import Formatter, significant_places
from pipeline.normalise import full_round, to_points
from pipeline.schema import POINT_KEY
from pipeline.units import TIME_UNITS_US, block_label

DEVIATION_LIMIT_PCT = 10.0
BANDWIDTH_TOLERANCE = 0.02
LITTLE_TOLERANCE = 0.25
STEADY_WINDOW = 5
STEADY_DATA_EXCURSION = 0.20
STEADY_SLOPE_EXCURSION = 0.10
AGREEMENT_PCT = 2.0  # one run read from two sources (fio's JSON and its logs)


Severity = Literal["error", "warning"]
# a measured point within a report: a rate sweep (vdbench iorate, fio rate_iops) measures
# one profile at one parallelism several times, once per target rate
POINT = ("setup", "access", "block_size", "read_pct", "parallelism", "queue_depth", "target_iops")


@dataclass(frozen=True)
class Problem:
    """One finding: the rule, how serious, where (a point or a source) and the numbers its
    message (``validation.<message>`` in the locales) is made of."""

    rule: str
    severity: Severity
    point: dict[str, Any] | None
    source: str | None
    message: str
    values: dict[str, Any]


def _problem(
    rule: str, severity: Severity, row: dict[str, Any], message: str, **values: Any
) -> Problem:
    # a point not measured (completeness) has no target rate
    return Problem(rule, severity, {k: row.get(k) for k in POINT}, None, message, values)


def _each(points: pl.DataFrame, bad: pl.Expr) -> Iterable[dict[str, Any]]:
    yield from points.filter(bad).iter_rows(named=True)


def bandwidth(data: Dataset, report: Report) -> list[Problem]:
    """bytes/s = IOPS × block size within 2 %."""
    expected = pl.col("iops") * pl.col("block_size")
    off = (pl.col("bytes_per_s") - expected).abs() > BANDWIDTH_TOLERANCE * expected
    return [
        _problem(
            "bandwidth",
            "warning",
            row,
            "bandwidth",
            measured=row["bytes_per_s"],
            expected=float(row["iops"] * row["block_size"]),
        )
        for row in _each(data.points, off & (pl.col("iops") > 0))
    ]


def littles_law(data: Dataset, report: Report) -> list[Problem]:
    """Closed loop: outstanding I/Os = hosts × parallelism × queue depth ≈ IOPS × latency.
    Not for rate-limited runs (a requested rate opens the loop)."""
    outstanding = pl.col("hosts") * pl.col("parallelism") * pl.col("queue_depth")
    measured = pl.col("iops") * pl.col("lat_mean_us") / TIME_UNITS_US["s"]
    off = (measured - outstanding).abs() > LITTLE_TOLERANCE * outstanding
    rows = _each(data.points, off & pl.col("target_iops").is_null() & (pl.col("iops") > 0))
    return [
        _problem(
            "littles-law",
            "warning",
            row,
            "littles_law",
            measured=row["iops"] * row["lat_mean_us"] / TIME_UNITS_US["s"],
            expected=row["hosts"] * row["parallelism"] * row["queue_depth"],
        )
        for row in rows
    ]


def stability(data: Dataset, report: Report) -> list[Problem]:
    """Relative deviation across intervals above 10 %."""
    return [
        _problem("stability", "warning", row, "stability", deviation=row["iops_dev_pct"])
        for row in _each(data.points, pl.col("iops_dev_pct") > DEVIATION_LIMIT_PCT)
    ]


Verdict = Literal["steady", "not steady", "not measurable"]


def rounds(intervals: pl.DataFrame) -> pl.DataFrame:
    """Per point and interval the I/O rate of all hosts and their latency weighted by I/Os
    (a PTS round), in order; fio's short last status-interval remainder is left out."""
    weighted = (pl.col("lat_mean_us") * pl.col("iops")).sum() / pl.col("iops").sum()
    if "target_iops" not in intervals.columns:  # a dataset stored before rates were kept
        intervals = intervals.with_columns(pl.lit(None, pl.Float64).alias("target_iops"))
    per_interval = (
        intervals.group_by([*POINT, "interval"])
        .agg(
            pl.col("iops").sum(),
            pl.col("bytes_per_s").sum(),
            weighted.alias("lat_mean_us"),
            pl.col("interval_s").max(),
        )
        .sort([*POINT, "interval"])
    )
    return per_interval.filter(full_round(list(POINT)))


def steady_table(intervals: pl.DataFrame) -> pl.DataFrame:
    """Every point's SNIA PTS verdict: steady, not steady, or not measurable (fewer than
    five rounds), with the window's mean and both excursions in % (as :func:`_steady`,
    for all points at once)."""
    found = rounds(intervals).with_columns(
        pl.len().over(POINT).cast(pl.Int64).alias("rounds"),  # unsigned: rounds − 5 < 0
        pl.int_range(pl.len()).over(POINT).alias("x"),
    )
    window = found.filter(pl.col("x") >= pl.col("rounds") - STEADY_WINDOW)
    dx, dy = pl.col("x") - pl.col("x").mean(), pl.col("iops") - pl.col("iops").mean()
    table = window.group_by(POINT, maintain_order=True).agg(
        pl.col("rounds").first(),
        pl.col("iops").mean().alias("window_mean"),
        ((pl.col("iops").max() - pl.col("iops").min()) / pl.col("iops").mean() * 100)
        .fill_nan(0.0)
        .alias("data_pct"),
        ((dx * dy).sum() / (dx * dx).sum()).alias("slope"),
    )
    measured = pl.col("rounds") >= STEADY_WINDOW
    slope_pct = pl.col("slope").abs() * (STEADY_WINDOW - 1) / pl.col("window_mean") * 100
    steady = (pl.col("data_pct") <= STEADY_DATA_EXCURSION * 100) & (
        pl.col("slope_pct") <= STEADY_SLOPE_EXCURSION * 100
    )
    stats = ("window_mean", "data_pct", "slope", "slope_pct")
    table = table.with_columns(slope_pct.fill_nan(0.0).alias("slope_pct"))
    table = table.with_columns(pl.when(measured).then(pl.col(c)).alias(c) for c in stats)
    verdict = (
        pl.when(~measured)
        .then(pl.lit("not measurable"))
        .when(steady)
        .then(pl.lit("steady"))
        .otherwise(pl.lit("not steady"))
    )
    columns = [*POINT, "rounds", "verdict", "window_mean", "data_pct", "slope_pct", "slope"]
    return table.with_columns(verdict.alias("verdict")).select(columns)


def window_lines(rounds_of_point: pl.DataFrame, verdict: dict[str, Any]) -> pl.DataFrame:
    """The PTS measurement-window chart's data for one judged point (its row of
    :func:`steady_table`): every round's IOPS, and over the window the mean, mean ± 10 %
    and ± 20 % and the least-squares line (long format: round, value, line)."""
    iops = rounds_of_point["iops"].to_list()
    mean, slope = verdict["window_mean"], verdict["slope"]
    first = len(iops) - STEADY_WINDOW
    window = range(first + 1, len(iops) + 1)  # rounds count from 1
    middle = first + 1 + (STEADY_WINDOW - 1) / 2
    lines: dict[str, list[tuple[float, float]]] = {
        "iops": [(i + 1, v) for i, v in enumerate(iops)],
        "mean": [(r, mean) for r in window],
        "slope": [(r, mean + slope * (r - middle)) for r in window],
    }
    for pct in (10, 20):
        lines[f"plus{pct}"] = [(r, mean * (1 + pct / 100)) for r in window]
        lines[f"minus{pct}"] = [(r, mean * (1 - pct / 100)) for r in window]
    rows = [(r, v, name) for name, values in lines.items() for r, v in values]
    return pl.DataFrame(rows, schema=["round", "value", "line"], orient="row")


def point_rounds(found: pl.DataFrame, point: dict[str, Any]) -> pl.DataFrame:
    """The rounds of one point, out of every point's (:func:`rounds`)."""
    for key in POINT:
        found = found.filter(pl.col(key).eq_missing(point[key]))  # no target rate: null
    return found


def steady_state(data: Dataset, report: Report) -> list[Problem]:
    """SNIA PTS steady state over the last five rounds: a warning per point that is not
    steady (points with fewer rounds are not measurable, see :func:`steady_table`)."""
    table = steady_table(data.intervals).filter(pl.col("verdict") == "not steady")
    return [
        _problem(
            "steady-state",
            "warning",
            row,
            "steady_state",
            data=row["data_pct"],
            slope=row["slope_pct"],
        )
        for row in table.iter_rows(named=True)
    ]


def completeness(data: Dataset, report: Report) -> list[Problem]:
    """Cells of the test matrix (profile × parallelism level) that were not measured."""
    key = ["setup", "access", "block_size", "queue_depth"]
    problems = []
    for values, group in data.points.group_by(key, maintain_order=True):
        levels = set(group["parallelism"])
        for mix, per_mix in group.group_by("read_pct", maintain_order=True):
            for level in sorted(levels - set(per_mix["parallelism"])):
                row = {
                    **dict(zip(key, values, strict=True)),
                    "read_pct": mix[0],
                    "parallelism": level,
                }
                problems.append(_problem("completeness", "warning", row, "completeness"))
    return problems


def units(data: Dataset, report: Report) -> list[Problem]:
    """A bandwidth unit left to the default where the file's own column says KB or MB:
    asked of every source option that knows its units (``ingest.base.UnitOptions``)."""
    problems = []
    for i, src in enumerate(report.sources):
        for key, value in src.options().items():
            read = src.format is None or key in get_format(src.format).OPTIONS
            column = value.undeclared_unit() if isinstance(value, UnitOptions) else None
            if read and column is not None:
                where = f"sources[{i}] {src.path}"
                problems.append(
                    Problem("units", "warning", None, where, "units", {"column": column})
                )
    return problems


def _apart(ours: float | None, theirs: float | None) -> float:
    """How far apart two figures are, in % of the larger; 0 where one is unknown."""
    if ours is None or theirs is None or max(ours, theirs) <= 0:
        return 0.0
    return abs(ours - theirs) / max(ours, theirs) * 100


def agreement(data: Dataset, report: Report) -> list[Problem]:
    """A run read from two sources (fio's JSON and its interval logs; fio's final record
    and its status snapshots) gives the same IOPS and mean latency within 2 %."""
    refs, problems = data.references, list[Problem]()
    if refs is None or refs.is_empty():
        return problems
    key = [*POINT_KEY, "host"]
    for (source,), theirs in refs.group_by("source", maintain_order=True):
        same = theirs.select(key).unique()
        ours = data.intervals.join(same, on=key, how="semi", nulls_equal=True)
        pairs = to_points(theirs).join(
            to_points(ours), on=POINT_KEY, suffix="_ours", nulls_equal=True
        )
        lines = theirs.group_by(POINT_KEY).agg(pl.col("line").cast(pl.Int64).min().alias("at"))
        pairs = pairs.join(lines, on=POINT_KEY, how="left", nulls_equal=True)
        for row in pairs.iter_rows(named=True):  # each point at its own record's line
            iops = _apart(row["iops_ours"], row["iops"])
            lat = _apart(row["lat_mean_us_ours"], row["lat_mean_us"])
            if max(iops, lat) > AGREEMENT_PCT:
                problems.append(_agreement(row, str(source), int(row["at"] or 0), iops, lat))
    return problems


def _agreement(row: dict[str, Any], source: str, line: int, iops: float, lat: float) -> Problem:
    return _problem(
        "agreement",
        "warning",
        row,
        "agreement",
        ours=row["source_ours"],
        theirs=source,
        line=line,
        iops=float(row["iops_ours"]),
        iops_other=float(row["iops"]),
        lat=row["lat_mean_us_ours"] or "–",
        lat_other=row["lat_mean_us"] or "–",
        apart=max(iops, lat),
    )


LOG_WINDOW_REJECTS = ("log.no_count", "log.clones")


def log_window(data: Dataset, report: Report) -> list[Problem]:
    """fio's iops and bw logs without a window its latency log has (the last, partial one
    of a job): the logs' figures are those of the windows logged, not the whole run.
    Logs whose run was taken from its JSON (read twice) gave no figure: no warning."""
    found: dict[str, list[str]] = {}
    used = set(data.intervals["source"].unique().to_list())  # a log read twice is not used
    for reject in data.rejects:
        if reject.reason.key in LOG_WINDOW_REJECTS and reject.source in used:
            found.setdefault(reject.source, []).append(dict(reject.where.values)["window"])
    return [
        Problem("log-window", "warning", None, source, "log_window", {"windows": ", ".join(w)})
        for source, w in found.items()
    ]


def profiles(data: Dataset, report: Report) -> list[Problem]:
    """A report.toml ``[[profiles]]`` entry that names no measured point (of one block
    size): a typo in its figures would otherwise go unseen."""
    points = data.points
    fixed = (
        points.filter(pl.col("block_split").is_null())
        if "block_split" in points.columns
        else points
    )
    found = set(fixed.select("access", "block_size", "read_pct").unique().iter_rows())
    return [
        Problem("profiles", "warning", None, f"{REPORT_FILE} profiles[{i}]", "profiles", _named(p))
        for i, p in enumerate(report.profiles)
        if (p.access, p.block_size, p.read_pct) not in found
    ]


def _named(p: NamedProfile) -> dict[str, Any]:
    mix = f"{p.read_pct:g}"
    names = {f"name_{lang}": text for lang, text in p.name.items()}  # each document's own
    return names | {"access": p.access, "block": block_label(p.block_size), "read": mix}


RULES: tuple[Callable[[Dataset, Report], list[Problem]], ...] = (
    bandwidth,
    littles_law,
    stability,
    steady_state,
    completeness,
    units,
    agreement,
    log_window,
    profiles,
)


def validate(data: Dataset, report: Report) -> list[Problem]:
    """Every rule over the dataset; the problems of all of them."""
    return [problem for rule in RULES for problem in rule(data, report)]


def where(problem: Problem, fmt: Formatter) -> str:
    if problem.point is None:
        return problem.source or ""
    return point_name(problem.point, fmt)


def point_name(p: dict[str, Any], fmt: Formatter) -> str:
    """A measured point as the reader names it: setup, profile, parallelism, queue depth
    and its target rate, if it has one."""
    name = fmt.t(
        "validation.point",
        setup=fmt.setup(str(p["setup"])),
        block=fmt.block(int(p["block_size"])),
        access=fmt.t.access(str(p["access"])),
        mix=fmt.t.mix(float(p["read_pct"]), True),
        parallelism=fmt.integer(p["parallelism"]),
        qd=fmt.integer(p["queue_depth"]),
    )
    rate = p.get("target_iops")
    return (
        name if rate is None else fmt.t("validation.point_rate", point=name, rate=fmt.integer(rate))
    )


def message(problem: Problem, fmt: Formatter) -> str:
    values = {
        k: (_figure(v, fmt) if isinstance(v, float) else v) for k, v in problem.values.items()
    }
    return fmt.t(f"validation.{problem.message}", **values)


def _figure(value: float, fmt: Formatter) -> str:
    """A finding's figure: one decimal, two significant digits below 1 (fio's null
    engine: 0.028 µs beside 0.031 µs, never 0.0 beside 0.0)."""
    small = 0 < abs(value) < 1
    return fmt.number(value, max(1, significant_places(abs(value))) if small else 1)


def as_frame(problems: list[Problem], fmt: Formatter) -> pl.DataFrame:
    """For auditors: one row per problem, in the formatter's language."""
    return pl.DataFrame(
        {
            "rule": [p.rule for p in problems],
            "severity": [p.severity for p in problems],
            "where": [where(p, fmt) for p in problems],
            "message": [message(p, fmt) for p in problems],
        },
        schema={"rule": pl.String, "severity": pl.String, "where": pl.String, "message": pl.String},
    )
