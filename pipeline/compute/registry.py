"""Every table of a report, declared once.

A ``Table`` names its compute function, its columns (the schema's ``Field``: name, dtype,
unit, label), the columns that key a row, the view that shows it, the section it goes
in, and how ``iopress verify`` and the manifest find its cells. compute (here), the
report context, the manifest, verify, the whitepaper, the site and the datasheet all
read this list; adding a table is one entry plus its compute function
(docs/architecture.md).
"""

from __future__ import annotations

import difflib
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from dataclasses import field as field_default
from typing import Any, Literal

import polars as pl

from pipeline.compute import economics
from pipeline.compute.compare import Settings
from pipeline.compute.tables import iops_at_latency, min_latency, performance
from pipeline.config import Report
from pipeline.dataset import Spc1Record
from pipeline.errors import InputError
from pipeline.schema import POINT_FIELDS, Field, conform, field

Section = Literal["performance", "latency", "cost", "footprint", "spc1", "sizing", "speedup"]
ViewKind = Literal[
    "rate_grid",
    "latency_grid",
    "limit_grid",
    "key_figures",
    "cost",
    "footprint",
    "spc1",
    "sizing",
    "speedup",
]
Origin = Literal["points", "report", "spc1"]  # what a table's figures derive from


@dataclass(frozen=True)
class Inputs:
    """What tables are computed from: the points, the report and its SPC-1 records."""

    points: pl.DataFrame
    report: Report
    spc1: Sequence[Spc1Record] = ()

    @property
    def settings(self) -> Settings:
        return Settings.of(self.report)


PrintedFn = Callable[[Mapping[str, Any], str], tuple[str, ...]]


@dataclass(frozen=True)
class Cells:
    """How a transcribed ``table,row,column`` finds its figures.

    ``row``: the columns the row text names in order ("random 4K 100" is access, block
    size, read %; "fs840 2016" is system and year); further ``key=value`` words narrow it.
    ``select``: the column whose value the transcription's column may name ("maximum" is
    a kind, "100" a load); otherwise the column names a column of the table.
    ``printed``: the columns of the figures one printed cell holds, given the row and that
    column (each printed in the unit the table declares for it: ``Table.unit``).
    ``optional``: those of them a transcription may leave out (the seeds print no
    parallelism in Tabelle 3, the view prints it as "(P 128)")."""

    row: tuple[str, ...]
    select: str | None
    printed: PrintedFn
    optional: frozenset[str] = frozenset()


@dataclass(frozen=True)
class Table:
    name: str
    # a frame, or None when the report lacks the inputs; no function: see ``measure`` and
    # ``frame``
    compute: Callable[[Inputs], pl.DataFrame | None] | None
    columns: tuple[Field, ...]
    key: tuple[str, ...]  # the columns that make a row unique
    view: ViewKind
    section: Section
    origin: Origin
    cells: Cells
    shown: Callable[[pl.DataFrame], bool] = lambda _: True  # by the points, when computed
    frame: str | None = None  # shows the frame of another table instead of its own
    # a measurement table's frame from the points and the figures' settings alone, so that
    # a dataset with the settings stored with it gives the report's frame (``measured``)
    measure: Callable[[pl.DataFrame, Settings], pl.DataFrame] | None = None
    # the unit a column's figures print in, where it is not the Field's base unit
    units: Mapping[str, str] = field_default(default_factory=dict)

    def make(self, inputs: Inputs) -> pl.DataFrame | None:
        if self.compute is None and self.measure is not None:
            return self.measured(inputs.points, inputs.settings)
        return self._conform(self.compute(inputs) if self.compute else None)

    def measured(self, points: pl.DataFrame, settings: Settings) -> pl.DataFrame | None:
        made = self.measure(points, settings) if self.measure else None
        return self._conform(None if made is None else named(made, points))

    def _conform(self, frame: pl.DataFrame | None) -> pl.DataFrame | None:
        return None if frame is None else conform(frame, self.columns)

    @property
    def selectable(self) -> bool:
        """Measurement tables can be chosen in report.toml ``tables = [...]``."""
        return self.origin == "points"

    def column(self, name: str) -> Field:
        return field(name, self.columns)

    def unit(self, name: str) -> str:
        """The unit column ``name`` prints in, declared once here: in the tables, the text's
        placeholders that read the table, the datasheet and the site (a ms column prints in
        µs in a document whose fastest latency is below 100 µs: ``Formatter.unit``)."""
        return self.units.get(name) or self.column(name).unit


