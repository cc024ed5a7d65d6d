"""Reading a report's raw files (sniffed, or in the format it names) into one dataset."""

from __future__ import annotations

import functools
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import polars as pl
from pydantic import BaseModel, ValidationError

from pipeline import config, ingest
from pipeline.config import REPORT_FILE, Report, folder_files
from pipeline.dataset import Dataset
from pipeline.dataset.assemble import combine
from pipeline.dataset.hosts import host_names
from pipeline.errors import InputError, InputErrors
from pipeline.ingest import fio, spc1
from pipeline.ingest.base import ReadOptions, problems
from pipeline.ingest.spc1 import Spc1Record
from pipeline.inputs import inside, is_inside

Outcomes = tuple[list[ingest.ReadResult], list[InputError], list[InputError]]


def load_report(folder: Path, checks: Sequence[config.Check] = ()) -> Report:
    """``folder/report.toml``, checked with the options its readers declare
    (``ingest.REPORT``) and the layers above's ``checks`` before anything is read."""
    return config.load_report(folder, ingest.REPORT, checks)


def reader_options(given: dict[str, Any]) -> dict[str, BaseModel]:
    """Readers' options by report.toml source key (``{"params": {"bs": "8k"}}``), each
    checked by the model its reader declares (a pydantic ``ValidationError``)."""
    models = ingest.option_models()
    return {key: models[key].model_validate(value) for key, value in given.items()}


def option_file(key: str, path: Path) -> dict[str, BaseModel]:
    """A reader's option ``key`` (``iopress ingest --mapping``) from a TOML file, checked
    by the model its reader declares; an error names the file and the field."""
    data, text = config.read_toml_text(path)
    try:
        return reader_options({key: data})
    except ValidationError as err:
        model = ingest.option_models()[key]
        raise config.from_validation(path, err, model=model, text=text) from None


def read_sources(folder: Path, report: Report, keep_going: bool = False) -> Dataset:
    """Read every raw file of the report. A file that cannot be read, holds no job or
    gives no accepted record fails the build; with ``keep_going`` it is listed among the
    rejects and the build goes on with the others."""
    paths = [
        inside(folder, s.path, folder / REPORT_FILE, s.place(i))
        for i, s in enumerate(report.sources)
    ]
    listed = frozenset(paths)
    jobs = [
        (
            path,
            ReadOptions(
                system=report.system.name,
                setup=src.setup,
                label=src.path,
                options=src.options(),
                root=folder,
                units=report.units,
                listed=listed,
            ),
            src.format,
        )
        for path, src in zip(paths, report.sources, strict=True)
    ]
    results, errors, failed = read_jobs(jobs, keep_going)
    if errors:
        raise InputErrors(errors)
    names = functools.partial(host_names, report, folder / REPORT_FILE, not failed)
    return combine(results, failed, names, report.repeats, report.profiles)


def read_files(
    paths: list[Path],
    fmt: str | None,
    names: tuple[str, str],
    options: dict[str, BaseModel],
    keep_going: bool,
) -> Outcomes:
    """Files named on the command line (``iopress ingest``): each in ``fmt`` or sniffed,
    as system and setup ``names``."""
    listed = frozenset(paths)
    jobs = [
        (
            path,
            ReadOptions(
                system=names[0],
                setup=names[1],
                label=str(path),
                options=options,
                root=Path.cwd() if is_inside(Path.cwd(), path) else None,
                listed=listed,
            ),
            fmt,
        )
        for path in paths
    ]
    return read_jobs(jobs, keep_going)


def listed_files(paths: list[Path], fmt: str | None = None) -> list[Path]:
    """The files named on the command line, a folder standing for its files (``path =
    "raw/"`` of report.toml: sorted, hidden files and subfolders left out); a misspelt
    ``fmt`` (--format) is the one error, before any file is read."""
    if fmt is not None:
        ingest.get_format(fmt)
    files: list[Path] = []
    for path in paths:
        found = folder_files(path) if path.is_dir() else [path]
        if not found:
            raise InputError(path, "", "a folder without files", "name raw files or their folder")
        files += found
    return files


def read_jobs(jobs: list[ingest.Job], keep_going: bool) -> Outcomes:
    """Read each (path, options, format) job, the large batches in parallel."""
    return split_outcomes(jobs, ingest.read_many(jobs), keep_going)


def split_outcomes(
    jobs: list[ingest.Job], outcomes: list[ingest.Outcome], keep_going: bool
) -> Outcomes:
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


SPC1_CATALOGUE = spc1.CATALOGUE  # the published SPC-1 records a report may name


def spc1_records(folder: Path, report: Report) -> list[Spc1Record]:
    """The SPC-1 records the report compares with (report.toml ``spc1``)."""
    return spc1.load_all(report.spc1, folder, folder / REPORT_FILE)


def spc1_files(folder: Path, report: Report) -> list[Path]:
    """The file of each SPC-1 record the report names."""
    where = folder / REPORT_FILE
    return [spc1.resolve(name, folder, where, f"spc1[{i}]") for i, name in enumerate(report.spc1)]


def latency_bins(path: Path, job: int) -> pl.DataFrame:
    """The latency histogram of one job record of a fio JSON (json+ bins)."""
    return fio.latency_bins(path, job)
