"""The report tells the truth about awkward runs: perfect scores, gauntlets, all-draw pairs,
tiny samples, an SPRT, and the settings a run was played with.

Journals are real game records (random legal games by the real rules, from
:mod:`bench.synthetic`) whose results are then set to the case under test; expectations are
written out here, never read back from the report's own frames. Chart contents are checked
through the texts each PNG records of what it drew (:func:`reports.charts.chart_labels`).
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
from report_html import html_table, read_csv

from arena.run.progress import Standings
from arena.rundir.results import read_results
from bench.synthetic import BotProfile, round_robin, write_journal
from ratings import aggregate, fit_ratings
from referee.record import GameRecord, Termination
from reports.rating_tables import format_table

ROOT = Path(__file__).resolve().parents[1]
PER_BOT_CHARTS = ("elo", "progression", "crosstable", "endings", "move_time", "search")


def set_result(record: GameRecord, result: str) -> GameRecord:
    record.result = result
    record.winner = {"1-0": 0, "0-1": 1, "1/2-1/2": None}[result]
    record.termination = Termination.NORMAL
    record.reason = "set by the test"
    return record


def win_for(record: GameRecord, bot: str) -> GameRecord:
    return set_result(record, "1-0" if record.p1 == bot else "0-1")


@pytest.mark.slow
def test_a_perfect_score_bot_is_in_every_chart_as_a_bound(tmp_path: Path) -> None:
    from reports.charts import chart_labels
    from reports.html import build

    bots = (BotProfile("ace", reports_search=True), BotProfile("beta", reports_search=True),
            BotProfile("gamma"), BotProfile("delta"))
    records = round_robin("dobutsu", bots, games_per_pairing=4, seed=5, max_plies=60)
    for r in records:
        if "ace" in (r.p1, r.p2):
            win_for(r, "ace")
    write_journal(tmp_path, records)
    built = build(tmp_path)
    for name in PER_BOT_CHARTS:
        labels = "\n".join(chart_labels(built.charts[name]))
        for bot in ("ace", "beta", "gamma", "delta"):
            assert bot in labels, f"{bot} missing from {name}.png"
    assert any("lower bound" in t for t in chart_labels(built.charts["elo"]))
    assert any("lower bound" in t for t in chart_labels(built.charts["progression"]))
    standings = read_csv(tmp_path / "standings.csv")
    assert standings[0]["bot"] == "ace" and standings[0]["bound"] == "lower"
    shown = html_table(tmp_path, "standings-table")
    assert shown[1][1] == "ace" and shown[1][2].startswith("≥")
    # One order everywhere: crosstable rows, endings and move tables follow the standings.
    order = [r["bot"] for r in standings]
    assert [r[0] for r in html_table(tmp_path, "crosstable-table")[1:]] == order
    assert [r[0] for r in html_table(tmp_path, "endings-table")[1:]] == order
    assert [r[0] for r in html_table(tmp_path, "moves-table")[1:] if r and r[0]] == order


def gauntlet(tmp_path: Path) -> list[GameRecord]:
    """'g' plays everyone (40 games, 19 points); 'ace' scores 10/10 against it."""
    bots = tuple(BotProfile(n) for n in ("g", "ace", "b1", "b2", "b3"))
    records = [r for r in round_robin("jungle", bots, games_per_pairing=10, seed=3,
                                      max_plies=30) if "g" in (r.p1, r.p2)]
    points = {"b1": 7.0, "b2": 6.0, "b3": 6.0}
    for r in records:
        other = r.p2 if r.p1 == "g" else r.p1
        if other == "ace":
            win_for(r, "ace")
        elif points[other] >= 1.0:
            points[other] -= 1.0
            win_for(r, "g")
        else:
            win_for(r, other)
    write_journal(tmp_path, records)
    return records


@pytest.mark.slow
def test_gauntlet_is_ranked_by_rating_not_raw_points(tmp_path: Path) -> None:
    from reports.html import build

    records = gauntlet(tmp_path)
    g = [r for r in records if "g" in (r.p1, r.p2)]
    g_points = sum(1.0 for r in g if (r.result == "1-0") == (r.p1 == "g"))
    assert len(g) == 40 and g_points == 19.0
    build(tmp_path)
    order = [r["bot"] for r in read_csv(tmp_path / "standings.csv")]
    assert order[0] == "ace"
    fit = fit_ratings(aggregate(read_results(tmp_path)))
    assert order == [fit.players[i] for i in fit.order()]
    # The runner's live and final standings rank the same way, not by raw points.
    live = Standings.of(["g", "ace", "b1", "b2", "b3"], records)
    assert [name for name, _ in live.ranked()] == order


@pytest.mark.slow
def test_all_draws_and_tiny_samples_are_not_presented_as_certain(tmp_path: Path) -> None:
    from reports.html import build

    records = round_robin("dobutsu", (BotProfile("a"), BotProfile("b")), games_per_pairing=8,
                          seed=2, max_plies=40)
    for r in records:
        set_result(r, "1/2-1/2")
    write_journal(tmp_path, records)
    build(tmp_path)
    pairs = html_table(tmp_path, "pairs-table")
    cells = dict(zip(pairs[0], pairs[1], strict=True))
    assert cells["+-"] == "∞" and "small sample" in cells["note"]
    for row in read_csv(tmp_path / "standings.csv"):
        assert float(row["elo_error"]) > 20.0, row  # eight draws: not "0.0 +- 0.0"
        assert "small sample" in row["note"]
    text = format_table(fit_ratings(aggregate(read_results(tmp_path))))
    assert "Draw rate (equal opponents) = - (not estimable: 8 draw(s) in 8 games)" in text


def test_one_draw_in_four_games_gives_no_draw_rate_figure(tmp_path: Path) -> None:
    records = round_robin("dobutsu", (BotProfile("a"), BotProfile("b"), BotProfile("c")),
                          games_per_pairing=2, seed=2, max_plies=40)[:4]
    set_result(records[0], "1/2-1/2")
    for r in records[1:]:
        win_for(r, r.p1)
    write_journal(tmp_path, records)
    text = format_table(fit_ratings(aggregate(read_results(tmp_path))))
    assert "100.00 %" not in text
    assert "Draw rate (equal opponents) = - (not estimable: 1 draw(s) in 4 games)" in text


@pytest.mark.slow
def test_context_block_holds_the_settings_of_a_real_run(tmp_path: Path) -> None:
    from reports.charts import chart_labels

    bot = ROOT / "sample_bots" / "random_bot.py"
    config = tmp_path / "mini.toml"
    config.write_text(
        'game = "dobutsu"\nformat = "round-robin"\nrounds = 1\ngames_per_pairing = 2\n'
        'tc = "7+0.07"\nconcurrency = 2\nseed = 3\n\n[openings]\nrandom_plies = 1\n\n'
        "[adjudication]\nmax_plies = 90\n\n[sprt]\nelo0 = 0\nelo1 = 20\n\n"
        f'[[bots]]\nname = "r1"\ncmd = ["{{python}}", "{bot}", "--seed", "1"]\n\n'
        f'[[bots]]\nname = "r2"\ncmd = ["{{python}}", "{bot}", "--seed", "2"]\n'
    )
    out = tmp_path / "out"
    proc = subprocess.run(
        [sys.executable, "-m", "arena.cli", "run", str(config), "--output", str(out), "-j", "1"],
        capture_output=True, text=True, timeout=240,
    )
    assert proc.returncode == 0, proc.stderr
    context = {r[0]: r[1] for r in html_table(out, "context-table")}
    assert context["game"] == "dobutsu"
    assert context["time control"].startswith("7+0.07")
    assert "1 random plies" in context["openings"]
    assert "max plies = 90" in context["adjudication"]
    assert context["concurrency"].startswith("1 game(s)")  # -j 1 overrides the config's 2
    assert "elo1 = 20" in context["SPRT"]
    for key in ("start", "end", "duration"):
        assert context[key] and context[key] != "unknown", key
    assert "still running" not in context["end"]
    from importlib.metadata import version

    assert context["arena version"] == version("arena")
    assert (out / "report" / "sprt.png").is_file()
    labels = chart_labels(out / "report" / "sprt.png")
    assert "LLR" in labels and any(t.startswith("accept H1") for t in labels)
    stats = html_table(out, "game-stats-table")
    cells = dict(zip(stats[0], stats[1], strict=True))
    assert cells["game"] == "dobutsu" and cells["games"] == "2"
    assert int(cells["1st-player wins"]) + int(cells["2nd-player wins"]) + int(
        cells["draws"]) == 2
