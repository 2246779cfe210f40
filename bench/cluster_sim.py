"""A Dask worker preload for ``bench_cluster``: every game a worker is given ends at once.

``dask worker ... --preload bench.cluster_sim`` makes the worker's game loop return, for each
order, a record of a made-up 60-ply game (the result drawn from the game id: 40 % wins each,
20 % draws) without starting a bot. Everything else is the real thing: the batch task, the bot
checks, the events through the scheduler, and on the submitting machine the runner, the
journal (fsync'd), the progress and the SPRT. What is measured is the cost of getting results
in, not of playing.
"""

from __future__ import annotations

import time
import zlib
from functools import partial
from typing import Any

from referee.order import GameOrder
from referee.record import GameRecord, MoveRecord, Termination

PLIES = 60


class InstantLoop:
    """Stands in for :class:`arena.cluster.loop.GameLoop`: ``play`` returns at once."""

    def play(self, game: partial[Any]) -> GameRecord:
        order: GameOrder = game.args[0]  # partial(_play, order, ...)
        return instant_record(order)

    def new_bytes(self) -> dict[str, bytes]:
        return {}


def instant_record(order: GameOrder) -> GameRecord:
    draw = zlib.crc32(order.id.encode()) % 10
    result = "1-0" if draw < 4 else "0-1" if draw < 8 else "1/2-1/2"
    now = time.time()
    moves = [MoveRecord(move="a1a2", side=i % 2, elapsed_ms=1.0, clock_ms=1000.0)
             for i in range(PLIES)]
    return GameRecord(game=order.game, p1=order.bots[0].name, p2=order.bots[1].name,
                      result=result, termination=Termination.ADJUDICATION, reason="simulated",
                      id=order.id, round=order.round, moves=moves,
                      time_control=order.time_control, started_at=now, ended_at=now,
                      tags=dict(order.tags))


def dask_setup(worker: object) -> None:
    """Dask calls this when the worker starts."""
    import arena.cluster.worker as side

    side.loop_for = lambda run: InstantLoop()  # type: ignore[assignment,return-value]
