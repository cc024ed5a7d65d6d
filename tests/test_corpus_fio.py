"""fio files from public projects (shared/corpus): each job's IOPS, bytes/s and mean latency
equal fio's own reported values within 0.1 %. Skipped when the corpus is absent."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from pipeline import ingest
from pipeline.ingest.base import ReadOptions
from tests.conftest import SHARED

CORPUS = SHARED / "corpus"
FILES = {
    "fio-3.33-null-generated/sweep.jsonplus.json": 6,
    "fio-pbench/perf-fio-0-fio3.19/fio-result.txt": 8,
    "fio-pbench/fio-0-fio3.7-clientserver/fio-result.txt": 10,
    "fio-perfkitbenchmarker/fio-parser-sample-result.json": 5,
    "fio-perfkitbenchmarker/pkb-7fb0c9d8-0_fio.json": 2,
}
pytestmark = pytest.mark.skipif(not CORPUS.is_dir(), reason="shared/corpus not present")


def _fio_own(path: Path) -> list[dict[str, Any]]:
    """fio's own numbers per job record, read straight from the JSON."""
    text = path.read_text(encoding="utf-8")
    doc, _ = json.JSONDecoder().raw_decode(text, text.index("\n{") + 1 if text[0] != "{" else 0)
    records = doc.get("client_stats") or doc["jobs"]
    return [r for r in records if r["jobname"] != "All clients"]


def _own_values(record: dict[str, Any]) -> tuple[float, float, dict[str, float]]:
    iops = bw = 0.0
    lat: dict[str, float] = {}
    for name in ("read", "write"):
        d = record[name]
        if d["iops"] <= 0:
            continue
        iops += d["iops"]
        bw += d["bw_bytes"] if "bw_bytes" in d else d["bw"] * 1024
        lat[name] = d["lat_ns"]["mean"] / 1000 if "lat_ns" in d else d["lat"]["mean"]
    return iops, bw, lat


@pytest.mark.parametrize("name", sorted(FILES))
def test_corpus_file_matches_fio_own_values(name: str) -> None:
    path = CORPUS / name
    result = ingest.read(path, ReadOptions(label=name))
    assert result.accepted == FILES[name]
    assert result.rejects == []
    for row, record in zip(result.intervals.iter_rows(named=True), _fio_own(path), strict=True):
        iops, bw, lat = _own_values(record)
        assert row["iops"] == pytest.approx(iops, rel=1e-3)
        assert row["bytes_per_s"] == pytest.approx(bw, rel=1e-3)
        for direction, value in lat.items():
            assert row[f"{direction}_lat_mean_us"] == pytest.approx(value, rel=1e-3)


def test_client_server_hosts_and_cross_check() -> None:
    name = "fio-pbench/fio-0-fio3.7-clientserver/fio-result.txt"
    result = ingest.read(CORPUS / name, ReadOptions(label=name))
    # host:port, as fio names each server (several may share an address)
    assert sorted(set(result.intervals["host"].to_list())) == ["perf36:8765", "perf84:8765"]
    assert any("'All clients' record" in n and "agrees" in n for n in result.notes)


def test_non_block_storage_json_is_refused() -> None:
    path = CORPUS / "storperf-testdata" / "local-data.json"
    with pytest.raises(Exception, match="format not recognised"):
        ingest.read(path, ReadOptions())
