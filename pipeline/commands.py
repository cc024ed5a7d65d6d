"""What the ``iopress`` commands do; imported by the CLI only when a command needs it, so
that an up-to-date build answers before any heavy library loads."""

from __future__ import annotations

import contextlib
import difflib
import os
import tempfile
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import cast

from rich.markup import escape
from rich.progress import BarColumn, Progress, TextColumn, TimeElapsedColumn
from rich.table import Table
from rich.text import Text

from pipeline import cache, validate
from pipeline.build import STAGES, build
from pipeline.compute.compare import METRICS, Comparison, Metric, Settings
from pipeline.compute.registry import measured, shown_of
from pipeline.config import RENAME, REPORT_FILE, Edition, Repeats
from pipeline.console import err_console, out_console, print_error
from pipeline.csvfile import write_csv
from pipeline.dataset import (
    Dataset,
    intervals_path,
    read_figures,
    read_points,
    read_presentation,
    write,
)
from pipeline.dataset.assemble import combine
from pipeline.dataset.sources import listed_files, option_file, read_files
from pipeline.errors import SHOWN, InputError, InputErrors, UsageError, is_utf8
from pipeline.language.fmt import Formatter, small_latencies
from pipeline.language.message import findings_count
from pipeline.language.strings import Strings
from pipeline.output import writing
from pipeline.paths import TOOL
from pipeline.prepare import prepare
from pipeline.publish import build_many
from pipeline.publish import write_datasheets as datasheets
from pipeline.report.context import (
    ReportContext,
    measured_views,
    report_formatter,
    table_latencies,
)
from pipeline.report.views import Cell, TableView
from pipeline.reproduce import reproduce
from pipeline.validate import Problem
from pipeline.verify import verify as verify_figures

EN = Strings(TOOL)
DATASET = "dataset.parquet"  # a build's points (pipeline.build.write_data)


def _progress(stages: list[str]) -> tuple[Progress, Callable[[str], None]]:
    progress = Progress(
        TextColumn("{task.description}"),
        BarColumn(),
        TimeElapsedColumn(),
        console=err_console,
        transient=True,
        disable=not err_console.is_terminal,
    )
    task = progress.add_task("build", total=len(stages))

    def step(name: str) -> None:
        progress.update(task, description=name, completed=stages.index(name))

    return progress, step


def build_report(
    report_dir: Path,
    target: Path,
    strict: bool,
    keep_going: bool = False,
    require_steady: bool = False,
    edition: Edition | None = None,
    site_url: str | None = None,
) -> None:
    progress, step = _progress(list(STAGES))
    with progress:
        result = build(
            report_dir, target, step, strict, keep_going, require_steady, edition, site_url
        )
    print_accounting(result.dataset, result.out / "rejects.csv")
    print_findings(result.ctx.problems, result.ctx.formatter(TOOL), result.out / "validation.csv")
    print_notes(cache.NOTES)
    for old in result.ctx.deprecated():
        err_console.print(f"{EN('cli.warning')}: {old.error()}", highlight=False, markup=False)
    out_console.print(f"{EN('cli.written')}: {result.out}")


def print_findings(problems: list[Problem], fmt: Formatter, listed: Path) -> None:
    """The validation's warnings a build went on with: the first of each rule (a
    ``[[profiles]]`` typo is not lost among 60 Little's-law findings), then how many of
    each, all of them in validation.csv and the appendix."""
    found = [p for p in problems if p.severity == "warning"]
    first: dict[str, Problem] = {}
    for problem in found:
        first.setdefault(problem.rule, problem)
    for problem in list(first.values())[:SHOWN]:
        place, said = validate.where(problem, fmt), validate.message(problem, fmt)
        err_console.print(f"{EN('cli.warning')}: {place}: {said}", highlight=False, markup=False)
    if found:
        said = findings_count([p.rule for p in found], listed)
        err_console.print(said, highlight=False, markup=False)


def print_notes(notes: list[str]) -> None:
    """The first ``SHOWN`` notes and how many more (a cache made by an older iopress
    gives one per entry)."""
    for note in notes[:SHOWN]:
        err_console.print(f"{EN('cli.note')}: {note}", highlight=False, markup=False)
    if len(notes) > SHOWN:
        err_console.print(EN("cli.more", n=len(notes) - SHOWN), highlight=False)


def site(report_dirs: list[Path], out: Path, site_url: str | None = None) -> None:
    for result in build_many(report_dirs, out, site_url=site_url):
        print_accounting(result.dataset, result.out / "rejects.csv")
    out_console.print(f"{EN('cli.written')}: {out / 'site'}")


