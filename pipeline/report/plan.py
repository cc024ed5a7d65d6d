"""Which charts a report shows: declared in report.toml ``[[charts]]``, or by default from
the data (each kind of ``report/chart_registry`` whose ``default`` rule holds). A chart
whose x axis would hold one value is never drawn: the kind whose axis varies stands in
its place, or the documents say it was left out (``left_out``)."""

from __future__ import annotations

import difflib
from collections.abc import Iterator
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

import polars as pl

from pipeline.config import ChartSpec, Report
from pipeline.dataset import tool_sums_hosts
from pipeline.errors import InputError
from pipeline.language import Formatter
from pipeline.report import chart_registry as kinds
from pipeline.report.palette import HOUSE, Palette, palette
from pipeline.report.views import latency
from pipeline.units import block_label, block_stem, parse_block_size

COST_CHART = "cost"  # the stem of the cost chart (drawn from the cost table)
PTS_CHART = "pts"  # pts-1 …: the measurement window of points that are not steady
MAX_PTS_CHARTS = 4  # in the appendix; the table lists every such point


@dataclass(frozen=True)
class Pair:
    """A frontend/backend pair of setups and its legend label by language."""

    frontend: str
    backend: str
    label: tuple[tuple[str, str], ...] = ()


@dataclass(frozen=True)
class ChartRef:
    """One chart of the report: its kind, the points it shows and its file stem."""

    kind: str
    stem: str
    access: str
    block_size: int | None
    setup: str | None = None
    read_pct: float | None = None
    source: str | None = None  # histogram: fio json+ file in the report folder
    job: int = 0
    limit_us: float | None = None  # response: the latency limit drawn
    queue_depth: int | None = None  # where the report's points have several
    parallelism: int | None = None  # where a chart is drawn per parallelism level
    palette: Palette = HOUSE  # the document's colours
    pairs: tuple[Pair, ...] = ()  # frontend_backend: the declared pairs
    timed: bool = True  # some point of it has a latency (CrystalDiskMark 3 to 6: none)
    clat: bool = False  # percentiles: some of fio's completion latency (``schema``)
    alone: bool = False  # left out: it compares setups, and one setup measured its profile

    @property
    def chart(self) -> kinds.Chart:
        return kinds.BY_NAME[self.kind]

    def key(self) -> dict[str, Any]:
        """The columns that select this chart's points, and their values."""
        found: dict[str, Any] = {"access": self.access, "block_size": self.block_size}
        found |= {"setup": self.setup, "read_pct": self.read_pct}
        found |= {"queue_depth": self.queue_depth, "parallelism": self.parallelism}
        return {k: v for k, v in found.items() if v is not None}


def _slug(text: str) -> str:
    return "".join(c if c.isalnum() else "-" for c in text.lower()).strip("-")


def default_specs(points: pl.DataFrame, report: Report | None = None) -> list[ChartSpec]:
    """Every kind whose default rule holds for the points of one of its charts, in the
    registry's order; the frontend/backend comparison where report.toml declares pairs."""
    return _default_specs(_Planning(points), report)


def _default_specs(planning: _Planning, report: Report | None) -> list[ChartSpec]:
    chosen = [c.name for c in kinds.CHARTS if planning.held(c)]
    if not any(kinds.BY_NAME[c].colours == "mix" for c in chosen):
        chosen.insert(0, "standard")  # nothing swept: asked for, left out with a note
    if report is not None and report.frontend_backend:
        chosen.append("frontend_backend")
    return [ChartSpec.model_validate({"kind": k}) for k in chosen]


