"""The static site: mkdocs (material theme, static i18n) from generated Markdown pages.

A site holds one or more built reports: a landing page listing them, a page per report
and language, and — with several systems — a comparison page. Page names carry the
language as a suffix (``fs840.md``, ``fs840.de.md``); charts and downloads live in one
folder per report and use a hyphen (``fs840-de.pdf``) so the i18n plugin does not take
them for translations of each other. Pages are files and every link names one
(mkdocs.yml ``use_directory_urls: false``), so the site works from file:// and served
alike. Charts are drawn interactively by an offline vega-embed bundle from the Vega-Lite
spec inlined in the page (nothing fetched); where that cannot run, the SVG stays. Each
report has pages of details besides its main one: the test environment with the machine
descriptions, and every point's steady-state verdict.
"""

from __future__ import annotations

import datetime as dt
import functools
import gzip
import html
import json
import logging
import re
import shutil
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from importlib import metadata
from pathlib import Path
from typing import Any
from urllib.parse import quote

import polars as pl
import vl_convert as vlc
from markupsafe import Markup
from mkdocs.commands.build import build as mkdocs_build
from mkdocs.config import load_config
from mkdocs.exceptions import MkDocsException

from pipeline import cache
from pipeline.compute.registry import BY_NAME
from pipeline.compute.tables import most_load
from pipeline.config import LANGS, REPORT_FILE
from pipeline.errors import InputError
from pipeline.images import Placed
from pipeline.language.fmt import Formatter, small_latencies
from pipeline.language.strings import Strings
from pipeline.paths import INSTALLED, MKDOCS_CONFIG, TEMPLATES
from pipeline.render.appendix import (
    DEFINITIONS,
    data_basis,
    definitions,
    findings,
    machine_view,
    optimum_parts,
    steady_sentence,
)
from pipeline.render.sanitize import image_marker, to_html
from pipeline.render.whitepaper import host_lines, method_sentences, numbers, picture_key
from pipeline.report import chapters, chart_registry
from pipeline.report.context import ReportContext, table_latencies
from pipeline.report.narrative import Filled, md_text, token
from pipeline.report.plan import (
    COST_CHART,
    MAX_PTS_CHARTS,
    PTS_CHART,
    figures,
    has_latency,
    left_out_note,
)
from pipeline.report.views import Span, TableView, bandwidth, latency
from pipeline.units import block_stem
from pipeline.validate import point_name


def html_text(text: str) -> str:
    """Literal text in HTML (a report's text never becomes markup), without the two
    characters Python-Markdown marks its set-aside blocks with."""
    return html.escape(text, quote=False).translate(_STASH_MARKS)


_STASH_MARKS = str.maketrans({"\x02": "\ufffd", "\x03": "\ufffd"})


_SPAN_TAGS = {"optimum": ("<em>", "</em>"), "vendor": ('<strong class="iop-vendor">', "</strong>")}


def _html_span(span: Span) -> str:
    text = html_text(span.text)
    if span.style == "link":  # an http(s) address; what could end the link is encoded
        return f'<a href="{html.escape(quote(span.href, safe=URL_SAFE))}">{text}</a>'
    if span.style == "mono":
        return f"<code>{text}</code>"
    start, end = _SPAN_TAGS.get(span.style, ("", ""))
    return f"{start}{text}{end}"


def _html_row(tag: str, cells: Sequence[str], left: Sequence[bool]) -> str:
    opening = {True: f"<{tag}>", False: f'<{tag} style="text-align: right;">'}
    found = "".join(
        f"{opening[here]}{cell}</{tag}>\n" for cell, here in zip(cells, left, strict=True)
    )
    return f"<tr>\n{found}</tr>\n"


def html_table(view: TableView) -> str:
    """The table as a raw HTML block, as Python-Markdown's tables would make it: mkdocs
    passes it through untouched (no inline parsing of its hundreds of cells)."""
    left = view.left()
    head = _html_row("th", [html_text(h) for h in view.header], left)
    body = "".join(
        _html_row("td", ["<br>".join(_html_span(s) for s in row_cell) for row_cell in row], left)
        for row in view.rows
    )
    return f"<table>\n<thead>\n{head}</thead>\n<tbody>\n{body}</tbody>\n</table>\n"


def md_table(view: TableView, number: int | None, fmt: Formatter) -> str:
    """The table with its caption, numbered as in the PDF (``None``: not numbered)."""
    caption = view.caption if number is None else f"{fmt.t('doc.table')} {number} – {view.caption}"
    note = f"\n{md_text(view.note)}\n" if view.note else ""
    return html_table(view) + f"\n*{md_text(caption)}*\n{note}"


URL_SAFE = ":/?#@!$&'*+,;=%-._~"  # no brackets, parentheses, quotes or spaces
ASSETS = ("assets/vega-embed.js", "assets/iopress.js")
STYLESHEET = "assets/iopress.css"
# the site's own script and style (templates/site): charts drawn from the inlined specs,
# search hidden where it cannot work
SITE_ASSETS = TEMPLATES / "site"
BUNDLE_SNIPPET = "window.vegaEmbed = vegaEmbed; window.vega = vega; window.vegaLite = vegaLite;"


