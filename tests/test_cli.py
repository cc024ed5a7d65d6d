"""The iopress command: exit codes and exact messages, run as a user runs it (in this
process; a build as a process of its own with a bare PATH, as from a cron job)."""

from __future__ import annotations

import re
import shutil
from pathlib import Path

import polars as pl
import pytest

from pipeline import __version__, cache, cli
from tests.cli import ROOT, iopress, iopress_process
from tests.conftest import DATA, FS840

IOGEN = DATA / "iogen"
MIXED = DATA / "reports" / "mixed"


def test_ingest_prints_accounting_and_writes_both_levels(tmp_path: Path) -> None:
    out = tmp_path / "ds.parquet"
    run = iopress("ingest", str(IOGEN / "basic.csv"), str(IOGEN / "bad_rows.csv"), "-o", str(out))
    assert run.returncode == 0, run.stderr
    assert run.stdout == "read: 17, accepted: 9, rejected: 8\n"
    assert "Rejected records:" in run.stderr
    assert "bad_rows.csv: line 3, column 'ios': 'abc' is not a number" in run.stderr
    assert pl.read_parquet(out).height == 3
    assert pl.read_parquet(tmp_path / "ds.intervals.parquet").height == 9


def test_ingest_batch_with_a_bad_file_writes_nothing(tmp_path: Path) -> None:
    out = tmp_path / "ds.parquet"
    bad = IOGEN / "bad" / "missing_column.csv"
    run = iopress("ingest", str(IOGEN / "basic.csv"), str(bad), "-o", str(out), "--format", "iogen")
    assert run.returncode == 1
    assert run.stdout == "read: 8, accepted: 8, rejected: 0\n"
    assert run.stderr.startswith(
        f"error: {bad}: line 1: missing column(s): service_ms\n  hint: add the "
        "columns, or map your column names ([sources.mapping.columns] in "
        "report.toml, or iopress ingest --mapping; see docs/formats/iogen.md)\n"
    )
    # the counts are of the good file: the last word says nothing was written, and why
    assert run.stderr.endswith(
        f"error: {out}: nothing written: 1 file failed (above); the counts are of the other "
        "files\n  hint: fix or leave out the failed files, or pass --keep-going to write the "
        "others' records and list each failed file as a reject\n"
    )
    assert sorted(p.name for p in tmp_path.iterdir()) == []


def test_ingest_keep_going_writes_the_good_files_and_lists_the_bad(tmp_path: Path) -> None:
    out = tmp_path / "ds.parquet"
    bad = IOGEN / "bad" / "missing_column.csv"
    good = str(IOGEN / "basic.csv")
    run = iopress("ingest", good, str(bad), "-o", str(out), "--format", "iogen", "--keep-going")
    assert run.returncode == 0, run.stderr
    assert run.stdout == "read: 9, accepted: 8, rejected: 1\n"
    assert f"  {bad}: line 1: missing column(s): service_ms" in run.stderr
    assert pl.read_parquet(out).height == 2


def test_ingest_with_mapping(tmp_path: Path) -> None:
    out = tmp_path / "m.parquet"
    run = iopress(
        "ingest",
        str(IOGEN / "mapped.csv"),
        "-o",
        str(out),
        "--format",
        "iogen",
        "--mapping",
        str(IOGEN / "mapped.toml"),
    )
    assert run.returncode == 0, run.stderr
    assert pl.read_parquet(out)["iops"].to_list() == [12172.75]


def test_ingest_with_a_bad_mapping_names_the_file_and_the_field(tmp_path: Path) -> None:
    """The mapping file is checked by the model its reader declares: a clear error, not
    pydantic's traceback."""
    mapping = tmp_path / "bad.toml"
    mapping.write_text('decimal = ";"\n', encoding="utf-8")
    out = tmp_path / "m.parquet"
    run = iopress("ingest", str(IOGEN / "mapped.csv"), "-o", str(out), "--mapping", str(mapping))
    assert run.returncode == 1
    said = f"{mapping}: decimal (line 1): unknown value ';'\n  hint: use one of '.' or ','"
    assert said in run.stderr
    assert "Traceback" not in run.stderr and not out.exists()


