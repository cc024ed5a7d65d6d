"""Render: the documents (typst, Markdown, HTML) from the report's views, which the report
layer formats per language (``report.views``, ``language.Formatter``)."""
