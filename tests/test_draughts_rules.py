"""International draughts rules (docs/rules.md, Draughts): one hand-built position per rule."""

from __future__ import annotations

import pytest

from referee.games import get_game
from referee.games.base import IllegalMove, MoveSyntaxError, PositionError
from referee.games.draughts import Draughts, DraughtsMove


def game(fen: str) -> Draughts:
    return Draughts.from_position(fen)


def test_registered_and_start() -> None:
    assert get_game("draughts") is Draughts
    g = Draughts.start()
    assert g.position() == "W:W31-50:B1-20" == Draughts.START_POSITION
    assert Draughts.SIDE_LABELS == ("white", "black")
    assert g.side_to_move == 0
    assert g.legal_moves() == [
        "31-26", "31-27", "32-27", "32-28", "33-28", "33-29", "34-29", "34-30", "35-30",
    ]


# ----- men ---------------------------------------------------------------------------------


def test_men_move_forward_only() -> None:
    assert game("W:W28:B1").legal_moves() == ["28-22", "28-23"]
    assert game("B:W50:B23").legal_moves() == ["23-28", "23-29"]


def test_men_capture_backwards() -> None:
    # White man on 28, black man behind it on 33, 39 empty (FMJD 4.1).
    assert game("W:W28:B33").legal_moves() == ["28x39"]
    # Black captures backwards (upwards) too.
    assert game("B:W40:B44").legal_moves() == ["44x35"]


def test_capture_is_compulsory() -> None:
    g = game("W:W28,50:B23")
    assert g.legal_moves() == ["28x19"]
    with pytest.raises(IllegalMove, match="capture is compulsory"):
        g.play("50-44")


# ----- majority rule -----------------------------------------------------------------------


def test_majority_rule_counts_pieces_not_kings() -> None:
    # 32x21 would take the king on 27 (one piece); 32x23x14 takes two men: two is compulsory.
    g = game("W:W32:BK27,28,19")
    assert g.legal_moves() == ["32x14"]
    assert g.moves()[0].captured == (19, 28)
    with pytest.raises(IllegalMove, match="majority"):
        g.parse_move("32x21")


def test_equal_maxima_free_choice_king_counts_as_one() -> None:
    # A king (27) and a man (28) are one piece each: both captures are legal.
    assert game("W:W32:BK27,28").legal_moves() == ["32x21", "32x23"]
    assert game("W:W43:B38,39").legal_moves() == ["43x32", "43x34"]


# ----- Turkish strike ----------------------------------------------------------------------


def test_turkish_strike_captured_piece_blocks_until_the_end() -> None:
    # King 14 could take 10 (landing on 5), and if 10 vanished at once, go back through 14 to
    # take 19 and 12 (three pieces). It stays on the board until the end, so that route takes
    # one piece only; the majority rule then forces 19 and 12 (two pieces).
    g = game("W:WK14:B10,12,19,35")
    assert g.legal_moves() == ["14x1", "14x7"]
    assert {m.captured for m in g.moves()} == {(12, 19)}
    with pytest.raises(IllegalMove):
        g.parse_move("14x5")


def test_piece_is_not_jumped_twice_and_start_square_is_free() -> None:
    # The man on 43 goes round 28, 29, 38, 39 and lands back on its own start square; it
    # cannot jump any of them a second time, so the sequence ends there with four pieces.
    g = game("W:W43:B28,29,38,39")
    (move,) = g.moves()
    assert move.start == move.end == 43
    assert move.captured == (28, 29, 38, 39)
    assert g.legal_moves() == ["43x43"]
    g.push(move)
    assert g.position() == "B:W43:B"
    assert g.outcome() is not None and g.outcome().winner == 0  # type: ignore[union-attr]


def test_king_may_pass_an_empty_square_twice() -> None:
    # 40x5 takes 29 (passing 23), 17, 27, then 10 passing 23 again.
    g = game("W:WK40:B10,17,27,29")
    assert g.moves() == [DraughtsMove((40, 12, 21, 32, 5), (10, 17, 27, 29))]
    assert g.legal_moves() == ["40x5"]


def test_captured_pieces_removed_only_after_the_sequence() -> None:
    g = game("W:WK40:B10,17,27,29,45")
    g.play("40x5")
    assert g.position() == "B:WK5:B45"


