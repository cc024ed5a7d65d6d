"""The one-page datasheet per system: the same key figures in the same layout for every
system, so that datasheets of different systems compare side by side."""

from __future__ import annotations

import shutil
from dataclasses import dataclass
from pathlib import Path

from pipeline.config import LANGS
from pipeline.language.fmt import Formatter
from pipeline.render import typst_doc as T
from pipeline.render.whitepaper import rate_sentences
from pipeline.report import datasheet_view as D
from pipeline.report.context import ReportContext
from pipeline.report.datasheet_view import Profile, Sheet
from pipeline.report.plan import ChartRef, figures
from pipeline.report.views import Row, bandwidth, held, latency, rate, shown_kinds
from pipeline.units import KIOPS

TEMPLATE = "datasheet.typ"


@dataclass(frozen=True)
class Item:
    label: str
    value: str
    note: str = ""


def _profile(profile: Profile, fmt: Formatter) -> str:
    """The profile as the whitepaper's tables name it: a named workload mix by its name
    (report.toml ``[[profiles]]``), else its block size, access and mix."""
    named = fmt.profile(profile.access, profile.block, profile.read_pct)
    if named:
        return named
    return fmt.t(
        "datasheet.lat_item",
        block=fmt.block(profile.block),
        access=fmt.t.access(profile.access),
        mix=fmt.t.mix(profile.read_pct, True),
    )


def _of(row: Row) -> Profile:
    return Profile(row["access"], row["block_size"], row["read_pct"])


def latency_items(sheet: Sheet, fmt: Formatter) -> list[Item]:
    none = fmt.t("table.none")
    return [
        Item(_profile(p, fmt), latency(fmt, "min_latency", row["lat_mean_us"]) if row else none)
        for p, row in sheet.latency
    ]


def _parallelism(row: Row, fmt: Formatter) -> str:
    """ "2 processes", and the target rate a point was held to: "2 processes, target 5,000
    IOPS" (the note under "Max. IOPS" named no target of a point that fell short of it)."""
    n = int(row["parallelism"])
    return held(fmt, row, fmt.t.count("table.parallelism", n, n=fmt.integer(n)))


def performance_items(sheet: Sheet, fmt: Formatter) -> list[Item]:
    none, best, seq = fmt.t("table.none"), sheet.best_iops, sheet.best_bandwidth
    iops = fmt.integer(best["iops"]) if best else none
    value = bandwidth(fmt, sheet.units, seq["bytes_per_s"], with_unit=True) if seq else none
    return [
        # of random access, and of sequential: "Max. IOPS" alone read as the highest of all
        # (a sweep's 256K reads reached more IOPS than its random maximum)
        Item(_best("max_iops", "random", fmt), iops, _note(best, fmt, sheet.units)),
        Item(_best("max_bandwidth", "sequential", fmt), value, _note(seq, fmt, sheet.units)),
    ]


def _best(key: str, access: str, fmt: Formatter) -> str:
    return fmt.t(f"datasheet.{key}", access=fmt.t.access(access, long=True))


def _note(row: Row | None, fmt: Formatter, table: str) -> str:
    if row is None:
        return ""
    said = fmt.t(
        "datasheet.profile_note",
        profile=_profile(_of(row), fmt),
        parallelism=_parallelism(row, fmt),
    )
    if row["lat_mean_us"] is None:  # the tool printed no latency (CrystalDiskMark 3 to 6)
        return said
    return f"{said}, {latency(fmt, table, row['lat_mean_us'])}"


def limit_items(sheet: Sheet, fmt: Formatter) -> list[Item]:
    items = []
    for p, row in sheet.limits:
        # a figure and its unit on one line ("≤ 1,000" then "µs" alone on the next, before)
        limit = latency(fmt, "iops_at_latency", row["limit_us"], "limit_us").replace(" ", "\u00a0")
        label = fmt.t("datasheet.under", profile=_profile(p, fmt), limit=limit)
        iops = row["iops"]
        value = rate(fmt, iops) if iops is not None else fmt.t("table.none")
        if iops is not None and row["measured"] is False:  # as the whitepaper's cell
            value = fmt.t("table.about", value=value)
        items.append(Item(label, value))
    return items


def footprint_items(sheet: Sheet, fmt: Formatter) -> list[Item]:
    row = sheet.footprint
    if row is None:
        return []
    w = fmt.t("unit.w")
    return [
        Item(fmt.t("datasheet.space"), f"{row['rack_units']}{fmt.t('unit.u')}"),
        Item(fmt.t("datasheet.power"), f"{fmt.amount(row['power_w'])} {w}"),
        Item(
            fmt.t("datasheet.w_per_kiops", n=fmt.integer(KIOPS)),
            f"{fmt.derived(row['w_per_kiops'])} {w}",
        ),
    ]


