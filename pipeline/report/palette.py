"""The house style (``figures/theme.toml``) and the colours of one document: one colour
per mix and per setup, none meaning two things (report.toml ``[theme]`` may choose)."""

from __future__ import annotations

import tomllib
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Any

import polars as pl
from pydantic import BaseModel, ConfigDict

from pipeline.config import Report
from pipeline.errors import InputError
from pipeline.paths import FIGURES


class Theme(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    font: str
    font_size: int
    title_size: int
    line_width: float
    point_size: float
    background: str
    grid_colour: str
    vendor_colour: str
    baseline_colour: str
    limit_colour: str
    setup_colours: list[str]
    mix_colours: dict[str, str]
    fallback_colours: list[str]

    def setup_palette(self, count: int) -> list[str]:
        """Colours of ``count`` setups (or systems) in order, the list repeated as needed."""
        return [self.setup_colours[i % len(self.setup_colours)] for i in range(count)]

    def mix_colour(self, read_pct: float, index: int) -> str:
        colour = self.mix_colours.get(f"{read_pct:g}")
        return colour or self.fallback_colours[index % len(self.fallback_colours)]

    def vega_config(self) -> dict[str, Any]:
        return {
            "font": self.font,
            "background": self.background,
            "axis": {
                "labelFontSize": self.font_size,
                "titleFontSize": self.font_size,
                "gridColor": self.grid_colour,
            },
            # one entry under the other, never cut: labels cannot run into each other
            # whatever font a viewer substitutes (the SVG names Liberation Sans)
            "legend": {
                "labelFontSize": self.font_size,
                "orient": "bottom",
                "direction": "vertical",
                "labelLimit": 0,
            },
            "title": {"fontSize": self.title_size},
            "view": {"stroke": None},
        }


@cache
def theme() -> Theme:
    with (FIGURES / "theme.toml").open("rb") as fh:
        return Theme.model_validate(tomllib.load(fh))


@dataclass(frozen=True)
class Palette:
    """The colours of one document: setup -> colour, read share -> colour."""

    setups: tuple[tuple[str, str], ...] = ()
    mixes: tuple[tuple[float, str], ...] = ()

    def setup(self, name: str, index: int = 0) -> str:
        """The setup's colour; the house list by ``index`` for one not in the document
        (the comparison site's systems)."""
        found = dict(self.setups).get(name)
        return found or theme().setup_colours[index % len(theme().setup_colours)]

    def mix(self, read_pct: float, index: int = 0) -> str:
        return dict(self.mixes).get(read_pct) or theme().mix_colour(read_pct, index)


def pair_key(frontend: str) -> str:
    """The palette's name of the frontend/backend pair of ``frontend``: a colour of its own
    (a setup's colour stands for the setup alone)."""
    return f"pair:{frontend}"


def mix_colours(report: Report, mixes: list[float], where: Path) -> dict[float, str]:
    """Each read share's colour: the report's ``[theme] mixes``, the house colour of the
    three standard mixes, or the house fallbacks in order."""
    own = {_share(key, where): colour.lower() for key, colour in report.theme.mixes.items()}
    found, others = {}, 0
    for mix in sorted(mixes, reverse=True):
        colour = own.get(mix) or theme().mix_colours.get(f"{mix:g}")
        if colour is None:
            colour = theme().fallback_colours[others % len(theme().fallback_colours)]
            others += 1
        found[mix] = colour.lower()
    return found


def _share(key: str, where: Path) -> float:
    try:
        share = float(key)
    except ValueError:
        share = -1.0
    if not 0 <= share <= 100:
        raise InputError(
            where, f"theme.mixes.{key}", f"{key!r} is no read share", 'write e.g. "100" or "70"'
        )
    return share


def palette(report: Report, points: pl.DataFrame, where: Path) -> Palette:
    """The document's colours. Setups take the report's ``[theme] setups`` colour, else the
    next house setup colour that no mix of the document and no other setup has: a colour
    means one thing in a document (a800: red is 100 % write, so 4 vCPUs is not red)."""
    mixes = mix_colours(report, points["read_pct"].unique().to_list(), where)
    names = [s.name for s in report.setups]
    names += [s for s in points["setup"].unique(maintain_order=True).to_list() if s not in names]
    own = _own_setups(report, names, set(mixes.values()), where)
    names += [pair_key(p.frontend) for p in report.frontend_backend]  # a pair: its own colour
    taken = set(mixes.values()) | set(own.values())
    free = [c.lower() for c in [*theme().setup_colours, *theme().fallback_colours]]
    free = [c for c in dict.fromkeys(free) if c not in taken] or free
    setups, n = {}, 0
    for name in names:
        if name not in own:
            own[name] = free[n % len(free)]
            n += 1
        setups[name] = own[name]
    return Palette(tuple(setups.items()), tuple(mixes.items()))


def _own_setups(report: Report, names: list[str], mixes: set[str], where: Path) -> dict[str, str]:
    """The report's own setup colours, each a setup of the report and none a mix's colour
    or another setup's."""
    own: dict[str, str] = {}
    for name, colour in report.theme.setups.items():
        place = f"theme.setups.{name}"
        if name not in names:
            raise InputError(where, place, f"{name!r} is no setup of this report", _hint(names))
        if colour.lower() in mixes or colour.lower() in own.values():
            raise InputError(
                where,
                place,
                f"{colour} is already the colour of a mix or setup in this report's charts "
                "(a colour means one thing in a document)",
                "choose another colour (the mixes: figures/theme.toml mix_colours or "
                "[theme] mixes)",
            )
        own[name] = colour.lower()
    return own


def _hint(names: list[str]) -> str:
    return "name one of the report's setups: " + ", ".join(names)


HOUSE = Palette()  # the house colours: a chart drawn outside a report (the tests, docs)
