"""No dots where lines are promised (issue 36): a chart whose every line holds one point
is left out and named, as one whose axis holds one value; a column of a queue-depth grid
at one depth is left out of the grid (CrystalDiskMark: Q1T1, Q32T1 and Q8T8; DiskSpd's
examples, each run at its own threads and depth)."""

from __future__ import annotations

import dataclasses
import shutil
from collections import defaultdict
from pathlib import Path
from typing import Any

import polars as pl
import pytest

from pipeline.charts import CHARTS
from pipeline.charts.draw import draw
from pipeline.prepare import prepare
from pipeline.report.context import ReportContext
from pipeline.report.plan import chart_plan, figures, left_out, left_out_note
from tests.conftest import DATA, ROOT, SHARED
from tests.test_chart_kinds import _views

CDM = DATA / "crystaldiskmark"
FORMATS = SHARED / "formats"
HEAD = """id = "dots"
title = { de = "Punkte", en = "Dots" }
author = "Test"
organisation = "Lab"
version = "1.0"
date = "2026-01-10"
classification = { de = "Intern", en = "Internal" }
[system]
name = "SSD"
vendor = "various"
"""


def _report(folder: Path, sources: dict[str, Path]) -> Path:
    """A report of ``sources`` (setup -> file), each its own setup where several."""
    (folder / "raw").mkdir(parents=True)
    toml = HEAD
    for setup, path in sources.items():
        shutil.copy(path, folder / "raw" / path.name)
        if len(sources) > 1:
            toml += f'[[setups]]\nname = "{setup}"\ndescription = "{setup}"\n'
        toml += f'[[sources]]\npath = "raw/{path.name}"\n'
        toml += f'setup = "{setup}"\n' if len(sources) > 1 else ""
    (folder / "report.toml").write_text(toml, encoding="utf-8")
    return folder


def _specs(ctx: ReportContext) -> dict[str, dict[str, Any]]:
    fmt = ctx.formatter("en")
    return {r.stem: draw(r, ctx.dataset.points, None, fmt).to_dict() for r in ctx.charts}


def dots(spec: dict[str, Any]) -> list[str]:
    """Each panel of lines whose x axis holds one value, and the chart itself where every
    line of it holds one point."""
    found, longest = [], 0
    for view in _views(spec):
        mark = view["mark"]["type"] if isinstance(view["mark"], dict) else view["mark"]
        x = view["encoding"].get("x", {}).get("field")
        if mark != "line" or x is None:
            continue
        rows = spec["datasets"][view["data"]["name"]]
        found += [f"a panel at {rows[0][x]} only"] if len({r[x] for r in rows}) < 2 else []
        series = [view["encoding"].get(c, {}).get("field") for c in ("color", "strokeDash")]
        lines: dict[tuple[Any, ...], set[Any]] = defaultdict(set)
        for row in rows:
            lines[tuple(row.get(f) for f in series if f)].add(row[x])
        longest = max([longest, *map(len, lines.values())])
    return found + (["every line one point"] if longest == 1 else [])


def test_a_column_of_one_depth_is_left_out_of_the_grid(tmp_path: Path) -> None:
    """CrystalDiskMark 6: 4K random at Q1T1, Q32T1 and Q8T8. The grid's column of
    parallelism 8 held one dot; its one column left is still headed by its level."""
    ctx = prepare(_report(tmp_path / "cdm6", {"ssd": CDM / "cdm6.txt"}))
    spec = _specs(ctx)["queue_depth_random_4k"]
    top = spec["vconcat"][0]["hconcat"]
    assert [p.get("title") for p in top] == ["Parallelism 1"]
    assert top[0]["encoding"]["x"]["axis"]["values"] == [1, 32]
    assert {s: dots(c) for s, c in _specs(ctx).items() if dots(c)} == {}
    # the column left out is named too (tests/test_left_out_notes.py)
    assert [r.stem for r in ctx.left_out()] == [
        "queue_depth_sequential_128k",
        "queue_depth_random_4k_p8",
    ]


