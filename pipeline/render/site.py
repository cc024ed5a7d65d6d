"""The static site: mkdocs (material theme, static i18n) from generated Markdown pages.

Page names carry the language as a suffix (``fs840.md``, ``fs840.de.md``); downloads and
charts use a hyphen (``fs840-de.pdf``) so the i18n plugin does not take them for
translations of each other.
"""

from __future__ import annotations

import html
import logging
import re
import shutil
from pathlib import Path

from mkdocs.commands.build import build as mkdocs_build
from mkdocs.config import load_config
from mkdocs.exceptions import MkDocsException

from pipeline.config import LANGS
from pipeline.errors import InputError
from pipeline.paths import MKDOCS_CONFIG
from pipeline.render.context import ReportContext
from pipeline.render.fmt import Formatter
from pipeline.render.narrative import Values, fill, marker
from pipeline.render.views import Cell, TableView
from pipeline.render.whitepaper import (
    COST_CHART,
    chart_alt,
    chart_caption,
    cost_alt,
    placeable,
)

_MD_SPECIAL = re.compile(r"([\\`*_{}\[\]()#+!|~>-])")


def md_text(text: str) -> str:
    """Literal text in Markdown: HTML-escaped, and Markdown punctuation backslash-escaped."""
    return _MD_SPECIAL.sub(r"\\\1", html.escape(text, quote=False))


def _md_cell(cell: Cell) -> str:
    marks = {"plain": "", "optimum": "*", "vendor": "**", "mono": "`"}
    return "<br>".join(f"{marks[s.style]}{md_text(s.text)}{marks[s.style]}" for s in cell)


def md_table(view: TableView, number: int, fmt: Formatter) -> str:
    lines = [
        "| " + " | ".join(md_text(h) for h in view.header) + " |",
        "|" + "---|" + "---:|" * (len(view.header) - 1),
    ]
    lines += ["| " + " | ".join(_md_cell(c) for c in row) + " |" for row in view.rows]
    caption = f"{fmt.t('doc.table')} {number} – {view.caption}"
    return "\n".join(lines) + f"\n\n*{md_text(caption)}*\n"


SITE_DEFAULT_LANG = "en"  # must match the default language in mkdocs.yml


def suffix(lang: str) -> str:
    return "" if lang == SITE_DEFAULT_LANG else f".{lang}"


def _downloads(ctx: ReportContext, fmt: Formatter) -> str:
    rid, t = ctx.report.id, fmt.t
    links = [
        (t("site.pdf_de"), f"downloads/{rid}-de.pdf"),
        (t("site.pdf_en"), f"downloads/{rid}-en.pdf"),
        (t("site.datasheet_de"), f"downloads/{rid}-datasheet-de.pdf"),
        (t("site.datasheet_en"), f"downloads/{rid}-datasheet-en.pdf"),
        (t("site.dataset"), "downloads/dataset.parquet"),
    ]
    links += [(f"{t('site.tables_csv')}: {name}", f"downloads/{name}.csv") for name in ctx.tables]
    return "\n".join(f"- [{md_text(label)}]({url})" for label, url in links) + "\n"


def report_page(ctx: ReportContext, fmt: Formatter) -> str:
    r, lang, t = ctx.report, fmt.t.lang, fmt.t
    parts = [f"# {md_text(r.title[lang])}\n", f"{md_text(r.subtitle[lang])}\n"]
    if r.reconstructed:
        parts.append(
            f'!!! warning "{md_text(t("doc.reconstructed"))}"\n'
            f"    {md_text(r.reconstructed[lang])}\n"
        )
    parts.append(f"*{md_text(r.sponsor[lang])}*\n")
    parts.append(f"## {md_text(t('section.summary'))}\n\n" + _summary(ctx, fmt))
    parts.append(f"## {md_text(t('site.downloads'))}\n\n" + _downloads(ctx, fmt))
    parts.append(f"## {md_text(t('site.charts'))}\n")
    for n, (stem, caption, alt) in enumerate(_figures(ctx, fmt), start=1):
        parts.append(
            f"![{md_text(alt)}](charts/{stem}-{lang}.svg)\n\n"
            f"*{md_text(t('doc.figure'))} {n} – {md_text(caption)}*\n"
        )
    parts.append(f"## {md_text(t('site.tables'))}\n")
    parts += [md_table(v, n, fmt) for n, v in enumerate(ctx.views(fmt).values(), start=1)]
    if ctx.report.cost_note:
        parts.append(f"{md_text(ctx.report.cost_note[lang])}\n")
    return "\n".join(parts)


