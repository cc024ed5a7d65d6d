"""The one-page datasheet per system: the same key figures in the same layout for every
system, so that datasheets of different systems compare side by side."""

from __future__ import annotations

import shutil
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import polars as pl

from pipeline.config import LANGS, REPORT_FILE
from pipeline.errors import InputError
from pipeline.language.fmt import Formatter
from pipeline.render import typst_doc as T
from pipeline.report import chart_registry
from pipeline.report.context import ReportContext
from pipeline.report.plan import ChartRef, figures
from pipeline.report.views import bandwidth, latency
from pipeline.units import KIOPS, convert_time, per_kiops

# The datasheet's tables, each figure in the unit its registry table declares: the minimum
# latencies of min_latency, the limits of iops_at_latency, and the speed, optimum and
# maximum (and the maxima) as the whitepaper prints them: in key_figures' units where it
# shows that table (seed 004 Tabelle 2: 11.5 GB/s, 590 µs), else in performance's
# (seed 000: 1'003'798 @ 0.55 ms), so that a figure reads as on the whitepaper's table and
# one page has one bandwidth unit.
KEY = "key_figures"


def _key(ctx: ReportContext) -> str:
    """The table whose units the datasheet's speed, optimum and maximum print in."""
    return KEY if KEY in ctx.shown else "performance"


TEMPLATE = "datasheet.typ"
LATENCY_PROFILES = ((4096, 100.0), (4096, 0.0), (8192, 100.0), (8192, 0.0))


@dataclass(frozen=True)
class Item:
    label: str
    value: str
    note: str = ""


def _setup(ctx: ReportContext) -> str:
    return ctx.report.datasheet.setup or ctx.report.setups[0].name


def _depth(ctx: ReportContext) -> int | None:
    """The queue depth the datasheet shows where its setup was measured at several: the
    one ``[datasheet]`` names, else the deepest (None where there is one)."""
    points = ctx.dataset.points.filter(pl.col("setup") == _setup(ctx))
    depths = sorted(points["queue_depth"].unique().to_list())
    named = ctx.report.datasheet.queue_depth
    if named is not None and named not in depths:
        raise InputError(
            ctx.folder / REPORT_FILE,
            "datasheet.queue_depth",
            f"no point of setup {_setup(ctx)!r} at queue depth {named}",
            f"name one of the measured queue depths: {depths}",
        )
    if len(depths) < 2:
        return None
    return named or int(depths[-1])


def _of_setup(ctx: ReportContext, name: str) -> pl.DataFrame:
    """Table ``name``'s rows of the datasheet's setup (and queue depth)."""
    table = ctx.tables[name].filter(pl.col("setup") == _setup(ctx))
    depth = _depth(ctx)
    return table if depth is None else table.filter(pl.col("queue_depth") == depth)


def _row(table: pl.DataFrame, block: int, read_pct: float) -> dict[str, Any] | None:
    rows = table.filter(
        (pl.col("access") == "random")
        & (pl.col("block_size") == block)
        & (pl.col("read_pct") == read_pct)
    )
    return rows.row(0, named=True) if rows.height else None


def _profile(row: dict[str, Any], fmt: Formatter) -> str:
    return fmt.t(
        "datasheet.lat_item",
        block=fmt.block(row["block_size"]),
        access=fmt.t.access(row["access"]),
        mix=fmt.t.mix(row["read_pct"], True),
    )


def _shown_profiles(table: pl.DataFrame) -> list[tuple[int, float]]:
    """The standard profiles (4K and 8K random, read and write) the report measured; where
    it measured none of them, its first four random profiles (smallest blocks first)."""
    random = table.filter(pl.col("access") == "random")
    found = set(zip(random["block_size"], random["read_pct"], strict=True))
    standard = [p for p in LATENCY_PROFILES if p in found]
    return standard or sorted(found, key=lambda p: (p[0], -p[1]))[:4]


