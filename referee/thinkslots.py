"""Thinking slots: at most K bots think at once on a clock, however many games are open.

Many games may be open at once (their bots started, the referee's work for them overlapping),
but a bot that thinks on the wall clock (a ``go`` with a clock or a move time) needs a core of
its own: 32 engines asked for a 20 ms move at once on 2 cores cannot answer in time, and every
game forfeits for the machine's sake, not the bots'. So a game asks for one of K slots before
it writes a timed ``go``, and gives it back when the move is read (or the move failed). The
wait comes before the ``go``: the bot's clock starts when it has its slot, and a game that
waits is simply paused; its other bot is not thinking either, since the protocol has no
pondering (protocol/SPEC.md: a ``ponder`` move is ignored). Moves limited by nodes or depth
alone are not gated: no clock runs for them, and they take what cores they find.

A timed game's bot that has to be started (launched and handshaken, not an idle one from the
pool) takes a slot for its start too: an engine loading is as busy as one searching
(Fairy-Stockfish: about 0.15 s of CPU before it reads a line), and 64 of them loading at the
start of a run at 32 games at once made the first searches of a 2-core machine forfeit in
nearly every game (60 of 64 at ``st=0.02``, each on its first move out of the book).

The slots are trio's :class:`trio.CapacityLimiter` (first come, first served: a slot that is
given back goes to the game that has waited longest), one per trio loop that plays games: a
run's own process, or each referee process with its share
(:func:`arena.run.referees.referees_for` says how many). The wait is timed and handed to the
latency record (:mod:`referee.latency`), apart from the referee's own turnaround, so that a
long queue shows as a queue.
"""

from __future__ import annotations

import contextlib
from collections.abc import AsyncIterator

import trio


class ThinkSlots:
    """K slots shared by the games of one trio loop (see the module's doc)."""

    def __init__(self, limit: int) -> None:
        if limit < 1:
            raise ValueError(f"think slots: expected at least 1, got {limit}")
        self.limit = limit
        self._limiter = trio.CapacityLimiter(limit)

    async def acquire(self) -> float:
        """Wait for a slot (first come, first served); returns the seconds waited, on trio's
        clock (0.0 when one was free: then nothing is awaited, the fast path of a run whose
        slots are not all taken). Call :meth:`release` after the move, also when it failed."""
        try:
            self._limiter.acquire_nowait()
        except trio.WouldBlock:
            began = trio.current_time()
            await self._limiter.acquire()
            return trio.current_time() - began
        return 0.0

    @contextlib.asynccontextmanager
    async def held(self) -> AsyncIterator[float]:
        """A slot for the ``async with`` block (:meth:`acquire` and :meth:`release`); yields
        the seconds waited."""
        waited = await self.acquire()
        try:
            yield waited
        finally:
            self.release()

    def release(self) -> None:
        """Give the slot of the calling task back (to the game that has waited longest)."""
        self._limiter.release()

    @property
    def thinking(self) -> int:
        """Slots taken now."""
        return self._limiter.borrowed_tokens

    @property
    def waiting(self) -> int:
        """Games waiting for a slot now."""
        return self._limiter.statistics().tasks_waiting


__all__ = ["ThinkSlots"]