def named(frame: pl.DataFrame, points: pl.DataFrame) -> pl.DataFrame:
    """``frame`` with each row's workload mix name (``profile``: report.toml
    ``[[profiles]]``, Iometer's specification), empty where its profile has none; the
    dataset gives one name to one access, block size and read share (normalise)."""
    figures = ["access", "block_size", "read_pct"]
    if "profile" not in points.columns or frame.is_empty():
        return frame
    names = points.filter(pl.col("profile").is_not_null()).select(*figures, "profile").unique()
    return frame.join(names, on=figures, how="left", nulls_equal=True)


def _f(name: str) -> Field:
    return field(name, POINT_FIELDS)


def _new(name: str, dtype: type[pl.DataType], unit: str, nullable: bool = False) -> Field:
    return Field(name, dtype, unit, f"field.{name}", None, nullable)


PROFILE = tuple(_f(n) for n in ("setup", "queue_depth", "access", "block_size", "read_pct"))
# a measurement table's workload mix name, after the figures it names (empty for most)
NAMED = (*PROFILE, _f("profile"))
PROFILE_ROW = ("access", "block_size", "read_pct")
PROFILE_KEY = tuple(f.name for f in PROFILE)
KIND = _new("kind", pl.String, "")
LIMIT = _new("limit_us", pl.Float64, "µs")
SYSTEM = _new("system", pl.String, "")
PRICE = _new("price", pl.Float64, "currency")
CURRENCY = _new("currency", pl.String, "")
CAPACITY = _new("capacity_tb", pl.Float64, "TB")
LATENCY = _f("lat_mean_us")
CPU = _f("cpu_pct")  # the load generators' CPU load, where the tool measured it
# how sure an optimum is: by how much the next step misses the rule, and the interval noise
SHORTFALL = _new("shortfall_pp", pl.Float64, "pp", nullable=True)
NOISE = _new("noise_pct", pl.Float64, "%", nullable=True)


def _rate(row: Mapping[str, Any]) -> str:
    """Bandwidth for sequential access, IOPS for random (as the tables print them)."""
    return "bytes_per_s" if row["access"] == "sequential" else "iops"


def _cpu(row: Mapping[str, Any]) -> tuple[str, ...]:
    """The load generators' CPU, where the data has it (printed last: "CPU 94 %")."""
    return ("cpu_pct",) if row.get("cpu_pct") is not None else ()


def _perf_cells(row: Mapping[str, Any], column: str) -> tuple[str, ...]:
    # "1'008'045 @ 0.5 ms (P 128, CPU 94 %)", "310 @ 6.4 ms (P 2, target 5,000 IOPS)"
    return (_rate(row), "lat_mean_us", "parallelism", *_target(row), *_cpu(row))


def _key_cells(row: Mapping[str, Any], column: str) -> tuple[str, ...]:
    # "128 processes, 648,293 IOPS, 590 µs"; "2 processes, target 5,000 IOPS, 310 IOPS, ..."
    return ("parallelism", *_target(row), _rate(row), "lat_mean_us", *_cpu(row))


def _target(row: Mapping[str, Any]) -> tuple[str, ...]:
    """The target rate a point was held to, where it was (the tables print it)."""
    return ("target_iops",) if row.get("target_iops") is not None else ()


def _column(row: Mapping[str, Any], column: str) -> tuple[str, ...]:
    return (column,)


def _cost_cells(row: Mapping[str, Any], column: str) -> tuple[str, ...]:
    """The price per TB prints with the effective one beside it: "3'070 CHF / 1'000 CHF*"."""
    effective = "price_per_tb_effective"
    if column == "price_per_tb" and row.get(effective) is not None:
        return (column, effective)
    return (column,)


def _sizing_cells(row: Mapping[str, Any], column: str) -> tuple[str, ...]:
    """Column ``cell``: the whole cell, "1 × FS 900, 708'702 USD, 200'000 IOPS @ 0.29 ms"."""
    return ("units", "price", "load_iops", "lat_mean_us") if column == "cell" else (column,)


