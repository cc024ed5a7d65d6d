"""fio JSON read many files at once (``fio_fast``, through ``ingest.read_many``) gives
exactly what the reader of one file gives: rows, rejects, notes, counts, run time and
what the ledger saw, for every fio fixture and the shared corpus; and under fuzzing of a
regular file's figures, options and names. A file the fast path does not take is read
by the reader of one file, so only the files it takes need comparing."""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from pipeline import ingest
from pipeline.ingest.base import ReadOptions, ReadResult
from tests.conftest import DATA

FOLDERS = ("fio", "fio-sweep", "fio-truth", "fio-repeats", "fio-data", "fio-levels", "pts")
CORPUS = DATA.parents[2] / "shared" / "corpus"
SWEEP = DATA / "fio-sweep" / "4k_r70" / "randrw-1-2.json"
JSONPLUS = DATA / "fio" / "jsonplus.json"


def _files(folder: Path) -> list[Path]:
    return sorted(
        p
        for p in folder.rglob("*")
        if p.is_file() and (p.suffix == ".json" or p.name == "fio-result.txt")
    )


def _summary(result: ReadResult) -> str:
    """Everything a result says, as text: ``repr`` tells -0.0 from 0.0 and 1 from 1.0,
    where ``==`` takes them as the same."""
    rows = result.intervals.to_dicts()
    return repr(
        (
            rows,
            [str(r) for r in result.rejects],
            result.notes,
            result.records_read,
            result.accepted,
            result.run_time,
            result.source,
            result.format,
            result.path,
            result.sidecars,
            result.reference,
            result.seen,
            result.skipped,
        )
    )


def _compare(jobs: list[ingest.Job]) -> int:
    """Each file the fast path takes against the reader of one file; how many it took."""
    taken = 0
    for job, fast in zip(jobs, ingest._read_fast(jobs), strict=True):
        if fast is None:
            continue
        kind, slow = ingest._read_one(job)
        assert kind == "ok", slow
        assert _summary(fast[1]) == _summary(slow), job[0]
        taken += 1
    return taken


@pytest.mark.parametrize("folder", FOLDERS)
def test_fixtures_read_together_as_one_by_one(folder: str) -> None:
    paths = _files(DATA / folder)
    for fmt in (None, "fio"):
        jobs = [(p, ReadOptions(label=p.name, root=p.parent), fmt) for p in paths]
        taken = _compare(jobs)
        if folder in ("fio-sweep", "fio-levels"):  # real fio output, all regular
            assert taken == len(paths)


@pytest.mark.skipif(not CORPUS.is_dir(), reason="the shared corpus is not here")
def test_corpus_read_together_as_one_by_one() -> None:
    paths = _files(CORPUS)
    _compare([(p, ReadOptions(label=str(p), root=CORPUS), None) for p in paths])


def test_read_many_reads_every_fixture_as_one_by_one() -> None:
    """Fast files, files left to the reader of one file and other formats, mixed in one
    call, in order; the rows of the fast ones in shared frames."""
    paths = [p for folder in FOLDERS for p in _files(DATA / folder)]
    paths += sorted((DATA / "iogen").glob("*.csv"))[:2]
    jobs: list[ingest.Job] = [(p, ReadOptions(label=p.name, root=p.parent), None) for p in paths]
    together = ingest.read_many(jobs)
    for job, outcome in zip(jobs, together, strict=True):
        kind, slow = ingest._read_one(job)
        if kind == "ok":
            assert isinstance(outcome, ReadResult)
            assert _summary(outcome) == _summary(slow), job[0]
        else:
            assert not isinstance(outcome, ReadResult)


def test_the_profile_cache_is_bounded(monkeypatch: pytest.MonkeyPatch) -> None:
    """The profiles found by their options' text are forgotten when the cache is full: a
    long-lived process does not keep every job it read; the rows are the same."""
    from pipeline.ingest import fio_fast

    monkeypatch.setattr(fio_fast, "CACHE_SIZE", 2)
    fio_fast._CACHE.clear()
    paths = _files(DATA / "fio-sweep")
    jobs: list[ingest.Job] = [(p, ReadOptions(label=p.name, root=p.parent), None) for p in paths]
    assert _compare(jobs) == len(paths)
    assert 0 < len(fio_fast._CACHE) <= 2


def _hosts(tmp: Path, names: list[str], total: bool) -> Path:
    """fio's client/server output of one job on several hosts (from a real json+ job),
    with fio's "All clients" sum where ``total``."""
    job = json.loads(JSONPLUS.read_text(encoding="utf-8"))["jobs"][0]
    records = [{**copy.deepcopy(job), "hostname": name} for name in names]
    if total:
        records.append({**copy.deepcopy(job), "jobname": "All clients"})
    path = tmp / "cs.json"
    path.write_text(json.dumps({"fio version": "fio-3.33", "client_stats": records}))
    return path


def test_client_server_output_is_taken(tmp_path: Path) -> None:
    path = _hosts(tmp_path, ["a", "b", "c"], total=True)
    assert _compare([(path, ReadOptions(), "fio")]) == 1