def test_a_chart_whose_every_line_is_one_point_is_left_out() -> None:
    """Two setups of a800, each measured at one parallelism of its own: the dual-axis
    chart's axis holds two values, each setup's line one point."""
    ctx = prepare(ROOT / "data" / "examples" / "a800")
    points = ctx.dataset.points.filter(pl.col("block_size") == 8192, pl.col("read_pct") == 100)
    apart = points.filter(
        ((pl.col("setup") == "48vcpu") & (pl.col("parallelism") == 1))
        | ((pl.col("setup") == "4vcpu") & (pl.col("parallelism") == 16))
    )
    assert apart.height == 2
    where = ctx.folder / "report.toml"
    assert "dual_axis_random_8k_r100" not in [r.stem for r in chart_plan(ctx.report, apart, where)]
    assert "dual_axis_random_8k_r100" in [r.stem for r in left_out(ctx.report, apart, where)]
    both = apart.vstack(points.filter(pl.col("setup") == "48vcpu", pl.col("parallelism") == 2))
    assert "dual_axis_random_8k_r100" in [r.stem for r in chart_plan(ctx.report, both, where)]


CDM8 = FORMATS / "crystaldiskmark-soerenmetje"


@pytest.mark.skipif(not CDM8.exists(), reason="the shared formats are absent")
def test_crystaldiskmark_drives_at_their_own_levels_give_no_dots(tmp_path: Path) -> None:
    """Four drives of CrystalDiskMark 8: three run Q32T1, one Q32T16. Its one-dot charts
    (each drive one point at QD 32; the Q1T1 + Q32T16 drive's grid) are named as left out;
    no chart drawn shows a panel or a chart of dots."""
    names = {
        "wd": "CrystalDiskMark_20210622162528_WD_Blue_3D_1TB_WDS100T2B0A.txt",
        "evo": "CrystalDiskMark_20210622163451_SAMSUNG_840_EVO_120GB.txt",
        "h87": "CrystalDiskMark_20210626154221_Crucial_P2_2TB_on_H87M.txt",
        "x370": "CrystalDiskMark_20210627172807_Crucial_P2_2TB_on_X370.txt",
    }
    ctx = prepare(_report(tmp_path / "cdm8", {s: CDM8 / n for s, n in names.items()}))
    specs = _specs(ctx)
    assert specs and {s: dots(c) for s, c in specs.items() if dots(c)} == {}
    out = [r.stem for r in ctx.left_out()]
    assert {"dual_axis_random_4k_r100_qd32", "queue_depth_x370_random_4k"} <= set(out)


DISKSPD = FORMATS / "diskspd-virtualclient"


@pytest.mark.skipif(not DISKSPD.exists(), reason="the shared formats are absent")
def test_diskspd_runs_each_at_its_own_threads_and_depth_give_no_dots(tmp_path: Path) -> None:
    """VirtualClient's DiskSpd examples: each profile run at one (threads, depth) of its
    own, a diagonal of the grid. Nothing to draw: the documents name the charts."""
    folder = tmp_path / "diskspd"
    shutil.copytree(DISKSPD, folder / "raw", ignore=shutil.ignore_patterns("*.md"))
    (folder / "report.toml").write_text(
        'repeats = "newest"\n' + HEAD + '[[sources]]\npath = "raw/"\n', encoding="utf-8"
    )
    ctx = prepare(folder)
    assert ctx.charts == [] and ctx.left_out()


def _fields(node: Any) -> set[str]:
    """Every field a y axis of the spec draws."""
    if isinstance(node, dict):
        y = node.get("encoding", {}).get("y", {})
        own = {y["field"]} if isinstance(y, dict) and "field" in y else set()
        return own.union(*map(_fields, node.values()))
    return set().union(*map(_fields, node)) if isinstance(node, list) else set()