# a transcription may leave out (the seeds print neither a parallelism nor a target rate)
PARALLELISM = frozenset({"parallelism", "cpu_pct", "target_iops"})


def _spc1_cells(row: Mapping[str, Any], column: str) -> tuple[str, ...]:
    if column.replace(".", "").isdigit():  # a load: the ramp point
        return ("iops", "lat_mean_us")
    return (column,)


# The units the seeds print figures in, per table: seed 000 Tabelle 3 "1'003'798 @ 0.55 ms"
# and "12'984 @ 15 ms" (MB/s), Tabelle 4 "230 µs", Tabellen 7 and 8 "440'011 @ 0.49 ms";
# seed 004 Tabelle 2 "11.0 GB/s, 9'416 µs"; seed 001 "the I/O rate under 1 ms".
PERFORMANCE_UNITS = {"bytes_per_s": "MB/s", "lat_mean_us": "ms"}
KEY_FIGURE_UNITS = {"bytes_per_s": "GB/s", "lat_mean_us": "µs", "parallelism": "1"}
MS = {"lat_mean_us": "ms"}


def _limits(points: pl.DataFrame, settings: Settings) -> pl.DataFrame:
    return iops_at_latency(points, settings.limits_us, settings.small_block)


def _sizing(i: Inputs) -> pl.DataFrame | None:
    sizing = i.report.sizing
    if not (i.spc1 and sizing):
        return None
    return economics.sizing(i.spc1, sizing.targets, sizing.max_load_pct)


def _when(present: object, make: Callable[[], pl.DataFrame]) -> pl.DataFrame | None:
    return make() if present else None


RATES = (_f("iops"), _f("bytes_per_s"))
TARGET = _f("target_iops")  # the point's target rate in a rate sweep (empty otherwise)

