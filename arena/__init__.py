"""The tournament: config, schedule, concurrency, journal and resume, and the ``arena`` CLI."""

__version__ = "0.1.0"
"""The version, here rather than read from the installed metadata (which costs an import and
a scan of site-packages at every ``arena run``); pyproject.toml reads it from here."""
