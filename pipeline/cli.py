"""The ``iopress`` command. Each command gathers options and calls one function of
``pipeline.commands`` (imported only then, so that an up-to-date build answers at once);
bad input (``InputError``) becomes a message and exit status 1 here and only here (2 for
``compare`` and ``verify``, whose 1 is a finding)."""

from __future__ import annotations

import contextlib
import functools
import re
import signal
import sys
import tomllib
import traceback
from enum import StrEnum
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Literal

import typer
from typer._click.core import Context, Parameter  # typer's own click (typer >= 0.2x vendors it)
from typer.core import TyperArgument, TyperCommand, TyperGroup, TyperOption

from pipeline import __version__
from pipeline.console import err_console, out_console, print_error
from pipeline.errors import InputError, InputErrors, OutputError, ToolFailure, UsageError

if TYPE_CHECKING:
    from collections.abc import Callable
    from urllib.parse import SplitResult
from pipeline.fingerprint import fingerprint, stamp, up_to_date
from pipeline.inputs import MAX_TOML_BYTES, read_text
from pipeline.output import check_target, lock, writing
from pipeline.paths import ID_PATTERN, MAX_ID, TOOL, languages


def _house_style(param: Parameter) -> None:
    """A parameter as the help shows it: a flag as its name alone (``--strict``), a value
    by its metavar (``-o OUT``, ``REPORT_DIR``, ``FILE...``): never a Python type
    (``<bool>``, ``<list[Path]>``) or braces (``{report_dir}``)."""
    if isinstance(param, TyperOption) and param.is_flag:
        param.metavar = ""
    elif param.metavar is None:
        param.metavar = (param.name or "value").upper()
    if isinstance(param, TyperArgument):
        if param.nargs != 1 and not str(param.metavar).endswith("..."):
            param.metavar = f"{param.metavar}..."
        param.__class__ = _Argument


class _Argument(TyperArgument):
    """An argument named by its metavar alone: ``REPORT_DIR``, ``[OUT]``, ``FILE...``."""

    def display_type_rich(self, ctx: Context) -> str | None:
        return None

    def _rich_display_name(self) -> str:
        return self.display_name_raw

    def _usage_display_name(self) -> str:
        return self.display_name_raw if self.required else f"[{self.display_name_raw}]"


class Command(TyperCommand):
    """A command whose help is in the house style (``_house_style``)."""

    def get_params(self, ctx: Context) -> list[Parameter]:
        params = super().get_params(ctx)
        for param in params:
            _house_style(param)
        return params


class Group(TyperGroup):
    """The ``iopress`` command: its own options and every command in the house style."""

    def get_params(self, ctx: Context) -> list[Parameter]:
        params = super().get_params(ctx)
        for param in params:
            _house_style(param)
        return params


EXIT_STATUS = (
    "Exit status: 0 success; 1 bad input (the message names the file, the place, the "
    "problem and a fix) or a tool that failed; 2 usage error. iopress compare: 0 no "
    "regression, 1 regression, 2 bad input or usage. iopress verify: 0 every figure "
    "agrees, 1 a figure differs, 2 bad input or usage."
)
app = typer.Typer(
    cls=Group,
    add_completion=False,
    no_args_is_help=True,
    rich_markup_mode=None,  # help as the tools people know print it: plain, rewrapped
    help="Storage benchmark reports from raw load-generator output.",
    epilog=EXIT_STATUS,
)
command = functools.partial(app.command, cls=Command)


def _print_version(wanted: bool) -> None:
    if wanted:
        typer.echo(__version__)
        raise typer.Exit()


@app.callback()
def options(
    version: Annotated[
        bool,
        typer.Option(
            "--version", help="Print the version and exit", is_eager=True, callback=_print_version
        ),
    ] = False,
) -> None:
    """Storage benchmark reports from raw load-generator output."""


