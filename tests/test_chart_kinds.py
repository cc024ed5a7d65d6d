"""The chart registry: every kind declared once and read everywhere; the kinds over queue
depth, block size and frontend/backend; no chart with a single x value; a colour means
one thing in a document."""

from __future__ import annotations

import re
import shutil
from collections import defaultdict
from dataclasses import replace
from pathlib import Path
from typing import Any

import polars as pl
import pytest

from pipeline.charts.draw import draw, spec
from pipeline.errors import InputError, InputErrors
from pipeline.prepare import prepare
from pipeline.report import chart_registry as kinds
from pipeline.report.context import ReportContext
from pipeline.report.plan import chart_caption, chart_plan, points_for
from tests.conftest import DATA, ROOT, SHARED

LEVELS = DATA / "fio-levels"
CORPUS = SHARED / "corpus" / "fio-3.33-null-generated"
EXAMPLES = ROOT / "data" / "examples"


def test_every_kind_has_a_spec_function_and_locale_keys() -> None:
    from pipeline.language import Strings

    en = Strings("en")
    for chart in kinds.CHARTS:
        assert callable(spec(chart.name)), chart.name
        assert en(chart.title) and en(chart.alt)  # the keys exist


def test_docs_list_every_kind() -> None:
    text = (ROOT / "docs" / "charts.md").read_text(encoding="utf-8")
    listed = re.findall(r"^\| `([a-z_]+)` \|", text, flags=re.M)
    assert listed == [c.name for c in kinds.CHARTS]


def _specs(ctx: ReportContext, lang: str = "en") -> dict[str, dict[str, Any]]:
    fmt = ctx.formatter(lang)
    return {
        r.stem: draw(r, ctx.dataset.points, ctx.histograms.get(r.stem), fmt).to_dict()
        for r in ctx.charts
    }


def _views(node: Any, data: Any = None) -> list[dict[str, Any]]:
    """Every unit view (a mark and its encoding) of a spec, with the data it draws (its
    own or the nearest enclosing view's)."""
    found = []
    if isinstance(node, dict):
        data = node.get("data", data)
        if "mark" in node and "encoding" in node:
            found.append({**node, "data": data})
        for value in node.values():
            found += _views(value, data)
    elif isinstance(node, list):
        for value in node:
            found += _views(value, data)
    return found


def lines_with_one_x(chart: dict[str, Any]) -> list[str]:
    """Each line of a line chart (its colour and dash) whose x axis holds a single value."""
    found = []
    for view in _views(chart):
        mark = view["mark"]["type"] if isinstance(view["mark"], dict) else view["mark"]
        x = view["encoding"].get("x", {}).get("field")
        if mark != "line" or x is None:
            continue
        rows = chart["datasets"][view["data"]["name"]]
        groups: dict[tuple[Any, ...], set[Any]] = defaultdict(set)
        series = [view["encoding"].get(c, {}).get("field") for c in ("color", "strokeDash")]
        for row in rows:
            groups[tuple(row.get(f) for f in series if f)].add(row[x])
        found += [f"{x} {key}" for key, xs in groups.items() if len(xs) < 2]
    return found


def _null_sweep(tmp_path: Path) -> Path:
    folder = tmp_path / "null"
    (folder / "raw").mkdir(parents=True)
    shutil.copy(CORPUS / "sweep.jsonplus.json", folder / "raw")
    shutil.copy(LEVELS / "qd" / "report.toml", folder)
    return folder


@pytest.mark.skipif(not CORPUS.exists(), reason="the shared corpus is absent")
def test_an_iodepth_sweep_is_drawn_over_queue_depth(tmp_path: Path) -> None:
    """fio's null-engine sweep: iodepth 1 and 8 at numjobs 2. Against parallelism each
    chart was a column of dots; now one queue-depth chart, the rest named in the text."""
    ctx = prepare(_null_sweep(tmp_path))
    assert [r.stem for r in ctx.charts] == ["queue_depth_random_4k"]
    specs = _specs(ctx)
    assert all(lines_with_one_x(s) == [] for s in specs.values())
    chart = specs["queue_depth_random_4k"]
    assert chart["title"] == "4K random: IOPS and service time against queue depth"
    assert {r.kind for r in ctx.left_out()} == {"percentiles"}  # over parallelism only


