"""The economics tables (seed 000 Tabellen 5–8, speed-up) as formatted views.

Tabellen 5–7 are transposed: one column per system, one row per figure, as the seed
prints them.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import polars as pl

from pipeline.compute.registry import unit
from pipeline.config import Report
from pipeline.dataset import Spc1Record
from pipeline.language.fmt import LATENCY_UNITS, Formatter
from pipeline.report.views import Cell, Span, TableView, latency
from pipeline.units import KIOPS, convert_time

Row = dict[str, Any]

Rule = Callable[[Formatter, float], str]
_EXACT: Rule = Formatter.amount  # a figure typed into report.toml: as typed
_DERIVED: Rule = Formatter.derived  # computed from them: whole from 10, two digits below
_COUNT: Rule = Formatter.integer

# How each economics column rounds its figure, declared once: the tables below and the
# narrative's value() print a figure alike (its unit or currency follows in the table; a
# latency prints in the unit the registry declares for its column, with the unit).
FIGURES: dict[str, Rule] = {
    "capacity_tb": _EXACT,
    "price": _EXACT,
    "power_w": _EXACT,
    "tb_per_rack": _EXACT,
    "compression_ratio": _EXACT,
    "io_share_pct": _EXACT,
    "load_pct": _EXACT,
    "max_load_pct": _EXACT,
    "price_per_tb": _DERIVED,
    "price_per_tb_effective": _DERIVED,
    "price_per_kiops": _DERIVED,
    "w_per_tb": _DERIVED,
    "w_per_kiops": _DERIVED,
    "io_speedup": _DERIVED,
    "app_gain_pct": _DERIVED,
    "iops": _COUNT,
    "iops_per_rack": _COUNT,
    "rack_units": _COUNT,
    "units": _COUNT,
    "target_iops": _COUNT,
    "capacity_iops": _COUNT,
    "load_iops": _COUNT,
    "year": _COUNT,
}


def figure(fmt: Formatter, table: str, column: str, value: float) -> str:
    """``value`` of ``column`` as ``table`` prints it: a latency in the column's unit with
    the unit, other figures by their rule (exact, for a column not listed)."""
    if unit(table, column) in LATENCY_UNITS:
        return latency(fmt, table, value, column)
    return FIGURES.get(column, _EXACT)(fmt, value)


def _f(fmt: Formatter, table: str, row: Row, column: str) -> str:
    return figure(fmt, table, column, row[column])


def _transposed(
    name: str,
    caption: str,
    columns: list[str],
    rows: Sequence[tuple[str, Sequence[str | Cell]]],
    fmt: Formatter,
) -> TableView:
    body = [
        [[Span(label)], *[[Span(v)] if isinstance(v, str) else v for v in values]]
        for label, values in rows
    ]
    return TableView(name, caption, [fmt.t("econ.system"), *columns], body)


def _price(table: str, column: str, r: Row, fmt: Formatter) -> str:
    return f"{_f(fmt, table, r, column)} {r['currency']}"


def _per_tb(r: Row, fmt: Formatter) -> str:
    text = _price("cost", "price_per_tb", r, fmt)
    if r["price_per_tb_effective"] is not None:
        effective = _price("cost", "price_per_tb_effective", r, fmt)
        text += f" / {effective}{fmt.t('econ.effective_mark')}"
    return text


def cost_view(table: pl.DataFrame, report: Report, fmt: Formatter) -> TableView:
    """Seed 000 Tabelle 5."""
    rows = list(table.iter_rows(named=True))
    labels = [c.label[fmt.t.lang] for c in report.cost]
    kiops = fmt.integer(KIOPS)
    lines: list[tuple[str, Callable[[Row], str]]] = [
        (
            fmt.t("econ.capacity"),
            lambda r: f"{_f(fmt, 'cost', r, 'capacity_tb')} {fmt.t('unit.tb')}",
        ),
        (fmt.t("econ.iops"), lambda r: _f(fmt, "cost", r, "iops")),
        (fmt.t("econ.price"), lambda r: _price("cost", "price", r, fmt)),
        (fmt.t("econ.per_tb"), lambda r: _per_tb(r, fmt)),
        (fmt.t("econ.per_kiops", n=kiops), lambda r: _price("cost", "price_per_kiops", r, fmt)),
    ]
    return _transposed(
        "cost",
        fmt.t("econ.cost_caption"),
        labels,
        [(label, [f(r) for r in rows]) for label, f in lines],
        fmt,
    )


def footprint_view(table: pl.DataFrame, report: Report, fmt: Formatter) -> TableView:
    """Seed 000 Tabelle 6."""
    rows = list(table.iter_rows(named=True))
    ru, kiops, w, tb = report.rack_units, fmt.integer(KIOPS), fmt.t("unit.w"), fmt.t("unit.tb")
    lines: list[tuple[str, Callable[[Row], str]]] = [
        (fmt.t("econ.capacity"), lambda r: f"{_f(fmt, 'footprint', r, 'capacity_tb')} {tb}"),
        (fmt.t("econ.iops"), lambda r: _f(fmt, "footprint", r, "iops")),
        (
            fmt.t("econ.space"),
            lambda r: f"{_f(fmt, 'footprint', r, 'rack_units')}{fmt.t('unit.u')}",
        ),
        (fmt.t("econ.power"), lambda r: f"{_f(fmt, 'footprint', r, 'power_w')} {w}"),
        (fmt.t("econ.w_per_tb"), lambda r: f"{_f(fmt, 'footprint', r, 'w_per_tb')} {w}"),
        (
            fmt.t("econ.w_per_kiops", n=kiops),
            lambda r: f"{_f(fmt, 'footprint', r, 'w_per_kiops')} {w}",
        ),
        (
            fmt.t("econ.tb_per_rack", ru=ru),
            lambda r: f"{_f(fmt, 'footprint', r, 'tb_per_rack')} {tb}",
        ),
        (fmt.t("econ.iops_per_rack", ru=ru), lambda r: _f(fmt, "footprint", r, "iops_per_rack")),
    ]
    return _transposed(
        "footprint",
        fmt.t("econ.footprint_caption"),
        [r["system"] for r in rows],
        [(label, [f(r) for r in rows]) for label, f in lines],
        fmt,
    )


def spc1_view(table: pl.DataFrame, records: list[Spc1Record], fmt: Formatter) -> TableView:
    """Seed 000 Tabelle 7: each record's ramp, price, space and report."""
    loads = sorted(table["load_pct"].unique().to_list(), reverse=True)

    def at(rec: Spc1Record, load: float) -> str:
        p = rec.at_load(load)
        return (
            f"{figure(fmt, 'spc1', 'iops', p.iops)} {fmt.t('table.at')} "
            f"{figure(fmt, 'spc1', 'lat_mean_us', convert_time(p.lat_ms, 'ms'))}"
            if p
            else fmt.t("table.none")
        )

    none = fmt.t("table.none")
    lines: list[tuple[str, Callable[[Spc1Record], str | Cell]]] = [
        (fmt.t("econ.media"), lambda r: r.media or none),
        (
            fmt.t("econ.capacity"),
            lambda r: f"{figure(fmt, 'spc1', 'capacity_tb', r.capacity_tb)} {fmt.t('unit.tb')}",
        ),
        *[
            (
                fmt.t("econ.spc1_load", load=figure(fmt, "spc1", "load_pct", x)),
                lambda r, x=x: at(r, x),
            )
            for x in loads
        ],
        (fmt.t("econ.price"), lambda r: f"{figure(fmt, 'spc1', 'price', r.price)} {r.currency}"),
        (
            fmt.t("econ.space"),
            lambda r: f"{r.rack_units}{fmt.t('unit.u')}" if r.rack_units else none,
        ),
        (
            fmt.t("econ.link"),
            lambda r: [Span(fmt.t("econ.link_text", id=r.submission), "link", r.source)],
        ),
    ]
    return _transposed(
        "spc1",
        fmt.t("econ.spc1_caption"),
        [r.short_name for r in records],
        [(label, [f(r) for r in records]) for label, f in lines],
        fmt,
    )


