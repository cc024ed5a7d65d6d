"""Where the project's resource folders are (templates, locales, figures, site config)."""

from __future__ import annotations

import os
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
TEMPLATES = ROOT / "templates"
FONTS = TEMPLATES / "fonts"
# the locale files, one per language (``<lang>.toml``); IOPRESS_LOCALES names another
# folder of them (a language added as files: docs/architecture.md#languages)
LOCALES = Path(os.environ.get("IOPRESS_LOCALES") or ROOT / "locales")
# a report's id: it names files and the default output folder (report.toml ``id``)
ID_PATTERN = r"^[a-z0-9][a-z0-9_-]*$"
MAX_ID = 128
TOOL = "en"  # the command line's language, and that of its CSV files and errors ([cli])
FIGURES = ROOT / "figures"
MKDOCS_CONFIG = ROOT / "mkdocs.yml"
# Made once by `make setup` for the installed versions (the offline vega-embed bundle): part
# of the installation like the templates, so that a build with an empty cache skips it.
INSTALLED = Path(sys.prefix) / "share" / "iopress"


def languages() -> tuple[str, ...]:
    """The documents' languages: one per locale file, in the order of their names."""
    return tuple(sorted(path.stem for path in LOCALES.glob("*.toml")))
