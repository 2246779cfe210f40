"""The rating fit: maximum-likelihood ratings for any number of players, Ordo-compatible.

Model: the first mover's expected score is ``1 / (1 + exp(-beta (r_first + adv - r_second)))``;
draws count as half points (Ordo's default); ``adv`` (White's / the first mover's advantage) is
fitted by maximum likelihood unless switched off; the equal-opponents draw rate ``d0`` is then
fitted to the wins/draws/losses (see :mod:`ratings.draws`). The scale is Ordo's (an
expected score of 76% = 202 points) or the usual ``400 log10`` Elo.

Players whose score is perfect (all wins or all losses) have no finite maximum. Like Ordo, we
take them out (repeatedly, since removing one can make another perfect), fit the rest, then give
each a bounded rating: the one at which it would have been expected to drop half a point
(``points - 0.5`` for all wins, ``0.5`` for all losses) against the opponents it met. Such
ratings are marked (``marks``) and are bounds, not estimates.

If the remaining players still split into groups that did not both score against each other
(a perfect ladder: everybody beat everybody below, or two groups, one of which won every game
between them), no finite rating exists across the groups (:mod:`ratings.separation`). The fit
then says so instead of inventing distances: players are ranked by group, a group of two or
more is rated inside itself only (``IN_GROUP``), a group of one gets no rating at all
(``ORDER_ONLY``), and ``separation`` holds the groups and their known order. With
``separated="prior"`` (for callers that need one number per player whatever the data, such
as the league's pairing) every player instead gets one virtual draw spread over the pool (as
BayesElo's prior does). That prior is also what keeps a fit finite when one colour won every
game; ``notes`` says when it was used.

This is the fit with the prior off. With ``prior=`` it becomes the Bayesian fit of
:mod:`ratings.bayes` (a Gaussian prior on every rating: a finite rating and an interval for
everyone, a mark where a distance rests on the prior), which is what people are shown.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Literal

import numpy as np

from ratings import draws, uncertainty
from ratings.counts import Counts
from ratings.numeric import bisect_root, expit, norm, strongly_connected
from ratings.prior import Prior
from ratings.scale import SCALES
from ratings.separation import Separation, find_groups, scored_against
from ratings.solver import Pairings, solve

if TYPE_CHECKING:  # numpy.typing costs ~10 ms to import; annotations only
    from numpy.typing import NDArray

    FloatArray = NDArray[np.float64]
    IntArray = NDArray[np.int64]



ErrorMethod = Literal["hessian", "simulation", "none"]
SeparatedMethod = Literal["order", "prior"]

ALL_WINS = "all-wins"
ALL_LOSSES = "all-losses"
NO_GAMES = "no-games"
UNCONNECTED = "unconnected"
ORDER_ONLY = "order-only"
IN_GROUP = "in-group"
ON_PRIOR = "on-prior"
PRIOR_ONLY = "prior-only"
MARK_TEXT = {
    ALL_WINS: "won every game: rating is a lower bound",
    ALL_LOSSES: "lost every game: rating is an upper bound",
    NO_GAMES: "no games: not rated",
    UNCONNECTED: "no games against rated players: not rated",
    ORDER_ONLY: "order only: no rating",
    IN_GROUP: "rated inside its group only",
    ON_PRIOR: "its distance to the others rests on the prior: a wide interval",
    PRIOR_ONLY: "no games: its rating and interval are its prior's",
}


@dataclass(frozen=True)
class RatingFit:
    """Everything a ratings table, a report or a runner needs from one fit.

    Arrays are indexed like ``players``. ``errors`` are half-widths of the ``confidence``
    interval (Ordo's ERROR column); ``white_advantage_sd`` and ``draw_rate_sd`` are one standard
    deviation (what Ordo prints after "+/-" on those two lines). Unrated players have NaN.
    """

    players: list[str]
    ratings: FloatArray
    errors: FloatArray
    points: FloatArray
    played: FloatArray
    marks: list[str]
    covariance: FloatArray
    los: FloatArray
    white_advantage: float
    white_advantage_sd: float
    white_advantage_fitted: bool
    draw_rate: float
    draw_rate_sd: float
    scale: str
    beta: float
    error_method: str
    confidence: float
    average: float
    anchor: tuple[str, float] | None
    counts: Counts
    notes: list[str] = field(default_factory=list)
    separation: Separation | None = None
    """Set when the results split the players into groups with no rating across them: the
    groups, best first, and their known order (see :mod:`ratings.separation`)."""
    prior: Prior | None = None
    """The prior of a Bayesian fit (:mod:`ratings.bayes`); None for maximum likelihood."""
    known_order: Separation | None = None
    """A Bayesian fit's groups when the results alone only order them (the distances between
    them rest on the prior, marked :data:`ON_PRIOR`): kept for the note of the known order."""

    def group(self, i: int) -> int | None:
        """Player ``i``'s group, 1 = best, when the results separate the players; else None."""
        if self.separation is None:
            return None
        g = self.separation.group_of(i)
        return None if g is None else g + 1

    def index(self, name: str) -> int:
        try:
            return self.players.index(name)
        except ValueError:
            raise KeyError(f"unknown player {name!r}") from None

    def rating(self, name: str) -> float:
        return float(self.ratings[self.index(name)])

    def order(self) -> list[int]:
        """Player indices, best first; unrated players last, in their original order.

        A rating that is only a bound is ranked by what it bounds: a lower bound (won every
        game) above every estimate, an upper bound (lost every game) below every estimate,
        whatever its value (with few games an upper bound can exceed everyone's estimate).
        Separated results rank by group first (best group first), then by rating inside it."""
        if self.separation is not None:
            ranked = [p for members in self.separation.groups
                      for p in sorted(members, key=lambda i: (
                          -self.ratings[i] if not math.isnan(self.ratings[i]) else 0.0,
                          self.players[i]))]
            placed = set(ranked)
            return ranked + [i for i in range(len(self.players)) if i not in placed]
        group = {ALL_WINS: 0, ALL_LOSSES: 2}
        rated = [i for i in range(len(self.players)) if not math.isnan(self.ratings[i])]
        rated.sort(key=lambda i: (group.get(self.marks[i], 1), -self.ratings[i],
                                  self.players[i]))
        return rated + [i for i in range(len(self.players)) if math.isnan(self.ratings[i])]

    def expected_score(self, first: str, second: str) -> float:
        """Expected score of ``first`` moving first against ``second``."""
        diff = self.rating(first) - self.rating(second) + self.white_advantage
        return float(expit(self.beta * diff))

    def to_dict(self) -> dict[str, Any]:
        """A JSON-ready summary (NaN becomes None)."""

        def num(x: float) -> float | None:
            return None if math.isnan(x) else float(x)

        known = self.separation or self.known_order
        return {
            "scale": self.scale,
            "confidence": self.confidence,
            "error_method": self.error_method,
            "average": self.average,
            "anchor": None
            if self.anchor is None
            else {"player": self.anchor[0], "rating": self.anchor[1]},
            "prior": None if self.prior is None else {
                "sd": self.prior.sd, "parent_sd": self.prior.parent_sd,
                "parents": dict(self.prior.parents)},
            "players": [
                {
                    "rank": rank,
                    "player": self.players[i],
                    "rating": num(self.ratings[i]),
                    "error": num(self.errors[i]),
                    "interval": None if math.isnan(self.ratings[i] + self.errors[i])
                    else [float(self.ratings[i] - self.errors[i]),
                          float(self.ratings[i] + self.errors[i])],
                    "points": float(self.points[i]),
                    "played": int(self.played[i]),
                    "mark": self.marks[i] or None,
                    "group": self.group(i),
                }
                for rank, i in enumerate(self.order(), start=1)
            ],
            "white_advantage": {
                "value": num(self.white_advantage),
                "sd": num(self.white_advantage_sd),
                "fitted": self.white_advantage_fitted,
            },
            "draw_rate": {"value": num(self.draw_rate), "sd": num(self.draw_rate_sd)},
            "los": {
                self.players[i]: {
                    self.players[j]: num(self.los[i, j]) for j in range(len(self.players)) if j != i
                }
                for i in range(len(self.players))
            },
            "notes": list(self.notes),
            "known_order": None if known is None else known.describe(self.players),
        }


