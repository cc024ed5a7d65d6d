"""Reading and writing the normalised dataset (Parquet with a schema version)."""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from urllib.parse import quote

import polars as pl

from pipeline.config import Presentation
from pipeline.dataset.repeats import Repeat
from pipeline.errors import InputError
from pipeline.ingest.base import Reject
from pipeline.ingest.spc1 import Spc1Record as Spc1Record  # what compute reads of them
from pipeline.schema import (
    INTERVAL_FIELDS,
    METADATA_KEY,
    POINT_FIELDS,
    POINT_KEY,
    READABLE_VERSIONS,
    SCHEMA_VERSION,
    conform,
)

LEVEL_KEY = "iopress.level"  # which level of a dataset a Parquet file holds


@dataclass
class Dataset:
    intervals: pl.DataFrame
    points: pl.DataFrame
    rejects: list[Reject] = field(default_factory=list)
    records_read: int = 0
    notes: list[str] = field(default_factory=list)
    sidecars: dict[str, list[Path]] = field(default_factory=dict)  # source -> files read too
    formats: dict[str, str] = field(default_factory=dict)  # source -> the format it was read as
    repeats: list[Repeat] = field(default_factory=list)  # points measured in several runs
    # the same points measured once more, not counted: a file read twice (a fio JSON beside
    # its own logs), fio's final record beside its status snapshots (validation compares)
    references: pl.DataFrame | None = None

    @property
    def accepted(self) -> int:
        return self.intervals.height

    def accounting(self) -> dict[str, int]:
        return {
            "records_read": self.records_read,
            "accepted": self.accepted,
            "rejected": len(self.rejects),
        }

    def rejects_frame(self) -> pl.DataFrame:
        return pl.DataFrame(
            {
                "source": [r.source for r in self.rejects],
                "where": [str(r.where) for r in self.rejects],
                "reason": [str(r.reason) for r in self.rejects],
            },
            schema={"source": pl.String, "where": pl.String, "reason": pl.String},
        )


def intervals_path(points_path: Path) -> Path:
    """The intervals level is stored beside the points: ``x.parquet`` -> ``x.intervals.parquet``."""
    return points_path.with_name(points_path.stem + ".intervals.parquet")


FIGURES_KEY = "iopress.figures"  # how the report derives its figures (see compute.compare)
PRESENTATION_KEY = "iopress.presentation"  # how the report prints its tables


def write(
    dataset: Dataset,
    path: Path,
    figures: dict[str, float] | None = None,
    presentation: Presentation | None = None,
) -> None:
    meta = {
        METADATA_KEY: str(SCHEMA_VERSION),
        LEVEL_KEY: "points",
        "iopress.accounting": json.dumps(dataset.accounting()),
    }
    if figures:
        meta[FIGURES_KEY] = json.dumps(figures, sort_keys=True)
    if presentation:
        meta[PRESENTATION_KEY] = presentation.model_dump_json()
    dataset.points.write_parquet(path, metadata=meta)
    dataset.intervals.write_parquet(intervals_path(path), metadata={**meta, LEVEL_KEY: "intervals"})


HIVE = "parquet"  # the output's hive-partitioned copy: parquet/{points,intervals}/system=…/setup=…/


MAX_SEGMENT = 240  # bytes of one path segment (file systems allow 255)


def hive_value(key: str, value: str) -> str:
    """``key=value`` as a path segment, the value percent-encoded as Hive, Spark, DuckDB,
    Trino and pyarrow decode it (``/``, ``=``, ``%`` and spaces included)."""
    segment = f"{key}={quote(value, safe='') or '__HIVE_DEFAULT_PARTITION__'}"
    if len(segment) > MAX_SEGMENT:
        raise InputError(
            "report.toml",
            "system.name" if key == "system" else "setups",
            f"the {key} name {value[:40]!r}… is too long for a folder name "
            f"({len(segment)} bytes percent-encoded; at most {MAX_SEGMENT})",
            "shorten it",
        )
    return segment


def write_hive(dataset: Dataset, folder: Path, name: str) -> list[Path]:
    """Both levels as ``folder/<level>/system=…/setup=…/<name>.parquet``: a folder holding
    the copies of many reports (``name`` differs) is one table per level for any engine
    that reads hive partitions. The partition columns live in the path, not the files;
    a ``report`` column names the report each row comes from."""
    written = []
    for level, frame in (("points", dataset.points), ("intervals", dataset.intervals)):
        parts = frame.sort("system", "setup").partition_by("system", "setup", as_dict=True)
        for (system, setup), part in parts.items():
            where = folder / level / hive_value("system", str(system))
            where = where / hive_value("setup", str(setup)) / f"{name}.parquet"
            where.parent.mkdir(parents=True, exist_ok=True)
            meta = {METADATA_KEY: str(SCHEMA_VERSION), LEVEL_KEY: level}
            part = part.drop("system", "setup").with_columns(report=pl.lit(name))
            part.write_parquet(where, metadata=meta)
            written.append(where)
    return written