def test_a_qd_by_threads_grid_gives_small_multiples() -> None:
    ctx = prepare(LEVELS / "qd")
    stems = [r.stem for r in ctx.charts]
    assert "queue_depth_random_4k" in stems
    assert {"standard_random_4k_qd1", "standard_random_4k_qd4", "standard_random_4k_qd16"} <= set(
        stems
    )
    specs = _specs(ctx)
    assert {s: lines_with_one_x(c) for s, c in specs.items() if lines_with_one_x(c)} == {}
    rate, latency = specs["queue_depth_random_4k"]["vconcat"]  # a column per parallelism
    heads = [p.get("title") for p in rate["hconcat"]]
    assert heads == ["Parallelism 1", "Parallelism 2", "Parallelism 4"]
    assert [p["encoding"]["y"]["field"] for p in latency["hconcat"]] == ["latency"] * 3
    x = rate["hconcat"][0]["encoding"]["x"]
    assert x["field"] == "queue_depth" and x["axis"]["values"] == [1, 4, 16]


def test_the_grid_holds_every_cell_as_measured() -> None:
    """QD 1, 4, 16 x threads 1, 2, 4 x two mixes: every cell of the grid in its panel,
    with the IOPS and service time of its point."""
    from pipeline.report.plan import axis_unit

    ctx = prepare(LEVELS / "qd")
    fmt = ctx.formatter("en")
    chart = _specs(ctx)["queue_depth_random_4k"]
    drawn: dict[str, dict[tuple[Any, ...], float]] = defaultdict(dict)
    for view in _views(chart):
        field = view["encoding"]["y"]["field"]
        for row in chart["datasets"][view["data"]["name"]]:
            cell = (row["parallelism"], row["queue_depth"], row["mix"])
            assert cell not in drawn[field], cell  # each cell drawn once
            drawn[field][cell] = row[field]
    divisor = fmt.divisor(axis_unit("queue_depth", fmt))
    measured = {
        (p["parallelism"], p["queue_depth"], fmt.t.mix(p["read_pct"], short=True)): p
        for p in ctx.dataset.points.iter_rows(named=True)
    }
    assert len(measured) == 18
    assert drawn["throughput"] == {c: p["iops"] for c, p in measured.items()}
    assert drawn["latency"] == pytest.approx(
        {c: p["lat_mean_us"] / divisor for c, p in measured.items()}
    )


def test_a_grid_of_a_dozen_levels_stays_low() -> None:
    """Twelve parallelism levels: at most four side by side, each band of panels low; the
    chart of three levels was nearly a page tall (its rows each a standard chart's height)."""
    from pipeline.charts.levels import queue_depth_chart

    ctx = prepare(LEVELS / "qd")
    points = ctx.dataset.points.filter(pl.col("parallelism") == 1)
    many = pl.concat([points.with_columns(parallelism=pl.lit(p, pl.Int64)) for p in range(1, 13)])
    chart = queue_depth_chart(many, ctx.formatter("en")).to_dict()
    rows = chart["vconcat"]
    assert len(rows) == 6 and all(len(r["hconcat"]) == 4 for r in rows)
    assert {p["height"] for r in rows for p in r["hconcat"]} == {120}


def test_the_check_sees_a_column_of_dots() -> None:
    dots = {
        "datasets": {"d": [{"p": 2, "mix": "read"}, {"p": 2, "mix": "write"}]},
        "data": {"name": "d"},
        "mark": "line",
        "encoding": {"x": {"field": "p"}, "color": {"field": "mix"}},
    }
    assert lines_with_one_x(dots) == ["p ('read',)", "p ('write',)"]