def _purge(counts: Counts, active: NDArray[np.bool_]) -> tuple[NDArray[np.bool_], list[list[int]]]:
    """Take out perfect scorers repeatedly; returns the core and the removal rounds."""
    core = active.copy()
    rounds: list[list[int]] = []
    n = len(counts.players)
    while True:
        inside = core[counts.first] & core[counts.second]
        g = np.where(inside, counts.games, 0.0)
        s = np.where(inside, counts.points, 0.0)
        played = np.bincount(counts.first, g, n) + np.bincount(counts.second, g, n)
        scored = np.bincount(counts.first, s, n) + np.bincount(counts.second, g - s, n)
        perfect = core & ((played <= 0) | (scored <= 0) | (scored >= played))
        if not perfect.any() or int((core & ~perfect).sum()) < 2:
            return core, rounds
        rounds.append([int(i) for i in np.flatnonzero(perfect)])
        core &= ~perfect


def _strongly_connected(
    m: int, w: IntArray, b: IntArray, points: FloatArray, games: FloatArray
) -> bool:
    """True when, for every split of the players, each side scored against the other."""
    if m <= 1:
        return True
    src = np.concatenate([w[points > 0], b[points < games]])
    dst = np.concatenate([b[points > 0], w[points < games]])
    return strongly_connected(m, src.astype(np.int64), dst.astype(np.int64))