def verify(
    report_dir: Path,
    published: Path | None,
    tolerance: float,
    manifest: Path | None = None,
    keep_going: bool = False,
) -> bool:
    """Print the differences from a transcription of printed cells and from a published
    manifest (each where given); True when there are none. ``keep_going`` reads the
    report as ``iopress build --keep-going`` does."""
    try:
        ctx = prepare(report_dir, keep_going)
    except (InputError, InputErrors) as err:
        if manifest is not None and not keep_going and _of_raw_files(err):  # gone on past it?
            err_console.print(f"{EN('cli.note')}: {EN('cli.verify_keep_going')}", markup=False)
        raise
    same = True
    if published is not None:
        cells, figures, found = verify_figures(ctx, published, tolerance / 100)
        same = _checked("cli.verified", ("cli.cells", cells), figures, found)
    if manifest is not None:
        same = _reproduced(ctx, manifest) and same
    return same


def _of_raw_files(err: InputError | InputErrors) -> bool:
    """Whether a failure is of files a build with --keep-going goes on past (raw data),
    not of report.toml or the texts, which no build goes on past."""
    errors = err.errors if isinstance(err, InputErrors) else [err]
    named = [Path(str(e.path)) for e in errors]
    return all(p.name != REPORT_FILE and p.suffix != ".md" for p in named)


def _reproduced(ctx: ReportContext, manifest: Path) -> bool:
    files, figures, found, notes = reproduce(ctx, manifest)
    for note in notes:
        err_console.print(f"{EN('cli.note')}: {note}", highlight=False, markup=False)
    return _checked("cli.manifest_checked", ("cli.input_files", files), figures, found)


def _checked(key: str, what: tuple[str, int], figures: int, found: Sequence[object]) -> bool:
    """Print each difference and the line of what was checked ("12 cells (36 figures)
    checked, 1 differs"); True when nothing differs."""
    _differences(found)
    said = EN(
        key,
        **{what[0].removeprefix("cli."): _count(*what)},
        figures=_count("cli.figures", figures),
        differ=_count("cli.differ", len(found)),
    )
    out_console.print(said, highlight=False, markup=False)
    return not found


def _count(key: str, n: int) -> str:
    """``n`` things in English's plural form ("1 cell", "2 cells")."""
    return EN.count(key, n, n=n)


def _differences(found: Sequence[object]) -> None:
    for item in found:
        out_console.print(str(item), highlight=False, markup=False, soft_wrap=True)


def datasheet(report_dir: Path, target: Path) -> None:
    for path in datasheets(report_dir, target):
        out_console.print(f"{EN('cli.written')}: {path}")


def ingest_files(
    paths: list[Path],
    output: Path,
    fmt: str | None,
    names: tuple[str, str],
    mapping: Path | None,
    keep_going: bool = False,
    repeats: str = "refuse",
) -> bool:
    """Ingest and write the dataset, print the accounting; True when the dataset was
    written. A file that fails writes nothing, unless ``keep_going`` (then it is listed)."""
    paths = listed_files(paths, fmt)
    unnamed = [p for p in (*paths, output) if not is_utf8(p)]
    if unnamed:  # refused as a build refuses them: the dataset names its files
        raise InputErrors([InputError(p, "", "file name not UTF-8", RENAME) for p in unnamed])
    _not_an_input(output, [*paths, *([mapping] if mapping else [])])
    options = option_file("mapping", mapping) if mapping else {}
    results, errors, failed = read_files(paths, fmt, names, options, keep_going)
    for failure in errors[:SHOWN]:
        print_error(failure)
    if len(errors) > SHOWN:
        err_console.print(EN("cli.more", n=len(errors) - SHOWN), highlight=False)
    dataset = combine(results, failed, rule=cast(Repeats, repeats))
    if errors or not dataset.accepted:
        print_accounting(dataset)  # of the files read: the failed ones are listed above
        if errors:
            print_error(_failed(output, len(errors), others=bool(dataset.records_read)))
        elif not dataset.accepted:
            print_error(InputError(output, "", "no record was accepted: nothing written", ""))
        return False
    _write_atomically(dataset, output)
    print_accounting(dataset, rejects_path(output))
    return True


