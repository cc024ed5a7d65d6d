"""The terminal: one console for results (stdout), one for messages (stderr).

Light on purpose (rich only): the CLI prints a refusal without loading the pipeline."""

from __future__ import annotations

import os
import sys

from rich.console import Console
from rich.markup import escape

# Output into a pipe or a file is as wide as it needs (rich took 80 columns there and cut
# table cells to "10,105,…"); a terminal's own width, or COLUMNS, is kept.
PIPED = None if sys.stdout.isatty() or "COLUMNS" in os.environ else 1000

# soft_wrap: one line per message, never folded at 80 columns, so grep finds file names
out_console = Console(soft_wrap=True, width=PIPED)
err_console = Console(stderr=True, soft_wrap=True)


def print_error(err: Exception) -> None:
    err_console.print(f"[red]error:[/red] {escape(str(err))}", highlight=False)
