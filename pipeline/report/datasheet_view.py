"""What the datasheet shows, before any layout: its setup and queue depth, its profiles,
and the rows of the registry's tables its figures come from, picked by the row functions
the whitepaper's tables use (``views.RowKey``, ``views.row``, ``views.kinds``).
``render/datasheet`` lays them out and formats them; it reads no table itself."""

from __future__ import annotations

from dataclasses import dataclass

import polars as pl

from pipeline.config import REPORT_FILE
from pipeline.dataset import Spc1Record
from pipeline.errors import InputError
from pipeline.report import chart_registry
from pipeline.report.context import ReportContext
from pipeline.report.plan import ChartRef
from pipeline.report.views import Row, RowKey, kinds, row
from pipeline.units import convert_time, per_kiops

# The standard profiles of the latency and limit tiles: (block size, read share)
LATENCY_PROFILES = ((4096, 100.0), (4096, 0.0), (8192, 100.0), (8192, 0.0))

# The datasheet's speed, optimum and maximum print in the units of the table the
# whitepaper shows them in: key_figures where it shows that table (seed 004 Tabelle 2:
# 11.5 GB/s, 590 µs), else performance (seed 000: 1'003'798 @ 0.55 ms), so that a figure
# reads as on the whitepaper's table and one page has one bandwidth unit.
KEY = "key_figures"


@dataclass(frozen=True)
class Profile:
    access: str
    block: int
    read_pct: float


@dataclass(frozen=True)
class Spc1Figures:
    """The SPC-1 result the datasheet names, its latency at full load and its price per
    1,000 IOPS."""

    record: Spc1Record
    lat_us: float
    price_per_kiops: float


@dataclass(frozen=True)
class Sheet:
    """Every row the datasheet shows, unformatted."""

    system: str  # the report's system: the page's (a stated record may be another's)
    setup: str
    depth: int | None  # None where the setup was measured at one queue depth
    # the queue depth of every point the page shows, where they share one (the notice
    # says it: pbench's QD 32 was said nowhere on its page)
    sole_depth: int | None
    units: str  # the table whose units the speed, optimum and maximum print in
    latency: list[tuple[Profile, Row | None]]
    best_iops: Row | None  # the random maximum with the highest IOPS
    best_bandwidth: Row | None  # the sequential maximum with the highest bandwidth
    limits: list[tuple[Profile, Row]]
    footprint: Row | None
    spc1: Spc1Figures | None
    key_figures: list[tuple[Profile, dict[str, Row]]]  # speed, optimum, maximum by kind
    chart: ChartRef | None
    # the servers (VMs) the load of the datasheet's points ran on at once: fewest, most
    hosts: tuple[int, int] = (1, 1)
    # the setup's other queue depths, where the page shows one of several (its headline
    # figures are that depth's: another may have done better, in the whitepaper)
    other_depths: tuple[int, ...] = ()


def setup(ctx: ReportContext) -> str:
    return ctx.report.datasheet.setup or ctx.report.setups[0].name


def depth(ctx: ReportContext) -> int | None:
    """The queue depth the datasheet shows where its setup was measured at several: the
    one ``[datasheet]`` names, else the one of most profiles, the deepest of those (a
    queue-depth sweep of one profile is not the test matrix: fs820's QD 128 held 4K
    random reads alone, and the page showed no bandwidth); None where there is one."""
    points = ctx.dataset.points.filter(pl.col("setup") == setup(ctx))
    depths = sorted(points["queue_depth"].unique().to_list())
    named = ctx.report.datasheet.queue_depth
    if named is not None and named not in depths:
        raise InputError(
            ctx.folder / REPORT_FILE,
            "datasheet.queue_depth",
            f"no point of setup {setup(ctx)!r} at queue depth {named}",
            f"name one of the measured queue depths: {depths}",
        )
    if len(depths) < 2:
        return None
    if named:
        return named
    profiles = points.group_by("queue_depth").agg(
        pl.struct("access", "block_size", "read_pct").n_unique().alias("n")
    )
    return int(profiles.sort("n", "queue_depth").row(-1, named=True)["queue_depth"])


Scope = tuple[tuple[str, object], ...]


def _scope(ctx: ReportContext) -> Scope:
    """The datasheet's setup and queue depth, as a grid row's extra keys."""
    shown = depth(ctx)
    return (("setup", setup(ctx)),) + ((("queue_depth", shown),) if shown is not None else ())


def _within(table: pl.DataFrame, scope: Scope) -> pl.DataFrame:
    for column, value in scope:
        table = table.filter(pl.col(column) == value)
    return table


def of_setup(ctx: ReportContext, name: str) -> pl.DataFrame:
    """Table ``name``'s rows of the datasheet's setup (and queue depth)."""
    return _within(ctx.tables[name], _scope(ctx))


def shown_profiles(table: pl.DataFrame) -> list[Profile]:
    """The standard profiles (4K and 8K random, read and write) the report measured; where
    it measured none of them, its first four random profiles (smallest blocks first)."""
    random = table.filter(pl.col("access") == "random")
    found = set(zip(random["block_size"], random["read_pct"], strict=True))
    standard = [p for p in LATENCY_PROFILES if p in found]
    chosen = standard or sorted(found, key=lambda p: (p[0], -p[1]))[:4]
    return [Profile("random", int(block), float(read)) for block, read in chosen]


def _rows(table: pl.DataFrame, scope: Scope) -> list[tuple[Profile, Row | None]]:
    """The table's row per shown profile, as the whitepaper's grid cell holds it."""
    return [
        (p, row(table, RowKey(p.access, p.block, scope), p.read_pct))
        for p in shown_profiles(_within(table, scope))
    ]


