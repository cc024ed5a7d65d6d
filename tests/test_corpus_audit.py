"""Every file of shared/corpus is accounted for: ingested, read with a sibling, or refused
for a stated reason (not block-storage results, or not supported yet). Every file of
shared/formats (the other tools' real outputs) ingests, by its folder's format."""

from __future__ import annotations

from pathlib import Path

import pytest

from pipeline import ingest
from pipeline.errors import InputError
from pipeline.ingest.base import ReadOptions
from tests.conftest import SHARED

CORPUS = SHARED / "corpus"
FORMATS = SHARED / "formats"
needs_corpus = pytest.mark.skipif(not CORPUS.is_dir(), reason="shared/corpus not present")
needs_formats = pytest.mark.skipif(not FORMATS.is_dir(), reason="shared/formats not present")

# file (relative to corpus/) or folder prefix -> why iopress does not ingest it on its own
NOT_INGESTED = {
    "mlperf-storage-v1.0/": "MLPerf Storage: an AI training benchmark, not block-storage results",
    "storperf-testdata/": "StorPerf report data: a derived summary, not a tool's raw output",
    "fio-upstream-plot-samples/fio-logs.tar.gz": "a tarball (its logs: test_corpus_fio_log)",
    "fio-perfkitbenchmarker/pkb_fio_avg_1506559526.49_clat_hist.1.log": "histogram log",
    "fio-pbench/fio-0-fio3.7-clientserver/clients/perf36/fio_clat_hist.": "histogram log",
    "vdbench-vdbconvert/totals.html": "cross-check of flatfile.html",
    "vdbench-vdbconvert/summary.html": "cross-check of flatfile.html",
    "vdbench-vdbconvert/histogram.html": "response-time histogram, not read",
    "vdbench-vdbconvert/sd1.html": "per-SD report; the flatfile holds the totals",
    "vdbench-vdbconvert/hd1.html": "per-host report; the flatfile holds the totals",
    "vdbench-vdbconvert/logfile.html": "run log",
    "vdbench-vdbconvert/parmfile.html": "parameter file",
    "vdbench-vdbconvert/errorlog.html": "empty error log",
}
COMPANIONS = (".fio", ".job", ".md", ".upstream")


def _why(relative: str) -> str | None:
    return next((why for key, why in NOT_INGESTED.items() if relative.startswith(key)), None)


def _files(top: Path = CORPUS) -> list[Path]:
    return sorted(
        p
        for p in top.rglob("*")
        if p.is_file()
        and p.suffix not in COMPANIONS
        and p.name != "SOURCE.md"
        and p.stat().st_size > 0  # an empty file has nothing to read
    )


@needs_corpus
@pytest.mark.parametrize("path", _files(), ids=lambda p: str(p.relative_to(CORPUS)))
def test_every_corpus_file_is_accounted_for(path: Path) -> None:
    relative = str(path.relative_to(CORPUS))
    why = _why(relative)
    try:
        result = ingest.read(path, ReadOptions(root=CORPUS / Path(relative).parts[0]))
    except InputError:
        assert why, f"{relative} was refused but is not listed as out of scope"
        return
    assert why is None, f"{relative} is listed as out of scope ({why}) but ingests"
    companion = ("read together with", "empty log", "clone of the job")
    assert result.accepted > 0 or any(n.startswith(companion) for n in result.notes), relative


@needs_formats
@pytest.mark.parametrize("path", _files(FORMATS), ids=lambda p: str(p.relative_to(FORMATS)))
def test_every_formats_file_ingests_as_its_folders_format(path: Path) -> None:
    """``formats/<tool>-<origin>/``: sniffed as ``<tool>``, every record accounted for."""
    result = ingest.read(path, ReadOptions(root=path.parent))
    assert result.format == path.parent.name.split("-")[0]
    assert result.accepted > 0
    assert result.records_read == result.accepted + len(result.rejects)
