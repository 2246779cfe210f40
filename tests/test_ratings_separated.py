"""Results that only order the players: no finite rating exists across groups, and every view
says so (the fit, ``arena ratings`` in its three forms, the report's standings and charts, the
live standings, the league's leaderboard and snapshots).

The Donkan case of issue 26: five bots, every pairing 12-0, each bot beating every bot below
it. The journal is real Donkan rounds (random legal moves, the real rules, from
:mod:`bench.synthetic`) whose results are then set to the ladder's.
"""

from __future__ import annotations

import json
import math
from pathlib import Path

import numpy as np
import pytest
from report_html import html_table, read_csv

from arena.cli import main
from arena.run.progress import Standings
from arena.rundir.results import read_results
from bench.synthetic import BotProfile, round_robin, write_journal
from ratings import GameResult, aggregate, fit_ratings
from ratings.model import IN_GROUP, ON_PRIOR, ORDER_ONLY
from referee.record import GameRecord, Termination
from reports.rating_tables import format_csv, format_table

LADDER = ("ace", "bishop", "castle", "dame", "ebon")
"""Best first: each beats every bot after it in all 12 games."""


def ladder_records() -> list[GameRecord]:
    bots = tuple(BotProfile(n) for n in LADDER)
    records = round_robin("donkan", bots, games_per_pairing=12, seed=4,
                          options={"target": "3"}, max_plies=400)
    for r in records:
        better = min((r.p1, r.p2), key=LADDER.index)
        r.winner = 0 if r.p1 == better else 1
        r.result = "1-0" if r.winner == 0 else "0-1"
        r.termination = Termination.NORMAL
        r.reason = "set by the test: the ladder's result"
    return records


@pytest.fixture(scope="module")
def ladder_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    run = tmp_path_factory.mktemp("ladder")
    write_journal(run, ladder_records())
    return run


def test_the_donkan_ladder_is_twelve_nil_everywhere(ladder_dir: Path) -> None:
    results = read_results(ladder_dir)
    assert len(results) == 10 * 12
    for a in LADDER:
        for b in LADDER:
            if LADDER.index(a) < LADDER.index(b):
                between = [r for r in results if {r.first, r.second} == {a, b}]
                won = sum(r.score if r.first == a else 1.0 - r.score for r in between)
                assert (len(between), won) == (12, 12.0)


def test_the_ladder_fit_gives_the_order_and_no_rating(ladder_dir: Path) -> None:
    fit = fit_ratings(aggregate(read_results(ladder_dir)))
    assert [fit.players[i] for i in fit.order()] == list(LADDER)
    assert np.all(np.isnan(fit.ratings)) and np.all(np.isnan(fit.errors))
    assert fit.marks == [ORDER_ONLY] * 5
    assert fit.separation is not None
    assert fit.separation.describe(fit.players) == "ace > bishop > castle > dame > ebon"
    assert [fit.group(fit.index(n)) for n in LADDER] == [1, 2, 3, 4, 5]
    assert np.all(np.isnan(fit.los)) and np.all(np.isnan(fit.covariance))
    # What the virtual-draw prior used to print is still there for callers that ask for it.
    prior = fit_ratings(aggregate(read_results(ladder_dir)), separated="prior")
    assert np.all(np.isfinite(prior.ratings)) and prior.separation is None


