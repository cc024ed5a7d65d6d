"""Where the project's resource folders are (templates, locales, figures, site config)."""

from __future__ import annotations

import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
TEMPLATES = ROOT / "templates"
FONTS = TEMPLATES / "fonts"
LOCALES = ROOT / "locales"
FIGURES = ROOT / "figures"
MKDOCS_CONFIG = ROOT / "mkdocs.yml"
# Made once by `make setup` for the installed versions (the offline vega-embed bundle): part
# of the installation like the templates, so that a build with an empty cache skips it.
INSTALLED = Path(sys.prefix) / "share" / "iopress"
