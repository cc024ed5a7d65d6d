"""Tables as rows of formatted cells, shared by the PDF, the site and the terminal.

A cell is a list of spans; a span's style is ``plain``, ``optimum`` (italic),
``vendor`` (the vendor's published figure, bold, blue), ``mono`` or ``link`` (its text
leads to ``href``, an http(s) address).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any, Literal

import polars as pl

from pipeline.compute.registry import ViewKind, unit
from pipeline.compute.tables import KINDS, PROFILE
from pipeline.config import VendorFigure, toml_line
from pipeline.errors import InputError
from pipeline.language.fmt import Formatter
from pipeline.units import block_label

Style = Literal["plain", "optimum", "vendor", "mono", "link"]


@dataclass(frozen=True)
class Span:
    text: str
    style: Style = "plain"
    href: str = ""  # only for "link"


Cell = list[Span]


@dataclass(frozen=True)
class TableView:
    name: str
    caption: str
    header: list[str]
    rows: list[list[Cell]]
    note: str = ""  # how to read the table, printed once after its section
    # columns of words, set left like the first; the others hold figures, set right
    words: tuple[int, ...] = ()
    # typst column widths where the even share does not fit ("auto" for a short word, a
    # share such as "1fr" for a sentence); empty: the first auto or wider, the rest even
    widths: tuple[str, ...] = ()

    def left(self) -> list[bool]:
        """Per column: set left (words), else right (figures)."""
        return [i == 0 or i in self.words for i in range(len(self.header))]


EXTRA_KEYS = ("setup", "queue_depth")  # present in a table only when they vary


@dataclass(frozen=True)
class RowKey:
    """One table row: access and block size, plus setup and queue depth where they vary;
    a workload mix with a name ("Database") is a row of its own, labelled by the name."""

    access: str
    block: int
    extra: tuple[tuple[str, Any], ...] = ()
    name: str | None = None

    def holds(self, mix: float, fmt: Formatter) -> bool:
        """The row's cell of ``mix`` is this row's profile (a named mix's row holds its
        own read share only, the other rows none of a named mix)."""
        return fmt.profile(self.access, self.block, mix) == self.name

    def label(self, fmt: Formatter, words: str) -> str:
        """The row's name, else ``words`` (its block size and access), and its suffix."""
        return (self.name or words) + self.suffix(fmt)

    def filter(self, mix: float) -> pl.Expr:
        cond = (
            (pl.col("access") == self.access)
            & (pl.col("block_size") == self.block)
            & (pl.col("read_pct") == mix)
        )
        for name, value in self.extra:
            cond = cond & (pl.col(name) == value)
        return cond

    def suffix(self, fmt: Formatter) -> str:
        """The setup (by its description, as in the chart legends) and queue depth."""
        parts = [
            fmt.setup(str(v)) if k == "setup" else fmt.t("table.qd", qd=fmt.integer(v))
            for k, v in self.extra
        ]
        return f" ({', '.join(parts)})" if parts else ""


Row = dict[str, Any]


class Rows:
    """A table's rows by their cell of a grid, read once: a grid looks up each cell's
    rows here instead of filtering the table once per cell (≈ 0.5 ms of polars each).
    The same rows as ``RowKey.filter``, in the table's order: a null matches nothing."""

    def __init__(self, table: pl.DataFrame) -> None:
        self.by_cell: dict[tuple[Any, ...], list[Row]] = {}
        for r in table.iter_rows(named=True):
            cell = (r["access"], r["block_size"], r["read_pct"])
            self.by_cell.setdefault(cell, []).append(r)

    def at(self, key: RowKey, mix: float) -> list[Row]:
        rows = self.by_cell.get((key.access, key.block, mix), [])
        return [r for r in rows if all(_same(r[k], v) for k, v in key.extra)]


def _same(value: Any, wanted: Any) -> bool:
    return value is not None and wanted is not None and bool(value == wanted)


def _at(table: pl.DataFrame | Rows, key: RowKey, mix: float) -> list[Row]:
    if isinstance(table, Rows):
        return table.at(key, mix)
    return list(table.filter(key.filter(mix)).iter_rows(named=True))