@dataclass(frozen=True)
class Built:
    """One report of a site: its context and the folder its build wrote."""

    ctx: ReportContext
    work: Path

    @property
    def rid(self) -> str:
        return self.ctx.report.id


@functools.cache
def _house_languages() -> tuple[Any, ...]:
    """The site languages mkdocs.yml lists (its i18n plugin's entries)."""
    return tuple(load_config(config_file=str(MKDOCS_CONFIG)).plugins["i18n"].config.languages)


def default_language(configured: Sequence[Any], langs: Sequence[str]) -> str:
    """The site's default language (its pages' names have no language suffix): the one
    mkdocs.yml marks ``default`` where it is one of the documents' ``langs``, else the
    first of them."""
    marked = [language.locale for language in configured if language.default]
    return next((lang for lang in marked if lang in langs), langs[0])


def suffix(lang: str) -> str:
    default = default_language(_house_languages(), LANGS)
    return "" if lang == default else f".{lang}"


def chart_md(path: str, alt: str, caption: str) -> str:
    """An SVG chart the page script upgrades to an interactive one, with a stand-in for
    its Vega-Lite spec (``inline_specs``)."""
    return (
        f'<div class="iop-chart" markdown="1">\n\n![{md_text(alt)}]({path})\n\n'
        f'{SPEC_OPEN}{path}"></script>\n\n</div>\n\n'
        f"*{md_text(caption)}*\n"
    )


# A chart's spec stand-in names its SVG; ``inline_specs`` puts the spec in. md_text escapes
# "<" in every text of a report, so no report text can make one.
SPEC_OPEN = '<script type="application/json" class="iop-spec" data-chart="'
_SPEC = re.compile(re.escape(SPEC_OPEN) + r'([\w./-]+)"></script>')


def script_json(spec_text: str) -> str:
    """A JSON text safe inside a <script> element: "<", ">" and "&" (only ever inside its
    strings) written as \\u escapes, so no value can end the element or open a comment."""
    text = json.dumps(json.loads(spec_text), ensure_ascii=False, separators=(",", ":"))
    for char in "<>&\u2028\u2029":
        text = text.replace(char, f"\\u{ord(char):04x}")
    return text


def inline_specs(page: str, specs: dict[str, Path]) -> str:
    """Each chart's spec stand-in replaced by its Vega-Lite spec (``specs``: the chart's
    path in the site -> its spec file)."""

    def spec(match: re.Match[str]) -> str:
        text = specs[match[1]].read_text(encoding="utf-8")
        return f'<script type="application/json" class="iop-spec">{script_json(text)}</script>'

    return _SPEC.sub(spec, page)


def _downloads(ctx: ReportContext, fmt: Formatter) -> str:
    """The report's files. A PDF is stored as ``fs840-de.pdf`` (the i18n plugin takes
    ``fs840.de.pdf`` for a German page's file) and saved under its build name."""
    rid, t = ctx.report.id, fmt.t
    base = f"downloads/{rid}"
    links = [
        (t("site.pdf_de"), f"{base}/{rid}-de.pdf", f"{rid}.de.pdf"),
        (t("site.pdf_en"), f"{base}/{rid}-en.pdf", f"{rid}.en.pdf"),
        (t("site.datasheet_de"), f"{base}/{rid}-datasheet-de.pdf", f"{rid}-datasheet.de.pdf"),
        (t("site.datasheet_en"), f"{base}/{rid}-datasheet-en.pdf", f"{rid}-datasheet.en.pdf"),
        (t("site.dataset"), f"{base}/dataset.parquet", ""),
        (t("site.tables_xlsx"), f"{base}/tables.xlsx", ""),
    ]
    links += [(f"{t('site.tables_csv')}: {n}", f"{base}/{n}.csv", "") for n in ctx.tables]
    links += [(t(f"site.{stem}_file"), f"{base}/{name}", "") for stem, name in AUDIT_FILES]
    return "".join(_download(label, url, name) for label, url, name in links)


# The build's files an audit starts from, offered in every edition: the page's last
# paragraph and the note on charts left out name them (the customer edition's PDF leaves
# only its file list out, for its length). (label key, file)
AUDIT_FILES = (
    ("validation", "validation.csv"),
    ("rejects", "rejects.csv"),
    ("inputs", "inputs.csv"),
    ("manifest", "manifest.json"),
)


def _download(label: str, url: str, name: str) -> str:
    """A list item linking ``url``, saved as ``name`` where given (an id: no quote)."""
    saved = f'{{: download="{name}" }}' if name else ""
    return f"- [{md_text(label)}]({url}){saved}\n"


Numbers = dict[tuple[str, str], int]  # (kind, name) -> the number the PDF gives it


def report_page(ctx: ReportContext, fmt: Formatter) -> str:
    r, lang, t = ctx.report, fmt.t.lang, fmt.t
    parts = [f"# {md_text(r.title[lang])}\n", f"{md_text(r.subtitle[lang])}\n"]
    parts.append(_particulars(ctx, fmt))
    if r.reconstructed:
        parts.append(
            f'!!! warning "{md_text(t("doc.reconstructed"))}"\n'
            f"    {md_text(r.reconstructed[lang])}\n"
        )
    if r.sponsor and r.sponsor[lang]:
        parts.append(f"*{md_text(r.sponsor[lang])}*\n")
    number = numbers(ctx, lang)  # the PDF's numbers
    parts += _chapters(ctx, fmt, number)
    parts.append(f"## {md_text(t('site.downloads'))}\n\n" + _downloads(ctx, fmt))
    parts.append(f"## {md_text(t('site.details'))}\n\n" + _details(ctx, fmt))
    parts += _charts_section(ctx, fmt, number) + _tables_section(ctx, fmt, number)
    return "\n".join([*parts, data_and_method(ctx, fmt)])