REPORT_DIR = typer.Argument(metavar="REPORT_DIR", help="Report folder with report.toml")
OUT = typer.Option("-o", "--out", metavar="OUT", help="Output folder")
SIDE = "Report folder, build output or dataset (DATA.parquet)"
KEEP_GOING = typer.Option(
    "--keep-going",
    help="Files that fail or give no accepted record are listed as rejects; use the rest",
)


def _language(lang: str) -> str:
    """A language of the documents (``--lang``): one of the locale files'."""
    if lang not in languages():
        raise typer.BadParameter(f"{lang!r} is none of {', '.join(languages())}")
    return lang


def _site_url(url: str | None) -> str | None:
    """The address a site is published at (``--site-url``): http(s), a host (ASCII:
    an international name in its xn-- form), a port if any, a path of plain characters
    (%-escapes whole); no user or password (the sitemap and every page would publish
    them), no query or fragment. Given with the trailing slash mkdocs wants."""
    if url is None:
        return None
    from urllib.parse import urlsplit

    parts = urlsplit(url)
    if parts.scheme.lower() not in ("http", "https") or not parts.netloc:
        raise typer.BadParameter(f"{url!r} is no http(s) address: give one as https://host/path/")
    if "@" in parts.netloc:
        raise typer.BadParameter(f"{url!r} holds a user or password: leave them out")
    if parts.query or parts.fragment or "?" in url or "#" in url:
        raise typer.BadParameter(f"{url!r}: an address without ?query or #fragment")
    _site_host(url, parts)
    _site_path(url, parts.path)
    return url if url.endswith("/") else url + "/"


def _site_host(url: str, parts: SplitResult) -> None:
    try:
        port = parts.port  # ValueError: not a number, or beyond 65535
    except ValueError:
        port = 0
    if port == 0:
        raise typer.BadParameter(f"{url!r}: the port must be a number from 1 to 65535")
    host = parts.hostname or ""
    named = re.fullmatch(r"[A-Za-z0-9](?:[A-Za-z0-9.-]*[A-Za-z0-9])?", host)
    if not (named or (parts.netloc.startswith("[") and re.fullmatch(r"[0-9a-f:.]+", host))):
        raise typer.BadParameter(
            f"{url!r}: give the host as letters, digits, '.' and '-' (an international "
            "name in its xn-- form), or an IPv6 address in brackets"
        )


def _site_path(url: str, path: str) -> None:
    if not re.fullmatch(r"(?:[A-Za-z0-9._~+/-]|%[0-9A-Fa-f]{2})*", path):
        raise typer.BadParameter(f"{url!r} holds a character an address needs %-encoded")
    if any(part in (".", "..") for part in path.split("/")):
        raise typer.BadParameter(f"{url!r}: a path without '.' or '..' parts")
    if path.rstrip("/").lower().endswith((".html", ".htm")):
        raise typer.BadParameter(f"{url!r} names a page: give the folder the site is in")


SITE_URL = typer.Option(
    "--site-url",
    metavar="URL",
    callback=_site_url,
    help="Where the site will be published (https://host/path/): gives it a 404 page and "
    "a sitemap, which need it",
)


class EditionChoice(StrEnum):  # report.toml ``edition``, config.EDITIONS
    customer = "customer"
    audit = "audit"


class RepeatRule(StrEnum):  # report.toml ``repeats``
    refuse = "refuse"
    newest = "newest"
    mean = "mean"


def _report_id(report_dir: Path) -> str:
    """The report's id from report.toml (the default output folder's name), read as every
    input is (a FIFO refused at once, the size limited) and used only where it is an id:
    "/tmp/x" or "../x" would make folders and lock files anywhere before the build
    refused it. Where it is none, a name that is one (the build then says what is wrong)."""
    path = report_dir / "report.toml"
    rid = None
    with contextlib.suppress(InputError, ValueError, RecursionError, OSError):
        if path.resolve().is_relative_to(report_dir.resolve()):
            rid = tomllib.loads(read_text(path, MAX_TOML_BYTES)).get("id")
    for name in (rid, report_dir.resolve().name):
        if isinstance(name, str) and len(name) <= MAX_ID and re.match(ID_PATTERN, name):
            return name
    return "report"


