"""Charts: one spec function per chart kind of ``report/chart_registry``.

Each function takes the frame to plot (the registry's ``takes``), a ``Formatter``
(language and number style) and the plan's ``ChartRef`` (the document's colours, the
latency limit; ``None``: the house colours) and returns an altair chart;
``export.save`` writes SVG, PDF and Vega-Lite JSON.
"""

from __future__ import annotations

from pipeline.charts.draw import SpecFn, spec
from pipeline.report import chart_registry as kinds

# kind -> its spec function, every kind of the registry
CHARTS: dict[str, SpecFn] = {c.name: spec(c.name) for c in kinds.CHARTS}

__all__ = ["CHARTS"]