def _charts_section(ctx: ReportContext, fmt: Formatter, number: Numbers) -> list[str]:
    """Every chart but those a text places (shown there, numbered, as in the PDF)."""
    t, skip = fmt.t, ctx.placed(fmt.t.lang)
    parts = [f"## {md_text(t('site.charts'))}\n"]
    charts = sorted(_figures(ctx, fmt).items(), key=lambda kv: number[("figure", kv[0])])
    for stem, (caption, alt) in (c for c in charts if c[0] not in skip):
        path = f"charts/{ctx.report.id}/{stem}-{t.lang}.svg"
        shown = f"{t('doc.figure')} {number[('figure', stem)]} – {caption}"
        parts.append(chart_md(path, alt, shown))
    if note := left_out_note(ctx.left_out(), fmt):
        parts.append(f"{md_text(note)}\n")
    return parts


def _tables_section(ctx: ReportContext, fmt: Formatter, number: Numbers) -> list[str]:
    """Every table but those a text places, the cost note under the cost tables (where
    one is here: as the PDF's cost section), the note on tables with nothing to print."""
    r, lang, skip = ctx.report, fmt.t.lang, ctx.placed(fmt.t.lang)
    parts = [f"## {md_text(fmt.t('site.tables'))}\n"]
    views = sorted(ctx.views(fmt).items(), key=lambda kv: number[("table", kv[0])])
    views = [(name, view) for name, view in views if name not in skip]
    costs = [name for name, _ in views if BY_NAME[name].section == "cost"]
    for name, view in views:
        parts.append(md_table(view, number[("table", name)], fmt))
        if r.cost_note and costs and name == costs[-1]:
            parts.append(f"{md_text(r.cost_note[lang])}\n")
    if note := ctx.empty_note(fmt):
        parts.append(f"{md_text(note)}\n")
    return parts


def data_and_method(ctx: ReportContext, fmt: Formatter) -> str:
    """As the PDF's customer edition ends: what the words mean, what the figures rest on
    (records read and rejected), how sure each optimum is, the findings by rule and where
    the audit material is (among the page's downloads)."""
    t = fmt.t
    # no deviation matrix here to define
    defined = "".join(f"- {md_text(d)}\n" for d in definitions(ctx, fmt, DEFINITIONS[:-1]))
    parts = [f"## {md_text(t('appendix.data_title'))}\n", defined]
    parts += [f"{md_text(data_basis(ctx, fmt))}\n", f"{md_text(steady_sentence(ctx, fmt))}\n"]
    if sure := optimum_parts(ctx, fmt):
        parts += [f"{md_text(sure[0])}\n", md_table(sure[1], None, fmt)]
    summary, found = findings(ctx, fmt, brief=True)
    parts += [f"### {md_text(t('validation.title'))}\n", f"{md_text(summary)}\n"]
    parts += [md_table(found, None, fmt)] if found is not None else []
    return "\n".join([*parts, f"{md_text(t('site.audit_material'))}\n"])


def _particulars(ctx: ReportContext, fmt: Formatter) -> str:
    """The title page's particulars: author, version, date and classification (an
    internal report says so on the site too)."""
    r, t = ctx.report, fmt.t
    rows = [
        (t("doc.author"), r.author),
        (t("doc.version"), r.version),
        (t("doc.date"), fmt.date(r.date)),
        (t("doc.classification"), r.classification[fmt.t.lang]),
    ]
    return "  \n".join(f"{md_text(k)}: {md_text(v)}" for k, v in rows if v) + "\n"


def _details(ctx: ReportContext, fmt: Formatter) -> str:
    """Links to the report's pages of details."""
    return "".join(
        f"- [{md_text(fmt.t(f'site.{kind}'))}]({ctx.report.id}_{kind}.md)\n" for kind in DETAILS
    )


DETAILS = ("environment", "steady")  # a report's pages besides its main one


def environment_page(ctx: ReportContext, fmt: Formatter) -> str:
    """The system under test, the test servers as report.toml describes them, and every
    machine description (as the PDF's appendix shows them)."""
    r, t = ctx.report, fmt.t
    lang = t.lang
    parts = [f"# {md_text(t('site.environment'))}\n", f"## {md_text(t('section.system'))}\n"]
    parts.append(f"**{md_text(r.system.name)}** ({md_text(r.system.vendor)})\n")
    parts += [f"- {md_text(d[lang])}" for d in r.system.description if d[lang]]
    if r.hosts:
        parts.append(f"\n## {md_text(t('section.hosts'))}\n")
        parts += [f"- {md_text(line)}" for line in host_lines(ctx, fmt)]
    parts.append(f"\n## {md_text(t('site.machines'))}\n")
    tables = [md_table(machine_view(m, fmt), None, fmt) for m in ctx.machines]
    parts += tables or [f"{md_text(t('site.machine_none'))}\n"]
    return "\n".join(parts)


