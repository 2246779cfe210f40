"""The statistics blocks of a run (the Dou Shou Qi seed's: games, wins and draws, first- against
second-player wins, moves per game; Donkan's points by kind), in the HTML report and in
``arena report --text``, against journals whose counts are known.

The journals are written here from game records with the results, lengths and parties spelled
out, so every expected number below is counted by hand from them, never read back from the
report's own frames. A last test plays real Donkan rounds (the real rules, random movers) and
checks that the points by kind add up to each round's recorded score.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from report_html import html_table

from arena.cli import main
from bench.synthetic import BotProfile, round_robin, write_journal
from referee.games.rounds import PartieRecord
from referee.record import GameRecord, Termination

WINNER = {"1-0": 0, "0-1": 1, "1/2-1/2": None, "*": None}


def record(game: str, p1: str, p2: str, result: str, plies: int, n: int,
           parties: list[PartieRecord] | None = None, score: list[int] | None = None
           ) -> GameRecord:
    return GameRecord(
        game=game, p1=p1, p2=p2, result=result, winner=WINNER[result],
        termination=Termination.INTERRUPT if result == "*" else Termination.NORMAL,
        reason="written by the test", id=f"r1-g{n}", plies=plies,
        parties=parties or [], score=score or [],
        started_at=1_700_000_000.0 + n, ended_at=1_700_000_000.5 + n,
    )


def jungle_journal(run: Path) -> None:
    """Six finished games and one interrupted: 1-0 three times (the first player), 0-1 twice
    (the second), one draw; 41, 12, 200, 33, 64 and 100 plies (450 in all)."""
    games = [("ann", "bob", "1-0", 41), ("bob", "ann", "0-1", 12), ("ann", "cat", "1/2-1/2", 200),
             ("cat", "ann", "1-0", 33), ("bob", "cat", "0-1", 64), ("cat", "bob", "*", 5),
             ("ann", "bob", "1-0", 100)]
    write_journal(run, [record("jungle", a, b, r, p, n)
                        for n, (a, b, r, p) in enumerate(games, start=1)])


def P(starter: int, winner: int | None, reason: str, plies: int) -> PartieRecord:  # noqa: N802
    points = {"king": 1, "castle": 2}.get(reason, 0)
    return PartieRecord(starter=starter, winner=winner, points=points, plies=plies,
                        reason=reason)


def donkan_journal(run: Path) -> None:
    """Three finished rounds and an interrupted one (its partie counts nowhere):

    1. ann-bob 1-0 (4-0): king by ann moving first, king by ann moving second, castle by ann
       moving second.
    2. bob-ann 0-1 (1-3): a repetition; castle by ann moving first; king by bob moving first;
       king by ann moving first.
    3. ann-bob 1/2-1/2: one partie to the ply cap.
    """
    rounds = [
        record("donkan", "ann", "bob", "1-0", 90, 1, [
            P(0, 0, "king", 20), P(1, 0, "king", 30), P(1, 0, "castle", 40)], [4, 0]),
        record("donkan", "bob", "ann", "0-1", 40, 2, [
            P(0, None, "repetition", 16), P(1, 1, "castle", 10), P(0, 0, "king", 8),
            P(1, 1, "king", 6)], [1, 3]),
        record("donkan", "ann", "bob", "1/2-1/2", 200, 3, [P(0, None, "ply-cap", 200)], [0, 0]),
        record("donkan", "bob", "ann", "*", 5, 4, [P(0, 0, "king", 5)], [1, 0]),
    ]
    write_journal(run, rounds)


@pytest.mark.slow
def test_the_seed_block_in_the_html_report(tmp_path: Path) -> None:
    from reports.html import build

    jungle_journal(tmp_path)
    build(tmp_path)
    stats = html_table(tmp_path, "game-stats-table")
    assert dict(zip(stats[0], stats[1], strict=True)) == {
        "game": "jungle", "games": "6", "wins": "5", "draws": "1", "1st-player wins": "3",
        "2nd-player wins": "2", "mean plies": "75.0", "longest": "200", "shortest": "12"}
    assert "partie-endings" not in (tmp_path / "report.html").read_text(encoding="utf-8")


def test_the_seed_block_as_text(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    jungle_journal(tmp_path)
    assert main(["report", str(tmp_path), "--text"]) == 0
    out = capsys.readouterr().out
    lines = [" ".join(line.split()) for line in out.splitlines()]
    block = lines[lines.index("Games: jungle"):][:6]
    assert block == [
        "Games: jungle", "games played 6", "wins / draws 5 / 1", "first-player wins 3",
        "second-player wins 2", "moves (plies) per game mean 75, max 200, min 12"]
    assert lines[0].startswith(f"Arena report: {tmp_path.name} (7 games, 6 finished")
    assert "Standings" in lines and "Parties" not in out
    assert not (tmp_path / "report.html").exists()  # --text writes nothing


@pytest.mark.slow
def test_donkan_points_by_kind_in_the_report_and_as_text(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from reports.html import build

    donkan_journal(tmp_path)
    build(tmp_path)
    endings = html_table(tmp_path, "partie-endings-donkan")
    assert endings == [
        ["ending", "parties", "points", "won by its first mover", "mean plies"],
        ["king", "4", "4", "3", "16.0"],
        ["castle", "2", "4", "1", "25.0"],
        ["repetition", "1", "0", "0", "16.0"],
        ["ply-cap", "1", "0", "0", "200.0"],
    ]
    points = {row[0]: row[1:] for row in html_table(tmp_path, "partie-points-donkan")[1:]}
    header = html_table(tmp_path, "partie-points-donkan")[0][1:]
    assert header == ["points", "king points", "castle points", "parties won", "parties lost",
                      "parties without a point"]
    assert points == {"ann": ["7", "3", "4", "5", "1", "2"],
                      "bob": ["1", "1", "0", "1", "5", "2"]}
    stats = html_table(tmp_path, "game-stats-table")
    assert stats[1] == ["donkan", "3", "2", "1", "1", "1", "110.0", "200", "40"]

    assert main(["report", str(tmp_path), "--text"]) == 0
    lines = [" ".join(line.split()) for line in capsys.readouterr().out.splitlines()]
    at = lines.index("Parties of donkan: 8 parties, points by kind")
    assert lines[at + 1:at + 6] == [
        "ending parties points won by its first mover mean plies",
        "king 4 4 3 16.0", "castle 2 4 1 25.0", "repetition 1 0 0 16.0",
        "ply-cap 1 0 0 200.0"]
    rows = {line.split()[0]: line.split()[1:] for line in lines[at + 7:at + 10]}
    assert rows == {"bot": ["points", "king", "points", "castle", "points", "parties", "won",
                            "parties", "lost", "parties", "without", "a", "point"],
                    "ann": ["7", "3", "4", "5", "1", "2"], "bob": ["1", "1", "0", "1", "5", "2"]}


def test_points_by_kind_add_up_to_the_scores_of_real_rounds(tmp_path: Path) -> None:
    from reports.game_stats import partie_endings, partie_points
    from reports.journal_summary import summarise_journal

    bots = tuple(BotProfile(n) for n in ("ann", "bob", "cat"))
    records = round_robin("donkan", bots, games_per_pairing=4, seed=9,
                          options={"target": "3"}, max_plies=400)
    write_journal(tmp_path, records)
    journal = summarise_journal(tmp_path)
    table = partie_points(journal, "donkan", ["ann", "bob", "cat"])
    for bot in ("ann", "bob", "cat"):
        scored = sum(r.score[r.p2 == bot] for r in records if bot in (r.p1, r.p2))
        assert table.at[bot, "points"] == scored > 0
        assert table.at[bot, "points"] == (table.at[bot, "king points"]
                                           + table.at[bot, "castle points"])
    endings = partie_endings(journal, "donkan").set_index("ending")
    assert int(endings["parties"].sum()) == sum(len(r.parties) for r in records)
    assert int(endings.at["king", "points"]) == int(endings.at["king", "parties"])
    assert int(endings.at["castle", "points"]) == 2 * int(endings.at["castle", "parties"])
