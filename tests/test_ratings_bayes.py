"""The Bayesian fit: the maximum-likelihood fit where results decide, a finite rating and an
interval for everyone where they do not, a mark where a distance rests on the prior, and a
new version's prior centred on its parent."""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from test_ratings_ordo import parse_ordo
from test_ratings_properties import POOL, tournament

from arena.rundir.results import read_results
from ratings import GameResult, aggregate, aggregate_arrays, fit_ratings
from ratings.counts import Counts
from ratings.model import ON_PRIOR, PRIOR_ONLY
from ratings.prior import DEFAULT_PARENT_SD, Prior, version_parents

DATA = Path(__file__).parent / "data" / "ratings"


@pytest.fixture(scope="module")
def roundrobin() -> Counts:
    return aggregate(read_results(DATA / "roundrobin.pgn"))


def ladder(names: str, games: int) -> Counts:
    """Each player beat every player after it in all ``games`` games (colours alternating)."""
    first, second, score = [], [], []
    for i in range(len(names)):
        for j in range(i + 1, len(names)):
            for g in range(games):
                first.append(i if g % 2 == 0 else j)
                second.append(j if g % 2 == 0 else i)
                score.append(1.0 if g % 2 == 0 else 0.0)
    return aggregate_arrays(list(names), first, second, score)


def test_a_prior_that_says_nothing_is_the_maximum_likelihood_fit(roundrobin: Counts) -> None:
    ml = fit_ratings(roundrobin)
    wide = fit_ratings(roundrobin, prior=Prior(sd=1e6))
    np.testing.assert_allclose(wide.ratings, ml.ratings, atol=1e-4)
    np.testing.assert_allclose(wide.errors, ml.errors, rtol=1e-5)
    assert wide.white_advantage == pytest.approx(ml.white_advantage, abs=1e-4)
    assert wide.white_advantage_sd == pytest.approx(ml.white_advantage_sd, rel=1e-5)
    assert wide.draw_rate == pytest.approx(ml.draw_rate, abs=1e-6)
    assert wide.error_method == "posterior" and wide.prior == Prior(sd=1e6)


def test_the_default_prior_barely_moves_a_rich_field(roundrobin: Counts) -> None:
    """280 games a player: the prior shrinks the extremes by under 1%, Ordo within 2.5."""
    rows, summary = parse_ordo((DATA / "roundrobin.ordo.txt").read_text())
    fit = fit_ratings(roundrobin, prior=Prior())
    for name, (rating, error, _, _) in rows.items():
        i = fit.index(name)
        assert abs(fit.ratings[i] - rating) < max(2.5, 0.01 * abs(rating)), name
        assert abs(fit.ratings[i]) < abs(rating)  # shrunk toward the pool, never past it
        assert fit.errors[i] / error == pytest.approx(1.0, abs=0.15), name
    assert [fit.players[i] for i in fit.order()] == list(rows)
    assert fit.white_advantage == pytest.approx(summary["wa"], abs=1.0)
    assert all(m == "" for m in fit.marks) and fit.known_order is None


def test_mode_and_interval_of_two_players_are_the_posterior_s() -> None:
    """Two players, 7 wins, 2 draws, 3 losses: the mode and the curvature of the log
    posterior of the difference, found on a fine grid, are the fit's."""
    sd = 150.0
    counts = aggregate_arrays(["a", "b"], [0] * 12, [1] * 12, [1.0] * 7 + [0.5] * 2 + [0.0] * 3)
    fit = fit_ratings(counts, prior=Prior(sd=sd), white_advantage=False)
    beta = fit.beta
    d = np.linspace(-600.0, 900.0, 300_001)
    f = 1.0 / (1.0 + np.exp(-beta * d))
    points = 7 + 0.5 * 2
    # r_a and r_b each N(0, sd^2): their difference N(0, 2 sd^2); the half-point likelihood
    log_post = points * np.log(f) + (12 - points) * np.log(1 - f) - d * d / (4 * sd * sd)
    k = int(np.argmax(log_post))
    step = d[1] - d[0]
    assert fit.rating("a") - fit.rating("b") == pytest.approx(d[k], abs=2 * step)
    assert fit.rating("a") == pytest.approx(-fit.rating("b"))
    # Curvature of the half-point likelihood plus the prior's, with the draw model's correction
    # of the score variance (J^2 / B for one cell): the fit's variance of the difference.
    fk = f[k]
    j = 12 * beta**2 * fk * (1 - fk)
    from ratings.draws import score_variance

    b = 12 * beta**2 * float(score_variance(fk, fit.draw_rate))
    var_d = 1.0 / (j * j / b + 1.0 / (2 * sd * sd))
    z = 1.959963984540054
    assert fit.errors[0] == pytest.approx(z * math.sqrt(var_d) / 2, rel=1e-3)
    # J is the log posterior's own curvature, less the prior's
    curv = (log_post[k + 1] - 2 * log_post[k] + log_post[k - 1]) / step**2
    assert -curv == pytest.approx(j + 1.0 / (2 * sd * sd), rel=1e-4)
    # With nothing drawn the data's information is that curvature itself.
    plain = fit_ratings(aggregate_arrays(["a", "b"], [0] * 12, [1] * 12,
                                         [1.0] * 8 + [0.0] * 4),
                        prior=Prior(sd=sd), white_advantage=False)
    assert plain.draw_rate == 0.0
    d8 = plain.rating("a") - plain.rating("b")
    f8 = 1.0 / (1.0 + math.exp(-beta * d8))
    var8 = 1.0 / (12 * beta**2 * f8 * (1 - f8) + 1.0 / (2 * sd * sd))
    assert plain.errors[0] == pytest.approx(z * math.sqrt(var8) / 2, rel=1e-6)


