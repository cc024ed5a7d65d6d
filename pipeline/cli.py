"""The ``iopress`` command. Each command gathers options and calls one library function;
bad input (``InputError``) becomes a message and exit status 1 here and only here."""

from __future__ import annotations

import os
import sys
import tempfile
from enum import StrEnum
from pathlib import Path
from typing import Annotated

import typer
from rich.console import Console
from rich.markup import escape
from rich.progress import BarColumn, Progress, TextColumn, TimeElapsedColumn
from rich.table import Table

from pipeline import __version__, ingest
from pipeline.build import (
    STAGES,
    build_many,
    combine,
    prepare,
    split_outcomes,
    write_datasheets,
)
from pipeline.build import build as build_report
from pipeline.compute import TABLES
from pipeline.config import ColumnMapping, read_toml
from pipeline.dataset import Dataset, intervals_path, read_points, write
from pipeline.errors import InputError, InputErrors
from pipeline.ingest.base import ReadOptions, ReadResult
from pipeline.render.fmt import Formatter
from pipeline.render.locale import Strings
from pipeline.render.views import Cell, TableView, min_latency_view, performance_view
from pipeline.verify import verify as verify_figures

app = typer.Typer(
    add_completion=False,
    no_args_is_help=True,
    help="Storage benchmark reports from raw load-generator output.",
)
out_console = Console()
err_console = Console(stderr=True)


class Lang(StrEnum):
    de = "de"
    en = "en"


@app.command()
def build(
    report_dir: Annotated[Path, typer.Argument(help="Report folder with report.toml")],
    out: Annotated[Path | None, typer.Option("-o", "--out", help="Output folder")] = None,
    strict: Annotated[bool, typer.Option("--strict", help="Warnings fail the build")] = False,
) -> None:
    """Build both PDFs, the site, the dataset and the tables of one report."""
    target = out or Path("build") / _report_id(report_dir)
    stages = ["ingest", *(name for name, _ in STAGES)]
    with Progress(
        TextColumn("{task.description}"),
        BarColumn(),
        TimeElapsedColumn(),
        console=err_console,
        transient=True,
        disable=not err_console.is_terminal,
    ) as progress:
        task = progress.add_task("build", total=len(stages))

        def step(name: str) -> None:
            progress.update(task, description=name, completed=stages.index(name))

        result = build_report(report_dir, target, step, strict)
    _print_accounting(result.dataset, Strings("en"))
    out_console.print(f"{Strings('en')('cli.written')}: {result.out}")


def _report_id(report_dir: Path) -> str:
    if not (report_dir / "report.toml").is_file():
        return report_dir.name  # the build itself reports what is missing
    data = read_toml(report_dir / "report.toml")
    rid = data.get("id")
    return rid if isinstance(rid, str) and rid else report_dir.name


@app.command(name="site")
def site_command(
    report_dirs: Annotated[list[Path], typer.Argument(help="Report folders")],
    out: Annotated[Path, typer.Option("-o", "--out", help="Output folder")] = Path("build"),
) -> None:
    """Build several reports and one site listing them all, with a comparison page."""
    results = build_many(report_dirs, out)
    for result in results:
        _print_accounting(result.dataset, Strings("en"))
    out_console.print(f"{Strings('en')('cli.written')}: {out / 'site'}")


@app.command()
def verify(
    report_dir: Annotated[Path, typer.Argument(help="Report folder with report.toml")],
    published: Annotated[Path, typer.Option("--published", help="CSV table,row,column,printed")],
    tolerance: Annotated[float, typer.Option(help="Relative tolerance in %")] = 1.0,
) -> None:
    """Re-derive published figures from the raw data; report every difference (exit 1)."""
    checked, found = verify_figures(prepare(report_dir), published, tolerance / 100)
    for item in found:
        out_console.print(str(item), highlight=False, markup=False, soft_wrap=True)
    out_console.print(f"{checked} figures checked, {len(found)} differ")
    if found:
        raise typer.Exit(1)


@app.command(name="datasheet")
def datasheet_command(
    report_dir: Annotated[Path, typer.Argument(help="Report folder with report.toml")],
    out: Annotated[Path | None, typer.Option("-o", "--out", help="Output folder")] = None,
) -> None:
    """Write the one-page datasheet of the report's system, in German and English."""
    target = out or Path("build") / _report_id(report_dir)
    for path in write_datasheets(report_dir, target):
        out_console.print(f"{Strings('en')('cli.written')}: {path}")