def fit_ratings(
    counts: Counts,
    *,
    scale: str = "ordo",
    white_advantage: bool = True,
    anchor: tuple[str, float] | None = None,
    average: float = 0.0,
    errors: ErrorMethod = "hessian",
    simulations: int = 1000,
    seed: int = 0,
    confidence: float = 0.95,
    separated: SeparatedMethod = "order",
    prior: Prior | None = None,
) -> RatingFit:
    """Fit ratings, first-move advantage and draw rate, with error bars and the LOS matrix.

    ``prior``: None (the default) is the maximum-likelihood fit described here; a
    :class:`ratings.prior.Prior` makes it the Bayesian fit of :mod:`ratings.bayes` (posterior
    mode and credible interval, finite for everyone; ``separated`` then does not apply and
    ``errors`` may be ``"hessian"``, the posterior's curvature, or ``"none"``).

    ``anchor=(name, rating)`` fixes one player's rating (errors are then relative to it, as
    Ordo's ``-A``); otherwise the rated players average ``average`` (Ordo's ``-a``).
    ``errors``: ``"hessian"`` (analytic, the default), ``"simulation"`` (Ordo's replays,
    ``simulations`` of them, seeded) or ``"none"``. ``separated``: what to do when the
    results split the players into groups no rating joins (module docstring): ``"order"``
    (the default) ranks them and rates each group inside itself only, ``"prior"`` adds one
    virtual draw per player.

    The steps: mark the perfect scorers, fit the rest (the core) with player ``core[0]`` pinned
    at 0, give the perfect scorers their bounds, fit the draw rate, estimate the core's
    covariance, then move everything to the reported level (anchor or average).
    """
    beta = _beta(scale, confidence, errors)
    if prior is not None:
        from ratings.bayes import fit_bayes  # it builds on this module's pieces

        return fit_bayes(counts, prior, scale=scale, white_advantage=white_advantage,
                         anchor=anchor, average=average, errors=errors,
                         confidence=confidence)
    players = list(counts.players)
    played = counts.played()
    scored = counts.scored()
    marks = _marks(played, scored)
    notes: list[str] = []
    core_mask, rounds = _purge(counts, played > 0)
    if separated not in ("order", "prior"):
        raise ValueError(f"unknown method for separated results {separated!r}")
    if separated == "order" and core_mask.any() and not _core_connected(counts, core_mask):
        return _fit_separated(counts, played, scored, scale=scale,
                              white_advantage=white_advantage, anchor=anchor, average=average,
                              errors=errors, simulations=simulations, seed=seed,
                              confidence=confidence)
    fit = _PinnedFit.unrated(len(players))
    if core_mask.any():
        fit = _fit_core(counts, core_mask, beta, white_advantage, notes)
        _bound_perfect_scorers(counts, rounds, fit, beta, marks)
        _fit_draws_and_errors(counts, fit, beta, errors, simulations, seed, notes)
    ratings, avg_value = _level(fit.pinned, players, marks, anchor, average)
    cov = _reported_covariance(fit, core_mask, players, anchor)
    z = float(norm.ppf(0.5 + confidence / 2.0))
    return RatingFit(
        players=players,
        ratings=ratings,
        errors=z * np.sqrt(np.clip(np.diag(cov), 0.0, None)),
        points=scored,
        played=played,
        marks=marks,
        covariance=cov,
        los=_los_matrix(ratings, cov),
        white_advantage=fit.adv,
        white_advantage_sd=fit.adv_sd,
        white_advantage_fitted=fit.fit_adv,
        draw_rate=fit.d0,
        draw_rate_sd=fit.d0_sd,
        scale=scale,
        beta=beta,
        error_method=errors if fit.core_cov is not None else "none",
        confidence=confidence,
        average=avg_value,
        anchor=anchor,
        counts=counts,
        notes=notes,
    )


