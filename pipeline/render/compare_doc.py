"""The comparison as a short typst document: what was compared and how, every change
with its noise and verdict, the profiles of one side only, and the overlay charts."""

from __future__ import annotations

import datetime as dt
import math
from typing import Any

from pipeline.charts.overlay import profiles, timed
from pipeline.compute.compare import METRICS, Comparison
from pipeline.language.fmt import Formatter
from pipeline.render import typst_doc as T
from pipeline.report import plan
from pipeline.report.views import Span, TableView, bandwidth, latency


def profile(row: dict[str, Any], fmt: Formatter) -> str:
    label = (
        f"{fmt.block(int(row['block_size']))} {fmt.t.access(str(row['access']))} "
        f"{fmt.t.mix(float(row['read_pct']), True)}"
    )
    if row["queue_depth"] != 1:
        label += f" {fmt.t('compare.qd', n=fmt.integer(row['queue_depth']))}"
    return f"{label} ({row['setup']})" if row["setup"] else label


def value(v: float | None, unit: str, fmt: Formatter) -> str:
    """A figure in its unit as the report prints it (rates in MB/s for sequential)."""
    if v is None:
        return "–"
    if unit == "B/s":
        return bandwidth(fmt, "performance", v, with_unit=True)
    if unit == "µs":  # the minimum latency: as the min_latency table prints it
        return latency(fmt, "min_latency", v)
    return f"{fmt.integer(v)} IOPS"


def metric(row: dict[str, Any], fmt: Formatter) -> str:
    """The figure's name; the figure of every level names the level shown."""
    name = f"compare.metric_{row['metric']}"
    old, new = row.get("target_iops_old"), row.get("target_iops_new")
    if row["metric"] != "level":
        return _held(fmt.t(name), old, new, fmt)
    level = fmt.integer(row["parallelism_old"])
    if old is None and new is None:
        return fmt.t(name, level=level)
    if old is not None and old == new:
        return fmt.t(f"{name}_target", level=level, target=fmt.integer(old))
    shown = [fmt.t("compare.no_target") if t is None else fmt.integer(t) for t in (old, new)]
    return fmt.t(f"{name}_targets", level=level, old=shown[0], new=shown[1])


def _held(said: str, old: float | None, new: float | None, fmt: Formatter) -> str:
    """A profile's figure, with the target rates its points were held to, where one was:
    a maximum or optimum of a rate sweep is a target's, not what the system can do."""
    if old is None and new is None:
        return said
    if old is not None and old == new:
        return fmt.t("compare.metric_held", metric=said, target=fmt.integer(old))
    shown = [fmt.t("compare.no_target") if t is None else fmt.integer(t) for t in (old, new)]
    return fmt.t("compare.metric_held_two", metric=said, old=shown[0], new=shown[1])


def noise(pct: float | None, fmt: Formatter) -> str:
    """The noise of a change; "–" where it is not known (a point of one interval)."""
    return "–" if pct is None else fmt.number(pct, 1)


def change(pct: float | None, fmt: Formatter) -> str:
    if pct is None or math.isnan(pct):
        return "–"
    if math.isinf(pct):
        return fmt.t("compare.from_none")
    return ("+" if pct > 0 else "") + fmt.number(pct, 1)


def table(result: Comparison, fmt: Formatter) -> TableView:
    rows = [
        [
            [Span(profile(r, fmt))],
            [Span(metric(r, fmt))],
            [Span(value(r["old"], r["unit"], fmt))],
            [Span(value(r["new"], r["unit"], fmt))],
            [Span(change(r["change_pct"], fmt))],
            [Span(noise(r["noise_pct"], fmt))],
            [Span(fmt.t(f"compare.status_{r['status'].replace(' ', '_')}"))],
        ]
        for r in result.rows.iter_rows(named=True)
    ]
    keys = ("profile", "metric", "old", "new", "change", "noise", "status")
    header = [fmt.t(f"compare.col_{k}") for k in keys]
    return TableView("compare", fmt.t("compare.caption"), header, rows, words=(1, 6))


def _one_side(result: Comparison, labels: tuple[str, str], fmt: Formatter) -> list[str]:
    parts = []
    lists = (
        (result.only_old, fmt.t("compare.only", side=labels[0])),
        (result.only_new, fmt.t("compare.only", side=labels[1])),
        (result.apart, fmt.t("compare.apart")),
    )
    for frame, text in lists:
        if frame.height:
            parts.append(T.paragraph(text))
            parts.append(T.bullets(profile(r, fmt) for r in frame.iter_rows(named=True)))
    if result.lost.height:  # levels OLD measured and NEW did not: the gate fails on them
        parts.append(T.paragraph(fmt.t("compare.lost", side=labels[1])))
        parts.append(T.bullets(lost(r, fmt) for r in result.lost.iter_rows(named=True)))
    return parts


def lost(row: dict[str, Any], fmt: Formatter) -> str:
    """A profile and the levels NEW did not measure: "8K random 100% read: P 96, 128 not
    measured in the new run" (the PDF and the terminal)."""
    return f"{profile(row, fmt)}: {not_measured(row, fmt)}"


def not_measured(row: dict[str, Any], fmt: Formatter) -> str:
    """The levels of a profile NEW did not measure: "P 96, 128 not measured in the new
    run"."""
    levels = "P\u00a0" + ", ".join(fmt.integer(p) for p in row["missing"])
    return fmt.t("compare.not_measured", levels=levels)


def _charts(result: Comparison, labels: tuple[str, str], fmt: Formatter) -> list[str]:
    return [
        T.figure(
            f"charts/{stem}.{fmt.t.lang}.svg",
            fmt.t("compare.figure", profile=profile(old.row(0, named=True), fmt)),
            fmt.t(plan.words_key("compare.alt", timed(old, new)), old=labels[0], new=labels[1]),
            stem,
        )
        for stem, old, new in profiles(result.old_points, result.new_points)
    ]


def rule(result: Comparison, fmt: Formatter) -> str:
    """How the figures are read and judged, naming only the figures compared: two
    datasets without latency compare their maximum rates alone."""
    compared = set(result.rows["metric"].to_list())
    figures = [fmt.t(f"compare.rule_{m}") for m in METRICS if m in compared]
    return fmt.t("compare.rule", figures=fmt.listing(figures))


def _many(fmt: Formatter, key: str, n: int) -> str:
    """``n`` things in the language's plural form ("1 regression", "2 regressions")."""
    return fmt.t.count(key, n, n=fmt.integer(n))


def body(
    result: Comparison, labels: tuple[str, str], threshold: float, date: dt.date, fmt: Formatter
) -> str:
    counts = result.rows["status"].to_list()
    intro = fmt.t(
        "compare.intro",
        old=labels[0],
        new=labels[1],
        threshold=fmt.number(threshold, 1),
        regressions=_many(fmt, "compare.regressions", counts.count("regression")),
        improvements=_many(fmt, "compare.improvements", counts.count("improvement")),
    )
    parts = [T.heading(fmt.t("compare.heading")), T.paragraph(intro)]
    parts.append(T.paragraph(rule(result, fmt)))
    if result.notes:
        parts.append(T.bullets(note.text(fmt.t) for note in result.notes))
    parts += [T.table(table(result, fmt)), *_one_side(result, labels, fmt)]
    parts += _charts(result, labels, fmt)
    title = fmt.t("compare.doc_title", old=labels[0], new=labels[1])
    return T.document(T.Meta(fmt, title, date, author="iopress"), parts)
