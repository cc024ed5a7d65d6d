"""Saving charts as SVG, PDF and Vega-Lite JSON, through the content-hashed cache. Charts
not in the cache are drawn on two threads of this process (``vlrender.Renderer``), so a
build goes on with other work while its charts are drawn (``start_saving`` ...
``Pending.wait``)."""

from __future__ import annotations

import json
from collections.abc import Sequence
from concurrent.futures import Future
from dataclasses import dataclass, field
from functools import cached_property
from importlib import metadata
from pathlib import Path

import altair as alt

from pipeline import cache
from pipeline.language.fmt import Formatter
from pipeline.vlrender import CLEANING, renderer

KINDS = ("svg", "pdf", "vl.json")
# what a drawing depends on besides its spec: the renderers (typst makes the PDFs)
RENDERERS = (
    f"vl-convert {metadata.version('vl-convert-python')}, typst {metadata.version('typst')}, "
    + CLEANING
)


@dataclass(frozen=True)
class Drawing:
    spec: str  # Vega-Lite JSON
    locale: str  # d3 number locale JSON
    kind: str  # "svg" or "pdf"

    @cached_property
    def key(self) -> str:  # hashes the whole spec: made once per drawing
        return cache.key("chart", RENDERERS, self.spec, self.locale, self.kind)


def _render_all(drawings: list[Drawing]) -> dict[str, Future[bytes]]:
    """The drawings by cache key, as futures; each chart goes through Vega once."""
    found: dict[str, Future[bytes]] = {}
    svgs: dict[tuple[str, str], Future[bytes]] = {}
    for d in sorted(drawings, key=lambda d: d.kind != "svg"):  # every SVG before a PDF
        svg = svgs.get((d.spec, d.locale)) or renderer().svg(d.spec, d.locale)
        svgs[(d.spec, d.locale)] = svg
        found[d.key] = svg if d.kind == "svg" else renderer().pdf(svg)
    return found


@dataclass
class Pending:
    """Charts being drawn: ``wait`` writes every file (and fills the cache)."""

    wanted: list[tuple[Path, Drawing]]
    found: dict[str, bytes]
    drawing: dict[str, Future[bytes]] = field(default_factory=dict)

    def wait(self) -> None:
        for name, future in self.drawing.items():
            self.found[name] = future.result()
            cache.put(name, self.found[name])
        for path, drawing in self.wanted:
            path.write_bytes(self.found[drawing.key])


def start_saving(
    jobs: Sequence[tuple[alt.TopLevelMixin, Path, Formatter, tuple[str, ...]]],
) -> Pending:
    """Start drawing every chart of ``jobs`` (chart, file stem, formatter, kinds) that is
    not in the cache; the Vega-Lite JSON is written at once."""
    wanted: list[tuple[Path, Drawing]] = []
    for chart, stem, fmt, kinds in jobs:
        spec = chart.to_dict(validate=False)  # validated by the tests (test_charts)
        text = json.dumps(spec, sort_keys=True, ensure_ascii=False)
        if "vl.json" in kinds:
            stem.with_name(f"{stem.name}.vl.json").write_text(
                json.dumps(spec, indent=1, sort_keys=True, ensure_ascii=False), encoding="utf-8"
            )
        locale = json.dumps(fmt.d3_locale(), sort_keys=True, ensure_ascii=False)
        wanted += [
            (stem.with_name(f"{stem.name}.{k}"), Drawing(text, locale, k))
            for k in kinds
            if k != "vl.json"
        ]
    found = {d.key: data for _, d in wanted if (data := cache.get(d.key)) is not None}
    missing = {d.key: d for _, d in wanted if d.key not in found}
    return Pending(wanted, found, _render_all(list(missing.values())))


def save_many(jobs: Sequence[tuple[alt.TopLevelMixin, Path, Formatter, tuple[str, ...]]]) -> None:
    """Every chart of ``jobs`` (chart, file stem, formatter, kinds) to its files."""
    start_saving(jobs).wait()


def save(
    chart: alt.TopLevelMixin, stem: Path, fmt: Formatter, kinds: tuple[str, ...] = KINDS
) -> dict[str, Path]:
    """Write ``stem.svg``, ``stem.pdf`` and ``stem.vl.json`` (or the ``kinds`` asked for);
    returns the paths by kind."""
    save_many([(chart, stem, fmt, kinds)])
    return {kind: stem.with_name(f"{stem.name}.{kind}") for kind in kinds}