def read_points(path: Path) -> pl.DataFrame:
    """Read a points file written by ``write``; refuse unknown schema versions and the
    intervals' file (the same metadata, another level)."""
    meta = _metadata(path)
    if meta.get(LEVEL_KEY, "points") != "points":
        raise InputError(
            path,
            f"metadata {LEVEL_KEY}",
            f"this is the {meta[LEVEL_KEY]} level of a dataset, not its points",
            f"give {path.name.replace('.intervals', '')} (the points; its intervals lie beside it)",
        )
    _not_too_many(path, MAX_POINT_ROWS)
    version = meta.get(METADATA_KEY)
    if version not in READABLE_VERSIONS:
        raise InputError(
            path,
            "metadata",
            f"dataset schema version {version!r} is not "
            f"supported (this iopress reads version {SCHEMA_VERSION})",
            "rebuild the dataset from the raw files with this iopress",
        )
    return conform(pl.read_parquet(path), POINT_FIELDS)


def read_figures(path: Path) -> dict[str, float]:
    """The settings a build stored with its dataset (empty when none)."""
    try:
        found = json.loads(pl.read_parquet_metadata(path).get(FIGURES_KEY, "{}"))
    except (OSError, ValueError, pl.exceptions.ComputeError):
        return {}
    if not isinstance(found, dict):
        return {}
    return {str(k): float(v) for k, v in found.items() if isinstance(v, int | float)}


def read_presentation(path: Path) -> Presentation:
    """How the report that wrote the dataset prints its tables (the defaults for a
    dataset of ``iopress ingest``); stored settings that are not valid are an error."""
    return stored_presentation(path) or Presentation()


def stored_presentation(path: Path) -> Presentation | None:
    """How the report that wrote the dataset prints its tables; None where the dataset
    states nothing (``iopress ingest``'s)."""
    stored = pl.read_parquet_metadata(path).get(PRESENTATION_KEY)
    if stored is None:
        return None
    try:
        return Presentation.model_validate_json(stored)
    except ValueError as err:
        raise InputError(
            path,
            f"metadata {PRESENTATION_KEY}",
            f"not valid: {str(err).splitlines()[0]}",
            "give the dataset as iopress wrote it, or build it again",
        ) from None


def _metadata(path: Path) -> dict[str, str]:
    try:
        return pl.read_parquet_metadata(path)
    except (OSError, pl.exceptions.PolarsError) as exc:
        raise InputError(
            path,
            "",
            f"not a readable Parquet file ({exc})",
            "give a dataset written by 'iopress ingest' or 'iopress build'",
        ) from None


def read_intervals(path: Path, points: pl.DataFrame | None = None) -> pl.DataFrame:
    """The interval level beside the points file ``path``: refused where it cannot be
    read, is another level, or (given the ``points``) holds other points than they."""
    where = intervals_path(path)
    if _metadata(where).get(LEVEL_KEY, "intervals") != "intervals":
        raise InputError(where, f"metadata {LEVEL_KEY}", "not a dataset's intervals", REBUILD)
    _not_too_many(where, MAX_INTERVAL_ROWS)
    try:
        intervals = conform(pl.read_parquet(where), INTERVAL_FIELDS)
    except (OSError, pl.exceptions.PolarsError) as exc:
        raise InputError(where, "", f"not a dataset's intervals ({exc})", REBUILD) from None
    if points is not None and not _same_points(points, intervals):
        raise InputError(
            where,
            "",
            f"its points are not those of {path.name} beside it (another report's intervals)",
            REBUILD,
        )
    return intervals


REBUILD = "build the report again: it writes both levels together"
# rows a dataset file may hold (a lab's archive of 10,000 runs: ≈ 30,000 points): a 36 MB
# file of one row repeated 300 million times took 24 GB of memory to read
MAX_POINT_ROWS = 2_000_000
MAX_INTERVAL_ROWS = 10_000_000


def _not_too_many(path: Path, most: int) -> None:
    """Refused before its rows are read: a file that says it holds more than ``most``."""
    try:
        rows = pl.scan_parquet(path).select(pl.len()).collect().item()
    except (OSError, pl.exceptions.PolarsError) as exc:
        raise InputError(path, "", f"not a readable Parquet file ({exc})", REBUILD) from None
    if rows > most:
        raise InputError(
            path, "", f"{rows:,} rows (at most {most:,} are read)", "give a dataset iopress wrote"
        )


def _same_points(points: pl.DataFrame, intervals: pl.DataFrame) -> bool:
    key = [k for k in POINT_KEY if k in points.columns]
    ours = points.select(key).unique()
    theirs = intervals.select(key).unique()
    return (
        ours.height == theirs.height
        and ours.join(theirs, on=key, how="anti", nulls_equal=True).is_empty()
    )


def tool_sums_hosts(tool: str) -> bool:
    """Whether the records of ``tool`` are its totals over every host it drove (the
    readers' registry, ``Reader.HOSTS_SUMMED``: vdbench's flatfile), for the report's
    words. (The registry imported here, when asked: it loads every reader.)"""
    from pipeline import ingest

    return ingest.hosts_summed(tool)
