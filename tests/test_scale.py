"""Issue #39, build scale: a build's work per input file is constant (the report folder
resolved once, one pass over the rows for provenance, the manifest streamed), and the PDF
lists a large folder as one row that ``sha256sum`` reproduces."""

from __future__ import annotations

import csv
import hashlib
import json
import subprocess
import sys
from collections import Counter
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import polars as pl
import pytest

from pipeline import provenance
from pipeline.build import BuildResult
from pipeline.prepare import prepare
from pipeline.provenance import InputFile
from pipeline.render.appendix import appendix, files_view
from pipeline.report.context import ReportContext

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "benchmarks"))
import workloads as W  # benchmarks/ is no package: the bench's own workload

SWEEP = W.SWEEP


def scale_report(target: Path, files: int) -> Path:
    """A report of ``files`` fio JSON files: the real sweep (tests/data/fio-sweep, Debian's
    fio) copied under new host names, as issue #39 measured it (the benchmark's own)."""
    return W.sweep_report(target, files=files, text="Null engine.\n")


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
    # each file: resolved where it is no link only by its folder (``inputs.real``); the
    # opens of the ledger resolve it once more
    assert per_file <= 1.5, counts


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
    assert {f.tools for f in files if f.format == "fio"} == {"fio-3.33"}
    assert filters["filter"] <= 1 and resolves[folder] <= 1, (filters, resolves[folder])