def test_tables_from_dataset_in_both_languages(tmp_path: Path) -> None:
    out = tmp_path / "fs.parquet"
    assert iopress("ingest", str(FS840 / "raw" / "fs840.iogen.csv"), "-o", str(out)).returncode == 0
    de = iopress("tables", str(out), "--lang", "de")
    en = iopress("tables", str(out), "--lang", "en")
    assert de.returncode == en.returncode == 0
    assert "1’008’045 @ 0.50\u00a0ms" in de.stdout and "Minimale Latency" in de.stdout
    assert "1,008,045 @ 0.50\u00a0ms" in en.stdout and "Minimum latency" in en.stdout
    # what the second line of a cell is, said where italics do not show (a pipe)
    assert "The optimum holds as long as" in " ".join(en.stdout.split())


def _with_settings(folder: Path) -> Path:
    """fs840 with every setting that changes its measurement tables set away from the
    default, and without its vendor figures (report content a dataset does not hold)."""
    import re
    import shutil

    shutil.copytree(FS840, folder)
    toml = folder / "report.toml"
    text = re.sub(r"\[\[vendor_figures\]\][^[]*", "", toml.read_text(encoding="utf-8"))
    settings = (
        'optimum_margin_pp = 30\nunits = "decimal"\nnumber_style = "de-DE"\n'
        'load_generators = "vms"\ntables = ["performance", "min_latency"]\n'
    )
    limits = "[latency_limits]\nsmall_us = 500\nlarge_us = 2000\nsmall_block = 8192\n"
    toml.write_text(settings + text + limits, encoding="utf-8")
    return folder


def test_tables_of_a_dataset_are_the_reports_tables(tmp_path: Path) -> None:
    """``iopress tables DATASET`` computed with the defaults: with optimum_margin_pp = 30
    stored in the dataset, 9 of 18 optimum points differed from the report's. It now
    prints the measurement tables as ``iopress tables REPORT`` prints them (first; then
    the report's cost tables …), and its frames equal the build's tables/*.csv, for every
    setting stored with the dataset."""
    from pipeline.build import write_data
    from pipeline.compute.compare import Settings
    from pipeline.dataset import read_figures, read_points
    from pipeline.prepare import prepare

    report = _with_settings(tmp_path / "fs840")
    out = tmp_path / "out"
    out.mkdir()
    ctx = prepare(report)
    write_data(ctx, out)
    data = out / "dataset.parquet"
    for lang in ("de", "en"):
        said = iopress("tables", str(report), "--lang", lang)
        for given in (data, out):
            again = iopress("tables", str(given), "--lang", lang)
            assert again.returncode == said.returncode == 0
            assert said.stdout.startswith(again.stdout) and again.stdout.count("┏") == 2
    de = iopress("tables", str(data), "--lang", "de").stdout
    assert "1.008.045 @ 0,50\u00a0ms" in de and "Minimale Latency" in de  # de-DE, as stored
    from pipeline.compute.registry import measured

    made = measured(read_points(data), Settings.read(read_figures(data)))
    assert set(made) == {"performance", "min_latency", "iops_at_latency"}
    for name, frame in made.items():
        written = (out / "tables" / f"{name}.csv").read_text(encoding="utf-8")
        assert frame.write_csv(quote_style="non_numeric") == written
    default = measured(ctx.dataset.points, Settings())["performance"].filter(kind="optimum")
    shown = made["performance"].filter(kind="optimum")
    assert (shown["parallelism"] != default["parallelism"]).sum() == 9  # the margin counts


def test_a_dataset_with_a_broken_presentation_is_refused(tmp_path: Path) -> None:
    data = tmp_path / "ds.parquet"
    assert iopress("ingest", str(IOGEN / "basic.csv"), "-o", str(data)).returncode == 0
    meta = {"iopress.schema_version": "2", "iopress.presentation": '{"units": "imperial"}'}
    pl.read_parquet(data).write_parquet(data, metadata=meta)
    run = iopress("tables", str(data))
    assert run.returncode == 1
    assert f"{data}: metadata iopress.presentation: not valid" in run.stderr


def test_build_of_missing_folder_is_input_error(tmp_path: Path) -> None:
    run = iopress("build", str(tmp_path / "nope"))
    assert run.returncode == 1
    assert run.stderr == (
        f"error: {tmp_path / 'nope'}: not a report folder\n  hint: give a folder with report.toml\n"
    )


