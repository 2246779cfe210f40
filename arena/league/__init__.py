"""The league's drivers: submissions, nights and the authors who submit (the league
directory's files and what they hold are the data floor :mod:`arena.leaguedir`).

- :mod:`.archive`, :mod:`.botfile`, :mod:`.build`, :mod:`.reach`, :mod:`.submit`: a
  submission unpacked, copied into the store by hash (:mod:`arena.bots.store`), built in the
  sandbox, checked, then active or rejected.
- :mod:`.authors`: who may submit over the web, and the names each owns.
- :mod:`.plan` and :mod:`.pairing`: what a night plays, placement games first, then the
  pairings that sharpen the ratings.
- :mod:`.night`: one night, a planner handed to the run driver (:mod:`arena.run.driver`),
  played into ``nights/<name>/``, a run directory of its own.
- :mod:`.lock`: the league's lock for short writes of the version registry.
"""
