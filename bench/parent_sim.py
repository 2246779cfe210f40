"""Simulated tests of a new version against its parent: colour pairs drawn from a known
difference, the verdict (:mod:`ratings.verdict`) taken night by night. No processes.

Shared by ``bench_league`` (games until a verdict) and ``tests/test_ratings_verdict.py`` (the
acceptance: a version 50 Elo stronger decided better within :data:`BUDGET_GAMES`, an identical
one decided better in at most alpha of 200 seeded tests).

A colour pair is two games from one opening, colours swapped. Openings are not equal: each
pair's opening gives the first mover an extra advantage drawn from ``N(0, OPENING_SD)``, the
same in both games, so the pair's two results are correlated as real paired games are (what
the pentanomial statistic is for).
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Final

import numpy as np

from ratings.draws import outcome_probabilities
from ratings.pairwise import Pentanomial
from ratings.verdict import Verdict, VerdictSettings, parent_verdict

BUDGET_GAMES: Final = 1000
"""Games within which a version 50 Elo stronger than its parent is decided better (at the
default bounds, in at least 95% of 200 seeded tests: ``tests/test_ratings_verdict.py``; in
practice all of them, the longest taking about 900)."""
PAIRS_PER_NIGHT: Final = 10
"""Colour pairs of the two versions in one night: a league night of 200 games gives the parent
tests about 10% of its games per test."""
DRAW_RATE: Final = 0.3
WHITE: Final = 20.0
"""The first mover's advantage, Elo."""
OPENING_SD: Final = 60.0
"""Spread of the openings' own advantage to the first mover, Elo."""


def night_pairs(elo: float, pairs: int, rng: np.random.Generator) -> Pentanomial:
    """``pairs`` colour pairs of a new version ``elo`` (logistic Elo) above its parent, from
    the new version's point of view."""
    bias = WHITE + rng.normal(0.0, OPENING_SD, pairs)

    def games(diff: np.ndarray) -> np.ndarray:
        """The first mover's scores for rating differences ``diff`` (first minus second)."""
        expected = 1.0 / (1.0 + 10.0 ** (-diff / 400.0))
        win, draw, _ = outcome_probabilities(expected, DRAW_RATE)
        u = rng.random(diff.size)
        return np.where(u < win, 1.0, np.where(u < win + draw, 0.5, 0.0))

    first = games(elo + bias)  # the new version moves first
    second = 1.0 - games(-elo + bias)  # the parent moves first; the new version's score
    total = first + second
    return Pentanomial(
        ll=int(np.sum(total == 0.0)), ld=int(np.sum(total == 0.5)),
        wl=int(np.sum((total == 1.0) & (first != 0.5))),
        dd=int(np.sum((total == 1.0) & (first == 0.5))),
        wd=int(np.sum(total == 1.5)), ww=int(np.sum(total == 2.0)))


def simulate(elo: float, seed: int, settings: VerdictSettings | None = None,
             pairs_per_night: int = PAIRS_PER_NIGHT) -> Verdict:
    """One test, played night by night until it closes (decided, or ``max_games``)."""
    rng = np.random.default_rng(seed)

    def nights() -> Iterator[Pentanomial]:
        while True:
            yield night_pairs(elo, pairs_per_night, rng)

    return parent_verdict(nights(), settings)