def row(table: pl.DataFrame | Rows, key: RowKey, mix: float) -> Row | None:
    """The row of ``table`` at one cell of a grid (``key``'s profile at ``mix``), or None:
    the whitepaper's cells and the datasheet's figures select their rows by it."""
    hit = _at(table, key, mix)
    return hit[0] if hit else None


def kinds(table: pl.DataFrame | Rows, key: RowKey, mix: float) -> dict[str, Row]:
    """The rows of a performance cell by their kind (speed, optimum, maximum)."""
    return {r["kind"]: r for r in _at(table, key, mix)}


def latency(fmt: Formatter, table: str, us: float, column: str = "lat_mean_us") -> str:
    """A latency of ``table`` as it prints it: in the unit the registry declares for the
    column (ms columns in µs where the document's latencies are small), with the unit."""
    return fmt.latency(us, fmt.unit(unit(table, column)))


def bandwidth(fmt: Formatter, table: str, bytes_per_s: float, with_unit: bool = False) -> str:
    """A bandwidth of ``table`` in the unit the registry declares for it (MB/s, GB/s)."""
    declared = unit(table, "bytes_per_s")
    text = fmt.bandwidth(bytes_per_s, declared)
    return f"{text}\u00a0{fmt.symbol(declared)}" if with_unit else text


def figure(fmt: Formatter, table: str, metric: str, value: float) -> str:
    """A rate or latency of ``table`` as its cells print it (IOPS, bandwidth without unit,
    latency with unit)."""
    if metric == "bytes_per_s":
        return bandwidth(fmt, table, value)
    if metric == "iops":
        return fmt.integer(value)
    return latency(fmt, table, value, metric)


def _profiles(table: pl.DataFrame, fmt: Formatter) -> list[RowKey]:
    extra = [c for c in EXTRA_KEYS if c in table.columns and table[c].n_unique() > 1]
    rows = table.select(*extra, "access", "block_size", "read_pct").unique(maintain_order=True)
    keys = [
        RowKey(a, b, tuple(zip(extra, r, strict=True)), fmt.profile(a, b, m))
        for *r, a, b, m in rows.iter_rows()
    ]
    return list(dict.fromkeys(keys))


def _mixes(table: pl.DataFrame) -> list[float]:
    return sorted(table["read_pct"].unique().to_list(), reverse=True)


def _vendor_spans(
    figures: Sequence[VendorFigure],
    metric: str,
    key: RowKey,
    mix: float,
    here: list[Row],
    fmt: Formatter,
    vendor: str,
    table: str,
) -> Cell:
    """The vendor's figures of the cell's profile, where the cell holds the setup and
    queue depth a figure names (``vendor_problems`` makes sure each names them where
    the points vary)."""
    spans = []
    for fig in figures:
        if (fig.metric, fig.access, fig.block_size, fig.read_pct) != (
            metric,
            key.access,
            key.block,
            mix,
        ) or not any(_beside(fig, r) for r in here):
            continue
        text = figure(fmt, table, metric, fig.base_value(fmt.units))
        note = f" {fig.note[fmt.t.lang]}" if fig.note else ""
        spans.append(Span(f"{text}{note} {fmt.t('table.vendor', vendor=vendor)}", "vendor"))
    return spans


def _beside(fig: VendorFigure, row: Row) -> bool:
    """Whether the figure belongs beside the measured ``row`` (its setup and queue depth,
    where it names them)."""
    return all(
        wanted is None or row.get(name) == wanted
        for name, wanted in (("setup", fig.setup), ("queue_depth", fig.queue_depth))
    )


Grids = Mapping[ViewKind, "pl.DataFrame | None"]  # the rows shown by each grid view kind