def _figures(ctx: ReportContext, fmt: Formatter) -> list[tuple[str, str, str]]:
    """(file stem, caption, alt text) of every chart, in the order of the report."""
    figures = [(ref.stem, chart_caption(ref, fmt), chart_alt(ref, fmt)) for ref in ctx.charts]
    if "cost" in ctx.tables:
        figures.append((COST_CHART, fmt.t("chart.cost_title"), cost_alt(fmt)))
    return figures


def _summary(ctx: ReportContext, fmt: Formatter) -> str:
    """The summary narrative, directives replaced by the table or chart they place."""
    values = Values(ctx.tables, fmt, placeable(ctx, fmt))
    text = fill(ctx.narrative[fmt.t.lang]["summary"], values.context(ctx.report))
    figures = {stem: (caption, alt) for stem, caption, alt in _figures(ctx, fmt)}
    for index, (kind, name) in enumerate(values.placed):
        if kind == "table":
            block = md_table(ctx.views(fmt)[name], 0, fmt).split("\n\n*")[0] + "\n"
        else:
            caption, alt = figures[name]
            block = f"![{md_text(alt)}](charts/{name}-{fmt.t.lang}.svg)\n\n*{md_text(caption)}*\n"
        text = text.replace(marker(index), block)
    return text


def landing_page(ctx: ReportContext, fmt: Formatter) -> str:
    r, lang = ctx.report, fmt.t.lang
    return (
        f"# {md_text(fmt.t('site.reports'))}\n\n{md_text(fmt.t('site.intro'))}\n\n"
        f"- [{md_text(r.title[lang])}]({r.id}.md) — {md_text(r.system.name)}, "
        f"{md_text(fmt.date(r.date))}\n"
    )


def pages(ctx: ReportContext) -> dict[str, str]:
    """Markdown file name -> text, for every page and language."""
    out = {}
    for lang in LANGS:
        fmt = ctx.formatter(lang)
        out[f"index{suffix(lang)}.md"] = landing_page(ctx, fmt)
        out[f"{ctx.report.id}{suffix(lang)}.md"] = report_page(ctx, fmt)
    return out


def write_sources(ctx: ReportContext, work: Path, docs: Path) -> None:
    """Pages, chart SVGs and downloads into the mkdocs docs folder."""
    (docs / "charts").mkdir(parents=True)
    (docs / "downloads").mkdir()
    for name, text in pages(ctx).items():
        (docs / name).write_text(text, encoding="utf-8")
    for stem, _, _ in _figures(ctx, ctx.formatter(LANGS[0])):
        for lang in LANGS:
            shutil.copy(
                work / "charts" / f"{stem}.{lang}.svg", docs / "charts" / f"{stem}-{lang}.svg"
            )
    rid = ctx.report.id
    for lang in LANGS:
        shutil.copy(work / f"{rid}.{lang}.pdf", docs / "downloads" / f"{rid}-{lang}.pdf")
        shutil.copy(
            work / f"{rid}-datasheet.{lang}.pdf", docs / "downloads" / f"{rid}-datasheet-{lang}.pdf"
        )
    shutil.copy(work / "dataset.parquet", docs / "downloads" / "dataset.parquet")
    for name in ctx.tables:
        shutil.copy(work / "tables" / f"{name}.csv", docs / "downloads" / f"{name}.csv")


def build_site(ctx: ReportContext, work: Path, docs: Path, site: Path) -> None:
    write_sources(ctx, work, docs)
    logging.getLogger("mkdocs").setLevel(logging.ERROR)
    config = load_config(
        config_file=str(MKDOCS_CONFIG),
        docs_dir=str(docs),
        site_dir=str(site),
        site_name=ctx.report.title["en"],
        strict=True,
    )
    try:
        mkdocs_build(config)
    except MkDocsException as exc:
        raise InputError(
            docs, "", f"site build failed: {exc}", "check the report's texts for broken links"
        ) from None
