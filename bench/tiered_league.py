"""A simulated league of versions in tiers, played night by night under a pairing policy, for
``bench_league``. No processes: games are drawn from known strengths.

The field (issue 35): three tiers 600 points apart (a strong engine, a decent heuristic, a
random mover) of :data:`TIER_SIZE` versions each, :data:`TIER_STEP` points apart inside a tier
(with a little jitter); from the second night on, :data:`NEW_PER_NIGHT` new version arrives,
a child of a random earlier version and :data:`NEW_GAIN` points stronger than it. (The issue's
example has ten versions a tier; with twenty, Kendall's tau between two policies rests on some
fifty discordant pairs instead of a dozen, so one seed's comparison is not a coin toss.) Each
night plays the same number of colour pairs under every policy, in blocks between refits as a
league night does:

- ``"today"``: the league before issue 35: the maximum-likelihood fit with one virtual draw
  per player (``separated="prior"``), placement spread over the whole field, the information
  pairing without the lopsided-pair rule and without parent tests;
- ``"new"``: the Bayesian fit (a new version's prior centred on its parent), placement with
  the parent and the lopsided rule, the parent tests given their share;
- ``"round-robin"``: every pair of the night's versions in turn, fewest games first.

Every policy is judged by the same Bayesian fit of its games (what the league shows). Results
are common random numbers (:meth:`League.play`)."""

from __future__ import annotations

import random
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Final, Literal

import numpy as np

from arena.league.pairing import Field, choose_pairs, met_from_counts, placement
from ratings import RatingFit, aggregate_arrays, fit_ratings
from ratings.draws import outcome_probabilities
from ratings.model import SCALES
from ratings.pairwise import Pentanomial
from ratings.prior import Prior, version_parents
from ratings.verdict import Verdict, parent_verdict

Policy = Literal["today", "new", "round-robin"]
POLICIES: Final[tuple[Policy, ...]] = ("today", "new", "round-robin")

TIERS: Final = 3
TIER_SIZE: Final = 20
TIER_GAP: Final = 600.0
TIER_STEP: Final = 15.0
"""Distance between neighbours inside a tier (before the jitter)."""
TIER_JITTER: Final = 10.0
NIGHTS: Final = 10
NIGHT_PAIRS: Final = 400
"""Colour pairs a night (800 games, about 12 per version)."""
NEW_PER_NIGHT: Final = 1
NEW_GAIN: Final = 50.0
BLOCK: Final = 25
"""Colour pairs between two refits."""
PLACEMENT_OPPONENTS: Final = 4
WHITE: Final = 20.0
DRAW_RATE: Final = 0.3
LOPSIDED_SCORE: Final = 0.95
BETA: Final = SCALES["ordo"]


@dataclass
class LeagueResult:
    """What one policy made of one seed's league."""

    fit: RatingFit
    truth: np.ndarray
    """True strength per player of ``fit``."""
    games: int
    lopsided_games: int
    """Games of pairs whose true expected score (no first-move advantage) is beyond 95%."""
    verdicts: dict[str, Verdict] = field(default_factory=dict)
    """Per new version, its test against its parent at the end."""