def steady_page(ctx: ReportContext, fmt: Formatter) -> str:
    """The SNIA PTS steady-state verdict of every point, and the PDF's summary of them."""
    t = fmt.t
    parts = [f"# {md_text(t('site.steady'))}\n"]
    parts.append(f"{md_text(steady_sentence(ctx, fmt))}\n")
    if not ctx.steady.is_empty():
        parts.append(md_table(verdicts_view(ctx, fmt), None, fmt))
    for stem, row in zip(pts_stems(ctx), ctx.unsteady(MAX_PTS_CHARTS), strict=True):
        caption = t("appendix.steady_chart", point=point_name(row, fmt))  # as the PDF's
        path = f"charts/{ctx.report.id}/{stem}-{t.lang}.svg"
        parts.append(chart_md(path, t("chart.alt_pts"), caption))
    return "\n".join(parts)


def pts_stems(ctx: ReportContext) -> list[str]:
    """The measurement-window charts the build draws: of the first points not steady."""
    return [f"{PTS_CHART}-{i}" for i in range(1, len(ctx.unsteady(MAX_PTS_CHARTS)) + 1)]


def verdicts_view(ctx: ReportContext, fmt: Formatter) -> TableView:
    """One row per point: rounds, verdict, the window's mean and both excursions."""
    none = fmt.t("table.none")

    def number(value: float | None, places: int) -> str:
        return none if value is None else fmt.number(value, places)

    rows = [
        [
            [Span(point_name(row, fmt))],
            [Span(fmt.integer(row["rounds"]))],
            [Span(fmt.t(f"site.verdict_{str(row['verdict']).replace(' ', '_')}"))],
            [Span(number(row["window_mean"], 0))],
            [Span(number(row["data_pct"], 1))],
            [Span(number(row["slope_pct"], 1))],
        ]
        for row in ctx.steady.iter_rows(named=True)
    ]
    keys = ("point", "rounds", "verdict", "mean", "data", "slope")
    header = [
        fmt.t("site.steady_verdict" if k == "verdict" else f"appendix.steady_{k}") for k in keys
    ]
    return TableView("steady", fmt.t("site.steady_caption"), header, rows, words=(2,))


def _figures(ctx: ReportContext, fmt: Formatter) -> dict[str, tuple[str, str]]:
    """Chart stem -> (caption, alt text) of every chart the site shows (registry
    ``site``), in the order of the report."""
    shown = [r for r in ctx.charts if r.chart.site]
    cost = "cost" in ctx.tables and chart_registry.BY_NAME[COST_CHART].site
    return figures(shown, cost, fmt)


def _chapters(ctx: ReportContext, fmt: Formatter, number: dict[tuple[str, str], int]) -> list[str]:
    """Each chapter that has a text, in the report's order, under its title."""
    parts = []
    for chapter in chapters.declared(ctx.report):
        filled = ctx.filled[fmt.t.lang].get(chapter.text or "")
        text = _text(ctx, fmt, filled, number) if filled and filled.text.strip() else ""
        profiles = _profiles(ctx, fmt) if chapter.key == "method" else ""
        if not (text or profiles):
            continue
        lang = fmt.t.lang
        title = chapter.title[lang] if chapter.title else fmt.t(f"section.{chapter.key}")
        head = f"## {md_text(title)}\n\n"
        if chapter.key == "author":
            lines = [ctx.report.author, ctx.report.organisation, *ctx.report.contact]
            head += "  \n".join(md_text(line) for line in lines if line) + "\n\n"
        parts.append(head + text + profiles)
    return parts


def _profiles(ctx: ReportContext, fmt: Formatter) -> str:
    """The method's generated part, as the PDF's: what was measured and how (levels,
    servers, units, rate targets), under its own heading after the author's text."""
    said = "".join(f"{md_text(s)}\n\n" for s in method_sentences(ctx, fmt))
    return f"\n### {md_text(fmt.t('section.profiles'))}\n\n{said}"


def picture_md(ctx: ReportContext, placed: Placed, caption: str) -> str:
    """A checked image of the narrative, from the report's image folder."""
    path = placed.file.replace("images/", f"images/{ctx.report.id}/", 1)
    return f"![{md_text(placed.alt)}]({path})\n\n*{md_text(caption)}*\n"


def _text(
    ctx: ReportContext, fmt: Formatter, filled: Filled, number: dict[tuple[str, str], int]
) -> str:
    """A text as sanitised HTML (see ``sanitize``), each directive replaced by the Markdown
    of the table or chart it places and each image by the image, numbered."""
    text = to_html(filled.text, filled.path)
    found = _figures(ctx, fmt)
    for index, (kind, name) in enumerate(filled.placed):
        if kind == "table" and name in ctx.empty:  # nothing to print: the sentence saying so
            block = f"{md_text(ctx.empty_note(fmt, names=[name]))}\n"
        elif kind == "table":  # numbered and captioned as the PDF's
            block = md_table(ctx.views(fmt)[name], number.get(("table", name)), fmt)
        else:
            caption, alt = found[name]
            if ("figure", name) in number:
                caption = f"{fmt.t('doc.figure')} {number[('figure', name)]} – {caption}"
            block = chart_md(f"charts/{ctx.report.id}/{name}-{fmt.t.lang}.svg", alt, caption)
        text = _put(text, filled.marker(index), block)
    label, own = fmt.t("doc.figure"), token(filled.text)
    for index, placed in enumerate(ctx.pictures.get(str(filled.path), [])):
        caption = f"{label} {number[('image', picture_key(filled, index))]} – {placed.caption}"
        text = _put(text, image_marker(index, own), picture_md(ctx, placed, caption))
    return f"{TEXT_OPEN}\n{text}\n</div>\n"


