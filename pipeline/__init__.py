"""iopress: storage benchmark reports from raw load-generator output."""

__version__ = "0.1.0"
