"""IOgen ingest: every sample gives the expected rows; every bad sample the exact message."""

from __future__ import annotations

from pathlib import Path

import pytest

from pipeline import ingest
from pipeline.errors import InputError
from pipeline.ingest import iogen
from pipeline.ingest.base import ReadOptions
from pipeline.ingest.iogen import ColumnMapping
from tests.conftest import DATA
from tests.regenerate_expected import options_for

SAMPLES = DATA / "iogen"


def test_sniff_recognises_own_layout_and_never_raises() -> None:
    assert iogen.sniff((SAMPLES / "basic.csv").read_bytes())
    assert iogen.sniff(b"host;block_size;access;read_pct;processes;interval\n")
    assert not iogen.sniff(b'{"fio version": "fio-3.33"}')
    assert not iogen.sniff(b"\xff\xfe\x00garbage")
    assert not iogen.sniff(b"")


def test_detect_names_the_file_when_format_unknown(tmp_path: Path) -> None:
    unknown = tmp_path / "what.txt"
    unknown.write_text("hello\n")
    with pytest.raises(InputError) as caught:
        ingest.read(unknown, ReadOptions())
    assert str(caught.value) == (
        f"{unknown}: line 1: format not recognised\n  hint: pass the format explicitly "
        f"(--format, or format= in report.toml): one of {ingest.names()}"
    )


def test_explicit_format_wins_over_sniffing() -> None:
    result = ingest.read(SAMPLES / "mapped.csv", options_for(SAMPLES / "mapped.csv"), "iogen")
    assert result.accepted == 2


def test_unknown_format_name_is_refused() -> None:
    with pytest.raises(InputError, match="unknown format 'nope'"):
        ingest.get_format("nope")


def test_decimal_comma_with_point_thousands(tmp_path: Path) -> None:
    sample = tmp_path / "comma.csv"
    sample.write_text(
        "host;block_size;access;read_pct;processes;interval;interval_s;iops;"
        "service_ms\nh;4K;random;100;1;1;20;1.234,5;0,25\n"
    )
    mapping = ColumnMapping(decimal=",", thousands=".")
    result = ingest.read(sample, ReadOptions(options={"mapping": mapping}))
    assert result.intervals["iops"].to_list() == [1234.5]
    assert result.intervals["lat_mean_us"].to_list() == [250.0]


def test_missing_optional_bandwidth_is_derived_from_iops(tmp_path: Path) -> None:
    sample = tmp_path / "nobw.csv"
    sample.write_text(
        "host;block_size;access;read_pct;processes;interval;interval_s;iops;"
        "service_ms\nh;8K;random;0;2;1;10;100;1\n"
    )
    result = ingest.read(sample, ReadOptions())
    assert result.intervals["bytes_per_s"].to_list() == [819200.0]
    assert result.intervals["write_lat_mean_us"].to_list() == [None]


def test_empty_file_says_so(tmp_path: Path) -> None:
    empty = tmp_path / "empty.csv"
    empty.write_text("")
    with pytest.raises(InputError) as caught:
        ingest.read(empty, ReadOptions())
    assert str(caught.value) == (
        f"{empty}: the file is empty\n  hint: check that the tool "
        "finished writing it, or leave it out"
    )