def _put(text: str, mark: str, block: str) -> str:
    """``block`` (Markdown) where the paragraph ``mark`` stands, between raw HTML blocks."""
    return text.replace(f"<p>{mark}</p>", f"\n</div>\n\n{block}\n{TEXT_OPEN}\n")


# Narrative HTML stands in raw blocks, which Python-Markdown passes through untouched.
TEXT_OPEN = '<div class="iop-text">'


def landing_page(built: Sequence[Built], fmt: Formatter, compare: bool) -> str:
    lang, t = fmt.t.lang, fmt.t
    lines = [f"# {md_text(t('site.reports'))}\n", f"{md_text(t('site.intro'))}\n"]
    for b in built:
        r = b.ctx.report
        lines.append(
            f"- [{md_text(r.title[lang])}]({r.id}.md) — {md_text(r.system.name)}, "
            f"{md_text(fmt.date(r.date))}"
        )
    if compare:
        lines.append(f"\n[{md_text(t('site.compare_link'))}](compare.md)")
    return "\n".join(lines) + "\n"


def site_formatter(built: Sequence[Built], lang: str) -> Formatter:
    """The pages across reports: the first report's number style, ms columns in µs where
    any report's fastest latency is below 100 µs (a report's own page judges its own)."""
    fmt = built[0].ctx.formatter(lang)
    fmt.small = small_latencies(v for b in built for v in table_latencies(b.ctx.tables))
    return fmt


def pages(built: Sequence[Built]) -> dict[str, str]:
    """Markdown file name -> text, for every page and language."""
    out = {}
    for lang in LANGS:
        profiles = comparison_profiles(built, lang)
        fmt = site_formatter(built, lang)
        out[f"index{suffix(lang)}.md"] = page(
            fmt.t("site.reports"), landing_page(built, fmt, bool(profiles)), fmt
        )
        for b in built:
            _add(out, report_pages(b, lang), b)
        if profiles:
            body = compare_page(profiles, fmt, compare_notes(built, fmt))
            out[f"compare{suffix(lang)}.md"] = page(fmt.t("site.compare"), body, fmt)
    return out


RESERVED = ("index", "compare", "404", "search")  # pages the site makes itself


def _add(out: dict[str, str], made: dict[str, str], b: Built) -> None:
    """A report's pages, none of them named as a page already made or reserved: a report
    id 'x_steady' replaced report x's steady-state page, 'index' the landing page."""
    for name in made:
        stem = name.split(".")[0]
        if name in out or stem in RESERVED:
            raise InputError(
                b.ctx.folder / REPORT_FILE,
                "id",
                f"the report's page {stem} is a page the site has already "
                f"(another report's or its own {', '.join(RESERVED)})",
                "give the report an id that is not another's with _steady or "
                "_environment added, nor one of those names",
            )
    out |= made


def report_pages(b: Built, lang: str) -> dict[str, str]:
    """A report's main page and its pages of details in ``lang``."""
    fmt, title = b.ctx.formatter(lang), b.ctx.report.title[lang]
    return {
        f"{b.rid}{suffix(lang)}.md": page(title, report_page(b.ctx, fmt), fmt),
        f"{b.rid}_environment{suffix(lang)}.md": page(
            fmt.t("site.environment_title", title=title), environment_page(b.ctx, fmt), fmt
        ),
        f"{b.rid}_steady{suffix(lang)}.md": page(
            fmt.t("site.steady_title", title=title), steady_page(b.ctx, fmt), fmt
        ),
    }


def page(title: str, body: str, fmt: Formatter) -> str:
    """A page: its title, the note shown where search cannot work (file://), the body."""
    note = f'<p class="iop-search-note">{html.escape(fmt.t("site.search_file"))}</p>\n\n'
    return titled(title, note + body)


def titled(title: str, page: str) -> str:
    """The page with its title in front matter, HTML-escaped: the theme prints the title
    unescaped into <title>, the header and the navigation (and ``striptags`` would undo an
    escape in the heading), so the escaped title is the only safe one."""
    return f"---\ntitle: {json.dumps(html.escape(title), ensure_ascii=False)}\n---\n\n{page}"


# --- comparison across systems ---------------------------------------------------------

PROFILE = ("access", "block_size", "read_pct")


def _system_points(b: Built, lang: str) -> pl.DataFrame:
    """Every setup's points, labelled with the system (and the setup, when it has several)."""
    r = b.ctx.report
    labels = {
        s.name: r.system.name if len(r.setups) == 1 else f"{r.system.name} – {s.description[lang]}"
        for s in r.setups
    }
    points = b.ctx.dataset.points.with_columns(
        pl.col("setup").replace_strict(labels, default="").alias("label"),
        pl.lit(r.id).alias("report"),
    )
    return _per_depth(points, b.ctx.formatter(lang))