# ----- flying kings ------------------------------------------------------------------------


def test_king_moves_any_distance() -> None:
    g = game("W:WK46:B5")
    # Up to the black man on 5, which cannot be taken: nothing lies beyond it.
    assert g.legal_moves() == ["46-10", "46-14", "46-19", "46-23", "46-28", "46-32", "46-37",
                               "46-41"]


def test_king_captures_at_distance_with_landing_choice() -> None:
    assert game("W:WK46:B28").legal_moves() == ["46x5", "46x10", "46x14", "46x19", "46x23"]


def test_king_landing_forced_by_majority_continuation() -> None:
    # After taking 28, only the landing on 19 lets the king take 13 too; beyond 13 it may
    # choose 8 or 2.
    g = game("W:WK46:B13,28")
    assert g.legal_moves() == ["46x2", "46x8"]
    assert all(m.path[1] == 19 for m in g.moves())


# ----- promotion ---------------------------------------------------------------------------


def test_promotion_when_ending_on_far_row() -> None:
    g = game("W:W13:B8,45")
    g.play("13x2")
    assert g.piece_at(2) == (0, "K")
    g = game("W:W7:B45")
    assert g.legal_moves() == ["7-1", "7-2"]
    g.play("7-1")
    assert g.position() == "B:WK1:B45"
    g = game("B:W1:B44")
    g.play("44-50")
    assert g.piece_at(50) == (1, "K")


def test_no_promotion_passing_through_far_row_mid_capture() -> None:
    # 13x2x11: the man touches square 2 on the far row but ends on 11: still a man.
    g = game("W:W13:B7,8,45")
    assert g.moves() == [DraughtsMove((13, 2, 11), (7, 8))]
    g.play("13x11")
    assert g.piece_at(11) == (0, "m")
    assert g.position() == "B:W11:B45"


# ----- notation ----------------------------------------------------------------------------


AMBIGUOUS = "W:WK48:B8,13,14,42"
"""King 48 reaches 20 two ways with three pieces each: {42, 8, 14} and {42, 13, 14}."""


def test_ambiguous_capture_needs_full_landing_list() -> None:
    g = game(AMBIGUOUS)
    assert g.legal_moves() == ["48x26x3x20", "48x26x3x25", "48x31x9x20", "48x31x9x25"]
    with pytest.raises(IllegalMove, match="ambiguous"):
        g.parse_move("48x20")
    move = g.parse_move("48x31x9x20")
    assert move.captured == (13, 14, 42)
    assert g.format_move(move) == "48x31x9x20"


def test_full_form_accepted_when_short_form_would_do() -> None:
    g = game("W:W32:BK27,28,19")
    move = g.parse_move("32x23x14")
    assert move == g.parse_move("32x14")
    assert g.format_move(move) == "32x14"


def test_duplicate_sequences_are_one_move() -> None:
    # Clockwise and anticlockwise round 28, 29, 38, 39: same start, end and captured set.
    g = game("W:W43:B28,29,38,39")
    assert len(g.moves()) == 1
    assert g.perft(1) == 1
    assert g.parse_move("43x34x23x32x43") == g.parse_move("43x32x23x34x43") == g.moves()[0]


def test_bad_paths_are_rejected() -> None:
    g = game(AMBIGUOUS)
    with pytest.raises(IllegalMove, match="capture sequence"):
        g.parse_move("48x31x4x20")  # 4 is not on a line from 31 over a black piece to 20
    with pytest.raises(IllegalMove):
        g.parse_move("48x26x20")
    with pytest.raises(MoveSyntaxError):
        g.parse_move("48 x 20")
    with pytest.raises(MoveSyntaxError, match="outside 1-50"):
        g.parse_move("48x51")
    with pytest.raises(MoveSyntaxError):
        g.parse_move("32-28-23")


def test_illegal_move_error_names_move_and_position() -> None:
    g = Draughts.start()
    with pytest.raises(IllegalMove) as info:
        g.play("36-31")
    text = str(info.value)
    assert "'36-31'" in text and "W:W31-50:B1-20" in text
    assert info.value.move == "36-31" and info.value.position == "W:W31-50:B1-20"
    with pytest.raises(IllegalMove, match="no white piece on square 20"):
        g.play("20-25")