@command()
def build(
    report_dir: Annotated[Path, REPORT_DIR],
    out: Annotated[Path | None, OUT] = None,
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
    site_url: Annotated[str | None, SITE_URL] = None,
) -> None:
    """Build both PDFs, the site, the dataset and the tables of one report (skipped when
    nothing it depends on has changed since the last build into the same folder)."""
    target = check_target(out or Path("build") / _report_id(report_dir), report_dir, "build")
    chosen: Literal["customer", "audit"] | None = (
        None if edition is None else "customer" if edition is EditionChoice.customer else "audit"
    )
    options = (
        f"strict={strict} keep_going={keep_going} require_steady={require_steady} edition={chosen}"
        f" site_url={site_url}"
    )
    with lock(target):  # from the check to the stamp: one build at a time into target
        print_ = fingerprint(report_dir, options)
        if not force and up_to_date(target, print_):
            from pipeline.language.strings import Strings

            out_console.print(f"{Strings(TOOL)('cli.up_to_date')}: {target}", markup=False)
            _findings_again(target)
            return
        from pipeline import commands  # report.toml is read once, by the build

        commands.build_report(
            report_dir, target, strict, keep_going, require_steady, chosen, site_url
        )
        with writing(target):
            stamp(target, print_)


def _findings_again(target: Path) -> None:
    """An up-to-date build's validation findings, counted by rule from its validation.csv
    (as the build that wrote it said them), so that a rerun does not read as clean."""
    import csv

    from pipeline.language.message import findings_count

    listed = target / "validation.csv"
    try:
        with listed.open(encoding="utf-8", newline="") as fh:
            rules = [
                r.get("rule", "") for r in csv.DictReader(fh) if r.get("severity") == "warning"
            ]
    except (OSError, csv.Error, UnicodeDecodeError):
        return
    if rules:
        err_console.print(findings_count(rules, listed), highlight=False, markup=False)


@command(name="site")
def site_command(
    report_dirs: Annotated[list[Path], typer.Argument(metavar="REPORT_DIR", help="Report folders")],
    out: Annotated[Path, OUT] = Path("build"),
    site_url: Annotated[str | None, SITE_URL] = None,
) -> None:
    """Build several reports and one site listing them all, with a comparison page."""
    from pipeline import commands

    commands.site(report_dirs, out, site_url)


@command()
def verify(
    report_dir: Annotated[Path, REPORT_DIR],
    published: Annotated[
        Path | None,
        typer.Option("--published", metavar="FILE.csv", help="CSV table,row,column,printed"),
    ] = None,
    tolerance: Annotated[
        str | None,
        typer.Option(
            metavar="PCT",
            help="Relative tolerance of --published's figures in % (default 1; 0 to below 100)",
        ),
    ] = None,
    manifest: Annotated[
        Path | None,
        typer.Option(
            "--manifest",
            metavar="FILE.json",
            help="A published build's manifest.json: its input files (size, SHA-256) and "
            "every figure it lists",
        ),
    ] = None,
    keep_going: Annotated[bool, KEEP_GOING] = False,
) -> None:
    """Re-derive published figures from the raw data; report every difference. Exit
    status: 0 every figure agrees, 1 one differs, 2 bad input or usage (a transcription
    or manifest that cannot be read, a report that does not build)."""
    from pipeline import commands

    if published is None and manifest is None:
        raise typer.BadParameter("give --published FILE.csv, --manifest FILE.json or both")
    if tolerance is not None and published is None:  # a manifest's figures are exact
        raise typer.BadParameter("--tolerance applies to --published only")
    pct = commands.parse_percent("--tolerance", tolerance or "1", 100, "1")
    _gate("verify", lambda: not commands.verify(report_dir, published, pct, manifest, keep_going))


