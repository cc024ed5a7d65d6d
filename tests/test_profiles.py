"""Named workload mixes (issue 37): Iometer's access specifications of several transfer
sizes (File Server, Web Server) are profiles named by their specification, their block
size the mean of the split; report.toml ``[[profiles]]`` names a profile of one size
("Database": 8K, 67 % read, random) whatever tool measured it. The tables and the charts
show such a profile by its name."""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path

import polars as pl
import pytest

from pipeline import ingest
from pipeline.charts.draw import spec
from pipeline.dataset.assemble import combine
from pipeline.dataset.sources import load_report
from pipeline.errors import InputError, InputErrors
from pipeline.ingest.base import ReadOptions
from pipeline.prepare import prepare
from pipeline.report.attributes import data_sentences
from tests.conftest import DATA

IOMETER = DATA / "iometer"
MIXES = IOMETER / "iometer_mixes.csv"
FILE_SERVER = "512B/1K/2K/4K/8K/16K/32K/64K 10/5/5/60/2/4/4/10"
REPORT = """id = "mixes"
author = "iopress tests"
version = "0.1"
date = 2026-11-25
title = { de = "Mischungen", en = "Mixes" }
classification = "intern"

[system]
name = "lab"
vendor = "lab"

[[setups]]
name = "mixes"
description = { de = "Mischungen", en = "mixes" }

[[setups]]
name = "database"
description = { de = "Datenbank", en = "database" }

[[sources]]
path = "raw/iometer_mixes.csv"
setup = "mixes"

[[sources]]
path = "raw/iometer_11.csv"
setup = "database"
"""
DATABASE = """
[[profiles]]
name = "Database <OLTP> & *co*"
access = "random"
block_size = "8K"
read_pct = 67
"""


def _folder(tmp_path: Path, extra: str = DATABASE) -> Path:
    folder = tmp_path / "mixes"
    (folder / "raw").mkdir(parents=True)
    for name in ("iometer_mixes.csv", "iometer_11.csv"):
        shutil.copy(IOMETER / name, folder / "raw" / name)
    shutil.copytree(DATA / "reports" / "mixed" / "text", folder / "text")
    (folder / "report.toml").write_text(REPORT + extra, encoding="utf-8")
    return folder


def test_a_mix_of_sizes_is_a_profile_named_by_its_specification() -> None:
    result = ingest.read(MIXES, ReadOptions())
    assert result.records_read == result.accepted + len(result.rejects) == 3
    rows = {r["profile"]: r for r in result.intervals.iter_rows(named=True)}
    assert set(rows) == {"File Server", "Web Server"}
    server = rows["File Server"]
    assert (server["block_size"], server["block_split"]) == (11346, FILE_SERVER)
    assert (server["access"], server["read_pct"]) == ("random", 80.0)
    assert server["bytes_per_s"] / server["iops"] == pytest.approx(11345.92)
    assert rows["Web Server"]["read_pct"] == 100.0
    [reject] = result.rejects  # "Half Mix": 60 % + 30 %
    assert (str(reject.where), reject.reason.key) == ("line 127", "iometer.spec_shares")
    assert "'Half Mix' (line 117)" in str(reject.reason)


def test_a_plain_specification_has_no_name() -> None:
    result = ingest.read(IOMETER / "iometer_2008_qd_cycling.csv", ReadOptions())
    assert set(result.intervals["profile"].to_list()) == {None}


def test_report_toml_names_a_profile_of_any_tool(tmp_path: Path) -> None:
    folder = _folder(tmp_path)
    ctx = prepare(folder)
    points = ctx.dataset.points
    named = points.filter(points["block_size"] == 8192)["profile"].unique().to_list()
    assert named == ["Database <OLTP> & *co*"]
    en = ctx.formatter("en")
    view = ctx.views(en)["performance"]
    labels = [row[0][0].text for row in view.rows]
    assert "File Server (mixes)" in labels and "Web Server (mixes)" in labels
    assert "Database <OLTP> & *co* (database)" in labels
    assert not any("8K" in label for label in labels)
    database = next(r for r in view.rows if r[0][0].text.startswith("Database"))
    mixes = view.header[1:]
    filled = [m for m, cell in zip(mixes, database[1:], strict=True) if cell[0].text != "–"]
    assert filled == [en.t.mix(67.0)]  # its own read share only
    method = data_sentences(ctx.dataset.points, en)
    assert any(s.startswith(f"File Server is a mix of block sizes ({FILE_SERVER};") for s in method)