def vendor_problems(
    figures: Sequence[VendorFigure], grids: Grids, where: Path, text: str = ""
) -> list[InputError]:
    """A vendor figure no table the report shows would print (``grids``: the rows of the
    rate and latency grids shown, None where none is), or one shown in several rows
    (setups, queue depths) it does not choose between: either would be left out of every
    table without a word. ``text``: report.toml's, to name the figure's line."""
    found = []
    for i, fig in enumerate(figures):
        line = toml_line(text, ("vendor_figures", i, "access"))
        place = f"vendor_figures[{i}]" + (f" (line {line})" if line else "")
        said = _kind_problem(fig) or _row_problem(fig, grids)
        if said:
            found.append(InputError(where, place, *said))
    return found


def _kind_problem(fig: VendorFigure) -> tuple[str, str] | None:
    """A rate of the other kind than the grids show for its access."""
    shown = "bytes_per_s" if fig.access == "sequential" else "iops"
    if fig.metric in ("iops", "bytes_per_s") and fig.metric != shown:
        return (
            f"a {fig.metric} figure of {fig.access} access: the tables show {fig.access} "
            f"profiles as {shown}, so it would be shown beside none",
            f'give it as metric = "{shown}"',
        )
    return None


def _row_problem(fig: VendorFigure, grids: Grids) -> tuple[str, str] | None:
    latency = fig.metric == "lat_mean_us"
    rows = grids.get("latency_grid" if latency else "rate_grid")
    if rows is None:
        what = "minimum latencies" if latency else "I/O rates"
        return (
            f"the report shows no table of {what} (report.toml tables): the figure would "
            "be shown beside none",
            "add that table to tables, or remove the figure",
        )
    if rows.is_empty():  # the table is left out: it would print nothing
        what = "a latency" if latency else "a rate"
        return (
            f"no measured point has {what}, so the report shows no such table: the figure "
            "would be shown beside none",
            "remove the figure",
        )
    mine, profile = _rows_of(fig, rows)
    if mine.is_empty():
        return (
            f"no row of the tables shows {profile}: the figure would be shown beside none",
            "correct access, block_size, read_pct (and setup, queue_depth), or remove it",
        )
    return _undecided(fig, mine, profile)


def _rows_of(fig: VendorFigure, rows: pl.DataFrame) -> tuple[pl.DataFrame, str]:
    """The rows of the figure's profile (and the setup and queue depth it names), and the
    profile in words."""
    mine = rows.filter(
        (pl.col("access") == fig.access)
        & (pl.col("block_size") == fig.block_size)
        & (pl.col("read_pct") == fig.read_pct)
    )
    named = []
    for name in ("setup", "queue_depth"):
        wanted = getattr(fig, name)
        if wanted is not None:
            mine = mine.filter(pl.col(name) == wanted)
            named.append(f"{name} {wanted}")
    profile = f"{block_label(fig.block_size)} {fig.access} {fig.read_pct:g} % read"
    return mine, profile + (f" ({', '.join(named)})" if named else "")


def _undecided(fig: VendorFigure, mine: pl.DataFrame, profile: str) -> tuple[str, str] | None:
    """Several rows of the profile the figure does not choose between."""
    for name in ("setup", "queue_depth"):
        found = sorted(mine[name].drop_nulls().unique().to_list())
        if getattr(fig, name) is None and len(found) > 1:
            return (
                f"the tables show {profile} in several rows ({name} "
                f"{', '.join(map(str, found))}): the figure does not say beside which",
                f"name its row: {name} = {found[-1]!r}".replace("'", '"'),
            )
    return None


def cpu(fmt: Formatter, pct: float) -> str:
    """The load generators' CPU load as the tables print it: whole percent, no sign; a
    load under half a percent with its first significant digit ("0.1", not "0" for
    0.13 %; at most three decimals)."""
    if 0 < pct < 0.5:
        return fmt.number(pct, min(3, -math.floor(math.log10(pct))))
    return fmt.integer(pct)


def _perf_text(row: dict[str, Any], access: str, fmt: Formatter) -> str:
    """ "rate @ latency (P n)", and the CPU load where the tool measured it."""
    rate = "bytes_per_s" if access == "sequential" else "iops"
    load = row.get("cpu_pct")
    words = {
        "rate": figure(fmt, "performance", rate, float(row[rate])),
        "parallelism": held(fmt, row, fmt.integer(row["parallelism"])),
        **({} if load is None else {"cpu": cpu(fmt, load)}),
    }
    if row["lat_mean_us"] is None:  # the tool printed none (CrystalDiskMark 3 to 6)
        return fmt.t("table.point_rate" if load is None else "table.point_rate_cpu", **words)
    words["latency"] = latency(fmt, "performance", float(row["lat_mean_us"]))
    return fmt.t("table.point" if load is None else "table.point_cpu", **words)


