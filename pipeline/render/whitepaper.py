"""The whitepaper's structure: which sections, figures and tables, in which order."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import polars as pl

from pipeline.compute import registry
from pipeline.compute.registry import Section
from pipeline.config import Host
from pipeline.images import Placed
from pipeline.language import Formatter
from pipeline.normalise import full_round
from pipeline.render import pictures
from pipeline.render import typst_doc as T
from pipeline.render.appendix import appendix
from pipeline.render.sanitize import image_marker, markers, to_typst
from pipeline.report import chapters, chart_registry
from pipeline.report.attributes import data_sentences
from pipeline.report.chapters import TABLE_SECTIONS, Chapter
from pipeline.report.context import ReportContext
from pipeline.report.narrative import Filled, token
from pipeline.report.palette import theme
from pipeline.report.plan import (
    COST_CHART,
    axis_symbol,
    figures,
    has_latency,
    hosts_summed,
    left_out_note,
    words_key,
)
from pipeline.schema import POINT_KEY


def _figure(ctx: ReportContext, fmt: Formatter, stem: str, float: bool = False) -> str:
    caption, alt = figures(ctx.charts, "cost" in ctx.tables, fmt)[stem]
    return T.figure(f"charts/{stem}.{fmt.t.lang}.svg", caption, alt, stem, float=float)


def _block(ctx: ReportContext, fmt: Formatter, kind: str, name: str, float: bool) -> str:
    """A table or chart a directive places in a text; a chart floats where ``float``."""
    if kind == "table" and name in ctx.empty:  # nothing to print: the sentence saying so
        return T.paragraph(ctx.empty_note(fmt, names=[name]))
    if kind == "table":
        return T.table(ctx.views(fmt)[name])
    return _figure(ctx, fmt, name, float=float)


def _picture(placed: Placed, float: bool) -> str:
    width = f"{pictures.width_cm(placed.picture)}cm"
    return T.figure(placed.file, placed.caption, placed.alt, width=width, float=float)


def _may_float(ctx: ReportContext, lang: str, name: str | None, key: str = "") -> bool:
    """Whether the figures text ``name`` places may float to a page's foot, the text after
    them filling the page: only after the results' charts, which stand in the flow. A
    float before them that does not fit is carried past the next of them, so figure 3
    stood above figure 2 (a consultant's chart placed in the results' text). The text is
    known by ``name``, or its chapter by ``key`` (the cost chart's)."""
    declared = chapters.declared(ctx.report)
    keys = [c.key for c in declared]
    skip = ctx.placed(lang)
    if "results" not in keys or all(r.stem in skip for r in ctx.charts):
        return True
    mine = next(
        (i for i, c in enumerate(declared) if (c.text == name if name else c.key == key)),
        len(declared),
    )
    return mine > keys.index("results")


def _narrative(ctx: ReportContext, fmt: Formatter, name: str | None) -> str:
    filled = ctx.filled[fmt.t.lang].get(name or "")
    if filled is None:
        return ""
    text = to_typst(filled.text, filled.path)
    float = _may_float(ctx, fmt.t.lang, name)
    for index, (kind, item) in enumerate(filled.placed):
        text = text.replace(filled.marker(index), "\n" + _block(ctx, fmt, kind, item, float))
    own = token(filled.text)
    for index, placed in enumerate(ctx.pictures.get(str(filled.path), [])):
        text = text.replace(image_marker(index, own), "\n" + _picture(placed, float))
    return text + "\n"


def _preliminary(ctx: ReportContext, fmt: Formatter, chapter: Chapter) -> list[str]:
    lang, report = fmt.t.lang, ctx.report
    notes = [n[lang] for n in (report.sponsor, report.reconstructed) if n and n[lang]]
    return [T.heading(fmt.t("section.preliminary")), *map(T.paragraph, notes)] if notes else []


def _texted(ctx: ReportContext, fmt: Formatter, chapter: Chapter) -> list[str]:
    """A chapter that is its text (introduction, summary, conclusion, one of the
    author's own): left out without one."""
    text = _narrative(ctx, fmt, chapter.text)
    if not text.strip():
        return []
    title = chapter.title[fmt.t.lang] if chapter.title else fmt.t(f"section.{chapter.key}")
    return [T.heading(title), text]


def _author(ctx: ReportContext, fmt: Formatter, chapter: Chapter) -> list[str]:
    """The closing block: the author, the organisation and the contact lines, then the
    text about them (author.md); left out when there is neither."""
    report, text = ctx.report, _narrative(ctx, fmt, chapter.text)
    if not (report.contact or text.strip()):
        return []
    lines = [report.author, report.organisation, *report.contact]
    block = T.contact([line for line in lines if line])
    return [T.heading(fmt.t("section.author"), numbered=False), block, text]


def _setup(ctx: ReportContext, fmt: Formatter, chapter: Chapter) -> list[str]:
    lang, report = fmt.t.lang, ctx.report
    parts = [
        T.heading(fmt.t("section.setup")),
        _narrative(ctx, fmt, chapter.text),
        T.heading(fmt.t("section.system"), 2),
        T.paragraph(report.system.name),
    ]
    parts.append(T.bullets(d[lang] for d in report.system.description))
    if report.hosts:
        parts.append(T.heading(fmt.t("section.hosts"), 2))
        parts.append(T.bullets(host_lines(ctx, fmt)))
    return parts


def host_lines(ctx: ReportContext, fmt: Formatter) -> list[str]:
    """The test servers as report.toml describes them (with the names the tools gave
    them), then those of the data it does not describe."""
    lines = [_host_line(h, fmt.t.lang, fmt) for h in ctx.report.hosts]
    return lines + [fmt.t("setup.undescribed_host", name=n) for n in _undescribed(ctx)]


def _undescribed(ctx: ReportContext) -> list[str]:
    """The hosts of the data that report.toml's [[hosts]] neither names nor lists among
    their raw names (pbench's perf84 beside a described perf36: the method said "on 2
    servers", the list named one). A host entry may name several ("vm1, vm2, vm3")."""
    names = (n for h in ctx.report.hosts for n in (h.name, *h.name.split(","), *h.raw))
    known = {n.strip() for n in names}
    found = ctx.dataset.intervals["host"].unique().sort().to_list()
    return [str(n) for n in found if n is not None and n not in known]


def _host_line(host: Host, lang: str, fmt: Formatter) -> str:
    """ "name: description", and the names the tools gave the host where it had others."""
    line = f"{host.name}: {host.description[lang]}".rstrip(": ")
    if host.raw:
        line += " " + fmt.t("setup.raw_hosts", names=", ".join(host.raw))
    return line


def method_sentences(ctx: ReportContext, fmt: Formatter) -> list[str]:
    """The generated part of the method section, from the data itself (and the setups'
    descriptions, which a campaign's plan fills: engine, direct I/O, warm-up)."""
    points = ctx.dataset.points
    mixes = sorted(points["read_pct"].unique().to_list(), reverse=True)
    charts = _chart_sentences(ctx, fmt, mixes)
    hosts = _hosts_sentences(points, fmt)
    units = fmt.t(words_key(f"method.units_{fmt.units}", has_latency(points)))
    profiles = _profiles_sentences(ctx, fmt)
    said = [*_setup_sentences(ctx, fmt), *profiles, *_depth_sentences(points, fmt)]
    said += data_sentences(points, fmt) + rate_sentences(points, fmt)
    return [*said, *_repeats_sentences(ctx, fmt), *hosts, *charts, units]


def _profiles_sentences(ctx: ReportContext, fmt: Formatter) -> list[str]:
    """What was measured (mixes, block sizes), in how many intervals, at which levels:
    one sentence where every setup measured the same; else what each measured ("Array B:
    we measured 4K random at …"), as a report of one setup said of two the matrix of the
    first."""
    points = ctx.dataset.points
    intervals = _intervals_sentence(ctx.dataset.intervals, fmt)
    said = {
        str(setup): _measured(points.filter(pl.col("setup") == setup), fmt)
        for setup in points["setup"].unique().sort().to_list()
    } or {"": _measured(points, fmt)}
    if len(set(said.values())) == 1:
        measured, levels = next(iter(said.values()))
        return [fmt.t("method.profiles", measured=measured, intervals=intervals, levels=levels)]
    each = {setup: f"{measured} {levels}" for setup, (measured, levels) in said.items()}
    return [*_per_setup(each, fmt), intervals]


def _measured(points: pl.DataFrame, fmt: Formatter) -> tuple[str, str]:
    """What ``points`` measured, and the levels sentence: its mixes for its block sizes,
    or, where its block sizes were measured at other mixes, each block size's."""
    by_block = (
        points.group_by("access", "block_size")
        .agg(pl.col("read_pct").unique().sort(descending=True))
        .sort("access", "block_size")
    )
    levels = sorted(points["parallelism"].unique().to_list())
    listed = ", ".join(fmt.integer(p) for p in levels)
    key = "method.levels_summed" if hosts_summed(points) else "method.levels"
    said_levels = fmt.t.count(key, len(levels), levels=listed)
    rows = by_block.rows()
    if len({tuple(m) for _, _, m in rows}) <= 1:
        mixes = rows[0][2] if rows else []
        named = ", ".join(f"{fmt.block(b)} {fmt.t.access(a, True)}" for a, b, _ in rows)
        measured = fmt.t(
            "method.measured",
            mixes=", ".join(fmt.t.mix(m, True) for m in mixes),
            blocks=fmt.t.count("method.blocks", len(rows), blocks=named),
        )
        return measured, said_levels
    parts = [
        fmt.t(
            "method.block_mixes",
            block=f"{fmt.block(b)} {fmt.t.access(a, True)}",
            mixes=fmt.listing([fmt.t.mix(m, True) for m in mixes]),
        )
        for a, b, mixes in rows
    ]
    return fmt.t("method.measured_by_block", profiles="; ".join(parts)), said_levels


def _setup_sentences(ctx: ReportContext, fmt: Formatter) -> list[str]:
    """What each setup is (report.toml ``[[setups]]`` description; a campaign's names the
    engine, direct or buffered I/O, queue depths, levels, intervals and warm-up): for one
    setup too, where nothing else prints it."""
    lang, setups = fmt.t.lang, ctx.report.setups
    measured = set(ctx.dataset.points["setup"].unique().to_list())
    told = {s.name: s.description[lang].rstrip(". ") for s in setups if s.name in measured}
    told = {name: text for name, text in told.items() if text}
    if len(setups) == 1:
        return [fmt.t("method.setup", text=text) for text in told.values()]
    return [fmt.t("method.setup_named", name=name, text=text) for name, text in told.items()]


def _intervals_sentence(intervals: pl.DataFrame, fmt: Formatter) -> str:
    """How many full intervals of how many seconds a point was measured in. By the rule
    of the spread (normalise.full_round), an interval shorter than half of its point's
    median is fio's remainder after its last status snapshot: named, not counted. The
    length is the point's measured time over its full intervals (fio's first snapshot
    comes a little early: 0.88 s + 0.12 s remainder are one interval of 1 s); where the
    points' lengths differ (DiskSpd runs of 10 s and 900 s), their range; where their
    counts differ, that range too; per setup where the setups differ (fio's JSON, one
    interval, beside IOgen's three)."""
    key = [*POINT_KEY, "interval"]
    rounds = intervals.group_by(key).agg(pl.col("interval_s").max())  # "tool" in the key
    rounds = rounds.with_columns(full_round(list(POINT_KEY)).alias("full"))
    per_point = rounds.group_by(POINT_KEY).agg(
        pl.col("full").sum().alias("n"), pl.col("interval_s").sum().alias("seconds")
    )
    per_point = per_point.filter(pl.col("n") > 0).with_columns(
        (pl.col("seconds") / pl.col("n")).alias("each")
    )
    by_setup = per_point.group_by("setup", maintain_order=True).agg(
        pl.col("n").min().alias("low"),
        pl.col("n").max(),
        pl.col("each").min().alias("short"),
        pl.col("each").max().alias("long"),
    )
    said = {s: _intervals_said(row, fmt) for s, *row in by_setup.sort("setup").rows()}
    tails = rounds.filter(~pl.col("full") & (pl.col("tool") == "fio"))
    tail = " " + fmt.t("method.remainder") if tails.height else ""
    if not said:
        return _intervals_said([0, 0, 0.0, 0.0], fmt) + tail
    return " ".join(_per_setup(said, fmt)) + tail


def _per_setup(said: dict[str, str], fmt: Formatter) -> list[str]:
    """One sentence where every setup's is the same; else one per sentence, naming its
    setups ("One FC link and two FC links: …")."""
    alike: dict[str, list[str]] = {}
    for name, text in said.items():
        alike.setdefault(text, []).append(name)
    if len(alike) == 1:
        return list(alike)
    return [
        fmt.t("method.for_setup", setup=_setups_named(names, fmt), text=text)
        for text, names in alike.items()
    ]


def _setups_named(names: list[str], fmt: Formatter) -> str:
    """The setups as a sentence begins with them: a description's first word capitalised
    where it is a plain lower-case word ("one FC link" -> "One FC link", "a link" -> "A
    link"; "iSCSI" stays, and so does a device's name: "nvme8n1 rw", "scratch0 file");
    a setup's name, an identifier, as written."""
    listed = fmt.listing([fmt.setup(n) for n in names])
    described = fmt.setup(names[0]) != names[0]
    first = listed.split(" ", 1)[0]
    if described and first.isalpha() and first.islower():
        return listed[0].upper() + listed[1:]
    return listed


def _intervals_said(row: list[Any], fmt: Formatter) -> str:
    """One setup's intervals: (fewest, most, shortest, longest) per point."""
    low, n, short, long = row
    seconds = _seconds(short, long, fmt)
    if low != n:
        return fmt.t(
            "method.intervals_range", low=fmt.integer(low), n=fmt.integer(n), seconds=seconds
        )
    return fmt.t.count("method.intervals", n, n=fmt.integer(n), seconds=seconds)


REACHED = 0.95  # a capped point within 5 % of its target reached it (fio and vdbench
# keep to about 1 % of theirs)


def rate_sentences(points: pl.DataFrame, fmt: Formatter) -> list[str]:
    """The target rates a rate-limited run was held to (fio ``rate_iops``, vdbench
    ``iorate``): a point that reached its cap shows the cap, not what the system can do;
    one that fell short of it shows what the system did (vdbench's 500 and 5,000 IOPS
    targets ran 212 and 310: the system's limit), and the text says which."""
    capped = points.filter(pl.col("target_iops").is_not_null())
    if capped.is_empty():
        return []
    rates = _listed(capped, fmt)
    short = capped.filter(pl.col("iops") < REACHED * pl.col("target_iops"))
    if short.is_empty():
        return [fmt.t.count("method.rates", len(rates[1]), rates=rates[0])]
    held = fmt.t.count("method.rates_held", len(rates[1]), rates=rates[0])
    if short.height == capped.height:
        return [f"{held} {fmt.t('method.rates_none_reached')}"]
    n, missed = short.height, _missed(short, capped, fmt)
    said = fmt.t.count("method.rates_short", n, n=n, of=capped.height, rates=missed)
    return [f"{held} {said}"]


def _missed(short: pl.DataFrame, capped: pl.DataFrame, fmt: Formatter) -> str:
    """The targets the short points missed; of each profile where the rate points are of
    several ("15,000, 20,000" read as missed by all, though 4K writes reached them)."""
    key = ["setup", "access", "block_size", "read_pct"]
    if not set(key) <= set(capped.columns) or capped.select(key).unique().height == 1:
        return _listed(short, fmt)[0]
    several = capped["setup"].n_unique() > 1
    parts = []
    for (setup, access, block, mix), group in short.sort(key).group_by(key, maintain_order=True):
        named = f"{fmt.block(int(block))} {fmt.t.access(str(access))} {fmt.t.mix(float(mix), True)}"
        named = f"{fmt.setup(str(setup))}: {named}" if several else named
        parts.append(f"{named} {_listed(group, fmt)[0]}")
    return "; ".join(parts)


def _listed(points: pl.DataFrame, fmt: Formatter) -> tuple[str, list[float]]:
    """The points' distinct target rates, in order, and as a text."""
    rates = points["target_iops"].unique().sort().to_list()
    return ", ".join(fmt.integer(r) for r in rates), rates


def _seconds(low: float, high: float, fmt: Formatter) -> str:
    """A length of intervals, or the range of them where points differ by more than 10 %:
    within 10 %, the shortest (fio's runs of 1 s measure 1.001–1.074 s: "1.1 s" beside
    another setup's "1 s" read as a longer interval)."""

    def shown(value: float) -> str:
        length = round(value, 1)
        return fmt.integer(length) if length.is_integer() else fmt.number(length, 1)

    return shown(low) if high <= low * 1.1 else f"{shown(low)}–{shown(high)}"


def _depth_sentences(points: pl.DataFrame, fmt: Formatter) -> list[str]:
    """The queue depths, with the parallelism levels of each where they differ (seed 002:
    QD 1…32 at one worker, the workers rising at QD 4); one sentence per setup where the
    setups differ."""
    said = {}
    for (setup,), rows in points.group_by("setup", maintain_order=True):
        pairs = rows.select("queue_depth", "parallelism").unique().drop_nulls()
        by_depth = pairs.group_by("queue_depth").agg(pl.col("parallelism").unique().sort())
        groups: dict[tuple[int, ...], list[int]] = {}
        for depth, levels in by_depth.sort("queue_depth").iter_rows():
            groups.setdefault(tuple(levels), []).append(depth)
        if groups:
            said[setup] = _depths(groups, fmt) + _depth_profiles(rows, fmt)
    return _per_setup(said, fmt) if said else []


def _depth_profiles(points: pl.DataFrame, fmt: Formatter) -> str:
    """Where the queue depths measured other profiles, which each measured: the depths
    and the profiles said apart read as every profile at every depth (PerfKitBenchmarker:
    512K only at QD 64, 4K writes only at QD 1)."""
    keys = ["access", "block_size", "read_pct"]
    by_depth = {
        depth: sorted(rows.select(keys).unique().rows())
        for (depth,), rows in points.drop_nulls("queue_depth").group_by("queue_depth")
    }
    if len({tuple(p) for p in by_depth.values()}) <= 1:
        return ""
    parts = [
        fmt.t(
            "method.depth_profile",
            depth=fmt.integer(depth),
            profiles=", ".join(
                f"{fmt.block(b)} {fmt.t.access(a, True)} {fmt.t.mix(m, True)}" for a, b, m in found
            ),
        )
        for depth, found in sorted(by_depth.items())
    ]
    return " " + fmt.t("method.depth_profiles", list="; ".join(parts))


def _depths(groups: dict[tuple[int, ...], list[int]], fmt: Formatter) -> str:
    def listed(values: list[int] | tuple[int, ...]) -> str:
        return ", ".join(fmt.integer(v) for v in values)

    n = sum(len(depths) for depths in groups.values())
    if len(groups) == 1:
        text = listed(next(iter(groups.values())))
        text = fmt.t("method.depths_each", depths=text) if n > 1 else text
    else:
        parts = [
            fmt.t("method.depths_at", depths=listed(d), levels=listed(lv))
            for lv, d in groups.items()
        ]
        text = "; ".join(parts)
    return fmt.t.count("method.depths", n, depths=text)


def _repeats_sentences(ctx: ReportContext, fmt: Formatter) -> list[str]:
    """Which rule (report.toml ``repeats``) chose among the runs of a point measured in
    several, and by what the newest is known."""
    found = ctx.dataset.repeats
    if not found:
        return []
    timed = {r.by_time for r in found}
    order = "time" if timed == {True} else "listing" if timed == {False} else "both"
    n = len({tuple(r.point.values()) for r in found})
    rule = words_key(f"method.repeats_{ctx.report.repeats}", has_latency(ctx.dataset.points))
    return [fmt.t.count(rule, n, n=fmt.integer(n), order=fmt.t(f"method.repeat_by_{order}"))]


def _hosts_sentences(points: pl.DataFrame, fmt: Formatter) -> list[str]:
    """On how many servers the load ran: one sentence, or one per setup where they differ
    (an NVMe setup on one host beside a file setup on two); a range where a setup's points
    ran on different numbers (Iometer's sweeps on one of two servers)."""
    by_setup = (
        points.group_by("setup", maintain_order=True)
        .agg(pl.col("hosts").min().alias("low"), pl.col("hosts").max())
        .rows()
    )
    timed = has_latency(points)
    said = {s: hosts_sentence(low, n, timed, fmt) for s, low, n in by_setup}
    for (setup,), rows in points.group_by("setup"):
        if hosts_summed(rows):  # one row of vdbench's is every host's: not "one server"
            tools = ", ".join(sorted(rows["tool"].unique().to_list()))
            said[setup] = fmt.t(words_key("method.hosts_summed", timed), tool=tools)
    return _per_setup(said, fmt)


def hosts_sentence(low: int, n: int, timed: bool, fmt: Formatter) -> str:
    if low != n:
        return fmt.t(words_key("method.hosts_range", timed), low=fmt.integer(low), n=fmt.integer(n))
    return fmt.t.count(words_key("method.hosts", timed), n, n=fmt.integer(n))


def _chart_sentences(ctx: ReportContext, fmt: Formatter, mixes: list[float]) -> list[str]:
    """How to read the charts this report shows (and only those), and their colours."""
    kinds = list(dict.fromkeys(ref.kind for ref in ctx.charts))
    keys = {k: chart_registry.BY_NAME[k].method or f"method.chart_{k}" for k in kinds}
    timed = {k: any(r.timed for r in ctx.charts if r.kind == k) for k in kinds}
    keys = {k: words_key(key, timed[k]) for k, key in keys.items()}
    found = [fmt.t(keys[kind], unit=axis_symbol(kind, fmt)) for kind in kinds]
    setups = ctx.dataset.points["setup"].n_unique()
    meant = {chart_registry.colours_of(chart_registry.BY_NAME[k], setups) for k in kinds}
    said = [_mix_colours(ctx, fmt, mixes)] if "mix" in meant else []
    said += [fmt.t("method.colour_setups")] if "setup" in meant else []
    if said:  # a document with both says what each colour stands for
        found.append(fmt.t("method.colours", list="; ".join(said)))
    if "percentiles" in kinds and _percentiles_combined(ctx.dataset.intervals):
        found.append(fmt.t("method.percentiles_hosts"))  # fio's maps do not add up
    if any(ref.clat for ref in ctx.charts):
        found.append(fmt.t("method.percentiles_clat"))  # below the mean they may lie
    return found


def _percentiles_combined(intervals: pl.DataFrame) -> bool:
    """Whether a point with percentiles combines several records in one interval (several
    servers, or fio's jobs reported one by one without group_reporting): its percentiles
    are then the largest of theirs, an upper bound."""
    timed = intervals.filter(pl.col("lat_p99_us").is_not_null())
    most = timed.group_by([*POINT_KEY, "interval"]).len()["len"].max()
    return isinstance(most, int) and most > 1


def _mix_colours(ctx: ReportContext, fmt: Formatter, mixes: list[float]) -> str:
    """The mixes' colours: the house ones named, the others as in the legend."""
    look = ctx.charts[0].palette
    house = [m for m in mixes if m in (100, 70, 0) and look.mix(m) == theme().mix_colour(m, 0)]
    named = [fmt.t(f"method.colour_{m:g}") for m in house]
    rest = any(m not in house for m in mixes)
    other = [fmt.t("method.colour_other" if named else "method.colour_legend")] if rest else []
    return ", ".join(named + other)


def _method(ctx: ReportContext, fmt: Formatter, chapter: Chapter) -> list[str]:
    parts = [
        T.heading(fmt.t("section.method")),
        _narrative(ctx, fmt, chapter.text),
        T.heading(fmt.t("section.profiles"), 2),
    ]
    return parts + [T.paragraph(s) for s in method_sentences(ctx, fmt)]


def _results(ctx: ReportContext, fmt: Formatter, chapter: Chapter) -> list[str]:
    """One subsection per access and block size with its charts, in the plan's order;
    left out when it has neither text nor a chart."""
    skip = ctx.placed(fmt.t.lang)
    text = _narrative(ctx, fmt, chapter.text)
    charts = [r for r in ctx.charts if r.stem not in skip]
    note = left_out_note(ctx.left_out(), fmt)
    if not (charts or text.strip() or note):
        return []
    parts = [T.heading(fmt.t("section.results")), text]
    current: tuple[str, int | None] | None = None
    for ref in charts:
        if ref.access and (ref.access, ref.block_size) != current:
            current = (ref.access, ref.block_size)
            parts.append(T.heading(_profile_heading(ref.access, ref.block_size, fmt), 2))
        parts.append(_figure(ctx, fmt, ref.stem))
    return parts + ([T.paragraph(note)] if note else [])


def _profile_heading(access: str, block_size: int | None, fmt: Formatter) -> str:
    """ "8K random"; the access alone for charts over every block size."""
    if block_size is None:
        return fmt.t.access(access, start=True)
    return f"{fmt.block(block_size)} {fmt.t.access(access, True)}"


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
    said: list[str] = []
    for view in views:  # each table's note below it ("Values in bold" under its table)
        parts.append(T.table(view))
        # a note said already, or as part of one (the key figures' optimum sentence is
        # the first of the performance table's), is not said again
        if view.note and not any(view.note in done for done in said):
            parts.append(T.paragraph(view.note))
            said.append(view.note)
    if section == "cost" and ctx.report.cost_note:
        parts.append(T.paragraph(ctx.report.cost_note[fmt.t.lang]))
    if section == "cost" and COST_CHART not in ctx.placed(fmt.t.lang):
        chapter = next((k for k, held in TABLE_SECTIONS.items() if section in held), "")
        float = _may_float(ctx, fmt.t.lang, None, chapter)
        parts.append(_figure(ctx, fmt, COST_CHART, float=float))
    return parts


def _by_section(ctx: ReportContext, lang: str) -> dict[Section, list[str]]:
    """Every shown table not placed by the narrative, by section in the registry's order."""
    skip = ctx.placed(lang)
    by_section: dict[Section, list[str]] = {}
    for table in registry.TABLES:
        if table.name in ctx.shown and table.name not in skip:
            by_section.setdefault(table.section, []).append(table.name)
    return by_section


def _tables(ctx: ReportContext, fmt: Formatter, chapter: Chapter) -> list[str]:
    """A chapter of tables (its sections that have any), left out without one."""
    sections = _by_section(ctx, fmt.t.lang)
    found = [(s, sections[s]) for s in TABLE_SECTIONS[chapter.key] if s in sections]
    note = ctx.empty_note(fmt, TABLE_SECTIONS[chapter.key])
    said = [T.paragraph(note)] if note else []
    if not found:  # its text alone (economics.md without cost records)
        heading = [T.heading(fmt.t(f"section.{chapter.key}"))] if said else []
        return (_texted(ctx, fmt, chapter) or heading) + said
    return [p for section, names in found for p in _section(ctx, fmt, section, names)] + said


Part = Callable[[ReportContext, Formatter, Chapter], list[str]]
PARTS: dict[str, Part] = {
    "preliminary": _preliminary,
    "setup": _setup,
    "method": _method,
    "results": _results,
    "author": _author,
    **dict.fromkeys(TABLE_SECTIONS, _tables),
}


def _placed(ctx: ReportContext, lang: str, text: str | None) -> list[tuple[str, str]]:
    """The figures, tables and images a text places, in its order."""
    filled = ctx.filled[lang].get(text or "")
    if filled is None:
        return []
    kinds = {
        filled.marker(i): ("table" if k == "table" else "figure", n)
        for i, (k, n) in enumerate(filled.placed)
        if (k, n) not in {("table", e) for e in ctx.empty}  # a sentence, not numbered
    }
    own = token(filled.text)
    kinds |= {
        image_marker(i, own): ("image", picture_key(filled, i))
        for i in range(len(ctx.pictures.get(str(filled.path), [])))
    }
    return [kinds[m] for m in markers(filled.text, filled.path, filled.token) if m in kinds]


def picture_key(filled: Filled, index: int) -> str:
    """The name ``numbers`` gives the ``index``-th image a text places: one per placement,
    as typst numbers each figure (the same file placed twice is two figures)."""
    return f"{filled.path}#{index}"


def _chapter_order(ctx: ReportContext, lang: str, chapter: Chapter) -> list[tuple[str, str]]:
    """What a chapter numbers, in its order (as ``body`` places them)."""
    order = _placed(ctx, lang, chapter.text)
    if chapter.key == "results":
        skip = ctx.placed(lang)
        order += [("figure", r.stem) for r in ctx.charts if r.stem not in skip]
    if chapter.key in TABLE_SECTIONS:
        by_section = _by_section(ctx, lang)
        for section in TABLE_SECTIONS[chapter.key]:
            order += [("table", name) for name in by_section.get(section, [])]
            if section == "cost" and "cost" in by_section and COST_CHART not in ctx.placed(lang):
                order.append(("figure", COST_CHART))
    return order


def numbers(ctx: ReportContext, lang: str) -> dict[tuple[str, str], int]:
    """The number the PDF gives each figure and table (the site shows the same); images
    are figures, each placement one (typst counts every figure)."""
    found: dict[tuple[str, str], int] = {}
    counts = {"figure": 0, "table": 0}
    for chapter in chapters.declared(ctx.report):
        for kind, name in _chapter_order(ctx, lang, chapter):
            counter = "table" if kind == "table" else "figure"
            counts[counter] += 1
            found.setdefault((kind, name), counts[counter])
    return found


def body(ctx: ReportContext, lang: str) -> str:
    fmt = ctx.formatter(lang)
    parts = [
        p
        for chapter in chapters.declared(ctx.report)
        for p in PARTS.get(chapter.key, _texted)(ctx, fmt, chapter)
    ]
    parts += appendix(ctx, fmt)
    return T.document(T.Meta.of(ctx.report, fmt), parts)
