"""The appendix, generated from the data: definitions, data quality, provenance."""

from __future__ import annotations

from typing import Any

import polars as pl

from pipeline.language.fmt import Formatter
from pipeline.machine import Machine
from pipeline.provenance import LARGE, MANY, InputFile, grouped, versions
from pipeline.render import typst_doc as T
from pipeline.report.context import ReportContext
from pipeline.report.plan import MAX_PTS_CHARTS, PTS_CHART, has_latency, hosts_summed, words_key
from pipeline.report.views import Span, TableView, held, optimum_verdict
from pipeline.validate import Problem, message, point_name, where

MAX_REJECTS = 25
DEFINITIONS = ("service", "parallelism", "totals", "optimum", "units", "deviation")


def _varying(frame: pl.DataFrame) -> set[str]:
    """Which of setup and queue depth take more than one value in ``frame``."""
    return {k for k in ("setup", "queue_depth") if frame[k].n_unique() > 1}


def _profile_label(row: dict[str, Any], fmt: Formatter, varying: set[str]) -> str:
    """A profile as a row names it: with its setup and queue depth where those vary, and
    its target rate where it has one (a rate sweep)."""
    label = (
        f"{fmt.block(int(row['block_size']))} "
        f"{fmt.t.access(str(row['access']))} {fmt.t.mix(float(row['read_pct']), True)}"
    )
    if "setup" in varying:
        label = f"{label} ({fmt.setup(str(row['setup']))})"
    if "queue_depth" in varying:
        label = fmt.t("appendix.label_qd", label=label, qd=fmt.integer(row["queue_depth"]))
    if row.get("target_iops") is not None:
        rate = fmt.integer(row["target_iops"])
        label = fmt.t("appendix.label_rate", label=label, rate=rate)
    return label


def deviation_view(points: pl.DataFrame, fmt: Formatter) -> TableView:
    """Rows: profiles (per queue depth and target rate); columns: parallelism levels;
    cells: interval deviation in %."""
    levels = sorted(points["parallelism"].unique().to_list())
    keys = ["setup", "access", "block_size", "read_pct", "queue_depth", "target_iops"]
    varying = _varying(points)
    rows = []
    order = [False, False, False, True, False, False]
    for key, group in points.sort(keys, descending=order, nulls_last=True).group_by(
        keys, maintain_order=True
    ):
        by_level = {
            p: (dev, n)
            for p, dev, n in zip(
                group["parallelism"], group["iops_dev_pct"], group["intervals"], strict=True
            )
        }
        row = dict(zip(keys, key, strict=True))
        cells = [[Span(_deviation(by_level.get(p), fmt))] for p in levels]
        rows.append([[Span(_profile_label(row, fmt, varying))], *cells])
    header = ["", *[fmt.integer(p) for p in levels]]
    single = bool((points["intervals"] == 1).any())
    note = fmt.t("appendix.single_note") if single else ""
    return TableView("deviation", fmt.t("appendix.deviation_caption"), header, rows, note)


def optimum_view(perf: pl.DataFrame, fmt: Formatter) -> TableView:
    """Per profile: where the optimum is, by how much the next step misses, the noise."""
    varying = _varying(perf)
    rows = []
    for row in perf.filter(pl.col("kind") == "optimum").iter_rows(named=True):
        miss, noise = row["shortfall_pp"], row["noise_pct"]
        none = fmt.t("table.none")
        cells = [  # the optimum's target rate stands in its own cell ("at"), not the label
            _profile_label({**row, "target_iops": None}, fmt, varying),
            held(fmt, row, fmt.integer(row["parallelism"])),
            fmt.number(miss, 1) if miss is not None else none,
            fmt.number(noise, 1) if noise is not None else none,
            fmt.t(f"appendix.verdict_{optimum_verdict(row)}"),
        ]
        rows.append([[Span(c)] for c in cells])
    keys = ("profile", "at", "miss", "noise", "verdict")
    header = [fmt.t(f"appendix.optimum_{k}") for k in keys]
    return TableView("optimum", fmt.t("appendix.optimum_caption"), header, rows, words=(4,))


