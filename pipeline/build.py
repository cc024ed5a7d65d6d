"""The whole chain for one report folder: ingest, normalise, compute, charts, PDFs, site.

The output stages import their modules (altair, typst, mkdocs …) when they run, so a
build refused for its input answers before paying for them.

Output is built in a temporary folder beside the target and moved into place only when
everything succeeded, so a failed build never replaces a good earlier one.
"""

from __future__ import annotations

import contextlib
import datetime as dt
import functools
import itertools
import os
import shutil
import tempfile
from collections.abc import Callable, Iterator, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

import polars as pl

from pipeline import ingest, repeats
from pipeline.compute import registry
from pipeline.compute.compare import Settings
from pipeline.config import (
    LANGS,
    REPORT_FILE,
    Edition,
    Presentation,
    Repeats,
    Report,
    load_report,
    provenance_files,
)
from pipeline.csvfile import write_csv
from pipeline.dataset import HIVE, Dataset, write, write_hive
from pipeline.errors import InputError, InputErrors
from pipeline.ingest import fio, spc1
from pipeline.ingest.base import ReadOptions, Reject, interval_frame, problems
from pipeline.inputs import hard_links, inside, ledger
from pipeline.language.fmt import Formatter
from pipeline.language.message import Message
from pipeline.language.strings import Strings
from pipeline.machine import load_machine
from pipeline.normalise import check_attributes, to_points
from pipeline.output import MARK, check_target, lock, scratch, staging, writing
from pipeline.paths import TEMPLATES
from pipeline.report import chapters, narrative
from pipeline.report.context import ReportContext
from pipeline.report.plan import COST_CHART, MAX_PTS_CHARTS, PTS_CHART, ChartRef, chart_plan
from pipeline.schema import INTERVAL_FIELDS, violations
from pipeline.validate import (
    as_frame,
    message,
    point_name,
    point_rounds,
    rounds,
    steady_table,
    validate,
    where,
    window_lines,
)

Step = Callable[[str], None]

if TYPE_CHECKING:
    from pipeline.charts.export import Pending


@dataclass(frozen=True)
class BuildResult:
    out: Path
    dataset: Dataset
    ctx: ReportContext


def ingest_report(folder: Path, report: Report, keep_going: bool = False) -> Dataset:
    """Read every raw file of the report. A file that cannot be read, holds no job or
    gives no accepted record fails the build; with ``keep_going`` it is listed among the
    rejects and the build goes on with the others."""
    jobs = [
        (
            inside(folder, src.path, folder / REPORT_FILE, src.place(i)),
            ReadOptions(
                system=report.system.name,
                setup=src.setup,
                label=src.path,
                mapping=src.mapping or ReadOptions().mapping,
                params=src.params.options() if src.params else None,
                root=folder,
                units=report.units,
            ),
            src.format,
        )
        for i, src in enumerate(report.sources)
    ]
    results, errors, failed = split_outcomes(jobs, ingest.read_many(jobs), keep_going)
    if errors:
        raise InputErrors(errors)
    names = functools.partial(host_names, report, folder / REPORT_FILE, not failed)
    return combine(results, failed, names, report.repeats)


def host_names(report: Report, toml: Path, check: bool, found: list[str]) -> dict[str, str]:
    """The report's name (``[[hosts]]``) for each host name ``found`` in the data: a raw
    name matches itself, and one without a port the tool's one ``name:port`` (fio client/
    server; two servers on one address stay apart). A raw name no tool gave is an error
    when ``check`` (no file failed, whose hosts might be missing): the report would state
    a mapping the data does not have."""
    mapping: dict[str, str] = {}
    unknown: list[InputError] = []
    for i, host in enumerate(report.hosts):
        for j, raw in enumerate(host.raw):
            ported = _ported(raw, found)
            same = [raw] if raw in found else ported if len(ported) == 1 else []
            mapping |= dict.fromkeys(same, host.name)
            if not same:
                where = f"hosts[{i}].raw[{j}]"
                listed = ", ".join(sorted(found))
                said = f"no host {raw!r} in the data (its hosts: {listed})"
                unknown.append(InputError(toml, where, said, HOST_HINT))
    if unknown and check:
        raise InputErrors(unknown)
    return mapping


