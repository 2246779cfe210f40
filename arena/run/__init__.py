"""Playing a tournament into its run directory: the one run driver and its parts.

- :mod:`.driver`: :func:`~.driver.run_tournament` (``arena run``) and
  :func:`~.driver.drive`, which a league night calls with its planner.
- :mod:`.runner`: :class:`~.runner.Tournament`, the games at once under one trio nursery,
  resume and Ctrl-C (a cluster's batches: :mod:`arena.cluster.batching`).
- :mod:`.prepare`: the run directory's lock, its config copy and schedule fingerprint.
- :mod:`.progress`, :mod:`.retry`, :mod:`.sprt_stop`: what a person sees, games retried on
  the machine's faults, a match stopped when its SPRT decides.
"""
