"""Bots as the arena handles them outside a game: checked for conformance, their processes
kept alive between games, the first ones launched early.

- :mod:`.conformance`: the numbered protocol steps of ``arena check-bot`` and of a league
  submission's check, with a typed result.
- :mod:`.pool`: live bot processes kept between a tournament's games (a local run and a
  cluster worker alike).
- :mod:`.prestart`: the first games' bots, launched before the runner imports trio.
- :mod:`.store`: bot folders kept once by the hash of their content (a league's submissions,
  a cluster worker's shipped bots).
"""
