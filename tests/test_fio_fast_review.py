"""Inputs on which fio JSON read many files at once (``fio_fast``) and the reader of one
file (``fio.read``) were found to differ (review of the fast path). Each test builds its
file from a real fio 3.33 result of the fixtures and compares both through the entry
points tests/test_fio_fast.py uses."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from pipeline import ingest
from pipeline.errors import InputError
from pipeline.ingest.base import ReadOptions, ReadResult
from tests.conftest import DATA
from tests.test_fio_fast import _compare, _summary

# one read-only job of real fio output (ioengine=null), taken by the fast path as it is
READ_ONLY = DATA / "fio-levels" / "qd" / "raw" / "randread-qd1-n1.json"


def _write(tmp: Path, doc: dict[str, Any]) -> Path:
    path = tmp / "f.json"
    path.write_text(json.dumps(doc, indent=1), encoding="utf-8")
    return path


def _doc() -> dict[str, Any]:
    doc: dict[str, Any] = json.loads(READ_ONLY.read_text(encoding="utf-8"))
    return doc


def _both(path: Path) -> tuple[ReadResult, ReadResult]:
    """The fast path's result (it must take the file) and the reader of one file's."""
    job: ingest.Job = (path, ReadOptions(root=path.parent), "fio")
    fast = ingest._read_fast([job])[0]
    assert fast is not None, "the fast path left the file to the reader of one file"
    kind, slow = ingest._read_one(job)
    assert kind == "ok", slow
    return fast[1], slow


def test_base_file_is_taken() -> None:
    """The files below start from one the fast path takes (else they would test nothing)."""
    assert _compare([(READ_ONLY, ReadOptions(root=READ_ONLY.parent), "fio")]) == 1


@pytest.mark.parametrize("missing", ["usr_cpu", "sys_cpu"])
def test_cpu_without_usr_or_sys_is_none_not_100(tmp_path: Path, missing: str) -> None:
    """A record without ``usr_cpu`` (or ``sys_cpu``): the reader of one file gives no CPU
    figure; the fast path gave 100 % (polars' min_horizontal skips the null sum)."""
    doc = _doc()
    del doc["jobs"][0][missing]
    fast, slow = _both(_write(tmp_path, doc))
    assert slow.intervals["cpu_pct"].to_list() == [None]
    assert fast.intervals["cpu_pct"].to_list() == [None]
    assert _summary(fast) == _summary(slow)


def test_deeply_nested_file_is_an_input_error_not_a_crash(tmp_path: Path) -> None:
    """A field nested 1,000 deep: the reader of one file says so (InputError); the fast
    path raised RecursionError out of read_many, failing every file of the call."""
    deep = "[" * 1000 + "]" * 1000
    text = READ_ONLY.read_text(encoding="utf-8").replace('"jobname"', f'"x": {deep}, "jobname"', 1)
    path = tmp_path / "deep.json"
    path.write_text(text, encoding="utf-8")
    job: ingest.Job = (path, ReadOptions(root=tmp_path), "fio")
    kind, slow = ingest._read_one(job)
    assert kind == "error", slow
    together = ingest.read_many([job, (READ_ONLY, ReadOptions(root=READ_ONLY.parent), "fio")])
    assert isinstance(together[0], InputError)
    assert isinstance(together[1], ReadResult)


def test_percentile_alias_key_with_an_untyped_field_elsewhere(tmp_path: Path) -> None:
    """The table holds fio's "50.000000" and also "50"; elsewhere in the file a field
    that the reader of one file's typed decoder refuses ("lat": null, fio 2.x's name),
    so that it decodes the file again with orjson and the table's ints are read by
    value. Both read fio's own spelling, "50.000000" (0.02 µs), as both do without the
    null field: the result does not hang on an unrelated field."""
    doc = _doc()
    read = doc["jobs"][0]["read"]
    read["lat"] = None
    read["clat_ns"]["percentile"]["50"] = 999
    fast, slow = _both(_write(tmp_path, doc))
    assert fast.intervals["lat_p50_us"].to_list() == slow.intervals["lat_p50_us"].to_list()
    assert slow.intervals["lat_p50_us"].to_list()[0] == pytest.approx(0.02)


def test_a_negative_zero_rate_adds_up_to_zero_on_both_paths(tmp_path: Path) -> None:
    """Found by the fuzz test once it compared by repr: client/server output whose first
    host's read ``bw_bytes`` is -0.0 gave that host a bandwidth of -0.0 on the fast path
    (polars folds 0.0 + x to x), 0.0 on the reader of one file (Python's 0.0 + -0.0)."""
    from tests.test_fio_fast import _hosts

    path = _hosts(tmp_path, ["a", "b"], False)
    doc = json.loads(path.read_text(encoding="utf-8"))
    doc["client_stats"][0]["read"]["bw_bytes"] = -0.0
    path.write_text(json.dumps(doc), encoding="utf-8")
    fast, slow = _both(path)
    assert repr(fast.intervals["bytes_per_s"].to_list()[0]) == "0.0"
    assert _summary(fast) == _summary(slow)
