"""The run directory: every file a run writes, the journal and its one line reader, the live files,
the session log and the results read back from a run (arena's data layer)."""
