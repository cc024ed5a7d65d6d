"""``iopress compare OLD NEW``: two measurements (report folders, build outputs or
datasets) matched profile by profile, written as compare.csv, the overlay charts and a
short DE/EN PDF. What was matched and how is said, nothing is silently dropped."""

from __future__ import annotations

import datetime as dt
import shutil
from dataclasses import dataclass, field, replace
from pathlib import Path

import polars as pl

from pipeline.compute.compare import (
    MATCH,
    Comparison,
    Metric,
    Settings,
    common_points,
    compare,
    figures,
    labels,
    levels_lost,
)
from pipeline.config import LANGS, REPORT_FILE
from pipeline.csvfile import write_csv
from pipeline.dataset import (
    intervals_path,
    read_figures,
    read_intervals,
    read_points,
    stored_presentation,
)
from pipeline.errors import UsageError
from pipeline.language.fmt import small_latencies
from pipeline.language.message import Message
from pipeline.output import check_target, staging
from pipeline.paths import TEMPLATES, TOOL
from pipeline.schema import INTERVAL_FIELDS, polars_schema
from pipeline.units import Convention


@dataclass
class Side:
    """One side of a comparison: its points and intervals and how its figures are derived."""

    label: str
    points: pl.DataFrame
    intervals: pl.DataFrame
    settings: Settings = field(default_factory=Settings)
    units: Convention | None = None  # the report's convention (none for an ingest dataset)
    date: dt.date | None = None
    path: Path | None = None  # what was given on the command line

    def filtered(self, keep: pl.Expr) -> Side:
        return replace(self, points=self.points.filter(keep), intervals=self.intervals.filter(keep))


def _from_report(path: Path) -> Side:
    from pipeline.prepare import measured

    given = measured(path)
    r, limits = given.report, given.report.latency_limits
    settings = Settings((limits.small_us, limits.large_us), limits.small_block, r.optimum_margin_pp)
    return Side(r.id, given.dataset.points, given.dataset.intervals, settings, r.units, r.date)


def _from_dataset(path: Path, label: str) -> Side:
    points = read_points(path)
    if intervals_path(path).is_file():
        intervals = read_intervals(path, points)
    else:  # no interval level: no noise known
        intervals = pl.DataFrame(schema=polars_schema(INTERVAL_FIELDS))
    settings = Settings.read(read_figures(path))
    # the KB/MB its report stated, stored with a build's dataset (``iopress ingest``'s
    # states none)
    stored = stored_presentation(path)
    return Side(label, points, intervals, settings, stored.units if stored else None)


def load_side(path: Path) -> Side:
    """A report folder (built now), a build output (its dataset) or a dataset file."""
    if path.is_dir() and (path / REPORT_FILE).is_file():
        return replace(_from_report(path), path=path)
    if path.is_dir() and (path / "dataset.parquet").is_file():
        return replace(_from_dataset(path / "dataset.parquet", path.name), path=path)
    if path.is_file() and path.suffix == ".parquet":
        return replace(_from_dataset(path, path.stem), path=path)
    raise UsageError(
        f"{path}: not a report folder, a build output or a dataset (.parquet); give one of those"
    )


def pick_setup(side: Side, setup: str | None, role: str) -> Side:
    """The side reduced to one setup, when one is named."""
    if setup is None:
        return side
    found = sorted(set(side.points["setup"].to_list()))
    if setup not in found:
        raise UsageError(f"{role} {side.label} has no setup {setup!r} (it has: {', '.join(found)})")
    return replace(side.filtered(pl.col("setup") == setup), label=f"{side.label} ({setup})")


def _relabel(side: Side) -> Side:
    common = pl.lit("").alias("setup")
    return replace(
        side, points=side.points.with_columns(common), intervals=side.intervals.with_columns(common)
    )


