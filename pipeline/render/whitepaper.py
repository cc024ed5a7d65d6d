"""The whitepaper's structure: which sections, figures and tables, in which order."""

from __future__ import annotations

import polars as pl

from pipeline.compute import registry
from pipeline.compute.registry import Section
from pipeline.config import Host
from pipeline.language import Formatter
from pipeline.render import typst_doc as T
from pipeline.render.appendix import appendix
from pipeline.render.sanitize import to_typst
from pipeline.report.attributes import data_sentences
from pipeline.report.context import ReportContext
from pipeline.report.narrative import marker
from pipeline.report.plan import COST_CHART, axis_symbol, figures


def _figure(ctx: ReportContext, fmt: Formatter, stem: str) -> str:
    caption, alt = figures(ctx.charts, "cost" in ctx.tables, fmt)[stem]
    return T.figure(f"charts/{stem}.{fmt.t.lang}.svg", caption, alt, stem)


def _block(ctx: ReportContext, fmt: Formatter, kind: str, name: str) -> str:
    if kind == "table":
        return T.table(ctx.views(fmt)[name])
    return _figure(ctx, fmt, name)


def _narrative(ctx: ReportContext, fmt: Formatter, name: str) -> str:
    filled = ctx.filled[fmt.t.lang].get(name)
    if filled is None:
        return ""
    text = to_typst(filled.text, filled.path)
    for index, (kind, item) in enumerate(filled.placed):
        text = text.replace(marker(index), "\n" + _block(ctx, fmt, kind, item))
    return text + "\n"


def _preliminary(ctx: ReportContext, fmt: Formatter) -> list[str]:
    lang = fmt.t.lang
    parts = [T.heading(fmt.t("section.preliminary")), T.paragraph(ctx.report.sponsor[lang])]
    if ctx.report.reconstructed:
        parts.append(T.paragraph(ctx.report.reconstructed[lang]))
    return parts


def _setup(ctx: ReportContext, fmt: Formatter) -> list[str]:
    lang, report = fmt.t.lang, ctx.report
    parts = [
        T.heading(fmt.t("section.setup")),
        _narrative(ctx, fmt, "setup"),
        T.heading(fmt.t("section.system"), 2),
        T.paragraph(report.system.name),
    ]
    parts.append(T.bullets(d[lang] for d in report.system.description))
    if report.hosts:
        parts.append(T.heading(fmt.t("section.hosts"), 2))
        parts.append(T.bullets(_host_line(h, lang, fmt) for h in report.hosts))
    return parts


def _host_line(host: Host, lang: str, fmt: Formatter) -> str:
    """ "name: description", and the names the tools gave the host where it had others."""
    line = f"{host.name}: {host.description[lang]}".rstrip(": ")
    if host.raw:
        line += " " + fmt.t("setup.raw_hosts", names=", ".join(host.raw))
    return line


def method_sentences(ctx: ReportContext, fmt: Formatter) -> list[str]:
    """The generated part of the method section, from the data itself."""
    points = ctx.dataset.points
    mixes = sorted(points["read_pct"].unique().to_list(), reverse=True)
    blocks = points.select("access", "block_size").unique().sort("access", "block_size")
    levels = sorted(points["parallelism"].unique().to_list())
    intervals = int(points.select(pl.col("intervals").max()).item())
    profiles = fmt.t(
        "method.profiles",
        mixes=", ".join(fmt.t.mix(m, True) for m in mixes),
        blocks=", ".join(f"{fmt.block(b)} {fmt.t.access(a, True)}" for a, b in blocks.iter_rows()),
        intervals=fmt.t.count("method.intervals", intervals, n=fmt.integer(intervals)),
        levels=", ".join(fmt.integer(p) for p in levels),
    )
    charts = _chart_sentences(ctx, fmt, mixes)
    hosts = _hosts_sentences(points, fmt)
    units = fmt.t(f"method.units_{fmt.units}")
    data = data_sentences(points, fmt)
    return [profiles, *data, *_repeats_sentences(ctx, fmt), *hosts, *charts, units]