TABLES: tuple[Table, ...] = (
    Table(
        "performance",  # seed 000 Tabelle 3
        None,
        (*NAMED, KIND, _f("parallelism"), TARGET, *RATES, LATENCY, CPU, SHORTFALL, NOISE),
        (*PROFILE_KEY, "kind"),
        "rate_grid",
        "performance",
        "points",
        Cells(PROFILE_ROW, "kind", _perf_cells, PARALLELISM),
        measure=lambda points, settings: performance(points, settings.margin_pp),
        units=PERFORMANCE_UNITS,
    ),
    Table(
        "key_figures",  # seed 004 Tabelle 2: the performance frame, shown another way
        None,
        (*NAMED, KIND, _f("parallelism"), TARGET, *RATES, LATENCY, CPU, SHORTFALL, NOISE),
        (*PROFILE_KEY, "kind"),
        "key_figures",
        "performance",
        "points",
        Cells(PROFILE_ROW, "kind", _key_cells, PARALLELISM),
        shown=lambda points: points["setup"].n_unique() > 1,
        frame="performance",
        units=KEY_FIGURE_UNITS,
    ),
    Table(
        "min_latency",  # seed 000 Tabelle 4
        None,
        (*NAMED, LATENCY, _f("parallelism"), TARGET),
        PROFILE_KEY,
        "latency_grid",
        "latency",
        "points",
        Cells(PROFILE_ROW, None, lambda row, column: ("lat_mean_us",)),
        measure=lambda points, _: min_latency(points),
    ),
    Table(
        "iops_at_latency",  # seed 001
        None,
        (
            *NAMED,
            LIMIT,
            *(_new(f.name, pl.Float64, f.unit, True) for f in RATES),
            # of an interpolated rate (measured false): the lower neighbouring level
            _new("parallelism", pl.Int64, "workers/host", True),
            _new("target_iops", pl.Float64, "IOPS", True),
            _new("measured", pl.Boolean, "", True),
        ),
        PROFILE_KEY,
        "limit_grid",
        "latency",
        "points",
        Cells(PROFILE_ROW, None, lambda row, column: (_rate(row),)),
        measure=_limits,
        units={"bytes_per_s": "MB/s", "limit_us": "ms"},
    ),
    Table(
        "cost",  # seed 000 Tabelle 5
        lambda i: _when(i.report.cost, lambda: economics.cost(i.report.cost)),
        (
            SYSTEM,
            _new("year", pl.Int64, ""),
            CAPACITY,
            _f("iops"),
            PRICE,
            CURRENCY,
            _new("price_per_tb", pl.Float64, "currency"),
            _new("compression_ratio", pl.Float64, "1", True),
            _new("price_per_tb_effective", pl.Float64, "currency", True),
            _new("price_per_kiops", pl.Float64, "currency"),
        ),
        ("system", "year"),
        "cost",
        "cost",
        "report",
        Cells(("system", "year"), None, _cost_cells, frozenset({"price_per_tb_effective"})),
    ),
    Table(
        "footprint",  # seed 000 Tabelle 6
        lambda i: _when(
            i.report.footprint,
            lambda: economics.footprint(i.report.footprint, i.report.rack_units),
        ),
        (
            SYSTEM,
            CAPACITY,
            _f("iops"),
            _new("rack_units", pl.Int64, "U"),
            _new("power_w", pl.Float64, "W"),
            _new("w_per_tb", pl.Float64, "W/TB"),
            _new("w_per_kiops", pl.Float64, "W/kIOPS"),
            _new("tb_per_rack", pl.Float64, "TB"),
            _new("iops_per_rack", pl.Float64, "IOPS"),
        ),
        ("system",),
        "footprint",
        "footprint",
        "report",
        Cells(("system",), None, _column),
        units={"w_per_tb": "W", "w_per_kiops": "W"},  # "4.2 W" in the row per TB
    ),
    Table(
        "spc1",  # seed 000 Tabelle 7
        lambda i: _when(i.spc1, lambda: economics.spc1(i.spc1)),
        (
            SYSTEM,
            _new("submission", pl.String, ""),
            _new("load_pct", pl.Float64, "%"),
            _f("iops"),
            LATENCY,
            PRICE,
            # the datasheet's price per 1,000 SPC-1 IOPS (of the full load), in the CSV
            # and the manifest with the figures it is made of
            _new("price_per_kiops", pl.Float64, "currency"),
            CURRENCY,
            CAPACITY,
        ),
        ("system", "load_pct"),
        "spc1",
        "spc1",
        "spc1",
        Cells(("system",), "load_pct", _spc1_cells),
        units=MS,
    ),
    Table(
        "spc1_sizing",  # seed 000 Tabelle 8
        _sizing,
        (
            SYSTEM,
            _new("target_iops", pl.Float64, "IOPS"),
            _new("max_load_pct", pl.Float64, "%"),
            _new("units", pl.Int64, "1"),
            _new("capacity_iops", pl.Float64, "IOPS"),
            _new("load_iops", pl.Float64, "IOPS"),
            LATENCY,
            PRICE,
            CURRENCY,
        ),
        ("system", "target_iops"),
        "sizing",
        "sizing",
        "spc1",
        Cells(("system", "target_iops"), None, _sizing_cells),
        units=MS,
    ),
    Table(
        "speedup",
        lambda i: _when(i.report.speedup, lambda: economics.speedup(i.report.speedup)),
        (
            _new("case", pl.String, ""),
            _new("io_share_pct", pl.Float64, "%"),
            _new("old_lat_mean_us", pl.Float64, "µs"),
            _new("new_lat_mean_us", pl.Float64, "µs"),
            _new("io_speedup", pl.Float64, "×"),
            _new("app_gain_pct", pl.Float64, "%"),
        ),
        ("case",),
        "speedup",
        "speedup",
        "report",
        Cells(("case",), None, _column),
        units={"old_lat_mean_us": "ms", "new_lat_mean_us": "ms"},  # seed 000: "5 ms"
    ),
)
BY_NAME: dict[str, Table] = {t.name: t for t in TABLES}
SELECTABLE = tuple(t.name for t in TABLES if t.selectable)


def unit(table: str, column: str) -> str:
    """The unit ``table`` prints ``column`` in (``Table.unit``)."""
    return BY_NAME[table].unit(column)


def compute_all(inputs: Inputs) -> dict[str, pl.DataFrame]:
    """Every table the report's inputs allow, in the registry's order, each cast to its
    declared columns: what the CSVs, the workbook, the manifest and verify hold. A table
    that shows another's frame (key_figures) holds that frame where the report shows it,
    so that no table is shown without its CSV."""
    found = {t.name: t.make(inputs) for t in TABLES}
    own = {name: frame for name, frame in found.items() if frame is not None}
    return with_shown(own, shown(inputs, own))


