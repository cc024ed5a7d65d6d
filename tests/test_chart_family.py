"""Chart specs of every kind: encodings, colours, dash patterns, axis types, titles."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import polars as pl
import pytest

from pipeline.charts import CHARTS
from pipeline.charts.draw import draw
from pipeline.ingest.fio import latency_bins
from pipeline.prepare import prepare
from pipeline.report.context import ReportContext
from pipeline.report.plan import ChartRef, chart_plan, default_specs, left_out
from tests.conftest import DATA, ROOT

A800 = ROOT / "data" / "examples" / "a800"


@pytest.fixture(scope="module")
def a800() -> ReportContext:
    return prepare(A800)


def _spec(ctx: ReportContext, ref: ChartRef, lang: str) -> dict[str, Any]:
    spec: dict[str, Any] = draw(ref, ctx.dataset.points, None, ctx.formatter(lang)).to_dict()
    return spec


def _ref(ctx: ReportContext, kind: str, stem: str) -> ChartRef:
    return next(r for r in ctx.charts if r.kind == kind and r.stem == stem)


@pytest.mark.parametrize(
    ("lang", "title", "lat"),
    [
        ("de", "8K Random 100% Read: IOPS und Latenz je Konfiguration", "Servicezeit [µs]"),
        ("en", "8K random 100% read: IOPS and latency per configuration", "Service time [µs]"),
    ],
)
def test_dual_axis(a800: ReportContext, lang: str, title: str, lat: str) -> None:
    spec = _spec(a800, _ref(a800, "dual_axis", "dual_axis_random_8k_r100"), lang)
    assert spec["title"] == title
    (rate, rate_points), (latency, lat_points) = (s["layer"] for s in spec["layer"])
    assert spec["resolve"] == {"scale": {"y": "independent"}}
    assert rate["mark"]["type"] == latency["mark"]["type"] == "line"
    assert rate_points["mark"]["filled"] and not lat_points["mark"]["filled"]
    assert latency["encoding"]["y"]["axis"]["orient"] == "right"
    assert latency["encoding"]["y"]["title"] == lat
    assert rate["encoding"]["x"]["scale"]["type"] == "log"
    colour = rate["encoding"]["color"]["scale"]
    assert colour["range"] == ["#1f5fbf", "#e0a800"]  # seed 004: 48 vCPUs blue, 4 yellow
    dash = rate["encoding"]["strokeDash"]  # a legend entry for each line style
    assert dash == latency["encoding"]["strokeDash"]
    assert dash["scale"] == {"domain": ["IOPS", lat], "range": [[1, 0], [6, 4]]}
    assert colour["domain"][0] in ("48 vCPUs pro VM", "48 vCPUs per VM")


def test_setups_comparison_read_solid_write_dashed(a800: ReportContext) -> None:
    fmt = a800.formatter("en")
    points = a800.dataset.points.filter(pl.col("block_size") == 8192)
    spec = CHARTS["setups"](points, fmt).to_dict()
    dash = spec["hconcat"][0]["layer"][0]["encoding"]["strokeDash"]["scale"]
    assert dash["domain"] == ["100% read", "100% write"]
    assert dash["range"] == [[1, 0], [6, 4]]
    assert spec["title"] == "8K random: configurations compared"


def test_response_curve_shades_the_limit(a800: ReportContext) -> None:
    spec = _spec(a800, _ref(a800, "response", "response_48vcpu_random_8k"), "de")
    zone, rule, lines = spec["layer"]
    assert zone["mark"]["type"] == "rect" and zone["encoding"]["y2"]["field"] == "limit"
    assert rule["mark"]["type"] == "rule" and rule["mark"]["strokeDash"] == [6, 4]
    assert lines["encoding"]["x"]["field"] == "throughput"
    assert lines["encoding"]["y"]["title"] == "Servicezeit [ms]"
    assert spec["title"] == "8K Random: Servicezeit über IO Rate (Grenze 1.0\u00a0ms)"


def test_stability_band(a800: ReportContext) -> None:
    spec = _spec(a800, _ref(a800, "stability", "stability_48vcpu_random_8k"), "en")
    band, ranges, mean = spec["layer"]
    assert band["mark"]["type"] == "area"
    assert ranges["mark"]["type"] == "rule"  # seen where the band has one level only
    for shown in (band, ranges):
        assert (shown["encoding"]["y"]["field"], shown["encoding"]["y2"]["field"]) == (
            "iops_min",
            "iops_max",
        )
    assert mean["encoding"]["y"]["field"] == "iops"


def test_percentiles_from_fio() -> None:
    from pipeline import ingest
    from pipeline.dataset.assemble import combine
    from pipeline.ingest.base import ReadOptions
    from pipeline.language.fmt import Formatter
    from pipeline.language.strings import Strings

    result = ingest.read(DATA / "fio" / "jsonplus.json", ReadOptions())
    points = combine([result]).points
    spec = CHARTS["percentiles"](points, Formatter(Strings("en"))).to_dict()
    assert spec["encoding"]["y"]["scale"]["type"] == "log"
    assert spec["encoding"]["color"]["scale"]["domain"] == ["p50", "p90", "p99", "p99.9", "p99.99"]
    assert [s.kind for s in default_specs(points)] == ["standard", "percentiles"]
    # one point: no chart of a single dot, both left out and named in the text
    report = prepare(DATA / "fio-data").report.model_copy(update={"charts": None})
    assert chart_plan(report, points, Path("report.toml")) == []
    assert [r.kind for r in left_out(report, points, Path("report.toml"))] == [
        "standard",
        "percentiles",
    ]


def test_histogram_from_jsonplus_bins(a800: ReportContext) -> None:
    ref = ChartRef("histogram", "h", "", 0, source=str(DATA / "fio" / "jsonplus.json"))
    bins = latency_bins(DATA / "fio" / "jsonplus.json", 0)
    spec = draw(ref, a800.dataset.points, bins, a800.formatter("de")).to_dict()
    assert spec["title"] == "Verteilung der Completion Latency (fio clat)"
    assert spec["mark"]["type"] == "bar"
    assert spec["encoding"]["x"]["scale"]["type"] == "log"
    assert sum(v["count"] for v in spec["datasets"][spec["data"]["name"]]) > 0


def test_default_plan_by_data(a800: ReportContext) -> None:
    fs840 = prepare(ROOT / "data" / "examples" / "fs840")
    assert {r.kind for r in fs840.charts} == {"standard"}
    assert [s.kind for s in default_specs(a800.dataset.points)] == [
        "standard",
        "dual_axis",
        "setups",
    ]
    declared = chart_plan(a800.report, a800.dataset.points, A800 / "report.toml")
    assert [r.kind for r in declared][:2] == ["dual_axis", "dual_axis"]
    assert all(r.block_size == 8192 for r in declared if r.kind in ("response", "stability"))


def test_a_setup_measured_at_one_level_is_still_drawn(a800: ReportContext) -> None:
    """A series of one point is no line: the setups chart drew nothing for it, the dual
    axis chart no latency. Each point now has its mark (counted in Vega's SVG)."""
    import json
    import re

    from pipeline.vlrender import svg

    fmt = a800.formatter("en")
    points = a800.dataset.points.filter(pl.col("block_size") == 8192)
    one = points.filter(pl.col("parallelism") == points["parallelism"].min())
    locale = json.dumps(fmt.d3_locale())
    drawn = svg(json.dumps(CHARTS["setups"](one, fmt).to_dict()), locale)
    symbols = re.findall(r'class="mark-symbol role-mark[^"]*"(.*?)</g>', drawn, re.S)
    assert sum(s.count("<path") for s in symbols) == 2 * one.height  # both panels
    read = one.filter(pl.col("read_pct") == 100)
    rate, latency = (s["layer"][1] for s in CHARTS["dual_axis"](read, fmt).to_dict()["layer"])
    assert rate["mark"]["filled"] is True and latency["mark"]["filled"] is False


def _depth_sweep(folder: Path) -> Path:
    """fio's 4K random read sweep (Debian's fio, tests/data/fio-sweep) at queue depth 1,
    and the same files as if run at queue depth 8: an iodepth sweep of one profile."""
    import shutil

    sweep = DATA / "fio-sweep" / "4k_r100"
    shutil.copytree(ROOT / "tests" / "data" / "reports" / "mixed", folder)
    shutil.rmtree(folder / "raw")
    for qd in (1, 8):
        (folder / "raw" / f"qd{qd}").mkdir(parents=True)
        for path in sweep.glob("*.json"):
            text = path.read_text(encoding="utf-8").replace(
                '"iodepth" : "1"', f'"iodepth" : "{qd}"'
            )
            (folder / "raw" / f"qd{qd}" / path.name).write_text(text, encoding="utf-8")
    toml = (folder / "report.toml").read_text(encoding="utf-8")
    sources = '[[sources]]\npath = "raw/qd1/"\n[[sources]]\npath = "raw/qd8/"\n'
    (folder / "report.toml").write_text(toml[: toml.index("[[sources]]")] + sources, "utf-8")
    return folder


def test_an_iodepth_sweep_gets_a_chart_per_queue_depth(tmp_path: Path) -> None:
    """Two queue depths at the same parallelism levels: one line through both was drawn
    (a vertical jump at each level). Each queue depth now has its charts, captions that
    name it, and placeholders that ask for it."""
    from pipeline.charts.draw import points_for
    from pipeline.compute.tables import cell
    from pipeline.errors import NotFound
    from pipeline.report.plan import chart_caption

    ctx = prepare(_depth_sweep(tmp_path / "depths"))
    standard = [r for r in ctx.charts if r.kind == "standard"]
    assert [r.stem for r in standard] == ["standard_random_4k_qd1", "standard_random_4k_qd8"]
    for ref in standard:
        shown = points_for(ctx.dataset.points, ref)
        assert shown["queue_depth"].unique().to_list() == [ref.queue_depth]
        assert shown["parallelism"].sort().to_list() == [1, 2, 4, 8, 16]
    caption = chart_caption(standard[1], ctx.formatter("en"))
    assert caption == "Results 4K random, queue depth 8"
    performance = ctx.tables["performance"]
    with pytest.raises(NotFound, match=r"name the queue depth: queue_depth=… \(one of \[1, 8\]\)"):
        cell(performance, "random", 4096, 100.0, "maximum")
    assert cell(performance, "random", 4096, 100.0, "maximum", queue_depth=8)["queue_depth"] == 8


def test_setups_at_one_queue_depth_each_are_compared_on_one_chart(tmp_path: Path) -> None:
    """Not an iodepth sweep: each setup ran at its own queue depth. Its charts are not
    split by queue depth, so the setups stay side by side."""
    folder = _depth_sweep(tmp_path / "setups")
    toml = (folder / "report.toml").read_text(encoding="utf-8")
    toml = toml.replace('path = "raw/qd1/"', 'path = "raw/qd1/"\nsetup = "shallow"')
    toml = toml.replace('path = "raw/qd8/"', 'path = "raw/qd8/"\nsetup = "deep"')
    setups = '[[setups]]\nname = "shallow"\n[[setups]]\nname = "deep"\n'
    (folder / "report.toml").write_text(toml.replace("[[sources]]", setups + "[[sources]]", 1))
    ctx = prepare(folder)
    assert all(r.queue_depth is None for r in ctx.charts)
    from pipeline.charts.draw import points_for

    compared = [r for r in ctx.charts if r.kind in ("dual_axis", "setups")]
    assert compared and all(
        points_for(ctx.dataset.points, r)["setup"].n_unique() == 2 for r in compared
    )


def test_the_datasheet_shows_one_queue_depth_and_says_which(tmp_path: Path) -> None:
    """An iodepth sweep's datasheet mixed its depths (minimum latency at 1, speed at 8)
    without a word; it shows the deepest, or the one [datasheet] names, and says so."""
    from pipeline.render import datasheet
    from pipeline.report import datasheet_view

    folder = _depth_sweep(tmp_path / "depths")
    ctx = prepare(folder)
    assert datasheet_view.of_setup(ctx, "performance")["queue_depth"].unique().to_list() == [8]
    assert "Queue depth 8 (also measured at 1: those figures are in the report)." in (
        datasheet.source(ctx, "en")
    )
    toml = folder / "report.toml"
    toml.write_text(toml.read_text(encoding="utf-8") + "[datasheet]\nqueue_depth = 1\n")
    chosen = prepare(folder)
    assert datasheet_view.of_setup(chosen, "min_latency")["queue_depth"].unique().to_list() == [1]
    assert "Queue Depth 1 (auch gemessen mit 8: " in datasheet.source(chosen, "de")


def test_the_site_compares_an_iodepth_sweep_per_queue_depth(tmp_path: Path) -> None:
    """Across reports each queue depth of an iodepth sweep is a series of its own (one
    line through both depths zig-zagged between them)."""
    from pipeline.render.site import Built, comparison_profiles

    first = _depth_sweep(tmp_path / "first")
    second = _depth_sweep(tmp_path / "second")
    toml = second / "report.toml"
    toml.write_text(toml.read_text(encoding="utf-8").replace('id = "mixed"', 'id = "other"'))
    built = [Built(prepare(f), tmp_path) for f in (first, second)]
    (points,) = comparison_profiles(built, "en").values()
    labels = sorted(points["label"].unique().to_list())
    # two reports of one system: each depth of each report a series, named by its report
    assert labels == [
        f"Test System #1 <A&B>, queue depth {qd} ({report})"
        for qd in (1, 8)
        for report in ("mixed", "other")
    ]
    for _, series in points.group_by("label", "report"):
        assert series["queue_depth"].n_unique() == 1 and series.height == 5


def test_a_datasheet_queue_depth_that_was_not_measured_is_refused(tmp_path: Path) -> None:
    from pipeline.errors import InputError
    from pipeline.render import datasheet

    folder = _depth_sweep(tmp_path / "depths")
    toml = folder / "report.toml"
    toml.write_text(toml.read_text(encoding="utf-8") + "[datasheet]\nqueue_depth = 4\n")
    with pytest.raises(InputError, match=r"datasheet.queue_depth: no point of setup 'default'"):
        datasheet.source(prepare(folder), "en")


@pytest.mark.slow
def test_1k_and_1536_byte_blocks_get_a_chart_each(tmp_path: Path) -> None:
    """Chart names took the block size in whole KiB: 1 KiB and 1536 B (Debian's fio,
    tests/data/fio-repeats/blocks) both became ``…_1k``, one chart was lost and the 1K
    heading showed the 1536B chart. Each block size now names its own chart, in the plan,
    the files, the whitepaper and the site's comparison."""
    import shutil

    from pipeline.build import build
    from pipeline.render.site import compare_stem

    folder = tmp_path / "blocks"
    shutil.copytree(ROOT / "tests" / "data" / "reports" / "mixed", folder)
    shutil.rmtree(folder / "raw")
    shutil.copytree(DATA / "fio-repeats" / "blocks", folder / "raw")
    toml = (folder / "report.toml").read_text(encoding="utf-8")
    sources = '[[sources]]\npath = "raw/"\n'
    (folder / "report.toml").write_text(toml[: toml.index("[[sources]]")] + sources, "utf-8")
    out = build(folder, tmp_path / "out").out
    stems = {"1K": "standard_random_1k", "1536B": "standard_random_1536b"}
    for label, stem in stems.items():
        for lang in ("de", "en"):
            svg = (out / "charts" / f"{stem}.{lang}.svg").read_text(encoding="utf-8")
            assert f"{label} " in svg and f"{'1536B' if label == '1K' else '1K'} " not in svg
        typ = (out / "mixed.en.typ").read_text(encoding="utf-8")
        heading = typ.index(f'#heading(level: 2, "{label} random")')
        following = typ.find("#heading(", heading + 1)
        assert typ.index(f"<fig-{stem}>", heading) < (following if following > 0 else len(typ))
    assert compare_stem(("random", 1024, 100.0)) != compare_stem(("random", 1536, 100.0))


def test_two_charts_with_one_file_name_stop_the_build(tmp_path: Path) -> None:
    """Setups named alike but for case give one chart name: one drawing would be lost."""
    from pipeline.errors import InputError

    folder = _depth_sweep(tmp_path / "alike")
    toml = (folder / "report.toml").read_text(encoding="utf-8")
    toml = toml.replace('path = "raw/qd1/"', 'path = "raw/qd1/"\nsetup = "Fast"')
    toml = toml.replace('path = "raw/qd8/"', 'path = "raw/qd8/"\nsetup = "fast"')
    setups = '[[setups]]\nname = "Fast"\n[[setups]]\nname = "fast"\n'
    (folder / "report.toml").write_text(toml.replace("[[sources]]", setups + "[[sources]]", 1))
    with pytest.raises(InputError, match=r"two charts would be written as 'standard_fast_"):
        prepare(folder)


def _two_setups(folder: Path, charts: str = "") -> Path:
    """Debian fio's 4K and 64K random read sweeps as setup "a", the 4K one alone as "b"."""
    import shutil

    for setup, profiles in (("a", ("4k_r100", "64k_r100")), ("b", ("4k_r100",))):
        for profile in profiles:
            shutil.copytree(DATA / "fio-sweep" / profile, folder / setup / profile)
    toml = (ROOT / "tests" / "data" / "reports" / "mixed" / "report.toml").read_text("utf-8")
    toml = toml[: toml.index("[[sources]]")]
    for setup in ("a", "b"):
        toml += f'[[setups]]\nname = "{setup}"\ndescription = "Array {setup.upper()}"\n'
    for setup in ("a", "b"):
        toml += f'[[sources]]\npath = "{setup}/**/*.json"\nsetup = "{setup}"\n'
    (folder / "report.toml").write_text(toml + charts, encoding="utf-8")
    return folder


@pytest.mark.parametrize(
    ("lang", "note"),
    [
        (
            "en",
            "Not drawn, as only one configuration was measured there: 64K random: "
            "configurations compared.",
        ),
        (
            "de",
            "Nicht gezeichnet, da dort nur eine Konfiguration gemessen wurde: 64K Random: "
            "Vergleich der Konfigurationen.",
        ),
    ],
)
def test_a_profile_of_one_setup_is_no_comparison(tmp_path: Path, lang: str, note: str) -> None:
    """A setups chart of a profile one setup measured was drawn as "configurations
    compared" with one line. Declared, it is now named as not drawn, for its reason."""
    from pipeline.report.plan import left_out_note

    declared = _two_setups(tmp_path / "declared", '[[charts]]\nkind = "setups"\n')
    ctx = prepare(declared)
    assert [r.stem for r in ctx.charts] == ["setups_random_4k"]
    assert [(r.stem, r.alone) for r in ctx.left_out()] == [("setups_random_64k", True)]
    assert left_out_note(ctx.left_out(), ctx.formatter(lang)) == note
    from pipeline.manifest import charts

    assert [c["why"] for c in charts(ctx) if not c["drawn"]] == ["one setup"]


def test_a_profile_of_one_setup_gets_no_comparison_by_default(tmp_path: Path) -> None:
    """By default a one-setup profile gets no comparison, and none is named as left out
    (nobody asked for it), also where its axis holds one level: there its own charts
    alone are named (a single point), not a dual-axis chart of one setup."""
    folder = _two_setups(tmp_path / "default")
    for path in (folder / "a" / "64k_r100").glob("*.json"):
        if not path.name.endswith("-1-1.json"):
            path.unlink()  # 64K: parallelism 1 alone
    ctx = prepare(folder)
    compared = {r.stem for r in ctx.charts if r.chart.compares}
    assert compared == {"setups_random_4k"}
    named = [(r.stem, r.alone) for r in ctx.left_out()]
    assert named == [("standard_a_random_64k", False), ("percentiles_a_random_64k_r100", False)]


@pytest.mark.parametrize("kind", ["setups", "dual_axis"])
def test_service_times_far_apart_get_a_log_axis(a800: ReportContext, kind: str) -> None:
    """One setup's 0.05 µs lay flat on 0 beside another's 1,000 µs: the comparison's
    service-time axis was linear whatever its span (the standard chart's turns
    logarithmic beyond a factor of 20)."""
    fmt = a800.formatter("en")
    points = a800.dataset.points.filter(pl.col("block_size") == 8192, pl.col("read_pct") == 100)
    first = points["setup"].unique().sort()[0]
    apart = points.with_columns(
        pl.when(pl.col("setup") == first)
        .then(pl.col("lat_mean_us") / 5000)
        .otherwise(pl.col("lat_mean_us"))
        .alias("lat_mean_us")
    )
    assert _latency_scales(CHARTS[kind](apart, fmt).to_dict()) == {"log"}
    assert _latency_scales(CHARTS[kind](points, fmt).to_dict()) == {None}


def _latency_scales(spec: Any) -> set[str | None]:
    """The scale types of every encoding of the field ``latency`` in a spec."""
    found: set[str | None] = set()
    if isinstance(spec, dict):
        if spec.get("field") == "latency" and "scale" in spec:
            found.add(spec["scale"].get("type"))
        for value in spec.values():
            found |= _latency_scales(value)
    elif isinstance(spec, list):
        for value in spec:
            found |= _latency_scales(value)
    return found


def test_the_sites_comparison_puts_far_apart_service_times_on_a_log_axis() -> None:
    from pipeline.charts.family import compare_chart
    from pipeline.language import Formatter, Strings

    points = pl.DataFrame(
        {
            "label": ["A", "A", "B", "B"],
            "parallelism": [1, 2, 1, 2],
            "access": ["random"] * 4,
            "block_size": [4096] * 4,
            "read_pct": [100.0] * 4,
            "iops": [1e6, 1.8e6, 5e3, 8e3],
            "bytes_per_s": [4.1e9, 7.4e9, 2e7, 3.3e7],
            "lat_mean_us": [0.05, 0.06, 800.0, 1000.0],
        }
    )
    assert _latency_scales(compare_chart(points, Formatter(Strings("en")), "t").to_dict()) == {
        "log"
    }


def test_a_charts_profile_that_matches_nothing_names_those_that_do(tmp_path: Path) -> None:
    """'8K random' matched nothing and the hint's example was '8K random 100', which did
    not exist either: the hint lists the profiles the data holds."""
    from pipeline.errors import InputError, InputErrors

    folder = _two_setups(
        tmp_path / "r", '[[charts]]\nkind = "standard"\nprofiles = ["8K random"]\n'
    )
    with pytest.raises((InputError, InputErrors)) as caught:
        prepare(folder)
    said = str(caught.value)
    assert "profile '8K random' matches no measured point" in said
    assert "name one the raw data holds: '4K random', '64K random'" in said


def test_charts_left_out_at_several_queue_depths_are_named_once() -> None:
    """A setups chart of a one-setup profile in a queue-depth sweep was named per depth:
    "…, queue depth 1; …, queue depth 4 and 2 more" (read as queue depths 4 and 2)."""
    from pipeline.language import Formatter, Strings
    from pipeline.report.plan import left_out_note

    refs = [
        ChartRef("setups", f"setups_random_64k_qd{d}", "random", 65536, queue_depth=d, alone=True)
        for d in (1, 2, 4, 8)
    ]
    note = left_out_note(refs, Formatter(Strings("en")))
    assert note == (
        "Not drawn, as only one configuration was measured there: 64K random: "
        "configurations compared, queue depths 1, 2, 4, and 8."
    )
