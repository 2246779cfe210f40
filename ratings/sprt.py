"""The sequential probability ratio test for a two-player match, as fishtest and fastchess run it.

H0: the tested player is ``elo0`` stronger; H1: ``elo1`` stronger. After each game the
log-likelihood ratio (LLR) is compared with ``log(beta / (1 - alpha))`` and
``log((1 - beta) / alpha)``.

The LLR is the generalised one of fishtest (``server/fishtest/stats/LLRcalc.py``) and fastchess
(``app/src/matchmaking/sprt/sprt.cpp``): for each hypothesis, the outcome distribution that
satisfies it and is the most likely to have produced the observed counts (its maximum-likelihood
estimate), then ``N * sum q_i log(p1_i / p0_i)``. Empty outcome classes count 1e-3, as in both
programs. The trinomial statistic counts games (scores 0, 1/2, 1); the pentanomial statistic
counts colour pairs (average scores 0, 1/4, 1/2, 3/4, 1) and is the right one for paired openings.

Two Elo models say what ``elo0`` and ``elo1`` mean (``elo_model``; the names are fishtest's):

- ``"logistic"``: the expected score is ``1 / (1 + 10^(-elo/400))``. The hypothesis fixes the
  mean score ``s``; the MLE is ``p_i = q_i / (1 + theta (a_i - s))`` (fishtest
  ``LLR_logistic``; fastchess ``model=logistic``).
- ``"normalized"`` (nElo): ``elo = t * 800 / ln 10`` with ``t = (mu - 1/2) / sigma`` the
  t-value of one game's score, so the bounds do not depend on the draw rate. For colour pairs
  ``sigma`` is the pair average's spread, and a game's t-value is the pair's over ``sqrt 2``
  (fishtest multiplies the per-game t by ``sqrt 2``, as does fastchess). The hypothesis fixes
  ``t``; the MLE is found by the fixed-point iteration of Van den Bergh, "Comments on
  Normalized Elo", section 4.1 (fishtest ``MLE_t_value``/``LLR_normalized``; fastchess
  ``getLLR_normalized``, which is fastchess's default model).

The library default stays ``"logistic"`` so that old calls keep their meaning; the runner's
``[sprt]`` table defaults to ``"normalized"`` like fastchess and fishtest's test form.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from enum import StrEnum
from typing import Literal

import numpy as np

from ratings.pairwise import PAIR_SCORES, Pentanomial

REGULARIZE = 1e-3
"""Count used for an outcome that has not occurred (fishtest's and fastchess's epsilon)."""

NELO_PER_T = 800.0 / math.log(10.0)
"""Normalized Elo per unit of t-value (about 347.44): nElo = t * 800 / ln 10."""

EloModel = Literal["logistic", "normalized"]
ELO_MODELS: tuple[EloModel, ...] = ("logistic", "normalized")

_T_ITERATIONS = 200
_T_TOLERANCE = 1e-13

TRINOMIAL_SCORES = (0.0, 0.5, 1.0)


def logistic_score(elo: float) -> float:
    """Expected score for a logistic Elo difference."""
    return 1.0 / (1.0 + 10.0 ** (-elo / 400.0))


def bounds(alpha: float, beta: float) -> tuple[float, float]:
    """(lower, upper) LLR bounds: accept H0 at or below lower, H1 at or above upper."""
    return math.log(beta / (1.0 - alpha)), math.log((1.0 - beta) / alpha)


def _secular(q: np.ndarray, a: np.ndarray) -> float:
    """The root ``theta`` of ``sum q_i a_i / (1 + theta a_i) = 0`` that keeps every
    ``1 + theta a_i`` positive (``a`` must take both signs)."""
    lo, hi = -1.0 / a.max(), -1.0 / a.min()

    def g(theta: float) -> float:
        return float(np.sum(q * a / (1.0 + theta * a)))

    from scipy.optimize import brentq  # here, not at import: the package loads without scipy

    span = hi - lo
    return float(
        brentq(g, lo + 1e-12 * span, hi - 1e-12 * span, xtol=1e-15, rtol=1e-15, maxiter=500)
    )


def _mle(scores: np.ndarray, q: np.ndarray, s: float) -> np.ndarray:
    """The distribution on ``scores`` with mean ``s`` that maximises the likelihood of ``q``."""
    a = scores - s
    p: np.ndarray = q / (1.0 + _secular(q, a) * a)
    return p / p.sum()


def _mle_t(scores: np.ndarray, q: np.ndarray, ref: float, t: float) -> np.ndarray:
    """The distribution on ``scores`` with ``(mean - ref) / sd == t`` that maximises the
    likelihood of ``q``.

    At the optimum ``p_i = q_i / (1 + theta phi_i)`` where ``phi`` is the gradient of the
    constraint, ``phi_i = a_i - ref - t sd (1 + ((a_i - mu) / sd)^2) / 2``, which depends on
    ``p`` itself; so iterate from the uniform distribution, as fishtest and fastchess do (they
    stop after 10 rounds or at a 1e-4 change; we iterate to 1e-13).
    """
    p = np.full(len(q), 1.0 / len(q))
    for _ in range(_T_ITERATIONS):
        mu = float(p @ scores)
        sd = math.sqrt(float(p @ (scores - mu) ** 2))
        phi = scores - ref - t * sd * (1.0 + ((scores - mu) / sd) ** 2) / 2.0
        new: np.ndarray = q / (1.0 + _secular(q, phi) * phi)
        new /= new.sum()
        change = float(np.max(np.abs(new - p)))
        p = new
        if change < _T_TOLERANCE:
            break
    return p


def _check_elo_model(elo_model: str) -> None:
    if elo_model not in ELO_MODELS:
        raise ValueError(f"unknown Elo model {elo_model!r}: use 'logistic' or 'normalized'")


def llr(
    counts: Sequence[float],
    scores: Sequence[float],
    elo0: float,
    elo1: float,
    elo_model: EloModel = "logistic",
    games_per_count: int = 1,
) -> float:
    """Generalised LLR of H1 (``elo1``) against H0 (``elo0``) for outcome counts on ``scores``.

    ``games_per_count`` is how many games one counted outcome averages (2 for colour pairs): a
    normalized-Elo hypothesis about one game is a t-value ``sqrt(games_per_count)`` times larger
    for the average of that many games.
    """
    _check_elo_model(elo_model)
    c = np.array([x if x > 0 else REGULARIZE for x in counts], dtype=np.float64)
    total = float(c.sum())
    q = c / total
    x = np.array(scores, dtype=np.float64)
    if elo_model == "logistic":
        p0 = _mle(x, q, logistic_score(elo0))
        p1 = _mle(x, q, logistic_score(elo1))
    else:
        scale = math.sqrt(games_per_count) / NELO_PER_T
        p0 = _mle_t(x, q, 0.5, elo0 * scale)
        p1 = _mle_t(x, q, 0.5, elo1 * scale)
    return total * float(np.sum(q * (np.log(p1) - np.log(p0))))


def llr_trinomial(
    wins: int,
    draws: int,
    losses: int,
    elo0: float,
    elo1: float,
    elo_model: EloModel = "logistic",
) -> float:
    """LLR from the tested player's wins, draws and losses."""
    return llr((losses, draws, wins), TRINOMIAL_SCORES, elo0, elo1, elo_model)


