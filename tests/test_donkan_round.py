"""Donkan's round (docs/rules.md, section Donkan): points, board resets, who starts, the target, the
partie draw rules and the round's ply cap, and undoing all of it."""

from __future__ import annotations

import random

from test_donkan_rules import game, pos

from referee.games.donkan import Donkan
from referee.games.rounds import PartieRecord

START = {"d1": "K", "c1": "S", "f1": "S", "d7": "k", "b7": "s", "e7": "s"}
START_BOARD = Donkan.START_POSITION.split()[0]


def test_king_capture_scores_one_and_the_loser_starts_the_next_partie() -> None:
    g = game({"a1": "K", "a2": "k", "g1": "S", "g7": "s"}, score="2-3", round_plies=40)
    before = g.position()
    g.play("a1a2")  # south's king takes north's king
    assert g.score == (3, 3)
    assert g.parties == [PartieRecord(starter=0, winner=0, points=1, plies=1, reason="king")]
    assert g.position() == f"{START_BOARD} n 3-3 10 n 0 41"  # reset, north (the loser) starts
    assert g.side_to_move == 1 and g.partie_starter == 1
    g.pop()  # undo reaches back into the finished partie
    assert g.position() == before and g.parties == [] and g.score == (2, 3)
    # A soldier taking the king scores the same single point.
    g = game({"a1": "K", "b5": "k", "g1": "S", "g7": "s"}, "n", partie_plies=3, starter="s")
    g.play("g7g1")
    assert g.score == (0, 0)  # a soldier taken: nothing scored
    g.play("a1b1")
    g.play("g1b1")  # north's soldier takes south's king
    assert g.score == (0, 1) and g.side_to_move == 0 and g.partie_starter == 0
    assert g.parties[-1] == PartieRecord(starter=0, winner=1, points=1, plies=6, reason="king")


def test_castle_scores_two_and_resets() -> None:
    g = game({"c5": "k", "a1": "K", "b1": "S", "g7": "s"}, "n", starter="n")
    g.play("c5d4")
    assert g.score == (0, 2)
    assert g.parties == [PartieRecord(starter=1, winner=1, points=2, plies=1, reason="castle")]
    assert g.position() == f"{START_BOARD} s 0-2 10 s 0 1"


def walk_to_castle(g: Donkan) -> None:
    """The side to move walks its king to the castle (nobody guards it in the start position)
    while the other side steps its king aside and back."""
    walker = g.side_to_move
    path = ["d1d2", "d2d3", "d3d4"] if walker == 0 else ["d7d6", "d6d5", "d5d4"]
    shuffle = ["d7c7", "c7d7"] if walker == 0 else ["d1e1", "e1d1"]
    for i, move in enumerate(path):
        g.play(move)
        if i < 2:
            g.play(shuffle[i])


def test_a_round_to_five_points() -> None:
    g = Donkan.start(target=5)
    assert g.side_to_move == 0  # the first partie of a round starts with south
    starters = []
    while g.outcome() is None:
        starters.append(g.partie_starter)
        walk_to_castle(g)
    assert starters == [0, 1, 0, 1, 0]  # the loser of each partie starts the next
    assert g.score == (6, 4)
    out = g.outcome()
    assert out is not None and out.winner == 0 and out.reason == "score"
    assert "south 6 - north 4" in out.detail
    assert [p.points for p in g.parties] == [2, 2, 2, 2, 2]
    assert [p.winner for p in g.parties] == [0, 1, 0, 1, 0]
    assert g.moves() == [] and g.perft(1) == 0
    # The last board stays as played (king on the castle) and its text round-trips.
    assert g.piece_at("d4") == "K"
    final = g.position()
    assert Donkan.from_position(final).position() == final
    assert Donkan.from_position(final).outcome() == out
    while g.history:
        g.pop()
    assert g.position() == Donkan.start(target=5).position()


