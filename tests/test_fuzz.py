"""Property-based fuzzing of the IOgen parser: no input crashes it."""

from __future__ import annotations

import tempfile
from pathlib import Path

from hypothesis import given, settings
from hypothesis import strategies as st

from pipeline import ingest
from pipeline.errors import InputError
from pipeline.ingest import iogen
from pipeline.ingest.base import ReadOptions
from tests.conftest import DATA

SAMPLE = (DATA / "iogen" / "basic.csv").read_bytes()


def _read(data: bytes) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "f.csv"
        path.write_bytes(data)
        try:
            result = ingest.read(path, ReadOptions(), "iogen")
        except InputError as err:
            assert str(path) in str(err) and err.where
            return
        assert result.records_read == result.accepted + len(result.rejects)


@settings(max_examples=150, deadline=None)
@given(st.binary(max_size=400))
def test_arbitrary_bytes_end_in_result_or_input_error(data: bytes) -> None:
    assert iogen.sniff(data) in (True, False)
    _read(data)


@settings(max_examples=150, deadline=None)
@given(st.lists(st.tuples(st.integers(0, len(SAMPLE) - 1), st.binary(max_size=3)), max_size=8))
def test_mutated_real_sample_never_crashes(edits: list[tuple[int, bytes]]) -> None:
    data = bytearray(SAMPLE)
    for pos, chunk in edits:
        data[pos : pos + len(chunk)] = chunk
    _read(bytes(data))
