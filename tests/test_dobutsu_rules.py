"""Dobutsu shogi: reference perft and one hand-built position per rule (docs/rules.md, Dobutsu)."""

from __future__ import annotations

import pytest

from referee.games import IllegalMove, MoveSyntaxError, PositionError, get_game
from referee.games.dobutsu import Dobutsu

START = "gle/1c1/1C1/ELG[] w - - 0 1"
MIDGAME = "g1e/1cL/lC1/E1G[] w - - 4 3"


def from_square(game: Dobutsu, square: str) -> set[str]:
    """Destinations of the board moves from ``square`` (promotion mark dropped)."""
    return {m[2:4] for m in game.legal_moves() if m.startswith(square) and "@" not in m}


# ----- perft (docs/rules.md: Fairy-Stockfish's numbers) ------------------------------------------
@pytest.mark.parametrize(
    ("depth", "nodes"), [(1, 4), (2, 17), (3, 123), (4, 976), (5, 8122), (6, 71677)]
)
def test_perft_from_the_start(depth: int, nodes: int) -> None:
    assert Dobutsu.start().perft(depth) == nodes


@pytest.mark.parametrize(("depth", "nodes"), [(1, 7), (2, 44), (3, 300), (4, 2290)])
def test_perft_from_a_midgame_position(depth: int, nodes: int) -> None:
    game = Dobutsu.from_position(MIDGAME)
    assert game.perft(depth) == nodes
    assert game.position() == MIDGAME


# ----- position text -----------------------------------------------------------------------
def test_registry_start_and_fsf_spellings() -> None:
    game = get_game("dobutsu").start()
    assert isinstance(game, Dobutsu) and game.SIDE_LABELS == ("white", "black")
    assert game.position() == START
    for square, letter in {"a1": "E", "b1": "L", "c1": "G", "b2": "C",
                           "a4": "g", "b4": "l", "c4": "e", "b3": "c"}.items():
        assert game.piece_at(square) == letter
    for text in ("gle/1c1/1C1/ELG[-] w 0 1", "gle/1c1/1C1/ELG[] w", "gle/1c1/1C1/ELG w - - 0 1",
                 "gle/1c1/1C1/ELG[] w - - 0 1", "startpos"):
        assert Dobutsu.from_position(text).position() == START
    assert Dobutsu.from_position(MIDGAME).position() == MIDGAME
    hands = "1l1/3/3/1L1[GCEgce] b - - 7 9"
    assert Dobutsu.from_position(hands).position() == hands
    assert Dobutsu.from_position("1l1/3/3/1L1[EGCcge] b 7 9").position() == hands
    assert Dobutsu.from_position("1l1/1h1/1H1/1L1[] w - - 0 1").position() == (
        "1l1/1+c1/1+C1/1L1[] w - - 0 1"
    )


@pytest.mark.parametrize(
    ("text", "why"),
    [
        ("gle/1c1/1C1[] w - - 0 1", "expected 4 ranks"),
        ("gle/1c1/1C1/ELG[] x - - 0 1", "side to move"),
        ("gle/1c1/1C1/ELG[]", "side to move"),
        ("gle/1c1/1C1/ELG[] w - - zero 1", "counters"),
        ("gle/1c1/1C1/EL[] w - - 0 1", "2 squares"),
        ("gle/1c1/1C1/ELGG[] w - - 0 1", "too long"),
        ("gle/1c1/1C1/ELX[] w - - 0 1", "unknown piece 'X'"),
        ("gle/1c1/1C1/EL+G[] w - - 0 1", "only a chick promotes"),
        ("gle/1c1/1C1/ELG[C] w - - 0 1", "3 chicks"),
        ("gle/1c1/1C1/ELG[X] w - - 0 1", "cannot be in hand"),
        ("gLe/1c1/1C1/ELG[] w - - 0 1", "more than one lion"),
        ("g1e/1c1/1C1/ELG[] w - - 0 1", "the side that just moved has no lion"),
        ("gle/1c1/1C1/ELG[] w - - 0 0", "fullmove"),
        ("g1e/1c1/1C1/ELG[L] w - - 0 1", "side to move holds a captured lion"),
        ("gle/1c1/1C1/ELG[L] b - - 0 1", "black has more than one lion"),
    ],
)
def test_bad_position_texts_say_why(text: str, why: str) -> None:
    with pytest.raises(PositionError, match=why):
        Dobutsu.from_position(text)


# ----- each piece's moves ------------------------------------------------------------------
@pytest.mark.parametrize(
    ("position", "expected"),
    [
        ("l2/3/1C1/2L[] w", {"b3"}),
        ("l2/3/1E1/2L[] w", {"a1", "a3", "c3"}),  # c1 holds the own lion
        ("l2/3/1G1/2L[] w", {"b1", "b3", "a2", "c2"}),
        ("2l/3/1L1/3[] w", {"a1", "b1", "c1", "a2", "c2", "a3", "b3", "c3"}),
        ("l2/3/1+C1/2L[] w", {"b1", "a2", "c2", "a3", "b3", "c3"}),  # hen: no back diagonals
    ],
)
def test_each_white_piece_moves(position: str, expected: set[str]) -> None:
    assert from_square(Dobutsu.from_position(position), "b2") == expected


