"""The terminal: one console for results (stdout), one for messages (stderr).

Light on purpose (rich only): the CLI prints a refusal without loading the pipeline."""

from __future__ import annotations

from rich.console import Console
from rich.markup import escape

# soft_wrap: one line per message, never folded at 80 columns, so grep finds file names
out_console = Console(soft_wrap=True)
err_console = Console(stderr=True, soft_wrap=True)


def print_error(err: Exception) -> None:
    err_console.print(f"[red]error:[/red] {escape(str(err))}", highlight=False)