class _Planning:
    """The questions a plan asks of one report's points, each answered once: the plan,
    its stand-ins and the charts left out ask them again and again (a polars query each,
    ≈ 0.3 ms however few the points)."""

    def __init__(self, points: pl.DataFrame) -> None:
        self.points = points
        self._grain: dict[str, list[str]] = {}
        self._keys: dict[str, list[dict[str, Any]]] = {}
        self._held: dict[str, list[dict[str, Any]]] = {}
        self._flat: dict[ChartRef, bool] = {}
        self._alone: dict[ChartRef, bool] = {}

    def grain(self, chart: kinds.Chart) -> list[str]:
        if chart.name not in self._grain:
            self._grain[chart.name] = grain(chart, self.points)
        return self._grain[chart.name]

    def keys(self, chart: kinds.Chart) -> list[dict[str, Any]]:
        """One key per chart of ``chart``."""
        if chart.name not in self._keys:
            self._keys[chart.name] = _keys(self.points, chart, self.grain(chart))
        return self._keys[chart.name]

    def held(self, chart: kinds.Chart) -> list[dict[str, Any]]:
        """The keys of the charts of ``chart`` whose default rule holds for their own points
        (a block-size chart where its access and level hold a block-size series, not
        wherever the report's other points lie); none where it has no rule."""
        if chart.name not in self._held:
            self._held[chart.name] = list(self._default_keys(chart))
        return self._held[chart.name]

    def _default_keys(self, chart: kinds.Chart) -> Iterator[dict[str, Any]]:
        rule = chart.default
        if rule is None:
            return
        columns = self.grain(chart)
        data = _data(chart, self.points)
        groups = data.partition_by(columns, as_dict=True, maintain_order=False)
        for key in self.keys(chart):
            if rule(groups[tuple(key[c] for c in columns)]):
                yield key

    def flat(self, ref: ChartRef) -> bool:
        if ref not in self._flat:
            self._flat[ref] = flat(ref, self.points)
        return self._flat[ref]

    def alone(self, ref: ChartRef) -> bool:
        """A chart comparing setups whose points one setup measured."""
        if not ref.chart.compares:
            return False
        if ref not in self._alone:
            self._alone[ref] = points_for(self.points, ref)["setup"].n_unique() < 2
        return self._alone[ref]


def _matches(spec: ChartSpec, key: dict[str, Any]) -> bool:
    """``profiles`` entries read "8K random" or "8K random 100"; the read share counts
    only for kinds drawn per mix (a standard chart shows every mix of its block size), the
    block size only for kinds drawn per block size."""
    if not spec.profiles:
        return True
    for profile in spec.profiles:
        words = profile.split()
        wanted: dict[str, Any] = {"block_size": parse_block_size(words[0]), "access": words[1]}
        if len(words) > 2:
            wanted["read_pct"] = float(words[2])
        if all(key.get(k) == v for k, v in wanted.items() if k in key):
            return True
    return False


def grain(chart: kinds.Chart, points: pl.DataFrame) -> list[str]:
    """What one chart of ``chart`` is drawn per: its columns, and its levels where a setup
    was measured at several (an iodepth sweep: per queue depth)."""
    extra = [c for c in chart.levels if kinds.varies(points, c, ("setup",))]
    return [*chart.per, *extra]


def _data(chart: kinds.Chart, points: pl.DataFrame) -> pl.DataFrame:
    """The points charts of ``chart`` are drawn from (with the column it needs)."""
    data = points.filter(pl.col(chart.needs).is_not_null()) if chart.needs else points
    return chart.points(data)


def _keys(points: pl.DataFrame, chart: kinds.Chart, columns: list[str]) -> list[dict[str, Any]]:
    """One key per chart of ``chart`` drawn per ``columns`` (its ``grain``)."""
    order = [c for c in (*kinds.PROFILE, *kinds.LEVELS) if c in columns]
    keys = _data(chart, points).select(columns).unique()
    keys = keys.sort(order, descending=[c == "read_pct" for c in order])
    return list(keys.iter_rows(named=True))


def _stem(chart: kinds.Chart, key: dict[str, Any], several_setups: bool) -> str:
    setup = key.get("setup")
    parts = [
        chart.name,
        _slug(str(setup)) if setup is not None and several_setups else "",
        str(key["access"]),
        block_stem(int(key["block_size"])) if "block_size" in key else "",
        f"r{float(key['read_pct']):g}" if "read_pct" in key else "",
        f"qd{int(key['queue_depth'])}" if "queue_depth" in key else "",
        f"p{int(key['parallelism'])}" if "parallelism" in key else "",
    ]
    return "_".join(p for p in parts if p)