@app.command(name="ingest")
def ingest_command(
    paths: Annotated[list[Path], typer.Argument(help="Raw files")],
    output: Annotated[Path, typer.Option("-o", "--output", help="Points Parquet file")],
    fmt: Annotated[str | None, typer.Option("--format", help="Skip sniffing")] = None,
    system: Annotated[str, typer.Option(help="System name for the rows")] = "unnamed",
    setup: Annotated[str, typer.Option(help="Setup name for the rows")] = "default",
    mapping: Annotated[Path | None, typer.Option(help="TOML column mapping")] = None,
) -> None:
    """Normalise raw files into a dataset; print what was read, accepted and rejected."""
    column_mapping = ColumnMapping.model_validate(read_toml(mapping)) if mapping else None
    results, failures = _read_all(paths, fmt, system, setup, column_mapping)
    dataset = combine(results)
    _write_atomically(dataset, output)
    _print_accounting(dataset, Strings("en"))
    for failure in failures:
        _print_error(failure)
    if failures:
        raise typer.Exit(1)


def _read_all(
    paths: list[Path], fmt: str | None, system: str, setup: str, mapping: ColumnMapping | None
) -> tuple[list[ReadResult], list[InputError]]:
    jobs = [
        (
            path,
            ReadOptions(
                system=system, setup=setup, label=str(path), mapping=mapping or ColumnMapping()
            ),
            fmt,
        )
        for path in paths
    ]
    return split_outcomes(ingest.read_many(jobs))


def _write_atomically(dataset: Dataset, output: Path) -> None:
    output.parent.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(dir=output.parent, prefix=".iopress-") as tmp:
        staged = Path(tmp) / output.name
        write(dataset, staged)
        os.replace(intervals_path(staged), intervals_path(output))
        os.replace(staged, output)


def _print_accounting(dataset: Dataset, t: Strings) -> None:
    counts = dataset.accounting()
    out_console.print(
        f"{t('cli.read')}: {counts['records_read']}, {t('cli.accepted')}: "
        f"{counts['accepted']}, {t('cli.rejected')}: {counts['rejected']}"
    )
    for note in dataset.notes:
        err_console.print(f"{t('cli.note')}: {note}", highlight=False, markup=False)
    if dataset.rejects:
        err_console.print(f"{t('cli.rejects')}:")
        for reject in dataset.rejects:
            err_console.print(f"  {reject}", highlight=False, markup=False)


@app.command()
def tables(
    path: Annotated[Path, typer.Argument(help="Report folder or points Parquet file")],
    lang: Annotated[Lang, typer.Option(help="Language of the output")] = Lang.de,
) -> None:
    """Print the standard tables in the terminal."""
    fmt = Formatter(Strings(lang.value))
    for view in _views(path, fmt):
        out_console.print(_rich_table(view))


def _views(path: Path, fmt: Formatter) -> list[TableView]:
    if path.is_dir():
        return list(prepare(path).views(fmt).values())
    points = read_points(path)
    computed = {name: fn(points) for name, fn in TABLES.items()}
    return [
        performance_view(computed["performance"], [], fmt, ""),
        min_latency_view(computed["min_latency"], [], fmt, ""),
    ]


def _rich_cell(cell: Cell) -> str:
    styles = {"plain": "{}", "optimum": "[italic]{}[/italic]", "vendor": "[bold blue]{}[/]"}
    return "\n".join(styles[s.style].format(s.text.replace("[", r"\[")) for s in cell)


def _rich_table(view: TableView) -> Table:
    table = Table(title=view.caption, show_lines=True)
    for i, head in enumerate(view.header):
        table.add_column(head, justify="left" if i == 0 else "right")
    for row in view.rows:
        table.add_row(*(_rich_cell(c) for c in row))
    return table


@app.command()
def version() -> None:
    """Print the iopress version."""
    out_console.print(__version__)


def main() -> None:
    try:
        app()
    except (InputError, InputErrors) as err:
        _print_error(err)
        sys.exit(1)


def _print_error(err: Exception) -> None:
    err_console.print(f"[red]error:[/red] {escape(str(err))}", highlight=False)


if __name__ == "__main__":
    main()