def _deviation(found: tuple[float, int] | None, fmt: Formatter) -> str:
    """The deviation in %, "1 int." where one interval leaves nothing to deviate."""
    if found is None:
        return fmt.t("table.none")
    deviation, intervals = found
    return fmt.t("appendix.single") if intervals == 1 else fmt.number(deviation, 1)


def rejects_view(ctx: ReportContext, fmt: Formatter) -> TableView:
    rejects = ctx.dataset.rejects
    rows = [
        [[Span(r.source)], [Span(r.where.text(fmt.t))], [Span(r.reason.text(fmt.t))]]
        for r in rejects[:MAX_REJECTS]
    ]
    if len(rejects) > MAX_REJECTS:
        more = fmt.t("appendix.more_rejects", n=fmt.integer(len(rejects) - MAX_REJECTS))
        rows.append([[Span(more)], [Span("")], [Span("")]])
    header = [fmt.t(f"appendix.{k}") for k in ("file", "where", "reason")]
    return TableView("rejects", fmt.t("appendix.rejects_caption"), header, rows, words=(1, 2))


def files_view(ctx: ReportContext, fmt: Formatter) -> TableView:
    """Every input with its size and SHA-256; a large folder's files as one row."""
    files, groups = grouped(ctx.inputs())
    rows = [
        [
            [Span(f.path)],
            [Span(fmt.integer(f.size))],
            [Span(f.sha256[i : i + 32], "mono") for i in range(0, 64, 32)],
            [Span(_kind(f, groups, fmt))],
        ]
        for f in files
    ]
    header = [fmt.t(f"appendix.{k}") for k in ("file", "size", "sha256", "tool")]
    many = fmt.integer(MANY)
    notes = (
        [fmt.t("appendix.folder_note", n=fmt.integer(LARGE), many=many)] if _folders(groups) else []
    )
    notes += [fmt.t("appendix.group_note")] if len(_folders(groups)) < len(groups) else []
    caption = fmt.t("appendix.files_caption")
    # the SHA-256 in two lines of 32 digits, not four narrow ones beside a wide tool column
    widths = ("4fr", "auto", "5fr", "2fr")
    return TableView(
        "files", caption, header, rows, note=" ".join(notes), words=(2, 3), widths=widths
    )


def _folders(groups: dict[str, int]) -> list[str]:
    """The summary rows of top folders (``raw/``), not of method files (``jobs/*``)."""
    return [name for name in groups if not name.endswith("/*")]


def _kind(f: InputFile, groups: dict[str, int], fmt: Formatter) -> str:
    """What a file is (its tools where it states them), in the report's language where
    iopress names it; how many files a summary row stands for."""
    if f.path in groups:
        n = groups[f.path]
        key = "appendix.kind_group" if f.path.endswith("/*") else "appendix.kind_folder"
        files = fmt.t.count(key, n, n=fmt.integer(n))
        return fmt.t("appendix.kind_tools", files=files, tools=f.tools) if f.tools else files
    if f.tools:
        return f.tools
    if f.format in ("report", "narrative", "image", "chart", "machines", "method"):
        return fmt.t(f"appendix.kind_{f.format}")
    return f.format


def _gib(size: int | None, fmt: Formatter) -> str:
    return fmt.t("appendix.machine_gib", n=fmt.number(size / 2**30, 1)) if size else ""


def machine_view(machine: Machine, fmt: Formatter) -> TableView:
    """One load generator as the machine description states it."""
    values = {
        "host": fmt.t("appendix.machine_local") if machine.host == "local" else machine.host,
        "hostname": machine.hostname,
        "fio": machine.fio,
        "kernel": machine.kernel,
        "cpu": machine.cpu + (f" ({fmt.integer(machine.cpus)})" if machine.cpus else ""),
        "memory": _gib(machine.memory_bytes, fmt),
        "targets": "; ".join(f"{p}: {m}" if m else p for p, m in machine.targets.items()),
        "servers": ", ".join(machine.servers),
    }
    rows = [[[Span(fmt.t(f"appendix.machine_{k}"))], [Span(v)]] for k, v in values.items() if v]
    if machine.command:
        rows.append([[Span(fmt.t("appendix.machine_command"))], [Span(machine.command, "mono")]])
    where = "" if machine.host == "local" else f" ({machine.host})"  # servers may share a host
    caption = fmt.t("appendix.machine_caption", host=machine.hostname + where)
    return TableView("machine", caption, [fmt.t("appendix.property"), ""], rows, words=(1,))


