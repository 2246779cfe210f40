"""The Bayesian rating fit: a Gaussian prior on every rating, the posterior mode as the rating,
a credible interval from the posterior; a number for every player whatever the results.

The model is the maximum-likelihood fit's (:mod:`ratings.model`: logistic expected score with
the first mover's advantage, draws as half points, the equal-opponents draw rate fitted to the
wins, draws and losses afterwards); the prior is :mod:`ratings.prior`'s and the numbers are
:mod:`ratings.posterior`'s. ``ERROR`` is the half-width of the credible interval at the fit's
``confidence`` (95%): the posterior's normal approximation at its mode.

Where the results alone only order the players (groups of which one never scored against
another, or a player who won or lost every game: :mod:`ratings.separation`), the fit is still
finite, but the distances between those groups come from the prior, not from games. Such
players are marked :data:`ratings.model.ON_PRIOR` and their intervals are about as wide as the
prior; the group with the most games among those of two or more players is the reference
(its members' distances to each other rest on results, so they are not marked); with none (a
perfect ladder) everyone is marked. The known order is kept as a note and in
:attr:`RatingFit.known_order`.

Reported ratings follow the same conventions as the maximum-likelihood fit: the players with
games average ``average``, or ``anchor`` is fixed; intervals are relative to that level.
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING

import numpy as np

from ratings import draws
from ratings.counts import Counts
from ratings.model import (
    ON_PRIOR,
    PRIOR_ONLY,
    RatingFit,
    _beta,
    _los_matrix,
)
from ratings.numeric import expit, norm
from ratings.posterior import posterior_covariance, posterior_mode
from ratings.prior import Prior
from ratings.separation import Separation, find_groups
from ratings.solver import Pairings

if TYPE_CHECKING:  # numpy.typing costs ~10 ms to import; annotations only
    from numpy.typing import NDArray

    FloatArray = NDArray[np.float64]


def fit_bayes(
    counts: Counts,
    prior: Prior,
    *,
    scale: str = "ordo",
    white_advantage: bool = True,
    anchor: tuple[str, float] | None = None,
    average: float = 0.0,
    errors: str = "hessian",
    confidence: float = 0.95,
) -> RatingFit:
    """The posterior mode and intervals of every player of ``counts`` (module docstring).

    ``errors``: ``"hessian"`` (the posterior's curvature, the default) or ``"none"``;
    simulated replays belong to the maximum-likelihood fit and are refused here."""
    beta = _beta(scale, confidence, errors)
    if errors == "simulation":
        raise ValueError("simulated replays (errors='simulation') are for the maximum-"
                         "likelihood fit: the Bayesian fit's interval is its posterior's")
    players = list(counts.players)
    n = len(players)
    if anchor is not None and anchor[0] not in players:
        raise ValueError(f"anchor {anchor[0]!r} is not among the players")
    played, scored = counts.played(), counts.scored()
    marks = ["" if played[i] > 0 else PRIOR_ONLY for i in range(n)]
    notes = [prior.describe()]
    keep = counts.games > 0
    pairings = Pairings(n, counts.first[keep], counts.second[keep], counts.games[keep])
    pts = counts.points[keep]
    fit_adv = white_advantage and n >= 2 and bool(keep.any())
    precision = prior.precision(players, fit_adv)
    mode = posterior_mode(pairings, pts, beta, precision, fit_adv)
    f = expit(beta * (mode.ratings[pairings.w] - mode.ratings[pairings.b] + mode.advantage))
    wins, drawn, losses = counts.wins[keep], counts.draws[keep], counts.losses[keep]
    d0 = draws.fit_draw_rate(f, wins, drawn, losses) if keep.any() else math.nan
    d0_used = d0 if d0 == d0 and d0 < 1.0 - 1e-6 else 0.0
    if d0 == d0 and d0_used != d0:
        notes.append("the draw rate of equals cannot be estimated from these games (only "
                     "draws): intervals treat every game as a win or a loss")
    known = _known_order(counts, played, scored, marks, players, notes)
    shift = _level(mode.ratings, played, players, anchor, average)
    ratings = mode.ratings + shift
    if anchor is not None:
        ratings[players.index(anchor[0])] = anchor[1]  # exactly, not within a rounding step
    cov = np.full((n, n), np.nan)
    adv_sd = d0_sd = math.nan
    if errors != "none" and n:
        full = posterior_covariance(pairings, mode, beta, precision, fit_adv, d0_used)
        cov = _reported(full[:n, :n], played, players, anchor)
        if fit_adv:
            adv_sd = float(math.sqrt(max(full[n, n], 0.0)))
        if keep.any():
            d0_sd = draws.draw_rate_sd(f, pairings.games, d0)
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
        white_advantage=mode.advantage,
        white_advantage_sd=adv_sd,
        white_advantage_fitted=fit_adv,
        draw_rate=d0,
        draw_rate_sd=d0_sd,
        scale=scale,
        beta=beta,
        error_method="posterior" if errors != "none" else "none",
        confidence=confidence,
        average=math.nan if anchor is not None else average,
        anchor=anchor,
        counts=counts,
        notes=notes,
        prior=prior,
        known_order=known,
    )


def _known_order(counts: Counts, played: FloatArray, scored: FloatArray, marks: list[str],
                 players: list[str], notes: list[str]) -> Separation | None:
    """The groups the results alone only order; marks (in place) the players whose distance
    to the reference group rests on the prior, and says so in ``notes``."""
    sep = find_groups(counts, played > 0, scored, played)
    if len(sep.groups) <= 1:
        return None
    sizable = [g for g, members in enumerate(sep.groups) if len(members) >= 2]
    reference = max(sizable, key=lambda g: (float(played[sep.groups[g]].sum()), -g),
                    default=None)
    for g, members in enumerate(sep.groups):
        if g != reference:
            for p in members:
                marks[p] = ON_PRIOR
    notes.append(
        f"the results alone only order these players: they split into {len(sep.groups)} "
        "groups, no group ever scoring (a win or a draw) against a group above it, so the "
        "distances between groups rest on the prior, not on games; players outside "
        + ("the reference group " + _group_text(sep, reference, players)
           if reference is not None else "a group of two or more (here: everyone)")
        + " are marked and their intervals are wide")
    notes.append(f"known order: {sep.describe(players)}")
    if any(not sep.ordered_with_next(g) for g in range(len(sep.groups) - 1)):
        notes.append("'?': no results lead from one of those two groups to the other, so "
                     "even their order is unknown")
    return sep


def _group_text(sep: Separation, g: int, players: list[str]) -> str:
    names = [players[p] for p in sep.groups[g]]
    return "{" + ", ".join(names) + "}"


def _level(raw: FloatArray, played: FloatArray, players: list[str],
           anchor: tuple[str, float] | None, average: float) -> float:
    """The shift that puts the players with games at an average of ``average`` (everyone
    when nobody played), or the anchor at its value."""
    if anchor is not None:
        return anchor[1] - float(raw[players.index(anchor[0])])
    having = played > 0
    if not raw.size:
        return 0.0
    return average - float(np.mean(raw[having] if having.any() else raw))


def _reported(cov: FloatArray, played: FloatArray, players: list[str],
              anchor: tuple[str, float] | None) -> FloatArray:
    """The posterior covariance of the reported ratings: relative to the average of the
    players with games, or to the anchor."""
    n = len(players)
    weights = np.zeros(n)
    if anchor is not None:
        weights[players.index(anchor[0])] = 1.0
    else:
        having = played > 0 if np.any(played > 0) else np.ones(n, dtype=bool)
        weights[having] = 1.0 / float(having.sum())
    proj = np.eye(n) - np.outer(np.ones(n), weights)
    result: FloatArray = proj @ cov @ proj.T
    return result