def held(fmt: Formatter, row: Mapping[str, Any], parallelism: str) -> str:
    """A point's parallelism as printed, with the target rate the load generators held it
    to, if any: "2, target 5,000 IOPS" (its figure is the target's, or short of it)."""
    target = row.get("target_iops")
    if target is None:
        return parallelism
    return fmt.t("table.at_target", parallelism=parallelism, target=rate(fmt, target))


def _has_cpu(frame: pl.DataFrame) -> bool:
    return "cpu_pct" in frame.columns and frame["cpu_pct"].null_count() < frame.height


def cpu_notes(fmt: Formatter, table: pl.DataFrame) -> list[str]:
    """What the table's CPU figures are: the servers' load (IOgen, vdbench, ...), and for
    fio the mean of one worker's CPU time in % of one core (fio's usr_cpu + sys_cpu of a
    group: 12 % of 16 workers is about two cores busy). Said of the tools of the table's
    profiles with a CPU figure, not of the whole report's."""
    shown = table.filter(pl.col("cpu_pct").is_not_null()).select(PROFILE).unique()
    tools = frozenset().union(*(fmt.cpu_tools.get(k, frozenset()) for k in shown.iter_rows()))
    plain = not tools or bool(tools - {"fio"})
    return [
        *([fmt.t("table.cpu_note")] if plain else []),
        *([fmt.t("table.cpu_note_fio")] if "fio" in tools else []),
    ]


def _perf_cell(perf: Rows, key: RowKey, mix: float, fmt: Formatter) -> Cell:
    access = key.access
    rows = kinds(perf, key, mix)
    if "maximum" not in rows:
        return [Span(fmt.t("table.none"))]
    cell = [Span(_perf_text(rows["maximum"], access, fmt))]
    opt = rows.get("optimum")
    if opt and _point(opt) != _point(rows["maximum"]):
        mark = f" {fmt.t('table.unsure')}" if unsure(opt) else ""
        cell.append(Span(_perf_text(opt, access, fmt) + mark, "optimum"))
    return cell


def _point(row: Mapping[str, Any]) -> tuple[Any, Any]:
    """Which point of its profile's curve a row is (a rate sweep's share a parallelism)."""
    return row["parallelism"], row.get("target_iops")


def optimum_verdict(optimum: dict[str, Any]) -> Literal["clear", "noise", "last", "unmeasured"]:
    """How sure an optimum is: the step after it misses the rule by more than the interval
    noise (clear) or not (noise); no step after it (last); no noise measured."""
    shortfall, noise = optimum.get("shortfall_pp"), optimum.get("noise_pct")
    if shortfall is None:
        return "last"
    if noise is None:
        return "unmeasured"
    return "noise" if shortfall <= noise else "clear"


def unsure(optimum: dict[str, Any]) -> bool:
    return optimum_verdict(optimum) == "noise"


CellFn = Callable[[Rows, RowKey, float, Formatter], Cell]


@dataclass(frozen=True)
class _Grid:
    """Rows = access × block size, columns = mixes; how one kind of table fills its cells."""

    name: str
    cell: CellFn
    metric: Callable[[str], str]
    label_key: Callable[[str], str]

    def view(
        self, table: pl.DataFrame, figures: Sequence[VendorFigure], fmt: Formatter, vendor: str
    ) -> TableView:
        mixes, found = _mixes(table), Rows(table)
        rows = []
        for key in _profiles(table, fmt):
            access, block = key.access, key.block
            words = fmt.t(
                self.label_key(access), block=fmt.block(block), access=fmt.t.access(access)
            )
            cells = [
                (
                    self.cell(found, key, m, fmt)
                    if key.holds(m, fmt)
                    else [Span(fmt.t("table.none"))]
                )
                + (
                    _vendor_spans(
                        figures,
                        self.metric(access),
                        key,
                        m,
                        found.at(key, m),
                        fmt,
                        vendor,
                        self.name,
                    )
                    if key.holds(m, fmt)
                    else []
                )
                for m in mixes
            ]
            rows.append([[Span(key.label(fmt, words))], *cells])
        header = [fmt.t("table.pattern"), *[fmt.t.mix(m) for m in mixes]]
        return TableView(self.name, fmt.t(f"table.{self.name}"), header, rows)