def align_setups(old: Side, new: Side) -> tuple[Side, Side, list[Message]]:
    """Setups matched by name; one setup each is matched whatever their names."""
    a, b = (sorted(set(s.points["setup"].to_list())) for s in (old, new))
    if len(a) == 1 and len(b) == 1:
        note = Message.in_table(
            "compare",
            "note_setup_pair",
            old=old.label,
            old_setup=a[0],
            new=new.label,
            new_setup=b[0],
        )
        return _relabel(old), _relabel(new), [note] if a != b else []
    if a == b:
        return old, new, [Message.in_table("compare", "note_setups", setups=", ".join(a))]
    raise UsageError(
        f"{old.label} has setups {', '.join(a)} and {new.label} has {', '.join(b)}: "
        "name one of each with --old-setup and --new-setup"
    )


def _on_cells(side: Side, cells: pl.DataFrame) -> Side:
    """The side's points and intervals at the (profile, parallelism) cells given."""

    def keep(frame: pl.DataFrame) -> pl.DataFrame:
        return frame.join(cells, on=list(cells.columns), how="semi", nulls_equal=True)

    return replace(side, points=keep(side.points), intervals=keep(side.intervals))


def _settings_note(old: Side, new: Side) -> Message:
    """Which latency limits and margin judged both sides (OLD's), and NEW's own."""

    def said(s: Settings) -> dict[str, str]:
        small, large = s.limits_us
        return {"small": f"{small:g}", "large": f"{large:g}", "margin": f"{s.margin_pp:g}"}

    theirs = {f"new_{k}": v for k, v in said(new.settings).items()}
    return Message.in_table(
        "compare", "note_settings", old=old.label, new=new.label, **said(old.settings), **theirs
    )


def _hosts_note(old: Side, new: Side) -> list[Message]:
    """Where the levels compared ran on other numbers of servers on the two sides (a800
    on 3 VMs against 2): a changed figure may be theirs, not the system's."""
    cells = [*MATCH, "parallelism"]
    both = old.points.select(*cells, "hosts").join(
        new.points.select(*cells, "hosts"), on=cells, nulls_equal=True, suffix="_new"
    )
    differ = both.filter(pl.col("hosts") != pl.col("hosts_new"))
    if differ.is_empty():
        return []
    counts = [", ".join(map(str, sorted(set(differ[c].to_list())))) for c in ("hosts", "hosts_new")]
    return [
        Message.in_table("compare", "note_hosts", n=differ.height, old=counts[0], new=counts[1])
    ]


def _unit_note(old: Side, new: Side) -> list[Message]:
    if old.units and new.units and old.units != new.units:
        return [
            # the note of the old side's convention: its words in each language
            Message.in_table("compare", f"note_units_{old.units}", old=old.label, new=new.label)
        ]
    return []


def run(
    old: Side, new: Side, threshold_pct: float, metrics: tuple[Metric, ...]
) -> tuple[Comparison, Side, Side]:
    """Both sides aligned (setups, parallelism grid) and compared."""
    if old.label == new.label:  # two runs of one campaign: "only in nullrun" said nothing
        old, new = (
            replace(old, label=f"{old.label} (OLD)"),
            replace(new, label=f"{new.label} (NEW)"),
        )
    old, new, notes = align_setups(old, new)
    cells, apart, grid = common_points(old.points, new.points)
    a, b = _on_cells(old, cells), _on_cells(new, cells)
    result = compare(  # one rule for both: the baseline's (OLD's) limits and margin
        figures(a.points, a.intervals, a.settings),
        figures(b.points, b.intervals, a.settings),
        threshold_pct,
        metrics,
    )
    result.only_old = labels(old.points).join(
        labels(new.points), on=MATCH, how="anti", nulls_equal=True
    )
    result.only_new = labels(new.points).join(
        labels(old.points), on=MATCH, how="anti", nulls_equal=True
    )
    result.apart = apart
    result.lost = levels_lost(old.points, new.points)
    if old.settings != new.settings:
        notes.append(_settings_note(old, new))
    notes += [
        Message.in_table("compare", "note_no_noise", side=s.label)
        for s in (a, b)
        if s.intervals.is_empty()
    ]
    if result.unknown_noise:
        notes.append(Message.counted("compare", "note_noise_unknown", result.unknown_noise))
    if result.none_within:
        notes.append(Message.counted("compare", "note_noise_none_within", result.none_within))
    if result.targets_differ:
        notes.append(Message.in_table("compare", "note_targets", n=result.targets_differ))
    if result.levels_apart:
        notes.append(Message.in_table("compare", "note_levels_apart", n=result.levels_apart))
    result.notes = [*notes, *([grid] if grid else []), *_unit_note(old, new), *_hosts_note(a, b)]
    if (result.rows["unit"] == "B/s").any():  # what MB/s means here (MiB/s by default)
        result.notes.append(Message.in_table("method", f"units_{units(new)}_rate"))
    result.old_points, result.new_points = a.points, b.points
    old, new = a, b
    return result, old, new