def _ref(chart: kinds.Chart, key: dict[str, Any], report: Report, look: Palette) -> ChartRef:
    several = len({s.name for s in report.setups}) > 1
    limit = None
    if chart.name == "response":
        limits = report.latency_limits
        small = int(key["block_size"]) <= limits.small_block
        limit = limits.small_us if small else limits.large_us
    setup = key.get("setup")
    return ChartRef(
        chart.name,
        _stem(chart, key, several),
        str(key["access"]),
        int(key["block_size"]) if "block_size" in key else None,
        str(setup) if setup is not None else None,
        float(key["read_pct"]) if "read_pct" in key else None,
        limit_us=limit,
        queue_depth=int(key["queue_depth"]) if "queue_depth" in key else None,
        parallelism=int(key["parallelism"]) if "parallelism" in key else None,
        palette=look,
        pairs=_pairs(report) if chart.name == "frontend_backend" else (),
    )


def _pairs(report: Report) -> tuple[Pair, ...]:
    return tuple(
        Pair(p.frontend, p.backend, tuple(sorted((p.label or {}).items())))
        for p in report.frontend_backend
    )


def points_for(points: pl.DataFrame, ref: ChartRef) -> pl.DataFrame:
    """The points chart ``ref`` shows (a frontend/backend chart: its pairs' setups; a
    block-size chart: its block-size series)."""
    found = ref.chart.points(points)
    wanted = [pl.col(column) == value for column, value in ref.key().items()]
    if ref.pairs:
        names = [n for p in ref.pairs for n in (p.frontend, p.backend)]
        wanted.append(pl.col("setup").is_in(names))
    return found.filter(*wanted) if wanted else found  # one query, not one per column


LINES = ("setup", "read_pct", *kinds.LEVELS)  # beside its x, what parts a chart's lines


def flat(ref: ChartRef, points: pl.DataFrame) -> bool:
    """The chart would be dots, not a chart: its x axis would hold a single value, or
    every line of it one point (CrystalDiskMark's drives each at its own parallelism; a
    queue-depth grid whose every column holds one depth). Bars (``x`` a mix's name) need
    two on their axis."""
    x = ref.chart.x
    if x is None:
        return False
    shown = points_for(points, ref)
    if x not in (*LINES, "block_size"):
        return shown[x].n_unique() < 2
    return not kinds.varies(shown, x, tuple(c for c in LINES if c != x))


def _planned(planning: _Planning, report: Report, where: Path) -> list[ChartRef]:
    """Every chart the report asks for (declared or by default), flat ones included."""
    points = planning.points
    look = palette(report, points, where)
    _check_pairs(report, points, where)
    if report.charts is None:
        return _defaults(planning, report, look)
    refs = []
    for index, spec in enumerate(report.charts):
        chart = _kind(spec, where, f"charts[{index}]")
        if chart.takes == "bins":
            refs.append(_histogram(spec, look))
            continue
        keys = planning.keys(chart)
        refs += [_ref(chart, key, report, look) for key in keys if _matches(spec, key)]
        _all_match(spec, keys, where, f"charts[{index}]")
    return list(dict.fromkeys(refs))


def _defaults(planning: _Planning, report: Report, look: Palette) -> list[ChartRef]:
    """The charts of ``default_specs``: of a kind chosen by its rule those whose points
    hold the rule, and those whose axis would hold one value where another kind stands in
    (drawn as that kind, or named as left out); of the others (standard where nothing is
    swept, frontend/backend) all. A comparison of setups is not planned where one setup
    measured the profile."""
    refs = []
    for spec in _default_specs(planning, report):
        chart = kinds.BY_NAME[spec.kind]
        held = {tuple(k.values()) for k in planning.held(chart)}
        for key in planning.keys(chart):
            ref = _ref(chart, key, report, look)
            if planning.alone(ref):
                continue
            if not held or tuple(key.values()) in held or _stands_aside(planning, ref):
                refs.append(ref)
    return list(dict.fromkeys(refs))


def _stands_aside(planning: _Planning, ref: ChartRef) -> bool:
    """A chart whose rule fails as its axis holds one value, and whose kind has a stand-in
    (a standard chart of one parallelism level: its queue-depth chart). A flat chart of
    a kind without one, whose rule fails (a dual-axis chart of one setup), is not named."""
    return ref.chart.instead is not None and planning.flat(ref)