def _failed(output: Path, count: int, others: bool) -> InputError:
    """Why a dataset was not written though the other files' records were accepted."""
    files = "1 file" if count == 1 else f"{count:,} files"
    counted = "; the counts are of the other files" if others else ""
    return InputError(
        output,
        "",
        f"nothing written: {files} failed (above){counted}",
        "fix or leave out the failed files, or pass --keep-going to write the others' "
        "records and list each failed file as a reject",
    )


def _not_an_input(output: Path, inputs: list[Path]) -> None:
    """Refuse an output that is one of the inputs (the same file under any name: a link,
    a hard link, a relative path): writing it would destroy the raw data. So are the files
    written beside it (its intervals, its rejects: ``d.rejects.csv`` as an input was
    replaced by the list of its rejects)."""
    for target in (output, intervals_path(output), rejects_path(output)):
        for path in inputs:
            with contextlib.suppress(OSError):
                if os.path.samefile(path, target):
                    raise UsageError(
                        f"output {target} is the input {path}: writing it would destroy it",
                        "name a new file for the dataset, e.g. -o points.parquet",
                    )


def _write_atomically(dataset: Dataset, output: Path) -> None:
    with writing(output, whole=True):
        output.parent.mkdir(parents=True, exist_ok=True)
        with tempfile.TemporaryDirectory(dir=output.parent, prefix=".iopress-") as tmp:
            staged = Path(tmp) / output.name
            write(dataset, staged)
            write_csv(dataset.rejects_frame(), rejects_path(staged))
            os.replace(intervals_path(staged), intervals_path(output))
            os.replace(rejects_path(staged), rejects_path(output))
            os.replace(staged, output)


def rejects_path(points: Path) -> Path:
    """Every reject of ``iopress ingest``, beside its dataset: ``x.parquet`` ->
    ``x.rejects.csv``."""
    return points.with_name(points.stem + ".rejects.csv")


def print_accounting(dataset: Dataset, listed: Path | None = None) -> None:
    """The counts, the notes and the first rejects (``SHOWN``; all of them are in
    ``listed``, rejects.csv)."""
    counts = dataset.accounting()
    out_console.print(
        f"{EN('cli.read')}: {counts['records_read']}, {EN('cli.accepted')}: "
        f"{counts['accepted']}, {EN('cli.rejected')}: {counts['rejected']}"
    )
    for note in dataset.notes:
        err_console.print(f"{EN('cli.note')}: {note}", highlight=False, markup=False)
    if dataset.rejects:
        err_console.print(f"{EN('cli.rejects')}:")
        for reject in dataset.rejects[:SHOWN]:
            err_console.print(f"  {reject}", highlight=False, markup=False)
        if len(dataset.rejects) > SHOWN:
            more = EN("cli.more", n=len(dataset.rejects) - SHOWN)
            where = f", {EN('cli.all_in', path=listed)}" if listed else ""
            err_console.print(f"  {more}{where}", highlight=False, markup=False)


def tables(path: Path, lang: str) -> None:
    for view in views(path, lang):
        out_console.print(_rich_table(view))


def views(path: Path, lang: str) -> list[TableView]:
    """The tables of a report folder, or of a dataset (a build's output folder or its
    ``dataset.parquet``) as the report that wrote it shows them: its measurement tables,
    computed with the settings and printed with the presentation stored with it."""
    if path.is_dir() and not (path / REPORT_FILE).is_file() and (path / DATASET).is_file():
        path = path / DATASET
    if path.is_dir():
        ctx = prepare(path)
        return list(ctx.views(ctx.formatter(lang)).values())
    points = read_points(path)
    shown = read_presentation(path)
    made = measured(points, Settings.read(read_figures(path)))
    fmt = report_formatter(shown, lang, small_latencies(table_latencies(made)), points)
    return measured_views(made, shown_of(points, shown.tables, made), fmt)


def _rich_cell(cell: Cell) -> str:
    styles = {
        "plain": "{}",
        "optimum": "[italic]{}[/italic]",
        "vendor": "[bold blue]{}[/]",
        "mono": "{}",
        "link": "{}",
    }
    return "\n".join(  # the data's own text never read as markup ("[/]", "[link=…]")
        styles[s.style].format(escape(f"{s.text}: {s.href}" if s.href else s.text)) for s in cell
    )


def _rich_table(view: TableView) -> Table:
    """The table with its note below (what the second line of a cell is, the optimum,
    where styles do not show: output to a file or a pipe)."""
    note = Text(view.note) if view.note else None
    table = Table(title=Text(view.caption), caption=note, show_lines=True)
    table.caption_justify = "left"
    for i, head in enumerate(view.header):
        table.add_column(Text(head), justify="left" if i == 0 else "right")
    for row in view.rows:
        table.add_row(*(_rich_cell(c) for c in row))
    return table


