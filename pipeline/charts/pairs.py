"""Seed 003's frontend/backend comparison: the same profiles on a small, cache-resident
target (frontend) and on a large one (backend), as pairs of setups declared in
report.toml ``frontend_backend``; one colour per pair, frontend solid, backend dashed."""

from __future__ import annotations

import altair as alt
import polars as pl

from pipeline.charts.family import finish, side_by_side, throughput
from pipeline.charts.standard import colours
from pipeline.charts.strokes import styles
from pipeline.language.fmt import Formatter
from pipeline.report.palette import pair_key
from pipeline.report.plan import ChartRef, Pair, axis_unit


def _label(pair: Pair, fmt: Formatter) -> str:
    return dict(pair.label).get(fmt.t.lang) or fmt.setup(pair.frontend)


def _sides(ref: ChartRef | None, fmt: Formatter) -> dict[str, tuple[str, str]]:
    """setup -> (its pair's label, its side's label)."""
    found: dict[str, tuple[str, str]] = {}
    for pair in ref.pairs if ref is not None else ():
        found[pair.frontend] = (_label(pair, fmt), fmt.t("chart.frontend"))
        found[pair.backend] = (_label(pair, fmt), fmt.t("chart.backend"))
    return found


def frontend_backend_chart(
    points: pl.DataFrame, fmt: Formatter, ref: ChartRef | None = None
) -> alt.TopLevelMixin:
    """Throughput and service time against parallelism. ``points``: one access, block
    size and mix, the setups of the pairs."""
    unit = axis_unit("frontend_backend", fmt)
    value, value_title = throughput(points, fmt)
    sides = _sides(ref, fmt)
    look = colours(ref)
    pairs = list(dict.fromkeys(label for label, _ in sides.values()))
    pair_colour = [
        look.setup(pair_key(p.frontend), i) for i, p in enumerate(ref.pairs if ref else ())
    ]
    data = points.filter(pl.col("setup").is_in(list(sides))).sort("setup", "parallelism")
    data = data.select(
        "parallelism",
        pl.col("setup").replace_strict({s: v[0] for s, v in sides.items()}).alias("pair"),
        pl.col("setup").replace_strict({s: v[1] for s, v in sides.items()}).alias("measure"),
        value.alias("throughput"),
        (pl.col("lat_mean_us") / fmt.divisor(unit)).alias("latency"),
    )
    colour = alt.Color(
        "pair:N", title=None, sort=pairs, scale=alt.Scale(domain=pairs, range=pair_colour)
    )
    dash = styles("measure", [fmt.t("chart.frontend"), fmt.t("chart.backend")], ["solid", "dashed"])
    detail = alt.Detail("pair:N")
    both = side_by_side(data, fmt, (value_title, unit), dash, color=colour, detail=detail)
    title = fmt.t(
        "chart.frontend_backend_title",
        block=fmt.block(int(points["block_size"][0])),
        access=fmt.t.access(str(points["access"][0]), True),
        mix=fmt.t.mix(float(points["read_pct"][0]), short=True),
    )
    return finish(both, title, fmt)