def _lat_cell(table: Rows, key: RowKey, mix: float, fmt: Formatter) -> Cell:
    hit = row(table, key, mix)
    if hit is None:
        return [Span(fmt.t("table.none"))]
    return [Span(latency(fmt, "min_latency", hit["lat_mean_us"]))]


def _sequential(access: str) -> bool:
    return access == "sequential"


PERFORMANCE = _Grid(
    "performance",
    _perf_cell,
    lambda a: "bytes_per_s" if _sequential(a) else "iops",
    lambda a: "table.row_mb_s" if _sequential(a) else "table.row_iops",
)
MIN_LATENCY = _Grid(
    "min_latency", _lat_cell, lambda a: "lat_mean_us", lambda a: "table.row_latency"
)


def _optimum_key(perf: pl.DataFrame) -> str:
    """The optimum rule's note, or the maximum's alone where no row has a latency (and so
    none an optimum)."""
    return "method.optimum" if perf["lat_mean_us"].is_not_null().any() else "method.optimum_rate"


def performance_view(
    perf: pl.DataFrame, figures: Sequence[VendorFigure], fmt: Formatter, vendor: str
) -> TableView:
    """Seed 000 Tabelle 3: maximum @ latency (and its parallelism), optimum in italics,
    vendor figure in bold."""
    view = PERFORMANCE.view(perf, figures, fmt, vendor)
    styles = {span.style for row in view.rows for cell in row for span in cell}
    # the key figures' note (the optimum, the CPU) begins this one: said once beside it
    note = [fmt.t(_optimum_key(perf)), *(cpu_notes(fmt, perf) if _has_cpu(perf) else [])]
    note.append(fmt.t("table.point_note"))
    if perf["lat_mean_us"].null_count():
        note.append(fmt.t("table.no_latency_note"))
    note += [
        fmt.t(f"method.{k}") for s, k in (("optimum", "italic"), ("vendor", "bold")) if s in styles
    ]
    if any(fmt.t("table.unsure") in s.text for row in view.rows for c in row for s in c):
        note.append(fmt.t("table.unsure_note"))
    return replace(view, note=" ".join(note))


def min_latency_view(
    table: pl.DataFrame, figures: Sequence[VendorFigure], fmt: Formatter, vendor: str
) -> TableView:
    """Seed 000 Tabelle 4: the minimum latency per block size and mix."""
    return MIN_LATENCY.view(table, figures, fmt, vendor)


def _limit_cell(table: Rows, key: RowKey, mix: float, fmt: Formatter) -> Cell:
    hit = row(table, key, mix)
    if hit is None or hit["iops"] is None:
        return [Span(fmt.t("table.none"))]
    if key.access == "sequential":
        text = bandwidth(fmt, "iops_at_latency", hit["bytes_per_s"], with_unit=True)
    else:
        text = rate(fmt, hit["iops"])
    # interpolated between two measured points: "≈", as the narrative's placeholder says it
    return [Span(text if hit.get("measured", True) else fmt.t("table.about", value=text))]


def rate(fmt: Formatter, iops: float) -> str:
    """An I/O rate with its unit, as the limit grid and the key figures print it."""
    return f"{fmt.integer(iops)} {fmt.t('unit.iops')}"


IOPS_AT_LATENCY = _Grid(
    "iops_at_latency",
    _limit_cell,
    lambda a: "",
    lambda a: "table.row_latency",
)


