"""The verdict on a new version against its parent: a pentanomial SPRT checked night by night,
stopping where it first crosses a bound; and, by simulation (games drawn from a known
difference, no processes), the acceptance of issue 35: a version 50 Elo stronger is decided
better within the benchmark's budget, an identical one is decided better in at most alpha of
200 seeded tests."""

from __future__ import annotations

import math

import pytest

from bench.parent_sim import BUDGET_GAMES, simulate
from ratings.pairwise import Pentanomial
from ratings.sprt import llr_pentanomial
from ratings.verdict import Outcome, VerdictSettings, parent_verdict

SIMULATIONS = 200


def test_no_pairs_is_undecided_and_open() -> None:
    verdict = parent_verdict([])
    assert verdict.outcome is Outcome.UNDECIDED and not verdict.closed
    assert verdict.games == 0 and math.isnan(verdict.score) and verdict.decided_at is None
    assert verdict.describe() == "undecided after 0 games (LLR 0.00, bounds -2.94, 2.94)"


def test_the_first_night_that_crosses_decides_and_later_games_do_not_count() -> None:
    strong = Pentanomial(ww=30, wd=10, wl=5)
    weak = Pentanomial(ll=60)
    verdict = parent_verdict([Pentanomial(wl=3), strong, weak, weak])
    assert verdict.outcome is Outcome.BETTER and verdict.decided_at == 1
    assert verdict.penta == Pentanomial(ww=30, wd=10, wl=8)
    expected = llr_pentanomial(verdict.penta, 0.0, 30.0)
    assert verdict.llr == pytest.approx(expected) and verdict.llr >= verdict.upper
    assert verdict.closed and verdict.games == 96
    assert verdict.describe() == f"better (LLR {expected:.2f} >= 2.94, 96 games)"
    # The same games in one night: the same verdict (the LLR counts, not their order).
    assert parent_verdict([Pentanomial(ww=30, wd=10, wl=8)]).llr == pytest.approx(expected)


def test_not_better_and_worse() -> None:
    verdict = parent_verdict([Pentanomial(ll=20, ld=10, wl=10)])
    assert verdict.outcome is Outcome.NOT_BETTER and verdict.worse
    assert verdict.describe().startswith("worse (LLR ")
    # Level with its parent, decided not better, but not worse.
    level = parent_verdict([Pentanomial(wl=200, dd=100)])
    assert level.outcome is Outcome.NOT_BETTER and not level.worse
    assert level.score == 0.5


def test_a_test_that_does_not_decide_stops_at_its_budget() -> None:
    settings = VerdictSettings(max_games=40)
    even = Pentanomial(ll=1, ww=1, wl=3)  # 10 games a night, no lean
    verdict = parent_verdict([even] * 10, settings)
    assert verdict.outcome is Outcome.UNDECIDED and verdict.closed
    assert verdict.games == 40 and verdict.decided_at == 3
    assert verdict.describe().startswith("stopped undecided after 40 games (LLR ")


def test_bad_settings_are_refused() -> None:
    with pytest.raises(ValueError, match="elo0 must be below elo1"):
        VerdictSettings(elo0=10.0, elo1=5.0)
    with pytest.raises(ValueError, match="alpha must be between 0 and 0.5, got 0.6"):
        VerdictSettings(alpha=0.6)
    with pytest.raises(ValueError, match="max_games must be at least 2"):
        VerdictSettings(max_games=0)


def test_a_version_50_elo_stronger_is_decided_better_within_the_budget() -> None:
    verdicts = [simulate(50.0, seed) for seed in range(SIMULATIONS)]
    decided = [v for v in verdicts if v.outcome is Outcome.BETTER and v.games <= BUDGET_GAMES]
    assert len(decided) >= (1 - VerdictSettings().beta) * SIMULATIONS, (
        sorted(v.games for v in verdicts)[-10:])


def test_an_identical_version_is_decided_better_in_at_most_alpha_of_the_tests() -> None:
    settings = VerdictSettings()
    verdicts = [simulate(0.0, 1000 + seed, settings) for seed in range(SIMULATIONS)]
    better = sum(v.outcome is Outcome.BETTER for v in verdicts)
    assert better <= settings.alpha * SIMULATIONS, better
    # ...and the test is not simply stuck: nearly all of them decide (not better).
    assert sum(v.outcome is Outcome.NOT_BETTER for v in verdicts) >= 0.9 * SIMULATIONS
