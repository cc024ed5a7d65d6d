"""Write docs/cli.md from the command line itself (every command's --help):
``.venv/bin/python -m tests.regenerate_cli_doc``; review the diff. tests/test_cli.py fails
when docs/cli.md and the command line differ."""

from __future__ import annotations

from pipeline.cli import reference
from pipeline.paths import ROOT

if __name__ == "__main__":
    (ROOT / "docs" / "cli.md").write_text(reference(), encoding="utf-8")
