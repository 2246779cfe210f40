"""A running game's moves, sent in bunches to a runner in another process (a cluster worker's
or a referee process's game, for its live file on the runner's machine).

:class:`MoveStream` collects the moves the referee reports and sends them at most every
:data:`MOVES_EVERY_S`, the first bunch just after saying that the game started. A game over
sooner sends neither: its record carries every move, so a game of a few milliseconds costs the
runner no message and no live file.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Final

from referee.record import MoveRecord

MOVES_EVERY_S: Final = 0.25
"""The most often a running game's new moves are sent."""


class MoveStream:
    """Calls ``started()`` once, then ``send(moves)`` with the moves since the last call, at
    most every :data:`MOVES_EVERY_S`; :meth:`add` is the referee's ``on_move``."""

    def __init__(self, started: Callable[[], None],
                 send: Callable[[list[MoveRecord]], None]) -> None:
        self._started = started
        self._send = send
        self.announced = False
        self.waiting: list[MoveRecord] = []
        self.last = time.monotonic()

    def add(self, move: MoveRecord) -> None:
        self.waiting.append(move)
        now = time.monotonic()
        if now - self.last < MOVES_EVERY_S:
            return
        self.last = now
        if not self.announced:
            self.announced = True
            self._started()
        moves, self.waiting = self.waiting, []
        self._send(moves)