def test_the_charts_name_the_mix(tmp_path: Path) -> None:
    """A chart labels a mix's point by its name (here: against block size)."""
    ctx = prepare(_folder(tmp_path))
    en = ctx.formatter("en")
    assert en.block(11346) == "File Server"
    points = ctx.dataset.points.filter(pl.col("setup") == "mixes")
    drawn = json.dumps(spec("block_size")(points, en).to_dict())
    assert '"File Server"' in drawn and '"Web Server"' in drawn and "11346" not in drawn


def test_two_names_for_one_profile_are_an_error(tmp_path: Path) -> None:
    web = tmp_path / "copy.csv"
    web.write_text(MIXES.read_text(encoding="utf-8"), encoding="utf-8")
    copy = tmp_path / "renamed.csv"
    copy.write_text(
        MIXES.read_text(encoding="utf-8").replace("File Server", "Fileserver"), encoding="utf-8"
    )
    results = [ingest.read(p, ReadOptions(setup=s)) for p, s in ((web, "a"), (copy, "b"))]
    with pytest.raises(InputError, match="'File Server' and 'Fileserver' are one profile"):
        combine(results)


@pytest.mark.parametrize(
    ("extra", "message"),
    [
        (DATABASE + DATABASE.replace("Database", "Other"), "has the figures of profiles[0]"),
        (DATABASE + DATABASE.replace("8K", "4K"), "has the name of profiles[0]"),
        (DATABASE.replace('"8K"', '"8Q"'), "8Q"),
        (DATABASE.replace("read_pct", "read"), "read_pct"),
    ],
)
def test_profiles_in_report_toml_are_checked(tmp_path: Path, extra: str, message: str) -> None:
    with pytest.raises(InputErrors, match=re.escape(message)):
        load_report(_folder(tmp_path, extra))


BILINGUAL = DATABASE.replace(
    'name = "Database <OLTP> & *co*"', 'name = { de = "Datenbank", en = "Database" }'
)


def test_a_name_per_language(tmp_path: Path) -> None:
    """``name = { de = …, en = … }`` (was refused): each document prints its own; the
    dataset holds the tool's (English) one."""
    ctx = prepare(_folder(tmp_path, BILINGUAL))
    assert "Database" in ctx.dataset.points["profile"].to_list()
    for lang, name in (("de", "Datenbank (Datenbank)"), ("en", "Database (database)")):
        fmt = ctx.formatter(lang)
        labels = [row[0][0].text for row in ctx.views(fmt)["performance"].rows]
        assert name in labels, labels
    with pytest.raises(InputErrors, match="has the name of profiles"):
        twice = BILINGUAL + BILINGUAL.replace("8K", "4K").replace('en = "Database"', 'en = "x"')
        load_report(_folder(tmp_path / "twice", twice))


def test_a_named_profile_of_no_point_is_a_finding(tmp_path: Path) -> None:
    """A [[profiles]] entry whose figures no point has was accepted silently: a warning
    naming report.toml profiles[N] (``--strict`` fails on it, as on every warning)."""
    missing = DATABASE + DATABASE.replace("Database", "Typo").replace('"8K"', '"80K"')
    ctx = prepare(_folder(tmp_path, missing))
    found = [p for p in ctx.problems if p.rule == "profiles"]
    assert [(p.severity, p.source) for p in found] == [("warning", "report.toml profiles[1]")]
    from pipeline.validate import message

    assert "“Typo <OLTP> & *co*” (random 80K, 67 % read) names no measured point" in message(
        found[0], ctx.formatter("en")
    )


def test_verify_and_the_csv_know_a_row_by_its_name(tmp_path: Path) -> None:
    """tables/*.csv hold the mix's name (``profile``), and verify finds a row by it, in
    either language, narrowed by setup like any row (it needed "random 8K 67")."""
    from pipeline.report.views import latency
    from pipeline.verify import verify

    ctx = prepare(_folder(tmp_path, BILINGUAL))
    frame = ctx.tables["min_latency"]
    assert frame.columns.index("profile") == frame.columns.index("read_pct") + 1
    (us,) = frame.filter(pl.col("profile") == "Database")["lat_mean_us"].to_list()
    printed = latency(ctx.formatter("en"), "min_latency", us)
    rows = ["Database", "Datenbank setup=database", "random 8K 67 setup=database"]
    published = tmp_path / "published.csv"
    lines = [f"min_latency,{row},lat_mean_us,{printed}" for row in rows]
    published.write_text("table,row,column,printed\n" + "\n".join(lines) + "\n", encoding="utf-8")
    assert verify(ctx, published) == (3, 3, [])