def test_a_block_size_series_gives_the_block_size_chart() -> None:
    ctx = prepare(LEVELS / "bs")
    assert [r.stem for r in ctx.charts] == ["block_size_random"]
    chart = _specs(ctx)["block_size_random"]
    (left,), (right,) = (row["hconcat"] for row in chart["vconcat"])  # MB/s above IOPS
    assert left["encoding"]["x"]["sort"] == [
        "512B", "1K", "2K", "4K", "8K", "16K", "32K", "64K", "128K", "256K", "512K", "1024K"
    ]  # fmt: skip
    assert left["encoding"]["y"]["title"] == "MB/s" and right["encoding"]["y"]["title"] == "IOPS"
    colour = left["encoding"]["color"]["scale"]
    assert colour["domain"] == ["100% read", "50% read / 50% write", "100% write"]
    assert lines_with_one_x(chart) == []
    assert chart["title"] == "Random: MB/s and IOPS against block size"  # as the others
    assert chart_caption(ctx.charts[0], ctx.formatter("en")) == chart["title"]


def _series_beside_a_sweep() -> tuple[ReportContext, pl.DataFrame]:
    """The block-size series (QD 1, one job) beside the QD x threads sweep of 4K random
    (its QD 1 x 1 job left out: the series has that point), as a campaign mixes them."""
    series = prepare(LEVELS / "bs")
    sweep = prepare(LEVELS / "qd").dataset.points.filter(
        (pl.col("queue_depth") > 1) | (pl.col("parallelism") > 1)
    )
    return series, pl.concat([series.dataset.points, sweep], how="diagonal_relaxed")


def test_a_block_size_series_beside_a_queue_depth_sweep_is_drawn() -> None:
    """The default rule judges the points where the chart would be drawn: the level of the
    series holds one, whatever is swept elsewhere (the 4K point of the series is part of
    the sweep too and stays on its line)."""
    ctx, points = _series_beside_a_sweep()
    refs = chart_plan(ctx.report, points, Path("report.toml"))
    stems = [r.stem for r in refs]
    assert "queue_depth_random_4k" in stems and "standard_random_4k_qd4" in stems
    (block,) = [r for r in refs if r.kind == "block_size"]
    assert block.stem == "block_size_random_qd1_p1"
    drawn = points_for(points, block)
    assert (
        drawn.group_by("read_pct").agg(pl.col("block_size").n_unique())["block_size"].to_list()
        == [12] * 3
    )


def test_a_named_mix_is_no_point_on_the_block_size_axis() -> None:
    """Iometer's File Server (a mix of sizes, its mean 11346 B) and a [[profiles]] name
    (Database, 8K 67 % read) at the series' level: shown in tables, not over block size."""
    ctx, points = _series_beside_a_sweep()
    one = points.filter((pl.col("block_size") == 8192) & (pl.col("read_pct") == 100.0))
    named = pl.concat(
        [
            one.with_columns(profile=pl.lit("Database"), read_pct=pl.lit(67.0)),
            one.with_columns(
                profile=pl.lit("File Server"),
                block_size=pl.lit(11346, pl.Int64),
                block_split=pl.lit("512B/1K/2K/4K/8K/16K/32K/64K"),
            ),
        ]
    )
    refs = chart_plan(ctx.report, pl.concat([points, named], how="diagonal_relaxed"), Path("r"))
    (block,) = [r for r in refs if r.kind == "block_size"]
    drawn = points_for(pl.concat([points, named], how="diagonal_relaxed"), block)
    assert 11346 not in drawn["block_size"].to_list() and 67.0 not in drawn["read_pct"].to_list()
    assert len(drawn) == 36


def test_block_sizes_each_swept_over_parallelism_are_no_series() -> None:
    """fs840: 1K, 4K, 8K and 64K random, each over parallelism 1 … 512: four sizes at
    every level, but drawn over parallelism, not as 18 block-size charts."""
    fs840 = prepare(EXAMPLES / "fs840")
    assert {r.kind for r in fs840.charts} == {"standard"}
    assert kinds.block_series(fs840.dataset.points).is_empty()


