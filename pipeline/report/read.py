"""Every input of a report, read once into one immutable object before anything is
computed: report.toml, the chapters' texts, the raw data (one dataset), the SPC-1 records,
the machines, the fio histograms' bins and the list of the other files read (the method
files, only hashed), and the images the texts name (``pictures``: read with the rest by
``prepare.read_inputs``, from the texts as written, since reading them takes the
narrative's Markdown reader, a layer above). Compute, report and render work from it
and open no input file."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path

import polars as pl

from pipeline.compute.registry import name_problems
from pipeline.config import REPORT_FILE, Edition, Report, provenance_files
from pipeline.dataset import Dataset, Spc1Record
from pipeline.dataset.sources import (
    latency_bins,
    load_report,
    read_sources,
    spc1_files,
    spc1_records,
)
from pipeline.errors import InputError
from pipeline.images import Picture
from pipeline.inputs import digest
from pipeline.machine import Machine, load_machine
from pipeline.report import chapters, narrative
from pipeline.report.plan import kind_problems

Texts = Mapping[str, Mapping[str, narrative.Section]]  # language -> chapter -> its text


@dataclass(frozen=True)
class ReportInputs:
    folder: Path
    report: Report
    texts: Texts
    dataset: Dataset
    spc1: tuple[Spc1Record, ...]
    machines: tuple[Machine, ...]  # what ran the load (report.toml ``machines``)
    bins: Mapping[tuple[str, int], pl.DataFrame]  # (fio json+ file, job) -> latency bins
    read: tuple[tuple[Path, str], ...]  # the files besides the raw data, and their kind
    # (text file, image path as written) -> the image, or why it cannot be read (said where
    # a filled text places it)
    pictures: Mapping[tuple[str, str], Picture | InputError] = field(default_factory=dict)


def read_report(
    folder: Path, keep_going: bool = False, edition: Edition | None = None
) -> ReportInputs:
    """Read every input of the report in ``folder``; ``edition`` in place of report.toml's
    (``--edition``)."""
    report = load_report(folder, (name_problems, kind_problems))  # all at once
    if edition is not None:
        report = report.model_copy(update={"edition": edition})
    texts = narrative.load(folder, chapters.texts(report))
    dataset = read_sources(folder, report, keep_going)
    if dataset.points.is_empty():
        raise InputError(
            folder,
            "sources",
            "no record was accepted from the raw files",
            "see the rejected records listed above",
        )
    records = tuple(spc1_records(folder, report))
    found = provenance_files(folder, report)
    machines = tuple(load_machine(p) for p in found["machines"])
    read = _files_read(folder, report, texts)
    read += [(p, key) for key in ("machines", "method") for p in found[key]]
    for path in found["method"]:
        digest(path)  # listed with its SHA-256 only: hashed now, with the other inputs
    bins = _histograms(folder, report)
    return ReportInputs(folder, report, texts, dataset, records, machines, bins, tuple(read))


def _histograms(folder: Path, report: Report) -> dict[tuple[str, int], pl.DataFrame]:
    """The latency bins of every histogram chart of report.toml."""
    return {
        (c.source or "", c.job): latency_bins(folder / (c.source or ""), c.job)
        for c in report.charts or []
        if c.kind == "histogram"
    }


def _files_read(folder: Path, report: Report, texts: Texts) -> list[tuple[Path, str]]:
    """The files besides the raw data that a build reads (for the provenance table)."""
    found = [(folder / REPORT_FILE, "report")]
    found += [(s.path, "narrative") for sections in texts.values() for s in sections.values()]
    found += [(path, "SPC-1") for path in spc1_files(folder, report)]
    found += [(folder / c.source, "chart") for c in report.charts or [] if c.source]
    return found
