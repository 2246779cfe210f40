"""SPRT: LLR values checked against independent computations of fishtest's/fastchess's formulas."""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy.optimize import minimize

from arena.ratings import Decision, Pentanomial, Sprt, bounds, llr_pentanomial, llr_trinomial
from arena.ratings.sprt import logistic_score


def profile_llr(counts: list[float], scores: list[float], elo0: float, elo1: float) -> float:
    """The generalised LLR computed the slow way: maximise the multinomial likelihood under
    each mean-score constraint with a general optimiser, then take the difference."""
    c = np.array([x if x > 0 else 1e-3 for x in counts], dtype=float)
    x = np.array(scores)

    def best(s: float) -> float:
        cons = [
            {"type": "eq", "fun": lambda p: p.sum() - 1.0},
            {"type": "eq", "fun": lambda p: p @ x - s},
        ]
        start = c / c.sum()
        res = minimize(
            lambda p: -np.sum(c * np.log(np.maximum(p, 1e-12))),
            start,
            constraints=cons,
            bounds=[(1e-12, 1.0)] * len(c),
            method="SLSQP",
            options={"ftol": 1e-14, "maxiter": 500},
        )
        return float(-res.fun)

    return best(logistic_score(elo1)) - best(logistic_score(elo0))


def test_bounds_for_alpha_beta_005() -> None:
    lower, upper = bounds(0.05, 0.05)
    assert lower == pytest.approx(math.log(0.05 / 0.95)) == pytest.approx(-2.944439, abs=1e-6)
    assert upper == pytest.approx(2.944439, abs=1e-6)
    assert bounds(0.05, 0.1) == pytest.approx((math.log(0.1 / 0.95), math.log(0.9 / 0.05)))


def test_trinomial_without_draws_is_the_binomial_llr() -> None:
    # With only wins and losses the constrained MLE is (1 - s, s): LLR by hand.
    w, lo = 60, 40
    s0, s1 = logistic_score(0.0), logistic_score(10.0)
    by_hand = w * math.log(s1 / s0) + lo * math.log((1 - s1) / (1 - s0))
    assert s0 == 0.5 and s1 == pytest.approx(0.514387, abs=1e-6)
    # The 1e-3 regularisation of the empty draw class moves it by less than 1e-3.
    assert llr_trinomial(w, 0, lo, 0.0, 10.0) == pytest.approx(by_hand, abs=1e-3)
    # 60 ln(0.514387/0.5) + 40 ln(0.485613/0.5) = 1.70251 - 1.16782
    assert by_hand == pytest.approx(0.5347, abs=1e-3)


@pytest.mark.parametrize(
    ("wdl", "elo0", "elo1"),
    [((120, 200, 80), 0.0, 10.0), ((30, 40, 50), -5.0, 5.0), ((500, 1000, 470), 0.0, 2.0)],
)
def test_trinomial_llr_matches_profile_likelihood(
    wdl: tuple[int, int, int], elo0: float, elo1: float
) -> None:
    w, d, lo = wdl
    ours = llr_trinomial(w, d, lo, elo0, elo1)
    assert ours == pytest.approx(profile_llr([lo, d, w], [0, 0.5, 1], elo0, elo1), abs=1e-5)


@pytest.mark.parametrize(
    ("five", "elo0", "elo1"),
    [
        ((1, 11, 47, 25, 16), 0.0, 10.0),
        ((12, 40, 60, 30, 8), 0.0, 5.0),
        ((0, 10, 30, 12, 0), -3.0, 3.0),
    ],
)
def test_pentanomial_llr_matches_profile_likelihood(
    five: tuple[int, ...], elo0: float, elo1: float
) -> None:
    ours = llr_pentanomial(five, elo0, elo1)
    expected = profile_llr(list(five), [0, 0.25, 0.5, 0.75, 1], elo0, elo1)
    assert ours == pytest.approx(expected, abs=1e-5)