def test_usage_errors_exit_2() -> None:
    assert iopress("bogus").returncode == 2
    assert iopress("ingest", "x.csv").returncode == 2  # -o is required
    assert iopress("tables", "x", "--lang", "fr").returncode == 2


def test_unknown_format_option_is_input_error(tmp_path: Path) -> None:
    run = iopress(
        "ingest", str(IOGEN / "basic.csv"), "-o", str(tmp_path / "x.parquet"), "--format", "nope"
    )
    assert run.returncode == 1
    assert "--format: unknown format 'nope'" in run.stderr


@pytest.mark.slow
def test_second_build_of_unchanged_inputs_is_skipped(tmp_path: Path) -> None:
    out = tmp_path / "out"
    first = iopress("build", str(MIXED), "-o", str(out))
    assert first.returncode == 0, first.stderr
    assert (out / ".iopress-fingerprint").is_file()
    bare = {"PATH": "/usr/bin:/bin", "IOPRESS_CACHE": cache.folder().as_posix()}
    second = iopress_process("build", str(MIXED), "-o", str(out), env=bare)
    assert (second.returncode, second.stdout) == (
        0,
        f"up to date (inputs unchanged): {out}\n",
    )
    (out / "mixed.de.pdf").unlink()
    third = iopress("build", str(MIXED), "-o", str(out))
    assert third.returncode == 0, third.stderr
    assert "up to date" not in third.stdout
    assert (out / "mixed.de.pdf").is_file()


@pytest.mark.parametrize(("columns", "width"), [(None, "1000"), ("120", "120")])
def test_output_into_a_pipe_is_as_wide_as_it_needs(columns: str | None, width: str) -> None:
    """rich gave a pipe 80 columns, and compare's table cut its cells ("10,105,…")."""
    import os
    import subprocess
    import sys

    from tests.cli import ROOT

    env = {k: v for k, v in os.environ.items() if k != "COLUMNS"}
    env |= {"PYTHONPATH": str(ROOT)} | ({"COLUMNS": columns} if columns else {})
    code = "from pipeline.console import out_console; print(out_console.width)"
    run = subprocess.run(
        [sys.executable, "-c", code], env=env, capture_output=True, text=True, check=True
    )
    assert run.stdout.strip() == width


COMMANDS = [
    "build", "site", "verify", "compare", "datasheet", "ingest",
    "tables", "plan", "run", "machine", "version",
]  # fmt: skip
# what typer prints for a parameter when nobody named its value: a Python type
PYTHON_TYPES = re.compile(r"<\w+(\[.*?\])?>|\b(bool|str|int|float|Path|NoneType)\b|list\[")


@pytest.mark.parametrize("command", ["", *COMMANDS])
def test_help_shows_flags_and_metavars_never_python_types(command: str) -> None:
    shown = iopress(*command.split(), "--help")
    assert shown.returncode == 0, shown
    assert "Usage: iopress" in shown.stdout
    assert "<bool>" not in shown.stdout and "{" not in shown.stdout and "}" not in shown.stdout
    assert PYTHON_TYPES.findall(shown.stdout) == []


def test_help_names_values_in_the_house_style() -> None:
    build = iopress("build", "--help").stdout
    assert "Usage: iopress build [OPTIONS] REPORT_DIR\n" in build
    assert re.search(r"\n  --strict +Warnings fail the build", build)
    assert re.search(r"\n  -o, --out OUT +Output folder", build)
    assert "Usage: iopress ingest [OPTIONS] FILE...\n" in iopress("ingest", "--help").stdout
    assert "Usage: iopress site [OPTIONS] REPORT_DIR...\n" in iopress("site", "--help").stdout
    assert "--lang de|en" in iopress("tables", "--help").stdout


def test_the_group_names_every_command() -> None:
    listed = iopress("--help").stdout.split("Commands:\n")[1]
    assert [line.split()[0] for line in listed.splitlines() if line.startswith("  ")][
        : len(COMMANDS)
    ] == COMMANDS


def test_version_as_option_and_as_command() -> None:
    option, command = iopress("--version"), iopress("version")
    assert option.returncode == command.returncode == 0
    assert option.stdout == command.stdout == f"{__version__}\n"