def limits_text(table: pl.DataFrame, fmt: Formatter, defaults: Sequence[float] = ()) -> str:
    """The latency limits of a table's rows, each with the block sizes it applies to where
    there are several ("1.0 ms (1K–16K) / 3.0 ms (64K, 1024K)": the rows do not say which
    is theirs); ``defaults`` (the report's) where it has no row."""
    if "limit_us" not in table.columns or table.is_empty():
        return " / ".join(
            dict.fromkeys(latency(fmt, "iops_at_latency", x, "limit_us") for x in defaults)
        )
    by = table.group_by("limit_us").agg(pl.col("block_size").unique().sort()).sort("limit_us")
    if by.height == 1:
        return latency(fmt, "iops_at_latency", by["limit_us"][0], "limit_us")
    return " / ".join(
        f"{latency(fmt, 'iops_at_latency', limit, 'limit_us')} ({_blocks(sizes, fmt)})"
        for limit, sizes in by.iter_rows()
    )


def _blocks(sizes: list[int], fmt: Formatter) -> str:
    """A limit's block sizes: up to three by name (a block split's name is long), more as
    their range."""
    names = [fmt.block(size) for size in sizes]
    return ", ".join(names) if len(names) <= 3 else f"{names[0]}–{names[-1]}"


def iops_at_latency_view(table: pl.DataFrame, fmt: Formatter) -> TableView:
    """Seed 001: the I/O rate reached under the latency limit, interpolated."""
    view = IOPS_AT_LATENCY.view(table, [], fmt, "")
    caption = fmt.t("table.iops_at_latency", limits=limits_text(table, fmt))
    return replace(view, caption=caption, note=fmt.t("method.limits"))


def _key_cell(row: dict[str, Any], access: str, fmt: Formatter) -> Cell:
    n = int(row["parallelism"])
    parallelism = fmt.t.count("table.parallelism", n, n=fmt.integer(n))
    value = (
        bandwidth(fmt, "key_figures", row["bytes_per_s"], with_unit=True)
        if access == "sequential"
        else rate(fmt, row["iops"])
    )
    lat = row["lat_mean_us"]  # none: the tool printed none, as the table's note says
    shown = [] if lat is None else [Span(latency(fmt, "key_figures", lat))]
    cell = [Span(held(fmt, row, parallelism)), Span(value), *shown]
    load = row.get("cpu_pct")
    return cell if load is None else [*cell, Span(fmt.t("table.cpu", cpu=cpu(fmt, load)))]


def shown_kinds(found: Iterable[Iterable[str]]) -> list[str]:
    """The kinds of figure (speed, optimum, maximum) some cell has, in their order: a
    report without latency has neither speed nor optimum, and shows no column of them."""
    present = {kind for cell in found for kind in cell}
    return [k for k in KINDS if k in present]


def key_figures_view(perf: pl.DataFrame, fmt: Formatter) -> TableView:
    """Seed 004 Tabelle 2: speed, optimum and maximum with parallelism, rate and latency."""
    rows, by_cell, mixes = [], Rows(perf), _mixes(perf)
    shown = shown_kinds([perf["kind"].unique().to_list()])
    for key in _profiles(perf, fmt):
        for mix in mixes:
            found = kinds(by_cell, key, mix)
            if not found or not key.holds(mix, fmt):
                continue
            direction = {100.0: fmt.t("table.key_read"), 0.0: fmt.t("table.key_write")}.get(
                mix, fmt.t.mix(mix, short=True)
            )
            label = [
                Span(key.label(fmt, f"{fmt.block(key.block)} {direction}")),
                Span(fmt.t.access(key.access, long=True).capitalize()),
            ]
            none = [Span(fmt.t("table.none"))]
            cells = [_key_cell(found[k], key.access, fmt) if k in found else none for k in shown]
            rows.append([label, *cells])
    header = [fmt.t("table.test"), *[fmt.t(f"kind.{k}") for k in shown]]
    note = " ".join([fmt.t(_optimum_key(perf)), *(cpu_notes(fmt, perf) if _has_cpu(perf) else [])])
    return TableView("key_figures", fmt.t("table.key_figures"), header, rows, note)
