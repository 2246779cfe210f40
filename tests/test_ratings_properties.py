"""Properties the rating fit must have whatever the data: invariances, bounds, no blow-ups."""

from __future__ import annotations

import math
import random

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from ratings import GameResult, aggregate, fit_ratings
from ratings.model import ALL_LOSSES, ALL_WINS, NO_GAMES, ORDER_ONLY
from reports.rating_tables import format_csv, format_table


def tournament(
    strengths: dict[str, float], rounds: int, seed: int, adv: float = 30.0
) -> list[GameResult]:
    """A double round robin played from known strengths (Elo scale), with draws and colours."""
    rng = np.random.default_rng(seed)
    names = list(strengths)
    games = []
    for _ in range(rounds):
        for a in names:
            for b in names:
                if a == b:
                    continue
                p = 1.0 / (1.0 + 10 ** (-(strengths[a] + adv - strengths[b]) / 400))
                draw = 0.3 * (1 - abs(2 * p - 1))
                u = rng.random()
                score = 1.0 if u < p - draw / 2 else 0.5 if u < p + draw / 2 else 0.0
                games.append(GameResult(a, b, score))
    return games


POOL = {"a": 200.0, "b": 100.0, "c": 0.0, "d": -50.0, "e": -250.0}


@pytest.fixture(scope="module")
def games() -> list[GameResult]:
    return tournament(POOL, 12, seed=7)


def test_ratings_do_not_depend_on_game_order(games: list[GameResult]) -> None:
    base = fit_ratings(aggregate(games, players=list(POOL)))
    for seed in range(5):
        shuffled = games[:]
        random.Random(seed).shuffle(shuffled)
        fit = fit_ratings(aggregate(shuffled, players=list(POOL)))
        np.testing.assert_allclose(fit.ratings, base.ratings, atol=1e-9)
        np.testing.assert_allclose(fit.errors, base.errors, atol=1e-9)
        assert fit.white_advantage == pytest.approx(base.white_advantage, abs=1e-9)


def test_swapping_colours_flips_the_first_move_advantage(games: list[GameResult]) -> None:
    base = fit_ratings(aggregate(games, players=list(POOL)))
    swapped = [GameResult(g.second, g.first, 1.0 - g.score) for g in games]
    fit = fit_ratings(aggregate(swapped, players=list(POOL)))
    assert base.white_advantage > 5.0  # the simulated advantage is visible
    assert fit.white_advantage == pytest.approx(-base.white_advantage, abs=1e-6)
    np.testing.assert_allclose(fit.ratings, base.ratings, atol=1e-6)
    assert fit.draw_rate == pytest.approx(base.draw_rate, abs=1e-6)


def test_a_player_without_games_changes_nothing(games: list[GameResult]) -> None:
    base = fit_ratings(aggregate(games, players=list(POOL)))
    fit = fit_ratings(aggregate(games, players=[*POOL, "ghost"]))
    np.testing.assert_allclose(fit.ratings[:5], base.ratings, atol=1e-9)
    np.testing.assert_allclose(fit.errors[:5], base.errors, atol=1e-9)
    g = fit.index("ghost")
    assert math.isnan(fit.ratings[g]) and fit.marks[g] == NO_GAMES and fit.played[g] == 0
    assert fit.order()[-1] == g
    assert "ghost" in format_table(fit) and "ghost,,,0.0,0" in format_csv(fit)


def test_fitted_ratings_are_close_to_the_truth() -> None:
    fit = fit_ratings(aggregate(tournament(POOL, 60, seed=3)), scale="elo")
    truth = np.array(list(POOL.values()))
    truth -= truth.mean()
    for name, value in zip(POOL, truth, strict=True):
        i = fit.index(name)
        assert abs(fit.ratings[i] - value) < fit.errors[i], name
    assert fit.white_advantage == pytest.approx(30.0, abs=2 * 1.96 * fit.white_advantage_sd)


def test_a_player_who_won_every_game_is_bounded_and_marked(games: list[GameResult]) -> None:
    base = fit_ratings(aggregate(games, players=list(POOL)))
    champ = [GameResult("champ", n, 1.0) for n in POOL] + [
        GameResult(n, "champ", 0.0) for n in POOL
    ]
    loser = [GameResult("loser", n, 0.0) for n in POOL] + [
        GameResult(n, "loser", 1.0) for n in POOL
    ]
    fit = fit_ratings(aggregate(games + champ + loser, players=[*POOL, "champ", "loser"]))
    c, lo = fit.index("champ"), fit.index("loser")
    assert fit.marks[c] == ALL_WINS and fit.marks[lo] == ALL_LOSSES
    assert np.all(np.isfinite(fit.ratings)) and np.all(np.isfinite(fit.errors))
    assert fit.ratings[c] == max(fit.ratings) and fit.ratings[c] < 2000
    assert fit.ratings[lo] == min(fit.ratings) and fit.ratings[lo] > -2000
    # The others are rated from their games among themselves, as without the two.
    others = [fit.index(n) for n in POOL]
    diffs = fit.ratings[others] - fit.ratings[others].mean()
    np.testing.assert_allclose(diffs, base.ratings, atol=1e-6)
    assert "won every game" in format_table(fit)
    assert fit.los[c, others].min() > 0.9