def _per_depth(points: pl.DataFrame, fmt: Formatter) -> pl.DataFrame:
    """Where a setup was measured at several queue depths (an iodepth sweep), each depth
    is a series of its own: one line through them zig-zagged between the depths."""
    depths = points.group_by("setup").agg(pl.col("queue_depth").n_unique().alias("n"))
    if not depths.height or int(depths["n"].max()) < 2:  # type: ignore[arg-type]
        return points
    pairs = points.select("label", "queue_depth").unique().rows()
    named = pl.DataFrame(
        [
            (label, qd, fmt.t("chart.at_depth", caption=label, qd=fmt.integer(qd)))
            for label, qd in pairs
        ],
        schema={"label": pl.String, "queue_depth": pl.Int64, "_named": pl.String},
        orient="row",
    )
    joined = points.join(named, on=["label", "queue_depth"], how="left")
    return joined.with_columns(pl.col("_named").alias("label")).drop("_named")


Profiles = dict[tuple[str, int, float], pl.DataFrame]


def comparison_profiles(built: Sequence[Built], lang: str) -> Profiles:
    """Profiles measured by at least two of the site's systems, with the points of every
    setup of each system."""
    if len(built) < 2:
        return {}
    allp = _apart(pl.concat([_system_points(b, lang) for b in built], how="diagonal_relaxed"))
    found = {}
    for key, group in allp.group_by(list(PROFILE), maintain_order=True):
        if group["report"].n_unique() > 1:
            found[(str(key[0]), int(key[1]), float(key[2]))] = group
    return dict(sorted(found.items(), key=lambda kv: (kv[0][0], kv[0][1], -kv[0][2])))


def _apart(points: pl.DataFrame) -> pl.DataFrame:
    """A label that two reports share (two reports of one system: the same drive in two
    machines) names its report too: else their points were one series, a curve through
    both reports' levels, and the table mixed one's rate with the other's latency."""
    counted = points.group_by("label").agg(pl.col("report").n_unique().alias("n"))
    shared = counted.filter(pl.col("n") > 1)["label"]
    named = pl.concat_str([pl.col("label"), pl.lit(" ("), pl.col("report"), pl.lit(")")])
    return points.with_columns(
        pl.when(pl.col("label").is_in(shared.implode())).then(named).otherwise("label")
    )


def compare_stem(key: tuple[str, int, float]) -> str:
    return f"compare_{key[0]}_{block_stem(key[1])}_r{key[2]:g}"


def compare_notes(built: Sequence[Built], fmt: Formatter) -> list[str]:
    """What a reader must know to set the systems side by side, as each report's PDF says
    it: data reconstructed rather than measured, who paid for a report, where service
    time is measured and how parallelism is counted where the systems differ, the units."""
    lang = fmt.t.lang
    notes = []
    for b in built:
        r, own = b.ctx.report, b.ctx.formatter(lang).t
        name = r.system.name
        if r.reconstructed:
            notes.append(own("site.compare_reconstructed", system=name))
        if r.sponsor and r.sponsor[lang]:
            notes.append(own("site.compare_sponsor", system=name, sponsor=r.sponsor[lang]))
    notes += [n for n in (_differing(built, lang, "parallelism_unit", "compare_units"),) if n]
    timed = [b for b in built if has_latency(b.ctx.dataset.points)]  # of a service time
    notes += [n for n in (_differing(timed, lang, "latency_where", "compare_latency"),) if n]
    return [*notes, fmt.t(f"method.units_{fmt.units}_rate")]


def _differing(built: Sequence[Built], lang: str, what: str, note: str) -> str:
    """A note naming each system's ``what`` (``site.<what>``: per server, per VM) where
    the systems differ in it; else nothing."""
    found = {b.ctx.report.system.name: b.ctx.formatter(lang).t(f"site.{what}") for b in built}
    if len(set(found.values())) < 2:
        return ""
    t = built[0].ctx.formatter(lang).t
    each = "; ".join(t("site.unit_of", unit=u, system=s) for s, u in found.items())
    return t(f"site.{note}", units=each)


def compare_page(profiles: Profiles, fmt: Formatter, notes: Sequence[str] = ()) -> str:
    lang, t = fmt.t.lang, fmt.t
    parts = [f"# {md_text(t('site.compare'))}\n", f"{md_text(t('site.compare_intro'))}\n"]
    parts += [f'!!! note ""\n    {md_text(note)}\n' for note in notes]
    for n, (key, points) in enumerate(profiles.items(), start=1):
        caption = compare_caption(key, fmt)
        parts.append(f"## {md_text(caption)}\n")
        parts.append(
            chart_md(
                f"charts/compare/{compare_stem(key)}-{lang}.svg",
                f"{caption}. {t('chart.alt_compare')}",
                f"{t('doc.figure')} {n} – {caption}",
            )
        )
        parts.append(compare_table(key, points, fmt))
    return "\n".join(parts)


