"""The draw model: how often two players draw, given their expected score and the draw rate.

Ordo's model (its ``-D``): for equal opponents the draw rate is ``d0``, and for any pairing the
win, draw and loss probabilities keep ``W * L = (D * (1 - d0) / (2 * d0)) ** 2`` (a Davidson-type
model) while ``W + D / 2`` equals the logistic expected score. We need it for two things that the
half-point likelihood alone cannot give: the draw rate reported next to the ratings, and the
per-game score variance (draws make a game's score less variable than a win-or-loss coin), which
sets the width of the error bars and drives the simulated replays.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from ratings.numeric import minimize_bounded

if TYPE_CHECKING:  # numpy.typing costs ~10 ms to import; annotations only
    from numpy.typing import ArrayLike, NDArray

    FloatArray = NDArray[np.float64]


_D0_MIN = 1e-9


def draw_probability(expected: ArrayLike, d0: float | ArrayLike) -> FloatArray:
    """Probability of a draw for an expected score ``expected`` when equals draw at rate ``d0``.

    Solves ``a x^2 + 2 x + c = 0`` with ``c = 4 (p^2 - p)`` and ``a = 4 phi^2 - 1``,
    ``phi = (1 - d0) / (2 d0)``, in the cancellation-free form ``x = -c / (1 + sqrt(1 - a c))``
    (valid for every ``d0`` in (0, 1], including Ordo's special case ``d0 = 0.5``).
    """
    p = np.clip(np.asarray(expected, dtype=np.float64), 0.0, 1.0)
    d = np.clip(np.asarray(d0, dtype=np.float64), _D0_MIN, 1.0)
    phi = (1.0 - d) / (2.0 * d)
    a = 4.0 * phi * phi - 1.0
    c = 4.0 * (p * p - p)
    result: FloatArray = -c / (1.0 + np.sqrt(np.maximum(1.0 - a * c, 0.0)))
    return result


def outcome_probabilities(
    expected: ArrayLike, d0: float | ArrayLike
) -> tuple[FloatArray, FloatArray, FloatArray]:
    """(win, draw, loss) probabilities of the first-named side for an expected score."""
    p = np.asarray(expected, dtype=np.float64)
    pd = draw_probability(p, d0)
    pw = np.clip(p - pd / 2.0, 0.0, 1.0)
    pl = np.clip(1.0 - pw - pd, 0.0, 1.0)
    return pw, pd, pl


def score_variance(expected: ArrayLike, d0: float) -> FloatArray:
    """Variance of one game's score (1, 1/2, 0) under the draw model: ``p (1 - p) - pd / 4``."""
    p = np.asarray(expected, dtype=np.float64)
    result: FloatArray = np.maximum(p * (1.0 - p) - draw_probability(p, d0) / 4.0, 0.0)
    return result


def log_likelihood(expected: FloatArray, wdl: FloatArray, d0: float | FloatArray) -> FloatArray:
    """Log-likelihood of win/draw/loss counts ``wdl`` (..., cells, 3) for a draw rate ``d0``."""
    pw, pd, pl = outcome_probabilities(expected, d0)
    tiny = 1e-300
    result: FloatArray = np.sum(
        wdl[..., 0] * np.log(np.maximum(pw, tiny))
        + wdl[..., 1] * np.log(np.maximum(pd, tiny))
        + wdl[..., 2] * np.log(np.maximum(pl, tiny)),
        axis=-1,
    )
    return result


def fit_draw_rate(
    expected: ArrayLike, wins: ArrayLike, draws: ArrayLike, losses: ArrayLike
) -> float:
    """The equal-opponents draw rate that makes the observed wins, draws and losses likeliest.

    The expected scores (ratings and first-move advantage) are held fixed; this reproduces
    Ordo's ``-D`` figure to a few hundredths of a percent on our fixture.
    """
    p = np.asarray(expected, dtype=np.float64)
    wdl = np.stack([np.asarray(x, dtype=np.float64) for x in (wins, draws, losses)], axis=-1)
    if wdl.sum() <= 0:
        return float("nan")
    if wdl[:, 1].sum() <= 0:
        return 0.0

    def loss(x: float) -> float:
        return -float(log_likelihood(p, wdl, x))

    return minimize_bounded(loss, _D0_MIN, 1.0 - _D0_MIN, xatol=1e-10)


def draw_rate_sd(expected: ArrayLike, games: ArrayLike, d0: float) -> float:
    """Standard deviation of :func:`fit_draw_rate` from the Fisher information (ratings fixed)."""
    p = np.asarray(expected, dtype=np.float64)
    n = np.asarray(games, dtype=np.float64)
    if not 0.0 < d0 < 1.0:
        return float("nan")
    h = 1e-6 * min(d0, 1.0 - d0)
    probs = np.stack(outcome_probabilities(p, d0))
    slope = np.stack(outcome_probabilities(p, d0 + h)) - np.stack(outcome_probabilities(p, d0 - h))
    slope /= 2.0 * h
    info = float(np.sum(n * np.sum(slope * slope / np.maximum(probs, 1e-300), axis=0)))
    return float("nan") if info <= 0 else float(1.0 / np.sqrt(info))
