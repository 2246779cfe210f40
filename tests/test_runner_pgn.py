"""PGN export of game records: the tags rating tools read, numbered movetext, safe comments."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from arena.rundir.results import read_results
from referee.record import GameRecord, MoveRecord, Termination
from reports.pgn import PgnAppender, game_to_pgn, write_pgn


def record(**changes: object) -> GameRecord:
    base = GameRecord(
        game="draughts", p1="alpha", p2="beta", result="0-1",
        termination=Termination.TIME_FORFEIT, reason="p1 (alpha) lost on time {really}",
        winner=1, id="r2-p03-g2", round=2, start_position="W:W31-50:B1-20",
        moves=[
            MoveRecord(move="32-28", side=0, elapsed_ms=0, book=True),
            MoveRecord(move="19-23", side=1, elapsed_ms=0, book=True),
            MoveRecord(move="28x19", side=0, elapsed_ms=5),
        ],
        time_control="10+0.1", started_at=1700000000.0, tags={"pair": "r2-p03-k1"},
    )  # fmt: skip
    for key, value in changes.items():
        setattr(base, key, value)
    return base


def test_tags_and_movetext() -> None:
    text = game_to_pgn(record(), event="Test cup")
    tags = dict(re.findall(r'^\[(\w+) "(.*)"\]$', text, flags=re.M))
    assert tags == {
        "Event": "Test cup", "Site": "?", "Date": "2023.11.14", "Round": "2",
        "White": "alpha", "Black": "beta", "Result": "0-1", "Termination": "time forfeit",
        "TimeControl": "10+0.1", "GameType": "20", "Variant": "draughts", "PlyCount": "3",
        "GameId": "r2-p03-g2", "PairId": "r2-p03-k1",
    }  # fmt: skip
    movetext = text.split("\n\n", 1)[1]
    assert movetext.startswith("1. 32-28 19-23 {end of opening} 2. 28x19")
    assert "{p1 (alpha) lost on time (really)}" in movetext  # braces cannot nest in PGN
    assert movetext.rstrip().endswith("0-1")
    assert text.endswith("\n\n")


def test_custom_start_position_gets_fen_tag_and_long_games_wrap() -> None:
    many = [
        MoveRecord(move=f"{i % 50 + 1}-{i % 45 + 2}", side=i % 2, elapsed_ms=1) for i in range(200)
    ]
    text = game_to_pgn(record(start_position="W:W31:B1", moves=many))
    assert '[SetUp "1"]' in text and '[FEN "W:W31:B1"]' in text
    assert all(len(line) <= 79 for line in text.splitlines())
    assert "100. " in text


def test_rating_tools_read_it_back(tmp_path: Path) -> None:
    records = [
        record(),
        record(result="1/2-1/2", termination=Termination.ADJUDICATION, winner=None,
               id="r2-p03-g1"),  # the pair's other game: one id is one game
    ]
    path = tmp_path / "games.pgn"
    assert write_pgn(records, path, event="x") == 2
    games = read_results(path)
    assert [(g.first, g.second, g.score, g.pair) for g in games] == [
        ("alpha", "beta", 0.0, "r2-p03-k1"),
        ("alpha", "beta", 0.5, "r2-p03-k1"),
    ]


def test_draughts_is_pdn_draughts_tools_read(tmp_path: Path) -> None:
    """GameType 20, a FEN tag in PDN square notation, ``1...`` when black moves first; a
    draughts PDN reader (pydraughts, when installed) gets the moves and the start back, and
    the ratings reader (Ordo's input) still reads the file."""
    from referee.games import get_game

    start = "B:W28,31-33,K45:B12-14,K40"
    board = get_game("draughts").from_position(start)
    moves = []
    for _ in range(5):
        text = board.legal_moves()[0]
        moves.append(MoveRecord(move=text, side=board.side_to_move, elapsed_ms=1))
        board.play(text)
    rec = record(start_position=start, moves=moves, result="1/2-1/2", winner=None,
                 id="r2-p03-g1")
    text = game_to_pgn(rec)
    assert '[GameType "20"]' in text
    assert '[FEN "B:W28,31,32,33,K45:B12,13,14,K40"]' in text
    movetext = text.split("\n\n", 1)[1]
    assert movetext.startswith(f"1... {moves[0].move} 2. {moves[1].move} {moves[2].move} 3.")
    path = tmp_path / "games.pdn"
    write_pgn([rec, record()], path)
    games = read_results(path)
    assert [(g.first, g.second, g.score) for g in games] == [("alpha", "beta", 0.5),
                                                            ("alpha", "beta", 0.0)]
    try:
        from draughts.PDN import PDNReader  # pydraughts
    except ImportError:
        return  # pydraughts is a bench dependency; the tags above are checked regardless
    read = PDNReader(filename=str(path)).games
    assert read[0].variant == "standard" and read[0].tags["FEN"] == \
        "B:W28,31,32,33,K45:B12,13,14,K40"
    # pydraughts 0.6.7 lists the first move of a black-to-move game twice (its reader starts
    # the list with it, then adds it again); everything after is ours, in order.
    assert read[0].moves[1:] == [m.move for m in moves]
    assert read[1].moves == ["32-28", "19-23", "28x19"]


def test_the_run_s_pgn_stays_open_and_each_game_is_on_disk_at_once(tmp_path: Path) -> None:
    """The runner keeps its PGN open for the run: each game is flushed as it is appended (a
    killed run loses none the file was told of), after the games already there."""
    path = tmp_path / "games.pgn"
    path.write_text(game_to_pgn(record(id="old"), event="Cup"))
    pgn = PgnAppender(path, event="Cup")
    pgn.append(record(id="g1"))
    assert re.findall(r'\[GameId "(\w+)"\]', path.read_text()) == ["old", "g1"]  # not closed
    pgn.append(record(id="g2"))
    assert re.findall(r'\[GameId "(\w+)"\]', path.read_text()) == ["old", "g1", "g2"]
    pgn.close()
    pgn.close()  # twice: a no-op
    assert path.read_text().count('[Event "Cup"]') == 3


def test_a_pgn_write_that_fails_raises_and_the_next_game_opens_it_again(tmp_path: Path) -> None:
    folder = tmp_path / "gone"
    pgn = PgnAppender(folder / "games.pgn")
    with pytest.raises(OSError):
        pgn.append(record(id="lost"))
    folder.mkdir()
    pgn.append(record(id="kept"))  # the folder is back: the next game is written
    pgn.close()
    assert re.findall(r'\[GameId "(\w+)"\]', (folder / "games.pgn").read_text()) == ["kept"]
