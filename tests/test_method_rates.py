"""The method's sentence on target rates says which points reached their target: vdbench's
sample asked for 50, 500 and 5,000 IOPS and ran 50, 212 and 310 (the system's limit), so
"a point reaches its target, not what the system can do" would be false of two of them."""

from __future__ import annotations

import shutil
from pathlib import Path

import polars as pl

from pipeline import ingest
from pipeline.dataset.assemble import combine
from pipeline.ingest.base import ReadOptions
from pipeline.language import Formatter
from pipeline.language.strings import Strings
from pipeline.render.whitepaper import rate_sentences
from tests.conftest import DATA


def _said(points: pl.DataFrame, lang: str = "en") -> list[str]:
    return rate_sentences(points, Formatter(Strings(lang)))


def _points(pairs: list[tuple[float | None, float]]) -> pl.DataFrame:
    return pl.DataFrame(
        {"target_iops": [t for t, _ in pairs], "iops": [i for _, i in pairs]},
        schema={"target_iops": pl.Float64, "iops": pl.Float64},
    )


def test_vdbench_targets_the_system_fell_short_of_are_named() -> None:
    result = ingest.read(DATA / "vdbench" / "vdbconvert_flatfile.html", ReadOptions())
    points = combine([result]).points
    assert _said(points) == [
        "The load generators were held to target rates of 50, 500, 5,000 IOPS. 2 of 3 points "
        "fell short of their targets (500, 5,000 IOPS): their figures are what the system "
        "did; the others reached their targets, not what the system can do."
    ]
    assert (
        "2 von 3 Messpunkten blieben unter ihrer Ziel-IO-Rate (500, 5’000 IOPS)"
        in (_said(points, "de")[0])
    )


def test_every_target_reached_or_none() -> None:
    reached = _points([(500.0, 499.0), (1000.0, 996.0), (None, 20_000.0)])
    assert _said(reached) == [
        "The load generators were held to target rates of 500, 1,000 IOPS: a point reaches "
        "its target, not what the system can do."
    ]
    none = _points([(5000.0, 310.0)])
    assert _said(none) == [
        "The load generators were held to a target rate of 5,000 IOPS. No point reached its "
        "target rate: the figures are what the system did, not the targets."
    ]
    one_short = _points([(500.0, 499.0), (5000.0, 310.0), (5000.0, 4990.0)])
    assert (
        "1 of 3 points fell short of its target (5,000 IOPS): its figures" in (_said(one_short)[0])
    )
    assert _said(_points([(None, 1.0)])) == []


REPORT = """id = "vd"
title = "vdbench sample"
author = "A"
version = "1"
date = "2026-11-29"
classification = "public"
[system]
name = "Array"
vendor = "V"
[[sources]]
path = "raw/flatfile.html"
"""


def test_vdbench_totals_are_not_said_to_be_one_servers(tmp_path: Path) -> None:
    """vdbench's flatfile holds its totals over every host (the sample's parmfile names
    two, one thread each): "on one server", "per server" would be false."""
    from pipeline.prepare import prepare
    from pipeline.render.appendix import DEFINITIONS, definitions
    from pipeline.render.whitepaper import method_sentences

    (tmp_path / "raw").mkdir()
    shutil.copy(DATA / "vdbench" / "vdbconvert_flatfile.html", tmp_path / "raw" / "flatfile.html")
    (tmp_path / "report.toml").write_text(REPORT, encoding="utf-8")
    ctx = prepare(tmp_path)
    for lang, words in (
        ("en", ("one server", "per server")),
        ("de", ("einem Server", "pro Server")),
    ):
        fmt = ctx.formatter(lang)
        said = " ".join(method_sentences(ctx, fmt) + definitions(ctx, fmt, DEFINITIONS))
        assert not [w for w in words if w in said], said
    said = " ".join(method_sentences(ctx, ctx.formatter("en")))
    assert "vdbench gives its totals over every host it drove" in said
    assert "Parallelism level (threads over all hosts together): 2." in said


def test_the_targets_missed_are_named_by_profile_where_there_are_several() -> None:
    """ "5 of 8 points fell short of their targets (15,000, 20,000, 30,000, 50,000 IOPS)"
    read as missed by every profile, though 4K writes reached 15,000 to 30,000."""
    two = pl.DataFrame(
        {
            "setup": "s",
            "access": "random",
            "block_size": [4096, 4096, 65536, 65536],
            "read_pct": [0.0, 0.0, 100.0, 100.0],
            "target_iops": [15_000.0, 50_000.0, 6_000.0, 15_000.0],
            "iops": [14_990.0, 31_000.0, 4_000.0, 4_100.0],
        }
    )
    said = _said(two)[0]
    assert "3 of 4 points fell short of their targets (4K random 100% write 50,000; " in said
    assert "64K random 100% read 6,000, 15,000 IOPS)" in said