@command()
def compare(
    old: Annotated[Path, typer.Argument(metavar="OLD", help=SIDE)],
    new: Annotated[Path, typer.Argument(metavar="NEW", help=SIDE)],
    threshold: Annotated[
        str,
        typer.Option(
            metavar="PCT", help="A change must be worse than this (and the noise): 5 or 5%"
        ),
    ] = "5%",
    metric: Annotated[
        str,
        typer.Option(
            metavar="LIST",
            help="Figures to compare, comma-separated (iops,lat,optimum,limit,level), or all",
        ),
    ] = "all",
    out: Annotated[
        Path | None,
        typer.Option("-o", "--out", metavar="OUT", help="compare.csv, charts, DE/EN PDF"),
    ] = None,
    old_setup: Annotated[
        str | None, typer.Option(metavar="SETUP", help="Only this setup of OLD")
    ] = None,
    new_setup: Annotated[
        str | None, typer.Option(metavar="SETUP", help="Only this setup of NEW")
    ] = None,
) -> None:
    """Compare two measurements profile by profile (a CI gate). Exit status: 0 no figure
    regressed beyond the threshold and the measured noise, 1 one did, 2 bad input or
    usage (a file that cannot be read, an option that is wrong): like diff and cmp, so a
    gate tells a slower system from a broken file."""
    from pipeline import commands

    def regressed() -> bool:
        options = commands.CompareOptions(
            commands.parse_threshold(threshold),
            commands.parse_metrics(metric),
            old_setup,
            new_setup,
        )
        return commands.compare(old, new, options, out)

    _gate("compare", regressed)


TROUBLE = 2  # a gate's exit status for bad input or usage (1 is its finding)


def _gate(name: str, found: Callable[[], bool]) -> None:
    """Run a command whose exit status 1 is a finding (a regression, a differing
    figure): bad input, a tool that failed and iopress's own faults exit 2 instead, so a
    script tells a slower system or a wrong figure from a broken file."""
    try:
        finding = found()
    except (InputError, InputErrors, ToolFailure, OutputError, UsageError) as err:
        print_error(err)
        raise typer.Exit(TROUBLE) from None
    except Exception as err:  # a fault of iopress's own is no finding: a gate sees 2
        traceback.print_exc()
        print_error(RuntimeError(f"{name} failed ({type(err).__name__}): please report it"))
        raise typer.Exit(TROUBLE) from None
    if finding:
        raise typer.Exit(1)


@command(name="datasheet")
def datasheet_command(
    report_dir: Annotated[Path, REPORT_DIR],
    out: Annotated[Path | None, OUT] = None,
) -> None:
    """Write the one-page datasheet of the report's system, in German and English."""
    from pipeline import commands

    commands.datasheet(report_dir, out or Path("build") / _report_id(report_dir))


@command(name="ingest")
def ingest_command(
    paths: Annotated[
        list[Path],
        typer.Argument(metavar="FILE", help="Raw files; a folder: its files (not subfolders)"),
    ],
    output: Annotated[
        Path, typer.Option("-o", "--output", metavar="DATA.parquet", help="Points Parquet file")
    ],
    fmt: Annotated[
        str | None,
        typer.Option(
            "--format", metavar="FORMAT", help="The input format, e.g. fio (skips sniffing)"
        ),
    ] = None,
    system: Annotated[
        str, typer.Option(metavar="NAME", help="System name for the rows")
    ] = "unnamed",
    setup: Annotated[str, typer.Option(metavar="NAME", help="Setup name for the rows")] = "default",
    mapping: Annotated[
        Path | None, typer.Option(metavar="MAP.toml", help="TOML column mapping")
    ] = None,
    keep_going: Annotated[bool, KEEP_GOING] = False,
    repeats: Annotated[
        RepeatRule,
        typer.Option(
            metavar="refuse|newest|mean",
            help="A point measured in several runs: refuse, keep the newest, or mean",
        ),
    ] = RepeatRule.refuse,
) -> None:
    """Normalise raw files into a dataset; print what was read, accepted and rejected.
    Nothing is written when a file fails (exit 1), unless --keep-going."""
    from pipeline import commands

    names = (system, setup)
    if not commands.ingest_files(paths, output, fmt, names, mapping, keep_going, repeats.value):
        raise typer.Exit(1)


