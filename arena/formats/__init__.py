"""The tournament formats: which games a tournament plays, in which order (a data floor).

- :mod:`.schedule`: the games, their ids and the order of each; a round-robin's or
  gauntlet's all at once, a knockout's or Swiss event's round by round (:class:`RoundFeed`).
- :mod:`.meetings`: the rounds of a format whose pairings follow the results.
- :mod:`.knockout` and :mod:`.swiss`: those two formats, pure functions of the config and the
  results so far (the report reads their standings back).
"""