class League:
    """The versions, their true strengths, and every game played so far (as arrays)."""

    def __init__(self, seed: int) -> None:
        self.seed = seed
        self.rng = np.random.default_rng(seed)
        self.pairs_met: dict[tuple[str, str], int] = {}
        self.names: list[str] = []
        self.truth: list[float] = []
        for tier in range(TIERS):
            centre = (TIERS // 2 - tier) * TIER_GAP
            for k in range(TIER_SIZE):
                self.names.append(f"t{tier}b{k}@1")
                step = TIER_STEP * (k - (TIER_SIZE - 1) / 2)
                self.truth.append(centre + step + float(self.rng.normal(0.0, TIER_JITTER)))
        self.index = {n: i for i, n in enumerate(self.names)}
        self.first: list[np.ndarray] = []
        self.second: list[np.ndarray] = []
        self.score: list[np.ndarray] = []
        self.tonight: dict[tuple[str, str], Pentanomial] = {}

    def arrive(self, count: int) -> list[str]:
        """``count`` new versions, each a child of a random version, :data:`NEW_GAIN` above it."""
        out = []
        for _ in range(count):
            parent = self.names[int(self.rng.integers(len(self.names)))]
            name, _, number = parent.rpartition("@")
            latest = max(int(n.rpartition("@")[2]) for n in self.names
                         if n.rpartition("@")[0] == name)
            child = f"{name}@{latest + 1}"
            self.index[child] = len(self.names)
            self.names.append(child)
            self.truth.append(self.truth[self.index[parent]] + NEW_GAIN)
            out.append(child)
        return out

    def play(self, pairs: Sequence[tuple[str, str]]) -> None:
        """Each pair twice, colours swapped; the colour pairs of every two versions tonight
        are kept for the verdicts.

        The results are common random numbers: the ``k``-th colour pair of two versions draws
        the same two numbers whichever policy chose it, so that two policies are compared on
        their choices, not on their luck."""
        if not pairs:
            return
        a = np.array([self.index[x] for x, _ in pairs], dtype=np.int64)
        b = np.array([self.index[y] for _, y in pairs], dtype=np.int64)
        truth = np.array(self.truth)
        first, second = np.concatenate([a, b]), np.concatenate([b, a])
        expected = 1.0 / (1.0 + np.exp(-BETA * (truth[first] + WHITE - truth[second])))
        win, draw, _ = outcome_probabilities(expected, DRAW_RATE)
        u = np.empty(first.size)
        k = len(pairs)
        for n, (x, y) in enumerate(pairs):
            key = (x, y) if x < y else (y, x)
            met = self.pairs_met.get(key, 0)
            self.pairs_met[key] = met + 1
            ix, iy = self.index[key[0]], self.index[key[1]]
            draws = np.random.default_rng([self.seed, ix, iy, met]).random(2)
            # the game where the first-named of the sorted pair moves first takes draws[0]
            u[n], u[k + n] = (draws[0], draws[1]) if x == key[0] else (draws[1], draws[0])
        score = np.where(u < win, 1.0, np.where(u < win + draw, 0.5, 0.0))
        self.first.append(first)
        self.second.append(second)
        self.score.append(score)
        for (x, y), s1, s2 in zip(pairs, score[:k].tolist(), (1.0 - score[k:]).tolist(),
                                  strict=True):
            key, p1, p2 = ((x, y), s1, s2) if x < y else ((y, x), 1.0 - s1, 1.0 - s2)
            self.tonight[key] = self.tonight.get(key, Pentanomial()).add(p1, p2)

    def counts_fit(self, active: Sequence[str], prior: Prior | None) -> RatingFit:
        """The fit of every game so far over the versions that arrived; ``prior`` None: the
        fit of the league before issue 35 (one virtual draw per player)."""
        names = self.names
        if self.first:
            f, s, sc = (np.concatenate(x) for x in (self.first, self.second, self.score))
        else:
            f = s = np.zeros(0, dtype=np.int64)
            sc = np.zeros(0)
        counts = aggregate_arrays(names, f, s, sc)
        if prior is None:
            return fit_ratings(counts, separated="prior")
        return fit_ratings(counts, prior=prior)

    def truth_of(self, fit: RatingFit) -> np.ndarray:
        return np.array([self.truth[self.index[p]] for p in fit.players])

    def lopsided(self) -> tuple[int, int]:
        """(games, games of pairs whose true expected score is beyond 95%)."""
        if not self.first:
            return 0, 0
        truth = np.array(self.truth)
        f, s = np.concatenate(self.first), np.concatenate(self.second)
        p = 1.0 / (1.0 + np.exp(-BETA * np.abs(truth[f] - truth[s])))
        return int(f.size), int(np.sum(p > LOPSIDED_SCORE))


def run(policy: Policy, seed: int, nights: int = NIGHTS, night_pairs: int = NIGHT_PAIRS
        ) -> LeagueResult:
    """One league of ``nights`` nights under ``policy``; the same versions and arrivals for
    every policy of a seed."""
    league = League(seed)
    rng = random.Random(seed)
    tests: dict[str, list[Pentanomial]] = {}
    newcomers = list(league.names)
    for night in range(nights):
        if night:
            newcomers = league.arrive(NEW_PER_NIGHT)
            tests.update({c: [] for c in newcomers})
        active = list(league.names)
        parents = version_parents(active)
        prior = Prior(parents=parents) if policy != "today" else None
        league.tonight = {}
        left = night_pairs
        if policy != "round-robin":
            fit = league.counts_fit(active, prior) if night else None
            field_ = _field(league, active, fit, parents, tests, policy)
            first = placement(newcomers, field_, PLACEMENT_OPPONENTS)[:left]
            league.play(first)
            left -= len(first)
        while left > 0:
            block = min(BLOCK, left)
            if policy == "round-robin":
                field_ = Field(tuple(active), {}, {}, _met(league, active))
                pairs = choose_pairs(field_, left, rng, "round-robin")
                block = left
            else:
                fit = league.counts_fit(active, prior)
                field_ = _field(league, active, fit, parents, tests, policy)
                if policy == "new":
                    pairs = choose_pairs(field_, block, rng)
                else:
                    pairs = choose_pairs(field_, block, rng, test_share=0.0, lopsided=None)
            league.play(pairs)
            left -= block
        for child in tests:
            parent = version_parents(active)[child]
            key = (child, parent) if child < parent else (parent, child)
            penta = league.tonight.get(key, Pentanomial())
            tests[child].append(penta if child < parent else penta.flipped())
    final = league.counts_fit(league.names, Prior(parents=version_parents(league.names)))
    games, lopsided = league.lopsided()
    parents = version_parents(league.names)
    return LeagueResult(final, league.truth_of(final), games, lopsided,
                   {c: parent_verdict(nights_) for c, nights_ in tests.items()
                    if c in parents})


def _met(league: League, active: Sequence[str]) -> dict[tuple[str, str], int]:
    if not league.first:
        return {}
    counts = aggregate_arrays(league.names, np.concatenate(league.first),
                              np.concatenate(league.second), np.concatenate(league.score))
    return met_from_counts(counts)


def _field(league: League, active: Sequence[str], fit: RatingFit | None,
           parents: dict[str, str], tests: dict[str, list[Pentanomial]], policy: Policy
           ) -> Field:
    met = met_from_counts(fit.counts) if fit is not None else {}
    if policy != "new":
        return Field.from_fit(active, fit, met)
    open_tests = [(c, parents[c]) for c, nights in tests.items()
                  if c in parents and not parent_verdict(nights).closed]
    return Field.from_fit(active, fit, met, parents, open_tests)


def kendall_tau(fitted: np.ndarray, truth: np.ndarray) -> float:
    """Kendall's tau-a between a fit's ratings and the true strengths."""
    sign = np.sign(fitted[:, None] - fitted[None, :]) * np.sign(truth[:, None] - truth[None, :])
    n = len(fitted)
    return float(sign.sum() / (n * (n - 1)))


def top_interval(outcome: LeagueResult, top: int = 10) -> float:
    """Mean 95% interval (half-width) of the ``top`` truly strongest versions."""
    return float(np.mean(outcome.fit.errors[np.argsort(-outcome.truth)[:top]]))