def latency_items(ctx: ReportContext, fmt: Formatter) -> list[Item]:
    table = _of_setup(ctx, "min_latency")
    items = []
    for block, read_pct in _shown_profiles(table):
        row = _row(table, block, read_pct)
        label = fmt.t(
            "datasheet.lat_item",
            block=fmt.block(block),
            access=fmt.t.access("random"),
            mix=fmt.t.mix(read_pct, True),
        )
        shown = latency(fmt, "min_latency", row["lat_mean_us"]) if row else fmt.t("table.none")
        items.append(Item(label, shown))
    return items


def _best(perf: pl.DataFrame, access: str, column: str) -> dict[str, Any] | None:
    rows = perf.filter((pl.col("kind") == "maximum") & (pl.col("access") == access))
    return rows.sort(column, descending=True).row(0, named=True) if rows.height else None


def _parallelism(row: dict[str, Any], fmt: Formatter) -> str:
    n = int(row["parallelism"])
    return fmt.t.count("table.parallelism", n, n=fmt.integer(n))


def performance_items(ctx: ReportContext, fmt: Formatter) -> list[Item]:
    perf = _of_setup(ctx, "performance")
    items, none = [], fmt.t("table.none")
    best = _best(perf, "random", "iops")
    items.append(
        Item(
            fmt.t("datasheet.max_iops"),
            fmt.integer(best["iops"]) if best else none,
            _note(best, fmt, _key(ctx)),
        )
    )
    seq = _best(perf, "sequential", "bytes_per_s")
    value = bandwidth(fmt, _key(ctx), seq["bytes_per_s"], with_unit=True) if seq else none
    items.append(Item(fmt.t("datasheet.max_bandwidth"), value, _note(seq, fmt, _key(ctx))))
    return items


def _note(row: dict[str, Any] | None, fmt: Formatter, table: str) -> str:
    if row is None:
        return ""
    said = fmt.t(
        "datasheet.profile_note", profile=_profile(row, fmt), parallelism=_parallelism(row, fmt)
    )
    if row["lat_mean_us"] is None:  # the tool printed no latency (CrystalDiskMark 3 to 6)
        return said
    return f"{said}, {latency(fmt, table, row['lat_mean_us'])}"


def limit_items(ctx: ReportContext, fmt: Formatter) -> list[Item]:
    table = _of_setup(ctx, "iops_at_latency")
    items = []
    for block, read_pct in _shown_profiles(table):
        row = _row(table, block, read_pct)
        if row is None:
            continue
        limit = latency(fmt, "iops_at_latency", row["limit_us"], "limit_us")
        label = fmt.t(
            "datasheet.under",
            block=fmt.block(block),
            access=fmt.t.access("random"),
            mix=fmt.t.mix(read_pct, True),
            limit=limit,
        )
        iops = row["iops"]
        value = f"{fmt.integer(iops)} {fmt.t('unit.iops')}" if iops is not None else None
        items.append(Item(label, value or fmt.t("table.none")))
    return items


def footprint_items(ctx: ReportContext, fmt: Formatter) -> list[Item]:
    name = ctx.report.datasheet.footprint
    table = ctx.tables.get("footprint")
    if name is None or table is None or table.filter(pl.col("system") == name).is_empty():
        return []
    row = table.filter(pl.col("system") == name).row(0, named=True)
    w = fmt.t("unit.w")
    return [
        Item(fmt.t("datasheet.space"), f"{row['rack_units']}{fmt.t('unit.u')}"),
        Item(fmt.t("datasheet.power"), f"{fmt.amount(row['power_w'])} {w}"),
        Item(
            fmt.t("datasheet.w_per_kiops", n=fmt.integer(KIOPS)),
            f"{fmt.derived(row['w_per_kiops'])} {w}",
        ),
    ]


