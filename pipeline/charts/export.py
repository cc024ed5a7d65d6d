"""Saving charts as SVG, PDF and Vega-Lite JSON, through the content-hashed cache. Charts
not in the cache are drawn by Vega's process and a typst thread (``vlrender.Renderer``), so a
build goes on with other work while its charts are drawn (``start_saving`` ...
``Pending.wait``)."""

from __future__ import annotations

import json
from collections.abc import Iterable, Sequence
from concurrent.futures import Future
from concurrent.futures.process import BrokenProcessPool
from dataclasses import dataclass, field
from functools import cached_property
from importlib import metadata
from pathlib import Path
from typing import Any

import altair as alt
from altair.utils.schemapi import debug_mode

from pipeline import cache
from pipeline.errors import ToolFailure
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


@dataclass
class Pending:
    """Charts being drawn: ``wait`` writes every file (and fills the cache)."""

    wanted: list[tuple[Path, Drawing]] = field(default_factory=list)
    found: dict[str, bytes] = field(default_factory=dict)
    drawing: dict[str, tuple[Drawing, Future[bytes]]] = field(default_factory=dict)
    svgs: dict[tuple[str, str], Future[bytes]] = field(default_factory=dict)

    def want(self, path: Path, drawing: Drawing) -> None:
        """``drawing`` into ``path``: from the cache, or started at once (each chart goes
        through Vega once; a build starts Vega's process before it needs it)."""
        self.wanted.append((path, drawing))
        key = drawing.key
        if key in self.found or key in self.drawing:
            return
        if (data := cache.get(key)) is not None:
            self.found[key] = data
            return
        self.drawing[key] = (drawing, self._start(drawing))

    def _start(self, drawing: Drawing) -> Future[bytes]:
        """The drawing's future; its chart's SVG is drawn once for both kinds."""
        chart = (drawing.spec, drawing.locale)
        if chart not in self.svgs:
            self.svgs[chart] = renderer().svg(*chart)
        svg = self.svgs[chart]
        return svg if drawing.kind == "svg" else renderer().pdf(svg)

    def wait(self) -> None:
        for name, (drawing, future) in self.drawing.items():
            self.found[name] = self._result(drawing, future)
            cache.put(name, self.found[name])
        for path, drawing in self.wanted:
            path.write_bytes(self.found[drawing.key])

    def _result(self, drawing: Drawing, future: Future[bytes]) -> bytes:
        """The drawing; drawn once more in a new Vega process if its process died (killed,
        out of memory) while the build waited for it (the SVG again once per chart). A
        second death stops the build (``ToolFailure``)."""
        try:
            return future.result()
        except BrokenProcessPool:
            chart = (drawing.spec, drawing.locale)
            if isinstance(self.svgs[chart].exception(), BrokenProcessPool):
                del self.svgs[chart]
        try:
            return self._start(drawing).result()
        except BrokenProcessPool:
            raise ToolFailure(
                "Vega (vl-convert)",
                "its process died twice while drawing a chart (killed, or out of memory)",
                "free memory or stop what else runs, then build again",
            ) from None


def start_saving(
    jobs: Iterable[tuple[alt.TopLevelMixin, Path, Formatter, tuple[str, ...]]],
) -> Pending:
    """Start drawing every chart of ``jobs`` (chart, file stem, formatter, kinds) that is
    not in the cache, chart by chart as they come; the Vega-Lite JSON is written at once."""
    pending = Pending()
    # altair checks each piece of a chart against the schema as it is made (in ``jobs``,
    # a generator) and the whole chart in to_dict: the tests check every chart kind whole
    # instead (test_charts), the build does neither (≈ 40 % of making a chart's spec)
    with debug_mode(False):
        for chart, stem, fmt, kinds in jobs:
            _want(pending, chart.to_dict(validate=False), stem, fmt, kinds)
    return pending


def _want(
    pending: Pending, spec: dict[str, Any], stem: Path, fmt: Formatter, kinds: tuple[str, ...]
) -> None:
    """The chart ``spec`` into ``stem``'s files of ``kinds``: the Vega-Lite JSON at once."""
    text = json.dumps(spec, sort_keys=True, ensure_ascii=False)
    if "vl.json" in kinds:
        stem.with_name(f"{stem.name}.vl.json").write_text(
            json.dumps(spec, indent=1, sort_keys=True, ensure_ascii=False), encoding="utf-8"
        )
    locale = json.dumps(fmt.d3_locale(), sort_keys=True, ensure_ascii=False)
    for kind in ("svg", "pdf"):  # the SVG first: its PDF is made from it
        if kind in kinds:
            pending.want(stem.with_name(f"{stem.name}.{kind}"), Drawing(text, locale, kind))


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
