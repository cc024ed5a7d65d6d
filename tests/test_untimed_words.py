"""A report none of whose points has a latency (CrystalDiskMark 3 to 6) says nothing of
service time or the optimum in its method section, its tables' notes and its appendix,
in either language; a report with latency still does."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from pipeline.prepare import prepare
from pipeline.render.appendix import appendix
from pipeline.render.whitepaper import method_sentences
from pipeline.report.context import ReportContext
from tests.test_no_latency import _folder, _over_the_limit

# what a document may not say of a quantity it does not show
UNSHOWN = {
    "en": ("service time", "optimum holds", "optimum:", "each optimum", "weighted by i/os"),
    "de": ("servicezeit", "optimalwert", "optimum:", "jedes optimum", "nach ios gewichtet"),
}


def _said(ctx: ReportContext, lang: str) -> str:
    fmt = ctx.formatter(lang)
    notes = [view.note for view in ctx.views(fmt).values()]
    return " ".join([*method_sentences(ctx, fmt), *notes, *appendix(ctx, fmt)]).lower()


@pytest.mark.parametrize("top", ["", 'load_generators = "vms"\n', 'edition = "customer"\n'])
@pytest.mark.parametrize("lang", ["de", "en"])
def test_no_word_of_service_time_without_latency(tmp_path: Path, top: str, lang: str) -> None:
    said = _said(prepare(_folder(tmp_path, top)), lang)
    assert not [word for word in UNSHOWN[lang] if word in said], said
    units = "units: kb = 1024 bytes" if lang == "en" else "einheiten: kb = 1024 byte"
    assert units in said  # the sentences are there, without their service time
    assert ("summed" if lang == "en" else "summiert") in said


@pytest.mark.parametrize("lang", ["de", "en"])
def test_a_report_with_latency_still_says_it(tmp_path: Path, lang: str) -> None:
    said = _said(prepare(_over_the_limit(tmp_path)), lang)
    assert all(word in said for word in UNSHOWN[lang]), said


@pytest.mark.parametrize("lang", ["de", "en"])
def test_the_mean_of_repeated_runs_names_no_service_time(tmp_path: Path, lang: str) -> None:
    """repeats = "mean": the runs' mean is weighted by time, and nothing more is said."""
    folder = _folder(tmp_path, 'repeats = "mean"\n')
    shutil.copy(folder / "raw" / "cdm6.txt", folder / "raw" / "cdm6-again.txt")
    toml = folder / "report.toml"
    toml.write_text(toml.read_text().replace('"raw/cdm6.txt"', '"raw/"'), encoding="utf-8")
    ctx = prepare(folder)
    said = " ".join(method_sentences(ctx, ctx.formatter(lang))).lower()
    assert ("several runs" if lang == "en" else "mehreren läufen") in said
    assert not [word for word in UNSHOWN[lang] if word in said], said