def chart_plan(report: Report, points: pl.DataFrame, where: Path) -> list[ChartRef]:
    """Every chart of the report in order: grouped by access and block size as the seeds do.
    A declared profile that matches no measured point is an error naming it in ``where``;
    a chart whose x axis holds one value gives way to the kind whose axis varies."""
    planning = _Planning(points)
    return _drawn(planning, _planned(planning, report, where), report, where)


def plan(
    report: Report, points: pl.DataFrame, where: Path
) -> tuple[list[ChartRef], list[ChartRef]]:
    """``chart_plan`` and ``left_out`` at once, each question of the points asked once."""
    planning = _Planning(points)
    planned = _planned(planning, report, where)
    drawn = _drawn(planning, planned, report, where)
    return drawn, _left_out(planning, planned, drawn)


def _drawn(
    planning: _Planning, planned: list[ChartRef], report: Report, where: Path
) -> list[ChartRef]:
    """The charts of ``planned`` that are drawn, and the stand-ins of the flat ones; a
    comparison of setups that one setup measured is not drawn (``left_out`` names it)."""
    planned = [r for r in planned if not planning.alone(r)]
    refs = [r for r in planned if not planning.flat(r)]
    for ref in planned:  # a stand-in for each flat chart whose profile has none drawn yet
        if planning.flat(ref) and ref.chart.instead and not _stood_in(planning, ref, refs):
            refs += [r for r in _instead(planning, ref, report) if _drawable(planning, r)]
    points = planning.points
    refs = [replace(r, timed=_timed(r, points), clat=_clat(r, points)) for r in dict.fromkeys(refs)]
    _distinct_stems(refs, where)
    order = {(r.access, r.block_size): i for i, r in reversed(list(enumerate(refs)))}
    return sorted(refs, key=lambda r: (r.kind == "histogram", order[(r.access, r.block_size)]))


def _drawable(planning: _Planning, ref: ChartRef) -> bool:
    return not (planning.flat(ref) or planning.alone(ref))


def _timed(ref: ChartRef, points: pl.DataFrame) -> bool:
    return ref.chart.takes != "points" or bool(
        points_for(points, ref)["lat_mean_us"].is_not_null().any()
    )


def _clat(ref: ChartRef, points: pl.DataFrame) -> bool:
    """A percentile chart some of whose percentiles are of fio's completion latency."""
    if ref.kind != "percentiles" or "percentile_of" not in points.columns:
        return False
    return bool((points_for(points, ref)["percentile_of"] == "clat").any())


def _instead(planning: _Planning, ref: ChartRef, report: Report) -> list[ChartRef]:
    """The charts of the kind that stands in for the flat ``ref``, of its profile."""
    chart = kinds.BY_NAME[ref.chart.instead or ""]
    key = {k: v for k, v in ref.key().items() if k in planning.grain(chart)}
    return [
        _ref(chart, k, report, ref.palette)
        for k in planning.keys(chart)
        if all(k.get(c) == v for c, v in key.items())
    ]


def left_out(report: Report, points: pl.DataFrame, where: Path) -> list[ChartRef]:
    """The charts asked for but not drawn (one value on their x axis, or each line one
    point) whose stand-in is not drawn for the same data either, and the columns a drawn
    queue-depth grid leaves out: the documents name them."""
    return plan(report, points, where)[1]


def _left_out(
    planning: _Planning, planned: list[ChartRef], drawn: list[ChartRef]
) -> list[ChartRef]:
    points = planning.points
    alone = [replace(r, timed=_timed(r, points), alone=True) for r in planned if planning.alone(r)]
    flats = [r for r in planned if planning.flat(r) and not planning.alone(r)]
    named = [
        replace(r, timed=_timed(r, points)) for r in flats if not _stood_in(planning, r, drawn)
    ]
    return alone + named + [column for r in drawn for column in _dropped_columns(r, points)]


def _stood_in(planning: _Planning, ref: ChartRef, drawn: list[ChartRef]) -> bool:
    """Whether a chart of the kind that stands in for the flat ``ref`` is drawn for its
    profile (not merely somewhere in the document)."""
    instead = ref.chart.instead
    if not instead:
        return False
    key = {k: v for k, v in ref.key().items() if k in planning.grain(kinds.BY_NAME[instead])}
    return any(
        d.kind == instead and all(d.key().get(c) == v for c, v in key.items()) for d in drawn
    )