def spc1_items(ctx: ReportContext, fmt: Formatter) -> list[Item]:
    record = next((r for r in ctx.spc1 if r.submission == ctx.report.datasheet.spc1), None)
    if record is None:
        return []
    full = record.ramp[-1]
    price = per_kiops(record.price, record.spc1_iops)
    return [
        Item(
            fmt.t("datasheet.spc1_iops"),
            fmt.integer(record.spc1_iops),
            f"{record.submission}, {latency(fmt, 'spc1', convert_time(full.lat_ms, 'ms'))}",
        ),
        Item(fmt.t("datasheet.spc1_price"), fmt.money(record.price, record.currency)),
        Item(
            fmt.t("datasheet.spc1_price_kiops", n=fmt.integer(KIOPS)),
            f"{fmt.derived(price)} {record.currency}",
        ),
    ]


KINDS = ("speed", "optimum", "maximum")


def _figure(row: dict[str, Any], fmt: Formatter, table: str) -> str:
    """A point's rate (IOPS, or bandwidth for sequential tests) and latency, with its
    parallelism, as the key-figures table prints them."""
    if row["access"] == "sequential":
        rate = bandwidth(fmt, table, row["bytes_per_s"], with_unit=True)
    else:
        rate = f"{fmt.integer(row['iops'])} {fmt.t('unit.iops')}"
    return fmt.t(
        "datasheet.figure",
        rate=rate,
        latency=_latency(row, fmt, table),
        parallelism=fmt.integer(row["parallelism"]),
    )


def _latency(row: dict[str, Any], fmt: Formatter, table: str) -> str:
    lat = row["lat_mean_us"]
    return fmt.t("table.none") if lat is None else latency(fmt, table, lat)


def _key_profiles(perf: pl.DataFrame) -> list[tuple[str, int, float]]:
    """The datasheet's profiles: the standard random ones, and the sequential read and
    write with the highest bandwidth."""
    rows = [("random", b, r) for b, r in _shown_profiles(perf)]
    sequential = perf.filter((pl.col("access") == "sequential") & (pl.col("kind") == "maximum"))
    for read in (100.0, 0.0):
        found = sequential.filter(pl.col("read_pct") == read).sort("bytes_per_s")
        if found.height:
            rows.append(("sequential", int(found["block_size"][-1]), read))
    return rows


def key_figures(ctx: ReportContext, fmt: Formatter) -> list[list[str]]:
    """Rows of the key-figures table: profile, then speed, optimum and maximum."""
    perf = _of_setup(ctx, "performance")
    rows = []
    for access, block, read_pct in _key_profiles(perf):
        of = perf.filter(
            (pl.col("access") == access)
            & (pl.col("block_size") == block)
            & (pl.col("read_pct") == read_pct)
        )
        cells = {r["kind"]: _figure(r, fmt, _key(ctx)) for r in of.iter_rows(named=True)}
        profile = fmt.t(
            "datasheet.lat_item",
            block=fmt.block(block),
            access=fmt.t.access(access),
            mix=fmt.t.mix(read_pct, True),
        )
        rows.append([profile, *(cells.get(k, fmt.t("table.none")) for k in KINDS)])
    return rows


def _rank(kind: str) -> int | None:
    """The datasheet's preference for a chart of ``kind`` (registry ``datasheet``)."""
    return chart_registry.BY_NAME[kind].datasheet


def chart(ctx: ReportContext) -> ChartRef | None:
    """The datasheet's chart, one the whitepaper draws too: of its first random profile
    (reads where the chart is per mix), for its setup; of the kind the registry ranks
    first (the standard chart where there is one)."""
    perf = _of_setup(ctx, "performance")
    blocks = [block for block, _ in _shown_profiles(perf)]
    found = [
        r
        for r in ctx.charts
        if _rank(r.kind) is not None
        and r.access == "random"
        and r.setup in (None, _setup(ctx))
        and r.queue_depth in (None, _depth(ctx))
        and r.read_pct in (None, 100.0)
        and r.block_size in blocks
    ]
    found.sort(key=lambda r: (blocks.index(r.block_size or 0), _rank(r.kind) or 0))
    return found[0] if found else None


