"""The arithmetic of `make bench`, apart from any timing (tests/test_bench_figures.py).

A figure is measured in rounds that alternate with its peer or floor (A B, then B A, …),
so a machine that speeds up or slows down during the run weighs on both alike; it is
reported as median and range, and compared with its peer as the ratio of the medians.
"""

from __future__ import annotations

import statistics
from collections.abc import Sequence
from dataclasses import dataclass


@dataclass(frozen=True)
class Sample:
    """One measured run: wall seconds, CPU seconds (user + system of the whole process
    tree) and the peak RSS of its largest process (MB)."""

    seconds: float
    cpu: float
    rss_mb: float = 0.0


@dataclass(frozen=True)
class Spread:
    """Median and range of several values."""

    median: float
    low: float
    high: float
    runs: int

    @classmethod
    def of(cls, values: Sequence[float]) -> Spread:
        if not values:
            raise ValueError("no values to summarise")
        return cls(statistics.median(values), min(values), max(values), len(values))

    def text(self, unit: str = "s", places: int = 2) -> str:
        """ "median unit (low–high, n runs)", as pyperf reports a benchmark."""
        m, lo, hi = (f"{v:.{places}f}" for v in (self.median, self.low, self.high))
        runs = "1 run" if self.runs == 1 else f"{self.runs} runs"
        return f"{m} {unit} ({lo}–{hi}, {runs})"


@dataclass(frozen=True)
class Runs:
    """The samples of one figure."""

    samples: tuple[Sample, ...]

    @property
    def wall(self) -> Spread:
        return Spread.of([s.seconds for s in self.samples])

    @property
    def cpu(self) -> Spread:
        return Spread.of([s.cpu for s in self.samples])

    @property
    def rss_mb(self) -> float:
        return max(s.rss_mb for s in self.samples)


def alternate(names: Sequence[str], rounds: int) -> list[str]:
    """The order in which to run ``names`` for ``rounds`` rounds: forwards in even rounds,
    backwards in odd ones (A B B A A B …), so that neither always runs first or last."""
    order: list[str] = []
    for r in range(rounds):
        order += list(names) if r % 2 == 0 else list(reversed(names))
    return order


def ratio(numerator: Spread, denominator: Spread) -> float:
    """The ratio of two figures' medians."""
    if denominator.median <= 0:
        raise ValueError("the denominator's median is not positive")
    return numerator.median / denominator.median


def per_cpu(megabytes: float, cpu: Spread) -> Spread:
    """MB per CPU-second for each run's CPU time: median and range (the range is
    reversed: the least CPU gives the most MB per CPU-second)."""
    rates = [megabytes / c for c in (cpu.low, cpu.median, cpu.high) if c > 0]
    if len(rates) < 3:
        raise ValueError("a run took no CPU time")
    return Spread(rates[1], rates[2], rates[0], cpu.runs)


def verdict(value: float, goal: float, higher_is_better: bool) -> str:
    ok = value >= goal if higher_is_better else value <= goal
    return "holds" if ok else "MISSED"