def spc1_items(sheet: Sheet, fmt: Formatter) -> list[Item]:
    if sheet.spc1 is None:
        return []
    record = sheet.spc1.record
    return [
        Item(
            fmt.t("datasheet.spc1_iops"),
            fmt.integer(record.spc1_iops),
            f"{record.submission}, {latency(fmt, 'spc1', sheet.spc1.lat_us)}",
        ),
        Item(fmt.t("datasheet.spc1_price"), fmt.money(record.price, record.currency)),
        Item(
            fmt.t("datasheet.spc1_price_kiops", n=fmt.integer(KIOPS)),
            f"{fmt.derived(sheet.spc1.price_per_kiops)} {record.currency}",
        ),
    ]


def _figure(row: Row, fmt: Formatter, table: str) -> str:
    """A point's rate (IOPS, or bandwidth for sequential tests) and latency, with its
    parallelism, as the key-figures table prints them."""
    if row["access"] == "sequential":
        shown = bandwidth(fmt, table, row["bytes_per_s"], with_unit=True)
    else:
        shown = rate(fmt, row["iops"])
    # a point held to a rate names it: its figure is the target's (or short of it)
    parallelism = held(fmt, row, fmt.integer(row["parallelism"]))
    lat = row["lat_mean_us"]
    if lat is None:  # a tool that prints no latency: the rate alone
        return fmt.t("datasheet.figure_rate", rate=shown, parallelism=parallelism)
    return fmt.t(
        "datasheet.figure", rate=shown, latency=latency(fmt, table, lat), parallelism=parallelism
    )


def _kinds(sheet: Sheet) -> list[str]:
    """The kinds of figure the key-figures table has a column for."""
    return shown_kinds([cell.keys() for _, cell in sheet.key_figures])


def _key_figures(sheet: Sheet, fmt: Formatter) -> list[list[str]]:
    none, shown = fmt.t("table.none"), _kinds(sheet)
    return [
        [_profile(p, fmt), *(_figure(c[k], fmt, sheet.units) if k in c else none for k in shown)]
        for p, c in sheet.key_figures
    ]


def key_figures(ctx: ReportContext, fmt: Formatter) -> list[list[str]]:
    """Rows of the key-figures table: profile, then speed, optimum and maximum."""
    return _key_figures(D.sheet(ctx), fmt)


def chart(ctx: ReportContext) -> ChartRef | None:
    """The datasheet's chart (``report.datasheet_view.chart``)."""
    return D.chart(ctx)


def _typst_table(sheet: Sheet, fmt: Formatter) -> str:
    header = [fmt.t("datasheet.profile"), *(fmt.t(f"datasheet.{k}") for k in _kinds(sheet))]
    rows = [header, *_key_figures(sheet, fmt)]
    cells = ", ".join("(" + ", ".join(T.lit(c) for c in row) + ",)" for row in rows)
    return f"(title: {T.lit(_title('key_figures', sheet, fmt))}, rows: ({cells},))"


def _groups(sheet: Sheet, fmt: Formatter) -> list[tuple[str, list[Item]]]:
    found = [
        ("latency", latency_items(sheet, fmt)),
        ("performance", performance_items(sheet, fmt)),
        ("limit", limit_items(sheet, fmt)),
        ("footprint", footprint_items(sheet, fmt)),
        ("spc1", spc1_items(sheet, fmt)),
    ]
    return [(_title(key, sheet, fmt), items) for key, items in found if items]


AT_DEPTH = ("latency", "performance", "limit", "key_figures")  # the points' figures


def _title(key: str, sheet: Sheet, fmt: Formatter) -> str:
    """A tile's title; with the queue depth where the page shows one of several (the
    minimum latency and the maximum at QD 64 are not the system's at every depth); with
    the system a stated record is of where it is not the page's (FS 900's power and
    SPC-1 result on the FS 840's page read as the FS 840's)."""
    title = fmt.t(f"datasheet.{key}")
    other = _other_system(key, sheet)
    if other:
        return fmt.t("datasheet.of_system", title=title, system=other)
    if sheet.depth is None or key not in AT_DEPTH:
        return title
    return fmt.t("datasheet.at_depth", title=title, qd=fmt.integer(sheet.depth))


def _other_system(key: str, sheet: Sheet) -> str:
    """The system of the footprint or SPC-1 tile where it is not the page's."""
    if key == "footprint" and sheet.footprint is not None:
        named = str(sheet.footprint["system"])
    elif key == "spc1" and sheet.spc1 is not None:
        named = sheet.spc1.record.short_name
    else:
        return ""
    return named if named and named != sheet.system else ""