def _repeats_sentences(ctx: ReportContext, fmt: Formatter) -> list[str]:
    """Which rule (report.toml ``repeats``) chose among the runs of a point measured in
    several, and by what the newest is known."""
    found = ctx.dataset.repeats
    if not found:
        return []
    timed = {r.by_time for r in found}
    order = "time" if timed == {True} else "listing" if timed == {False} else "both"
    n = len({tuple(r.point.values()) for r in found})
    rule = f"method.repeats_{ctx.report.repeats}"
    return [fmt.t.count(rule, n, n=fmt.integer(n), order=fmt.t(f"method.repeat_by_{order}"))]


def _hosts_sentences(points: pl.DataFrame, fmt: Formatter) -> list[str]:
    """On how many servers the load ran: one sentence, or one per setup where they differ
    (an NVMe setup on one host beside a file setup on two)."""
    by_setup = points.group_by("setup", maintain_order=True).agg(pl.col("hosts").max()).rows()
    said = {s: fmt.t.count("method.hosts", n, n=fmt.integer(n)) for s, n in by_setup}
    if len(set(said.values())) == 1:
        return [next(iter(said.values()))]
    return [fmt.t("method.for_setup", setup=fmt.setup(s), text=t) for s, t in said.items()]


BY_MIX = ("standard", "response", "stability", "percentiles")  # chart kinds coloured by mix


def _chart_sentences(ctx: ReportContext, fmt: Formatter, mixes: list[float]) -> list[str]:
    """How to read the charts this report shows (and only those), and their colours."""
    kinds = list(dict.fromkeys(ref.kind for ref in ctx.charts))
    found = [fmt.t(f"method.chart_{kind}", unit=axis_symbol(kind, fmt)) for kind in kinds]
    if any(kind in BY_MIX for kind in kinds):
        named = [fmt.t(f"method.colour_{m:g}") for m in mixes if m in (100, 70, 0)]
        rest = any(m not in (100, 70, 0) for m in mixes)
        other = [fmt.t("method.colour_other" if named else "method.colour_legend")] if rest else []
        found.append(fmt.t("method.colours", list=", ".join(named + other)))
    spread = ctx.dataset.points.filter(pl.col("lat_p99_us").is_not_null())["hosts"].max()
    if "percentiles" in kinds and isinstance(spread, int) and spread > 1:
        found.append(fmt.t("method.percentiles_hosts"))  # fio's maps do not add up
    return found


def _method(ctx: ReportContext, fmt: Formatter) -> list[str]:
    parts = [
        T.heading(fmt.t("section.method")),
        _narrative(ctx, fmt, "method"),
        T.heading(fmt.t("section.profiles"), 2),
    ]
    return parts + [T.paragraph(s) for s in method_sentences(ctx, fmt)]


def _results(ctx: ReportContext, fmt: Formatter, skip: set[str]) -> list[str]:
    """One subsection per access and block size with its charts, in the plan's order."""
    parts = [T.heading(fmt.t("section.results")), _narrative(ctx, fmt, "results")]
    current: tuple[str, int] | None = None
    for ref in (r for r in ctx.charts if r.stem not in skip):
        if ref.kind != "histogram" and (ref.access, ref.block_size) != current:
            current = (ref.access, ref.block_size)
            parts.append(
                T.heading(f"{fmt.block(ref.block_size)} {fmt.t.access(ref.access, True)}", 2)
            )
        parts.append(_figure(ctx, fmt, ref.stem))
    return parts


# Section of the registry -> (heading key, heading level, narrative section before the tables)
SECTIONS: dict[Section, tuple[str, int, str | None]] = {
    "performance": ("section.performance", 1, None),
    "latency": ("section.latency", 1, None),
    "cost": ("section.cost", 1, "economics"),
    "footprint": ("section.footprint", 1, None),
    "spc1": ("section.spc1", 1, None),
    "sizing": ("section.sizing", 2, None),
    "speedup": ("section.speedup", 1, None),
}


