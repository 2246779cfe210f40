"""Batches of games for cluster workers: one pairing per batch, colour pairs kept together,
sized to about :data:`BATCH_SECONDS` of play.

A cluster plays a tournament batch by batch (one Dask task each, ``arena.cluster``): the cost
of sending a task, of the scheduler's bookkeeping and of the hand-over to a worker's game loop
is paid once per batch instead of once per game, and the games of a colour pair (the unit of
pentanomial statistics) are played on one machine by one bot process pool. Each game still
comes back on its own as soon as it ends, so the journal, the progress and the SPRT see every
game as in a local run.

How big: enough games for about :data:`BATCH_SECONDS` of play, from the time control at first
and from the games' measured lengths once some have finished, never more than the cap (``-j``
is not involved: a batch occupies one worker thread), and smaller near the end of a known
schedule, so that the last games are spread over every slot instead of queuing in one batch.
"""

from __future__ import annotations

import math
from collections import deque
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass
from typing import Final

from arena.formats.schedule import ScheduledGame
from referee.order import GameOrder
from referee.record import GameRecord, MoveRecord
from referee.timecontrol import TimeControl

BATCH_SECONDS: Final = 30.0
"""About how long a batch plays."""
MAX_BATCH: Final = 64
"""The most games in one batch (a worker lost mid-batch costs at most its running game, but a
batch also holds games back from the other workers near the end of a run)."""
TYPICAL_PLIES: Final = 60
"""Plies of a typical game, to guess a game's length from its time control."""


def guess_game_seconds(tc: TimeControl | None) -> float | None:
    """About how long a game lasts under ``tc`` (both sides), None when the clock says nothing
    (nodes, depth, no clock): the first finished games tell then."""
    if tc is None:
        return None
    if tc.movetime_ms is not None:
        return TYPICAL_PLIES * tc.movetime_ms / 1000
    if tc.base_ms is None:
        return None
    # Engines spend a part of their clock; both sides' increments are spent in full.
    return (tc.base_ms + TYPICAL_PLIES * tc.inc_ms) / 1000


def pair_key(game: ScheduledGame) -> tuple[str, str]:
    """The two bots of a game, whatever their colours."""
    first, second = sorted((game.p1, game.p2))
    return first, second


class BatchPlanner:
    """Cuts the games to play into batches, lazily: a list is grouped by pairing in its own
    order (each batch starts with the earliest game not yet given out), an iterator (a league's
    night, which decides each game when it is asked for it) gives batches of consecutive games
    of one pairing."""

    def __init__(self, pending: Iterable[ScheduledGame | None], *, guess_s: float | None,
                 cap: int = MAX_BATCH) -> None:
        self.cap = max(1, cap)
        self._mean_s = guess_s
        self._known = isinstance(pending, Sequence)
        self._order: deque[ScheduledGame] = deque()
        self._by_pair: dict[tuple[str, str], deque[ScheduledGame]] = {}
        self._taken: set[str] = set()
        self._left = 0
        self._iterator: Iterator[ScheduledGame | None] = iter(())
        self._back: ScheduledGame | None = None
        self.waiting = False
        """The iterator said "nothing until a running game is over" (``None``: a knockout's or
        Swiss round waiting for its results); asking again later may give more games."""
        if isinstance(pending, Sequence):
            self._order.extend(pending)
            for game in pending:
                self._by_pair.setdefault(pair_key(game), deque()).append(game)
            self._left = len(pending)
        else:
            self._iterator = iter(pending)

    def observe(self, seconds: float) -> None:
        """A finished game's length: the batch size follows the games' real lengths."""
        seconds = max(seconds, 0.001)  # a game of no measurable length is still a game
        self._mean_s = seconds if self._mean_s is None else 0.8 * self._mean_s + 0.2 * seconds

    def size(self, slots: int) -> int:
        """How many games the next batch gets when ``slots`` games run at once."""
        if self.cap == 1:
            return 1
        size = self.cap if self._mean_s is None or self._mean_s <= 0 else int(
            BATCH_SECONDS / self._mean_s)
        if self._mean_s is None:
            size = min(size, 4)
        if self._known:  # the last games go to every slot, not into one batch
            size = min(size, math.ceil(self._left / (2 * max(1, slots))))
        size = max(2, min(self.cap, size))
        return size - size % 2

    def next_batch(self, slots: int) -> list[ScheduledGame]:
        """The next batch ([] when every game has been given out)."""
        size = self.size(slots)
        if self._known:
            return self._next_known(size)
        return self._next_streamed(size)

    def _next_known(self, size: int) -> list[ScheduledGame]:
        while self._order and self._order[0].id in self._taken:
            self._order.popleft()
        if not self._order:
            return []
        same = self._by_pair[pair_key(self._order[0])]
        batch: list[ScheduledGame] = []
        while same and len(batch) < size:
            game = same.popleft()
            if game.id not in self._taken:
                self._taken.add(game.id)
                batch.append(game)
        self._left -= len(batch)
        return batch

    def _next_streamed(self, size: int) -> list[ScheduledGame]:
        batch: list[ScheduledGame] = []
        self.waiting = False
        while len(batch) < size:
            game, self._back = self._back, None
            if game is None:
                try:
                    game = next(self._iterator)
                except StopIteration:
                    break
                if game is None:  # nothing more until a running game is over
                    self.waiting = True
                    break
            if batch and pair_key(game) != pair_key(batch[0]):
                self._back = game  # the first game of the next batch
                break
            batch.append(game)
        return batch


@dataclass
class BatchEvents:
    """What a batch tells the runner, game by game (called in trio's thread)."""

    started: Callable[[GameOrder, str], None]
    """A game began on a worker (its address)."""
    moved: Callable[[str, list[MoveRecord]], None]
    """New moves of a running game (by id)."""
    finished: Callable[[GameRecord], None]
    """A game's record (once per game, however often it was played)."""
    failed: Callable[[str, str], None]
    """A game that cannot be played (the referee raised, e.g. a bad opening): not journaled."""
    replayed: Callable[[str, str], None]
    """A game that was running on a worker that was lost: it will be played again."""
