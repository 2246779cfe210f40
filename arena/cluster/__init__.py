"""Playing a tournament's games on a Dask cluster (``arena run --cluster``).

:mod:`~arena.cluster.executor` is the submitting machine's side (a task per batch of games,
each game streamed back as it ends; elastic slots, faults, the run's files),
:mod:`~arena.cluster.worker` the worker's side (checks, shipped bots, the batch's games),
:mod:`~arena.cluster.loop` the trio loop a worker thread keeps its bots in,
:mod:`~arena.cluster.botfiles` what a worker compares to run the same bots, and
:mod:`~arena.cluster.batching` the batches of one pairing and the feed that keeps the cluster
busy with them (:class:`~arena.cluster.batching.ClusterFeed`, for the runner).

Nothing is imported here: a local run never loads Dask.
"""