def llr_pentanomial(
    penta: Pentanomial | Sequence[int],
    elo0: float,
    elo1: float,
    elo_model: EloModel = "logistic",
) -> float:
    """LLR from colour-pair counts (LL, LD, WL+DD, WD, WW) or a :class:`Pentanomial`."""
    five = penta.five() if isinstance(penta, Pentanomial) else tuple(penta)
    if len(five) != 5:
        raise ValueError(f"pentanomial counts need 5 numbers, got {len(five)}")
    return llr(five, PAIR_SCORES, elo0, elo1, elo_model, games_per_count=2)


class Decision(StrEnum):
    CONTINUE = "continue"
    ACCEPT_H0 = "accept-h0"
    ACCEPT_H1 = "accept-h1"


@dataclass(frozen=True)
class SprtStatus:
    """Where the test stands: the decision, the LLR it was taken on, and both bounds."""

    decision: Decision
    llr: float
    lower: float
    upper: float
    model: str
    llr_trinomial: float
    llr_pentanomial: float
    wins: int
    draws: int
    losses: int
    penta: Pentanomial
    elo_model: str = "logistic"

    @property
    def finished(self) -> bool:
        return self.decision is not Decision.CONTINUE

    def describe(self) -> str:
        """One line in fastchess's style."""
        ptnml = ", ".join(str(v) for v in self.penta.five())
        return (
            f"LLR: {self.llr:.2f} ({self.lower:.2f}, {self.upper:.2f}) "
            f"[{self.model}, {self.elo_model}] "
            f"W/D/L: {self.wins}/{self.draws}/{self.losses} Ptnml(0-2): [{ptnml}] "
            f"-> {self.decision.value}"
        )


