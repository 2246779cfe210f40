"""SPRT: LLR values checked against independent computations of fishtest's/fastchess's formulas."""

from __future__ import annotations

import math
from collections.abc import Callable

import numpy as np
import pytest

from ratings import Decision, Pentanomial, Sprt, bounds, llr_pentanomial, llr_trinomial
from ratings.pairwise import PAIR_SCORES
from ratings.sprt import NELO_PER_T, EloModel, _mle_t, llr, logistic_score

Constraint = Callable[[np.ndarray], float]


def max_log_likelihood(counts: list[float], scores: list[float], constraint: Constraint) -> float:
    """The multinomial log-likelihood of ``counts`` maximised over the distributions on
    ``scores`` that satisfy ``constraint(p) == 0``, by a general-purpose optimiser (scipy's,
    imported here: with the module, every pytest-xdist worker would load it to collect)."""
    from scipy.optimize import minimize

    c = np.array([x if x > 0 else 1e-3 for x in counts], dtype=float)
    cons = [
        {"type": "eq", "fun": lambda p: p.sum() - 1.0},
        {"type": "eq", "fun": constraint},
    ]
    res = minimize(
        lambda p: -np.sum(c * np.log(np.maximum(p, 1e-12))),
        c / c.sum(),
        constraints=cons,
        bounds=[(1e-12, 1.0)] * len(c),
        method="SLSQP",
        options={"ftol": 1e-15, "maxiter": 1000},
    )
    assert res.success, res.message
    return float(-res.fun)


def profile_llr(counts: list[float], scores: list[float], elo0: float, elo1: float) -> float:
    """The generalised logistic-Elo LLR computed the slow way: maximise the likelihood under
    each mean-score constraint with a general optimiser, then take the difference."""
    x = np.array(scores)

    def mean_is(s: float) -> Constraint:
        return lambda p: p @ x - s

    best0 = max_log_likelihood(counts, scores, mean_is(logistic_score(elo0)))
    return max_log_likelihood(counts, scores, mean_is(logistic_score(elo1))) - best0


def profile_llr_normalized(
    counts: list[float], scores: list[float], nelo0: float, nelo1: float, games: int
) -> float:
    """The generalised normalized-Elo LLR from first principles: nElo = t * 800 / ln 10 with
    t = (mean - 1/2) / sd of one game's score; an outcome averaging ``games`` games has an sd
    sqrt(games) times smaller, so its t is sqrt(games) times larger. Maximise the likelihood
    under each t constraint with a general optimiser."""
    x = np.array(scores)

    def t_is(nelo: float) -> Constraint:
        t = nelo / (800.0 / math.log(10.0)) * math.sqrt(games)

        def g(p: np.ndarray) -> float:
            mu = p @ x
            return float(mu - 0.5 - t * math.sqrt(max(p @ x**2 - mu**2, 1e-18)))

        return g

    best0 = max_log_likelihood(counts, scores, t_is(nelo0))
    return max_log_likelihood(counts, scores, t_is(nelo1)) - best0


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
    assert s0 == pytest.approx(0.5) and s1 == pytest.approx(0.514387, abs=1e-6)
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


@pytest.mark.parametrize(
    ("wdl", "nelo0", "nelo1"),
    [((120, 200, 80), 0.0, 10.0), ((30, 40, 50), -5.0, 5.0), ((500, 1000, 470), 0.0, 2.0)],
)
def test_normalized_trinomial_llr_matches_profile_likelihood(
    wdl: tuple[int, int, int], nelo0: float, nelo1: float
) -> None:
    w, d, lo = wdl
    ours = llr_trinomial(w, d, lo, nelo0, nelo1, "normalized")
    expected = profile_llr_normalized([lo, d, w], [0, 0.5, 1], nelo0, nelo1, games=1)
    assert ours == pytest.approx(expected, abs=1e-6)
    assert ours != pytest.approx(llr_trinomial(w, d, lo, nelo0, nelo1), abs=1e-2)


@pytest.mark.parametrize(
    ("five", "nelo0", "nelo1"),
    [
        ((1, 11, 47, 25, 16), 0.0, 10.0),
        ((12, 40, 60, 30, 8), 0.0, 5.0),
        ((0, 10, 30, 12, 0), -3.0, 3.0),
        ((100, 200, 400, 250, 150), 0.0, 20.0),
    ],
)
def test_normalized_pentanomial_llr_matches_profile_likelihood(
    five: tuple[int, ...], nelo0: float, nelo1: float
) -> None:
    ours = llr_pentanomial(five, nelo0, nelo1, "normalized")
    expected = profile_llr_normalized(list(five), list(PAIR_SCORES), nelo0, nelo1, games=2)
    assert ours == pytest.approx(expected, abs=1e-6)


def test_normalized_pentanomial_uses_the_sqrt2_pair_factor() -> None:
    # A pair's t-value is sqrt(2) times a game's: the same counts read as single outcomes with
    # bounds scaled by sqrt(2) give the same LLR; without the factor they would not.
    five = (12, 40, 60, 30, 8)
    r2 = math.sqrt(2.0)
    as_pairs = llr_pentanomial(five, -2.0, 6.0, "normalized")
    assert as_pairs == pytest.approx(llr(five, PAIR_SCORES, -2 * r2, 6 * r2, "normalized"))
    assert as_pairs != pytest.approx(llr(five, PAIR_SCORES, -2.0, 6.0, "normalized"), abs=0.1)