HOST_HINT = "write the name as the tool gives it (host or host:port), or leave it out"


def split_outcomes(
    jobs: list[ingest.Job], outcomes: list[ingest.Outcome], keep_going: bool
) -> tuple[list[ingest.ReadResult], list[InputError], list[InputError]]:
    """(results, errors that stop the command, files that failed as a whole). A file that
    cannot be read or holds no job, or none of whose records is accepted, is an error;
    with ``keep_going`` it is listed instead (its rejects, or itself as one reject)."""
    results, errors, failed = [], [], []
    for (path, _, _), outcome in zip(jobs, outcomes, strict=True):
        if isinstance(outcome, ingest.ReadResult):
            results.append(outcome)
            found = problems(outcome, path)
            errors += [] if keep_going else found
            failed += found if keep_going and not outcome.records_read else []
        else:
            found = outcome.errors if isinstance(outcome, InputErrors) else [outcome]
            (failed if keep_going else errors).extend(found)
    return results, errors, failed


def combine(
    results: list[ingest.ReadResult],
    failed: Sequence[InputError] = (),
    hosts: Callable[[list[str]], dict[str, str]] | None = None,
    rule: Repeats = "refuse",
) -> Dataset:
    """All files' interval rows, checked once more against the schema's declared checks;
    files that ``failed`` as a whole count as one rejected record each (--keep-going).
    ``hosts`` names the hosts found (``[[hosts]]``) before a point read twice is looked
    for: fio's JSON says ``perf36:8765`` where its logs' folder says ``perf36``. A point
    measured in several runs is resolved by ``rule`` (report.toml ``repeats``)."""
    intervals = _in_file_order(results)
    mapping = hosts(intervals["host"].unique().sort().to_list()) if hosts else {}
    if mapping:
        intervals = intervals.with_columns(pl.col("host").replace(mapping))
    intervals, schema_rejects = _schema_rejects(intervals)
    check_attributes(intervals)  # before runs of one point are looked for: 1:1 and 2:1
    run_of = repeats.runs(results)
    intervals, twice, again = _read_twice(intervals, run_of)
    found = _repeated(intervals, results, run_of, rule)
    intervals, older = repeats.apply(intervals, rule, found)
    intervals = intervals.drop("_host", repeats.RUN)
    rejects = [rej for r in results for rej in r.rejects] + schema_rejects + twice + older
    finals = interval_frame([row for r in results for row in r.reference])
    finals = finals.with_columns(pl.col("host").replace(mapping)) if mapping else finals
    rejects += [_failed(e) for e in failed]
    notes = [f"{r.source}: {n}" for r in results for n in r.notes]
    read = sum(r.records_read for r in results) + len(failed)
    sidecars = {r.source: r.sidecars for r in results if r.sidecars}
    formats = {r.source: r.format for r in results}
    references = pl.concat([again, finals])
    points = to_points(intervals, finals)
    return Dataset(intervals, points, rejects, read, notes, sidecars, formats, found, references)


def _failed(err: InputError) -> Reject:
    """A file that failed as a whole (--keep-going): one reject, the error's words."""
    where = Message.of("where.text", text=err.where) if err.where else Message.of("where.file")
    return Reject(str(err.path), where, Message.of("file_failed", message=err.message))


def _in_file_order(results: list[ingest.ReadResult]) -> pl.DataFrame:
    """One frame of every file's rows, in the order of the files (the "read twice" check
    keeps the first file's): each file's own frame, or the shared frame of consecutive
    files (``Batch``; files read one by one get theirs here)."""
    ingest.batched(results)
    frames: list[pl.DataFrame] = []
    for shared, run in itertools.groupby(results, key=lambda r: r.batch):
        members = list(run)
        if shared is None:
            frames += [m.frame for m in members if m.frame is not None]
        elif sum(m.span[1] for m in members) == shared.frame.height:
            frames.append(shared.frame)
        else:  # some files of the batch are not here
            frames += [m.intervals for m in members]
    return pl.concat([*frames, interval_frame([])])


