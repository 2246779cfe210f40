"""Records of games played as rounds of parties (Donkan): what one partie was, and the round.

They belong to the rules, not to the referee: a rules class reports its parties through
:meth:`referee.games.base.Game.round_state`, the referee copies them into the game record and
tells the bots, and the journal and reports read them back. Keeping them here leaves
``referee/games`` importing nothing above itself.
"""

from __future__ import annotations

import msgspec


class PartieRecord(msgspec.Struct, omit_defaults=True):
    """One partie inside a round."""

    starter: int
    """Who moved first in it (0 = p1, 1 = p2)."""
    winner: int | None
    """Who scored (0 or 1), None for a partie that ended with no point."""
    points: int
    """Points scored by ``winner`` (Donkan: 1 for a king captured, 2 for the castle, 0 for none)."""
    plies: int
    reason: str
    """Why it ended, a short word (Donkan: ``king``, ``castle``, ``repetition``, ``ply-cap``)."""


class RoundState(msgspec.Struct, frozen=True):
    """The parties finished so far in a round and its score, as the referee records them."""

    parties: tuple[PartieRecord, ...]
    """Oldest first, since the game object was built."""
    score: tuple[int, int]
    """Points of p1 and p2 in the round."""
