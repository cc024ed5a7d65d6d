"""Writing CSV: the one function every CSV iopress writes goes through.

A spreadsheet opens a CSV cell that starts with ``=``, ``+``, ``-``, ``@``, a tab or a
carriage return as a formula (``=HYPERLINK(...)`` in a vendor's system name would be a live
link in the auditor's spreadsheet). Such a text cell is written with a leading ``'``, as
OWASP recommends ("CSV Injection"), so it is shown as the text it is; numbers, dates and
other cells are written unchanged. Text cells are quoted (see ``write_csv``)."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import polars as pl

FORMULA_START = r"^[=+\-@\t\r]"


def _is_text(dtype: pl.DataType) -> bool:
    import polars as pl

    return dtype == pl.String or dtype == pl.Categorical or isinstance(dtype, pl.Enum)


def defused(frame: pl.DataFrame) -> pl.DataFrame:
    """``frame`` with every text cell that a spreadsheet would read as a formula quoted."""
    import polars as pl

    texts = [name for name, dtype in frame.schema.items() if _is_text(dtype)]
    return frame.with_columns(
        pl.when(text.str.contains(FORMULA_START)).then("'" + text).otherwise(text).alias(name)
        for name in texts
        for text in [pl.col(name).cast(pl.String)]
    )


def write_csv(frame: pl.DataFrame, path: Path) -> None:
    """Every text cell quoted: a spreadsheet set to split on ";" (German and Swiss Excel)
    splits an unquoted "s;=3+3" into a cell "=3+3", past the guard of its first
    character; inside quotes, no separator splits it."""
    defused(frame).write_csv(path, quote_style="non_numeric")