@pytest.mark.parametrize("lang", ["de", "en"])
def test_points_without_latency_draw_no_service_time(tmp_path: Path, lang: str) -> None:
    """CrystalDiskMark 6 prints no latency: its queue-depth chart drew an empty
    service-time axis from 0 to 1, and its caption, alt text and the method section
    said the charts show the service time."""
    from pipeline.render.whitepaper import method_sentences

    ctx = prepare(_report(tmp_path / "cdm6", {"ssd": CDM / "cdm6.txt"}))
    fmt = ctx.formatter(lang)
    ref = next(r for r in ctx.charts if r.stem == "queue_depth_random_4k")
    spec = draw(ref, ctx.dataset.points, None, fmt).to_dict()
    assert _fields(spec) == {"throughput"} and len(spec["vconcat"]) == 1
    charts = [
        s
        for s in method_sentences(ctx, fmt)
        if "Queue-Depth-Grafiken" in s or "queue-depth charts" in s
    ]
    note = left_out_note(ctx.left_out(), fmt)  # the 128K sequential chart: one depth
    said = " ".join([spec["title"], *figures(ctx.charts, False, fmt)[ref.stem], *charts, note])
    assert len(charts) == 1
    assert [w for w in ("Servicezeit", "service time") if w in said] == [], said
    assert spec["title"] == {"de": "4K Random: IOPS über der Queue Depth"}.get(
        lang, "4K random: IOPS against queue depth"
    )


@pytest.mark.parametrize("kind", ["standard", "setups", "dual_axis"])
def test_every_kind_draws_no_empty_latency_axis(kind: str) -> None:
    ctx = prepare(ROOT / "data" / "examples" / "a800")
    points = ctx.dataset.points.filter(pl.col("block_size") == 8192)
    points = points.filter(pl.col("read_pct") == 100) if kind == "dual_axis" else points
    fmt = ctx.formatter("en")
    assert "latency" in _fields(CHARTS[kind](points, fmt).to_dict())
    bare = points.with_columns(pl.lit(None, pl.Float64).alias("lat_mean_us"))
    assert _fields(CHARTS[kind](bare, fmt).to_dict()) == {"throughput"}


def test_a_dual_axis_chart_without_latency_says_no_latency() -> None:
    """Its title, alt text and method sentence named latency where none was drawn."""
    from pipeline.report.plan import chart_alt, chart_caption, words_key

    ctx = prepare(ROOT / "data" / "examples" / "a800")
    points = ctx.dataset.points.filter(pl.col("block_size") == 8192, pl.col("read_pct") == 100)
    bare = points.with_columns(pl.lit(None, pl.Float64).alias("lat_mean_us"))
    for lang in ("de", "en"):
        fmt = ctx.formatter(lang)
        title = CHARTS["dual_axis"](bare, fmt).to_dict()["title"]
        ref = next(r for r in ctx.charts if r.kind == "dual_axis")
        untimed = dataclasses.replace(ref, timed=False)
        words = [str(title), chart_caption(untimed, fmt), chart_alt(untimed, fmt)]
        words.append(fmt.t(words_key("method.chart_dual_axis", False)))
        said = " ".join(words)
        for none in ("the tool reported no latency", "eine Latenz hat das Werkzeug nicht"):
            said = said.replace(none, "")
        assert "atenz" not in said and "latency" not in said, said


@pytest.mark.parametrize("lang", ["de", "en"])
def test_every_words_without_service_time_name_none(lang: str) -> None:
    """Each key a chart without latency takes (plan.UNTIMED) exists and names neither
    service time nor latency, but to say the tool reported none."""
    from pipeline.language.strings import Strings
    from pipeline.report.plan import UNTIMED

    t = Strings(lang)
    for timed, untimed in UNTIMED.items():
        counted = f"{untimed}.other" in t.table  # method.hosts: one server, n servers
        said = (t.count(untimed, 2, n="2") if counted else t(untimed)).lower()
        for none in ("the tool reported no latency", "eine latenz hat das werkzeug nicht"):
            said = said.replace(none, "")
        assert not [w for w in ("ervice", "ervicezeit", "atenz", "atency") if w in said], (
            timed,
            said,
        )
