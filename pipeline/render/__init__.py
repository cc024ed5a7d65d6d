"""Render: the only stage that formats numbers and text for a language."""
