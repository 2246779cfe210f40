"""The league directory's files and what they hold (a data floor, below ``reports``: the
league report reads them; the league's drivers in :mod:`arena.league` write them).

- :mod:`.directory`: every file name of a league directory (:class:`~.directory.LeagueDir`).
- :mod:`.leaguetoml`: ``league.toml``, what a league plays (a tournament config without bots)
  and its nightly policy.
- :mod:`.versions`: the submitted versions (``NAME@N``) and their state.
- :mod:`.standings`: the closed nights' tallies, the fit over every night and the snapshot
  stored after each.
"""