def test_exit_status_is_documented_in_help_readme_and_docs() -> None:
    compare = " ".join(iopress("compare", "--help").stdout.split())
    assert "0 no figure regressed" in compare and "1 one did, 2 bad input or usage" in compare
    assert "compare: 0 no regression, 1 regression, 2 bad input or usage" in " ".join(
        iopress("--help").stdout.split()
    )
    for doc in (ROOT / "README.md", ROOT / "docs" / "compare.md"):
        text = " ".join(doc.read_text(encoding="utf-8").split())
        assert "0 no regression, 1 regression, 2 bad input or usage" in text, doc


def test_cli_reference_is_generated_from_the_cli() -> None:
    """docs/cli.md is what the command line prints; regenerate it with
    ``.venv/bin/python -m tests.regenerate_cli_doc``."""
    written = (ROOT / "docs" / "cli.md").read_text(encoding="utf-8")
    assert written == cli.reference(), "docs/cli.md is stale: python -m tests.regenerate_cli_doc"
    for command in COMMANDS:
        assert f"## iopress {command}\n" in written


@pytest.mark.parametrize(
    "broken",
    ["missing", "garbage.parquet", "typo"],
)
def test_compare_exits_2_for_bad_input_never_1(tmp_path: Path, broken: str) -> None:
    """1 is "a figure regressed": a broken side is 2, so that a CI gate tells them apart."""
    side = tmp_path / broken
    if broken == "garbage.parquet":
        side.write_bytes(b"not a parquet file")
    elif broken == "typo":
        shutil.copytree(FS840, side)
        toml = side / "report.toml"
        toml.write_text(toml.read_text(encoding="utf-8").replace("author =", "autor ="), "utf-8")
    done = iopress("compare", FS840, side)
    assert done.returncode == 2, done
    assert done.stderr.startswith("error: ") and "Traceback" not in done.stderr


def test_a_report_toml_typo_is_one_line(tmp_path: Path) -> None:
    report = tmp_path / "r"
    shutil.copytree(FS840, report)
    toml = report / "report.toml"
    toml.write_text(toml.read_text(encoding="utf-8").replace("author =", "autor ="), "utf-8")
    done = iopress("build", report, "-o", tmp_path / "out")
    assert done.returncode == 1
    assert done.stderr == (f"error: {toml}: line 7: unknown key 'autor' — did you mean 'author'?\n")


def test_ingest_of_one_failed_file_names_no_other_files(tmp_path: Path) -> None:
    bad = IOGEN / "bad" / "missing_column.csv"
    run = iopress("ingest", str(bad), "-o", str(tmp_path / "ds.parquet"), "--format", "iogen")
    assert run.returncode == 1
    assert "nothing written: 1 file failed (above)\n" in run.stderr
    assert "the counts are of the other files" not in run.stderr


def test_a_build_says_its_validation_findings(tmp_path: Path) -> None:
    """A consultant's [[profiles]] entry of 67 % read (no such point) was said only in
    validation.csv and the appendix; the build printed "written" and nothing else. It now
    prints the first finding of each rule and how many there are."""
    folder = tmp_path / "mixed"
    shutil.copytree(MIXED, folder)
    with (folder / "report.toml").open("a", encoding="utf-8") as toml:
        toml.write('\n[[profiles]]\nname = "OLTP"\naccess = "random"\nblock_size = "8K"\n')
        toml.write("read_pct = 67\n")
    done = iopress("build", folder, "-o", tmp_path / "out")
    assert done.returncode == 0, done.stderr
    lines = [line for line in done.stderr.splitlines() if line.startswith("warning: ")]
    assert len(lines) == 2 and "(Little)" in lines[0], lines  # the first of each rule
    assert lines[1].startswith("warning: report.toml profiles[0]: the workload mix “OLTP”")
    summary = next(line for line in done.stderr.splitlines() if "validation finding" in line)
    validation = tmp_path / "out" / "validation.csv"
    assert (
        summary == f"3 validation findings (littles-law 2, profiles 1): all of them in {validation}"
    )
    again = iopress("build", folder, "-o", tmp_path / "out")  # up to date: said again
    assert "up to date" in again.stdout and summary in again.stderr.splitlines(), again.stderr
