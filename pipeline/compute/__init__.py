"""Compute: every table is a polars frame in base units. Formatting happens at render."""

from pipeline.compute.tables import TABLES, min_latency, performance

__all__ = ["TABLES", "min_latency", "performance"]
