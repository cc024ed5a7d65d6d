"""What a report's data was besides its profile key (schema ``ATTRIBUTES``): a block-size
split (fio ``bssplit``) names its profile wherever the block size is printed; the
compressibility (fio ``buffer_compress_percentage``, ``dedupe_percentage``) is said in the
method text, and names the setups where it differs between them."""

from __future__ import annotations

import polars as pl

from pipeline.language import Formatter

Data = tuple[float | None, float | None]  # compress_pct, dedupe_pct


def block_names(points: pl.DataFrame) -> dict[int, str]:
    """Mean block size -> the split it stands for, by its name where the mix has one
    (normalise checks that a mean size stands for one profile only)."""
    if "block_split" not in points.columns:
        return {}
    rows = points.filter(pl.col("block_split").is_not_null())
    name = pl.coalesce(_names(rows), pl.col("block_split"))
    return dict(rows.select("block_size", name).unique().iter_rows())


def _names(points: pl.DataFrame) -> pl.Expr:
    return pl.col("profile") if "profile" in points.columns else pl.lit(None, pl.String)


def profile_names(points: pl.DataFrame) -> dict[tuple[str, int, float], str]:
    """(access, block size, read share) -> the name of the workload mix (normalise checks
    that these figures have one name or none)."""
    if "profile" not in points.columns:
        return {}
    rows = points.filter(pl.col("profile").is_not_null())
    figures = rows.select("access", "block_size", "read_pct", "profile").unique()
    return {(a, b, r): n for a, b, r, n in figures.iter_rows()}


def splits(points: pl.DataFrame) -> dict[int, tuple[str, str | None]]:
    """Mean block size -> its split and the name of its mix (or None)."""
    if "block_split" not in points.columns:
        return {}
    rows = points.filter(pl.col("block_split").is_not_null())
    found = rows.select("block_size", "block_split", _names(rows).alias("name")).unique()
    return {b: (s, n) for b, s, n in found.iter_rows()}


def ratio(pct: float, fmt: Formatter) -> str:
    """A compressible share as a ratio: 0 % -> 1:1, 50 % -> 2:1, 33 % -> 1.5:1."""
    if pct >= 100:
        return "∞:1"
    value = 100 / (100 - pct)
    return f"{fmt.number(value, 0 if value.is_integer() else 1)}:1"


def data_text(data: Data, fmt: Formatter) -> str:
    """'compressible 2:1, with 10 % duplicate blocks'; empty where the tool said nothing."""
    compress, dedupe = data
    parts = [fmt.t("data.compress", ratio=ratio(compress, fmt))] if compress is not None else []
    if dedupe:
        parts.append(fmt.t("data.dedupe", pct=f"{fmt.number(dedupe)} %"))
    return ", ".join(parts)


def by_setup(points: pl.DataFrame) -> dict[str, str]:
    """Each setup's data as the tool stated it, its kinds in order ('' for none)."""
    if "compress_pct" not in points.columns:
        return {}
    kinds = points.select("setup", "compress_pct", "dedupe_pct").unique(maintain_order=True)
    found: dict[str, list[Data]] = {}
    for setup, compress, dedupe in kinds.iter_rows():
        found.setdefault(setup, []).append((compress, dedupe))
    return {s: _key(d) for s, d in found.items()}


def _key(kinds: list[Data]) -> str:
    return repr(sorted(kinds, key=lambda d: (d[0] or -1.0, d[1] or -1.0)))


def _texts(points: pl.DataFrame, setup: str, fmt: Formatter) -> str:
    rows = points.filter(pl.col("setup") == setup).select("compress_pct", "dedupe_pct")
    texts = [data_text(d, fmt) for d in rows.unique(maintain_order=True).iter_rows()]
    return " / ".join(dict.fromkeys(t for t in texts if t))


def varies(points: pl.DataFrame) -> bool:
    """The data differs between the setups (1:1 beside 2:1)."""
    return len(set(by_setup(points).values())) > 1


def setup_names(points: pl.DataFrame, fmt: Formatter) -> dict[str, str]:
    """The setups by their description, with their data where it differs between them
    ("FS840, data compressible 2:1"): the tables' rows and the charts' legends."""
    if not varies(points):
        return fmt.setups
    names = {}
    for setup in by_setup(points):
        text = _texts(points, setup, fmt)
        name = fmt.setup(setup)
        names[setup] = fmt.t("data.setup", setup=name, data=text) if text else name
    return fmt.setups | names


def data_sentences(points: pl.DataFrame, fmt: Formatter) -> list[str]:
    """The method text's sentences on the data: each block-size split, and the
    compressibility (per setup where it differs; ``fmt`` names the setups with it)."""
    found = [
        fmt.t("method.split", name=split, mean=fmt.integer(size))
        if name is None
        else fmt.t("method.split_named", name=name, split=split, mean=fmt.integer(size))
        for size, (split, name) in sorted(splits(points).items())
    ]
    setups = by_setup(points)
    if varies(points):
        listed = "; ".join(fmt.setup(s) for s in setups)
        found.append(fmt.t("method.data_setups", list=listed))
    elif setups and (text := _texts(points, next(iter(setups)), fmt)):
        found.append(fmt.t("method.data", data=text))
    return found