def _typst_table(ctx: ReportContext, fmt: Formatter) -> str:
    header = [fmt.t("datasheet.profile"), *(fmt.t(f"datasheet.{k}") for k in KINDS)]
    rows = [header, *key_figures(ctx, fmt)]
    cells = ", ".join("(" + ", ".join(T.lit(c) for c in row) + ",)" for row in rows)
    return f"(title: {T.lit(fmt.t('datasheet.key_figures'))}, rows: ({cells},))"


def groups(ctx: ReportContext, fmt: Formatter) -> list[tuple[str, list[Item]]]:
    found = [
        ("latency", latency_items(ctx, fmt)),
        ("performance", performance_items(ctx, fmt)),
        ("limit", limit_items(ctx, fmt)),
        ("footprint", footprint_items(ctx, fmt)),
        ("spc1", spc1_items(ctx, fmt)),
    ]
    return [(fmt.t(f"datasheet.{key}"), items) for key, items in found if items]


def _typst_groups(ctx: ReportContext, fmt: Formatter) -> str:
    out = []
    for title, items in groups(ctx, fmt):
        entries = ", ".join(
            f"(label: {T.lit(i.label)}, value: {T.lit(i.value)}, note: {T.lit(i.note)})"
            for i in items
        )
        out.append(f"(title: {T.lit(title)}, items: ({entries},))")
    return "(" + ", ".join(out) + ",)"


def source(ctx: ReportContext, lang: str) -> str:
    """The datasheet as typst source."""
    fmt = ctx.formatter(lang)
    r = ctx.report
    several = len(r.setups) > 1
    notice = fmt.t("datasheet.setup_note", setup=fmt.setup(_setup(ctx))) if several else ""
    if (depth := _depth(ctx)) is not None:
        notice = f"{notice} {fmt.t('datasheet.depth_note', qd=fmt.integer(depth))}".strip()
    if r.reconstructed:
        notice = f"{notice} {fmt.t('doc.reconstructed')}".strip()
    meta = {
        "lang": lang,
        "title": r.title[lang],
        "author": r.author,
        "system": r.system.name,
        "kind": fmt.t("datasheet.kind"),
        "date": fmt.date(r.date),
        "classification": r.classification[lang],
        "sponsor": r.sponsor[lang] if r.sponsor else "",
        "footer": fmt.t("datasheet.footer"),
        "notice": notice,
    }
    ref = chart(ctx)
    meta["chart"] = f"charts/{ref.stem}.{lang}.svg" if ref else ""
    meta["chart_alt"] = figures(ctx.charts, "cost" in ctx.tables, fmt)[ref.stem][1] if ref else ""
    d = r.date
    items = [f"{k}: {T.lit(v)}" for k, v in meta.items()]
    items += [
        f"region: {T.lit(fmt.region) if fmt.region else 'none'}",
        f"doc-date: datetime(year: {d.year}, month: {d.month}, day: {d.day})",
        f"labels: (classification: {T.lit(fmt.t('doc.classification'))})",
    ]
    body = f"({', '.join(items)}), {_typst_groups(ctx, fmt)}, {_typst_table(ctx, fmt)}"
    return f'#import "{TEMPLATE}": *\n#datasheet({body})\n'


def sources(ctx: ReportContext, work: Path, templates: Path) -> list[Path]:
    """``<id>-datasheet.<lang>.typ`` for every language (and the template), into ``work``."""
    shutil.copy(templates / TEMPLATE, work / TEMPLATE)
    written = []
    for lang in LANGS:
        typ = work / f"{ctx.report.id}-datasheet.{lang}.typ"
        typ.write_text(source(ctx, lang), encoding="utf-8")
        written.append(typ)
    return written


def write(ctx: ReportContext, work: Path, templates: Path) -> list[Path]:
    """``<id>-datasheet.<lang>.pdf`` for every language, into ``work``."""
    written = []
    for typ in sources(ctx, work, templates):
        T.compile_pdf(typ, typ.with_suffix(".pdf"), work, ctx.report.date)
        written.append(typ.with_suffix(".pdf"))
    return written
