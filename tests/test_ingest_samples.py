"""Every sample of every format gives its expected rows; every bad one its exact message.

Samples live in tests/data/<format>/ (bad ones in bad/); expectations beside them,
regenerated only on purpose with ``python -m tests.regenerate_expected``.
"""

from __future__ import annotations

from pathlib import Path

import polars as pl
import pytest
from polars.testing import assert_frame_equal

from pipeline import ingest
from pipeline.errors import InputError, InputErrors
from pipeline.schema import INTERVAL_FIELDS, polars_schema
from tests.regenerate_expected import DATA, expected_paths, options_for, samples


def _samples(bad: bool) -> list[tuple[str, Path]]:
    return [(fmt, p) for fmt in ingest.names() for p in samples(fmt, bad)]


def _id(item: tuple[str, Path]) -> str:
    return str(item[1].relative_to(DATA))


@pytest.mark.parametrize("item", _samples(bad=False), ids=_id)
def test_sample_gives_expected_rows(
    item: tuple[str, Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    fmt, sample = item
    monkeypatch.chdir(sample.parent)
    result = ingest.read(Path(sample.name), options_for(sample), fmt)
    rows, rejects, _ = expected_paths(sample)
    # a nullable column the expected rows predate (schema 3's attributes) is empty
    expected = pl.read_csv(rows, schema=polars_schema(INTERVAL_FIELDS), missing_columns="insert")
    assert_frame_equal(result.intervals, expected)
    lines = [str(r) for r in result.rejects] + [f"note: {n}" for n in result.notes]
    assert lines == (rejects.read_text().splitlines() if rejects.exists() else [])
    assert result.records_read == result.accepted + len(result.rejects)


@pytest.mark.parametrize("item", _samples(bad=True), ids=_id)
def test_bad_sample_gives_exact_message(
    item: tuple[str, Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    fmt, sample = item
    monkeypatch.chdir(sample.parent)
    with pytest.raises((InputError, InputErrors)) as caught:
        ingest.read(Path(sample.name), options_for(sample), fmt)
    assert f"{caught.value}\n" == expected_paths(sample)[2].read_text()


def test_every_format_has_docs_and_samples() -> None:
    root = DATA.parent.parent
    for fmt in ingest.names():
        assert (root / "docs" / "formats" / f"{fmt}.md").is_file(), fmt
        assert [p for f, p in _samples(bad=False) if f == fmt], fmt
        assert [p for f, p in _samples(bad=True) if f == fmt], fmt