def _read_twice(
    intervals: pl.DataFrame, run_of: dict[str, str]
) -> tuple[pl.DataFrame, list[Reject], pl.DataFrame]:
    """The same host and point from two views of one run (a fio JSON and its own logs,
    ``repeats.runs``) would be summed as if concurrent, or its windows averaged with the
    whole run's: the first file's rows are kept, the others' rejected, whatever their
    intervals. A host named once with its port and once without (fio client/server's JSON
    says ``perf36:8765``, the logs' folder ``perf36``) is one host here, as in
    ``host_names``. The rows kept carry ``_host`` and their run (``repeats.RUN``)."""
    key = [*repeats.KEY, repeats.RUN]
    alias = _same_host(intervals["host"].unique().to_list())
    intervals = intervals.with_columns(
        pl.col("host").replace(alias).alias("_host"),
        pl.col("source").replace(run_of).alias(repeats.RUN),
    )
    first = intervals.group_by(key, maintain_order=True).agg(pl.col("source").first())
    marked = intervals.join(
        first.rename({"source": "_first"}), on=key, how="left", nulls_equal=True
    )
    clash = pl.col("source") != pl.col("_first")
    rejects = [
        Reject(
            r["source"],
            Message.of("where.line", line=r["line"]),
            Message.of("read_twice", first=r["_first"]),
        )
        for r in marked.filter(clash).iter_rows(named=True)
    ]
    again = marked.filter(clash).drop("_first", "_host", repeats.RUN)
    return marked.filter(~clash).drop("_first"), rejects, again


def _repeated(
    intervals: pl.DataFrame,
    results: list[ingest.ReadResult],
    run_of: dict[str, str],
    rule: Repeats,
) -> list[repeats.Repeat]:
    """The host's points measured in several runs, oldest run first; refused by default
    (every file of each named), and by ``mean`` where the hosts of a point have
    different numbers of runs."""
    if rule == "refuse":
        found = repeats.find(intervals)
        if found:
            raise InputErrors(_refused(found))
        return found
    if rule == "mean" and (uneven := repeats.uneven(intervals)):
        raise InputErrors([_uneven(p) for p in uneven])
    return repeats.find(intervals, repeats.stamps(results, run_of))


REPEATS_HINT = (
    'say in report.toml which to use: repeats = "newest" (the most recent run) or '
    '"mean" (their mean; iopress ingest: --repeats), or leave out the runs not wanted '
    "(see docs/report.md)"
)


def _refused(found: list[repeats.Repeat]) -> list[InputError]:
    """One error per set of files measuring the same points, naming each point."""
    fmt = Formatter(Strings("en"))
    by_files: dict[tuple[str, ...], list[str]] = {}
    for r in found:
        by_files.setdefault(r.runs, []).append(f"{point_name(r.point, fmt)} (host {r.host})")
    return [
        InputError(
            runs[0],
            "",
            f"{_points(points)} measured in {len(runs)} runs, one in each of {', '.join(runs)}",
            REPEATS_HINT,
        )
        for runs, points in by_files.items()
    ]


def _points(names: list[str], shown: int = 3) -> str:
    more = f" and {len(names) - shown} more points" if len(names) > shown else ""
    return ("the point " if len(names) == 1 else "the points ") + "; ".join(names[:shown]) + more


def _uneven(point: dict[str, Any]) -> InputError:
    name = point_name(point, Formatter(Strings("en")))
    return InputError(
        REPORT_FILE,
        "repeats",
        f"the hosts of {name} were measured in different numbers of runs: "
        "their mean would add some hosts' runs to nothing",
        'give every host\'s runs, or use repeats = "newest"',
    )