# ----- end of game -------------------------------------------------------------------------


def test_no_legal_move_loses() -> None:
    blocked = game("W:W46:B37,41")
    assert blocked.moves() == []
    outcome = blocked.outcome()
    assert outcome is not None and outcome.winner == 1 and outcome.reason == "no-moves"
    assert outcome.result == "0-1"
    empty = game("B:W30:B")
    outcome = empty.outcome()
    assert outcome is not None and outcome.winner == 0 and "no pieces" in outcome.detail
    assert Draughts.start().outcome() is None


# ----- position text -----------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "canonical"),
    [
        ("W:W31-50:B1-20", "W:W31-50:B1-20"),
        ("W:W31,32,33,34,35,36,37,38,39,40,41,42,43,44,45,46,47,48,49,50:B1-20",
         "W:W31-50:B1-20"),
        ("B:BK17,K24:W6,9,10,11,20,21,22,23,30,K31,33,37,41,42,43,44,46",
         "B:W6,9-11,20-23,30,K31,33,37,41-44,46:BK17,K24"),
        ("W:B12,13,14:W25,27", "W:W25,27:B12-14"),
        ("w:wk1-3,10:b50.", "W:WK1,K2,K3,10:B50"),
        (" B:W5:B ", "B:W5:B"),
        ("W:W10,11,12:B", "W:W10-12:B"),
    ],
)
def test_fen_round_trip(text: str, canonical: str) -> None:
    g = Draughts.from_position(text)
    assert g.position() == canonical
    assert Draughts.from_position(canonical).position() == canonical


@pytest.mark.parametrize(
    ("text", "why"),
    [
        ("X:W31:B1", "side to move"),
        ("W:W31:B51", "outside 1-50"),
        ("W:W31,32:B32", "given twice"),
        ("W:W31:W32", "listed twice"),
        ("W:W3a:B1", "not a square"),
        ("W:W40-35:B1", "backwards"),
        ("W:Q1", "must start with 'W' or 'B'"),
        ("W:W1-K3:B9", "mixes"),
    ],
)
def test_bad_fen_is_rejected_with_reason(text: str, why: str) -> None:
    with pytest.raises(PositionError, match=why) as info:
        Draughts.from_position(text)
    assert repr(text) in str(info.value)


# ----- views, copies, undo -----------------------------------------------------------------


def test_board_view_and_diagram() -> None:
    view = Draughts.start().board_view()
    assert (view.shape, view.columns, view.rows, len(view.cells)) == ("square", 10, 10, 100)
    dark = [c for c in view.cells if c.terrain == "dark"]
    assert len(dark) == 50
    assert all((c.x + c.y) % 2 == 0 for c in dark)  # square 46 at x=0, y=0 is dark
    pieces = [c for c in view.cells if c.piece]
    assert len(pieces) == 40 and {c.piece for c in pieces} == {"m"}
    bottom_left = next(c for c in view.cells if (c.x, c.y) == (0, 0))
    assert (bottom_left.piece, bottom_left.side) == ("m", 0)
    king_view = game("W:WK46:BK5").board_view()
    assert {(c.x, c.y, c.piece, c.side) for c in king_view.cells if c.piece} == {
        (0, 0, "K", 0), (9, 9, "K", 1)}
    diagram = game("W:WK46,31:BK5,20").diagram().splitlines()
    assert len(diagram) == 11
    assert diagram[0].split() == [".", ".", ".", ".", "B", "1-", "5"]
    assert diagram[9].split()[0] == "W"
    assert diagram[10] == "white to move"


def test_push_pop_and_copy_are_exact() -> None:
    g = Draughts.start()
    for text in ["32-28", "19-23", "28x19", "14x23"]:
        g.play(text)
    snapshot = g.position()
    other = g.copy()
    other.play("33-28")
    assert g.position() == snapshot
    assert other.position() != snapshot
    assert [g.format_move(m) for m in other.history[-1:]] == ["33-28"]
    assert g.ply == 4 and other.ply == 5
    assert other.pop() == DraughtsMove((33, 28))
    assert other.position() == snapshot
    while g.ply:
        g.pop()
    assert g.position() == Draughts.START_POSITION
    with pytest.raises(IndexError):
        g.pop()
