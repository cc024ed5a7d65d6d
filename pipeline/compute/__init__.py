"""Compute: every table is a polars frame in base units, declared in ``registry``.
Formatting happens at render."""

from pipeline.compute.registry import BY_NAME, TABLES, Inputs, Table, compute_all

__all__ = ["BY_NAME", "TABLES", "Inputs", "Table", "compute_all"]
