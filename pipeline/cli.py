"""The ``iopress`` command. Each command gathers options and calls one function of
``pipeline.commands`` (imported only then, so that an up-to-date build answers at once);
bad input (``InputError``) becomes a message and exit status 1 here and only here."""

from __future__ import annotations

import signal
import sys
import tomllib
from enum import StrEnum
from pathlib import Path
from typing import Annotated, Literal

import typer

from pipeline import __version__
from pipeline.console import out_console, print_error
from pipeline.errors import InputError, InputErrors, OutputError, ToolFailure, UsageError
from pipeline.fingerprint import fingerprint, stamp, up_to_date
from pipeline.output import check_target, lock, writing

app = typer.Typer(
    add_completion=False,
    no_args_is_help=True,
    help="Storage benchmark reports from raw load-generator output.",
)


KEEP_GOING = typer.Option(
    "--keep-going",
    help="Files that fail or give no accepted record are listed as rejects; use the rest",
)


class Lang(StrEnum):
    de = "de"
    en = "en"


class EditionChoice(StrEnum):  # report.toml ``edition``, config.EDITIONS
    customer = "customer"
    audit = "audit"


class RepeatRule(StrEnum):  # report.toml ``repeats``
    refuse = "refuse"
    newest = "newest"
    mean = "mean"


def _report_id(report_dir: Path) -> str:
    """The report's id from report.toml, read cheaply (the build validates it properly)."""
    path = report_dir / "report.toml"
    if not path.resolve().is_relative_to(report_dir.resolve()):
        return report_dir.name  # the build refuses it and says why
    try:
        rid = tomllib.loads(path.read_text(encoding="utf-8-sig")).get("id")
    except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError):
        return report_dir.name  # the build itself reports what is wrong
    return rid if isinstance(rid, str) and rid else report_dir.name


@app.command()
def build(
    report_dir: Annotated[Path, typer.Argument(help="Report folder with report.toml")],
    out: Annotated[Path | None, typer.Option("-o", "--out", help="Output folder")] = None,
    strict: Annotated[bool, typer.Option("--strict", help="Warnings fail the build")] = False,
    force: Annotated[
        bool, typer.Option("--force", help="Build even when inputs and output are unchanged")
    ] = False,
    keep_going: Annotated[bool, KEEP_GOING] = False,
    require_steady: Annotated[
        bool,
        typer.Option(
            "--require-steady",
            help="Every point must be in steady state (SNIA PTS over its last 5 rounds)",
        ),
    ] = False,
    edition: Annotated[
        EditionChoice | None,
        typer.Option(
            "--edition",
            help="customer: a short data-and-method appendix; audit: the whole appendix "
            "(default: report.toml's edition, else audit)",
        ),
    ] = None,
) -> None:
    """Build both PDFs, the site, the dataset and the tables of one report (skipped when
    nothing it depends on has changed since the last build into the same folder)."""
    target = check_target(out or Path("build") / _report_id(report_dir), report_dir)
    chosen: Literal["customer", "audit"] | None = (
        None if edition is None else "customer" if edition is EditionChoice.customer else "audit"
    )
    options = (
        f"strict={strict} keep_going={keep_going} require_steady={require_steady} edition={chosen}"
    )
    with lock(target):  # from the check to the stamp: one build at a time into target
        print_ = fingerprint(report_dir, options)
        if not force and up_to_date(target, print_):
            from pipeline.language.strings import Strings

            out_console.print(f"{Strings('en')('cli.up_to_date')}: {target}", markup=False)
            return
        from pipeline.config import load_report

        load_report(report_dir)  # a bad report.toml is refused before the pipeline loads
        from pipeline import commands

        commands.build_report(report_dir, target, strict, keep_going, require_steady, chosen)
        with writing(target):
            stamp(target, print_)


@app.command(name="site")
def site_command(
    report_dirs: Annotated[list[Path], typer.Argument(help="Report folders")],
    out: Annotated[Path, typer.Option("-o", "--out", help="Output folder")] = Path("build"),
) -> None:
    """Build several reports and one site listing them all, with a comparison page."""
    from pipeline import commands

    commands.site(report_dirs, out)


@app.command()
def verify(
    report_dir: Annotated[Path, typer.Argument(help="Report folder with report.toml")],
    published: Annotated[Path, typer.Option("--published", help="CSV table,row,column,printed")],
    tolerance: Annotated[float, typer.Option(help="Relative tolerance in %")] = 1.0,
) -> None:
    """Re-derive published figures from the raw data; report every difference (exit 1)."""
    from pipeline import commands

    if not commands.verify(report_dir, published, tolerance):
        raise typer.Exit(1)