def _ported(name: str, hosts: list[str]) -> list[str]:
    """The ``name:port`` among ``hosts`` of a host name without a port."""
    return [] if ":" in name else [h for h in hosts if ":" in h and h.rsplit(":", 1)[0] == name]


def _same_host(hosts: list[str]) -> dict[str, str]:
    """Each host name without a port that the data also has with exactly one port."""
    return {h: p[0] for h in hosts if len(p := _ported(h, hosts)) == 1}


def _schema_rejects(intervals: pl.DataFrame) -> tuple[pl.DataFrame, list[Reject]]:
    """Rows a reader let through but the schema refuses become rejects, never silent drops."""
    bad = violations(intervals, INTERVAL_FIELDS)
    if bad.is_empty():
        return intervals, []
    rows = bad["_row"].unique().to_list()
    rejects = [
        Reject(
            str(intervals["source"][r]),
            Message.of("where.line_field", line=intervals["line"][r], field=repr(c)),
            Message.of("schema", value=repr(v)),
        )
        for r, c, v in bad.unique("_row", keep="first", maintain_order=True).iter_rows()
    ]
    keep = intervals.with_row_index("_row").filter(~pl.col("_row").is_in(rows)).drop("_row")
    return keep, rejects


def prepare(folder: Path, keep_going: bool = False) -> ReportContext:
    """Everything a build reads, read once: the report, its texts and data, ready to
    write. Each file is hashed as it is read, inside the folder (``inputs.ledger``)."""
    with ledger(folder, spc1.CATALOGUE) as book:
        ctx = _prepare(folder, keep_going)
        ctx.seen = book.seen
        ctx.dataset.notes += hard_links(folder, book.seen)
        ctx.inputs()  # the files only listed (method files) are read now, inside too
    return ctx


def _prepare(folder: Path, keep_going: bool = False) -> ReportContext:
    report = load_report(folder)
    registry.check_names(report, folder / REPORT_FILE)
    texts = narrative.load(folder, chapters.texts(report))
    dataset = ingest_report(folder, report, keep_going)
    if dataset.points.is_empty():
        raise InputError(
            folder,
            "sources",
            "no record was accepted from the raw files",
            "see the rejected records listed above",
        )
    records = spc1.load_all(report.spc1, folder, folder / REPORT_FILE)
    inputs = registry.Inputs(dataset.points, report, records)
    tables = registry.compute_all(inputs)
    plan = chart_plan(report, dataset.points, folder / REPORT_FILE)
    ctx = ReportContext(
        folder,
        report,
        dataset,
        tables,
        registry.shown(inputs, tables),
        texts,
        plan,
        records,
        validate(dataset, report),
        histograms=histograms(folder, plan),
        steady=steady_table(dataset.intervals),
    )
    ctx.read = files_read(folder, report, texts)
    found = provenance_files(folder, report)
    ctx.machines = [load_machine(p) for p in found["machines"]]
    ctx.read += [(p, key) for key in ("machines", "method") for p in found[key]]
    ctx.fill_narrative()
    _check_texts(ctx)
    return ctx


def _check_texts(ctx: ReportContext) -> None:
    """The chapters leave out nothing the report holds, and every image of the texts is
    there and sound (read now, with the other inputs)."""
    from pipeline.render import pictures

    placed = set().union(*(ctx.placed(lang) for lang in LANGS))
    problems = chapters.unlisted(ctx.report, ctx.shown, ctx.chart_stems(), placed)
    problems += chapters.own_texts(ctx.report, ctx.folder, ctx.narrative)
    problems += pictures.read_all(ctx)
    if problems:
        raise InputErrors(problems)


def histograms(folder: Path, plan: list[ChartRef]) -> dict[str, pl.DataFrame]:
    """The latency bins of every histogram chart, read now with the other inputs."""
    return {
        ref.stem: fio.latency_bins(folder / (ref.source or ""), ref.job)
        for ref in plan
        if ref.kind == "histogram"
    }