def test_a_perfect_ladder_has_a_finite_rating_for_everyone_marked_as_resting_on_the_prior(
) -> None:
    fit = fit_ratings(ladder("abcde", 6), prior=Prior())
    assert np.all(np.isfinite(fit.ratings)) and np.all(np.isfinite(fit.errors))
    assert [fit.players[i] for i in fit.order()] == list("abcde")
    assert fit.marks == [ON_PRIOR] * 5
    assert fit.known_order is not None and fit.separation is None
    assert fit.known_order.describe(fit.players) == "a > b > c > d > e"
    assert "known order: a > b > c > d > e" in fit.notes
    assert min(fit.errors) > 150.0  # the prior's width, not the games'
    assert fit.to_dict()["known_order"] == "a > b > c > d > e"
    # A stronger prior pulls them together; the order stays.
    tight = fit_ratings(ladder("abcde", 6), prior=Prior(sd=100.0))
    assert np.ptp(tight.ratings) < np.ptp(fit.ratings)
    assert [tight.players[i] for i in tight.order()] == list("abcde")
    # With the prior off: the order-only diagnosis, unchanged.
    off = fit_ratings(ladder("abcde", 6))
    assert np.all(np.isnan(off.ratings)) and off.separation is not None


def test_only_the_unbeaten_player_is_marked_in_a_connected_field() -> None:
    games = tournament(POOL, 4, seed=3)
    games += [GameResult("ace", p, 1.0) for p in POOL] + [GameResult(p, "ace", 0.0)
                                                          for p in POOL]
    fit = fit_ratings(aggregate(games), prior=Prior())
    assert fit.marks[fit.index("ace")] == ON_PRIOR
    assert [fit.marks[fit.index(p)] for p in POOL] == [""] * len(POOL)
    assert fit.players[fit.order()[0]] == "ace"
    assert np.all(np.isfinite(fit.ratings))
    assert fit.errors[fit.index("ace")] > 2 * max(fit.errors[fit.index(p)] for p in POOL)
    assert any(n.startswith("known order: ace > {") for n in fit.notes)


def test_two_tiers_the_smaller_one_rests_on_the_prior() -> None:
    top = {"t1": 30.0, "t2": 0.0, "t3": -30.0}
    low = {"l1": 20.0, "l2": -20.0}
    games = tournament(top, 6, seed=1) + tournament(low, 4, seed=2)
    games += [GameResult(t, lo, 1.0) for t in top for lo in low for _ in range(2)]
    games += [GameResult(lo, t, 0.0) for t in top for lo in low for _ in range(2)]
    fit = fit_ratings(aggregate(games), prior=Prior())
    assert {fit.players[i] for i in fit.order()[:3]} == set(top)
    assert [fit.marks[fit.index(p)] for p in top] == ["", "", ""]
    assert [fit.marks[fit.index(p)] for p in low] == [ON_PRIOR, ON_PRIOR]
    assert "known order: {t1, t2, t3} > {l1, l2}" in fit.notes
    assert any("reference group {t1, t2, t3}" in n for n in fit.notes)


