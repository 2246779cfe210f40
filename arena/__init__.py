"""The tournament: config, schedule, concurrency, journal and resume, and the ``arena`` CLI."""