def sizing_view(table: pl.DataFrame, fmt: Formatter) -> TableView:
    """Seed 000 Tabelle 8: per target load, the systems needed, their price, and the load
    they size for with its latency."""
    systems = table["system"].unique(maintain_order=True).to_list()
    rows = []
    for target in table["target_iops"].unique(maintain_order=True).to_list():
        cells = []
        for system in systems:
            r = table.filter((pl.col("system") == system) & (pl.col("target_iops") == target)).row(
                0, named=True
            )
            cells.append(
                [
                    Span(
                        fmt.t(
                            "econ.sizing_cell",
                            units=r["units"],
                            system=system,
                            price=_price("spc1_sizing", "price", r, fmt),
                            iops=_f(fmt, "spc1_sizing", r, "load_iops"),
                            lat=_f(fmt, "spc1_sizing", r, "lat_mean_us"),
                        )
                    )
                ]
            )
        rows.append(
            [
                [
                    Span(
                        fmt.t("econ.target", iops=figure(fmt, "spc1_sizing", "target_iops", target))
                    )
                ],
                *cells,
            ]
        )
    load = figure(fmt, "spc1_sizing", "max_load_pct", table["max_load_pct"][0])
    return TableView(
        "spc1_sizing",
        fmt.t("econ.sizing_caption", load=load),
        [fmt.t("econ.system"), *systems],
        rows,
        fmt.t("econ.sizing_method", load=load),
        words=tuple(range(1, len(systems) + 1)),  # "2 × X, price, IOPS @ latency": words
    )


def speedup_view(table: pl.DataFrame, report: Report, fmt: Formatter) -> TableView:
    labels = {c.case: c.label[fmt.t.lang] for c in report.speedup}
    header = [
        fmt.t(f"econ.{k}") for k in ("case", "io_share", "old", "new", "io_speedup", "app_gain")
    ]
    rows = [
        [
            [Span(labels[r["case"]])],
            [Span(f"{_f(fmt, 'speedup', r, 'io_share_pct')}%")],
            [Span(_f(fmt, "speedup", r, "old_lat_mean_us"))],
            [Span(_f(fmt, "speedup", r, "new_lat_mean_us"))],
            [Span(fmt.t("econ.factor", x=_f(fmt, "speedup", r, "io_speedup")))],
            [Span(f"{_f(fmt, 'speedup', r, 'app_gain_pct')}%")],
        ]
        for r in table.iter_rows(named=True)
    ]
    return TableView(
        "speedup", fmt.t("econ.speedup_caption"), header, rows, fmt.t("econ.speedup_method")
    )