def _core_connected(counts: Counts, core_mask: NDArray[np.bool_]) -> bool:
    """Do the core's results have a finite maximum (every split scored both ways)?"""
    src, dst = scored_against(counts, core_mask)
    local = np.cumsum(core_mask) - 1
    return strongly_connected(int(core_mask.sum()), local[src], local[dst])


def _restrict(counts: Counts, members: list[int]) -> Counts:
    """The games among ``members`` only, players numbered as listed."""
    local = np.full(len(counts.players), -1, dtype=np.int64)
    local[members] = np.arange(len(members))
    inside = (local[counts.first] >= 0) & (local[counts.second] >= 0)
    return Counts([counts.players[p] for p in members], local[counts.first[inside]],
                  local[counts.second[inside]], counts.wins[inside], counts.draws[inside],
                  counts.losses[inside])


def _fit_separated(
    counts: Counts,
    played: FloatArray,
    scored: FloatArray,
    *,
    scale: str,
    white_advantage: bool,
    anchor: tuple[str, float] | None,
    average: float,
    errors: ErrorMethod,
    simulations: int,
    seed: int,
    confidence: float,
) -> RatingFit:
    """The fit of results that separate the players: the groups in their known order, each
    group of two or more rated inside itself (its own fit, averaging ``average``, or at the
    anchor when the anchor is in it), nobody rated across groups. The first-move advantage and
    the draw rate are those of the group with the most games."""
    players = list(counts.players)
    n = len(players)
    sep = find_groups(counts, played > 0, scored, played)
    if anchor is not None and anchor[0] not in players:
        raise ValueError(f"anchor {anchor[0]!r} is not among the players")
    marks = _marks(played, scored)
    ratings = np.full(n, np.nan)
    errs = np.full(n, np.nan)
    cov = np.full((n, n), np.nan)
    los = np.full((n, n), np.nan)
    notes: list[str] = []
    fits: list[tuple[int, RatingFit]] = []
    for g, members in enumerate(sep.groups):
        if len(members) == 1:
            marks[members[0]] = ORDER_ONLY
            continue
        names = [players[p] for p in members]
        sub = fit_ratings(
            _restrict(counts, members), scale=scale, white_advantage=white_advantage,
            anchor=anchor if anchor is not None and anchor[0] in names else None,
            average=average, errors=errors, simulations=simulations, seed=seed,
            confidence=confidence, separated="prior")
        box = np.ix_(members, members)
        ratings[members], errs[members] = sub.ratings, sub.errors
        cov[box], los[box] = sub.covariance, sub.los
        for p in members:
            marks[p] = IN_GROUP
        notes.extend(f"group {g + 1}: {note}" for note in sub.notes)
        fits.append((g, sub))
    if anchor is not None and not any(anchor[0] in f.players for _, f in fits):
        raise ValueError(f"anchor {anchor[0]!r} has no rating (the results give only its "
                         "place in the order)")
    notes[:0] = _separation_notes(sep, players, [g for g, _ in fits], average, anchor)
    main_group, main = max(fits, key=lambda gf: gf[1].counts.total(), default=(-1, None))
    if main is not None and len(fits) > 1:
        notes.append(f"the first-move advantage and the draw rate are group {main_group + 1}'s "
                     "(the group with the most games)")
    return RatingFit(
        players=players, ratings=ratings, errors=errs, points=scored, played=played,
        marks=marks, covariance=cov, los=los,
        white_advantage=main.white_advantage if main else 0.0,
        white_advantage_sd=main.white_advantage_sd if main else float("nan"),
        white_advantage_fitted=main.white_advantage_fitted if main else False,
        draw_rate=main.draw_rate if main else float("nan"),
        draw_rate_sd=main.draw_rate_sd if main else float("nan"),
        scale=scale, beta=_beta(scale, confidence, errors),
        error_method=main.error_method if main else "none", confidence=confidence,
        average=float("nan") if anchor is not None else average, anchor=anchor, counts=counts,
        notes=notes, separation=sep,
    )


