"""SPSA's schedule and state (arena.tune.spsa) and the tune's proof (arena.tune.proof)."""

from __future__ import annotations

import random

import pytest

from arena.tune.proof import Proof
from arena.tune.spsa import (
    ALPHA,
    GAMMA,
    Gains,
    Param,
    flips,
    perturb,
    sent_values,
    update,
)
from ratings.verdict import Outcome, VerdictSettings


def knight(**kw: object) -> Param:
    values: dict[str, object] = dict(name="Knight", start=300.0, low=100.0, high=500.0,
                                     c_end=10.0, r_end=0.002, integer=True)
    values.update(kw)
    return Param(**values)  # type: ignore[arg-type]


def test_fishtest_constants_and_the_gains_written_at_their_end() -> None:
    gains = Gains.for_iterations(1000)
    assert (gains.alpha, gains.gamma) == (ALPHA, GAMMA) == (0.602, 0.101)
    assert gains.big_a == pytest.approx(100.0)  # 10% of the iterations
    p = knight()
    # The last iteration's perturbation is c_end, and its step over c_k² is r_end.
    assert gains.c_k(p, 1000) == pytest.approx(10.0)
    assert gains.a_k(p, 1000) / gains.c_k(p, 1000) ** 2 == pytest.approx(0.002)
    # Both decay from the first iteration on, the step faster than the perturbation.
    assert gains.c_k(p, 1) == pytest.approx(10.0 * 1000 ** 0.101)
    assert gains.a_k(p, 1) == pytest.approx(gains.a(p) / 101 ** 0.602)
    assert gains.a_k(p, 2) < gains.a_k(p, 1) and gains.c_k(p, 2) < gains.c_k(p, 1)


def test_a_given_instead_of_r() -> None:
    gains = Gains.for_iterations(10)
    p = knight(r_end=None, a=7.5)
    assert gains.a(p) == 7.5
    assert gains.a_k(p, 3) == pytest.approx(7.5 / (1.0 + 3) ** 0.602)


@pytest.mark.parametrize("bad", [dict(start=600.0), dict(c_end=0.0),
                                 dict(a=1.0), dict(r_end=None)])
def test_a_param_refuses_what_cannot_be_tuned(bad: dict[str, object]) -> None:
    with pytest.raises(ValueError, match="Knight"):
        knight(**bad)


def test_perturbation_is_clamped_and_rounded_for_spin() -> None:
    gains = Gains.for_iterations(100)
    spin, real = knight(start=495.0), knight(name="Scale", start=0.5, low=0.0, high=1.0,
                                              c_end=0.1, integer=False)
    sides = perturb([spin, real], gains, (495.2, 0.5), 1, (1, -1))
    c1 = gains.c_k(spin, 1)
    assert sides.plus[0] == 500 and isinstance(sides.plus[0], int)  # clamped at max
    assert sides.minus[0] == round(495.2 - c1)
    c2 = gains.c_k(real, 1)
    assert sides.plus[1] == pytest.approx(0.5 - c2)
    assert sides.minus[1] == pytest.approx(0.5 + c2)
    assert sent_values([spin, real], (123.4, 2.0)) == (123, 1.0)


def test_update_moves_toward_the_side_that_won_and_stays_in_range() -> None:
    gains = Gains.for_iterations(100)
    p = knight()
    up = update([p], gains, (300.0,), 5, (1,), 2.0)[0]
    down = update([p], gains, (300.0,), 5, (-1,), 2.0)[0]
    step = gains.a_k(p, 5) * 2.0 / gains.c_k(p, 5)
    assert up == pytest.approx(300.0 + step) and down == pytest.approx(300.0 - step)
    assert update([p], gains, (300.0,), 5, (1,), 0.0) == (300.0,)
    assert update([knight(r_end=None, a=1e9)], gains, (300.0,), 5, (1,), 2.0) == (500.0,)
    with pytest.raises(ValueError, match="between -2 and 2"):
        update([p], gains, (300.0,), 5, (1,), 3.0)


def test_flips_are_a_function_of_seed_and_iteration() -> None:
    assert flips(7, 3, 4) == flips(7, 3, 4)
    assert {s for k in range(1, 50) for s in flips(7, k, 4)} == {-1, 1}
    assert [flips(7, k, 4) for k in range(1, 20)] != [flips(8, k, 4) for k in range(1, 20)]


def test_spsa_climbs_a_noisy_bowl() -> None:
    """Two options 200 off, a strength bowl, games drawn from it: the tune ends near the top
    (the bench measures this over seeds; here one seeded tune, deterministic)."""
    rng = random.Random(5)
    best = (50.0, -30.0)

    def elo(v: tuple[float | int, ...]) -> float:
        return -sum(((x - b) / 100.0) ** 2 for x, b in zip(v, best, strict=True)) * 50.0

    params = [Param(f"p{i}", 0.0 if i == 0 else 100.0, -500.0, 500.0, 30.0, 0.01)
              for i in range(2)]
    gains = Gains.for_iterations(600)
    theta: tuple[float, ...] = (0.0, 100.0)
    for k in range(1, 601):
        signs = flips(1, k, 2)
        sides = perturb(params, gains, theta, k, signs)
        expected = 1.0 / (1.0 + 10 ** ((elo(sides.minus) - elo(sides.plus)) / 400.0))
        result = sum(1 if rng.random() < expected else -1 for _ in range(2))
        theta = update(params, gains, theta, k, signs, result)
    assert elo((0.0, 100.0)) < -90.0 and elo(theta) > -15.0


def test_proof_decides_better_for_a_clear_gain_and_stops_counting() -> None:
    proof = Proof(VerdictSettings(elo0=0.0, elo1=10.0))
    assert proof.verdict is None and not proof.closed
    while not proof.closed:
        proof.add([(1.0, 0.5)])
    assert proof.verdict is not None and proof.verdict.outcome is Outcome.BETTER
    counted = proof.counted
    proof.add([(0.0, 0.0)] * 10)
    assert proof.counted == counted


def test_proof_stops_undecided_at_max_games() -> None:
    proof = Proof(VerdictSettings(elo0=0.0, elo1=10.0, max_games=20))
    proof.add([(1.0, 0.0)] * 10)
    assert proof.verdict is not None and proof.verdict.outcome is Outcome.UNDECIDED
    assert proof.closed
