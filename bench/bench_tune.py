"""SPSA on a known strength function, then the SPRT that proves the tune: no processes.

The "bot" has three options, piece values say, and its strength is a quadratic bowl around
a known optimum (Elo 0 there). A tune starts 200 Elo below the optimum (each option off by
its own width), plays ``θ + c_k Δ`` against ``θ - c_k Δ`` in colour pairs whose games are
drawn from the logistic Elo model with 30% draws at equal strength
(:func:`ratings.draws.outcome_probabilities`), and updates ``θ`` exactly as ``arena tune``
does (:mod:`arena.tune.spsa`). Then the tuned values play the start values in colour pairs
under the same model until the tune's proof (:mod:`arena.tune.proof`) decides.

Targets, over 20 seeds: the median tune ends within 20 Elo of the optimum within the
printed budget, and the proof accepts the tune (decides "better") in every seed; with a flat
strength function (every value as strong) the proof decides "better" in at most ``alpha``
of the seeds (it rejects, or stays undecided at its ``max_games``).
"""

from __future__ import annotations

import time
from typing import Final

import numpy as np

from arena.tune.proof import Proof
from arena.tune.spsa import Gains, Param, flips, perturb, sent_values, update
from ratings.draws import outcome_probabilities
from ratings.verdict import Outcome, VerdictSettings

SEEDS: Final = 20
PAIRS: Final = 1000
"""The budget: iterations of one colour pair each (2,000 games)."""
OPTIMUM: Final = (300.0, 500.0, 900.0)
WIDTH: Final = (100.0, 120.0, 150.0)
"""How far off each option starts; each costs a third of the 200 Elo there."""
START_ELO: Final = -200.0
DRAWS: Final = 0.3
C_END: Final = 0.3
"""c_end as a fraction of each option's width: the last perturbation costs each option
about 6 Elo on both sides, enough for a pair's result to see it."""
R_END: Final = 0.01
TARGET_ELO: Final = 20.0
CHECK_PAIRS: Final = 4
PROOF: Final = VerdictSettings(elo0=0.0, elo1=10.0, max_games=2000)


def strength(values: tuple[float | int, ...], flat: bool) -> float:
    """The known Elo of these option values (0 at the optimum; 0 everywhere when flat)."""
    if flat:
        return 0.0
    off = (np.asarray(values, dtype=np.float64) - OPTIMUM) / WIDTH
    return START_ELO / len(OPTIMUM) * float(np.sum(off ** 2))


def pair_scores(rng: np.random.Generator, elo_diff: float) -> tuple[float, float]:
    """The first side's scores in a colour pair against a side ``elo_diff`` weaker."""
    expected = 1.0 / (1.0 + 10.0 ** (-elo_diff / 400.0))
    win, draw, _ = (float(x) for x in outcome_probabilities(expected, DRAWS))
    u = rng.random(2).tolist()
    first, second = (1.0 if x < win else 0.5 if x < win + draw else 0.0 for x in u)
    return first, second


def tune(seed: int, flat: bool) -> tuple[tuple[float | int, ...], tuple[float | int, ...]]:
    """One tune: (start values, tuned values)."""
    rng = np.random.default_rng(seed)
    params = [Param(f"p{i}", OPTIMUM[i] - WIDTH[i] * (-1) ** i, 0.0, 2000.0,
                    C_END * WIDTH[i], R_END, integer=True) for i in range(len(OPTIMUM))]
    gains = Gains.for_iterations(PAIRS)
    theta = tuple(p.start for p in params)
    for k in range(1, PAIRS + 1):
        signs = flips(seed, k, len(params))
        sides = perturb(params, gains, theta, k, signs)
        first, second = pair_scores(rng, strength(sides.plus, flat) - strength(sides.minus, flat))
        theta = update(params, gains, theta, k, signs, 2 * (first + second - 1.0))
    return sent_values(params, [p.start for p in params]), sent_values(params, theta)


def prove(seed: int, start: tuple[float | int, ...], tuned: tuple[float | int, ...],
          flat: bool) -> Outcome:
    rng = np.random.default_rng(10_000 + seed)
    proof = Proof(PROOF)
    diff = strength(tuned, flat) - strength(start, flat)
    while not proof.closed:  # looked at every CHECK_PAIRS pairs, as a run with that many at once
        proof.add([pair_scores(rng, diff) for _ in range(CHECK_PAIRS)])
    assert proof.verdict is not None
    return proof.verdict.outcome


def main() -> None:
    for flat in (False, True):
        started = time.perf_counter()
        ends: list[float] = []
        outcomes: list[Outcome] = []
        for seed in range(SEEDS):
            start, tuned = tune(seed, flat)
            ends.append(strength(tuned, flat))
            outcomes.append(prove(seed, start, tuned, flat))
        took = time.perf_counter() - started
        better = sum(o is Outcome.BETTER for o in outcomes)
        kind = "flat" if flat else "bowl"
        print(f"{kind}: {SEEDS} seeds, budget {2 * PAIRS} games a tune, {took:.1f} s")
        if flat:
            kept = SEEDS - better
            met = "met" if kept >= (1 - PROOF.alpha) * SEEDS else "MISSED"
            print(f"  proof: rejects or stays undecided in {kept}/{SEEDS} (target at least "
                  f"{1 - PROOF.alpha:.0%}: {met}"
                  f"); not better {outcomes.count(Outcome.NOT_BETTER)}, undecided "
                  f"{outcomes.count(Outcome.UNDECIDED)}, better {better}")
            continue
        median = float(np.median(ends))
        print(f"  start {START_ELO:.0f} Elo; tuned: median {median:.1f} Elo, worst "
              f"{min(ends):.1f} (target: median within {TARGET_ELO:.0f} of the optimum: "
              f"{'met' if median >= -TARGET_ELO else 'MISSED'})")
        print(f"  proof: better in {better}/{SEEDS} (target {SEEDS}/{SEEDS}: "
              f"{'met' if better == SEEDS else 'MISSED'})")