def _separation_notes(sep: Separation, players: list[str], rated: list[int], average: float,
                      anchor: tuple[str, float] | None) -> list[str]:
    """What a reader must know about separated results: why there is no common scale, the
    order that is known, and what the ratings inside groups mean."""
    notes = [
        f"no finite rating exists across these results: they split the players into "
        f"{len(sep.groups)} groups, and no group ever won or drew a game against a group "
        "above it, so only the order is known, not the distances; no error bar spans two "
        "groups",
        f"known order: {sep.describe(players)}",
    ]
    if any(not sep.ordered_with_next(g) for g in range(len(sep.groups) - 1)):
        notes.append("'?': no results lead from one of those two groups to the other, so "
                     "even their order is unknown")
    if rated:
        which = ", ".join(str(g + 1) for g in rated)
        level = (f"the anchor's group at {anchor[0]} = {anchor[1]:g}, any other at an average "
                 f"of {average:g}" if anchor is not None else f"each averaging {average:g}")
        notes.append(f"ratings inside group(s) {which} are relative to their own group "
                     f"({level}): do not compare them across groups")
    return notes


@dataclass
class _PinnedFit:
    """The fit in pinned coordinates (the first core player at 0), filled in step by step."""

    pinned: FloatArray
    """Rating per player; NaN for the unrated."""
    pinned_var: FloatArray
    """Variance of each bounded (perfect-scorer) rating; 0 for the core, whose covariance is
    ``core_cov``."""
    core: IntArray = field(default_factory=lambda: np.zeros(0, dtype=np.int64))
    pairings: Pairings | None = None
    pts: FloatArray = field(default_factory=lambda: np.zeros(0))
    """First mover's points per cell of ``pairings`` (the virtual draws included)."""
    fit_adv: bool = False
    adv: float = 0.0
    adv_sd: float = float("nan")
    d0: float = float("nan")
    d0_sd: float = float("nan")
    core_cov: FloatArray | None = None
    """Covariance of ``core[1:]`` (``core[0]`` is pinned), or None without error bars."""

    @classmethod
    def unrated(cls, n: int) -> _PinnedFit:
        return cls(pinned=np.full(n, np.nan), pinned_var=np.full(n, np.nan))