def groups(ctx: ReportContext, fmt: Formatter) -> list[tuple[str, list[Item]]]:
    """The datasheet's tiles: each group's title and its items."""
    return _groups(D.sheet(ctx), fmt)


def _typst_groups(sheet: Sheet, fmt: Formatter) -> str:
    out = []
    for title, items in _groups(sheet, fmt):
        entries = ", ".join(
            f"(label: {T.lit(i.label)}, value: {T.lit(i.value)}, note: {T.lit(i.note)})"
            for i in items
        )
        out.append(f"(title: {T.lit(title)}, items: ({entries},))")
    return "(" + ", ".join(out) + ",)"


def _notice(ctx: ReportContext, sheet: Sheet, fmt: Formatter) -> str:
    """The setup and queue depth the page shows, where there is a choice; on how many
    servers the load ran, where on several (the parallelism is per server); reconstructed."""
    notice = ""
    if len(ctx.report.setups) > 1:
        notice = fmt.t("datasheet.setup_note", setup=fmt.setup(sheet.setup))
    shown = sheet.depth if sheet.depth is not None else sheet.sole_depth
    if shown is not None:  # also where the setup ran at one depth (pbench's QD 32)
        notice = f"{notice} {_depth_note(sheet, shown, fmt)}".strip()
    low, most = sheet.hosts
    if most > 1:  # "16 processes" would read as all of them
        key = "datasheet.hosts_note" if low == most else "datasheet.hosts_note_range"
        said = fmt.t(key, low=fmt.integer(low), n=fmt.integer(most))
        notice = f"{notice} {said}".strip()
    # as the whitepaper's method: points held to a target rate show the target
    stated = [*rate_sentences(D.points(ctx), fmt), fmt.t(f"method.units_{fmt.units}_rate")]
    notice = " ".join([notice, *stated]).strip()
    if ctx.report.reconstructed:
        notice = f"{notice} {fmt.t('doc.reconstructed')}".strip()
    return notice


def _depth_note(sheet: Sheet, shown: int, fmt: Formatter) -> str:
    """The queue depth the page shows, and the setup's others (their figures, perhaps
    better ones, are in the whitepaper): "Queue depth 8 (also measured: 1; ...)"."""
    if not sheet.other_depths:
        return fmt.t("datasheet.depth_note", qd=fmt.integer(shown))
    others = ", ".join(fmt.integer(d) for d in sheet.other_depths)
    return fmt.t("datasheet.depth_note_others", qd=fmt.integer(shown), others=others)


def footer(sheet: Sheet, fmt: Formatter) -> str:
    """What the page's figures rest on: the measured ones computed from the raw data;
    space, power and SPC-1 figures as stated (report.toml, the SPC-1 catalogue)."""
    said = [fmt.t("datasheet.footer")]
    if sheet.footprint is not None:
        said.append(fmt.t("datasheet.footer_footprint"))
    if sheet.spc1 is not None:
        said.append(fmt.t("datasheet.footer_spc1", submission=sheet.spc1.record.submission))
    return " ".join(said)


def source(ctx: ReportContext, lang: str) -> str:
    """The datasheet as typst source."""
    fmt, sheet, r = ctx.formatter(lang), D.sheet(ctx), ctx.report
    meta = {
        "lang": lang,
        "title": r.title[lang],
        "author": r.author,
        "system": r.system.name,
        "kind": fmt.t("datasheet.kind"),
        "date": fmt.date(r.date),
        "classification": r.classification[lang],
        "sponsor": r.sponsor[lang] if r.sponsor else "",
        "footer": footer(sheet, fmt),
        "notice": _notice(ctx, sheet, fmt),
    }
    ref = sheet.chart
    meta["chart"] = f"charts/{ref.stem}.{lang}.svg" if ref else ""
    meta["chart_alt"] = figures(ctx.charts, "cost" in ctx.tables, fmt)[ref.stem][1] if ref else ""
    d = r.date
    items = [f"{k}: {T.lit(v)}" for k, v in meta.items()]
    items += [
        f"region: {T.lit(fmt.region) if fmt.region else 'none'}",
        f"doc-date: datetime(year: {d.year}, month: {d.month}, day: {d.day})",
        f"labels: (classification: {T.lit(fmt.t('doc.classification'))})",
    ]
    body = f"({', '.join(items)}), {_typst_groups(sheet, fmt)}, {_typst_table(sheet, fmt)}"
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
