"""Where a game's two bot connections come from and where they go after it.

:func:`referee.match.play_game` asks a :class:`BotSource` for each side's connection
(handshaken, options set) and hands it back with the finished record. The default,
:class:`referee.match.FreshBots`, starts a process per game and ends it after the game; the
tournament runner passes a pool that keeps processes between games (``arena.bots.pool``). The
question "may this process play another game?" is answered here, from the record, once for every
caller: :func:`faulted`.
"""

from __future__ import annotations

from typing import Protocol

from referee.botspec import BotSpec
from referee.connection import BotConnection
from referee.record import PROCESS_FAULTS, GameRecord


def faulted(record: GameRecord, side: int) -> bool:
    """Did ``side``'s bot end this game by a fault of its own (or share a two-sided fault)?"""
    if record.termination not in PROCESS_FAULTS:
        return False
    return record.winner is None or record.winner == 1 - side


class BotSource(Protocol):
    """Hands out connections for a game and takes them back after it."""

    async def acquire(self, spec: BotSpec, game_id: str) -> BotConnection:
        """A connection to ``spec``'s bot, ready for ``new_game``; raises ``BotError`` or
        ``BotStartError`` (nothing left running) when the bot cannot be started."""
        ...

    # A source may also have ``take_idle(spec, game_id) -> BotConnection | None``: a
    # connection it holds ready, handed out without awaiting anything (the pool's idle
    # processes), or None; :func:`referee.match.play_game` asks it first and awaits
    # :meth:`acquire` only for the sides it did not fill.

    async def release(self, connection: BotConnection, side: int,
                      record: GameRecord | None) -> None:
        """Take a connection back after its game; ``record`` is None when the game did not
        finish (cancelled, or the referee raised). Shielded by the caller; never raises."""
        ...