def _best(perf: pl.DataFrame, access: str, column: str) -> Row | None:
    rows = perf.filter((pl.col("kind") == "maximum") & (pl.col("access") == access))
    return rows.sort(column, descending=True).row(0, named=True) if rows.height else None


def key_profiles(perf: pl.DataFrame) -> list[Profile]:
    """The key figures' profiles: the standard random ones, and the sequential read and
    write with the highest bandwidth."""
    found = shown_profiles(perf)
    sequential = perf.filter((pl.col("access") == "sequential") & (pl.col("kind") == "maximum"))
    for read in (100.0, 0.0):
        rows = sequential.filter(pl.col("read_pct") == read).sort("bytes_per_s")
        if rows.height:
            found.append(Profile("sequential", int(rows["block_size"][-1]), read))
    return found


def _footprint(ctx: ReportContext) -> Row | None:
    name, table = ctx.report.datasheet.footprint, ctx.tables.get("footprint")
    if name is None:
        return None
    rows = table.filter(pl.col("system") == name) if table is not None else None
    if rows is None or rows.is_empty():  # a misspelt name dropped the tile without a word
        known = table["system"].to_list() if table is not None else []
        raise _unknown(ctx, "datasheet.footprint", f"no [[footprint]] system {name!r}", known)
    return rows.row(0, named=True)


def _unknown(ctx: ReportContext, field: str, why: str, known: list[str]) -> InputError:
    hint = f"name one of {known}" if known else "remove it, or add the record it names"
    return InputError(ctx.folder / REPORT_FILE, field, why, hint)


def _spc1(ctx: ReportContext) -> Spc1Figures | None:
    wanted = ctx.report.datasheet.spc1
    if wanted is None:
        return None
    record = next((r for r in ctx.spc1 if r.submission == wanted), None)
    if record is None:
        known = [r.submission for r in ctx.spc1]
        raise _unknown(ctx, "datasheet.spc1", f"no SPC-1 record {wanted!r} in the report", known)
    lat_us = convert_time(record.ramp[-1].lat_ms, "ms")
    return Spc1Figures(record, lat_us, per_kiops(record.price, record.spc1_iops))


def sheet(ctx: ReportContext) -> Sheet:
    """The rows of the report's datasheet."""
    scope, performance = _scope(ctx), ctx.tables["performance"]
    perf = _within(performance, scope)
    limits = _rows(ctx.tables["iops_at_latency"], scope) if _limits_shown(ctx) else []
    name = setup(ctx)
    depths = _within(ctx.dataset.points, scope)["queue_depth"].drop_nulls().unique()
    shown = depth(ctx)
    return Sheet(
        system=ctx.report.system.name,
        setup=name,
        depth=shown,
        sole_depth=int(depths[0]) if depths.len() == 1 else None,
        units=KEY if KEY in ctx.shown else "performance",
        latency=_rows(ctx.tables["min_latency"], scope),
        best_iops=_best(perf, "random", "iops"),
        best_bandwidth=_best(perf, "sequential", "bytes_per_s"),
        limits=[(p, found) for p, found in limits if found is not None],
        footprint=_footprint(ctx),
        spc1=_spc1(ctx),
        key_figures=[
            (p, kinds(performance, RowKey(p.access, p.block, scope), p.read_pct))
            for p in key_profiles(perf)
        ],
        chart=chart(ctx),
        hosts=_hosts(ctx, scope),
        other_depths=_other_depths(ctx, shown),
    )


def _other_depths(ctx: ReportContext, shown: int | None) -> tuple[int, ...]:
    """The setup's measured queue depths besides the one the page shows (none shown: none)."""
    if shown is None:
        return ()
    found = _within(ctx.dataset.points, (("setup", setup(ctx)),))["queue_depth"]
    return tuple(sorted(int(d) for d in found.drop_nulls().unique() if d != shown))


def points(ctx: ReportContext) -> pl.DataFrame:
    """The measured points of the datasheet's setup (and queue depth)."""
    return _within(ctx.dataset.points, _scope(ctx))


def _limits_shown(ctx: ReportContext) -> bool:
    """The limit tile stands where the whitepaper shows its table: not where report.toml
    leaves it out (fs820) nor where no point lies under a limit (the page said "–")."""
    return "iops_at_latency" in ctx.shown


def _hosts(ctx: ReportContext, scope: Scope) -> tuple[int, int]:
    """On how many servers (VMs) the load of the datasheet's points (its setup and queue
    depth) ran at once: the fewest and the most."""
    found = _within(ctx.dataset.points, scope)["hosts"]
    low, most = found.min(), found.max()
    return (low, most) if isinstance(low, int) and isinstance(most, int) else (1, 1)


def _rank(kind: str) -> int | None:
    """The datasheet's preference for a chart of ``kind`` (registry ``datasheet``)."""
    return chart_registry.BY_NAME[kind].datasheet


def chart(ctx: ReportContext) -> ChartRef | None:
    """The datasheet's chart, one the whitepaper draws too: of its first random profile
    (reads where the chart is per mix), for its setup; of the kind the registry ranks
    first (the standard chart where there is one)."""
    scope = _scope(ctx)
    blocks = [p.block for p in shown_profiles(_within(ctx.tables["performance"], scope))]
    shown_setup, shown_depth = setup(ctx), dict(scope).get("queue_depth")
    found = [
        r
        for r in ctx.charts
        if _rank(r.kind) is not None
        and r.access == "random"
        and r.setup in (None, shown_setup)
        and r.queue_depth in (None, shown_depth)
        and r.read_pct in (None, 100.0)
        and r.block_size in blocks
    ]
    found.sort(key=lambda r: (blocks.index(r.block_size or 0), _rank(r.kind) or 0))
    return found[0] if found else None
