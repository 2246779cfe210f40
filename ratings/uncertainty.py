"""Error bars: the covariance of the fitted ratings, analytically or by simulated replays.

Ordo replays the tournament 1,000 times from the fitted model (ratings, first-move advantage,
draw rate), refits each replay and reports the spread. Two ways to get the same numbers:

* ``sandwich_covariance``: the asymptotic covariance of the estimating equations,
  ``J^-1 B J^-T``, where ``J`` is their Jacobian and ``B`` the variance of the scores under the
  draw model. The half-point likelihood alone (``B = -J``) would treat every game as a coin flip
  and overstate the errors by ~14% at a 23% draw rate; using the draw model's per-game variance
  is exact to first order for Ordo's simulation. Cheap at any size: this is the default.
* ``simulate``: Ordo's method, vectorised: multinomial replays of every cell, refitted as one
  batch by :func:`ratings.solver.solve`, seeded for reproducibility.

Both return the covariance of (player 1..m-1, advantage) with player 0 pinned, which the
caller maps to the reported convention (pool average or anchor).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from ratings import draws
from ratings.solver import Pairings, equations, solve

if TYPE_CHECKING:  # numpy.typing costs ~10 ms to import; annotations only
    from numpy.typing import NDArray

    FloatArray = NDArray[np.float64]


SIM_PRIOR = 1e-3
"""Virtual draws (in games) added to every cell of a replay so that a replay in which somebody
wins every game still has a finite fit; small enough to move nothing measurable."""


def sandwich_covariance(
    pairings: Pairings,
    points: FloatArray,
    ratings: FloatArray,
    advantage: float,
    d0: float,
    beta: float,
    fit_advantage: bool,
) -> FloatArray:
    """Covariance of (r_1..r_{m-1}[, advantage]) at the fit, player 0 pinned at 0."""
    m = pairings.m
    _, jac, f = equations(
        pairings, points[None, :], ratings[None, :], np.array([advantage]), beta, fit_advantage
    )
    keep = np.arange(1, m + 1) if fit_advantage else np.arange(1, m)
    j = jac[0][np.ix_(keep, keep)]
    v = pairings.games * draws.score_variance(f[0], d0)
    # Each cell's contribution to the equations, as a vector over the kept parameters.
    u = np.zeros((pairings.w.size, m + 1))
    cells = np.arange(pairings.w.size)
    u[cells, pairings.w] += 1.0
    u[cells, pairings.b] -= 1.0
    u[:, m] = 1.0
    u = u[:, keep]
    b = (u * v[:, None]).T @ u
    jinv = np.linalg.pinv(j)
    result: FloatArray = jinv @ b @ jinv.T
    return result


def simulate(
    pairings: Pairings,
    ratings: FloatArray,
    advantage: float,
    d0: float,
    beta: float,
    fit_advantage: bool,
    runs: int = 1000,
    seed: int = 0,
) -> tuple[FloatArray, FloatArray, FloatArray]:
    """Replays: ratings (runs, m) pinned at player 0, advantages (runs,), draw rates (runs,)."""
    rng = np.random.default_rng(seed)
    probs = np.stack(
        draws.outcome_probabilities(
            1.0 / (1.0 + np.exp(-beta * (ratings[pairings.w] - ratings[pairings.b] + advantage))),
            d0,
        ),
        axis=1,
    )
    probs /= probs.sum(axis=1, keepdims=True)
    n = np.floor(pairings.games + 1e-9).astype(np.int64)
    virtual = pairings.games - n  # fractional games are virtual draws (the prior): kept as such
    wdl = rng.multinomial(n, probs, size=(runs, n.size)).astype(np.float64)  # (runs, cells, 3)
    points = wdl[:, :, 0] + 0.5 * wdl[:, :, 1] + 0.5 * (virtual + SIM_PRIOR)
    padded = Pairings(pairings.m, pairings.w, pairings.b, pairings.games + SIM_PRIOR)
    start = np.repeat(ratings[None, :] - ratings[0], runs, axis=0)
    r, a, _ = solve(padded, points, beta, fit_advantage, advantage, start=start)
    f = 1.0 / (1.0 + np.exp(-beta * (r[:, pairings.w] - r[:, pairings.b] + a[:, None])))
    d = draw_rates_batch(f, wdl)
    return r, a, d


def draw_rates_batch(expected: FloatArray, wdl: FloatArray) -> FloatArray:
    """Maximum-likelihood draw rate of each replay (golden-section search, vectorised)."""
    runs = expected.shape[0]
    lo = np.full(runs, 1e-6)
    hi = np.full(runs, 1.0 - 1e-6)
    ratio = (np.sqrt(5.0) - 1.0) / 2.0

    def nll(x: FloatArray) -> FloatArray:
        return -draws.log_likelihood(expected, wdl, x[:, None])

    x1 = hi - ratio * (hi - lo)
    x2 = lo + ratio * (hi - lo)
    f1, f2 = nll(x1), nll(x2)
    for _ in range(60):
        left = f1 < f2
        hi = np.where(left, x2, hi)
        lo = np.where(left, lo, x1)
        x2n = np.where(left, x1, lo + ratio * (hi - lo))
        x1n = np.where(left, hi - ratio * (hi - lo), x2)
        x1, x2 = x1n, x2n
        f1n = nll(x1)
        f2n = nll(x2)
        f1, f2 = f1n, f2n
    result: FloatArray = (lo + hi) / 2.0
    return result
