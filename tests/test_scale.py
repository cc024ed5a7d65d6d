"""Issue #39, build scale: a build's work per input file is constant (the report folder
resolved once, one pass over the rows for provenance, the manifest streamed), and the PDF
lists a large folder as one row that ``sha256sum`` reproduces."""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterator
from pathlib import Path

import polars as pl
import pytest

from pipeline import provenance
from pipeline.prepare import prepare
from tests.conftest import DATA

SWEEP = DATA / "fio-sweep"
TOML = """id = "scale"
title = { de = "Skalierung", en = "Scale" }
author = "iopress test"
version = "1"
date = 2026-11-22
classification = { de = "intern", en = "internal" }
sponsor = { de = "Eigenmessung", en = "Own measurement" }

[system]
name = "Null engine"
vendor = "fio"

[[sources]]
path = "raw/**/*.json"
format = "fio"
"""
TEXT = "Null engine.\n"


def sweep_files() -> list[Path]:
    return sorted(SWEEP.rglob("*.json"))


def scale_report(target: Path, files: int, extra: str = "") -> Path:
    """A report of ``files`` fio JSON files: the real sweep (tests/data/fio-sweep, Debian's
    fio) copied under new host names, as issue #39 measured it."""
    sweep = sweep_files()
    for i in range(files):
        host, source = f"h{i // len(sweep):03d}", sweep[i % len(sweep)]
        text = source.read_text(encoding="utf-8").replace(
            '"jobname" : "sweep",', f'"jobname" : "sweep",\n      "hostname" : "{host}",', 1
        )
        out = target / "raw" / host / source.relative_to(SWEEP)
        out.parent.mkdir(parents=True, exist_ok=True)
        out.write_text(text, encoding="utf-8")
    (target / "report.toml").write_text(TOML + extra, encoding="utf-8")
    for lang in ("de", "en"):
        for section in ("summary", "setup", "method", "conclusion"):
            text_file = target / "text" / lang / f"{section}.md"
            text_file.parent.mkdir(parents=True, exist_ok=True)
            text_file.write_text(TEXT, encoding="utf-8")
    return target


@pytest.fixture
def resolves(monkeypatch: pytest.MonkeyPatch) -> Iterator[Counter[Path]]:
    """Every ``Path.resolve`` call, by the path resolved."""
    calls: Counter[Path] = Counter()
    original = Path.resolve

    def counted(self: Path, strict: bool = False) -> Path:
        calls[self] += 1
        return original(self, strict)

    monkeypatch.setattr(Path, "resolve", counted)
    yield calls


@pytest.mark.skipif(not SWEEP.is_dir(), reason="tests/data/fio-sweep: run make fio-fixtures")
def test_the_report_folder_is_resolved_once_whatever_the_number_of_files(
    tmp_path: Path, resolves: Counter[Path]
) -> None:
    """Containment checks resolve each file, and the report folder once per build: not
    again for every file (15,012 times at 7,500 files)."""
    counts = {}
    for files in (20, 80):
        folder = scale_report(tmp_path / str(files), files)
        resolves.clear()
        prepare(folder)
        counts[files] = (resolves[folder], sum(resolves.values()))
    assert counts[20][0] == counts[80][0] <= 2, counts
    per_file = (counts[80][1] - counts[20][1]) / 60
    assert per_file <= 4, counts  # each file: its own containment checks, a few each


@pytest.mark.skipif(not SWEEP.is_dir(), reason="tests/data/fio-sweep: run make fio-fixtures")
def test_provenance_takes_one_pass_over_the_rows(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, resolves: Counter[Path]
) -> None:
    """The tools of every raw file from one pass, not one filter of the rows per file."""
    folder = scale_report(tmp_path / "r", 40)
    ctx = prepare(folder)
    filters = Counter[str]()
    original = pl.DataFrame.filter

    def counted(self: pl.DataFrame, *args: object, **kwargs: object) -> pl.DataFrame:
        filters["filter"] += 1
        return original(self, *args, **kwargs)

    monkeypatch.setattr(pl.DataFrame, "filter", counted)
    resolves.clear()
    files = provenance.inputs(folder, ctx.report, ctx.dataset, ctx.read, ctx.seen)
    assert len([f for f in files if f.format == "fio"]) == 40
    assert {f.tools for f in files if f.format == "fio"} == {"fio fio-3.33"}
    assert filters["filter"] <= 1 and resolves[folder] <= 1, (filters, resolves[folder])
