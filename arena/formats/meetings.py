"""The rounds of a format whose pairings follow the results (knockout, Swiss): who meets whom in
each round, who has a bye, and how far the results go.

Pure: a format's rounds are a function of the field (the bots in config order, which is also
their seeding), the format's settings and the results read so far (game id -> the first
mover's points). Round k+1 is known once every game of round k has a result, so the same
journal always gives the same rounds and the same game ids (``r2-p01-g1``): a stopped run
resumes by playing the ids it is missing, as a round-robin does. :mod:`arena.formats.schedule` turns
the rounds into games; the report reads them back to draw the bracket or the standings.
"""

from __future__ import annotations

from collections.abc import Mapping

import msgspec

Results = Mapping[str, float]
"""Game id -> points of the bot that moved first in it (1, 0.5 or 0)."""


def pairing_width(players: int) -> int:
    """Digits of the pairing number in a game id: enough for the largest round (one pairing
    per two bots), at least two, so that ids sort and stay the same whatever the results."""
    return max(2, len(str(max(1, players // 2))))


class Meeting(msgspec.Struct, frozen=True):
    """Two bots paired in one round, playing ``games`` games: colour pairs (one opening,
    colours swapped), ``first`` moving first in the odd-numbered games."""

    round: int
    pairing: int
    """1-based, per round (board order in a Swiss round, bracket order in a knockout one)."""
    first: str
    second: str
    games: int
    """Games known to be played: the pairing's games, plus a knockout's tie-break pairs."""
    key: str
    """``r2-p01``: the prefix of the meeting's game ids."""

    def game_id(self, number: int) -> str:
        return f"{self.key}-g{number}"

    def pair_id(self, number: int) -> str:
        """The colour pair of game ``number`` (``r2-p01-k1`` holds games 1 and 2)."""
        return f"{self.key}-k{(number + 1) // 2}"

    def players_of(self, number: int) -> tuple[str, str]:
        """(who moves first, who second) in game ``number``."""
        return (self.first, self.second) if number % 2 else (self.second, self.first)

    def points(self, results: Results) -> tuple[float, float, int]:
        """(points of ``first``, points of ``second``, games with a result)."""
        a = b = 0.0
        played = 0
        for number in range(1, self.games + 1):
            score = results.get(self.game_id(number))
            if score is None:
                continue
            played += 1
            if number % 2:
                a, b = a + score, b + 1 - score
            else:
                a, b = a + 1 - score, b + score
        return a, b, played

    def complete(self, results: Results) -> bool:
        return self.points(results)[2] == self.games


class Round(msgspec.Struct, frozen=True):
    """One round: its meetings, and the bots with a bye (no game this round)."""

    number: int
    meetings: tuple[Meeting, ...]
    byes: tuple[str, ...] = ()
    winners: tuple[str, ...] = ()
    """A knockout round's bots that go on, in bracket order (byes included); empty until
    every meeting of the round is decided, and for a Swiss round."""


class Progression(msgspec.Struct, frozen=True):
    """The rounds known from the results so far."""

    rounds: tuple[Round, ...]
    final: bool
    """True when no further round will come: every game the format plays is in ``rounds``."""
    expected_games: int
    """Games of the whole tournament as far as can be told now (a knockout's tie-break pairs
    not yet needed are not counted)."""

    def meetings(self) -> list[Meeting]:
        return [m for r in self.rounds for m in r.meetings]


def make_meeting(round_no: int, pairing: int, first: str, second: str, games: int,
                 width: int) -> Meeting:
    return Meeting(round_no, pairing, first, second, games, f"r{round_no}-p{pairing:0{width}d}")
