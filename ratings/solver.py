"""The numerical core: Newton's method on the rating equations, for one data set or a batch.

Ratings solve, for every player, "expected points = points scored" (the maximum-likelihood
condition of the logistic model with draws counted as half points, as in Ordo). The first-move
advantage solves Ordo's condition: it minimises the squared error of every game's score, which
weights each pairing by ``f (1 - f)``. One player is pinned at 0 during the solve (the system is
otherwise singular); the caller shifts the result to the wanted average or anchor.

The solver is batched (``K`` data sets over the same pairings) so the simulated replays that
give error bars run as a handful of vectorised Newton steps instead of a thousand fits.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np

from ratings.numeric import expit

if TYPE_CHECKING:  # numpy.typing costs ~10 ms to import; annotations only
    from numpy.typing import NDArray

    FloatArray = NDArray[np.float64]
    IntArray = NDArray[np.int64]


MAX_STEP = 400.0
"""Largest change of any parameter in one Newton step (rating points): keeps early steps sane."""
TOLERANCE = 1e-9
MAX_ITERATIONS = 200


@dataclass(frozen=True)
class Pairings:
    """The cells of a fit: first mover ``w``, second mover ``b`` (indices in ``0..m-1``), games."""

    m: int
    w: IntArray
    b: IntArray
    games: FloatArray


def _scatter(index: IntArray, values: FloatArray, m: int) -> FloatArray:
    """Per-row ``bincount``: ``out[k, i] = sum(values[k, c] for c with index[c] == i)``."""
    k = values.shape[0]
    flat = (np.arange(k)[:, None] * m + index[None, :]).ravel()
    result = np.asarray(np.bincount(flat, values.ravel(), k * m), dtype=np.float64)
    return result.reshape(k, m)


def expected_scores(
    pairings: Pairings, ratings: FloatArray, advantage: FloatArray, beta: float
) -> FloatArray:
    """Expected score of the first mover in every cell, shape (K, cells)."""
    d = ratings[:, pairings.w] - ratings[:, pairings.b] + advantage[:, None]
    result: FloatArray = expit(beta * d)
    return result


def equations(
    pairings: Pairings,
    points: FloatArray,
    ratings: FloatArray,
    advantage: FloatArray,
    beta: float,
    fit_advantage: bool,
) -> tuple[FloatArray, FloatArray, FloatArray]:
    """Residuals ``g`` (K, m+1), their Jacobian (K, m+1, m+1) and the expected scores.

    Rows 0..m-1: points scored minus expected, per player. Row m: the advantage condition
    ``sum f (1 - f) (S - N f)`` (zero when the advantage is not fitted).
    """
    m, w, b, n = pairings.m, pairings.w, pairings.b, pairings.games
    k = ratings.shape[0]
    f = expected_scores(pairings, ratings, advantage, beta)
    fp = beta * f * (1.0 - f)
    res = points - n[None, :] * f
    h = n[None, :] * fp
    g = np.zeros((k, m + 1))
    g[:, :m] = _scatter(w, res, m) - _scatter(b, res, m)
    jac = np.zeros((k, m + 1, m + 1))
    hw = _scatter(w, h, m)
    hb = _scatter(b, h, m)
    cross = np.bincount(
        (np.arange(k)[:, None] * m * m + (w * m + b)[None, :]).ravel(), h.ravel(), k * m * m
    ).reshape(k, m, m)
    idx = np.arange(m)
    jac[:, :m, :m] = cross + cross.transpose(0, 2, 1)
    jac[:, idx, idx] -= hw + hb
    jac[:, :m, m] = -(hw - hb)
    if fit_advantage:
        g[:, m] = np.sum(res, axis=1)
        jac[:, m, :m] = -(hw - hb)
        jac[:, m, m] = -np.sum(h, axis=1)
    else:
        jac[:, m, m] = 1.0
    return g, jac, f


def solve(
    pairings: Pairings,
    points: FloatArray,
    beta: float,
    fit_advantage: bool,
    advantage: float = 0.0,
    start: FloatArray | None = None,
) -> tuple[FloatArray, FloatArray, int]:
    """Ratings (K, m) with player 0 pinned at 0, advantages (K,), and the iterations used.

    ``points`` is the first mover's points per cell, shape (K, cells). When the advantage is
    not fitted it stays at ``advantage``. Raises ``ArithmeticError`` if Newton's method does
    not converge (which means the data have no finite maximum; the caller prevents that).
    """
    k = points.shape[0]
    m = pairings.m
    r = np.zeros((k, m)) if start is None else start.copy()
    a = np.full(k, float(advantage))
    keep = np.arange(1, m + 1) if fit_advantage else np.arange(1, m)
    if keep.size == 0:
        return r, a, 0
    for iteration in range(1, MAX_ITERATIONS + 1):
        g, jac, _ = equations(pairings, points, r, a, beta, fit_advantage)
        sub = jac[:, keep][:, :, keep]
        try:
            step = np.linalg.solve(sub, -g[:, keep, None])[:, :, 0]
        except np.linalg.LinAlgError:
            step = (np.linalg.pinv(sub) @ -g[:, keep, None])[:, :, 0]
        biggest = np.max(np.abs(step), axis=1)
        step *= np.minimum(1.0, MAX_STEP / np.maximum(biggest, 1e-300))[:, None]
        r[:, 1:] += step[:, : m - 1]
        if fit_advantage:
            a += step[:, m - 1]
        if np.all(biggest < TOLERANCE):
            return r, a, iteration
    raise ArithmeticError("rating fit did not converge")