BS_SETUPS = """
[[setups]]
name = "one"
description = { de = "1 Link", en = "1 link" }

[[setups]]
name = "two"
description = { de = "2 Links", en = "2 links" }

[[sources]]
path = "one"
setup = "one"

[[sources]]
path = "two"
setup = "two"
"""


def _bs_setups(tmp_path: Path) -> Path:
    """The block-size series measured as two setups (seed 002's 1 and 2 links): setup
    one every file, setup two those up to 64K (copies of the same runs)."""
    folder = tmp_path / "bs-setups"
    shutil.copytree(LEVELS / "bs" / "raw", folder / "one")
    (folder / "two").mkdir()
    for file in (folder / "one").glob("*.json"):
        if file.name.split("-")[0] in {"512", "1k", "2k", "4k", "8k", "16k", "32k", "64k"}:
            shutil.copy(file, folder / "two")
    toml = (LEVELS / "bs" / "report.toml").read_text(encoding="utf-8")
    head = toml[: toml.index("[[sources]]")]
    (folder / "report.toml").write_text(head + BS_SETUPS, encoding="utf-8")
    return folder


def test_a_block_size_series_of_two_setups_has_a_line_per_setup(tmp_path: Path) -> None:
    """Several setups of one block-size series: one chart, a column per mix, in each a
    line per setup in the setup's colour, every point as measured."""
    ctx = prepare(_bs_setups(tmp_path))
    assert [r.stem for r in ctx.charts if r.kind == "block_size"] == ["block_size_random"]
    chart = _specs(ctx)["block_size_random"]
    mb_s, iops = (row["hconcat"] for row in chart["vconcat"])
    assert [p["title"] for p in mb_s] == ["100% read", "50% read / 50% write", "100% write"]
    colour = mb_s[0]["encoding"]["color"]
    assert colour["field"] == "setup_label"
    assert colour["scale"]["domain"] == ["1 link", "2 links"]
    look = ctx.charts[0].palette
    assert colour["scale"]["range"] == [look.setup("one", 0), look.setup("two", 1)]
    drawn = {}
    for view in _views({"vconcat": [{"hconcat": iops}], "datasets": chart["datasets"]}):
        for row in chart["datasets"][view["data"]["name"]]:
            drawn[(row["setup_label"], row["mix"], row["block"])] = row["iops"]
    fmt = ctx.formatter("en")
    measured = {
        (
            fmt.setup(p["setup"]),
            fmt.t.mix(p["read_pct"], short=True),
            fmt.block(p["block_size"]),
        ): p["iops"]
        for p in ctx.dataset.points.iter_rows(named=True)
    }
    assert len(measured) == 36 + 24 and drawn == measured
    assert lines_with_one_x(chart) == []


@pytest.mark.parametrize(
    ("folder", "colours"),
    [
        ("bs", "Colours: 100% read green, 100% write red, other mixes as in the legend."),
        ("bs-setups", "Colours: the configurations as in the legend."),
        ("a800", "Colours: 100% read green, 100% write red; the configurations as in the legend."),
    ],
)
def test_the_method_text_says_what_the_colours_mean(
    folder: str, colours: str, tmp_path: Path
) -> None:
    """The block-size chart of two setups colours setups, not mixes; a800 colours both
    (mixes in its standard charts, its setups yellow and blue in the dual-axis ones)."""
    from pipeline.render.whitepaper import method_sentences

    source = {"bs": LEVELS / "bs", "a800": EXAMPLES / "a800"}.get(folder)
    ctx = prepare(source or _bs_setups(tmp_path))
    said = [s for s in method_sentences(ctx, ctx.formatter("en")) if s.startswith("Colours")]
    assert said == [colours]