def _beta(scale: str, confidence: float, errors: str) -> float:
    """Check the arguments; the scale's ``beta``."""
    if scale not in SCALES:
        raise ValueError(f"unknown scale {scale!r} (expected one of {', '.join(SCALES)})")
    if not 0.0 < confidence < 1.0:
        raise ValueError(f"confidence must be between 0 and 1, got {confidence}")
    if errors not in ("hessian", "simulation", "none"):
        raise ValueError(f"unknown error method {errors!r}")
    return SCALES[scale]


def _marks(played: FloatArray, scored: FloatArray) -> list[str]:
    """Per player: no games, all wins, all losses, or "" (rated normally, for now)."""
    marks = [""] * len(played)
    for i in range(len(played)):
        if played[i] <= 0:
            marks[i] = NO_GAMES
        elif scored[i] >= played[i]:
            marks[i] = ALL_WINS
        elif scored[i] <= 0:
            marks[i] = ALL_LOSSES
    return marks


def _fit_core(
    counts: Counts,
    core_mask: NDArray[np.bool_],
    beta: float,
    white_advantage: bool,
    notes: list[str],
) -> _PinnedFit:
    """Maximum likelihood for the players who are not perfect scorers (with the virtual-draw
    prior when the data alone have no finite maximum, noted in ``notes``)."""
    n = len(counts.players)
    core = np.flatnonzero(core_mask)
    m = core.size
    local = np.full(n, -1, dtype=np.int64)
    local[core] = np.arange(m)
    inside = core_mask[counts.first] & core_mask[counts.second]
    w, b = local[counts.first[inside]], local[counts.second[inside]]
    games, pts = counts.games[inside], counts.points[inside]
    fit_adv = white_advantage and m >= 2
    pairings = Pairings(m, w.astype(np.int64), b.astype(np.int64), games)
    found = None
    if _strongly_connected(m, w, b, pts, games):
        found = _solve_finite(pairings, pts, beta, fit_adv)
    if found is None:
        notes.append(
            "without a prior these results have no finite maximum (groups that never both "
            "scored against each other, or one colour winning everything); each player got "
            "one virtual draw against the pool, half with each colour"
        )
        pairings, pts = _with_virtual_draws(pairings, pts)
        found = _solve_finite(pairings, pts, beta, fit_adv)
        if found is None:  # cannot happen with the prior; keep the error explicit
            raise ArithmeticError("rating fit did not converge even with a prior")
    r, a = found
    fit = _PinnedFit.unrated(n)
    fit.pinned[core] = r[0]
    fit.pinned_var[core] = 0.0
    fit.core, fit.pairings, fit.pts = core, pairings, pts
    fit.fit_adv, fit.adv = fit_adv, float(a[0])
    return fit


def _with_virtual_draws(pairings: Pairings, pts: FloatArray) -> tuple[Pairings, FloatArray]:
    """Every player one virtual draw against the pool, spread over all ordered pairs."""
    m = pairings.m
    ii, jj = np.nonzero(~np.eye(m, dtype=bool))
    eps = 1.0 / (2.0 * (m - 1))
    w = np.concatenate([pairings.w, ii])
    b = np.concatenate([pairings.b, jj])
    games = np.concatenate([pairings.games, np.full(ii.size, eps)])
    pts = np.concatenate([pts, np.full(ii.size, eps / 2.0)])
    return Pairings(m, w.astype(np.int64), b.astype(np.int64), games), pts


def _bound_perfect_scorers(
    counts: Counts, rounds: list[list[int]], fit: _PinnedFit, beta: float, marks: list[str]
) -> None:
    """Bounded ratings for the perfect scorers, last removed first; those never met by a rated
    player are marked unconnected."""
    removed = [p for group in reversed(rounds) for p in group]
    for _ in range(len(rounds)):  # a second pass catches those met only by later ones
        for p in removed:
            if math.isnan(fit.pinned[p]):
                _rate_perfect(counts, p, fit.pinned, fit.pinned_var, fit.adv, beta)
    for p in (p for group in rounds for p in group):
        if math.isnan(fit.pinned[p]):
            marks[p] = UNCONNECTED


