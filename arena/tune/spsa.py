"""SPSA, the stochastic approximation that tunes a bot's options by games: its schedule and
its state, pure (no files, no processes, no clocks).

Each iteration perturbs every parameter at once by ``±c_k`` (a random sign per parameter,
the "flips"), plays the bot with ``θ + c_k Δ`` against itself with ``θ - c_k Δ``, and moves
``θ`` along ``Δ`` by the result: ``θ_i += a_k · result · Δ_i / c_k,i``, clamped into the
parameter's range. ``result`` is the wins minus the losses of the ``+`` side over one colour
pair (two games, one opening, colours swapped): -2 to 2. That is fishtest's update
(``server/fishtest/spsa_handler.py``: ``theta += R c result flip`` with ``R = a_k / c_k²``).

The gains are Spall's, with fishtest's constants and its way of writing them:

- ``c_k = c / k^γ`` and ``a_k = a / (A + k)^α`` for iteration ``k = 1, 2, ... N``;
- ``α = 0.602``, ``γ = 0.101`` (Spall's practical values), ``A = 10%`` of the iterations;
- a parameter is written with the values it should have at the end: ``c_end`` (the last
  perturbation, in the option's own units) and ``r_end`` (the last step per unit of result,
  as a fraction of ``c_end²``): ``c = c_end · N^γ``, ``a = r_end · c_end² · (A + N)^α``.
  fishtest's usual ``r_end`` is 0.002. ``a`` may be given instead of ``r_end``.

A ``spin`` option takes integers: the values sent to the bot are rounded, ``θ`` itself stays a
real number (a step smaller than one still counts). docs/tune.md argues the schedule.
"""

from __future__ import annotations

import math
import random
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Final

ALPHA: Final = 0.602
"""The exponent of the step size's decay (Spall; fishtest's default)."""
GAMMA: Final = 0.101
"""The exponent of the perturbation's decay (Spall; fishtest's default)."""
A_RATIO: Final = 0.1
"""fishtest's default ``A``: 10% of the iterations."""
R_END: Final = 0.002
"""fishtest's customary ``r_end``: the last step, per unit of result, over ``c_end²``."""


@dataclass(frozen=True)
class Param:
    """One tuned option: where it starts, its range, and its gains written at their end."""

    name: str
    start: float
    low: float
    high: float
    c_end: float
    """The last iteration's perturbation, in the option's units (> 0)."""
    r_end: float | None = R_END
    """The last step per unit of result over ``c_end²`` (fishtest's ``r_end``); None when
    :attr:`a` is given."""
    a: float | None = None
    """The step size's numerator itself, instead of :attr:`r_end`."""
    integer: bool = False
    """A ``spin`` option: the values sent are rounded to integers."""

    def __post_init__(self) -> None:
        if not self.low <= self.start <= self.high:
            raise ValueError(f"{self.name}: start {self.start:g} outside [{self.low:g}, "
                             f"{self.high:g}]")
        if not self.c_end > 0:
            raise ValueError(f"{self.name}: c must be positive, got {self.c_end:g}")
        if (self.a is None) == (self.r_end is None):
            raise ValueError(f"{self.name}: give r or a, not both")

    def clamp(self, value: float) -> float:
        return min(max(value, self.low), self.high)

    def sent(self, value: float) -> float | int:
        """The value the bot is given: clamped, and rounded for a ``spin`` option."""
        clamped = self.clamp(value)
        return int(round(clamped)) if self.integer else clamped


@dataclass(frozen=True)
class Gains:
    """The schedule of one tune: ``N`` iterations, ``A``, ``α``, ``γ``."""

    iterations: int
    big_a: float
    alpha: float = ALPHA
    gamma: float = GAMMA

    @classmethod
    def for_iterations(cls, iterations: int, a_ratio: float = A_RATIO,
                       alpha: float = ALPHA, gamma: float = GAMMA) -> Gains:
        if iterations < 1:
            raise ValueError(f"a tune needs at least one iteration, got {iterations}")
        return cls(iterations, a_ratio * iterations, alpha, gamma)

    def c(self, param: Param) -> float:
        """The perturbation's numerator: ``c_end · N^γ``."""
        return param.c_end * self.iterations ** self.gamma

    def a(self, param: Param) -> float:
        """The step's numerator: given, else ``r_end · c_end² · (A + N)^α``."""
        if param.a is not None:
            return param.a
        assert param.r_end is not None
        return param.r_end * param.c_end ** 2 * (self.big_a + self.iterations) ** self.alpha

    def c_k(self, param: Param, k: int) -> float:
        """Iteration ``k``'s perturbation (``k`` from 1)."""
        return self.c(param) / k ** self.gamma

    def a_k(self, param: Param, k: int) -> float:
        """Iteration ``k``'s step numerator."""
        return self.a(param) / (self.big_a + k) ** self.alpha


def flips(seed: int | str, k: int, count: int) -> tuple[int, ...]:
    """Iteration ``k``'s signs, a pure function of the seed (so a resumed tune draws the same)."""
    rng = random.Random(f"spsa:{seed}:{k}")
    return tuple(rng.choice((-1, 1)) for _ in range(count))


@dataclass(frozen=True)
class Perturbed:
    """One iteration's two sides: the values each is played with (as sent to the bot)."""

    k: int
    flips: tuple[int, ...]
    plus: tuple[float | int, ...]
    minus: tuple[float | int, ...]


def perturb(params: Sequence[Param], gains: Gains, theta: Sequence[float], k: int,
            signs: Sequence[int]) -> Perturbed:
    """Iteration ``k``'s ``θ ± c_k Δ``, clamped and rounded as each option takes it."""
    plus = tuple(p.sent(t + gains.c_k(p, k) * s) for p, t, s in zip(params, theta, signs,
                                                                      strict=True))
    minus = tuple(p.sent(t - gains.c_k(p, k) * s) for p, t, s in zip(params, theta, signs,
                                                                       strict=True))
    return Perturbed(k, tuple(signs), plus, minus)


def update(params: Sequence[Param], gains: Gains, theta: Sequence[float], k: int,
           signs: Sequence[int], result: float) -> tuple[float, ...]:
    """``θ`` after iteration ``k`` scored ``result`` (the ``+`` side's wins minus losses over
    its colour pair): ``θ_i + a_k · result · Δ_i / c_k,i``, clamped."""
    if not -2.0 <= result <= 2.0 or math.isnan(result):
        raise ValueError(f"a colour pair's result is between -2 and 2, got {result}")
    return tuple(
        p.clamp(t + gains.a_k(p, k) * result * s / gains.c_k(p, k))
        for p, t, s in zip(params, theta, signs, strict=True)
    )


def sent_values(params: Sequence[Param], theta: Sequence[float]) -> tuple[float | int, ...]:
    """``θ`` as the bot is given it (the tuned values written out)."""
    return tuple(p.sent(t) for p, t in zip(params, theta, strict=True))