def test_a_chain_of_perfect_players_is_rated_in_order() -> None:
    games = [GameResult("x", "y", 0.5), GameResult("y", "x", 1.0), GameResult("x", "y", 0.0)]
    games += [GameResult("top", p, 1.0) for p in ("x", "y", "second")]
    games += [GameResult("second", p, 1.0) for p in ("x", "y")]
    fit = fit_ratings(aggregate(games))
    assert fit.rating("top") > fit.rating("second") > max(fit.rating("x"), fit.rating("y"))
    assert np.all(np.isfinite(fit.ratings))


def test_two_players_one_won_everything() -> None:
    games = [GameResult("p", "q", 1.0), GameResult("q", "p", 0.0)] * 3
    fit = fit_ratings(aggregate(games))
    # Only the order is known: no rating, no error bar (tests/test_ratings_separated.py).
    assert [fit.players[i] for i in fit.order()] == ["p", "q"]
    assert np.all(np.isnan(fit.ratings)) and np.all(np.isnan(fit.errors))
    assert fit.marks == [ORDER_ONLY, ORDER_ONLY]
    # With the prior (the league's pairing asks for it) both get a number.
    prior = fit_ratings(aggregate(games), separated="prior")
    assert np.all(np.isfinite(prior.ratings)) and prior.rating("p") > prior.rating("q")
    assert prior.marks == [ALL_WINS, ALL_LOSSES]
    assert prior.notes  # the virtual draws are reported


def test_groups_that_never_scored_against_each_other_stay_finite_with_the_prior() -> None:
    games = [GameResult("a", "b", 0.5), GameResult("c", "d", 0.5)] * 4
    games += [GameResult(x, y, 1.0) for x in "ab" for y in "cd"]
    games += [GameResult(y, x, 0.0) for x in "ab" for y in "cd"]
    fit = fit_ratings(aggregate(games), separated="prior")
    assert np.all(np.isfinite(fit.ratings)) and np.all(np.isfinite(fit.errors))
    assert min(fit.rating("a"), fit.rating("b")) > max(fit.rating("c"), fit.rating("d"))
    assert fit.notes


results = st.lists(
    st.tuples(st.integers(0, 4), st.integers(0, 4), st.sampled_from([0.0, 0.5, 1.0])),
    min_size=1,
    max_size=40,
)


@settings(max_examples=60, deadline=None)
@given(results)
@pytest.mark.slow
def test_any_results_give_finite_centred_ratings(raw: list[tuple[int, int, float]]) -> None:
    games = [GameResult(f"p{i}", f"p{j}", s) for i, j, s in raw if i != j]
    if not games:
        return
    fit = fit_ratings(aggregate(games))
    rated = ~np.isnan(fit.ratings)
    assert np.all(np.isfinite(fit.ratings[rated]))
    assert np.all(np.abs(fit.ratings[rated]) < 5000)
    if fit.separation is None:
        assert abs(fit.ratings[rated].mean()) < 1e-6
    else:  # one scale per group of several; nobody rated alone, no error across groups
        for members in fit.separation.groups:
            if len(members) > 1:
                assert abs(fit.ratings[members].mean()) < 1e-6
            else:
                assert math.isnan(fit.ratings[members[0]])
        group = [fit.separation.group_of(i) for i in range(len(fit.players))]
        for i in range(len(fit.players)):
            for j in range(len(fit.players)):
                if group[i] is not None and group[i] != group[j]:
                    assert math.isnan(fit.los[i, j]) and math.isnan(fit.covariance[i, j])
    assert math.isfinite(fit.white_advantage)
    # Where no player is marked, the ML condition holds: expected points = points scored.
    if not any(fit.marks) and not fit.notes:
        c = fit.counts
        f = np.array(
            [
                fit.expected_score(c.players[w], c.players[b])
                for w, b in zip(c.first, c.second, strict=True)
            ]
        )
        expected = np.bincount(c.first, c.games * f, len(c.players)) + np.bincount(
            c.second, c.games * (1 - f), len(c.players)
        )
        np.testing.assert_allclose(expected, fit.points, atol=1e-6)