@pytest.mark.skipif(not SWEEP.is_dir(), reason="tests/data/fio-sweep: run make fio-fixtures")
def test_a_build_reads_report_toml_once(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The command line checks report.toml in the build, not before it too (every source's
    containment checked twice: ≈ 1 CPU-s at 7,500 files)."""
    from pipeline import config
    from tests.cli import iopress

    folder, loads = scale_report(tmp_path / "r", 20), Counter[str]()
    original = config.load_report

    def counted(
        folder: Path, model: type[config.Report], checks: tuple[config.Check, ...] = ()
    ) -> config.Report:
        loads["report.toml"] += 1
        return original(folder, model, checks)

    monkeypatch.setattr(config, "load_report", counted)
    ran = iopress("build", folder, "-o", tmp_path / "out")
    assert ran.returncode == 0, ran
    assert loads["report.toml"] == 1


LISTING = "find raw -type f -print0 | LC_ALL=C sort -z | xargs -0 sha256sum | sha256sum"


@pytest.mark.skipif(not SWEEP.is_dir(), reason="tests/data/fio-sweep: run make fio-fixtures")
@pytest.mark.parametrize("files", [provenance.LARGE, provenance.LARGE + 1])
def test_a_large_folder_is_one_row_that_sha256sum_reproduces(files: int, tmp_path: Path) -> None:
    """Up to LARGE files of a top folder are listed one by one; beyond, the folder is one
    row (count, bytes, one SHA-256 the note's shell command prints); every file is still in
    the inputs that manifest.json and inputs.csv list."""
    folder = scale_report(tmp_path / "r", files)
    ctx = prepare(folder)
    raw = [f for f in ctx.inputs() if f.path.startswith("raw/")]
    assert len(raw) == files
    view = files_view(ctx, ctx.formatter("en"))
    rows = {r[0][0].text: r for r in view.rows}
    if files <= provenance.LARGE:
        assert "raw/" not in rows and sum(p.startswith("raw/") for p in rows) == files
        assert "find raw" not in view.note
        return
    assert not any(p.startswith("raw/h") for p in rows) and "report.toml" in rows
    row = rows["raw/"]
    assert row[1][0].text == f"{sum(f.size for f in raw):,}"
    assert row[3][0].text == f"{files} files: fio-3.33"
    assert LISTING.replace("raw", "<folder>") in view.note
    printed = subprocess.run(
        LISTING, shell=True, cwd=folder, capture_output=True, text=True, check=True
    ).stdout.split()[0]
    assert "".join(c.text for c in row[2]) == printed
    assert f"{provenance.LARGE}" in view.note and "inputs.csv" in view.note
    de = files_view(ctx, ctx.formatter("de")).rows
    assert {r[0][0].text: r for r in de}["raw/"][3][0].text == f"{files} Dateien: fio-3.33"


def test_a_large_folder_and_a_folder_of_job_files_are_one_row_each() -> None:
    """A large top folder (raw files and their sidecars) is one row whose SHA-256 is that
    of its listing in path order, its tools the raw files' (a sidecar's names its raw
    file); five job files keep their own row (``jobs/*``)."""
    raw = [InputFile(f"raw/p{i:03d}.json", 10, f"{i:064x}", "fio", "fio 3.33") for i in range(60)]
    jobs = [InputFile(f"jobs/{i}.fio", 1, f"{i:064x}", "method", "") for i in range(5)]
    sidecar = [InputFile("raw/p000.fio", 3, "f" * 64, "sidecar", "raw/p000.json")]
    rows, counts = provenance.grouped([*raw, *jobs, *sidecar])
    assert [r.path for r in rows] == ["raw/", "jobs/*"] and counts == {"raw/": 61, "jobs/*": 5}
    assert rows[0].tools == "fio 3.33" and rows[0].size == 603 and rows[0].format == "folder"
    by_path = sorted([*raw, *sidecar], key=lambda f: f.path)
    listing = "".join(f"{f.sha256}  {f.path}\n" for f in by_path)
    assert rows[0].sha256 == hashlib.sha256(listing.encode()).hexdigest()


@pytest.mark.skipif(not SWEEP.is_dir(), reason="tests/data/fio-sweep: run make fio-fixtures")
def test_the_customer_edition_lists_no_file(tmp_path: Path) -> None:
    """The customer paper names where the audit material is, and holds no file list or
    checksum, however many files were read."""
    folder = scale_report(tmp_path / "r", provenance.LARGE + 5)
    ctx = prepare(folder, edition="customer")
    body = "\n".join(appendix(ctx, ctx.formatter("en")))
    assert "raw/h000" not in body and "sha256" not in body.lower()
    assert ctx.inputs()[0].sha256 not in body
    assert "manifest.json" in body


def test_inputs_csv_lists_every_input_the_manifest_lists(fs840_build: BuildResult) -> None:
    manifest = json.loads((fs840_build.out / "manifest.json").read_text(encoding="utf-8"))
    with (fs840_build.out / "inputs.csv").open(encoding="utf-8", newline="") as fh:
        rows = list(csv.DictReader(fh))
    assert [r["path"] for r in rows] == [f["path"] for f in manifest["inputs"]]
    assert [(r["sha256"], int(r["size"])) for r in rows] == [
        (f["sha256"], f["size"]) for f in manifest["inputs"]
    ]


def test_the_manifest_is_written_a_piece_at_a_time_into_its_place(
    fs840_context: ReportContext, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The manifest is made an item at a time (no piece of it a tenth of the whole: inputs
    and figures grow with the files), one line per figure, and it replaces an earlier
    manifest only once complete: a failure midway leaves that one and no part file."""
    from pipeline import manifest

    path = tmp_path / "manifest.json"
    pieces: list[int] = []
    dumps = json.dumps

    def measured(value: object, **kwargs: Any) -> str:
        text = dumps(value, **kwargs)
        pieces.append(len(text))
        return text

    monkeypatch.setattr(json, "dumps", measured)
    manifest.write(fs840_context, path)
    whole = path.read_text(encoding="utf-8")
    monkeypatch.setattr(json, "dumps", dumps)
    assert json.loads(whole) == json.loads(json.dumps(manifest.manifest(fs840_context)))
    assert max(pieces) < len(whole) / 10, (max(pieces), len(whole))
    figures = [line for line in whole.splitlines() if line.startswith('  {"table": ')]
    assert len(figures) == len(manifest.figures(fs840_context))  # one line each
    # a text that cannot be written (a lone surrogate) after the first pieces
    monkeypatch.setattr(manifest, "versions", lambda: {"iopress": "\udc80"})
    with pytest.raises(UnicodeEncodeError):
        manifest.write(fs840_context, path)
    assert path.read_text(encoding="utf-8") == whole
    assert [p.name for p in tmp_path.iterdir()] == ["manifest.json"]


def test_real_is_resolve(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """``inputs.real`` (a folder's resolution reused) resolves as ``Path.resolve`` does:
    links at the end or in between, ``..``, a missing file, a relative path."""
    from pipeline import inputs

    (tmp_path / "d").mkdir()
    (tmp_path / "d" / "f").write_text("x")
    (tmp_path / "out").mkdir()
    (tmp_path / "out" / "g").write_text("y")
    (tmp_path / "d" / "link").symlink_to(tmp_path / "out" / "g")
    (tmp_path / "d" / "dirlink").symlink_to(tmp_path / "out")
    monkeypatch.chdir(tmp_path)
    names = ["d/f", "d/link", "d/dirlink/g", "d/dirlink/../f", "d/missing", "d/..", "d/.", "d"]
    with inputs.ledger(tmp_path):
        for name in names:
            for path in (Path(name), tmp_path / name):
                assert inputs.real(path) == path.resolve(), path
                assert inputs.is_inside(tmp_path / "d", path) == path.resolve().is_relative_to(
                    (tmp_path / "d").resolve()
                ), path


def _raw(path: str, i: int) -> InputFile:
    return InputFile(path, 10, f"{i:064x}", "fio", "fio 3.33")


def test_many_small_folders_and_the_report_folders_own_files_are_summarised() -> None:
    """The PDF's list stays short however the files lie: 40 hosts' folders of 15 files
    each are 40 rows, not 600 (where the report reads more than MANY files, a top folder
    of several is one row), and 600 hosts' folders of two one row ``*/`` (more than LARGE
    folder rows); 60 raw files in the report folder itself are one row ``./ (fio)``;
    report.toml keeps its row."""
    for hosts, each, expected in ((40, 15, 40), (600, 2, 1)):
        spread = [
            _raw(f"h{i:03d}/p{j}.json", i * each + j) for i in range(hosts) for j in range(each)
        ]
        rows, counts = provenance.grouped(spread)
        assert len(rows) == expected and sum(counts.values()) == hosts * each
    here = [_raw(f"p{i:03d}.json", i) for i in range(60)]
    toml = InputFile("report.toml", 5, "e" * 64, "report", "")
    rows, counts = provenance.grouped([toml, *here])
    assert [r.path for r in rows] == ["report.toml", "./ (fio)"] and counts == {"./ (fio)": 60}
    assert provenance.grouped(spread)[0][0].path == "*/"
    few = [_raw(f"p{i:03d}.json", i) for i in range(provenance.LARGE)]
    assert len(provenance.grouped([toml, *few])[0]) == provenance.LARGE + 1


def test_a_rows_sha256_is_sha256sums_for_names_it_escapes(tmp_path: Path) -> None:
    """Names with a backslash, a newline or a carriage return: sha256sum escapes them and
    marks the line; the combined SHA-256 is that of sha256sum's own output."""
    names = ["raw/a\\b.json", "raw/c\nd.json", "raw/e\rf.json", "raw/plain.json"]
    files = []
    for i, name in enumerate(names):
        (tmp_path / name).parent.mkdir(exist_ok=True)
        (tmp_path / name).write_bytes(bytes([i]))
        digest = hashlib.sha256(bytes([i])).hexdigest()
        files.append(InputFile(name, 1, digest, "fio", ""))
    printed = subprocess.run(
        ["sha256sum", "--", *sorted(names)], cwd=tmp_path, capture_output=True, check=True
    ).stdout
    assert provenance.combined("raw/", files).sha256 == hashlib.sha256(printed).hexdigest()


def test_the_documented_listing_reproduces_a_row_for_odd_names(tmp_path: Path) -> None:
    """docs/verify.md's command (find -print0 | sort -z | xargs -0) over names with a
    space, a leading dash, a newline, a backslash and non-ASCII letters: the row's SHA-256
    (xargs -d '\\n' split the newline name and printed another hash)."""
    names = ["raw/a b.json", "raw/-x.json", "raw/n\nl.json", "raw/b\\s.json", "raw/ü.json"]
    files = []
    for i, name in enumerate(names):
        (tmp_path / name).parent.mkdir(exist_ok=True)
        (tmp_path / name).write_bytes(bytes([i]))
        files.append(InputFile(name, 1, hashlib.sha256(bytes([i])).hexdigest(), "fio", ""))
    printed = subprocess.run(
        LISTING, shell=True, cwd=tmp_path, capture_output=True, text=True, check=True
    ).stdout.split()[0]
    assert provenance.combined("raw/", files).sha256 == printed