def _fit_draws_and_errors(
    counts: Counts,
    fit: _PinnedFit,
    beta: float,
    errors: str,
    simulations: int,
    seed: int,
    notes: list[str],
) -> None:
    """The draw rate over every game between rated players, then the error bars (in place)."""
    rated = ~np.isnan(fit.pinned)
    both = rated[counts.first] & rated[counts.second]
    f_all = expit(beta * (fit.pinned[counts.first[both]] - fit.pinned[counts.second[both]]
                          + fit.adv))
    fit.d0 = draws.fit_draw_rate(
        f_all, counts.wins[both], counts.draws[both], counts.losses[both]
    )
    # A draw rate at 100% (only draws so far) would make every game's score certain and
    # the error bars zero: with no estimate of it, treat games as win-or-loss coins (the
    # widest error bars) instead.
    d0 = fit.d0 if fit.d0 == fit.d0 and fit.d0 < 1.0 - 1e-6 else 0.0
    if d0 != fit.d0 and fit.d0 == fit.d0:
        notes.append(
            "the draw rate of equals cannot be estimated from these games (only draws "
            "between rated players): error bars treat every game as a win or a loss"
        )
    if fit.core.size < 2 or errors == "none" or fit.pairings is None:
        return
    r_core = fit.pinned[fit.core]
    if errors == "hessian":
        core_cov = uncertainty.sandwich_covariance(
            fit.pairings, fit.pts, r_core, fit.adv, d0, beta, fit.fit_adv
        )
        if fit.fit_adv:
            fit.adv_sd = float(np.sqrt(max(core_cov[-1, -1], 0.0)))
            core_cov = core_cov[:-1, :-1]
        fit.core_cov = core_cov
        fit.d0_sd = draws.draw_rate_sd(f_all, counts.games[both], fit.d0)
    else:
        sim_r, sim_a, sim_d = uncertainty.simulate(
            fit.pairings, r_core, fit.adv, d0, beta, fit.fit_adv, simulations, seed
        )
        fit.core_cov = np.atleast_2d(np.cov(sim_r[:, 1:] - sim_r[:, :1], rowvar=False))
        if fit.fit_adv:
            fit.adv_sd = float(np.std(sim_a, ddof=1))
        fit.d0_sd = float(np.std(sim_d, ddof=1))


def _level(
    pinned: FloatArray,
    players: list[str],
    marks: list[str],
    anchor: tuple[str, float] | None,
    average: float,
) -> tuple[FloatArray, float]:
    """The reported ratings (the anchor exactly at its value, or the rated players averaging
    ``average``) and the average reported (NaN with an anchor)."""
    idx = np.flatnonzero(~np.isnan(pinned))
    ratings = np.full(len(players), np.nan)
    if anchor is None:
        shift = average - float(np.mean(pinned[idx])) if idx.size else 0.0
        ratings[idx] = pinned[idx] + shift
        return ratings, average
    name, value = anchor
    if name not in players:
        raise ValueError(f"anchor {name!r} is not among the players")
    a_i = players.index(name)
    if math.isnan(pinned[a_i]):
        raise ValueError(f"anchor {name!r} has no rating ({marks[a_i]})")
    ratings[idx] = pinned[idx] + (value - pinned[a_i])
    # Exactly the anchor value: ``value - pinned + pinned`` can be off by one rounding step.
    ratings[a_i] = value
    return ratings, float("nan")


