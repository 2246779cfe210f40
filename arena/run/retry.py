"""Playing a game again when the machine, not a bot, kept it from starting.

A :class:`~referee.process.faults.MachineFault` (too many open files, no process slots left, no
memory, disk full) has no result; it often passes (other games end and free their files and
processes), so the game is tried again after a wait that doubles, a bounded number of times.
When it does not pass, the fault is raised to the runner, which stops the run with a message
and a non-zero status; the game was never journaled, so a resume plays it.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Final, TypeVar

import trio

from referee.process.faults import MachineFault

START_ATTEMPTS: Final = 6
"""Tries of one game whose bots cannot be started for the machine's reasons."""
START_BACKOFF_S: Final = 0.5
"""Wait before the second try; doubled before each next one (0.5 + 1 + 2 + 4 + 8 s in all)."""

T = TypeVar("T")


async def retry_machine_faults(play: Callable[[], Awaitable[T]],
                               on_retry: Callable[[MachineFault, int, float], None]) -> T:
    """``await play()``, again after each :class:`MachineFault` up to :data:`START_ATTEMPTS`
    tries in all; ``on_retry(fault, attempt, wait)`` hears of each retry. The last fault is
    raised."""
    wait = START_BACKOFF_S
    for attempt in range(1, START_ATTEMPTS):
        try:
            return await play()
        except MachineFault as fault:
            on_retry(fault, attempt, wait)
        await trio.sleep(wait)
        wait *= 2
    return await play()
