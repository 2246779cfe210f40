"""The run directory: every file a run writes and how it is read back (arena's data layer).

- :mod:`.layout`: the name of every file, and :class:`~.layout.RunDir`, which gives their paths;
- :mod:`.lines`: the one line reader, with its rule for a last line without its newline;
- :mod:`.journal`: the journal (``games.jsonl``): durable appends, resume's repair, and
  :func:`~.journal.journal_lines`, how every reader reads it;
- :mod:`.prepare`: the directory's lock and its preparation for a (resumed) run;
- :mod:`.live_files`: one file per game in progress, for watchers;
- :mod:`.sessions`: when each session of ``arena run`` started and ended;
- :mod:`.results`: the finished games of a run, a journal or a PGN file, for the ratings.
"""