class Sprt:
    """A running SPRT between a tested player and its opponent, fed one game at a time.

    >>> test = Sprt(0.0, 10.0, 0.05, 0.05)
    >>> state = test.update(1.0)        # tested player won; pair id optional
    >>> state.decision                  # Decision.CONTINUE until a bound is crossed
    <Decision.CONTINUE: 'continue'>

    ``update(score, pair=...)``: ``score`` is the tested player's (1, 0.5, 0). Games carrying
    the same ``pair`` id form a colour pair; without ids, games 1 and 2, 3 and 4, ... do.
    ``model`` picks the LLR the decision uses; both are always reported. ``elo_model`` says
    what ``elo0``/``elo1`` mean: ``"logistic"`` Elo (the default here) or ``"normalized"`` Elo
    (nElo, fastchess's default and fishtest's); see the module docstring.
    """

    def __init__(
        self,
        elo0: float,
        elo1: float,
        alpha: float = 0.05,
        beta: float = 0.05,
        model: Literal["pentanomial", "trinomial"] = "pentanomial",
        elo_model: EloModel = "logistic",
    ) -> None:
        if not elo0 < elo1:
            raise ValueError(f"SPRT needs elo0 < elo1, got elo0={elo0}, elo1={elo1}")
        for name, value in (("alpha", alpha), ("beta", beta)):
            if not 0.0 < value < 1.0:
                raise ValueError(f"SPRT {name} must be between 0 and 1, got {value}")
        if alpha + beta >= 1.0:
            raise ValueError("SPRT alpha + beta must be less than 1")
        if model not in ("pentanomial", "trinomial"):
            raise ValueError(f"unknown SPRT model {model!r}")
        _check_elo_model(elo_model)
        self.elo_model: EloModel = elo_model
        self.elo0, self.elo1, self.alpha, self.beta, self.model = elo0, elo1, alpha, beta, model
        self.lower, self.upper = bounds(alpha, beta)
        self.wdl = [0, 0, 0]
        self.penta = Pentanomial()
        self._waiting: dict[str | None, float] = {}

    def update(self, score: float, pair: str | None = None) -> SprtStatus:
        """Add one game (the tested player's score) and return the new status."""
        self.add(score, pair)
        return self.status()

    def add(self, score: float, pair: str | None = None) -> None:
        """Add one game without working out the status: the LLRs are solved numerically
        (milliseconds), so a caller taking in many games at once asks :meth:`status` once."""
        if score not in (0.0, 0.5, 1.0):
            raise ValueError(f"score must be 0, 0.5 or 1, got {score!r}")
        self.wdl[0 if score == 1.0 else 1 if score == 0.5 else 2] += 1
        if pair in self._waiting:
            self.penta = self.penta.add(self._waiting.pop(pair), score)
        else:
            self._waiting[pair] = score

    def status(self) -> SprtStatus:
        w, d, lo = self.wdl
        games = w + d + lo
        e0, e1, em = self.elo0, self.elo1, self.elo_model
        tri = llr_trinomial(w, d, lo, e0, e1, em) if games else 0.0
        pen = llr_pentanomial(self.penta, e0, e1, em) if self.penta.pairs else 0.0
        value = pen if self.model == "pentanomial" else tri
        if value >= self.upper:
            decision = Decision.ACCEPT_H1
        elif value <= self.lower:
            decision = Decision.ACCEPT_H0
        else:
            decision = Decision.CONTINUE
        return SprtStatus(
            decision, value, self.lower, self.upper, self.model, tri, pen, w, d, lo, self.penta, em
        )