def test_normalized_mle_has_the_requested_t_value() -> None:
    x = np.array(PAIR_SCORES)
    q = np.array([12, 40, 60, 30, 8]) / 150
    for t in (-0.2, 0.0, 0.05, 0.3):
        p = _mle_t(x, q, 0.5, t)
        mu = float(p @ x)
        assert p.sum() == pytest.approx(1.0) and (p > 0).all()
        assert (mu - 0.5) / math.sqrt(float(p @ (x - mu) ** 2)) == pytest.approx(t, abs=1e-10)
    assert abs(NELO_PER_T - 347.43558552) < 1e-8


# fastchess's own unit tests (Disservin/fastchess app/tests/sprt_test.cpp), printed to two
# decimals: Stats(wins, losses, draws) and Stats(ll, ld, wl, dd, wd, ww), alpha = beta = 0.05.
FASTCHESS_TRINOMIAL = [
    ((36433, 36027, 68692), 0.0, 2.0, "normalized", 0.92),
    ((10871, 10650, 20431), -1.75, 0.25, "normalized", 2.30),
    ((21404, 21184, 40708), 0.5, 2.5, "logistic", -1.57),
    ((57433, 57030, 106593), 0.0, 2.0, "logistic", -2.59),
]
FASTCHESS_PENTANOMIAL = [
    ((365, 16618, 36029, 200, 16974, 390), 0.0, 2.0, "normalized", 2.25),
    ((127, 4883, 10311, 401, 5150, 104), -1.75, 0.25, "normalized", 3.01),
    ((223, 9863, 20279, 1000, 10037, 246), 0.5, 2.5, "logistic", -3.07),
    ((871, 26175, 55003, 980, 26678, 821), 0.0, 2.0, "logistic", -4.98),
]


@pytest.mark.parametrize(("wld", "elo0", "elo1", "elo_model", "shown"), FASTCHESS_TRINOMIAL)
def test_trinomial_llr_agrees_with_fastchess_tests(
    wld: tuple[int, int, int], elo0: float, elo1: float, elo_model: EloModel, shown: float
) -> None:
    w, lo, d = wld
    assert llr_trinomial(w, d, lo, elo0, elo1, elo_model) == pytest.approx(shown, abs=0.005)


@pytest.mark.parametrize(("six", "elo0", "elo1", "elo_model", "shown"), FASTCHESS_PENTANOMIAL)
def test_pentanomial_llr_agrees_with_fastchess_tests(
    six: tuple[int, ...], elo0: float, elo1: float, elo_model: EloModel, shown: float
) -> None:
    ll, ld, wl, dd, wd, ww = six
    five = (ll, ld, wl + dd, wd, ww)
    assert llr_pentanomial(five, elo0, elo1, elo_model) == pytest.approx(shown, abs=0.005)


@pytest.mark.parametrize(
    ("five", "shown"),
    [
        ((1, 11, 47, 25, 16), 1.71),
        ((1, 15, 25, 33, 26), 2.19),
        ((1, 24, 42, 25, 8), 0.60),
        ((2, 23, 32, 35, 8), 0.92),
    ],
)
def test_pentanomial_llr_agrees_with_a_published_fastchess_run(
    five: tuple[int, ...], shown: float
) -> None:
    # fastchess output with its default (normalized) model and [0.00, 10.00] quoted in
    # KSaiAkshit/eschec docs/dev_log.md: "Ptnml(0-2): [...] LLR: x.xx (-2.94, 2.94) [0.00, 10.00]".
    assert llr_pentanomial(five, 0.0, 10.0, "normalized") == pytest.approx(shown, abs=0.005)
    assert llr_pentanomial(five, 0.0, 10.0) - shown > 0.2  # logistic Elo would not match


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


@pytest.mark.slow
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
    elo0, elo1, alpha, beta = (*args, 0.05, 0.05)[:4]
    with pytest.raises(ValueError, match=message):
        Sprt(elo0, elo1, alpha, beta)


def test_sprt_rejects_bad_scores() -> None:
    with pytest.raises(ValueError, match="score"):
        Sprt(0, 5).update(2.0)


@pytest.mark.slow
def test_sprt_with_normalized_elo_decides_and_reports_its_model() -> None:
    rng = np.random.default_rng(5)
    test = Sprt(0.0, 10.0, 0.05, 0.05, elo_model="normalized")
    status = test.status()
    games = 0
    while not status.finished and games < 100_000:
        u = rng.random()
        status = test.update(1.0 if u < 0.45 else 0.5 if u < 0.75 else 0.0)
        games += 1
    assert status.decision is Decision.ACCEPT_H1 and status.elo_model == "normalized"
    assert status.llr == pytest.approx(llr_pentanomial(status.penta, 0, 10, "normalized"))
    assert status.llr_trinomial == pytest.approx(
        llr_trinomial(status.wins, status.draws, status.losses, 0, 10, "normalized")
    )
    assert "[pentanomial, normalized]" in status.describe()
    assert Sprt(0.0, 10.0).status().elo_model == "logistic"  # old calls keep their meaning


def test_unknown_elo_model_is_rejected() -> None:
    with pytest.raises(ValueError, match="unknown Elo model 'bayes'"):
        Sprt(0.0, 5.0, elo_model="bayes")  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="unknown Elo model"):
        llr_trinomial(1, 2, 3, 0.0, 5.0, "nelo")  # type: ignore[arg-type]