def compare_table(key: tuple[str, int, float], points: pl.DataFrame, fmt: Formatter) -> str:
    """Per system and setup: the maximum rate, its parallelism and the minimum latency, in
    the units of the performance and min_latency tables."""
    t = fmt.t
    sequential = key[0] == "sequential"
    rate = t("site.compare_max_mb") if sequential else t("site.compare_max_iops")
    lines = [
        f"| {md_text(t('site.compare_system'))} | {md_text(rate)} | "
        f"{md_text(t('site.compare_at'))} | {md_text(t('site.compare_min_lat'))} |",
        "|---|---:|---:|---:|",
    ]
    for label, group in points.group_by("label", maintain_order=True):
        best = group.sort("iops", descending=True).row(0, named=True)
        fastest = group.sort("lat_mean_us").row(0, named=True)
        value = (
            bandwidth(fmt, "performance", best["bytes_per_s"])
            if sequential
            else fmt.integer(best["iops"])
        )
        lines.append(
            f"| {md_text(str(label[0]))} | {md_text(value)} | "
            f"{md_text(fmt.integer(best['parallelism']))} | "
            f"{md_text(latency(fmt, 'min_latency', fastest['lat_mean_us']))} |"
        )
    return "\n".join(lines) + "\n"


def compare_caption(key: tuple[str, int, float], fmt: Formatter) -> str:
    return fmt.t(
        "chart.compare_title",
        block=fmt.block(key[1]),
        access=fmt.t.access(key[0], True),
        mix=fmt.t.mix(key[2], short=True),
    )


# --- files and the mkdocs build --------------------------------------------------------


def late_files(b: Built) -> list[tuple[Path, str]]:
    """The files of a report's site that a build makes while the site is built (chart
    drawings and PDFs): (file in the build folder, path in the site). mkdocs gets an empty
    stand-in for each, which ``fill`` replaces in the built site."""
    files = [
        (b.work / "charts" / f"{stem}.{lang}.svg", f"charts/{b.rid}/{stem}-{lang}.svg")
        for stem in [*b.ctx.chart_stems(), *pts_stems(b.ctx)]
        for lang in LANGS
    ]
    for lang in LANGS:
        files.append((b.work / f"{b.rid}.{lang}.pdf", f"downloads/{b.rid}/{b.rid}-{lang}.pdf"))
        files.append(
            (
                b.work / f"{b.rid}-datasheet.{lang}.pdf",
                f"downloads/{b.rid}/{b.rid}-datasheet-{lang}.pdf",
            )
        )
    return files


def _copy_report(b: Built, docs: Path) -> None:
    charts, downloads = docs / "charts" / b.rid, docs / "downloads" / b.rid
    charts.mkdir(parents=True)
    downloads.mkdir(parents=True)
    for _, target in late_files(b):
        (docs / target).write_bytes(b"")
    for placed in {p.file: p for found in b.ctx.pictures.values() for p in found}.values():
        image = docs / placed.file.replace("images/", f"images/{b.rid}/", 1)
        image.parent.mkdir(parents=True, exist_ok=True)
        image.write_bytes(placed.picture.data)
    shutil.copy(b.work / "dataset.parquet", downloads / "dataset.parquet")
    for _, name in AUDIT_FILES:
        shutil.copy(b.work / name, downloads / name)
    for table in [*b.ctx.tables, "tables"]:
        ext = "xlsx" if table == "tables" else "csv"
        shutil.copy(b.work / "tables" / f"{table}.{ext}", downloads / f"{table}.{ext}")


def fill(built: Sequence[Built], site: Path) -> None:
    """The late files into the built site, over mkdocs' copies of their stand-ins."""
    for b in built:
        for source, target in late_files(b):
            if not (site / target).is_file():
                raise RuntimeError(f"the site has no {target} to fill (mkdocs layout changed?)")
            shutil.copy(source, site / target)


# Draws one comparison chart (points, formatter, title) as ``<stem>.svg`` and
# ``<stem>-spec.json``; the build passes the charts layer's drawing in.
DrawCompare = Callable[[pl.DataFrame, Formatter, str, Path], None]


def _write_comparisons(built: Sequence[Built], docs: Path, draw: DrawCompare) -> None:
    folder = docs / "charts" / "compare"
    for lang in LANGS:
        fmt = site_formatter(built, lang)
        for key, points in comparison_profiles(built, lang).items():
            folder.mkdir(parents=True, exist_ok=True)
            # against parallelism: each level's point of most load (not its rate sweep)
            drawn, stem = most_load(points, ("report",)), folder / f"{compare_stem(key)}-{lang}"
            draw(drawn, fmt, compare_caption(key, fmt), stem)


def _bundle_key() -> str:
    return cache.key("vega-embed", metadata.version("vl-convert-python"), BUNDLE_SNIPPET)


def _make_bundle() -> bytes:
    return vlc.javascript_bundle(BUNDLE_SNIPPET).encode("utf-8")


def vega_embed_bundle() -> bytes:
    """The offline vega-embed bundle. It depends only on the vl-convert version: `make
    setup` installs it beside the virtual environment (``install_vega_embed_bundle``); a
    build elsewhere makes it once into the cache."""
    installed = INSTALLED / f"vega-embed-{_bundle_key()}.js"
    if installed.is_file():
        return installed.read_bytes()
    return cache.cached(_bundle_key(), _make_bundle)


def install_vega_embed_bundle() -> Path:
    """Write the bundle into the installation (atomically: a build never reads half)."""
    target = INSTALLED / f"vega-embed-{_bundle_key()}.js"
    target.parent.mkdir(parents=True, exist_ok=True)
    part = target.with_suffix(".part")
    part.write_bytes(_make_bundle())
    part.replace(target)
    return target