def test_a_frontend_backend_pair_gives_its_comparison() -> None:
    ctx = prepare(LEVELS / "fb")
    refs = [r for r in ctx.charts if r.kind == "frontend_backend"]
    assert [r.stem for r in refs] == [
        "frontend_backend_random_8k_r100",
        "frontend_backend_random_8k_r0",
    ]
    chart = _specs(ctx)[refs[0].stem]
    left = chart["hconcat"][0]["layer"][0]["encoding"]
    assert left["color"]["scale"]["domain"] == ["null engine"]
    assert left["strokeDash"]["scale"] == {  # a legend entry for each line style
        "domain": ["frontend (cache)", "backend"],
        "range": [[1, 0], [6, 4]],
    }


def test_a_pair_naming_no_measured_setup_is_refused(tmp_path: Path) -> None:
    folder = tmp_path / "fb"
    shutil.copytree(LEVELS / "fb", folder)
    toml = folder / "report.toml"
    toml.write_text(toml.read_text().replace('backend = "backend"', 'backend = "back"'))
    with pytest.raises(InputError, match=r"frontend_backend\[0\]\.backend: setup 'back'"):
        prepare(folder)


def test_an_unknown_kind_is_refused_with_the_nearest(tmp_path: Path) -> None:
    folder = tmp_path / "bs"
    shutil.copytree(LEVELS / "bs", folder)
    with (folder / "report.toml").open("a") as fh:
        fh.write('\n[[charts]]\nkind = "blocksize"\n')
    no_kind = r"charts\[0\]\.kind: 'blocksize' is no chart kind"
    with pytest.raises((InputError, InputErrors), match=no_kind):  # before data is read
        prepare(folder)


def test_1k_and_1536_bytes_give_two_charts() -> None:
    ctx = prepare(LEVELS / "qd")
    points = ctx.dataset.points.filter(pl.col("queue_depth") == 1)
    both = pl.concat([points, points.with_columns(block_size=pl.lit(1536, pl.Int64))])
    both = pl.concat([both.with_columns(block_size=pl.lit(1024, pl.Int64)), both]).filter(
        pl.col("block_size") != 4096
    )
    stems = [r.stem for r in chart_plan(ctx.report, both, Path("report.toml"))]
    assert "standard_random_1k" in stems and "standard_random_1536b" in stems


def test_a800_draws_4_vcpus_yellow() -> None:
    ctx = prepare(EXAMPLES / "a800")
    chart = _specs(ctx, "de")["dual_axis_random_8k_r100"]
    colour = chart["layer"][0]["layer"][0]["encoding"]["color"]["scale"]
    assert dict(zip(colour["domain"], colour["range"], strict=True)) == {
        "48 vCPUs pro VM": "#1f5fbf",
        "4 vCPUs pro VM": "#e0a800",
    }


def test_a_setup_colour_taken_by_a_mix_is_refused(tmp_path: Path) -> None:
    folder = tmp_path / "a800"
    shutil.copytree(EXAMPLES / "a800", folder)
    toml = folder / "report.toml"
    toml.write_text(toml.read_text().replace('"4vcpu" = "#e0a800"', '"4vcpu" = "#D62728"'))
    with pytest.raises(InputError, match=r"theme\.setups\.4vcpu: #D62728 is already the colour"):
        prepare(folder)


def meanings(chart: dict[str, Any]) -> dict[str, set[str]]:
    """colour -> what it stands for in one chart: the legend entries of its colour scales,
    and a mark's own colour (the latency limit's band)."""
    found: dict[str, set[str]] = defaultdict(set)
    for view in _views(chart):
        scale = view["encoding"].get("color", {}).get("scale", {})
        for label, colour in zip(scale.get("domain", []), scale.get("range", []), strict=False):
            found[colour.lower()].add(label)
        mark = view["mark"]
        if isinstance(mark, dict) and "color" in mark:
            found[mark["color"].lower()].add("a mark's own colour")
    return found


DOCUMENTS = [
    EXAMPLES / "a800",
    EXAMPLES / "fs840",
    EXAMPLES / "fs820",
    LEVELS / "qd",
    LEVELS / "bs",
    LEVELS / "fb",
]


