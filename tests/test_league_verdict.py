"""The verdict on a new version against its parent in a real league: real bot processes, one
night, the league driven through the ``arena`` command.

``gnu@1`` is the sample greedy bot and ``gnu@2`` the sample random one (a "new version" that
is much weaker): the night's colour pairs between the two decide the test, and every place an
author looks says so: ``history.jsonl``'s snapshot, the league report's leaderboard, and
``arena league bots`` (the verdict, its LLR and the regression mark).
"""

from __future__ import annotations

import math
import re
import sys
from pathlib import Path

import pytest
from test_league_night import ROOT, arena, make_league

from arena.leaguedir.standings import read_history
from reports.league_data import read_league

pytestmark = pytest.mark.slow  # a real night of real games

GREEDY = ROOT / "sample_bots" / "greedy.py"
RANDOM = ROOT / "sample_bots" / "random_bot.py"


def test_a_weaker_new_version_is_decided_worse_than_its_parent(tmp_path: Path) -> None:
    league = make_league(tmp_path)
    toml = league.config.read_text()
    assert "\nelo1 = 30\n" in toml  # `arena league init` writes the table with the defaults
    # H1 for bots hundreds of points apart: a night of a dozen colour pairs decides.
    league.config.write_text(toml.replace("\nelo1 = 30\n", "\nelo1 = 200\n"))
    arena("league", "submit", str(league.root), "gnu", "--", sys.executable, str(GREEDY))
    arena("league", "submit", str(league.root), "gnu", "--", sys.executable, str(RANDOM),
          "--seed", "3")
    arena("league", "run", str(league.root), "--games", "24", "--night", "n1", "--plain")

    snap = read_history(league)[-1]
    (test,) = snap.tests
    assert (test.version, test.parent) == ("gnu@2", "gnu@1")
    assert test.outcome == "not better" and test.worse and test.closed, test
    assert test.llr <= -2.9 and 0 < test.games <= 24
    rated = {r.player: r for r in snap.players}
    assert rated["gnu@2"].regression == "worse than gnu@1"
    assert not rated["gnu@1"].regression
    for r in snap.players:
        assert r.rating is not None and r.error is not None and math.isfinite(r.error)

    data = read_league(league.root)
    row = {s.version: s for s in data.leaderboard}["gnu@2"]
    assert row.test is not None and row.test.worse and row.regression
    page = league.report_page.read_text(encoding="utf-8")
    cell = re.search(r'<tr data-version="gnu@2">.*?</tr>', page, re.S)
    assert cell is not None and 'data-outcome="worse"' in cell.group(0)
    assert 'class="regression"' in cell.group(0)

    listing = arena("league", "bots", str(league.root)).stdout
    lines = listing.splitlines()
    line = next(i for i, text in enumerate(lines) if text.split()[1:3] == ["gnu", "2"])
    assert f"worse (LLR {test.llr:.2f}, {test.games} games)" in lines[line]
    assert lines[line + 1].strip() == f"vs gnu@1: {test.text}"
    assert lines[line + 2].strip() == "REGRESSION: worse than gnu@1"