def files_read(
    folder: Path, report: Report, texts: dict[str, dict[str, narrative.Section]]
) -> list[tuple[Path, str]]:
    """The files besides the raw data that a build reads (for the provenance table)."""
    found = [(folder / REPORT_FILE, "report")]
    found += [(s.path, "narrative") for sections in texts.values() for s in sections.values()]
    found += [
        (spc1.resolve(name, folder, folder / REPORT_FILE, f"spc1[{i}]"), "SPC-1")
        for i, name in enumerate(report.spc1)
    ]
    found += [(folder / c.source, "chart") for c in report.charts or [] if c.source]
    return found


def write_data(ctx: ReportContext, work: Path) -> None:
    stored = Settings.of(ctx.report).stored()
    write(ctx.dataset, work / "dataset.parquet", stored, Presentation.of(ctx.report))
    write_hive(ctx.dataset, work / HIVE, ctx.report.id)
    (work / "tables").mkdir()
    for name, table in ctx.tables.items():
        write_csv(table, work / "tables" / f"{name}.csv")
    write_workbook(ctx, work / "tables" / "tables.xlsx")
    write_csv(ctx.dataset.rejects_frame(), work / "rejects.csv")
    write_csv(as_frame(ctx.problems, ctx.formatter("en")), work / "validation.csv")
    write_csv(ctx.steady, work / "steady_state.csv")
    from pipeline import manifest

    manifest.write(ctx, work / "manifest.json")


def write_workbook(ctx: ReportContext, path: Path) -> None:
    """Every table as one sheet of an XLSX workbook, dated by the report (reproducible);
    made in memory (xlsxwriter otherwise writes a temporary file per part into TMPDIR).
    A text is a text: xlsxwriter would turn one that starts with "=" into a live formula
    and one that looks like an address into a link (a name in the report could do so)."""
    import datetime as dt

    import xlsxwriter

    d = ctx.report.date
    options = {"in_memory": True, "strings_to_formulas": False, "strings_to_urls": False}
    with xlsxwriter.Workbook(str(path), options) as book:
        book.set_properties(
            {"created": dt.datetime(d.year, d.month, d.day), "title": ctx.report.title["en"]}
        )
        for name, table in ctx.tables.items():
            table.write_excel(workbook=book, worksheet=name[:31])


def start_charts(ctx: ReportContext, work: Path) -> Pending:
    """Start drawing every chart of the plan (and the cost chart) in both languages."""
    return _draw(ctx, ctx.charts, work, whole=True)


def _draw(ctx: ReportContext, refs: list[ChartRef], work: Path, whole: bool) -> Pending:
    """``refs`` in both languages into ``work/charts``; with ``whole`` also the charts of
    the whole report beyond its plan (the cost chart, the PTS measurement windows). Each
    chart goes to Vega as soon as it is specified: the first one starts its engine."""
    from pipeline.charts.export import start_saving

    (work / "charts").mkdir()
    return start_saving(_chart_jobs(ctx, refs, work, whole))


def _chart_jobs(
    ctx: ReportContext, refs: list[ChartRef], work: Path, whole: bool
) -> Iterator[tuple[Any, Path, Formatter, tuple[str, ...]]]:
    from pipeline.charts import CHARTS
    from pipeline.charts.draw import draw
    from pipeline.charts.export import KINDS

    for lang in LANGS:
        fmt = ctx.formatter(lang)
        for ref in refs:
            chart = draw(ref, ctx.dataset.points, ctx.histograms.get(ref.stem), fmt)
            yield chart, work / "charts" / f"{ref.stem}.{lang}", fmt, KINDS
        if whole and "cost" in ctx.tables:
            chart = CHARTS["cost"](ctx.cost_frame(lang), fmt)
            yield chart, work / "charts" / f"{COST_CHART}.{lang}", fmt, KINDS
        if whole:
            yield from _steady_charts(ctx, work, fmt)