def versions_view(fmt: Formatter) -> TableView:
    rows = [[[Span(name)], [Span(version)]] for name, version in versions().items()]
    header = [fmt.t("appendix.component"), fmt.t("appendix.version")]
    return TableView("versions", fmt.t("appendix.versions_caption"), header, rows, words=(1,))


MAX_PROBLEMS = 40


def validation_view(ctx: ReportContext, fmt: Formatter) -> TableView:
    shown = ctx.problems[:MAX_PROBLEMS]
    rows = [
        [
            [Span(rule_name(p.rule, fmt))],
            [Span(fmt.t(f"validation.{p.severity}"))],
            [Span(where(p, fmt))],
            [Span(message(p, fmt))],
        ]
        for p in shown
    ]
    if len(ctx.problems) > MAX_PROBLEMS:
        more = fmt.t("validation.more", n=fmt.integer(len(ctx.problems) - MAX_PROBLEMS))
        rows.append([[Span(more)], [Span("")], [Span("")], [Span("")]])
    header = [fmt.t(f"validation.{k}") for k in ("rule", "severity", "where", "message")]
    # rule and severity are a word or two; the place and the finding take the rest
    widths = ("auto", "auto", "1fr", "2fr")
    return TableView(
        "validation", fmt.t("validation.caption"), header, rows, words=(1, 2, 3), widths=widths
    )


def rule_name(rule: str, fmt: Formatter) -> str:
    """A validation rule by its name in the language ("Little's law"), never its id
    (``littles-law``, which validation.csv keeps)."""
    return fmt.t(f"validation.rule_{rule.replace('-', '_')}")


def by_rule_view(ctx: ReportContext, fmt: Formatter) -> TableView:
    """One row per rule and severity: how many findings, and the first of them (the
    customer paper; every finding is in validation.csv)."""
    groups: dict[tuple[str, str], list[Problem]] = {}
    for p in ctx.problems:
        groups.setdefault((p.rule, p.severity), []).append(p)
    rows = [
        [
            [Span(rule_name(rule, fmt))],
            [Span(fmt.t(f"validation.{severity}"))],
            [Span(fmt.integer(len(found)))],
            [Span(f"{where(found[0], fmt)}: {message(found[0], fmt)}")],
        ]
        for (rule, severity), found in groups.items()
    ]
    header = [fmt.t(f"validation.{k}") for k in ("rule", "severity", "count", "example")]
    caption = fmt.t("validation.by_rule_caption")
    # rule, severity and count are short; the first finding, a sentence, takes the rest
    widths = ("auto", "auto", "auto", "1fr")
    return TableView("validation", caption, header, rows, words=(1, 3), widths=widths)


def steady_view(ctx: ReportContext, fmt: Formatter) -> TableView:
    """Every point that is not steady, with both excursions."""
    rows = [
        [
            [Span(point_name(row, fmt))],
            [Span(fmt.integer(row["rounds"]))],
            [Span(fmt.integer(row["window_mean"]))],
            [Span(fmt.number(row["data_pct"], 1))],
            [Span(fmt.number(row["slope_pct"], 1))],
        ]
        for row in ctx.unsteady()
    ]
    header = [fmt.t(f"appendix.steady_{k}") for k in ("point", "rounds", "mean", "data", "slope")]
    return TableView("steady", fmt.t("appendix.steady_caption"), header, rows)