def _section(ctx: ReportContext, fmt: Formatter, section: Section, names: list[str]) -> list[str]:
    """One section of tables: heading, narrative, the tables and, once each, their notes."""
    heading, level, text = SECTIONS[section]
    views = [ctx.views(fmt)[n] for n in names]
    parts = [T.heading(fmt.t(heading), level), *([_narrative(ctx, fmt, text)] if text else [])]
    parts += [T.table(v) for v in views]
    notes = list(dict.fromkeys(v.note for v in views if v.note))
    # a note another one says as part of itself is said once (the key figures' optimum
    # sentence is the first of the performance table's note)
    parts += [T.paragraph(n) for n in notes if not any(n != m and n in m for m in notes)]
    if section == "cost" and ctx.report.cost_note:
        parts.append(T.paragraph(ctx.report.cost_note[fmt.t.lang]))
    if section == "cost" and COST_CHART not in ctx.placed(fmt.t.lang):
        parts.append(_figure(ctx, fmt, COST_CHART))
    return parts


def _by_section(ctx: ReportContext, lang: str) -> dict[Section, list[str]]:
    """Every shown table not placed by the narrative, by section in the registry's order."""
    skip = ctx.placed(lang)
    by_section: dict[Section, list[str]] = {}
    for table in registry.TABLES:
        if table.name in ctx.shown and table.name not in skip:
            by_section.setdefault(table.section, []).append(table.name)
    return by_section


def _tables(ctx: ReportContext, fmt: Formatter) -> list[str]:
    sections = _by_section(ctx, fmt.t.lang)
    return [p for section, names in sections.items() for p in _section(ctx, fmt, section, names)]


def _placed(ctx: ReportContext, lang: str, section: str | None) -> list[tuple[str, str]]:
    filled = ctx.filled[lang].get(section) if section else None
    return [("table" if k == "table" else "figure", n) for k, n in filled.placed] if filled else []


def _order(ctx: ReportContext, lang: str) -> list[tuple[str, str]]:
    """Figures ("figure", stem) and tables ("table", name) in the order of ``body``."""
    skip = ctx.placed(lang)
    order = [p for s in ("summary", "setup", "method", "results") for p in _placed(ctx, lang, s)]
    order += [("figure", r.stem) for r in ctx.charts if r.stem not in skip]
    for section, names in _by_section(ctx, lang).items():
        order += _placed(ctx, lang, SECTIONS[section][2])
        order += [("table", name) for name in names]
        if section == "cost" and COST_CHART not in skip:
            order.append(("figure", COST_CHART))
    return order + _placed(ctx, lang, "conclusion")


def numbers(ctx: ReportContext, lang: str) -> dict[tuple[str, str], int]:
    """The number the PDF gives each figure and table (the site shows the same)."""
    found: dict[tuple[str, str], int] = {}
    counts = {"figure": 0, "table": 0}
    for kind, name in _order(ctx, lang):
        if kind in counts:
            counts[kind] += 1
            found.setdefault((kind, name), counts[kind])
    return found


def body(ctx: ReportContext, lang: str) -> str:
    fmt = ctx.formatter(lang)
    skip = ctx.placed(lang)
    parts = [
        *_preliminary(ctx, fmt),
        T.heading(fmt.t("section.summary")),
        _narrative(ctx, fmt, "summary"),
        *_setup(ctx, fmt),
        *_method(ctx, fmt),
        *_results(ctx, fmt, skip),
        *_tables(ctx, fmt),
        T.heading(fmt.t("section.conclusion")),
        _narrative(ctx, fmt, "conclusion"),
        *appendix(ctx, fmt),
    ]
    return T.document(T.Meta.of(ctx.report, fmt), parts)
