"""Property-based fuzzing of every parser: no input crashes one; each ends in a result
(with records read = accepted + rejected) or an input error naming the file and place."""

from __future__ import annotations

import tempfile
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from pipeline import ingest
from pipeline.dataset.sources import reader_options
from pipeline.errors import InputError
from pipeline.ingest.base import ReadOptions
from tests.conftest import DATA

SAMPLES = {
    "iogen": DATA / "iogen" / "basic.csv",
    "fio": DATA / "fio" / "randrw_group.json",
    "vdbench": DATA / "vdbench" / "sequential_decimal.html",
    "fio-log": DATA / "fio-log" / "win_iops.1.log",
    "diskspd": DATA / "diskspd" / "two_profiles_bom_crlf.txt",
    "diskspd-xml": DATA / "diskspd" / "two_targets.xml",
    "crystaldiskmark": DATA / "crystaldiskmark" / "cdm6.txt",
    "crystaldiskmark-8": DATA / "crystaldiskmark" / "cdm8_peak_mix_utf16.txt",
    "iometer": DATA / "iometer" / "iometer_11.csv",
    "elbencho": DATA / "elbencho" / "two_runs.csv",
    "elbencho-json": DATA / "elbencho" / "seq.json",
    "elbencho-resfile": DATA / "elbencho" / "resfile.txt",
}


def _format(sample: str) -> str:
    """The format a sample is read as (a format may have several samples: diskspd-xml)."""
    return sample if sample in ingest.names() else sample.rsplit("-", 1)[0]


def _read(fmt: str, data: bytes) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / ("x_iops.1.log" if fmt == "fio-log" else "f.in")
        path.write_bytes(data)
        params = {"rw": "randread", "log_avg_msec": "200"} if fmt == "fio-log" else None
        try:
            result = ingest.read(
                path, ReadOptions(options=reader_options({"params": params} if params else {})), fmt
            )
        except InputError as err:
            assert str(path) in str(err) and err.where
            return
        assert result.records_read == result.accepted + len(result.rejects)


@pytest.mark.parametrize("fmt", sorted(SAMPLES))
@settings(max_examples=100, deadline=None)
@given(data=st.binary(max_size=400))
def test_arbitrary_bytes(fmt: str, data: bytes) -> None:
    assert ingest.get_format(_format(fmt)).sniff(data) in (True, False)
    _read(_format(fmt), data)


@pytest.mark.parametrize("fmt", sorted(SAMPLES))
@settings(max_examples=100, deadline=None)
@given(edits=st.lists(st.tuples(st.integers(0, 10**6), st.binary(max_size=4)), max_size=8))
def test_mutated_real_sample(fmt: str, edits: list[tuple[int, bytes]]) -> None:
    data = bytearray(SAMPLES[fmt].read_bytes())
    for pos, chunk in edits:
        at = pos % len(data)
        data[at : at + len(chunk)] = chunk
    _read(_format(fmt), bytes(data))


@pytest.mark.parametrize("fmt", sorted(SAMPLES))
@settings(max_examples=60, deadline=None)
@given(cut=st.integers(0, 10**6))
def test_truncated_real_sample(fmt: str, cut: int) -> None:
    data = SAMPLES[fmt].read_bytes()
    _read(_format(fmt), data[: cut % (len(data) + 1)])


JSON_VALUES = st.recursive(
    st.none()
    | st.booleans()
    | st.integers(-5, 10**6)
    | st.floats(allow_nan=True)
    | st.text(max_size=5),
    lambda inner: (
        st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=5), inner, max_size=3)
    ),
    max_leaves=6,
)


def _replace(node: object, path: list[int], value: object) -> object:
    """Replace the value found by following ``path`` (indices modulo each level's size)."""
    if not path or not isinstance(node, dict | list) or not node:
        return value
    keys = list(node.keys()) if isinstance(node, dict) else list(range(len(node)))
    key = keys[path[0] % len(keys)]
    node[key] = _replace(node[key], path[1:], value)
    return node


@settings(max_examples=200, deadline=None)
@given(
    changes=st.lists(
        st.tuples(st.lists(st.integers(0, 50), min_size=1, max_size=6), JSON_VALUES),
        min_size=1,
        max_size=4,
    )
)
def test_fio_json_with_values_replaced(changes: list[tuple[list[int], object]]) -> None:
    import json

    doc = json.loads(SAMPLES["fio"].read_text(encoding="utf-8"))
    for path, value in changes:  # the first step chooses between the document and its job
        jobs = doc.get("jobs") if isinstance(doc, dict) else None
        if path[0] % 2 and isinstance(jobs, list) and jobs:
            jobs[0] = _replace(jobs[0], path[1:], value)
        else:
            doc = _replace(doc, path[1:], value)
    _read("fio", json.dumps(doc).encode())


# of the table lines in each sample
SEPARATORS = {"diskspd": "|", "iometer": ",", "elbencho": ",", "elbencho-resfile": ":"}


@pytest.mark.parametrize("sample", sorted(SEPARATORS))
@settings(max_examples=150, deadline=None)
@given(
    changes=st.lists(
        st.tuples(st.integers(0, 10**4), st.integers(0, 100), st.text(max_size=12)),
        min_size=1,
        max_size=6,
    )
)
def test_table_cells_replaced(sample: str, changes: list[tuple[int, int, str]]) -> None:
    """A cell of a table line replaced by any text."""
    lines = SAMPLES[sample].read_text(encoding="utf-8-sig").splitlines()
    sep = SEPARATORS[sample]
    tables = [i for i, line in enumerate(lines) if sep in line]
    for row, cell, text in changes:
        at = tables[row % len(tables)]
        cells = lines[at].split(sep)
        cells[cell % len(cells)] = text
        lines[at] = sep.join(cells)
    _read(_format(sample), "\n".join(lines).encode())