@pytest.mark.parametrize("folder", DOCUMENTS, ids=lambda p: p.name)
def test_a_colour_means_one_thing_in_a_document(folder: Path) -> None:
    ctx = prepare(folder)
    found: dict[str, set[str]] = defaultdict(set)
    for chart in _specs(ctx).values():
        for colour, labels in meanings(chart).items():
            found[colour] |= labels
    twice = {c: sorted(labels) for c, labels in found.items() if len(labels) > 1}
    assert twice == {}


def test_one_declaration_adds_a_kind_everywhere(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A kind no report had: the stability chart over queue depth, by default where the
    queue depth varies. Plan, drawing, whitepaper, site and manifest follow."""
    from pipeline.build import build

    new = replace(
        kinds.BY_NAME["stability"],
        name="depth_stability",
        x="queue_depth",
        levels=(),
        default=lambda points: True,
        spec="pipeline.charts.levels:queue_depth_chart",
        datasheet=None,
        method="method.chart_stability",
    )
    monkeypatch.setattr(kinds, "CHARTS", (*kinds.CHARTS, new))
    monkeypatch.setitem(kinds.BY_NAME, "depth_stability", new)
    result = build(LEVELS / "qd", tmp_path / "out")
    stem = "depth_stability_random_4k"
    assert stem in [r.stem for r in result.ctx.charts]
    assert (result.out / "charts" / f"{stem}.en.svg").is_file()
    assert f"<fig-{stem}>" in (result.out / "fio-qd.en.typ").read_text(encoding="utf-8")
    page = (result.out / "site" / "fio-qd.html").read_text(encoding="utf-8")
    assert f"charts/fio-qd/{stem}-en.svg" in page
    assert f'"kind": "{new.name}"' in (result.out / "manifest.json").read_text(encoding="utf-8")


@pytest.mark.slow
@pytest.mark.parametrize("name", ["bs", "bs-setups", "fb", "qd"])
def test_the_new_kinds_lay_out(name: str, tmp_path: Path) -> None:
    """The PDFs pass the layout check; no two labels of a chart's SVG overlap."""
    from pipeline.build import build
    from tests import layout
    from tests.svgtext import overlapping

    folder = _bs_setups(tmp_path) if name == "bs-setups" else LEVELS / name
    out = build(folder, tmp_path / "out").out
    if layout.PDFTOTEXT is not None:  # no overprint, margin run-on or stranded heading,
        assert layout.check_output(out) == []  # nor a page left half empty
    assert [f for svg in sorted((out / "charts").glob("*.svg")) for f in overlapping(svg)] == []


def test_the_label_check_sees_labels_run_into_each_other(tmp_path: Path) -> None:
    from tests.svgtext import overlapping

    svg = tmp_path / "c.svg"
    svg.write_text(
        '<svg xmlns="http://www.w3.org/2000/svg"><g transform="translate(10,10)">'
        '<text transform="translate(0,20)" font-size="11px">70% read / 30% write</text>'
        '<text transform="translate(60,22)" font-size="11px">100% write</text></g></svg>',
        encoding="utf-8",
    )
    assert overlapping(svg) == ["c.svg: '70% read / 30% write' over '100% write'"]


def _grid(sizes: int, levels: list[int]) -> pl.DataFrame:
    rows = [
        {"setup": "s", "access": "sequential", "block_size": 512 << i, "read_pct": 100.0}
        | {"queue_depth": 1, "parallelism": p}
        for i in range(sizes)
        for p in levels
    ]
    return pl.DataFrame(rows)


def test_a_block_size_series_at_each_of_a_few_levels_is_a_series() -> None:
    """Twelve sizes at numjobs 1 and 4 (a user's fio grid) are a series at each level, as
    twelve sizes at one level are (seed 002); four sizes over 18 levels (fs840) are drawn
    over the levels, not as 18 block-size charts."""
    from pipeline.report.chart_registry import block_series

    assert block_series(_grid(12, [1, 4])).height == 24
    assert block_series(_grid(12, [8])).height == 12
    assert block_series(_grid(4, list(range(1, 19)))).is_empty()
    assert block_series(_grid(2, [1])).is_empty()  # fewer sizes than a series
