"""Where the project's resource folders are (templates, locales, figures, site config)."""

from __future__ import annotations

from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
TEMPLATES = ROOT / "templates"
FONTS = TEMPLATES / "fonts"
LOCALES = ROOT / "locales"
FIGURES = ROOT / "figures"
MKDOCS_CONFIG = ROOT / "mkdocs.yml"
