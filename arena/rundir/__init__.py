"""The run directory: every file a run writes and how it is read back (a data floor: below
``reports``, above nothing of arena's but its base modules).

- :mod:`.layout`: the name of every file, and :class:`~.layout.RunDir`, which gives their paths;
- :mod:`.textlines`: the one line reader, with its rule for a last line without its newline;
- :mod:`.journal`: the journal (``games.jsonl``): durable appends, resume's repair, and
  :func:`~.journal.journal_lines`, how every reader reads it;
- :mod:`.live_files`: one file per game in progress, for watchers;
- :mod:`.sessions`: when each session of ``arena run`` started and ended;
- :mod:`.results`: the finished games of a run, a journal or a PGN file, for the ratings.

Preparing a directory for a run (its lock, the config copy, the schedule's fingerprint) is a
step of the run driver: :mod:`arena.run.prepare`.
"""