def _dropped_columns(ref: ChartRef, points: pl.DataFrame) -> list[ChartRef]:
    """The parallelism levels a grid over the queue depth leaves out, as measured at one
    depth beside levels measured at several (``charts.levels``: a column of one dot);
    each named as a chart of its level."""
    if ref.chart.x != "queue_depth" or ref.parallelism is not None:
        return []
    shown = points_for(points, ref).group_by("parallelism").agg(pl.col("queue_depth").n_unique())
    if shown["queue_depth"].max() in (None, 1):
        return []  # no column of several depths: the chart is flat, named as such
    levels = sorted(shown.filter(pl.col("queue_depth") == 1)["parallelism"].to_list())
    return [replace(ref, parallelism=p, stem=f"{ref.stem}_p{p}") for p in levels]


def _kind(spec: ChartSpec, where: Path, place: str) -> kinds.Chart:
    chart = kinds.BY_NAME.get(spec.kind)
    if chart is None or chart.takes == "cost":
        names = [c.name for c in kinds.CHARTS if c.takes != "cost"]
        near = difflib.get_close_matches(spec.kind, names, n=1)
        raise InputError(
            where,
            f"{place}.kind",
            f"{spec.kind!r} is no chart kind"
            + (" a report declares (the cost chart follows the cost table)" if chart else ""),
            (f"did you mean {near[0]!r}? " if near else "") + "kinds: " + ", ".join(names),
        )
    return chart


def _check_pairs(report: Report, points: pl.DataFrame, where: Path) -> None:
    measured = set(points["setup"].unique().to_list())
    for index, pair in enumerate(report.frontend_backend):
        for side in ("frontend", "backend"):
            name = getattr(pair, side)
            if name not in measured:
                raise InputError(
                    where,
                    f"frontend_backend[{index}].{side}",
                    f"setup {name!r} has no measured point",
                    "name setups of [[sources]]: " + ", ".join(sorted(measured)),
                )


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


def _histogram(spec: ChartSpec, look: Palette) -> ChartRef:
    stem = f"histogram_{_slug(spec.source or '')}_{spec.job}"
    return ChartRef("histogram", stem, "", None, source=spec.source, job=spec.job, palette=look)


def _all_match(spec: ChartSpec, keys: list[dict[str, Any]], where: Path, place: str) -> None:
    for index, profile in enumerate(spec.profiles):
        one = spec.model_copy(update={"profiles": [profile]})
        if not any(_matches(one, key) for key in keys):
            raise InputError(
                where,
                f"{place}.profiles[{index}]",
                f"profile {profile!r} matches no measured point of a {spec.kind!r} chart",
                f"name one the raw data holds: {_profiles_of(keys)}",
            )


def _profiles_of(keys: list[dict[str, Any]]) -> str:
    """The profiles of a kind's charts as ``profiles`` names them ("8K random 100"), the
    first ``SHOWN_PROFILES`` of them and how many more (a made-up example misled)."""
    named = list(
        dict.fromkeys(
            f"{block_label(k['block_size'])} {k['access']}"
            + (f" {k['read_pct']:g}" if "read_pct" in k else "")
            for k in keys
            if k.get("block_size") is not None
        )
    )
    shown = ", ".join(repr(n) for n in named[:SHOWN_PROFILES])
    more = len(named) - SHOWN_PROFILES
    return f"{shown} and {more} more" if more > 0 else shown or "none"


SHOWN_PROFILES = 8


# The unit of each chart's latency axis is declared with its kind (``Chart.latency``;
# its title, caption, alt text and the method's sentence name it); a ms axis is drawn in
# µs where the document's fastest latency is below 100 µs, as the tables' ms columns. The
# site's comparison chart (not a kind of a report) draws as the standard chart.
OTHER_AXES = {"compare": "ms"}


def _latency_unit(kind: str) -> str | None:
    chart = kinds.BY_NAME.get(kind)
    return chart.latency if chart is not None else OTHER_AXES.get(kind)


def axis_unit(kind: str, fmt: Formatter) -> str:
    """The unit chart ``kind`` draws its latencies in, in this document."""
    return fmt.unit(_latency_unit(kind) or "µs")