@command()
def tables(
    path: Annotated[
        Path,
        typer.Argument(
            metavar="REPORT_DIR|OUT|DATA.parquet",
            help="Report folder, build output or points Parquet file",
        ),
    ],
    lang: Annotated[
        str,
        typer.Option(
            metavar="|".join(languages()),
            callback=_language,
            help="Language of the output",
        ),
    ] = languages()[0],
) -> None:
    """Print the standard tables in the terminal."""
    from pipeline import commands

    commands.tables(path, lang)


@command()
def plan(
    campaign: Annotated[Path, typer.Argument(metavar="CAMPAIGN.toml", help="The campaign")],
    out: Annotated[
        Path, typer.Option("-o", "--out", metavar="DIR", help="Campaign and report folder")
    ],
) -> None:
    """Write one fio job file per point and the report folder around them; print the
    run time. Nothing runs."""
    from pipeline.campaign import commands as campaign_commands

    campaign_commands.plan(campaign, out)


@command()
def run(
    folder: Annotated[Path, typer.Argument(metavar="DIR", help="Folder made by iopress plan")],
    destroy_data: Annotated[
        list[str] | None,
        typer.Option(
            "--destroy-data",
            metavar="TARGET",
            help="A target whose data may be destroyed (repeat)",
        ),
    ] = None,
) -> None:
    """Run the planned points with fio (finished points are kept: run again to resume)."""
    from pipeline.campaign import commands as campaign_commands

    campaign_commands.run(folder, destroy_data or [])


@command()
def machine(
    out: Annotated[
        Path,
        typer.Option("-o", "--out", metavar="FILE.json", help="The description to write (JSON)"),
    ],
    host: Annotated[
        str,
        typer.Option(
            metavar="HOST:PORT", help="The fio server's address as campaign.toml names it"
        ),
    ] = "local",
    target: Annotated[
        list[str] | None,
        typer.Option(metavar="TARGET", help="A target whose device model to state (repeat)"),
    ] = None,
) -> None:
    """Describe this machine (fio, kernel, CPU, memory, device models) for a report's
    provenance: run it on each fio server's host, put the file in the report's raw/env/."""
    from pipeline.campaign import commands as campaign_commands

    campaign_commands.machine(out, host, target or [])


@command()
def version() -> None:
    """Print the iopress version."""
    typer.echo(__version__)


REFERENCE = """# Command line

Every command's help, as `iopress COMMAND --help` prints it. Generated from the command
line itself (`.venv/bin/python -m tests.regenerate_cli_doc`); `tests/test_cli.py` fails
when it differs.
"""


def reference(width: int = 80) -> str:
    """docs/cli.md: the help of ``iopress`` and of each of its commands, ``width`` wide."""
    group = typer.main.get_command(app)
    root = Context(group, info_name="iopress", terminal_width=width, max_content_width=width)
    parts = [REFERENCE, f"## iopress\n\n```text\n{group.get_help(root)}\n```\n"]
    for name in group.list_commands(root):  # type: ignore[attr-defined]
        command = group.get_command(root, name)  # type: ignore[attr-defined]
        ctx = Context(command, root, name, terminal_width=width, max_content_width=width)
        parts.append(f"## iopress {name}\n\n```text\n{command.get_help(ctx)}\n```\n")
    return "\n".join(parts)


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
