"""The Bayesian fit's numbers: the posterior mode of the ratings and the posterior covariance.

The likelihood is the one the maximum-likelihood fit uses (:mod:`ratings.solver`): the logistic
model with the first mover's advantage, draws counted as half points, as Ordo does. The prior
(:mod:`ratings.prior`) is Gaussian, so the log posterior is

    sum over cells [S log f + (N - S) log(1 - f)]  -  theta' P theta / 2

with ``theta`` = (ratings[, advantage]). It is strictly concave (``P`` is positive definite),
so it has exactly one maximum, always finite, whatever the results: Newton's method finds it
from zero. With a prior wide enough to say nothing (an sd of a million points) it is the
maximum-likelihood fit's solution to a millionth of a point.

The interval is the posterior's curvature at the mode (a Laplace approximation), with one
correction: the half-point likelihood treats a game as a coin toss, which overstates its
variance where games are drawn (at a 23% draw rate, error bars come out ~14% too wide). As
:mod:`ratings.uncertainty` does for the maximum-likelihood fit, the data's information is
taken as ``J B^+ J`` (``J`` the likelihood's curvature, ``B`` the variance of its score under
the draw model), which is ``J`` itself when nothing is drawn; the posterior precision adds
the prior's ``P``. Where the results carry no information about a distance (players the results
only order), ``J`` is nearly zero in that direction and the interval is the prior's.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Final

import numpy as np

from ratings import draws
from ratings.numeric import expit
from ratings.solver import MAX_STEP, Pairings

if TYPE_CHECKING:  # numpy.typing costs ~10 ms to import; annotations only
    from numpy.typing import NDArray

    FloatArray = NDArray[np.float64]

TOLERANCE: Final = 1e-9
"""Newton stops when no parameter moves by more than this many points."""
MAX_ITERATIONS: Final = 500
EIGEN_FLOOR: Final = 1e-13
"""Eigenvalues of ``B`` below this fraction of the largest are its null space (the shift of
every rating at once, and players with no games)."""


@dataclass(frozen=True)
class Mode:
    """The posterior mode: ratings (``m``), the first mover's advantage, Newton's steps."""

    ratings: FloatArray
    advantage: float
    iterations: int


def _curvature(pairings: Pairings, weights: FloatArray, fit_advantage: bool) -> FloatArray:
    """``sum over cells of weight * u u'``, where a cell's ``u`` is +1 for its first mover,
    -1 for its second mover and +1 for the advantage when it is fitted: one ``bincount``, not a
    product over every cell."""
    m = pairings.m
    size = m + (1 if fit_advantage else 0)
    w, b = pairings.w, pairings.b
    rows = [w, b, w, b]
    cols = [w, b, b, w]
    signs = [1.0, 1.0, -1.0, -1.0]
    if fit_advantage:
        adv = np.full(w.size, m)
        rows += [w, adv, b, adv, adv]
        cols += [adv, w, adv, b, adv]
        signs += [1.0, 1.0, -1.0, -1.0, 1.0]
    flat = np.concatenate([r * size + c for r, c in zip(rows, cols, strict=True)])
    values = np.concatenate([s * weights for s in signs])
    result = np.bincount(flat, values, size * size).reshape(size, size)
    return np.asarray(result, dtype=np.float64)


def _gradient(pairings: Pairings, residual: FloatArray, fit_advantage: bool) -> FloatArray:
    """``sum over cells of residual * u`` (:func:`_curvature`'s ``u``)."""
    m = pairings.m
    g = np.bincount(pairings.w, residual, m) - np.bincount(pairings.b, residual, m)
    if fit_advantage:
        g = np.concatenate([g, [residual.sum()]])
    return np.asarray(g, dtype=np.float64)


def _expected(pairings: Pairings, theta: FloatArray, fit_advantage: bool, advantage: float,
              beta: float) -> FloatArray:
    m = pairings.m
    a = theta[m] if fit_advantage else advantage
    result: FloatArray = expit(beta * (theta[pairings.w] - theta[pairings.b] + a))
    return result


def posterior_mode(pairings: Pairings, points: FloatArray, beta: float, precision: FloatArray,
                   fit_advantage: bool, advantage: float = 0.0) -> Mode:
    """Maximise the log posterior (module docstring) by Newton's method from zero.

    ``precision`` is the prior's, over (ratings[, advantage]) (:meth:`Prior.precision`);
    ``advantage`` is used as it is when not fitted. Raises ``ArithmeticError`` if Newton does
    not converge (a concave function with a positive definite curvature: it does)."""
    m = pairings.m
    theta = np.zeros(m + (1 if fit_advantage else 0))
    for iteration in range(1, MAX_ITERATIONS + 1):
        f = _expected(pairings, theta, fit_advantage, advantage, beta)
        grad = beta * _gradient(pairings, points - pairings.games * f, fit_advantage)
        grad -= precision @ theta
        h = beta * beta * pairings.games * f * (1.0 - f)
        curvature = _curvature(pairings, h, fit_advantage) + precision
        step = np.linalg.solve(curvature, grad)
        biggest = float(np.max(np.abs(step))) if step.size else 0.0
        if biggest > MAX_STEP:
            step *= MAX_STEP / biggest
        theta += step
        if biggest < TOLERANCE:
            a = float(theta[m]) if fit_advantage else advantage
            return Mode(theta[:m].copy(), a, iteration)
    raise ArithmeticError("the posterior mode was not found (Newton did not converge)")


def posterior_covariance(pairings: Pairings, mode: Mode, beta: float, precision: FloatArray,
                         fit_advantage: bool, d0: float) -> FloatArray:
    """Covariance of (ratings[, advantage]) under the posterior: ``(J B^+ J + P)^-1``.

    ``d0`` is the draw rate of equals that sets each game's score variance (0 treats every
    game as a win or a loss)."""
    theta = np.concatenate([mode.ratings, [mode.advantage] if fit_advantage else []])
    f = _expected(pairings, theta, fit_advantage, mode.advantage, beta)
    h = beta * beta * pairings.games * f * (1.0 - f)
    v = beta * beta * pairings.games * draws.score_variance(f, d0)
    j = _curvature(pairings, h, fit_advantage)
    b = _curvature(pairings, v, fit_advantage)
    info = j @ _pinv_psd(b) @ j if np.any(v != h) else j
    result = np.asarray(np.linalg.inv(info + precision), dtype=np.float64)
    return result


def _pinv_psd(b: FloatArray) -> FloatArray:
    """Pseudo-inverse of a symmetric positive semi-definite matrix (eigenvalues below
    :data:`EIGEN_FLOOR` of the largest count as zero)."""
    values, vectors = np.linalg.eigh(b)
    top = float(values.max()) if values.size else 0.0
    keep = values > EIGEN_FLOOR * top
    inv = np.zeros_like(values)
    inv[keep] = 1.0 / values[keep]
    result: FloatArray = (vectors * inv) @ vectors.T
    return result
