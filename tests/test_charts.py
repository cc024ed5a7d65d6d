"""Chart specs: encodings, colours, axis types, titles and number style per language."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import polars as pl
import pytest

from pipeline.charts import CHARTS
from pipeline.charts.draw import draw
from pipeline.charts.export import save
from pipeline.language.fmt import Formatter
from pipeline.language.strings import Strings
from pipeline.prepare import prepare
from pipeline.report.context import ReportContext
from tests.conftest import ROOT


def _spec(ctx: ReportContext, lang: str, block: int) -> dict[str, Any]:
    points = ctx.dataset.points.filter(pl.col("block_size") == block)
    spec: dict[str, Any] = CHARTS["standard"](points, Formatter(Strings(lang))).to_dict()
    return spec


@pytest.mark.parametrize(
    ("lang", "title", "y_title", "lat_title", "x_title", "thousands"),
    [
        ("de", "Messergebnisse 4K Random", "IOPS", "Servicezeit [ms]", "Parallelität", "’"),
        ("en", "Results 4K random", "IOPS", "Service time [ms]", "Parallelism", ","),
    ],
)
def test_standard_chart_titles_and_locale(
    fs840_context: ReportContext,
    lang: str,
    title: str,
    y_title: str,
    lat_title: str,
    x_title: str,
    thousands: str,
) -> None:
    spec = _spec(fs840_context, lang, 4096)
    assert spec["title"] == title
    left, right = spec["hconcat"]
    assert left["encoding"]["y"]["title"] == y_title
    assert right["encoding"]["y"]["title"] == lat_title
    assert left["encoding"]["x"]["title"] == x_title
    assert spec["config"]["locale"]["number"]["thousands"] == thousands


def test_standard_chart_axes_and_colours(fs840_context: ReportContext) -> None:
    spec = _spec(fs840_context, "de", 4096)
    for panel in spec["hconcat"]:
        x = panel["encoding"]["x"]
        assert x["field"] == "parallelism"
        assert x["scale"] == {"type": "log", "base": 2, "domain": [1, 512]}
        assert x["axis"]["values"][0] == 1 and x["axis"]["values"][-1] == 512
        colour = panel["encoding"]["color"]
        assert colour["scale"]["domain"] == ["100% Read", "70% Read / 30% Write", "100% Write"]
        assert colour["scale"]["range"] == ["#2e9e3e", "#1f5fbf", "#d62728"]
        assert panel["mark"]["type"] == "line"
    assert spec["hconcat"][1]["encoding"]["y"]["field"] == "latency"


def test_sequential_chart_plots_mb_per_second(fs840_context: ReportContext) -> None:
    spec = _spec(fs840_context, "en", 256 * 1024)
    left = spec["hconcat"][0]
    assert left["encoding"]["y"]["title"] == "MB/s"
    values = spec["datasets"][spec["data"]["name"]]
    best = max(v["throughput"] for v in values)
    assert round(best) == 12984


def test_save_writes_svg_pdf_and_vega_lite(fs840_context: ReportContext, tmp_path: Path) -> None:
    fmt = Formatter(Strings("de"))
    points = fs840_context.dataset.points.filter(pl.col("block_size") == 4096)
    paths = save(CHARTS["standard"](points, fmt), tmp_path / "c.de", fmt)
    assert paths["svg"].read_text(encoding="utf-8").startswith("<svg")
    assert paths["pdf"].read_bytes().startswith(b"%PDF")
    assert '"$schema"' in paths["vl.json"].read_text(encoding="utf-8")
    assert "1’000’000" in paths["svg"].read_text(encoding="utf-8")


@pytest.mark.parametrize(
    ("levels", "domain", "values"),
    [
        ([1, 2, 4, 8, 16], [1, 16], [1, 2, 4, 8, 16]),  # a sweep to 16 uses the whole width
        ([4], [2, 8], [4]),  # one level: a step either side
        ([1, 2, 3, 4, 6, 8, 12, 16, 24, 32, 48, 64], [1, 64], [1, 2, 4, 8, 16, 32, 64]),
        (list(range(1, 31)), [1, 30], [1, 2, 4, 8, 16]),
        ([2**k for k in range(20)], [1, 2**19], [2**k for k in range(0, 20, 2)]),
        (list(range(100, 131, 2)), [100, 130], list(range(100, 131, 4))),
    ],
)
def test_parallelism_axis_fits_the_measured_levels(
    levels: list[int], domain: list[int], values: list[int]
) -> None:
    from pipeline.charts.theme import parallelism_axis

    assert parallelism_axis(levels, 10) == (domain, values)


def test_latency_panel_turns_logarithmic_for_a_long_tail() -> None:
    from pipeline.charts.standard import value_scale

    assert value_scale([0.7, 1.2, 2.0]).to_dict() == {"zero": True}
    log = {"type": "log", "domain": [0.5, 200.0], "nice": False}  # from 1-2-5 to 1-2-5
    assert value_scale([0.7, 1.2, 2.0, 200.0]).to_dict() == log


@pytest.mark.parametrize(
    ("values", "domain", "labelled"),
    [
        ([0.02, 0.03, 0.04, 0.16], [0.02, 0.2], [0.02, 0.05, 0.1, 0.2]),  # 1, 2, 5 a decade
        ([0.3], [0.2, 0.5], [0.2, 0.5]),
        ([0.02], [0.01, 0.05], [0.01, 0.02, 0.05]),  # one value on a mark: one either side
        ([None, 0.0, 120.0, 180.0], [100.0, 200.0], [100.0, 200.0]),  # no zero on a log axis
        ([3.0, 250_000.0], [2.0, 500_000.0], [10.0, 100.0, 1e3, 1e4, 1e5]),  # powers only
        ([1e-6, 1e12], [1e-6, 1e12], [10.0**e for e in range(-6, 13, 2)]),  # every second
        ([], [], []),
    ],
)
def test_log_axis_labels_one_two_five(
    values: list[float | None], domain: list[float], labelled: list[float]
) -> None:
    from pipeline.charts.theme import log_axis

    assert log_axis(values, 10) == (domain, labelled)


def test_every_chart_of_both_examples_is_valid_vega_lite(fs840_context: ReportContext) -> None:
    """The build skips altair's schema check (it costs a third of the charts stage); every
    chart kind both examples draw is checked here instead, in both languages."""
    for ctx in (fs840_context, prepare(ROOT / "data" / "examples" / "a800")):
        for lang in ("de", "en"):
            fmt = ctx.formatter(lang)
            for ref in ctx.charts:
                draw(ref, ctx.dataset.points, ctx.histograms.get(ref.stem), fmt).to_dict()
            if "cost" in ctx.tables:
                CHARTS["cost"](ctx.cost_frame(lang), fmt).to_dict()


def _axis_formats(spec: object) -> list[str]:
    """Every axis format of a Vega-Lite spec, at any depth."""
    if isinstance(spec, dict):
        axis = spec.get("axis")
        found = [axis["format"]] if isinstance(axis, dict) and "format" in axis else []
        return found + [f for v in spec.values() for f in _axis_formats(v)]
    if isinstance(spec, list):
        return [f for v in spec for f in _axis_formats(v)]
    return []


def test_sub_microsecond_latencies_keep_their_digits_on_every_axis() -> None:
    """Debian's fio on the null engine (tests/data/fio-sweep) reports latencies of a few
    tenths of a µs: two places in ms printed every tick as 0. Each chart's latency axis
    shows them with two significant digits."""
    from pipeline import ingest
    from pipeline.dataset.assemble import combine
    from pipeline.ingest.base import ReadOptions
    from tests.conftest import DATA

    sweep = DATA / "fio-sweep"
    files = sorted(sweep.glob("8k_*/*.json"))
    points = combine([ingest.read(p, ReadOptions(root=sweep), "fio") for p in files]).points
    fmt = Formatter(Strings("en"))
    read = points.filter(pl.col("read_pct") == 100)
    top_us = float(read["lat_mean_us"].max())  # type: ignore[arg-type]
    assert 0 < top_us < 5
    # the latency axis of each chart, in its unit: ms, µs, and µs on a log axis
    for kind, top in (("standard", top_us / 1000), ("dual_axis", top_us), ("percentiles", 0)):
        formats = _axis_formats(CHARTS[kind](read, fmt).to_dict())
        fixed = sorted({f for f in formats if f.endswith("~f")})  # lines, points: one axis
        assert (",~r" in formats) if kind == "percentiles" else len(fixed) == 1, (kind, formats)
        for f in fixed:  # ",.5~f": the largest value keeps two significant digits
            assert f"{top:.{int(f[2:-2])}f}".strip("0.") != "", (kind, f)


def test_vega_draws_in_a_process_of_its_own_and_a_killed_one_is_replaced() -> None:
    """vl-convert holds the GIL while it draws: Vega runs in one process beside the build
    (never on a thread of it), and a build after that process died draws again."""
    import json
    import os
    import signal
    from concurrent.futures.process import BrokenProcessPool

    from pipeline import vlrender

    spec, locale = json.dumps(vlrender.TRIVIAL), json.dumps(Formatter(Strings("en")).d3_locale())
    drawer = vlrender.renderer()
    assert drawer.svg(spec, locale).result(timeout=60).startswith(b"<svg")
    workers = list(drawer.vega._processes)  # the pool's own record of its processes
    assert len(workers) == 1 and workers[0] != os.getpid()
    os.kill(workers[0], signal.SIGKILL)
    results = []
    for _ in range(3):  # the first call may still reach the dying process
        try:
            results.append(drawer.svg(spec, locale).result(timeout=60))
            break
        except BrokenProcessPool:
            results.append(b"broken")
    assert results[-1].startswith(b"<svg"), results
    assert list(drawer.vega._processes) != workers


def test_charts_whose_vega_process_dies_midway_are_drawn_again(
    fs840_context: ReportContext, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Vega's process killed (the OOM killer, say) while a build waits for its charts: the
    charts are drawn in a new process and the build goes on, without a traceback."""
    import os
    import signal

    from pipeline import vlrender
    from pipeline.charts.export import start_saving

    fmt = Formatter(Strings("en"))
    points = fs840_context.dataset.points
    jobs = [
        (draw(ref, points, None, fmt), tmp_path / ref.stem, fmt, ("svg", "pdf"))
        for ref in fs840_context.charts[:4]
    ]
    monkeypatch.setenv("IOPRESS_CACHE", str(tmp_path / "cache"))  # nothing drawn yet
    pending = start_saving(jobs)
    assert len(pending.drawing) == 8
    before = list(vlrender.renderer().vega._processes)
    os.kill(before[0], signal.SIGKILL)
    pending.wait()
    for ref in fs840_context.charts[:4]:
        assert (tmp_path / f"{ref.stem}.svg").read_bytes().startswith(b"<svg")
        assert (tmp_path / f"{ref.stem}.pdf").read_bytes().startswith(b"%PDF")
    assert list(vlrender.renderer().vega._processes) != before


