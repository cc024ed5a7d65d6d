"""Saving charts as SVG, PDF and Vega-Lite JSON, through the content-hashed cache; charts
not in the cache are drawn on as many processes as there are cores."""

from __future__ import annotations

import json
import os
from collections.abc import Sequence
from dataclasses import dataclass
from functools import cached_property
from importlib import metadata
from pathlib import Path

import altair as alt

from pipeline import cache, procs
from pipeline.language.fmt import Formatter
from pipeline.vlrender import CLEANING, render

KINDS = ("svg", "pdf", "vl.json")
# what a drawing depends on besides its spec: the renderers (typst makes the PDFs)
RENDERERS = (
    f"vl-convert {metadata.version('vl-convert-python')}, typst {metadata.version('typst')}, "
    + CLEANING
)
PARALLEL_FROM = 4  # charts; fewer are drawn here (a process costs ~0.4 s to warm up)


@dataclass(frozen=True)
class Drawing:
    spec: str  # Vega-Lite JSON
    locale: str  # d3 number locale JSON
    kind: str  # "svg" or "pdf"

    @cached_property
    def key(self) -> str:  # hashes the whole spec: made once per drawing
        return cache.key("chart", RENDERERS, self.spec, self.locale, self.kind)


def _render_all(drawings: list[Drawing]) -> dict[str, bytes]:
    """The drawings by cache key; each chart goes through Vega once for all its kinds."""
    charts: dict[tuple[str, str], list[Drawing]] = {}
    for drawing in drawings:
        charts.setdefault((drawing.spec, drawing.locale), []).append(drawing)
    jobs = [(spec, locale, tuple(d.kind for d in ds)) for (spec, locale), ds in charts.items()]
    workers = min(os.cpu_count() or 1, 4)
    if len(jobs) < PARALLEL_FROM or workers < 2:
        results = [render(job) for job in jobs]
    else:
        with procs.pool(workers) as pool:
            results = list(pool.map(render, jobs))
    return {
        d.key: data
        for ds, made in zip(charts.values(), results, strict=True)
        for d, data in zip(ds, made, strict=True)
    }


def save_many(jobs: Sequence[tuple[alt.TopLevelMixin, Path, Formatter, tuple[str, ...]]]) -> None:
    """Every chart of ``jobs`` (chart, file stem, formatter, kinds) to its files."""
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
    found: dict[str, bytes] = {}
    missing: dict[str, Drawing] = {}
    for _, drawing in wanted:
        data = cache.get(drawing.key)
        if data is None:
            missing[drawing.key] = drawing
        else:
            found[drawing.key] = data
    for name, data in _render_all(list(missing.values())).items():
        cache.put(name, data)
        found[name] = data
    for path, drawing in wanted:
        path.write_bytes(found[drawing.key])


def save(
    chart: alt.TopLevelMixin, stem: Path, fmt: Formatter, kinds: tuple[str, ...] = KINDS
) -> dict[str, Path]:
    """Write ``stem.svg``, ``stem.pdf`` and ``stem.vl.json`` (or the ``kinds`` asked for);
    returns the paths by kind."""
    save_many([(chart, stem, fmt, kinds)])
    return {kind: stem.with_name(f"{stem.name}.{kind}") for kind in kinds}