def test_llr_agrees_with_the_normal_approximation_for_small_differences() -> None:
    # fastchess's and fishtest's older closed form: N (s1 - s0) (2 s - s0 - s1) / (2 var).
    w, d, lo = 3000, 5000, 2800
    n = w + d + lo
    s = (w + d / 2) / n
    var = (w * (1 - s) ** 2 + d * (0.5 - s) ** 2 + lo * s**2) / n
    s0, s1 = logistic_score(0.0), logistic_score(5.0)
    approx = n * (s1 - s0) * (2 * s - s0 - s1) / (2 * var)
    assert llr_trinomial(w, d, lo, 0.0, 5.0) == pytest.approx(approx, rel=0.01)
    five = (100, 900, 2600, 1000, 150)
    pairs = sum(five)
    x = np.array([0, 0.25, 0.5, 0.75, 1])
    sp = float(np.array(five) @ x / pairs)
    varp = float(np.array(five) @ (x - sp) ** 2 / pairs)
    approx_p = pairs * (s1 - s0) * (2 * sp - s0 - s1) / (2 * varp)
    assert llr_pentanomial(five, 0.0, 5.0) == pytest.approx(approx_p, rel=0.01)


def test_pentanomial_accepts_the_dataclass() -> None:
    p = Pentanomial(ll=1, ld=11, wl=20, dd=27, wd=25, ww=16)
    assert p.five() == (1, 11, 47, 25, 16)
    assert llr_pentanomial(p, 0, 10) == llr_pentanomial((1, 11, 47, 25, 16), 0, 10)


def test_sprt_stops_for_a_clearly_stronger_player() -> None:
    rng = np.random.default_rng(5)
    test = Sprt(0.0, 10.0, 0.05, 0.05)
    status = test.status()
    assert status.decision is Decision.CONTINUE and status.llr == 0.0
    games = 0
    while not status.finished and games < 100_000:
        u = rng.random()
        status = test.update(1.0 if u < 0.45 else 0.5 if u < 0.75 else 0.0)  # ~+70 Elo
        games += 1
    assert status.decision is Decision.ACCEPT_H1
    assert status.llr >= status.upper == pytest.approx(2.944, abs=1e-3)
    assert games < 5000
    assert status.wins + status.draws + status.losses == games
    assert status.penta.pairs == games // 2
    assert "accept-h1" in status.describe()


def test_sprt_accepts_h0_for_an_equal_player_and_trinomial_model() -> None:
    rng = np.random.default_rng(11)
    test = Sprt(5.0, 15.0, 0.05, 0.05, model="trinomial")
    status = test.status()
    while not status.finished:
        u = rng.random()
        status = test.update(1.0 if u < 0.3 else 0.5 if u < 0.7 else 0.0)
    assert status.decision is Decision.ACCEPT_H0
    assert status.llr == status.llr_trinomial <= status.lower


def test_sprt_pairs_by_id_in_any_order() -> None:
    test = Sprt(0.0, 5.0)
    test.update(1.0, pair="o1")
    test.update(0.0, pair="o2")
    test.update(0.5, pair="o1")
    status = test.update(0.0, pair="o2")
    assert status.penta == Pentanomial(ll=1, wd=1)
    assert (status.wins, status.draws, status.losses) == (1, 1, 2)


@pytest.mark.parametrize(
    ("args", "message"),
    [
        ((5.0, 0.0), "elo0 < elo1"),
        ((0.0, 5.0, 0.0), "alpha"),
        ((0.0, 5.0, 0.5, 0.6), r"alpha \+ beta"),
    ],
)
def test_sprt_rejects_bad_parameters(args: tuple[float, ...], message: str) -> None:
    with pytest.raises(ValueError, match=message):
        Sprt(*args)


def test_sprt_rejects_bad_scores() -> None:
    with pytest.raises(ValueError, match="score"):
        Sprt(0, 5).update(2.0)