@dataclass(frozen=True)
class CompareOptions:
    threshold_pct: float
    metrics: tuple[Metric, ...]
    old_setup: str | None = None
    new_setup: str | None = None


def parse_threshold(text: str) -> float:
    return parse_percent("--threshold", text, 1000, "5")


def parse_percent(option: str, text: str, below: float, example: str) -> float:
    """A percentage as ``option`` takes it ("5" or "5%"): finite, from 0 to ``below``."""
    try:
        value = float(text.strip().removesuffix("%"))
    except ValueError:
        value = -1.0
    if not 0 <= value < below:  # NaN and infinity fail too
        raise UsageError(
            f"{option} {text!r}: give a percentage from 0 to below {below:g}, such as "
            f"{example} or {example}%"
        )
    return value


def parse_metrics(text: str) -> tuple[Metric, ...]:
    """``all`` or the figures named, comma-separated (in any case, each once)."""
    names = tuple(dict.fromkeys(n.strip().lower() for n in text.split(",") if n.strip()))
    unknown = [n for n in names if n not in (*METRICS, "all")]
    if "all" in names and not unknown:  # "all,level" is all of them too
        return METRICS
    if unknown or not names:
        near = difflib.get_close_matches(unknown[0], METRICS, n=1) if unknown else []
        what = f"no figure {unknown[0]!r}" if unknown else "no figure named"
        meant = f" (did you mean {near[0]!r}?)" if near else ""
        raise UsageError(
            f"--metric {text!r}: {what}{meant}; choose from {','.join(METRICS)}, or all"
        )
    return cast(tuple[Metric, ...], names)


STATUS_STYLE = {"regression": "bold red", "improvement": "green"}


def _compare_table(result: Comparison, labels: tuple[str, str], fmt: Formatter) -> Table:
    from pipeline.render import compare_doc  # the charts of a comparison load altair

    table = Table(title=Text(EN("cli.compare_title", new=labels[1], old=labels[0])))
    for i, column in enumerate(EN("cli.compare_columns").split("|")):
        table.add_column(Text(column), justify="left" if i < 2 else "right")  # profile, figure
    for r in result.rows.iter_rows(named=True):
        table.add_row(  # a setup's name is the data's: text, not markup
            Text(compare_doc.profile(r, fmt)),
            Text(compare_doc.metric(r, fmt)),
            compare_doc.value(r["old"], r["unit"], fmt),
            compare_doc.value(r["new"], r["unit"], fmt),
            compare_doc.change(r["change_pct"], fmt),
            compare_doc.noise(r["noise_pct"], fmt),
            r["status"],
            style=STATUS_STYLE.get(r["status"]),
        )
    return table


def compare(old: Path, new: Path, options: CompareOptions, out: Path | None) -> bool:
    """Print the comparison (and write it to ``out``); True when anything regressed."""
    from pipeline import comparison
    from pipeline.render import compare_doc

    if out is not None:
        comparison.check_out(out, old, new)  # refused before any work
    a = comparison.pick_setup(comparison.load_side(old), options.old_setup, "OLD")
    b = comparison.pick_setup(comparison.load_side(new), options.new_setup, "NEW")
    result, a, b = comparison.run(a, b, options.threshold_pct, options.metrics)
    labels, fmt = (a.label, b.label), Formatter(EN, units=comparison.units(b))
    out_console.print(_compare_table(result, labels, fmt))
    for note in result.notes:
        out_console.print(f"{EN('cli.note')}: {note}", highlight=False, markup=False)
    lists = [(result.only_old, EN("cli.only_in", side=a.label))]
    lists += [(result.only_new, EN("cli.only_in", side=b.label))]
    for frame, where in (*lists, (result.apart, EN("cli.no_common_level"))):
        for r in frame.iter_rows(named=True):
            out_console.print(f"{where}: {compare_doc.profile(r, fmt)}", markup=False)
    for r in result.lost.iter_rows(named=True):
        out_console.print(compare_doc.lost(r, fmt), markup=False)
    if out is not None:
        written = comparison.write(result, a, b, out, options.threshold_pct)
        out_console.print(f"{EN('cli.written')}: {written}")
    failing = comparison.failing(result)
    summary = _count("cli.regressions", len(failing))
    summary += ": " + "; ".join(failing) if failing else ""
    out_console.print(summary, highlight=False, markup=False)
    return bool(failing)