def test_arena_ratings_without_the_prior_says_order_only_in_text_csv_and_json(
        ladder_dir: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["ratings", str(ladder_dir), "--prior", "off"]) == 0
    text = capsys.readouterr().out
    rows = [line for line in text.splitlines() if line[:4].strip().isdigit()]
    assert [row.split()[1] for row in rows] == list(LADDER)
    for k, row in enumerate(rows, start=1):
        rating, error = row.split(":")[1].split()[:2]
        assert (rating, error) == ("order", "----"), row
        assert f"group {k} of 5" in row
    assert "known order: ace > bishop > castle > dame > ebon" in text
    assert "±" not in text and "+/-" not in text.split("White advantage")[0]

    assert main(["ratings", str(ladder_dir), "--csv", "--prior", "off"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[0] == "player,rating,error,points,played,group"
    assert lines[1:] == [f"{n},,,{48.0 - 12 * k:.1f},48,{k + 1}" for k, n in enumerate(LADDER)]

    assert main(["ratings", str(ladder_dir), "--json", "--prior", "off"]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert [p["player"] for p in doc["players"]] == list(LADDER)
    assert all(p["rating"] is None and p["error"] is None for p in doc["players"])
    assert [p["group"] for p in doc["players"]] == [1, 2, 3, 4, 5]
    assert doc["known_order"] == "ace > bishop > castle > dame > ebon"


def test_arena_ratings_rates_the_ladder_on_the_prior_in_text_csv_and_json(
        ladder_dir: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """Issue 35's acceptance, ``arena ratings``: every bot of the perfect ladder has a finite
    rating whose interval is marked as resting on the prior; the known order is a note."""
    assert main(["ratings", str(ladder_dir)]) == 0
    text = capsys.readouterr().out
    rows = [line for line in text.splitlines() if line[:4].strip().isdigit()]
    assert [row.split()[1] for row in rows] == list(LADDER)
    values = []
    for row in rows:
        rating, error = (float(x) for x in row.split(":")[1].split()[:2])
        values.append(rating)
        assert error > 150.0, row  # the prior's width: the games say nothing of distances
        assert "rests on the prior" in row
    assert values == sorted(values, reverse=True) and len(set(values)) == 5
    assert "Note: known order: ace > bishop > castle > dame > ebon" in text
    assert "Note: Gaussian prior: every rating sd 400 points around the pool" in text

    assert main(["ratings", str(ladder_dir), "--csv"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert [line.split(",")[0] for line in lines[1:]] == list(LADDER)
    assert all(line.split(",")[1] and line.split(",")[2] for line in lines[1:])

    assert main(["ratings", str(ladder_dir), "--json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert [p["player"] for p in doc["players"]] == list(LADDER)
    for p in doc["players"]:
        assert math.isfinite(p["rating"]) and p["error"] > 150.0
        assert p["interval"] == [p["rating"] - p["error"], p["rating"] + p["error"]]
        assert p["mark"] == ON_PRIOR and p["group"] is None
    assert doc["known_order"] == "ace > bishop > castle > dame > ebon"
    assert doc["prior"] == {"sd": 400.0, "parent_sd": 200.0, "parents": {}}
    # A stronger prior (narrower) pulls the ladder together.
    assert main(["ratings", str(ladder_dir), "--json", "--prior", "100"]) == 0
    tight = json.loads(capsys.readouterr().out)
    assert tight["players"][0]["rating"] < doc["players"][0]["rating"]


def test_an_anchor_without_a_rating_is_refused(ladder_dir: Path,
                                               capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["ratings", str(ladder_dir), "--anchor", "castle=1500", "--prior", "off"]) == 2
    err = capsys.readouterr().err
    assert "'castle' has no rating" in err and "order" in err
    # With the prior every bot has a rating: the anchor is set.
    assert main(["ratings", str(ladder_dir), "--anchor", "castle=1500", "--json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert {p["player"]: p["rating"] for p in doc["players"]}["castle"] == 1500.0


def test_bad_prior_arguments(ladder_dir: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["ratings", str(ladder_dir), "--prior", "wide"]) == 2
    assert "--prior: expected a width in points or 'off', got 'wide'" in capsys.readouterr().err
    assert main(["ratings", str(ladder_dir), "--prior", "-3"]) == 2
    assert "prior sd must be a positive number" in capsys.readouterr().err
    assert main(["ratings", str(ladder_dir), "--errors", "simulation"]) == 2
    assert "add --prior off" in capsys.readouterr().err


@pytest.mark.slow
def test_the_report_shows_the_order_in_the_table_and_the_charts(ladder_dir: Path) -> None:
    from reports.charts import ORDER_NOTE, chart_labels
    from reports.html import build

    built = build(ladder_dir)
    shown = html_table(ladder_dir, "standings-table")
    header = shown[0]
    elo = header.index("Elo")
    assert [row[1] for row in shown[1:]] == list(LADDER)
    assert [row[elo] for row in shown[1:]] == [f"order only (group {k})" for k in range(1, 6)]
    assert not any("±" in cell for row in shown for cell in row)
    page = built.html.read_text(encoding="utf-8")
    known = "ace &gt; bishop &gt; castle &gt; dame &gt; ebon"
    assert f"Known order (no rating across groups):</b> {known}" in page
    csv_rows = read_csv(ladder_dir / "standings.csv")
    assert [(r["bot"], r["group"], r["order_only"], r["elo"], r["elo_error"])
            for r in csv_rows] == [(n, str(k), "True", "", "") for k, n in
                                   enumerate(LADDER, start=1)]
    labels = chart_labels(built.charts["elo"])
    for line in ORDER_NOTE.split("\n"):
        assert line in "\n".join(labels)
    assert [f"group {k}: order only" in labels for k in range(1, 6)] == [True] * 5
    assert not any("95% error bars" in t for t in labels)  # the usual chart's axis
    progress = "\n".join(chart_labels(built.charts["progression"]))
    assert "only order" in progress


def group_games(names: str, rounds: int, seed: int) -> list[GameResult]:
    """A double round robin inside one group with every kind of result, both colours."""
    rng = np.random.default_rng(seed)
    games = []
    for _ in range(rounds):
        for a in names:
            for b in names:
                if a != b:
                    games.append(GameResult(a, b, float(rng.choice([0.0, 0.5, 1.0]))))
    return games


def mixed_games() -> list[GameResult]:
    """Two groups with mixed results inside; every game between them won by the top group."""
    games = group_games("abc", 4, seed=1) + group_games("xyz", 4, seed=2)
    for top in "abc":
        for low in "xyz":
            games += [GameResult(top, low, 1.0), GameResult(low, top, 0.0)] * 2
    return games


def test_two_groups_are_rated_inside_each_and_ordered_between() -> None:
    games = mixed_games()
    fit = fit_ratings(aggregate(games))
    assert fit.separation is not None
    assert fit.separation.describe(fit.players) == "{a, b, c} > {x, y, z}"
    assert {fit.players[i] for i in fit.order()[:3]} == set("abc")
    assert set(fit.marks) == {IN_GROUP}
    for names in ("abc", "xyz"):
        alone = fit_ratings(aggregate([g for g in games if g.first in names
                                       and g.second in names]))
        for n in names:
            assert fit.rating(n) == pytest.approx(alone.rating(n), abs=1e-9)
            assert fit.errors[fit.index(n)] == pytest.approx(alone.errors[alone.index(n)])
            assert math.isfinite(fit.errors[fit.index(n)])
    a, x = fit.index("a"), fit.index("x")
    assert math.isnan(fit.los[a, x]) and math.isnan(fit.covariance[a, x])
    assert math.isfinite(fit.los[a, fit.index("b")])
    text = format_table(fit)
    assert "group 1 of 2, above group 2; rated inside its group only" in text
    assert "known order: {a, b, c} > {x, y, z}" in text
    assert "relative to their own group" in text
    assert format_csv(fit).splitlines()[1].endswith(",1")


def test_an_anchor_inside_a_group_sets_that_group_only() -> None:
    fit = fit_ratings(aggregate(mixed_games()), anchor=("y", 1000.0))
    assert fit.rating("y") == 1000.0  # exact: the anchor is set, not reached
    low = [fit.rating(n) for n in "xz"]
    assert all(abs(r - 1000.0) < 1000 for r in low)
    top = [fit.rating(n) for n in "abc"]
    assert sum(top) == pytest.approx(0.0, abs=1e-6)  # the other group keeps the average


def test_groups_that_never_met_are_not_even_ordered() -> None:
    games = group_games("ab", 2, seed=3) + group_games("cd", 2, seed=4)
    games += [GameResult("e", "a", 1.0), GameResult("e", "c", 1.0)]
    fit = fit_ratings(aggregate(games))
    assert fit.separation is not None
    described = fit.separation.describe(fit.players)
    assert described.startswith("e > ") and " ? " in described
    assert any("even their order is unknown" in note for note in fit.notes)


@pytest.mark.parametrize(("chain", "known"), [("BC", "A > B > C ? D"), ("DC", "A > D > C ? B")])
def test_a_partial_order_is_listed_with_its_longest_chain_together(chain: str,
                                                                   known: str) -> None:
    """A beat B, C and D; one more result orders two of those three: the line keeps that
    chain together and puts the one left over after a '?'."""
    games = [GameResult("A", x, 1.0) for x in "BCD"] + [GameResult(chain[0], chain[1], 1.0)]
    fit = fit_ratings(aggregate(games))
    assert fit.separation is not None
    assert fit.separation.describe(fit.players) == known
    a, left = fit.index("A"), fit.index(known[-1])
    assert fit.separation.above[0, fit.separation.group_of(left)]  # A is above it all the same
    assert fit.group(a) == 1


def test_live_standings_rank_by_the_order_and_show_no_rating(ladder_dir: Path) -> None:
    from reports.journal_summary import read_records, summarise_journal

    journal = summarise_journal(ladder_dir)
    records = list(read_records(journal, journal.games))
    rows = Standings.of(list(reversed(LADDER)), records).rows()
    assert [row[1] for row in rows] == list(LADDER)
    assert [row[-1] for row in rows] == [f"order (g{k})" for k in range(1, 6)]


def test_league_leaderboard_and_snapshot_show_the_order(ladder_dir: Path) -> None:
    from arena.leaguedir.standings import snapshot
    from reports.league_data import _standings
    from reports.league_html import _standing_row

    fit = fit_ratings(aggregate(read_results(ladder_dir)))
    snap = snapshot("2026-01-01", fit, 120, 120)
    assert [(r.player, r.rating, r.error) for r in snap.players] == [
        (n, None, None) for n in LADDER]
    rows = _standings(fit, None)
    assert [r.version for r in rows] == list(LADDER)
    html = _standing_row(rows[1])
    assert "order (group 2)" in html and "group 2: order only, no rating" in html


def test_the_live_page_standings_show_the_order(ladder_dir: Path) -> None:
    from arena.web.watch import RunWatcher

    watcher = RunWatcher(ladder_dir, rebuild_report=False)
    watcher.refresh()
    rows = watcher.snapshot["standings"]
    assert [(r["bot"], r["elo"]) for r in rows] == [
        (n, f"order only (group {k})") for k, n in enumerate(LADDER, start=1)]
    assert "group 1 of 5, above group 2" in rows[0]["note"]


def test_league_bots_gives_the_place_of_a_version_with_no_rating(tmp_path: Path) -> None:
    """``arena league bots`` after a night whose results only order the versions: each one's
    place, said to be an order only, instead of a bare "-" for every version."""
    from league_fixture import make_league

    from arena.commands.league_bots import bots_table
    from arena.leaguedir.directory import LeagueDir
    from arena.leaguedir.standings import Rated, Snapshot, append_snapshot

    league = LeagueDir(make_league(tmp_path / "league", night_reports=False).root)
    append_snapshot(league, Snapshot("2026-04-01", 0.0, 10, 100, [
        Rated("alpha@2", None, None, 40, 30.0), Rated("beta@1", None, None, 40, 20.0),
        Rated("alpha@1", None, None, 20, 0.0)]))
    table = bots_table(league)
    rows = {" ".join(line.split()[:2]): line.split()[3:7] for line in table.splitlines()[1:]}
    assert rows["alpha 2"] == ["40", "order", "only,", "#1"], table
    assert rows["beta 1"] == ["40", "order", "only,", "#2"], table
    assert rows["alpha 1"] == ["20", "order", "only,", "#3"], table
    assert rows["gamma 1"][:2] == ["-", "-"], table  # retired before: not in the snapshot
    assert "(ratings after night 2026-04-01; order only: the results so far rank" in table