def test_a_vega_process_dying_twice_stops_the_build_with_a_message(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Each drawing kills its process: after the one new process the build stops with a
    message naming Vega (exit 1, no traceback), and writes nothing."""
    from pipeline import vlrender
    from tests.cli import iopress
    from tests.conftest import FS840
    from tests.dying import die

    monkeypatch.setattr(vlrender, "_svg_bytes", die)  # pickled by name: tests.dying.die
    run = iopress("build", FS840, "-o", tmp_path / "out", IOPRESS_CACHE=tmp_path / "cache")
    assert run.returncode == 1, run
    assert "Vega (vl-convert): its process died twice" in run.stderr
    assert "Traceback" not in run.stdout + run.stderr
    assert {p.name for p in tmp_path.iterdir()} <= {"cache"}  # no output, no staging folder


def test_close_levels_do_not_print_their_labels_into_each_other() -> None:
    """IOgen's levels 16, 20, 24, 32 on a log axis printed "16 2024 32" (a consultant's
    128K chart): a label that would touch the one before is left out."""
    import itertools
    import re

    import altair as alt
    import vl_convert as vlc

    from pipeline.charts.standard import log2_x

    levels = [1, 2, 4, 8, 12, 16, 20, 24, 32]
    frame = pl.DataFrame({"parallelism": levels, "iops": [float(n) for n in levels]})
    x = log2_x("parallelism", "P", levels)
    chart = alt.Chart(frame).mark_line().encode(x=x, y="iops:Q").properties(width=250)
    svg = vlc.vegalite_to_svg(chart.to_json())
    shown = [
        float(at)
        for at, text in re.findall(
            r'<text[^>]*translate\(([\d.]+),15\)[^>]*opacity="1"[^>]*>(\d+)</text>', svg
        )
    ]
    assert len(shown) >= 6 and "1" in svg
    assert all(b - a >= 14 for a, b in itertools.pairwise(shown)), shown