def as_csv(result: Comparison) -> pl.DataFrame:
    """The rows, then the profiles measured on one side only (status says which)."""
    one_side = [
        frame.with_columns(pl.lit(status).alias("status"))
        for frame, status in (
            (result.only_old, "old only"),
            (result.only_new, "new only"),
            (result.apart, "no common level"),
            (result.lost.drop("missing", strict=False), "levels not measured in new"),
        )
    ]
    return pl.concat([result.rows, *one_side], how="diagonal_relaxed").select(
        [*MATCH, *(c for c in result.rows.columns if c not in MATCH)]
    )


def check_out(out: Path, *inputs: Path | None) -> Path:
    """``out`` checked like a build's output, and never one of the inputs, inside a report
    folder given, or holding an input."""
    target = check_target(out, kind="compare")
    for given in inputs:
        if given is None:
            continue
        if given.is_dir():
            check_target(out, given)
        elif given.resolve().is_relative_to(target):
            raise UsageError(f"{out} holds the input {given}: write the comparison elsewhere")
    return target


def write(result: Comparison, old: Side, new: Side, out: Path, threshold: float) -> Path:
    """compare.csv, the overlay charts and compare.{de,en}.pdf into ``out`` (replaced only
    when everything succeeded)."""
    from pipeline.charts.export import KINDS, save_many
    from pipeline.charts.overlay import overlay_chart, profiles
    from pipeline.language import Formatter, Strings
    from pipeline.render import compare_doc
    from pipeline.render.typst_doc import TEMPLATE_NAME, compile_pdf

    target = check_out(out, old.path, new.path)
    date = max((d for d in (old.date, new.date) if d), default=dt.date.today())
    with staging(target, "compare") as work:
        write_csv(as_csv(result), work / "compare.csv")
        (work / "charts").mkdir()
        shutil.copy(TEMPLATES / "typst" / TEMPLATE_NAME, work / TEMPLATE_NAME)
        for lang in LANGS:
            fmt = Formatter(Strings(lang), {}, units(new), None, small(result))
            jobs = [
                (
                    overlay_chart(o, n, fmt, (old.label, new.label)),
                    work / "charts" / f"{stem}.{lang}",
                    fmt,
                    KINDS,
                )
                for stem, o, n in profiles(result.old_points, result.new_points)
            ]
            save_many(jobs)
            source = work / f"compare.{lang}.typ"
            body = compare_doc.body(result, (old.label, new.label), threshold, date, fmt)
            source.write_text(body, encoding="utf-8")
            compile_pdf(source, work / f"compare.{lang}.pdf", work, date)
    return target


def small(result: Comparison) -> bool:
    """Whether the comparison's ms figures print in µs (either side's fastest latency is
    below 100 µs), by the rule of every report."""
    sides = (result.old_points, result.new_points)
    return small_latencies(v for points in sides for v in points["lat_mean_us"].to_list())


def units(side: Side) -> Convention:
    """The convention figures are shown in: the newer side's."""
    return side.units or "binary"


def failing(result: Comparison) -> list[str]:
    """The profiles with a regression, as the terminal names them."""
    from pipeline.language import Formatter, Strings
    from pipeline.render.compare_doc import metric, not_measured, profile

    fmt = Formatter(Strings(TOOL))
    found = []
    for row in result.regressions.iter_rows(named=True):
        found.append(f"{profile(row, fmt)} ({metric(row, fmt)})")
    for row in result.lost.iter_rows(named=True):
        found.append(f"{profile(row, fmt)} ({not_measured(row, fmt)})")
    return found