def test_a_new_version_with_no_games_starts_at_its_parent() -> None:
    games = tournament(POOL, 3, seed=5)
    counts = aggregate(games, players=[*POOL, "c@2"])
    prior = Prior(parents={"c@2": "c"})
    fit = fit_ratings(counts, prior=prior)
    assert fit.rating("c@2") == pytest.approx(fit.rating("c"), abs=1e-9)
    i, p = fit.index("c@2"), fit.index("c")
    # its variance: its parent's, plus the parent prior's width (the average leaves it out)
    z = 1.959963984540054
    assert fit.covariance[i, i] == pytest.approx(fit.covariance[p, p] + DEFAULT_PARENT_SD**2)
    assert fit.errors[i] == pytest.approx(z * math.sqrt(fit.covariance[i, i]))
    assert fit.marks[i] == PRIOR_ONLY
    assert np.mean([fit.rating(n) for n in POOL]) == pytest.approx(0.0, abs=1e-9)
    # The same player without a parent sits at the pool's centre with the absolute width.
    alone = fit_ratings(counts, prior=Prior())
    assert abs(alone.rating("c@2")) < 1e-6 and alone.errors[i] > z * 400.0


def test_a_new_version_s_games_move_it_from_its_parent() -> None:
    """The parent c is in the middle of the pool; c@2 is in truth 300 stronger. A few games
    move it part of the way (the prior holds it near the parent), many games nearly all."""
    strengths = {**POOL, "c@2": POOL["c"] + 300.0}
    rng_games = tournament(strengths, 30, seed=9)
    prior = Prior(parents={"c@2": "c"})
    few = [g for g in rng_games if "c@2" not in (g.first, g.second)]
    few += [g for g in rng_games if "c@2" in (g.first, g.second)][:6]
    fit_few = fit_ratings(aggregate(few), prior=prior)
    ml_few = fit_ratings(aggregate(few), prior=Prior())
    moved = fit_few.rating("c@2") - fit_few.rating("c")
    assert 0.0 < moved < ml_few.rating("c@2") - ml_few.rating("c")
    fit_all = fit_ratings(aggregate(rng_games), prior=prior)
    ml_all = fit_ratings(aggregate(rng_games))
    assert fit_all.rating("c@2") == pytest.approx(ml_all.rating("c@2"), abs=15.0)


def test_version_parents() -> None:
    labels = ["a@1", "a@3", "b@1", "a@7", "c", "x@y", "@2", "b@4"]
    assert version_parents(labels) == {"a@3": "a@1", "a@7": "a@3", "b@4": "b@1"}


def test_bad_priors_are_refused() -> None:
    with pytest.raises(ValueError, match="prior sd must be a positive"):
        Prior(sd=0.0)
    with pytest.raises(ValueError, match="prior parent_sd must be a positive"):
        Prior(parent_sd=float("inf"))
    with pytest.raises(ValueError, match="'a' cannot be its own parent"):
        Prior(parents={"a": "a"})
    counts = aggregate([GameResult("a", "b", 1.0), GameResult("b", "a", 0.5)])
    with pytest.raises(ValueError, match="form a loop"):
        fit_ratings(counts, prior=Prior(parents={"a": "b", "b": "a"}))
    with pytest.raises(ValueError, match="simulated replays"):
        fit_ratings(counts, prior=Prior(), errors="simulation")
    with pytest.raises(ValueError, match="anchor 'z' is not among"):
        fit_ratings(counts, prior=Prior(), anchor=("z", 0.0))


def test_an_anchor_is_exact_and_errors_are_relative_to_it() -> None:
    fit = fit_ratings(ladder("abcd", 4), prior=Prior(), anchor=("c", 1500.0))
    assert fit.rating("c") == 1500.0 and fit.errors[fit.index("c")] == 0.0
    assert fit.rating("a") > fit.rating("b") > 1500.0 > fit.rating("d")
    assert math.isnan(fit.average)


@settings(max_examples=60, deadline=None)
@given(st.lists(st.tuples(st.integers(0, 5), st.integers(0, 5), st.sampled_from([0.0, 0.5, 1.0])),
                min_size=1, max_size=40),
       st.floats(20.0, 2000.0))
def test_always_finite(games: list[tuple[int, int, float]], sd: float) -> None:
    """Whatever the results (perfect scorers, one colour winning all, players without
    games, only draws), every rating, interval and the advantage are finite."""
    names = [f"p{i}" for i in range(6)]
    rows = [(a, b, s) for a, b, s in games if a != b]
    first = [a for a, _, _ in rows]
    second = [b for _, b, _ in rows]
    counts = aggregate_arrays(names, first, second, [s for _, _, s in rows])
    fit = fit_ratings(counts, prior=Prior(sd=sd, parents={"p5": "p4"}))
    assert np.all(np.isfinite(fit.ratings))
    assert np.all(np.isfinite(fit.errors)) and np.all(fit.errors > 0)
    assert math.isfinite(fit.white_advantage)
    played = fit.played > 0
    if played.any():
        assert np.mean(fit.ratings[played]) == pytest.approx(0.0, abs=1e-6)