def _steady_charts(ctx: ReportContext, work: Path, fmt: Formatter) -> list[Any]:
    """The PTS measurement-window chart of the first points that are not steady."""
    from pipeline.charts.export import KINDS
    from pipeline.charts.steady import steady_chart

    unsteady = ctx.unsteady(MAX_PTS_CHARTS)
    if not unsteady:
        return []
    jobs, found = [], rounds(ctx.dataset.intervals)
    for i, row in enumerate(unsteady, 1):
        lines = window_lines(point_rounds(found, row), row)
        title = fmt.t("chart.pts_title", point=point_name(row, fmt))
        path = work / "charts" / f"{PTS_CHART}-{i}.{fmt.t.lang}"
        jobs.append((steady_chart(lines, fmt, title), path, fmt, KINDS))
    return jobs


def write_sources(ctx: ReportContext, work: Path) -> list[Path]:
    """The typst sources of the whitepapers and the datasheets, in both languages."""
    from pipeline.render import datasheet, whitepaper
    from pipeline.render.typst_doc import TEMPLATE_NAME

    shutil.copy(TEMPLATES / "typst" / TEMPLATE_NAME, work / TEMPLATE_NAME)
    sources = []
    for lang in LANGS:
        source = work / f"{ctx.report.id}.{lang}.typ"
        source.write_text(whitepaper.body(ctx, lang), encoding="utf-8")
        sources.append(source)
    return sources + datasheet.sources(ctx, work, TEMPLATES / "typst")


def compile_pdfs(sources: list[Path], work: Path, date: dt.date) -> None:
    """Each source beside it as PDF, on two threads (typst releases the GIL)."""
    from pipeline.render.typst_doc import compile_pdf

    with ThreadPoolExecutor(2, thread_name_prefix="iopress-pdf") as pool:
        done = [pool.submit(compile_pdf, s, s.with_suffix(".pdf"), work, date) for s in sources]
    for future in done:
        future.result()


def write_datasheets(folder: Path, out: Path) -> list[Path]:
    """Only the datasheets, into ``out`` (made atomically: a failure leaves it untouched)."""
    from pipeline.render import datasheet

    out = check_target(out, folder)
    ctx = prepare(folder)
    with lock(out), writing(out), _datasheet_scratch(out) as tmp:
        ref = datasheet.chart(ctx)
        _draw(ctx, [ref] if ref else [], Path(tmp), whole=False).wait()
        written = datasheet.write(ctx, Path(tmp), TEMPLATES / "typst")
        final = [out / p.name for p in written]
        for src, dst in zip(written, final, strict=True):
            os.replace(src, dst)
    return final


@contextlib.contextmanager
def _datasheet_scratch(out: Path) -> Iterator[str]:
    out.mkdir(parents=True, exist_ok=True)
    (out / MARK).touch()
    with tempfile.TemporaryDirectory(dir=out, prefix=".datasheet-") as tmp:
        yield tmp


def draw_compare(points: pl.DataFrame, fmt: Formatter, title: str, stem: Path) -> None:
    """One comparison chart of the site: SVG, and the Vega-Lite spec the page draws."""
    from pipeline.charts.export import save
    from pipeline.charts.family import compare_chart

    written = save(compare_chart(points, fmt, title), stem, fmt, kinds=("svg", "vl.json"))
    written["vl.json"].rename(stem.with_name(f"{stem.name}-spec.json"))


def write_site(ctx: ReportContext, work: Path) -> None:
    """The site, with stand-ins for the charts and PDFs still being made (``fill_site``)."""
    from pipeline.render import site

    with scratch(work / "site") as tmp:
        site.build_site([site.Built(ctx, work)], tmp / "docs", work / "site", draw_compare)


def fill_site(ctx: ReportContext, work: Path) -> None:
    from pipeline.render import site

    site.fill([site.Built(ctx, work)], work / "site")


STAGES = ("ingest", "charts", "data", "pdf", "site", "finish")