def with_shown(own: Mapping[str, pl.DataFrame], names: Sequence[str]) -> dict[str, pl.DataFrame]:
    """The tables computed (``own``) and each of ``names`` that shows another's frame, under
    its own name, in the registry's order."""
    return {
        t.name: own[t.frame or t.name]
        for t in TABLES
        if t.name in own or (t.name in names and (t.frame or t.name) in own)
    }


def measured(points: pl.DataFrame, settings: Settings) -> dict[str, pl.DataFrame]:
    """The measurement tables from the points alone, as the report with these settings
    computes them (``iopress tables DATASET``: the settings stored with the dataset)."""
    found = {t.name: t.measured(points, settings) for t in TABLES}
    return {name: frame for name, frame in found.items() if frame is not None}


def view_rows(
    tables: Mapping[str, pl.DataFrame], shown: Sequence[str], view: ViewKind
) -> pl.DataFrame | None:
    """The rows of every shown table of one view kind (the grids beside which vendor
    figures stand); an empty frame where such a table is left out for having nothing to
    print (no point with a latency), None where none of that kind is shown."""
    frames = [tables[t.frame or t.name] for t in TABLES if t.name in shown and t.view == view]
    if frames:
        return pl.concat(frames, how="diagonal_relaxed")
    blank = any(
        t.view == view and (t.frame or t.name) in tables and _blank(t, tables) for t in TABLES
    )
    return pl.DataFrame() if blank else None


def shown(inputs: Inputs, tables: Mapping[str, pl.DataFrame]) -> list[str]:
    return shown_of(inputs.points, inputs.report.tables, tables)


def shown_of(
    points: pl.DataFrame, declared: Sequence[str] | None, tables: Mapping[str, pl.DataFrame]
) -> list[str]:
    """The tables a report shows, in order: the measurement tables declared in
    report.toml ``tables`` (or each one's default), then every other table computed; a
    measurement table of no row is left out (``left_out``)."""
    return [
        t.name for t in TABLES if _wanted(t, points, declared, tables) and not _blank(t, tables)
    ]


def _wanted(
    t: Table,
    points: pl.DataFrame,
    declared: Sequence[str] | None,
    tables: Mapping[str, pl.DataFrame],
) -> bool:
    chosen = t.name in declared if declared is not None and t.selectable else t.shown(points)
    return (t.frame or t.name) in tables and chosen


def _blank(table: Table, tables: Mapping[str, pl.DataFrame]) -> bool:
    """A measurement table with nothing to print: no row (no point has the latency it
    needs), or rows whose every cell is empty (no point within the latency limit)."""
    if table.origin != "points":
        return False
    return not any(
        _filled(table, row) for row in tables[table.frame or table.name].iter_rows(named=True)
    )


def _filled(table: Table, row: Mapping[str, Any]) -> bool:
    """The row prints a figure: one of those its cell holds is there (``Cells.printed``
    of the column the row is printed in)."""
    cells = table.cells
    column = str(row[cells.select]) if cells.select else ""
    return any(row.get(name) is not None for name in cells.printed(row, column))


def left_out(inputs: Inputs, tables: Mapping[str, pl.DataFrame]) -> list[str]:
    """The measurement tables the report would show but that have nothing to print (no
    row, or no figure in any cell): named in a note instead of printed empty."""
    declared = inputs.report.tables
    return [
        t.name for t in TABLES if _wanted(t, inputs.points, declared, tables) and _blank(t, tables)
    ]


def name_problems(report: Report, path: object) -> list[InputError]:
    """Each name of report.toml ``tables = [...]`` that is no measurement table."""
    problems = []
    for index, name in enumerate(report.tables or []):
        if name not in SELECTABLE:
            guess = difflib.get_close_matches(name, SELECTABLE, n=1, cutoff=0.6)
            problems.append(
                InputError(
                    str(path),
                    f"tables[{index}]",
                    f"no table {name!r}" + (f": did you mean {guess[0]!r}?" if guess else ""),
                    f"choose from {', '.join(SELECTABLE)}",
                )
            )
    return problems