def axis_symbol(kind: str, fmt: Formatter) -> str:
    """The symbol of that unit; empty for a chart without latencies (stability)."""
    return fmt.symbol(axis_unit(kind, fmt)) if _latency_unit(kind) else ""


def metric(access: str, fmt: Formatter) -> str:
    return fmt.t("chart.mb_s" if access == "sequential" else "chart.iops")


def _words(ref: ChartRef, fmt: Formatter) -> dict[str, str]:
    """Every word a caption or alt text of ``ref`` may name."""
    words = {"unit": axis_symbol(ref.kind, fmt), "n": fmt.integer(1000)}
    if ref.access:
        words |= {"access": fmt.t.access(ref.access, True), "metric": metric(ref.access, fmt)}
        words["access_start"] = fmt.t.access(ref.access, start=True)
    if ref.block_size is not None:
        words["block"] = fmt.block(ref.block_size)
    if ref.access and ref.block_size is not None and ref.read_pct is not None:
        # a chart of one named workload mix ("Database") is titled by its name
        words["block"] = fmt.profile(ref.access, ref.block_size, ref.read_pct) or words["block"]
    if ref.read_pct is not None:
        words["mix"] = fmt.t.mix(ref.read_pct, short=True)
    if ref.limit_us is not None:
        words["limit"] = latency(fmt, "iops_at_latency", ref.limit_us, "limit_us")
    return words


def _levels(text: str, ref: ChartRef, fmt: Formatter) -> str:
    """``text`` with the queue depth and parallelism it is drawn at, where per each."""
    if ref.queue_depth is not None:
        text = fmt.t("chart.at_depth", caption=text, qd=fmt.integer(ref.queue_depth))
    if ref.parallelism is not None:
        text = fmt.t("chart.at_parallelism", caption=text, p=fmt.integer(ref.parallelism))
    return text


# a caption, alt text or method sentence naming the service time -> its words for a chart
# of points without latency (drawn without the service-time panel), and the method's,
# notes' and definitions' general words for a document none of whose points has one
UNTIMED = {
    "chart.queue_depth_title": "chart.queue_depth_rate_title",
    "chart.alt": "chart.alt_rate",
    "chart.alt_queue_depth": "chart.alt_queue_depth_rate",
    "chart.alt_setups": "chart.alt_setups_rate",
    "chart.alt_setups_depth": "chart.alt_setups_depth_rate",
    "method.chart_standard": "method.chart_standard_rate",
    "method.chart_queue_depth": "method.chart_queue_depth_rate",
    "method.chart_setups": "method.chart_setups_rate",
    "method.chart_setups_depth": "method.chart_setups_depth_rate",
    "chart.dual_title": "chart.dual_rate_title",
    "chart.alt_dual": "chart.alt_dual_rate",
    "method.chart_dual_axis": "method.chart_dual_axis_rate",
    "chart.alt_frontend_backend": "chart.alt_frontend_backend_rate",
    "method.hosts": "method.hosts_rate",
    "method.hosts_summed": "method.hosts_summed_rate",
    "method.hosts_range": "method.hosts_rate_range",
    "method.units_binary": "method.units_binary_rate",
    "method.units_decimal": "method.units_decimal_rate",
    "method.repeats_mean": "method.repeats_mean_rate",
    "appendix.def_totals": "appendix.def_totals_rate",
    "appendix.def_totals_summed": "appendix.def_totals_summed_rate",
    "appendix.def_optimum": "appendix.def_optimum_rate",
    "compare.alt": "compare.alt_rate",
}


# a percentile chart's words -> those for percentiles of fio's completion latency (clat)
CLAT = {
    "chart.percentiles_title": "chart.percentiles_clat_title",
    "chart.alt_percentiles": "chart.alt_percentiles_clat",
}


def _words_of(key: str, ref: ChartRef) -> str:
    """``words_key`` of a chart, and the words of completion-latency percentiles."""
    key = words_key(key, ref.timed)
    return CLAT.get(key, key) if ref.clat else key


def words_key(key: str, timed: bool) -> str:
    """``key``, or its words without the service time where the chart (or, for the
    method's, notes' and definitions' general words, the document) has none."""
    return key if timed else UNTIMED.get(key, key)