def write_outputs(ctx: ReportContext, work: Path, say: Step) -> None:
    """Every output of a build. The charts are drawn beside it (Vega's process) while the data
    files, the document sources and the site are written; the PDFs are compiled once
    their charts are there, and the site gets its charts and PDFs last."""
    from pipeline.render import pictures, sanitize

    say("charts")
    charts = start_charts(ctx, work)
    texts = [(f.text, f.path) for lang in LANGS for f in ctx.filled[lang].values()]
    sanitize.prefetch(texts, ("typst", "html"))
    say("data")
    write_data(ctx, work)
    say("pdf")
    pictures.write(ctx, work)
    sources = write_sources(ctx, work)
    say("site")
    write_site(ctx, work)
    say("finish")
    charts.wait()
    compile_pdfs(sources, work, ctx.report.date)
    fill_site(ctx, work)


def refuse(ctx: ReportContext, strict: bool, require_steady: bool = False) -> None:
    """Validation errors always stop the build; with ``strict`` warnings do too (findings
    and deprecated placeholder names), and with ``require_steady`` every point that is not
    judged steady (SNIA PTS)."""
    fatal = [p for p in ctx.problems if p.severity == "error" or strict]
    if require_steady:
        _require_steady(ctx)
    fmt = ctx.formatter("en")  # the report's words (per VM where load came from VMs)
    errors = [
        InputError(
            ctx.folder,
            where(p, fmt),
            message(p, fmt),
            "fix the raw data, or build without --strict to see warnings in the report",
        )
        for p in fatal
    ]
    errors += [d.error() for d in ctx.deprecated()] if strict else []
    if errors:
        raise InputErrors(errors)


def _require_steady(ctx: ReportContext) -> None:
    fmt = ctx.formatter("en")
    rows = ctx.steady.filter(pl.col("verdict") != "steady").iter_rows(named=True)
    found = [
        InputError(
            ctx.folder,
            point_name(row, fmt),
            f"{row['verdict']} (SNIA PTS over the last 5 rounds; {row['rounds']} measured)",
            "measure more or longer rounds, or build without --require-steady",
        )
        for row in rows
    ]
    if found:
        raise InputErrors(found)


def build(
    folder: Path,
    out: Path,
    step: Step | None = None,
    strict: bool = False,
    keep_going: bool = False,
    require_steady: bool = False,
    edition: Edition | None = None,
) -> BuildResult:
    """Build one report into ``out`` (refused unless it is missing, empty or an earlier
    output); a failure leaves the earlier output as it was. ``edition`` in place of
    report.toml's (``--edition``)."""
    out = check_target(out, folder)
    say = step or (lambda _: None)
    say("ingest")
    ctx = prepare(folder, keep_going)
    if edition is not None:
        ctx.report = ctx.report.model_copy(update={"edition": edition})
    refuse(ctx, strict, require_steady)
    from pipeline.vlrender import renderer

    renderer()  # Vega's process and engine start (≈ 0.8 s) beside the first steps of writing
    with staging(out) as work:
        write_outputs(ctx, work, say)
    return BuildResult(out, ctx.dataset, ctx)


def build_many(folders: list[Path], out: Path, step: Step | None = None) -> list[BuildResult]:
    """Each report into ``out/<id>/``, and one site listing them all into ``out/site``."""
    out = check_target(out)
    for folder in folders:
        check_target(out, folder)
    ids = [load_report(folder).id for folder in folders]
    if len(set(ids)) != len(ids):
        raise InputError(out, "", "two reports have the same id", "give each report its own id")
    with lock(out):
        with writing(out):
            out.mkdir(parents=True, exist_ok=True)
            (out / MARK).write_text("iopress output\n", encoding="utf-8")
        pairs = zip(folders, ids, strict=True)
        results = [build(folder, out / rid, step) for folder, rid in pairs]
        write_combined_site(results, out / "site")
    return results


def write_combined_site(results: list[BuildResult], target: Path) -> None:
    """One site listing the built reports ``results`` (each with its PDFs), into ``target``."""
    from pipeline.render import site

    with staging(target) as work, scratch(target) as tmp:
        # mkdocs empties its site folder first, but keeps dot files such as the mark
        built = [site.Built(r.ctx, r.out) for r in results]
        site.build_site(built, tmp / "docs", work, draw_compare)
        site.fill(built, work)
