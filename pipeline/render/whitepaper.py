"""The whitepaper's structure: which sections, figures and tables, in which order."""

from __future__ import annotations

import polars as pl

from pipeline.config import Host
from pipeline.render import typst_doc as T
from pipeline.render.appendix import appendix
from pipeline.render.context import ReportContext
from pipeline.render.fmt import Formatter
from pipeline.render.narrative import Values, fill, marker
from pipeline.render.plan import ChartRef
from pipeline.render.sanitize import to_typst


def placeable(ctx: ReportContext, fmt: Formatter) -> dict[str, list[str]]:
    charts = [r.stem for r in ctx.charts] + ([COST_CHART] if "cost" in ctx.tables else [])
    return {"table": list(ctx.views(fmt)), "chart": charts}


def placed(ctx: ReportContext, fmt: Formatter) -> set[str]:
    """Every table and chart a directive of this language's narrative places."""
    found: set[str] = set()
    for section in ctx.narrative[fmt.t.lang].values():
        values = Values(ctx.tables, fmt, placeable(ctx, fmt))
        fill(section, values.context(ctx.report))
        found |= {name for _, name in values.placed}
    return found


def _block(ctx: ReportContext, fmt: Formatter, kind: str, name: str) -> str:
    if kind == "table":
        return T.table(ctx.views(fmt)[name])
    if name == COST_CHART:
        return T.figure(
            f"charts/{COST_CHART}.{fmt.t.lang}.svg",
            fmt.t("chart.cost_title"),
            cost_alt(fmt),
            COST_CHART,
        )
    ref = next(r for r in ctx.charts if r.stem == name)
    return T.figure(
        f"charts/{ref.stem}.{fmt.t.lang}.svg",
        chart_caption(ref, fmt),
        chart_alt(ref, fmt),
        ref.stem,
    )


def _narrative(ctx: ReportContext, fmt: Formatter, name: str) -> str:
    section = ctx.narrative[fmt.t.lang].get(name)
    if section is None:
        return ""
    values = Values(ctx.tables, fmt, placeable(ctx, fmt))
    text = to_typst(fill(section, values.context(ctx.report)), section.path)
    for index, (kind, item) in enumerate(values.placed):
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
    profiles = fmt.t(
        "method.profiles",
        mixes=", ".join(fmt.t.mix(m, True) for m in mixes),
        blocks=", ".join(f"{fmt.block(b)} {fmt.t.access(a, True)}" for a, b in blocks.iter_rows()),
        intervals=fmt.integer(points.select(pl.col("intervals").max()).item()),
        levels=", ".join(fmt.integer(p) for p in levels),
    )
    hosts = fmt.t("method.hosts", hosts=fmt.integer(points.select(pl.col("hosts").max()).item()))
    return [profiles, hosts, fmt.t("method.chart"), fmt.t(f"method.units_{fmt.units}")]


def _method(ctx: ReportContext, fmt: Formatter) -> list[str]:
    parts = [
        T.heading(fmt.t("section.method")),
        _narrative(ctx, fmt, "method"),
        T.heading(fmt.t("section.profiles"), 2),
    ]
    return parts + [T.paragraph(s) for s in method_sentences(ctx, fmt)]


def chart_caption(ref: ChartRef, fmt: Formatter) -> str:
    """The caption of a chart: the same words as its title, plus the setup where several."""
    if ref.kind == "histogram":
        return fmt.t("chart.histogram_title")
    words = {"block": fmt.block(ref.block_size), "access": fmt.t.access(ref.access, True)}
    if ref.read_pct is not None:
        words["mix"] = fmt.t.mix(ref.read_pct, short=True)
    if ref.limit_us is not None:
        words["limit"] = fmt.lat_ms(ref.limit_us)
    key = "chart.caption" if ref.kind == "standard" else f"chart.{TITLE_KEYS[ref.kind]}_title"
    caption = fmt.t(key, **words)
    several = len(fmt.setups) > 1
    return f"{caption} – {fmt.setup(ref.setup)}" if ref.setup and several else caption


TITLE_KEYS = {
    "dual_axis": "dual",
    "setups": "setups",
    "response": "response",
    "stability": "stability",
    "percentiles": "percentiles",
}


