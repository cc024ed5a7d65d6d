"""Which charts a report shows: declared in report.toml ``[[charts]]``, or by default from
the data (the standard chart; with several setups also seed 004's dual-axis chart and
seed 003's setup comparison; latency percentiles where the tool reported them)."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import polars as pl

from pipeline.config import ChartKind, ChartSpec, Report
from pipeline.errors import InputError
from pipeline.language import Formatter
from pipeline.report.views import latency
from pipeline.units import block_stem, parse_block_size

COST_CHART = "cost"  # the stem of the cost chart (drawn from the cost table)
PTS_CHART = "pts"  # pts-1 …: the measurement window of points that are not steady
MAX_PTS_CHARTS = 4  # in the appendix; the table lists every such point

# kind -> the columns one chart of that kind is drawn for
GRAIN: dict[ChartKind, tuple[str, ...]] = {
    "standard": ("setup", "access", "block_size"),
    "dual_axis": ("access", "block_size", "read_pct"),
    "setups": ("access", "block_size"),
    "response": ("setup", "access", "block_size"),
    "stability": ("setup", "access", "block_size"),
    "percentiles": ("setup", "access", "block_size", "read_pct"),
}


@dataclass(frozen=True)
class ChartRef:
    """One chart of the report: its kind, the points it shows and its file stem."""

    kind: ChartKind
    stem: str
    access: str
    block_size: int
    setup: str | None = None
    read_pct: float | None = None
    source: str | None = None  # histogram: fio json+ file in the report folder
    job: int = 0
    limit_us: float | None = None  # response: the latency limit drawn
    queue_depth: int | None = None  # where the report's points have several


def _slug(text: str) -> str:
    return "".join(c if c.isalnum() else "-" for c in text.lower()).strip("-")


def default_specs(points: pl.DataFrame) -> list[ChartSpec]:
    # a rate sweep (several target rates at one parallelism) is read as latency over the
    # I/O rate reached; against parallelism its rates would stand in one vertical line
    level = ["setup", "queue_depth", "access", "block_size", "read_pct", "parallelism"]
    rates = points.group_by(level).agg(pl.col("target_iops").n_unique().alias("n"))
    swept = bool(rates.height) and int(rates["n"].max()) > 1  # type: ignore[arg-type]
    kinds = ["response" if swept else "standard"]
    if points["setup"].n_unique() > 1:
        kinds += ["dual_axis", "setups"]
    if points["lat_p99_us"].drop_nulls().len() > 0:
        kinds.append("percentiles")
    return [ChartSpec.model_validate({"kind": k}) for k in kinds]


def _matches(spec: ChartSpec, key: dict[str, Any]) -> bool:
    """``profiles`` entries read "8K random" or "8K random 100"; the read share counts
    only for kinds drawn per mix (a standard chart shows every mix of its block size)."""
    if not spec.profiles:
        return True
    for profile in spec.profiles:
        words = profile.split()
        wanted = {"block_size": parse_block_size(words[0]), "access": words[1]}
        if len(words) > 2 and "read_pct" in key:
            wanted["read_pct"] = float(words[2])
        if all(key.get(k) == v for k, v in wanted.items()):
            return True
    return False


def _keys(points: pl.DataFrame, kind: ChartKind, depths: bool) -> Iterator[dict[str, Any]]:
    """One key per chart of ``kind``; per queue depth too where ``depths`` (an iodepth
    sweep: its points would share the parallelism axis and be joined as one line)."""
    grain = [*GRAIN[kind], *(["queue_depth"] if depths else [])]
    data = points if kind != "percentiles" else points.filter(pl.col("lat_p99_us").is_not_null())
    order = [c for c in ("setup", "access", "block_size", "queue_depth") if c in grain]
    keys = (
        data.select(grain)
        .unique()
        .sort(
            order + (["read_pct"] if "read_pct" in grain else []),
            descending=[False] * len(order) + ([True] if "read_pct" in grain else []),
        )
    )
    yield from keys.iter_rows(named=True)


def _ref(kind: ChartKind, key: dict[str, Any], several_setups: bool, report: Report) -> ChartRef:
    setup = key.get("setup")
    parts = [
        kind,
        _slug(str(setup)) if setup is not None and several_setups else "",
        str(key["access"]),
        block_stem(int(key["block_size"])),
        f"r{float(key['read_pct']):g}" if "read_pct" in key else "",
        f"qd{int(key['queue_depth'])}" if "queue_depth" in key else "",
    ]
    limits = report.latency_limits
    small = int(key["block_size"]) <= limits.small_block
    limit = (limits.small_us if small else limits.large_us) if kind == "response" else None
    return ChartRef(
        kind,
        "_".join(p for p in parts if p),
        str(key["access"]),
        int(key["block_size"]),
        str(setup) if setup is not None else None,
        float(key["read_pct"]) if "read_pct" in key else None,
        limit_us=limit,
        queue_depth=int(key["queue_depth"]) if "queue_depth" in key else None,
    )


def chart_plan(report: Report, points: pl.DataFrame, where: Path) -> list[ChartRef]:
    """Every chart of the report in order: grouped by access and block size as the seeds do.
    A declared profile that matches no measured point is an error naming it in ``where``."""
    several = points["setup"].n_unique() > 1
    # per queue depth where a setup was measured at several (an iodepth sweep); setups at
    # one queue depth each are compared on one chart as before
    per_setup = points.group_by("setup").agg(pl.col("queue_depth").n_unique().alias("n"))
    depths = bool(per_setup.height) and int(per_setup["n"].max()) > 1  # type: ignore[arg-type]
    specs = report.charts if report.charts is not None else default_specs(points)
    refs = []
    for index, spec in enumerate(specs):
        if spec.kind == "histogram":
            refs.append(_histogram(spec))
            continue
        keys = list(_keys(points, spec.kind, depths))
        refs += [_ref(spec.kind, key, several, report) for key in keys if _matches(spec, key)]
        _all_match(spec, keys, where, f"charts[{index}]")
    _distinct_stems(refs, where)
    order = {(r.access, r.block_size): i for i, r in reversed(list(enumerate(refs)))}
    return sorted(refs, key=lambda r: (r.kind == "histogram", order[(r.access, r.block_size)]))


def _distinct_stems(refs: list[ChartRef], where: Path) -> None:
    """Each chart its own file: two with one stem would leave one drawing for both."""
    seen: dict[str, ChartRef] = {}
    for ref in refs:
        other = seen.setdefault(ref.stem, ref)
        if other != ref:
            raise InputError(
                where,
                "charts",
                f"two charts would be written as {ref.stem!r} "
                f"(setups {other.setup!r} and {ref.setup!r}, sources {other.source!r} and "
                f"{ref.source!r})",
                "name the setups (or the histograms' files) apart by more than case and "
                "punctuation",
            )


def _histogram(spec: ChartSpec) -> ChartRef:
    stem = f"histogram_{_slug(spec.source or '')}_{spec.job}"
    return ChartRef("histogram", stem, "", 0, source=spec.source, job=spec.job)


def _all_match(spec: ChartSpec, keys: list[dict[str, Any]], where: Path, place: str) -> None:
    for index, profile in enumerate(spec.profiles):
        one = spec.model_copy(update={"profiles": [profile]})
        if not any(_matches(one, key) for key in keys):
            raise InputError(
                where,
                f"{place}.profiles[{index}]",
                f"profile {profile!r} matches no measured point of a {spec.kind!r} chart",
                "name a block size, access and read % the raw data holds (e.g. '8K random 100')",
            )


# The unit of each chart's latency axis, declared once (its title, caption, alt text and
# the method's sentence name it); a ms axis is drawn in µs where the document's fastest
# latency is below 100 µs, as the tables' ms columns. Seed 000's standard chart: "Service-
# zeit in ms"; seed 004's dual-axis chart: "in Microsekunden µs"; fio's percentiles and
# histogram bins in µs; the comparison charts as the standard chart.
LATENCY_AXES: dict[str, str] = {
    "standard": "ms",
    "setups": "ms",
    "response": "ms",
    "compare": "ms",
    "dual_axis": "µs",
    "percentiles": "µs",
    "histogram": "µs",
}


def axis_unit(kind: str, fmt: Formatter) -> str:
    """The unit chart ``kind`` draws its latencies in, in this document."""
    return fmt.unit(LATENCY_AXES[kind])


def axis_symbol(kind: str, fmt: Formatter) -> str:
    """The symbol of that unit; empty for a chart without latencies (stability)."""
    return fmt.symbol(axis_unit(kind, fmt)) if kind in LATENCY_AXES else ""


TITLE_KEYS: dict[ChartKind, str] = {
    "dual_axis": "dual",
    "setups": "setups",
    "response": "response",
    "stability": "stability",
    "percentiles": "percentiles",
    "histogram": "histogram",
}


def chart_caption(ref: ChartRef, fmt: Formatter) -> str:
    """The caption of a chart: the same words as its title, plus the setup where several."""
    if ref.kind == "histogram":
        return fmt.t("chart.histogram_title")
    words = {
        "block": fmt.block(ref.block_size),
        "access": fmt.t.access(ref.access, True),
        "metric": fmt.t("chart.mb_s" if ref.access == "sequential" else "chart.iops"),
    }
    if ref.read_pct is not None:
        words["mix"] = fmt.t.mix(ref.read_pct, short=True)
    if ref.limit_us is not None:
        words["limit"] = latency(fmt, "iops_at_latency", ref.limit_us, "limit_us")
    key = "chart.caption" if ref.kind == "standard" else f"chart.{TITLE_KEYS[ref.kind]}_title"
    caption = fmt.t(key, **words)
    if ref.queue_depth is not None:
        caption = fmt.t("chart.at_depth", caption=caption, qd=fmt.integer(ref.queue_depth))
    several = len(fmt.setups) > 1
    return f"{caption} – {fmt.setup(ref.setup)}" if ref.setup and several else caption


def chart_alt(ref: ChartRef, fmt: Formatter) -> str:
    if ref.kind != "standard":
        alt = fmt.t(f"chart.alt_{TITLE_KEYS[ref.kind]}", unit=axis_symbol(ref.kind, fmt))
        return f"{chart_caption(ref, fmt)}. {alt}"
    metric = fmt.t("chart.mb_s" if ref.access == "sequential" else "chart.iops")
    alt = fmt.t(
        "chart.alt",
        block=fmt.block(ref.block_size),
        access=fmt.t.access(ref.access, True),
        metric=metric,
        unit=axis_symbol(ref.kind, fmt),
    )
    if ref.queue_depth is None:
        return alt
    return fmt.t("chart.at_depth", caption=alt.rstrip("."), qd=fmt.integer(ref.queue_depth))


def figures(charts: list[ChartRef], with_cost: bool, fmt: Formatter) -> dict[str, tuple[str, str]]:
    """Chart stem -> (caption, alt text) of every chart of the report, in its order."""
    found = {ref.stem: (chart_caption(ref, fmt), chart_alt(ref, fmt)) for ref in charts}
    if with_cost:
        found[COST_CHART] = (
            fmt.t("chart.cost_title"),
            fmt.t("chart.cost_alt", n=fmt.integer(1000)),
        )
    return found
