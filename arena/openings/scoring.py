"""The first mover's results per opening: counts, score, interval and a test of balance.

One home for "how balanced did this opening play": ``arena openings prune`` drops openings
by it, the balance benchmark measures books with it, and the report's openings table can show
it. Every opening of a tournament is played by colour-swapped pairs, so the bots' strengths
cancel out of the first mover's score (p1, who moves first from the game's start): a balanced
opening gives the first mover half the points whoever plays it.

An opening is known by the position it leads to (:class:`OpeningKeys`): a book's ``moves``
line and a run's record of it (its start position text and its opening moves) meet there,
and two lines that transpose into one position are one opening.

The uncertainty is the Wilson score interval of the first mover's score, draws counted as
half a point each (as if each draw were half a win: a binomial variance, at least the true
one, so the interval is a little wide when there are draws and never empty when the games
all went one way). The test (:meth:`FirstMover.p_value`) is the exact two-sided binomial
(sign) test of the first mover's wins against its losses, under "each decisive game is a
coin toss": draws say nothing about which side an opening favours.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Final

from ratings.pairwise import score_interval
from ratings.sources import first_mover_points
from referee.games import GameError, get_game
from referee.record import GameRecord, Termination

RESULT_TERMINATIONS: Final = frozenset({Termination.NORMAL, Termination.ADJUDICATION,
                                        Termination.RESIGNATION})
"""Games whose result says something about the opening: those the rules, adjudication or a
resignation ended. A time forfeit, a crash or an illegal move is the bot's fault, not the
opening's, and an interrupted game has no result."""


@dataclass
class FirstMover:
    """The first mover's results from one opening."""

    wins: int = 0
    draws: int = 0
    losses: int = 0

    @property
    def games(self) -> int:
        return self.wins + self.draws + self.losses

    @property
    def points(self) -> float:
        return self.wins + self.draws / 2

    @property
    def score(self) -> float | None:
        """The first mover's share of the points (0.5: balanced), None without games."""
        return self.points / self.games if self.games else None

    def add(self, first_mover_points: float) -> None:
        if first_mover_points == 1.0:
            self.wins += 1
        elif first_mover_points == 0.0:
            self.losses += 1
        else:
            self.draws += 1

    def interval(self, confidence: float = 0.95) -> tuple[float, float]:
        """The Wilson interval of the score at ``confidence`` ((0, 1) without games)."""
        return score_interval(self.points, self.games, confidence)

    def p_value(self) -> float:
        """The exact two-sided binomial test of wins against losses at even odds (1.0 with no
        decisive game): how likely results at least this lopsided are from a balanced opening."""
        decisive = self.wins + self.losses
        if not decisive:
            return 1.0
        from scipy.stats import binomtest  # scipy only where a test is made

        return float(binomtest(self.wins, decisive, 0.5).pvalue)

    def text(self, confidence: float = 0.95) -> str:
        """``p1 62% [45-77%] of 24 (+11 =8 -5)``; ``no games`` without any."""
        if not self.games:
            return "no games"
        low, high = self.interval(confidence)
        return (f"p1 {100 * self.points / self.games:.0f}% [{100 * low:.0f}-{100 * high:.0f}%] "
                f"of {self.games} (+{self.wins} ={self.draws} -{self.losses})")


class OpeningKeys:
    """The position an opening leads to, as text: the key that matches a book's openings with
    the games a run played from them. Each distinct opening is played out once."""

    def __init__(self, game: str, options: Mapping[str, str]) -> None:
        self.rules = get_game(game)
        self.options = dict(options)
        self._cache: dict[tuple[str, tuple[str, ...]], str | None] = {}

    def key(self, start_position: str, moves: Iterable[str]) -> str | None:
        """The position after ``moves`` from ``start_position`` (empty: the start), None when
        the rules cannot play it (a record of another game's options, say)."""
        start = "" if start_position in ("", "startpos") else start_position
        index = (start, tuple(moves))
        if index not in self._cache:
            try:
                board = self.rules.new(start or None, index[1], **self.options)
                self._cache[index] = board.position()
            except GameError:
                self._cache[index] = None
        return self._cache[index]


@dataclass
class Tally:
    """The games of some runs, sorted by the opening they were played from."""

    by_key: dict[str, FirstMover] = field(default_factory=dict)
    counted: int = 0
    """Games counted (finished by the rules, adjudication or a resignation)."""
    faulted: int = 0
    """Games left out because a bot's fault ended them, or that have no result."""
    other_game: int = 0
    """Games of another game than the book's, left out."""
    unreadable: int = 0
    """Games whose opening the rules could not play (other game options), left out."""

    def add(self, record: GameRecord, game: str, keys: OpeningKeys) -> None:
        if record.game != game:
            self.other_game += 1
            return
        if record.termination not in RESULT_TERMINATIONS:
            self.faulted += 1
            return
        key = keys.key(record.start_position, record.opening)
        if key is None:
            self.unreadable += 1
            return
        points = first_mover_points(record.result)
        if points is None:
            self.faulted += 1
            return
        self.by_key.setdefault(key, FirstMover()).add(points)
        self.counted += 1