def hosts_summed(points: pl.DataFrame) -> bool:
    """Whether every point's tool gives its totals over all the hosts it drove (vdbench's
    flatfile: ``Reader.HOSTS_SUMMED``), so that the text says neither "one server" nor
    "per server"."""
    tools = points["tool"].unique().to_list()
    return bool(tools) and all(tool_sums_hosts(str(t)) for t in tools)


def has_latency(points: pl.DataFrame) -> bool:
    """Whether some point has a latency: a document where none has (CrystalDiskMark 3 to
    6, fio's ``bw``/``iops`` logs alone) says nothing of service time or the optimum."""
    return bool(points["lat_mean_us"].is_not_null().any())


def chart_caption(ref: ChartRef, fmt: Formatter) -> str:
    """The caption of a chart: the same words as its title, plus the setup where several."""
    title = _words_of(ref.chart.title, ref)
    caption = _levels(fmt.t(title, **_words(ref, fmt)), ref, fmt)
    several = len(fmt.setups) > 1
    return f"{caption} – {fmt.setup(ref.setup)}" if ref.setup and several else caption


def chart_alt(ref: ChartRef, fmt: Formatter) -> str:
    alt = fmt.t(_words_of(ref.chart.alt, ref), **_words(ref, fmt))
    if ref.kind == "standard":
        return alt if ref.queue_depth is None else _levels(alt.rstrip("."), ref, fmt)
    return f"{chart_caption(ref, fmt)}. {alt}"


def figures(charts: list[ChartRef], with_cost: bool, fmt: Formatter) -> dict[str, tuple[str, str]]:
    """Chart stem -> (caption, alt text) of every chart of the report, in its order."""
    found = {ref.stem: (chart_caption(ref, fmt), chart_alt(ref, fmt)) for ref in charts}
    if with_cost:
        cost = ChartRef(COST_CHART, COST_CHART, "", None)
        found[COST_CHART] = (fmt.t(cost.chart.title), fmt.t(cost.chart.alt, **_words(cost, fmt)))
    return found


def left_out_note(refs: list[ChartRef], fmt: Formatter) -> str:
    """The sentences naming the charts not drawn, one per reason; empty where none."""
    alone = [r for r in refs if r.alone]
    flats = [r for r in refs if not r.alone]
    notes = [(alone, "chart.left_out_alone"), (flats, "chart.left_out")]
    return " ".join(_left_out_sentence(named, key, fmt) for named, key in notes if named)


def _left_out_sentence(refs: list[ChartRef], key: str, fmt: Formatter) -> str:
    named = list(dict.fromkeys(_left_out_names(refs, fmt)))
    shown = "; ".join(named[:NAMED])
    if len(named) > NAMED:
        more = len(named) - NAMED
        shown = fmt.t.count("chart.left_out_more", more, charts=shown, n=fmt.integer(more))
    return fmt.t(key, charts=shown)


NAMED = 3  # charts a note names; the others it counts


def _left_out_names(refs: list[ChartRef], fmt: Formatter) -> Iterator[str]:
    """Each chart's caption; the charts of one profile at several queue depths as one
    ("64K random: configurations compared, queue depths 1, 2, 4 and 8", not "…, queue
    depth 1; …, queue depth 2; … and 2 more")."""
    groups: dict[ChartRef, list[ChartRef]] = {}
    for ref in refs:
        groups.setdefault(replace(ref, queue_depth=None, stem=""), []).append(ref)
    for base, members in groups.items():
        depths = sorted({r.queue_depth for r in members if r.queue_depth is not None})
        if len(depths) < 2 or len(depths) != len(members):
            yield from (chart_caption(r, fmt) for r in members)
            continue
        listed = fmt.listing([fmt.integer(d) for d in depths])
        yield fmt.t("chart.left_out_depths", chart=chart_caption(base, fmt), depths=listed)


def kind_problems(report: Report, where: Path) -> list[InputError]:
    """Each chart of report.toml whose kind is none a report declares (checked before
    any data is read, with report.toml's other problems)."""
    problems = []
    for index, spec in enumerate(report.charts or []):
        try:
            _kind(spec, where, f"charts[{index}]")
        except InputError as err:
            problems.append(err)
    return problems
