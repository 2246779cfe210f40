"""The league's standings (:mod:`arena.leaguedir.standings`): a rating and interval for every
version after every night, a newcomer without games on its parent's rating, the verdicts
looked at night by night, the regression flag."""

from __future__ import annotations

import math

from arena.leaguedir.standings import (
    Rated,
    fit_tally,
    league_verdicts,
    regression,
    snapshot,
)
from ratings import GameResult
from ratings.model import PRIOR_ONLY
from ratings.tally import merge, tally
from ratings.verdict import VerdictSettings


def pairs(a: str, b: str, n: int, a_scores: tuple[float, float], tag: str) -> list[GameResult]:
    """``n`` colour pairs of ``a`` and ``b`` (one opening each, colours swapped), ``a``
    scoring ``a_scores`` in the two games."""
    out = []
    for k in range(n):
        key = f"{tag}{k}"
        out.append(GameResult(a, b, a_scores[0], key, f"{key}-1"))
        out.append(GameResult(b, a, 1.0 - a_scores[1], key, f"{key}-2"))
    return out


def test_every_version_has_a_rating_and_a_newcomer_starts_on_its_parent() -> None:
    night = tally(pairs("x@1", "y@1", 6, (1.0, 0.5), "a")
                  + pairs("y@1", "z@1", 6, (1.0, 1.0), "b"))
    fit = fit_tally(night, ["x@1", "y@1", "z@1", "x@2"])  # x@2: active, no game yet
    snap = snapshot("n1", fit, night.games, night.games)
    rated = {r.player: r for r in snap.players}
    assert set(rated) == {"x@1", "y@1", "z@1", "x@2"}
    for r in snap.players:
        assert r.rating is not None and r.error is not None and math.isfinite(r.error)
    assert rated["x@2"].mark == PRIOR_ONLY and rated["x@2"].games == 0
    assert rated["x@2"].rating == rated["x@1"].rating  # its prior is centred on its parent
    assert (rated["x@2"].error or 0.0) > (rated["x@1"].error or math.inf)
    assert rated["z@1"].mark == "on-prior"  # lost every game: its distance is the prior's
    assert [t.version for t in snap.tests] == []  # x@2 has no parent test before it plays


def test_the_verdict_is_looked_at_night_by_night_and_frozen_once_decided() -> None:
    first = tally(pairs("v@2", "v@1", 8, (1.0, 1.0), "a"))
    second = tally(pairs("v@2", "v@1", 30, (0.0, 0.0), "b"))  # later losses change nothing
    settings_elo1 = VerdictSettings(elo1=200.0)
    (parent, verdict), = league_verdicts([first, second], ["v@1", "v@2"],
                                         settings_elo1).values()
    assert parent == "v@1" and str(verdict.outcome) == "better" and verdict.decided_at == 0
    assert verdict.games == 16
    # The same games as one night: the losses count, and the test is not decided better.
    (_, merged), = league_verdicts([merge([first, second])], ["v@1", "v@2"],
                                   settings_elo1).values()
    assert str(merged.outcome) != "better"
    fit = fit_tally(merge([first, second]))
    snap = snapshot("n2", fit, second.games, first.games + second.games,
                    league_verdicts([first, second], ["v@1", "v@2"], settings_elo1))
    (test,) = snap.tests
    assert (test.version, test.parent, test.outcome, test.closed) == (
        "v@2", "v@1", "better", True)
    assert test.text.startswith("better (LLR ")


def test_regression_flags() -> None:
    before = Rated("a@1", 100.0, 40.0, 20, 10.0)
    assert regression(61.0, before, None) == ""
    assert regression(59.0, before, None).startswith("fell below last night's interval")
    assert regression(500.0, None, None) == ""
    assert regression(None, before, None) == ""
    assert regression(59.0, Rated("a@1", None, None, 20, 10.0), None) == ""  # old history