def steady(ctx: ReportContext, fmt: Formatter) -> list[str]:
    """SNIA PTS steady state: how many points are steady, the ones that are not, and the
    measurement window of the first of them."""
    parts = [T.paragraph(steady_sentence(ctx, fmt))]
    if ctx.unsteady():
        parts.append(T.table(steady_view(ctx, fmt)))
    for i in range(1, len(ctx.unsteady(MAX_PTS_CHARTS)) + 1):
        stem = f"{PTS_CHART}-{i}"
        caption = fmt.t("appendix.steady_chart", point=point_name(ctx.unsteady()[i - 1], fmt))
        alt = fmt.t("chart.alt_pts")
        parts.append(T.figure(f"charts/{stem}.{fmt.t.lang}.svg", caption, alt, stem))
    return parts


def steady_sentence(ctx: ReportContext, fmt: Formatter) -> str:
    """How many points are steady; where no point has the rounds to judge, that it was
    not judged and why ("one interval per point"), not "0 steady, 0 not steady"."""
    verdicts = ctx.steady["verdict"].to_list() if not ctx.steady.is_empty() else []
    counts = {v: verdicts.count(v) for v in ("steady", "not steady", "not measurable")}
    if counts["steady"] + counts["not steady"] == 0:
        # full rounds, as the verdicts count them (fio's short remainder is none)
        found = ctx.steady.select(pl.col("rounds").max()) if "rounds" in ctx.steady else None
        most = int(found.item() or 0) if found is not None else 0
        rounds = fmt.t.count("appendix.steady_intervals", most, n=fmt.integer(most))
        return fmt.t("appendix.steady_none", rounds=rounds)
    return fmt.t(
        "appendix.steady_summary",
        steady=fmt.t.count(
            "appendix.steady_points", counts["steady"], n=fmt.integer(counts["steady"])
        ),
        unsteady=fmt.integer(counts["not steady"]),
        unmeasurable=fmt.integer(counts["not measurable"]),
    )


def validation(ctx: ReportContext, fmt: Formatter, brief: bool = False) -> list[str]:
    """The findings: per rule, or each one (report.toml ``findings``; ``brief``: per rule,
    the customer edition's)."""
    summary, view = findings(ctx, fmt, brief)
    parts = [T.heading(fmt.t("validation.title"), 2), T.paragraph(summary)]
    return parts + ([T.table(view)] if view is not None else [])


def findings(ctx: ReportContext, fmt: Formatter, brief: bool) -> tuple[str, TableView | None]:
    """How many findings there are, and their table (none where there are none)."""
    if not ctx.problems:
        return fmt.t("validation.none"), None
    errors = sum(p.severity == "error" for p in ctx.problems)
    warnings = len(ctx.problems) - errors
    summary = (
        fmt.t(
            "validation.summary",
            errors=fmt.t.count("validation.errors", errors, n=fmt.integer(errors)),
            warnings=fmt.t.count("validation.warnings", warnings, n=fmt.integer(warnings)),
        )
        if errors
        else fmt.t.count("validation.summary_clean", warnings, warnings=fmt.integer(warnings))
    )
    view = by_rule_view if brief or ctx.report.findings == "summary" else validation_view
    return summary, view(ctx, fmt)


def appendix(ctx: ReportContext, fmt: Formatter) -> list[str]:
    """The audit edition's appendix: everything; the customer edition's: a short data and
    method section naming where the audit material is (report.toml ``edition``)."""
    if ctx.report.edition == "customer":
        return data_and_method(ctx, fmt)
    counts = ctx.dataset.accounting()
    accounting = fmt.t(
        "appendix.accounting",
        read=fmt.integer(counts["records_read"]),
        accepted=fmt.integer(counts["accepted"]),
        rejected=fmt.integer(counts["rejected"]),
    )
    parts = [
        T.heading(fmt.t("appendix.title")),
        T.heading(fmt.t("appendix.definitions"), 2),
        T.bullets(definitions(ctx, fmt, DEFINITIONS)),
        T.heading(fmt.t("appendix.quality"), 2),
        T.paragraph(accounting),
    ]
    deviation = deviation_view(ctx.dataset.points, fmt)
    parts += [T.table(deviation), *([T.paragraph(deviation.note)] if deviation.note else [])]
    parts += steady(ctx, fmt) + _optimum(ctx, fmt)
    parts.append(
        T.table(rejects_view(ctx, fmt))
        if ctx.dataset.rejects
        else T.paragraph(fmt.t("appendix.no_rejects"))
    )
    parts += validation(ctx, fmt)
    files = files_view(ctx, fmt)
    parts += [
        T.heading(fmt.t("appendix.provenance"), 2),
        *(T.table(machine_view(m, fmt)) for m in ctx.machines),
        T.table(files),
        *([T.paragraph(files.note)] if files.note else []),
        T.table(versions_view(fmt)),
    ]
    return parts


