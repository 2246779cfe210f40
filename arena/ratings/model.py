"""The rating fit: maximum-likelihood ratings for any number of players, Ordo-compatible.

Model: the first mover's expected score is ``1 / (1 + exp(-beta (r_first + adv - r_second)))``;
draws count as half points (Ordo's default); ``adv`` (White's / the first mover's advantage) is
fitted by maximum likelihood unless switched off; the equal-opponents draw rate ``d0`` is then
fitted to the wins/draws/losses (see :mod:`arena.ratings.draws`). The scale is Ordo's (an
expected score of 76% = 202 points) or the usual ``400 log10`` Elo.

Players whose score is perfect (all wins or all losses) have no finite maximum. Like Ordo, we
take them out (repeatedly, since removing one can make another perfect), fit the rest, then give
each a bounded rating: the one at which it would have been expected to drop half a point
(``points - 0.5`` for all wins, ``0.5`` for all losses) against the opponents it met. Such
ratings are marked (``marks``) and are bounds, not estimates. If the remaining players still
split into groups that did not both score against each other, every player gets one virtual
draw spread over the pool (as BayesElo's prior does), and ``notes`` says so.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any, Literal

import numpy as np
from numpy.typing import NDArray

from arena.ratings import draws, uncertainty
from arena.ratings.counts import Counts
from arena.ratings.numeric import brentq, expit, norm, strongly_connected
from arena.ratings.solver import Pairings, solve

FloatArray = NDArray[np.float64]
IntArray = NDArray[np.int64]

ORDO_POINTS = 202.0
"""Ordo's default ``-z``: a rating difference of 202 points means an expected score of 76%."""

SCALES: dict[str, float] = {
    "ordo": math.log(0.76 / 0.24) / ORDO_POINTS,
    "elo": math.log(10.0) / 400.0,
}
"""``beta`` per scale name: the expected score is ``expit(beta * difference)``."""

ErrorMethod = Literal["hessian", "simulation", "none"]