FIELDS = [
    (side, *rest)
    for side in ("read", "write")
    for rest in (
        ("iops",),
        ("bw_bytes",),
        ("bw",),
        ("runtime",),
        ("total_ios",),
        ("lat_ns", "mean"),
        ("lat_ns", "max"),
        ("clat_ns", "mean"),
        ("slat_ns", "mean"),
        ("clat_ns", "percentile", "50.000000"),
        ("clat_ns", "percentile", "99.990000"),
        ("lat_ns", "percentile"),
        ("clat_ns",),
        ("lat_ns",),
    )
] + [("job_runtime",), ("usr_cpu",), ("sys_cpu",), ("error",), ("port",), ("groupid",)]
OPTIONS = {
    "bs": ["4k", "8k,16k", "4k,", "1k-4k", "bad", "64k"],
    "rw": ["read", "randrw", "write", "trim", "bogus", "rw"],
    "rwmixread": ["0", "-0", "30", "101", "x"],
    "numjobs": ["1", "2", "0", "x"],
    "rate_iops": ["100", "5,5", "-5", ""],
    "bssplit": ["4k/50:8k/50", "4k/60"],
}
DELETE = object()
NUMBERS = st.one_of(
    st.sampled_from([0, 0.0, -0.0, 1, -1, 1000, 1e15, 1.5e15, 999.5, True, None, "7", DELETE]),
    st.floats(allow_nan=False, allow_infinity=False),
    st.floats(min_value=-1e4, max_value=1e7),
    st.integers(-(2**70), 2**70),
)


def _set(record: dict[str, Any], where: tuple[str, ...], value: object) -> None:
    for key in where[:-1]:
        node = record.get(key)
        if not isinstance(node, dict):
            return
        record = node
    if value is DELETE:
        record.pop(where[-1], None)
    else:
        record[where[-1]] = {"mean": value} if where[-1].endswith("_ns") else value


CHANGE = st.one_of(
    st.tuples(st.sampled_from(FIELDS), NUMBERS),
    st.tuples(
        st.sampled_from(sorted(OPTIONS)).map(lambda k: ("job options", k)),
        st.sampled_from(sorted({v for vs in OPTIONS.values() for v in vs})),
    ),
    st.tuples(st.just(("hostname",)), st.sampled_from(["a", "b", "", DELETE])),
    st.tuples(st.just(("jobname",)), st.sampled_from(["x", "y", "All clients"])),
)


@settings(max_examples=300, deadline=None)
@given(
    base=st.sampled_from(["sweep", "hosts", "hosts+total"]),
    changes=st.lists(st.tuples(st.integers(0, 3), CHANGE), max_size=5),
    indent=st.sampled_from([None, 1]),
)
def test_fuzzed_fio_json_read_together_as_one_by_one(
    tmp_path_factory: pytest.TempPathFactory,
    base: str,
    changes: list[tuple[int, tuple[tuple[str, ...], object]]],
    indent: int | None,
) -> None:
    tmp = tmp_path_factory.mktemp("fast")
    if base == "sweep":
        doc = json.loads(SWEEP.read_text(encoding="utf-8"))
    else:
        doc = json.loads(_hosts(tmp, ["a", "b", "c"], base.endswith("total")).read_text())
    records = doc.get("jobs") or doc["client_stats"]
    for k, (where, value) in changes:
        _set(records[k % len(records)], where, value)
    text = json.dumps(doc, indent=indent)
    path = tmp / "f.json"
    path.write_text(text)
    _compare([(path, ReadOptions(root=tmp), "fio")])


def test_fuzz_sample_is_taken() -> None:
    """The fuzzed files start from ones the fast path takes (else it would test nothing)."""
    assert _compare([(SWEEP, ReadOptions(), "fio")]) == 1


def test_real_client_server_output_is_taken_as_one_by_one() -> None:
    """fio --client's own output (tests/data/fio-truth/cs, by Debian's fio): its banner
    lines before the JSON, its "All clients" record without job options. Read together,
    with the banner's note and each record's line as the reader of one file gives them."""
    paths = [DATA / "fio-truth" / "cs" / n for n in ("cs.json", "cs_plus.json")]
    jobs: list[ingest.Job] = [(p, ReadOptions(label=p.name, root=p.parent), "fio") for p in paths]
    assert _compare(jobs) == len(paths)
    fast = ingest._read_fast(jobs)[0]
    assert fast is not None
    assert fast[1].notes[0].startswith("text before the JSON (lines 1-")


def test_a_banner_then_two_documents_is_left_to_one_by_one(tmp_path: Path) -> None:
    """--status-interval output after the banner: two documents, which the fast path does
    not decode as one (the reader of one file takes the differences)."""
    text = (DATA / "fio-truth" / "cs" / "cs.json").read_text(encoding="utf-8")
    head, _, doc = text.partition("\n{")
    path = tmp_path / "two.json"
    path.write_text(f"{head}\n{{{doc}\n{{{doc}", encoding="utf-8")
    job: ingest.Job = (path, ReadOptions(label="two", root=tmp_path), "fio")
    assert ingest._read_fast([job]) == [None]