def definitions(ctx: ReportContext, fmt: Formatter, keys: tuple[str, ...]) -> list[str]:
    """The definitions; where no point has a latency, none of service time or optimum."""
    timed = has_latency(ctx.dataset.points)
    keys = tuple(k for k in keys if timed or k != "service")
    if hosts_summed(ctx.dataset.points):  # vdbench's totals: no "per server"
        keys = tuple(f"{k}_summed" if k in ("parallelism", "totals") else k for k in keys)
    named = (f"appendix.def_{k}_{fmt.units}" if k == "units" else f"appendix.def_{k}" for k in keys)
    said = [fmt.t(words_key(key, timed)) for key in named]
    swept = ctx.dataset.points["target_iops"].is_not_null().any()
    if timed and swept and "optimum" in keys:  # the steps of a target-rate sweep
        said.append(fmt.t("appendix.def_rates"))
    return said


def _optimum(ctx: ReportContext, fmt: Formatter) -> list[str]:
    found = optimum_parts(ctx, fmt)
    return [T.paragraph(found[0]), T.table(found[1])] if found else []


def optimum_parts(ctx: ReportContext, fmt: Formatter) -> tuple[str, TableView] | None:
    """How sure each optimum is, with the rule's noise margin where the report has one:
    the sentence and the table; none without a latency (no optimum)."""
    if "performance" not in ctx.tables or not has_latency(ctx.dataset.points):
        return None
    margin = ctx.report.optimum_margin_pp
    intro = (
        fmt.t("appendix.optimum_intro_margin", margin=fmt.number(margin, 1))
        if margin
        else fmt.t("appendix.optimum_intro")
    )
    return intro, optimum_view(ctx.tables["performance"], fmt)


def data_basis(ctx: ReportContext, fmt: Formatter) -> str:
    """What the figures rest on: points, intervals, files, records read and rejected."""
    points, counts = ctx.dataset.points, ctx.dataset.accounting()
    files = ctx.dataset.intervals["source"].n_unique()
    intervals, read = int(points["intervals"].sum()), counts["records_read"]
    basis = fmt.t(
        "appendix.data_counts",
        points=fmt.t.count("appendix.measured_points", points.height, n=fmt.integer(points.height)),
        intervals=fmt.t.count(
            "appendix.measurement_intervals", intervals, n=fmt.integer(intervals)
        ),
        files=fmt.t.count("appendix.raw_files", files, n=fmt.integer(files)),
        read=fmt.t.count("appendix.records", read, n=fmt.integer(read)),
    )
    rejected = counts["rejected"]
    return f"{basis} " + (
        fmt.t.count("appendix.rejected", rejected, n=fmt.integer(rejected))
        if rejected
        else fmt.t("appendix.no_rejects")
    )


def data_and_method(ctx: ReportContext, fmt: Formatter) -> list[str]:
    """The customer edition's appendix: the definitions, what the figures rest on (points,
    intervals, files, records), steady state, the optimum's certainty, the findings by
    rule, and where the audit material is; no interval matrix, checksums or versions."""
    parts = [
        T.heading(fmt.t("appendix.data_title")),
        T.bullets(definitions(ctx, fmt, DEFINITIONS[:-1])),  # no deviation matrix to define
        T.paragraph(data_basis(ctx, fmt)),
        T.paragraph(steady_sentence(ctx, fmt)),
        *_optimum(ctx, fmt),
        *validation(ctx, fmt, brief=True),
    ]
    return [*parts, T.paragraph(fmt.t("appendix.audit_material"))]