ALL_WINS = "all-wins"
ALL_LOSSES = "all-losses"
NO_GAMES = "no-games"
UNCONNECTED = "unconnected"
MARK_TEXT = {
    ALL_WINS: "won every game: rating is a lower bound",
    ALL_LOSSES: "lost every game: rating is an upper bound",
    NO_GAMES: "no games: not rated",
    UNCONNECTED: "no games against rated players: not rated",
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
        whatever its value (with few games an upper bound can exceed everyone's estimate)."""
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

        return {
            "scale": self.scale,
            "confidence": self.confidence,
            "error_method": self.error_method,
            "average": self.average,
            "anchor": None
            if self.anchor is None
            else {"player": self.anchor[0], "rating": self.anchor[1]},
            "players": [
                {
                    "rank": rank,
                    "player": self.players[i],
                    "rating": num(self.ratings[i]),
                    "error": num(self.errors[i]),
                    "points": float(self.points[i]),
                    "played": int(self.played[i]),
                    "mark": self.marks[i] or None,
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
) -> RatingFit:
    """Fit ratings, first-move advantage and draw rate, with error bars and the LOS matrix.

    ``anchor=(name, rating)`` fixes one player's rating (errors are then relative to it, as
    Ordo's ``-A``); otherwise the rated players average ``average`` (Ordo's ``-a``).
    ``errors``: ``"hessian"`` (analytic, the default), ``"simulation"`` (Ordo's replays,
    ``simulations`` of them, seeded) or ``"none"``.
    """
    if scale not in SCALES:
        raise ValueError(f"unknown scale {scale!r} (expected one of {', '.join(SCALES)})")
    if not 0.0 < confidence < 1.0:
        raise ValueError(f"confidence must be between 0 and 1, got {confidence}")
    beta = SCALES[scale]
    players = list(counts.players)
    n = len(players)
    played = counts.played()
    scored = counts.scored()
    marks = [""] * n
    for i in range(n):
        if played[i] <= 0:
            marks[i] = NO_GAMES
        elif scored[i] >= played[i]:
            marks[i] = ALL_WINS
        elif scored[i] <= 0:
            marks[i] = ALL_LOSSES
    notes: list[str] = []

    core_mask, rounds = _purge(counts, played > 0)
    core = np.flatnonzero(core_mask)
    m = core.size
    pinned = np.full(n, np.nan)  # ratings with core[0] at 0
    pinned_var = np.full(n, np.nan)
    adv = 0.0
    core_cov: FloatArray | None = None
    d0 = float("nan")
    d0_sd = float("nan")
    adv_sd = float("nan")

    if m >= 1:
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
            ii, jj = np.nonzero(~np.eye(m, dtype=bool))
            eps = 1.0 / (2.0 * (m - 1))
            w = np.concatenate([w, ii])
            b = np.concatenate([b, jj])
            games = np.concatenate([games, np.full(ii.size, eps)])
            pts = np.concatenate([pts, np.full(ii.size, eps / 2.0)])
            pairings = Pairings(m, w.astype(np.int64), b.astype(np.int64), games)
            found = _solve_finite(pairings, pts, beta, fit_adv)
            if found is None:  # cannot happen with the prior; keep the error explicit
                raise ArithmeticError("rating fit did not converge even with a prior")
        r, a = found
        r_core, adv = r[0], float(a[0])
        pinned[core] = r_core
        pinned_var[core] = 0.0

        # Bounded ratings for the perfect scorers, last removed first.
        removed = [p for group in reversed(rounds) for p in group]
        for _ in range(len(rounds)):  # a second pass catches those met only by later ones
            for p in removed:
                if math.isnan(pinned[p]):
                    _rate_perfect(counts, p, pinned, pinned_var, adv, beta)
        for p in (p for group in rounds for p in group):
            if math.isnan(pinned[p]):
                marks[p] = UNCONNECTED

        rated = ~np.isnan(pinned)
        both = rated[counts.first] & rated[counts.second]
        f_all = expit(beta * (pinned[counts.first[both]] - pinned[counts.second[both]] + adv))
        d0 = draws.fit_draw_rate(f_all, counts.wins[both], counts.draws[both], counts.losses[both])

        # A draw rate at 100% (only draws so far) would make every game's score certain and
        # the error bars zero: with no estimate of it, treat games as win-or-loss coins (the
        # widest error bars) instead.
        d0_var = d0 if d0 == d0 and d0 < 1.0 - 1e-6 else 0.0
        if d0_var != d0 and d0 == d0:
            notes.append(
                "the draw rate of equals cannot be estimated from these games (only draws "
                "between rated players): error bars treat every game as a win or a loss"
            )
        if errors == "hessian" and m >= 2:
            core_cov = uncertainty.sandwich_covariance(
                pairings, pts, r_core, adv, d0_var, beta, fit_adv
            )
            if fit_adv:
                adv_sd = float(np.sqrt(max(core_cov[-1, -1], 0.0)))
                core_cov = core_cov[:-1, :-1]
            d0_sd = draws.draw_rate_sd(f_all, counts.games[both], d0)
        elif errors == "simulation" and m >= 2:
            sim_r, sim_a, sim_d = uncertainty.simulate(
                pairings, r_core, adv, d0_var, beta, fit_adv, simulations, seed
            )
            core_cov = np.atleast_2d(np.cov(sim_r[:, 1:] - sim_r[:, :1], rowvar=False))
            if fit_adv:
                adv_sd = float(np.std(sim_a, ddof=1))
            d0_sd = float(np.std(sim_d, ddof=1))
        elif errors not in ("hessian", "simulation", "none"):
            raise ValueError(f"unknown error method {errors!r}")

    rated = ~np.isnan(pinned)
    idx = np.flatnonzero(rated)
    ratings = np.full(n, np.nan)
    cov = np.full((n, n), np.nan)
    if anchor is not None:
        name, value = anchor
        if name not in players:
            raise ValueError(f"anchor {name!r} is not among the players")
        a_i = players.index(name)
        if not rated[a_i]:
            raise ValueError(f"anchor {name!r} has no rating ({marks[a_i]})")
        shift = value - pinned[a_i]
        avg_value = float("nan")
    else:
        shift = average - float(np.mean(pinned[idx])) if idx.size else 0.0
        avg_value = average
    ratings[idx] = pinned[idx] + shift
    if anchor is not None:
        # Exactly the anchor value: ``value - pinned + pinned`` can be off by one rounding step.
        ratings[players.index(anchor[0])] = anchor[1]

    if core_cov is not None:
        # Covariance in pinned coordinates over the rated players, then the reported convention.
        k = idx.size
        pos = {int(p): j for j, p in enumerate(idx)}
        pc = np.zeros((k, k))
        core_pos = [pos[int(p)] for p in core[1:]]
        pc[np.ix_(core_pos, core_pos)] = core_cov
        for q in idx:
            if not core_mask[q]:
                pc[pos[int(q)], pos[int(q)]] = pinned_var[q]
        if anchor is not None:
            proj = np.eye(k)
            proj[:, pos[players.index(anchor[0])]] -= 1.0
        else:
            proj = np.eye(k) - 1.0 / k
        cov[np.ix_(idx, idx)] = proj @ pc @ proj.T

    z = float(norm.ppf(0.5 + confidence / 2.0))
    err = z * np.sqrt(np.clip(np.diag(cov), 0.0, None))
    los = _los_matrix(ratings, cov)
    return RatingFit(
        players=players,
        ratings=ratings,
        errors=err,
        points=scored,
        played=played,
        marks=marks,
        covariance=cov,
        los=los,
        white_advantage=adv,
        white_advantage_sd=adv_sd,
        white_advantage_fitted=bool(white_advantage and m >= 2),
        draw_rate=d0,
        draw_rate_sd=d0_sd,
        scale=scale,
        beta=beta,
        error_method=errors if core_cov is not None else "none",
        confidence=confidence,
        average=avg_value,
        anchor=anchor,
        counts=counts,
        notes=notes,
    )


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
    x = brentq(excess, lo, hi, xtol=1e-9)
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
