"""The league: a directory that lives for months, holding the bots submitted to it, every game
they played night after night, and the ratings after each night.

- :mod:`.layout`: every file name of a league directory (:class:`~.layout.LeagueDir`).
- :mod:`.settings`: ``league.toml``, what a league plays (a tournament config without bots)
  and its nightly policy.
- :mod:`.versions`: the submitted versions (``NAME@N``) and their state.
- :mod:`.store`, :mod:`.botfile`, :mod:`.build`, :mod:`.submit`: a submission copied into the
  store by hash, built in the sandbox, checked, then active or rejected.
- :mod:`.pairing`: placement games and the pairings that sharpen the ratings.
- :mod:`.night`: one night played into ``nights/<name>/``, a run directory of its own.
- :mod:`.standings`: the fit over every night and the snapshot stored after each.
"""