@app.command()
def compare(
    old: Annotated[Path, typer.Argument(help="Report folder, build output or dataset")],
    new: Annotated[Path, typer.Argument(help="Report folder, build output or dataset")],
    threshold: Annotated[
        str, typer.Option(help="A change must be worse than this (and the noise): 5 or 5%")
    ] = "5%",
    metric: Annotated[
        str, typer.Option(help="Figures to compare, comma-separated: iops,lat,optimum,limit")
    ] = "iops,lat,optimum,limit",
    out: Annotated[
        Path | None, typer.Option("-o", "--out", help="compare.csv, charts, DE/EN PDF")
    ] = None,
    old_setup: Annotated[str | None, typer.Option(help="Only this setup of OLD")] = None,
    new_setup: Annotated[str | None, typer.Option(help="Only this setup of NEW")] = None,
) -> None:
    """Compare two measurements profile by profile; exit 1 when any figure regressed
    beyond the threshold and the measured noise (a CI gate)."""
    from pipeline import commands

    options = commands.CompareOptions(
        commands.parse_threshold(threshold), commands.parse_metrics(metric), old_setup, new_setup
    )
    if commands.compare(old, new, options, out):
        raise typer.Exit(1)


@app.command(name="datasheet")
def datasheet_command(
    report_dir: Annotated[Path, typer.Argument(help="Report folder with report.toml")],
    out: Annotated[Path | None, typer.Option("-o", "--out", help="Output folder")] = None,
) -> None:
    """Write the one-page datasheet of the report's system, in German and English."""
    from pipeline import commands

    commands.datasheet(report_dir, out or Path("build") / _report_id(report_dir))


@app.command(name="ingest")
def ingest_command(
    paths: Annotated[list[Path], typer.Argument(help="Raw files")],
    output: Annotated[Path, typer.Option("-o", "--output", help="Points Parquet file")],
    fmt: Annotated[str | None, typer.Option("--format", help="Skip sniffing")] = None,
    system: Annotated[str, typer.Option(help="System name for the rows")] = "unnamed",
    setup: Annotated[str, typer.Option(help="Setup name for the rows")] = "default",
    mapping: Annotated[Path | None, typer.Option(help="TOML column mapping")] = None,
    keep_going: Annotated[bool, KEEP_GOING] = False,
    repeats: Annotated[
        RepeatRule,
        typer.Option(help="A point measured in several runs: refuse, keep the newest, or mean"),
    ] = RepeatRule.refuse,
) -> None:
    """Normalise raw files into a dataset; print what was read, accepted and rejected.
    Nothing is written when a file fails (exit 1), unless --keep-going."""
    from pipeline import commands

    names = (system, setup)
    if not commands.ingest_files(paths, output, fmt, names, mapping, keep_going, repeats.value):
        raise typer.Exit(1)


@app.command()
def tables(
    path: Annotated[
        Path, typer.Argument(help="Report folder, build output or points Parquet file")
    ],
    lang: Annotated[Lang, typer.Option(help="Language of the output")] = Lang.de,
) -> None:
    """Print the standard tables in the terminal."""
    from pipeline import commands

    commands.tables(path, lang.value)


@app.command()
def plan(
    campaign: Annotated[Path, typer.Argument(help="campaign.toml")],
    out: Annotated[Path, typer.Option("-o", "--out", help="Campaign and report folder")],
) -> None:
    """Write one fio job file per point and the report folder around them; print the
    run time. Nothing runs."""
    from pipeline.campaign import commands as campaign_commands

    campaign_commands.plan(campaign, out)


@app.command()
def run(
    folder: Annotated[Path, typer.Argument(help="Folder made by iopress plan")],
    destroy_data: Annotated[
        list[str] | None,
        typer.Option("--destroy-data", help="A target whose data may be destroyed (repeat)"),
    ] = None,
) -> None:
    """Run the planned points with fio (finished points are kept: run again to resume)."""
    from pipeline.campaign import commands as campaign_commands

    campaign_commands.run(folder, destroy_data or [])


@app.command()
def machine(
    out: Annotated[Path, typer.Option("-o", "--out", help="The description to write (JSON)")],
    host: Annotated[
        str, typer.Option(help="The fio server's address as campaign.toml names it")
    ] = "local",
    target: Annotated[
        list[str] | None, typer.Option(help="A target whose device model to state (repeat)")
    ] = None,
) -> None:
    """Describe this machine (fio, kernel, CPU, memory, device models) for a report's
    provenance: run it on each fio server's host, put the file in the report's raw/env/."""
    from pipeline.campaign import commands as campaign_commands

    campaign_commands.machine(out, host, target or [])


@app.command()
def version() -> None:
    """Print the iopress version."""
    typer.echo(__version__)


def _terminate(signum: int, _frame: object) -> None:
    """SIGTERM ends the command like Ctrl-C: staging folders are removed, workers stop."""
    sys.exit(128 + signum)


def invoke(args: list[str] | None = None) -> None:
    """The command line ``args`` (``sys.argv`` when None); exits with its status."""
    try:
        app(args=args, prog_name="iopress")
    except (InputError, InputErrors, ToolFailure, OutputError) as err:
        print_error(err)
        sys.exit(1)
    except UsageError as err:
        print_error(err)
        sys.exit(2)


def main() -> None:
    signal.signal(signal.SIGTERM, _terminate)
    invoke()


if __name__ == "__main__":
    main()