def _specs(built: Sequence[Built], docs: Path) -> dict[str, Path]:
    """Every chart's path in the site -> its Vega-Lite spec file: the reports' from their
    builds, the comparison's as drawn into ``docs``."""
    found = {
        f"charts/{b.rid}/{stem}-{lang}.svg": b.work / "charts" / f"{stem}.{lang}.vl.json"
        for b in built
        for stem in [*b.ctx.chart_stems(), *pts_stems(b.ctx)]
        for lang in LANGS
    }
    for spec in (docs / "charts" / "compare").glob("*-spec.json"):
        found[f"charts/compare/{spec.name.removesuffix('-spec.json')}.svg"] = spec
    return found


def write_sources(built: Sequence[Built], docs: Path, draw: DrawCompare) -> None:
    """Pages (each chart's spec inlined), charts, downloads and scripts into the mkdocs
    docs folder."""
    docs.mkdir(parents=True)
    for b in built:
        _copy_report(b, docs)
    _write_comparisons(built, docs, draw)
    specs = _specs(built, docs)
    for name, text in pages(built).items():
        (docs / name).write_text(inline_specs(text, specs), encoding="utf-8")
    for spec in specs.values():
        if spec.is_relative_to(docs):  # inlined: the site needs no copy
            spec.unlink()
    (docs / "assets").mkdir()
    bundle = vega_embed_bundle()
    (docs / ASSETS[0]).write_bytes(bundle)
    shutil.copy(SITE_ASSETS / "iopress.js", docs / ASSETS[1])
    shutil.copy(SITE_ASSETS / "iopress.css", docs / STYLESHEET)


def _site_name(built: Sequence[Built], lang: str) -> Markup:
    """The report's title in ``lang`` (HTML-escaped: the theme prints it both raw and with
    ``|e``); "iopress" for a site of several reports."""
    name = built[0].ctx.report.title[lang] if len(built) == 1 else "iopress"
    return Markup(html.escape(name))


def site_languages(configured: list[Any], langs: Sequence[str]) -> list[Any]:
    """The site's languages: the documents' ``langs``, those mkdocs.yml lists as it lists
    them (a locale file removed is left out), the others (a locale file added) named as
    their locale file says, in the theme's language of their babel locale (the theme
    knows no other); one of them the default (``default_language``)."""
    from mkdocs_static_i18n.config import I18nPluginLanguage

    known = {language.locale for language in configured}
    kept = [language for language in configured if language.locale in langs]
    added = []
    for lang in (lang for lang in langs if lang not in known):
        t = Strings(lang)
        entry = I18nPluginLanguage()
        entry.load_dict(
            {
                "locale": lang,
                "name": t("format.name"),
                "theme": {"language": t("format.locale").split("_")[0]},
            }
        )
        entry.validate()
        added.append(entry)
    default = default_language(configured, langs)
    for language in kept + added:
        language.default = language.locale == default
    return kept + added


def build_site(
    built: Sequence[Built], docs: Path, site: Path, draw: DrawCompare, url: str | None = None
) -> None:
    """The site of ``built`` into ``site``. Its 404 page (served at any address, so its
    links start at the site's root) and sitemap (absolute addresses) need the address the
    site is published at, ``url``: without one neither is written."""
    write_sources(built, docs, draw)
    logging.getLogger("mkdocs").setLevel(logging.ERROR)
    names = {lang: _site_name(built, lang) for lang in LANGS}
    config = load_config(
        config_file=str(MKDOCS_CONFIG),
        docs_dir=str(docs),
        site_dir=str(site),
        site_name="iopress",  # a str: the i18n plugin overrides only values of the same type
        strict=True,
        extra_javascript=list(ASSETS),
        extra_css=[STYLESHEET],
        site_url=url,
    )
    languages = config.plugins["i18n"].config.languages
    languages[:] = site_languages(languages, LANGS)
    for language in languages:
        language.site_name = names[language.locale]
    try:
        mkdocs_build(config)
    except MkDocsException as exc:
        raise InputError(
            docs, "", f"site build failed: {exc}", "check the report's texts for broken links"
        ) from None
    if url is None:
        for name in UNPUBLISHED:
            (site / name).unlink(missing_ok=True)
    else:
        dated_sitemap(site, max(b.ctx.report.date for b in built))


def dated_sitemap(site: Path, date: dt.date) -> None:
    """The sitemap's pages dated by the reports' date, not the day of the build (the
    site, like the PDFs, is the same whenever it is built), without a change frequency,
    and its gzip copy made again without a time stamp."""
    sitemap = site / "sitemap.xml"
    text = re.sub(
        r"<lastmod>[^<]*</lastmod>",
        f"<lastmod>{date.isoformat()}</lastmod>",
        sitemap.read_text(encoding="utf-8"),
    )
    # a published whitepaper does not change daily, as mkdocs' template says
    text = re.sub(r"\s*<changefreq>[^<]*</changefreq>", "", text)
    sitemap.write_text(text, encoding="utf-8")
    data = gzip.compress(text.encode("utf-8"), mtime=0)
    (site / "sitemap.xml.gz").write_bytes(data)


UNPUBLISHED = ("404.html", "sitemap.xml", "sitemap.xml.gz")  # need the site's address