@pytest.mark.parametrize(
    ("letter", "expected"),
    [
        ("c", {"b2"}),
        ("e", {"a2", "c2", "a4"}),  # c4 holds the own lion
        ("g", {"b2", "b4", "a3", "c3"}),
        ("+c", {"b4", "a3", "c3", "a2", "b2", "c2"}),
    ],
)
def test_each_black_piece_moves_mirrored(letter: str, expected: set[str]) -> None:
    game = Dobutsu.from_position(f"2l/1{letter}1/3/L2[] b")
    assert from_square(game, "b3") == expected


def test_lion_moves_and_may_step_into_attack() -> None:
    # No check in dobutsu: the lion may step next to the enemy chick's attack.
    game = Dobutsu.from_position("2l/3/1c1/L2[] w")
    assert from_square(game, "a1") == {"a2", "b1", "b2"}
    game.play("a1b1")  # b1 is attacked by the chick on b2
    game.play("b2b1+")
    outcome = game.outcome()
    assert outcome is not None and outcome.winner == 1 and outcome.reason == "lion-captured"


# ----- promotion, hens, hands, drops -------------------------------------------------------
def test_chick_promotes_on_entering_the_far_rank_and_it_is_mandatory() -> None:
    game = Dobutsu.from_position("l2/1C1/3/2L[] w - - 3 5")
    assert "b3b4+" in game.legal_moves() and "b3b4" not in game.legal_moves()
    with pytest.raises(IllegalMove, match="promotion is mandatory"):
        game.play("b3b4")
    game.play("b3b4+")
    assert game.piece_at("b4") == "+C"
    assert game.position() == "l+C1/3/3/2L[] b - - 0 5"
    # The hen now moves like a gold general.
    game.play("a4a3")
    assert from_square(game, "b4") == {"a4", "c4", "b3"}  # a3: no backward diagonal
    with pytest.raises(IllegalMove, match="only a chick entering the far rank promotes"):
        game.play("b4b3+")
    # Black promotes on rank 1.
    black = Dobutsu.from_position("1l1/3/1c1/L2[] b")
    assert "b2b1+" in black.legal_moves()


def test_captured_hen_returns_to_hand_as_a_chick() -> None:
    game = Dobutsu.from_position("1l1/1+C1/3/L2[] b")
    game.play("b4b3")
    assert game.hand(1) == {"C": 1}
    assert game.position().startswith("3/1l1/3/L2[c] w")
    game.play("a1a2")
    game.play("C@b1")
    assert game.piece_at("b1") == "c"  # dropped as a chick, not a hen
    game.pop()
    game.pop()
    game.pop()
    assert game.piece_at("b3") == "+C" and game.hand(1) == {}


def test_drops_go_on_any_empty_square_for_every_piece_in_hand() -> None:
    game = Dobutsu.from_position("1l1/3/3/1L1[CEG] w")
    drops = [m for m in game.legal_moves() if "@" in m]
    empty = ["a1", "c1", "a2", "b2", "c2", "a3", "b3", "c3", "a4", "c4"]
    assert sorted(drops) == sorted(f"{p}@{sq}" for p in "CEG" for sq in empty)
    game.play("E@b2")
    assert game.hand(0) == {"C": 1, "G": 1} and game.piece_at("b2") == "E"
    # Black drops are written with the uppercase letter too (FSF); lowercase is read as well.
    black = Dobutsu.from_position("1l1/3/3/1L1[c] b")
    assert "C@b2" in black.legal_moves()
    black.play("c@b2")
    assert black.piece_at("b2") == "c" and black.format_move(black.history[-1]) == "C@b2"


def test_chick_dropped_on_the_far_rank_stays_a_chick_and_cannot_move() -> None:
    game = Dobutsu.from_position("l2/3/3/2L[C] w")
    game.play("C@b4")
    assert game.piece_at("b4") == "C"
    game.play("a4a3")
    assert from_square(game, "b4") == set()
    with pytest.raises(IllegalMove):
        game.play("b4b3")


def test_no_drop_without_the_piece_in_hand_or_on_an_occupied_square() -> None:
    game = Dobutsu.from_position("1l1/3/3/1L1[C] w")
    with pytest.raises(IllegalMove, match="white has no giraffe in hand"):
        game.play("G@b2")
    with pytest.raises(IllegalMove, match="b1 is not empty"):
        game.play("C@b1")