def _reported_covariance(
    fit: _PinnedFit,
    core_mask: NDArray[np.bool_],
    players: list[str],
    anchor: tuple[str, float] | None,
) -> FloatArray:
    """Covariance in pinned coordinates over the rated players, projected to the reported
    convention (relative to the anchor, or to the average); NaN without error bars."""
    n = len(players)
    cov = np.full((n, n), np.nan)
    if fit.core_cov is None:
        return cov
    idx = np.flatnonzero(~np.isnan(fit.pinned))
    k = idx.size
    pos = {int(p): j for j, p in enumerate(idx)}
    pc = np.zeros((k, k))
    core_pos = [pos[int(p)] for p in fit.core[1:]]
    pc[np.ix_(core_pos, core_pos)] = fit.core_cov
    for q in idx:
        if not core_mask[q]:
            pc[pos[int(q)], pos[int(q)]] = fit.pinned_var[q]
    if anchor is not None:
        proj = np.eye(k)
        proj[:, pos[players.index(anchor[0])]] -= 1.0
    else:
        proj = np.eye(k) - 1.0 / k
    cov[np.ix_(idx, idx)] = proj @ pc @ proj.T
    return cov


FINITE_LIMIT = 3000.0
"""A fitted spread or advantage beyond this many points means the maximum is at infinity (the
expected scores have saturated to 0 or 1 in floating point), not a real estimate."""


def _solve_finite(
    pairings: Pairings, pts: FloatArray, beta: float, fit_adv: bool
) -> tuple[FloatArray, FloatArray] | None:
    """Newton's solution, or None when the data have no finite maximum."""
    try:
        r, a, _ = solve(pairings, pts[None, :], beta, fit_adv)
    except ArithmeticError:
        return None
    if np.ptp(r[0]) > FINITE_LIMIT or abs(float(a[0])) > FINITE_LIMIT:
        return None
    return r, a


def _rate_perfect(
    counts: Counts, p: int, pinned: FloatArray, pinned_var: FloatArray, adv: float, beta: float
) -> None:
    """Give perfect scorer ``p`` the rating at which it would drop half a point (in place)."""
    as_first = (counts.first == p) & ~np.isnan(pinned[counts.second])
    as_second = (counts.second == p) & ~np.isnan(pinned[counts.first])
    # Opponent rating seen from p, and p's colour offset, per cell.
    opp = np.concatenate([pinned[counts.second[as_first]], pinned[counts.first[as_second]]])
    off = np.concatenate([np.full(int(as_first.sum()), adv), np.full(int(as_second.sum()), -adv)])
    games = np.concatenate([counts.games[as_first], counts.games[as_second]])
    got = np.concatenate(
        [counts.points[as_first], counts.games[as_second] - counts.points[as_second]]
    )
    total = float(games.sum())
    if total <= 0:
        return
    target = min(max(float(got.sum()), 0.5), total - 0.5) if total > 1 else 0.5 * total

    def excess(x: float) -> float:
        return float(np.sum(games * expit(beta * (x + off - opp)))) - target

    lo, hi = float(opp.min()) - 20000.0, float(opp.max()) + 20000.0
    x = bisect_root(excess, lo, hi, xtol=1e-9)
    f = expit(beta * (x + off - opp))
    slope = float(np.sum(games * beta * f * (1.0 - f)))
    pinned[p] = x
    pinned_var[p] = float(np.sum(games * f * (1.0 - f))) / slope**2 if slope > 0 else np.inf


def _los_matrix(ratings: FloatArray, cov: FloatArray) -> FloatArray:
    """``los[i, j]``: probability that player i is stronger than j (normal approximation)."""
    var = np.diag(cov)
    diff = ratings[:, None] - ratings[None, :]
    v = var[:, None] + var[None, :] - 2.0 * cov
    with np.errstate(invalid="ignore", divide="ignore"):
        los = norm.cdf(diff / np.sqrt(np.where(v > 1e-18, v, np.nan)))
        exact = np.where(diff == 0, 0.5, (diff > 0).astype(np.float64))
    los = np.where(v <= 1e-18, exact, los)
    los[np.isnan(diff) | np.isnan(v)] = np.nan
    np.fill_diagonal(los, np.nan)
    result: FloatArray = los
    return result
