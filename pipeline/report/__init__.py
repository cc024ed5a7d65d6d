"""What a report shows, before any output format: its context (tables, views, narrative
filled per language) and its chart plan."""