# ----- ends --------------------------------------------------------------------------------
def test_capturing_the_lion_wins() -> None:
    game = Dobutsu.from_position("3/1l1/1G1/L2[] w")
    game.play("b2b3")
    outcome = game.outcome()
    assert outcome is not None and outcome.winner == 0 and outcome.reason == "lion-captured"
    assert game.moves() == [] and game.is_over()
    assert game.position() == "3/1G1/3/L2[L] b - - 0 1"  # FSF puts the lion in hand
    again = Dobutsu.from_position(game.position())
    assert again.outcome() == outcome


def test_try_on_a_safe_square_wins() -> None:
    game = Dobutsu.from_position("2l/1L1/3/3[] w")
    game.play("b3a4")
    outcome = game.outcome()
    assert outcome is not None and outcome.winner == 0 and outcome.reason == "try"
    assert game.legal_moves() == []


def test_try_on_an_attacked_square_does_not_win() -> None:
    game = Dobutsu.from_position("2l/1L1/3/3[] w")
    game.play("b3b4")  # next to the black lion
    assert game.outcome() is None
    game.play("c4b4")
    assert game.outcome() is not None and game.outcome().reason == "lion-captured"  # type: ignore[union-attr]


def test_black_tries_on_rank_one() -> None:
    game = Dobutsu.from_position("3/3/1l1/L2[] b")
    game.play("b2c1")
    outcome = game.outcome()
    assert outcome is not None and outcome.winner == 1 and outcome.reason == "try"


def test_try_also_counts_after_the_opponents_move() -> None:
    # White's lion stands on a4, attacked by the giraffe on b4; black moves the giraffe away.
    game = Dobutsu.from_position("Lg1/3/2l/3[] b")
    assert game.outcome() is None
    game.play("b4c4")
    outcome = game.outcome()
    assert outcome is not None and outcome.winner == 0 and outcome.reason == "try"


def test_both_lions_safe_on_their_far_ranks_is_a_draw() -> None:
    # White's elephant takes the black elephant that attacked white's lion; in doing so it
    # stops attacking black's lion on b1: both lions are safe at once.
    game = Dobutsu.from_position("L2/1e1/2E/1l1[] w")
    assert game.outcome() is None
    game.play("c2b3")
    outcome = game.outcome()
    assert outcome is not None and outcome.winner is None and outcome.reason == "both-try"
    assert outcome.result == "1/2-1/2"


def test_no_legal_move_loses() -> None:
    game = Dobutsu.from_position("GEl/LGE/CC1/3[] w")
    outcome = game.outcome()
    assert outcome is not None and outcome.winner == 1 and outcome.reason == "no-moves"


def test_threefold_repetition_is_a_draw_by_adjudication() -> None:
    game = Dobutsu.start()
    shuffle = ["c1c2", "a4a3", "c2c1", "a3a4"]
    for move in shuffle * 2:
        assert game.adjudication() is None
        game.play(move)
    adjudicated = game.adjudication()
    assert adjudicated is not None and adjudicated.winner is None
    assert adjudicated.reason == "repetition"
    assert game.outcome() is None  # FSF would play on to the fourth occurrence
    game.pop()
    assert game.adjudication() is None


def test_repetition_counts_hands() -> None:
    # Same board and side, different hands: not the same position.
    a = Dobutsu.from_position("1l1/3/3/1L1[C] w")
    b = Dobutsu.from_position("1l1/3/3/1L1[c] w")
    assert a.repetition_key() != b.repetition_key()


# ----- errors ------------------------------------------------------------------------------
def test_illegal_moves_name_the_move_and_the_position() -> None:
    game = Dobutsu.start()
    with pytest.raises(IllegalMove) as info:
        game.play("b1b3")
    assert "'b1b3'" in str(info.value) and START in str(info.value)
    with pytest.raises(IllegalMove, match="no white piece on a4"):
        game.play("a4a3")
    with pytest.raises(MoveSyntaxError, match="not notation"):
        game.play("b2-b3")
    with pytest.raises(MoveSyntaxError):
        game.play("L@b2")
    with pytest.raises(MoveSyntaxError):
        game.play("d1d2")
    finished = Dobutsu.from_position("2l/1L1/3/3[] w")
    finished.play("b3a4")
    with pytest.raises(IllegalMove, match="game is over"):
        finished.play("c4c3")


def test_board_view_includes_hands() -> None:
    game = Dobutsu.from_position("1l1/1+c1/3/1L1[GCe] w - - 0 1")
    view = game.board_view()
    assert (view.shape, view.columns, view.rows, len(view.cells)) == ("square", 3, 4, 12)
    assert view.hands == [["giraffe", "chick"], ["elephant"]]
    by_xy = {(c.x, c.y): c for c in view.cells}
    assert (by_xy[(1, 2)].piece, by_xy[(1, 2)].side) == ("hen", 1)
    assert (by_xy[(1, 0)].piece, by_xy[(1, 0)].side) == ("lion", 0)
    assert by_xy[(0, 0)].piece == "" and by_xy[(0, 0)].side is None
    diagram = game.diagram()
    assert "[e]" in diagram and "[GC]" in diagram and "+c" in diagram
