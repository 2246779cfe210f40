"""A candidate scored by a quick match: the engine against itself, from both colours.

Why a second scorer: a search score at a fixed depth is the engine's guess of a position's
value, and a guess can lean one way for a whole game. The sample alpha-beta's Dvonn score a
few moves into the movement phase swings with the parity of the depth (a book scored at
depth 3 played 30% for the first mover, at depth 4 65%), and in draughts an opening scored
even at depth 8 still left the first mover behind. A match asks the question a tournament
asks: from this opening, does the side that moves first score half the points when the same
engine plays both sides? ``arena openings make --scorer match`` plays each candidate that
way (:func:`play_pairs`) and keeps it when the first mover's score is within the window of
50% (:meth:`arena.openings.maker.Scored.balanced`).

Each pair is two games from the candidate, colours swapped, between two copies of the
engine that differ only in their ``Seed`` option (the order the sample bots break ties in):
with one seed both games would be the same game. Pair ``k`` plays seeds ``S + 2k`` and
``S + 2k + 1`` (``S``: ``--match-seed``), set before each pair on the worker's two
processes, which play pair after pair (``uginewgame`` before each game). An engine that
declares no ``Seed`` option is not sent one; its two games of a pair may then be one game
played twice.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Final

from arena.openings.scoring import RESULT_TERMINATIONS, FirstMover
from ratings.sources import first_mover_points
from referee.adjudication import Adjudication
from referee.connection import BotConnection
from referee.match import play_on
from referee.order import GameOrder
from referee.timecontrol import TimeControl

SEED_OPTION: Final = "Seed"
"""The engine option the two copies of a pair differ in (the sample bots' tie-break order)."""
MATCH_MAX_PLIES: Final = 300
"""A game of a match that reaches this many plies (opening included) is a draw: the same cap
as the balance benchmark's, so that a long shuffle ends as it would in a tournament."""
GAME_TIMEOUT_S: Final = 900.0
"""How long one game of a match may take before the engine is taken to hang."""


class UnfinishedGame(Exception):
    """A game of a match ended by a bot's fault (crash, time, illegal move) or ran out of
    time: it says nothing about the opening. The maker restarts the engine and tries once
    more."""


@dataclass(frozen=True)
class MatchPlan:
    """How each candidate is played: ``pairs`` colour-swapped pairs at ``limit`` per move."""

    pairs: int
    seed: int
    """``S``: pair ``k`` plays the engine with ``Seed`` S + 2k against S + 2k + 1."""
    limit: TimeControl
    """Each move's limit (``depth=N``, ``nodes=N`` or ``st=S``), the same for both sides."""
    max_plies: int = MATCH_MAX_PLIES

    def seeds(self, pair: int) -> tuple[int, int]:
        return self.seed + 2 * pair, self.seed + 2 * pair + 1


async def play_pairs(copies: Sequence[BotConnection], game: str, options: dict[str, str],
                     moves: Sequence[str], plan: MatchPlan) -> FirstMover:
    """The first mover's results over ``plan.pairs`` pairs from the opening ``moves``, played
    by the two handshaken ``copies`` of the engine (left open for the next candidate)."""
    import trio  # only a make by matches needs it

    first, second = copies
    adjudication = Adjudication(max_plies=plan.max_plies, draw_rules=True)
    result = FirstMover()
    for pair in range(plan.pairs):
        for copy, seed in zip(copies, plan.seeds(pair), strict=True):
            if SEED_OPTION in copy.options:
                await copy.set_options({SEED_OPTION: seed})
        for p1, p2 in ((first, second), (second, first)):
            order = GameOrder.checked(game, p1.spec, p2.spec, tc=plan.limit, opening=moves,
                                      adjudication=adjudication, game_options=options)
            with trio.move_on_after(GAME_TIMEOUT_S) as scope:
                record = await play_on(order, (p1, p2))
            if scope.cancelled_caught:
                raise UnfinishedGame(f"a game took longer than {GAME_TIMEOUT_S:.0f} s")
            points = first_mover_points(record.result)
            if record.termination not in RESULT_TERMINATIONS or points is None:
                raise UnfinishedGame(f"a game ended by {record.termination}: {record.reason}")
            result.add(points)
    return result