def chart_alt(ref: ChartRef, fmt: Formatter) -> str:
    if ref.kind != "standard":
        key = TITLE_KEYS.get(ref.kind, ref.kind)
        return f"{chart_caption(ref, fmt)}. {fmt.t(f'chart.alt_{key}')}"
    metric = fmt.t("chart.mb_s" if ref.access == "sequential" else "chart.iops")
    return fmt.t(
        "chart.alt",
        block=fmt.block(ref.block_size),
        access=fmt.t.access(ref.access, True),
        metric=metric,
    )


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
        parts.append(
            T.figure(
                f"charts/{ref.stem}.{fmt.t.lang}.svg",
                chart_caption(ref, fmt),
                chart_alt(ref, fmt),
                ref.stem,
            )
        )
    return parts


def _tables(ctx: ReportContext, fmt: Formatter, skip: set[str]) -> list[str]:
    """Performance (seed 000 Tabelle 3 and/or seed 004's key figures), then latency."""
    views = {k: v for k, v in ctx.views(fmt).items() if k not in skip}
    parts: list[str] = []
    performance = [views[n] for n in ("performance", "key_figures") if n in views]
    if performance:
        parts += [
            T.heading(fmt.t("section.performance")),
            *map(T.table, performance),
            T.paragraph(fmt.t("method.optimum")),
        ]
    latency = [views[n] for n in ("min_latency", "iops_at_latency") if n in views]
    if latency:
        parts += [T.heading(fmt.t("section.latency")), *map(T.table, latency)]
    if "iops_at_latency" in views:
        parts.append(T.paragraph(fmt.t("method.limits")))
    return parts


COST_CHART = "cost"


def cost_for(ctx: ReportContext, lang: str) -> pl.DataFrame:
    """The cost table with its labels in the report's language (for the chart)."""
    labels = [c.label[lang] for c in ctx.report.cost]
    return ctx.tables["cost"].with_columns(pl.Series("label", labels))


def cost_alt(fmt: Formatter) -> str:
    return fmt.t("chart.cost_alt", n=fmt.integer(1000))


def _economics(ctx: ReportContext, fmt: Formatter, skip: set[str]) -> list[str]:
    """Cost, footprint, SPC-1 and speed-up sections, each where the report has its inputs."""
    views = {k: v for k, v in ctx.views(fmt).items() if k not in skip}
    parts: list[str] = []
    if "cost" in views:
        parts += [
            T.heading(fmt.t("section.cost")),
            _narrative(ctx, fmt, "economics"),
            T.table(views["cost"]),
        ]
        if ctx.report.cost_note:
            parts.append(T.paragraph(ctx.report.cost_note[fmt.t.lang]))
        parts.append(
            ""
            if COST_CHART in skip
            else T.figure(
                f"charts/{COST_CHART}.{fmt.t.lang}.svg",
                fmt.t("chart.cost_title"),
                cost_alt(fmt),
                COST_CHART,
            )
        )
    if "footprint" in views:
        parts += [T.heading(fmt.t("section.footprint")), T.table(views["footprint"])]
    if "spc1" in views:
        parts += [T.heading(fmt.t("section.spc1")), T.table(views["spc1"])]
    if "spc1_sizing" in views:
        load = fmt.amount(ctx.tables["spc1_sizing"]["max_load_pct"][0])
        parts += [
            T.heading(fmt.t("section.sizing"), 2),
            T.table(views["spc1_sizing"]),
            T.paragraph(fmt.t("econ.sizing_method", load=load)),
        ]
    if "speedup" in views:
        parts += [
            T.heading(fmt.t("section.speedup")),
            T.table(views["speedup"]),
            T.paragraph(fmt.t("econ.speedup_method")),
        ]
    return parts


def body(ctx: ReportContext, lang: str) -> str:
    fmt = ctx.formatter(lang)
    skip = placed(ctx, fmt)
    parts = [
        *_preliminary(ctx, fmt),
        T.heading(fmt.t("section.summary")),
        _narrative(ctx, fmt, "summary"),
        *_setup(ctx, fmt),
        *_method(ctx, fmt),
        *_results(ctx, fmt, skip),
        *_tables(ctx, fmt, skip),
        *_economics(ctx, fmt, skip),
        T.heading(fmt.t("section.conclusion")),
        _narrative(ctx, fmt, "conclusion"),
        *appendix(ctx, fmt),
    ]
    return T.document(T.Meta(ctx.report, fmt), parts)