def test_partie_ply_cap_restarts_without_point() -> None:
    pieces = {"a1": "K", "g7": "k", "c1": "S", "e7": "s"}
    g = game(pieces, "n", starter="s", partie_plies=199, round_plies=450, score="1-1")
    g.play("g7g6")  # ply 200 of the partie, no score: the partie restarts
    assert g.parties == [
        PartieRecord(starter=0, winner=None, points=0, plies=200, reason="ply-cap")
    ]
    assert g.score == (1, 1)
    assert g.position() == f"{START_BOARD} n 1-1 10 n 0 451"  # the other side starts
    g.pop()
    assert g.position() == pos(pieces, "n", "1-1", 10, "s", 199, 450)
    # A score on the 200th ply is a score, not a cap.
    g = game(pieces | {"g6": "K", "a1": ""}, "n", starter="s", partie_plies=199)
    g.play("g7g6")
    assert g.parties[-1].reason == "king" and g.score == (0, 1)
    # Draw rules off: the partie simply goes on.
    g = game(pieces, "n", starter="s", partie_plies=199, draw_rules=False)
    g.play("g7g6")
    assert g.parties == [] and g.partie_plies == 200


def test_threefold_repetition_restarts_the_partie() -> None:
    g = Donkan.start()
    shuffle = ["d1e1", "d7c7", "e1d1", "c7d7"]
    for move in shuffle * 2:
        assert g.parties == []
        g.play(move)
    # The start position stood there for the third time after the 8th ply.
    assert g.parties == [
        PartieRecord(starter=0, winner=None, points=0, plies=8, reason="repetition")
    ]
    assert g.position() == f"{START_BOARD} n 0-0 10 n 0 8"
    g.pop()
    assert g.position() == pos(START | {"d7": "", "c7": "k"}, "n", "0-0", 10, "s", 7, 7)
    g.play("c7d7")
    assert len(g.parties) == 1
    # The next partie counts its own positions only: north starts, and the start stands
    # there for the third time (in this partie) after 8 more plies.
    assert g.repetitions() == 1
    for ply, move in enumerate(["d7c7", "d1e1", "c7d7", "e1d1"] * 2):
        assert len(g.parties) == 1, ply
        g.play(move)
    assert g.parties[-1] == PartieRecord(starter=1, winner=None, points=0, plies=8,
                                         reason="repetition")
    off = Donkan.start(draw_rules=False)
    for move in shuffle * 3:
        off.play(move)
    assert off.parties == [] and off.partie_plies == 12


def test_round_ply_cap_is_adjudicated_on_points() -> None:
    pieces = {"a1": "K", "g7": "k", "c1": "S", "e7": "s"}
    for score, winner in (("3-1", 0), ("1-4", 1), ("2-2", None)):
        g = game(pieces, "s", score=score, partie_plies=11, starter="n", round_plies=1999)
        assert g.adjudication() is None
        g.play("a1a2")
        out = g.adjudication()
        assert out is not None and out.reason == "ply-cap" and out.winner == winner
        assert f"south {score[0]} - north {score[2]}" in out.detail
        assert g.outcome() is None  # the rules themselves have not ended the round
    off = game(pieces, "s", partie_plies=11, starter="n", round_plies=2000, draw_rules=False)
    assert off.adjudication() is None


def test_random_rounds_keep_score_and_undo_across_parties() -> None:
    """Whole rounds (several parties), which the generic round trips of
    tests/test_game_conformance.py do not reach."""
    rng = random.Random(3)
    for seed in range(3):
        rng.seed(seed)
        g = Donkan.start(target=3)
        texts = [g.position()]
        while g.outcome() is None:
            g.play(rng.choice(g.legal_moves()))
            texts.append(g.position())
        assert sum(g.score) == sum(p.points for p in g.parties)
        assert g.ply == g.round_plies == sum(p.plies for p in g.parties)
        while g.history:
            g.pop()
            texts.pop()
            assert g.position() == texts[-1]


def test_after_a_drawn_partie_the_side_that_did_not_start_it_starts_the_next() -> None:
    """docs/rules.md: who starts after a drawn partie depends on who started it, not on who
    made its last move. Here south starts and also makes the last move (the position after
    south's first move stands for the third time after ply 9): north starts the next one.
    (The ply-cap test above has north make the last move: north starts there too.)"""
    g = Donkan.start()
    g.play("d1e1")  # ply 1: the position that will repeat, north to move
    for move in ["d7c7", "e1e2", "c7d7", "e2e1"] * 2:
        assert g.parties == []
        g.play(move)
    assert g.parties == [
        PartieRecord(starter=0, winner=None, points=0, plies=9, reason="repetition")
    ]
    assert g.partie_starter == 1 and g.side_to_move == 1
    assert g.position() == f"{START_BOARD} n 0-0 10 n 0 9"
