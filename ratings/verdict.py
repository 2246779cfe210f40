"""The verdict on a new version: is it better than its parent? A pentanomial SPRT over their
colour pairs, checked after each night, across nights, until it decides.

An author's question after a submission is not "where does it rank?" but "is v2 better than
v1?". The head-to-head games of the two versions answer it with a sequential probability
ratio test (:mod:`ratings.sprt`, fishtest's generalised LLR over colour pairs), H0: the new
version is at most ``elo0`` stronger, H1: at least ``elo1``. Its games are played a few at a
time across nights (the pairing gives them a share of every night), so the test is looked at
after each night: the first night whose cumulative LLR crosses a bound decides, and games the
two play afterwards no longer change the verdict (a sequential test stops where it crossed;
looking only once a night makes it slightly more cautious than one looked at after every pair,
never less). A test that has not decided after ``max_games`` stops too: "undecided after N
games", so that a change too small to measure does not take a share of every night forever.

Elo here is the logistic Elo of fishtest (400 log10), about 1% narrower than Ordo's points.
The defaults suit bots that differ by tens to hundreds of points, not a chess engine's patch:
H0 at 0, H1 at +30, 5% errors both ways. A version 50 stronger is decided better in a few
hundred games (``python -m bench league`` prints the figures); an identical one is decided
better in at most 5% of tests.

Nothing here reads a file: the caller hands the per-night pentanomial counts of the pair
(``Tally.head_to_head``) from the new version's point of view.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from enum import StrEnum
from typing import Final

from ratings.pairwise import PAIR_SCORES, Pentanomial
from ratings.sprt import EloModel, bounds, llr_pentanomial

DEFAULT_ELO0: Final = 0.0
DEFAULT_ELO1: Final = 30.0
DEFAULT_ALPHA: Final = 0.05
DEFAULT_BETA: Final = 0.05
DEFAULT_MAX_GAMES: Final = 2000


class Outcome(StrEnum):
    BETTER = "better"
    NOT_BETTER = "not better"
    UNDECIDED = "undecided"


@dataclass(frozen=True)
class VerdictSettings:
    """The test's bounds (``[league.verdict]`` of ``league.toml``): H0 ``elo0``, H1 ``elo1``
    (logistic Elo of the new version over its parent), the errors ``alpha`` (deciding better
    when it is not) and ``beta`` (missing an improvement of ``elo1``), and ``max_games`` after
    which an undecided test stops."""

    elo0: float = DEFAULT_ELO0
    elo1: float = DEFAULT_ELO1
    alpha: float = DEFAULT_ALPHA
    beta: float = DEFAULT_BETA
    max_games: int = DEFAULT_MAX_GAMES
    elo_model: EloModel = "logistic"

    def __post_init__(self) -> None:
        if not self.elo0 < self.elo1:
            raise ValueError(f"verdict: elo0 must be below elo1, got {self.elo0:g} and "
                             f"{self.elo1:g}")
        for name, value in (("alpha", self.alpha), ("beta", self.beta)):
            if not 0.0 < value < 0.5:
                raise ValueError(f"verdict: {name} must be between 0 and 0.5, got {value:g}")
        if self.max_games < 2:
            raise ValueError(f"verdict: max_games must be at least 2, got {self.max_games}")

    @property
    def bounds(self) -> tuple[float, float]:
        """(lower, upper) LLR bounds."""
        return bounds(self.alpha, self.beta)


@dataclass(frozen=True)
class Verdict:
    """Where a version's test against its parent stands."""

    outcome: Outcome
    llr: float
    """The LLR the verdict rests on: at the night it decided, else now."""
    lower: float
    upper: float
    penta: Pentanomial
    """The colour pairs counted (up to the deciding night)."""
    decided_at: int | None
    """The index of the night (0 = the first handed in) that closed the test; None while
    open."""
    closed: bool
    """Decided, or stopped undecided at ``max_games``: the pairing no longer favours it."""

    @property
    def games(self) -> int:
        return 2 * self.penta.pairs

    @property
    def score(self) -> float:
        """The new version's average score over the counted pairs (NaN without any)."""
        five = self.penta.five()
        pairs = sum(five)
        if not pairs:
            return float("nan")
        return sum(n * s for n, s in zip(five, PAIR_SCORES, strict=True)) / pairs

    @property
    def worse(self) -> bool:
        """Decided not better and scored below half against its parent: a regression."""
        return self.outcome is Outcome.NOT_BETTER and self.score < 0.5

    def describe(self) -> str:
        """One line: ``better (LLR 3.01 >= 2.94, 412 games)``, ``undecided after 120 games
        (LLR 0.82, bounds -2.94, 2.94)``..."""
        if self.outcome is Outcome.BETTER:
            return f"better (LLR {self.llr:.2f} >= {self.upper:.2f}, {self.games} games)"
        if self.outcome is Outcome.NOT_BETTER:
            what = "worse" if self.worse else "not better"
            return f"{what} (LLR {self.llr:.2f} <= {self.lower:.2f}, {self.games} games)"
        ended = "stopped " if self.closed else ""
        return (f"{ended}undecided after {self.games} games (LLR {self.llr:.2f}, bounds "
                f"{self.lower:.2f}, {self.upper:.2f})")


def parent_verdict(nights: Iterable[Pentanomial],
                   settings: VerdictSettings | None = None) -> Verdict:
    """The verdict from the colour pairs of the new version against its parent, one
    :class:`Pentanomial` per night in order, from the new version's point of view."""
    settings = settings or VerdictSettings()
    lower, upper = settings.bounds
    total = Pentanomial()
    llr = 0.0
    for index, night in enumerate(nights):
        if not night.pairs:
            continue
        total = _add(total, night)
        llr = llr_pentanomial(total, settings.elo0, settings.elo1, settings.elo_model)
        if llr >= upper:
            return Verdict(Outcome.BETTER, llr, lower, upper, total, index, True)
        if llr <= lower:
            return Verdict(Outcome.NOT_BETTER, llr, lower, upper, total, index, True)
        if 2 * total.pairs >= settings.max_games:
            return Verdict(Outcome.UNDECIDED, llr, lower, upper, total, index, True)
    return Verdict(Outcome.UNDECIDED, llr, lower, upper, total, None, False)


def _add(a: Pentanomial, b: Pentanomial) -> Pentanomial:
    return Pentanomial(a.ll + b.ll, a.ld + b.ld, a.wl + b.wl, a.dd + b.dd, a.wd + b.wd,
                       a.ww + b.ww)
